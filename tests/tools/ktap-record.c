/*
 * ktap-record.c - record raw trace events into a directory that
 * rdr_open_replay() (runtime/reader.h) can read back, for hermetic
 * runtime tests.  Root only.
 *
 *   ktap-record [-b KB] -o DIR [-g N] EVENT... [-- CMD [ARG...]]
 *
 * Creates its own instance ktap_<pid> (runtime/tfs.c), enables each
 * EVENT ("system/event"), runs CMD (or, with -g N, a built-in child that
 * calls getppid() N times, in blocks of 10 alternating between CPU 0 and
 * CPU 1, then execs /bin/true), stops tracing when the child has exited,
 * reads every CPU's trace_pipe_raw to the end and writes DIR:
 *   info, header_page, events/SYS/EVENT/format, cpuN.raw, cpuN.stats
 * (see reader.h for the layout), then removes the instance.
 *
 * Build (from the source tree):
 *   gcc -std=gnu11 -Iruntime $(pkg-config --cflags libtracefs libtraceevent) \
 *       -o tests/tools/ktap-record tests/tools/ktap-record.c runtime/tfs.c \
 *       $(pkg-config --libs libtracefs libtraceevent)
 * The fixture tests/fixtures/getppid was made with
 *   ktap-record -o tests/fixtures/getppid -g 100 syscalls/sys_enter_getppid \
 *       sched/sched_switch sched/sched_process_exec
 */
#define _GNU_SOURCE
#include "tfs.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define REC_MAX_CPUS 256

struct rec {
	const char *out;		/* output directory */
	char **events;
	int nevents;
	char **argv;			/* command, or NULL with -g */
	long getppid_calls;		/* -g N */
	unsigned buffer_kb;
	struct tfs *tfs;
	int ncpus;
	int fds[REC_MAX_CPUS];		/* trace_pipe_raw */
	int outs[REC_MAX_CPUS];		/* cpuN.raw */
	int subbuf_size;
	pid_t child;
};

static void rec_usage(void)
{
	fprintf(stderr, "usage: ktap-record [-b KB] -o DIR [-g N] EVENT... "
		"[-- CMD [ARG...]]\n");
	exit(2);
}

static void rec_parse(struct rec *r, int argc, char **argv)
{
	int c, i;

	while ((c = getopt(argc, argv, "+b:o:g:")) != -1) {
		if (c == 'b')
			r->buffer_kb = (unsigned)atoi(optarg);
		else if (c == 'o')
			r->out = optarg;
		else if (c == 'g')
			r->getppid_calls = atol(optarg);
		else
			rec_usage();
	}
	r->events = argv + optind;
	for (i = optind; i < argc && strcmp(argv[i], "--"); i++)
		r->nevents++;
	if (i < argc)
		r->argv = argv + i + 1;
	if (!r->out || !r->nevents || (!r->getppid_calls && (!r->argv || !r->argv[0])))
		rec_usage();
}

/* ---- the child ---- */

static void rec_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* -g N: N getppid() in blocks of 10 alternating CPUs, then exec. */
static void rec_workload(long n, int ncpus)
{
	long i;

	for (i = 0; i < n; i++) {
		if (i % 10 == 0 && ncpus > 1)
			rec_pin((int)(i / 10) % 2);
		getppid();
	}
	execl("/bin/true", "true", (char *)NULL);
	_exit(127);
}

/* Fork the child; it waits on @gate until the events are armed. */
static int rec_spawn(struct rec *r, int *gate_w)
{
	int gate[2];
	char ch;

	if (pipe2(gate, O_CLOEXEC) != 0)
		return -1;
	r->child = fork();
	if (r->child < 0)
		return -1;
	if (r->child == 0) {
		close(gate[1]);
		if (read(gate[0], &ch, 1) != 1)
			_exit(127);
		if (r->getppid_calls)
			rec_workload(r->getppid_calls, r->ncpus);
		execvp(r->argv[0], r->argv);
		_exit(127);
	}
	close(gate[0]);
	*gate_w = gate[1];
	return 0;
}

/* ---- copying files ---- */

/* Copy tracefs file @src (read until EOF) to @dst. */
static int rec_copy(const char *src, const char *dst)
{
	char buf[8192];
	int in, out, rc = 0;
	ssize_t n;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			rc = -1;
	if (n < 0)
		rc = -1;
	close(in);
	close(out);
	return rc;
}

/* mkdir -p for DIR/events/SYS/EVENT. */
static int rec_mkdirs(const char *path)
{
	char *p = strdup(path), *s;
	int rc = 0;

	for (s = p + 1; p && *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST)
			rc = -1;
		*s = '/';
	}
	if (p && mkdir(p, 0755) != 0 && errno != EEXIST)
		rc = -1;
	free(p);
	return rc;
}

static int rec_save_formats(struct rec *r)
{
	const char *dir = tfs_instance_dir(r->tfs);
	char src[1024], dst[1024];
	int i;

	snprintf(src, sizeof(src), "%s/events/header_page", dir);
	snprintf(dst, sizeof(dst), "%s/header_page", r->out);
	if (rec_copy(src, dst))
		return -1;
	for (i = 0; i < r->nevents; i++) {
		snprintf(dst, sizeof(dst), "%s/events/%s", r->out, r->events[i]);
		if (rec_mkdirs(dst))
			return -1;
		snprintf(src, sizeof(src), "%s/events/%s/format", dir, r->events[i]);
		snprintf(dst, sizeof(dst), "%s/events/%s/format", r->out, r->events[i]);
		if (rec_copy(src, dst))
			return -1;
	}
	return 0;
}

