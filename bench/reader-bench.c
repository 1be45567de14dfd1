/*
 * reader-bench.c - how fast ktap's kernel-facing layer arms and reads.
 *
 *   reader-bench [-d SECONDS] [-b KB] [-w WINDOW_MS] [-o]
 *
 * 1. Time to "armed": stale cleanup, instance created (tfs_create()),
 *    syscalls/sys_enter_getppid enabled, every CPU's trace_pipe_raw open
 *    with the format loaded (rdr_open_live()).
 * 2. Throughput: a child calls getppid() flat out for SECONDS (default 2)
 *    with no filter and the default buffer size (or -b KB per CPU) while
 *    the reader decodes and delivers every record (rdr_next() plus one
 *    field read).  Reports records/s, what the child did, and the lost
 *    count (lost + delivered should equal the child's calls plus other
 *    processes' getppid calls).
 * 3. With -o ("offline"), the reader waits until the child is done and
 *    then reads the full buffer: pure decode speed, no concurrency (most
 *    records are lost then, by design: the buffer overflows).
 * Root only; exits 77 otherwise.
 *
 * Build: gcc -O2 -std=gnu11 -Iruntime $(pkg-config --cflags libtracefs \
 *   libtraceevent) -o bench/reader-bench bench/reader-bench.c \
 *   runtime/reader.c runtime/tfs.c $(pkg-config --libs libtracefs libtraceevent)
 */
#define _GNU_SOURCE
#include "reader.h"
#include "tfs.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct bench {
	double seconds;
	unsigned buffer_kb;
	uint64_t window_ns;
	bool offline;
	struct tfs *tfs;
	struct rdr *rdr;
	pid_t child;
	int result_fd;		/* the child's call count arrives here */
	double t_create, t_enable, t_open;
	double t_read;		/* when reading started */
};

static double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void bench_args(struct bench *b, int argc, char **argv)
{
	int c;

	b->seconds = 2;
	while ((c = getopt(argc, argv, "d:b:w:o")) != -1) {
		if (c == 'd')
			b->seconds = atof(optarg);
		else if (c == 'b')
			b->buffer_kb = (unsigned)atoi(optarg);
		else if (c == 'w')
			b->window_ns = (uint64_t)(atof(optarg) * 1e6);
		else if (c == 'o')
			b->offline = true;
		else {
			fprintf(stderr, "usage: reader-bench [-d S] [-b KB] [-w MS] [-o]\n");
			exit(2);
		}
	}
}

/* Stale cleanup, instance, one event, CPUs open: the "armed" state. */
static int bench_arm(struct bench *b)
{
	static const char *const events[] = { "syscalls/sys_enter_getppid" };
	struct tfs_options topt = { .buffer_size_kb = b->buffer_kb };
	struct rdr_options ropt = { .holdback_ns = b->window_ns };
	char name[64], err[TFS_ERRLEN];
	struct tfs_stale stale;
	double t0 = bench_now(), t1, t2;

	tfs_cleanup_stale(NULL, &stale, err, sizeof(err));
	tfs_unique_name(name, sizeof(name));
	b->tfs = tfs_create(name, &topt, err, sizeof(err));
	if (!b->tfs) {
		fprintf(stderr, "reader-bench: %s\n", err);
		return -1;
	}
	t1 = bench_now();
	if (tfs_write(b->tfs, "events/syscalls/sys_enter_getppid/enable", "1", false)) {
		fprintf(stderr, "reader-bench: %s\n", tfs_error(b->tfs));
		return -1;
	}
	t2 = bench_now();
	b->rdr = rdr_open_live(tfs_instance_dir(b->tfs), events, 1, &ropt, err, sizeof(err));
	if (!b->rdr) {
		fprintf(stderr, "reader-bench: %s\n", err);
		return -1;
	}
	b->t_create = t1 - t0;
	b->t_enable = t2 - t1;
	b->t_open = bench_now() - t2;
	return 0;
}

/* The child: getppid() until @seconds have passed; writes its count. */
static void bench_child(double seconds, int gate, int result)
{
	uint64_t n = 0;
	double end;
	char c;

	if (read(gate, &c, 1) != 1)
		_exit(1);
	end = bench_now() + seconds;
	do {
		int i;

		for (i = 0; i < 1000; i++)
			getppid();
		n += 1000;
	} while (bench_now() < end);
	if (write(result, &n, sizeof(n)) != sizeof(n))
		_exit(1);
	_exit(0);
}

static int bench_spawn(struct bench *b, int *gate_w)
{
	int gate[2], res[2];

	if (pipe(gate) || pipe(res))
		return -1;
	b->child = fork();
	if (b->child < 0)
		return -1;
	if (b->child == 0) {
		close(gate[1]);
		close(res[0]);
		bench_child(b->seconds, gate[0], res[1]);
	}
	close(gate[0]);
	close(res[1]);
	*gate_w = gate[1];
	b->result_fd = res[0];
	return 0;
}

/* Read until the child is gone (live) or not at all (offline). */
static uint64_t bench_read(struct bench *b, const struct rdr_field *nr, uint64_t *mine,
			   int64_t *sum)
{
	struct rdr_record rec;
	uint64_t n = 0;
	int rc, status;
	bool running = true;

	if (b->offline) {
		waitpid(b->child, &status, 0);
		running = false;
		tfs_tracing_on(b->tfs, false);
		rdr_drain(b->rdr);
	}
	b->t_read = bench_now();
	for (;;) {
		rc = rdr_next(b->rdr, &rec, RDR_FOREVER, running ? 50 : -1);
		if (rc == RDR_RECORD) {
			n++;
			*mine += rec.pid == b->child;
			*sum += rdr_field_num(nr, &rec);
			if ((n & 0xffff) || !running)
				continue;
		} else if (rc != RDR_NONE) {
			break;
		}
		if (running && waitpid(b->child, &status, WNOHANG) == b->child) {
			running = false;
			tfs_tracing_on(b->tfs, false);
			rdr_drain(b->rdr);
		}
	}
	if (rc == RDR_ERROR)
		fprintf(stderr, "reader-bench: %s\n", rdr_error(b->rdr));
	return n;
}

static void bench_report(struct bench *b, uint64_t n, uint64_t mine, uint64_t calls,
			 double secs)
{
	struct rdr_stats st;

	rdr_get_stats(b->rdr, &st);
	printf("armed: %.2f ms (instance %.2f + enable %.2f + open %.2f)\n",
	       (b->t_create + b->t_enable + b->t_open) * 1e3, b->t_create * 1e3,
	       b->t_enable * 1e3, b->t_open * 1e3);
	printf("child: %" PRIu64 " getppid() calls in %.2f s (%.0f/s)\n",
	       calls, b->seconds, calls / b->seconds);
	printf("reader: %" PRIu64 " records (%" PRIu64 " from the child) in %.3f s: "
	       "%.0f records/s%s\n", n, mine, secs, n / secs,
	       b->offline ? " (offline: decode only)" : "");
	printf("sub-buffers %" PRIu64 ", lost %" PRIu64 " (overrun %" PRIu64
	       ", dropped %" PRIu64 ", missed %" PRIu64 "), late %" PRIu64 "\n",
	       st.subbufs, st.lost, st.overrun, st.dropped, st.missed, st.late);
	printf("child calls - delivered = %" PRId64 "\n", (int64_t)(calls - mine));
	if (st.lost)
		printf("WARNING: %" PRIu64 " events lost\n", st.lost);
}

int main(int argc, char **argv)
{
	struct bench b = { 0 };
	const struct rdr_field *nr;
	uint64_t n, mine = 0, calls = 0;
	int64_t sum = 0;
	char err[TFS_ERRLEN];
	int gate, rc = 1;
	double t0, t1;

	bench_args(&b, argc, argv);
	if (geteuid() != 0) {
		fprintf(stderr, "reader-bench: needs root\n");
		return 77;
	}
	if (bench_arm(&b) || bench_spawn(&b, &gate))
		goto out;
	nr = rdr_field(b.rdr, 0, "__syscall_nr");
	if (!nr || write(gate, "g", 1) != 1)
		goto out;
	n = bench_read(&b, nr, &mine, &sum);
	t1 = bench_now();
	t0 = b.t_read;
	if (read(b.result_fd, &calls, sizeof(calls)) != sizeof(calls))
		calls = 0;
	bench_report(&b, n, mine, calls, t1 - t0);
	rc = 0;
out:
	t0 = bench_now();
	rdr_close(b.rdr);
	if (b.tfs && tfs_destroy(b.tfs, err, sizeof(err))) {
		fprintf(stderr, "reader-bench: %s\n", err);
		rc = 1;
	}
	if (rc == 0)
		printf("teardown (rdr_close + tfs_destroy): %.2f ms\n",
		       (bench_now() - t0) * 1e3);
	return rc;
}