static int rec_save_stats(struct rec *r)
{
	char src[1024], dst[1024];
	int i;

	for (i = 0; i < r->ncpus; i++) {
		snprintf(src, sizeof(src), "%s/per_cpu/cpu%d/stats",
			 tfs_instance_dir(r->tfs), i);
		snprintf(dst, sizeof(dst), "%s/cpu%d.stats", r->out, i);
		if (rec_copy(src, dst))
			return -1;
	}
	return 0;
}

static int rec_save_info(struct rec *r)
{
	char path[1024];
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/info", r->out);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "# ktap-record: see runtime/reader.h\n");
	fprintf(f, "subbuf_size %d\nlong_size %d\ncpus %d\nclock mono\nendian %s\n",
		r->subbuf_size, (int)sizeof(long), r->ncpus,
		__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? "big" : "little");
	for (i = 0; i < r->nevents; i++)
		fprintf(f, "event %s\n", r->events[i]);
	fprintf(f, "pid %d\n", (int)r->child);
	return fclose(f);
}

/* ---- raw data ---- */

static int rec_open_cpus(struct rec *r)
{
	char path[1024];
	int i;

	r->ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (r->ncpus > REC_MAX_CPUS)
		r->ncpus = REC_MAX_CPUS;
	r->subbuf_size = (int)sysconf(_SC_PAGESIZE);
	for (i = 0; i < r->ncpus; i++) {
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw",
			 tfs_instance_dir(r->tfs), i);
		r->fds[i] = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		snprintf(path, sizeof(path), "%s/cpu%d.raw", r->out, i);
		r->outs[i] = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (r->fds[i] < 0 || r->outs[i] < 0)
			return -1;
	}
	return 0;
}

/* Copy what CPU @i has now, one sub-buffer per read(2). */
static int rec_drain_cpu(struct rec *r, int i)
{
	char buf[65536];
	ssize_t n;

	for (;;) {
		n = read(r->fds[i], buf, (size_t)r->subbuf_size);
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0)
			return n == 0 ? 0 : -1;
		if (n != r->subbuf_size || write(r->outs[i], buf, (size_t)n) != n)
			return -1;
	}
}

static int rec_drain(struct rec *r)
{
	int i;

	for (i = 0; i < r->ncpus; i++)
		if (rec_drain_cpu(r, i))
			return -1;
	return 0;
}

/* Copy data while the child runs (poll wakes at buffer_percent). */
static int rec_loop(struct rec *r)
{
	struct pollfd pfd[REC_MAX_CPUS];
	int i, status;

	for (;;) {
		if (waitpid(r->child, &status, WNOHANG) == r->child)
			return 0;
		for (i = 0; i < r->ncpus; i++)
			pfd[i] = (struct pollfd){ .fd = r->fds[i], .events = POLLIN };
		if (poll(pfd, (nfds_t)r->ncpus, 20) > 0 && rec_drain(r))
			return -1;
	}
}

static void rec_close_cpus(struct rec *r)
{
	int i;

	for (i = 0; i < r->ncpus; i++) {
		if (r->fds[i] >= 0)
			close(r->fds[i]);
		if (r->outs[i] >= 0)
			close(r->outs[i]);
	}
}

static int rec_arm(struct rec *r)
{
	char path[512];
	int i;

	for (i = 0; i < r->nevents; i++) {
		snprintf(path, sizeof(path), "events/%s/enable", r->events[i]);
		if (tfs_write(r->tfs, path, "1", false)) {
			fprintf(stderr, "ktap-record: %s\n", tfs_error(r->tfs));
			return -1;
		}
	}
	return 0;
}

static int rec_run(struct rec *r)
{
	int gate = -1, rc = -1;

	if (rec_mkdirs(r->out) || rec_open_cpus(r) || rec_arm(r) || rec_spawn(r, &gate))
		goto out;
	if (write(gate, "g", 1) != 1)
		goto out;
	close(gate);
	gate = -1;
	if (rec_loop(r))
		goto out;
	tfs_tracing_on(r->tfs, false);
	if (rec_drain(r) || rec_save_stats(r) || rec_save_formats(r) || rec_save_info(r))
		goto out;
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "ktap-record: %s: %s\n", r->out, strerror(errno));
	if (gate >= 0)
		close(gate);
	rec_close_cpus(r);
	return rc;
}

int main(int argc, char **argv)
{
	struct tfs_options opt = { .buffer_percent = 50 };
	struct rec r = { 0 };
	char name[64], err[TFS_ERRLEN];
	int rc;

	memset(r.fds, -1, sizeof(r.fds));
	memset(r.outs, -1, sizeof(r.outs));
	rec_parse(&r, argc, argv);
	if (geteuid() != 0) {
		fprintf(stderr, "ktap-record: needs root (tracefs)\n");
		return 77;
	}
	opt.buffer_size_kb = r.buffer_kb;
	tfs_unique_name(name, sizeof(name));
	r.tfs = tfs_create(name, &opt, err, sizeof(err));
	if (!r.tfs) {
		fprintf(stderr, "ktap-record: %s\n", err);
		return 1;
	}
	rc = rec_run(&r);
	if (tfs_destroy(r.tfs, err, sizeof(err))) {
		fprintf(stderr, "ktap-record: %s\n", err);
		rc = -1;
	}
	return rc ? 1 : 0;
}
