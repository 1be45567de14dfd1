/*
 * test_tracedat.c - hermetic tests of --record's writer
 * (runtime/tracedat_write.c) and -i's reader (runtime/reader_tracedat.c).
 *
 * No root: the sub-buffers of tests/fixtures/getppid (reader.h's recorded
 * directory: what ktap read from trace_pipe_raw on two CPUs) go through
 * the writer as a live run's would, into a trace.dat in a temporary
 * directory, beside a fake instance directory holding the formats,
 * header_page, header_event and trace_clock.  Reading that file back
 * with libtracecmd must give the very records the recorded directory
 * gives, in the same merged order, with the saved command line; and
 * the 6.1 VM's trace-cmd recording (tests/fixtures/getppid-6.1.dat)
 * reads with its recording's clock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <event-parse.h>

#include "../../runtime/reader.h"
#include "../../runtime/tracedat_write.h"

#ifndef KTAP_SRCDIR_DEFAULT
#define KTAP_SRCDIR_DEFAULT "."
#endif

static const char *const events[] = {
	"syscalls/sys_enter_getppid", "sched/sched_switch", "sched/sched_process_exec",
};
#define NEVENTS 3

/* The kernel's events/header_event (it has not changed since 2.6.31). */
static const char header_event[] =
	"# compressed entry header\n\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n"
	"\tpadding     : type == 29\n\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n\tdata max type_len  == 28\n";

static const char *srcdir(void)
{
	const char *src = getenv("KTAP_SRCDIR");

	return src && *src ? src : KTAP_SRCDIR_DEFAULT;
}

static void fixture(char *path, size_t len, const char *rel)
{
	snprintf(path, len, "%s/tests/fixtures/%s", srcdir(), rel);
}

static void put_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* Copy fixture file @from to @to. */
static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	size_t n;
	FILE *f = fopen(from, "r");

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	put_file(to, buf, n);
}

/* A fake instance directory @dir with what tdw_headers() reads. */
static void fake_instance(const char *dir)
{
	char from[4096], to[4096];
	unsigned i;

	snprintf(to, sizeof(to), "%s/events", dir);
	assert_int_equal(mkdir(to, 0755), 0);
	fixture(from, sizeof(from), "getppid/header_page");
	snprintf(to, sizeof(to), "%s/events/header_page", dir);
	copy_file(from, to);
	snprintf(to, sizeof(to), "%s/events/header_event", dir);
	put_file(to, header_event, strlen(header_event));
	snprintf(to, sizeof(to), "%s/trace_clock", dir);
	put_file(to, "local global [mono] boot\n", 25);
	for (i = 0; i < NEVENTS; i++) {
		const char *slash = strchr(events[i], '/');

		snprintf(to, sizeof(to), "%s/events/%.*s", dir, (int)(slash - events[i]),
			 events[i]);
		mkdir(to, 0755);
		snprintf(to, sizeof(to), "%s/events/%s", dir, events[i]);
		assert_int_equal(mkdir(to, 0755), 0);
		strcat(to, "/format");
		snprintf(from, sizeof(from), "%s/tests/fixtures/getppid/events/%s/format",
			 srcdir(), events[i]);
		copy_file(from, to);
	}
}

/* Every 4096-byte sub-buffer of the fixture's cpu@cpu.raw into @w. */
static void feed_cpu(struct tdw *w, int cpu)
{
	char path[4096], page[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/fixtures/getppid/cpu%d.raw", srcdir(), cpu);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fread(page, 1, sizeof(page), f) == sizeof(page))
		tdw_page(w, cpu, page, sizeof(page));
	fclose(f);
}

/* The pid line of the fixture's info. */
static int fixture_pid(void)
{
	char path[4096], line[256];
	int pid = -1;
	FILE *f;

	fixture(path, sizeof(path), "getppid/info");
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "pid ", 4))
			pid = atoi(line + 4);
	fclose(f);
	return pid;
}

/* Write the fixture as a trace.dat into @dir/out.dat (@out). */
static void write_dat(const char *dir, char *out, size_t len)
{
	char err[TDW_ERRLEN];
	struct tdw *w;

	fake_instance(dir);
	snprintf(out, len, "%s/out.dat", dir);
	w = tdw_new(out, err, sizeof(err));
	if (!w)
		fail_msg("tdw_new: %s", err);
	if (tdw_headers(w, dir, events, NEVENTS, 2, 4096, err, sizeof(err)) != 0)
		fail_msg("tdw_headers: %s", err);
	feed_cpu(w, 0);
	feed_cpu(w, 1);
	tdw_comm(w, fixture_pid(), "ktap-getppid");
	tdw_comm(w, 0, "swapper");	/* left to trace-cmd */
	if (tdw_finish(w, err, sizeof(err)) != 0)
		fail_msg("tdw_finish: %s", err);
	tdw_free(w);
}

static void test_round_trip(void **state)
{
	char dir[] = "/tmp/ktap-test-tracedat.XXXXXX", out[4200], err[1024], cmd[4300];
	char rep[4096];
	struct rdr_record a, b;
	struct rdr *ra, *rb;
	int n = 0, ca, cb;

	(void)state;
	assert_non_null(mkdtemp(dir));
	write_dat(dir, out, sizeof(out));
	fixture(rep, sizeof(rep), "getppid");
	ra = rdr_open_replay(rep, events, NEVENTS, NULL, err, sizeof(err));
	if (!ra)
		fail_msg("rdr_open_replay: %s", err);
	rb = rdr_open_tracedat(out, events, NEVENTS, NULL, err, sizeof(err));
	if (!rb)
		fail_msg("rdr_open_tracedat: %s", err);
	assert_int_equal(rdr_ncpus(rb), 2);
	assert_string_equal(tep_data_comm_from_pid(rdr_tep(rb), fixture_pid()),
			    "ktap-getppid");
	for (;;) {
		ca = rdr_next(ra, &a, RDR_FOREVER, -1);
		cb = rdr_next(rb, &b, RDR_FOREVER, -1);
		assert_int_equal(ca, cb);
		if (ca != RDR_RECORD)
			break;
		assert_int_equal(a.ts, b.ts);
		assert_int_equal(a.cpu, b.cpu);
		assert_int_equal(a.pid, b.pid);
		assert_int_equal(a.index, b.index);
		assert_int_equal(a.size, b.size);
		assert_memory_equal(a.data, b.data, (size_t)a.size);
		assert_int_equal(rdr_now(rb), b.ts);
		n++;
	}
	assert_int_equal(ca, RDR_END);
	assert_true(n > 100);
	assert_int_equal(rdr_lost(rb), 0);
	rdr_close(ra);
	rdr_close(rb);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* The VM's trace-cmd recording: its clock and the RDR_UNTIL bound. */
static void test_trace_cmd_fixture(void **state)
{
	static const char *const ev[] = { "syscalls/sys_enter_getppid", "ktapfix/getppid_k" };
	char path[4096], err[1024];
	struct rdr_record rec;
	struct rdr *r;
	uint64_t start;
	int n[2] = { 0, 0 }, rc;

	(void)state;
	fixture(path, sizeof(path), "getppid-6.1.dat");
	r = rdr_open_tracedat(path, ev, 2, NULL, err, sizeof(err));
	if (!r)
		fail_msg("rdr_open_tracedat: %s", err);
	start = rdr_now(r);
	assert_true(start > 0);
	/* the first second: the first ten calls and the shell's one */
	while ((rc = rdr_next(r, &rec, start + 1000000000ULL, -1)) == RDR_RECORD) {
		assert_true(rec.ts >= start);
		n[rec.index]++;
	}
	assert_int_equal(rc, RDR_UNTIL);
	assert_int_equal(rdr_now(r), start + 1000000000ULL);
	assert_int_equal(n[0], 11);
	assert_int_equal(n[1], 11);
	while (rdr_next(r, &rec, RDR_FOREVER, -1) == RDR_RECORD)
		n[rec.index]++;
	assert_int_equal(n[0], 61);
	assert_int_equal(n[1], 61);
	rdr_close(r);
}

static void test_open_errors(void **state)
{
	static const char *const missing[] = { "sched/sched_switch" };
	char path[4096], err[1024];

	(void)state;
	fixture(path, sizeof(path), "getppid-6.1.dat");
	assert_null(rdr_open_tracedat(path, missing, 1, NULL, err, sizeof(err)));
	assert_string_equal(err, "sched:sched_switch: not in the recording");
	fixture(path, sizeof(path), "getppid/info");
	assert_null(rdr_open_tracedat(path, missing, 1, NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "not a trace-cmd recording"));
	assert_null(tdw_new("/nonexistent/dir/x.dat", err, sizeof(err)));
	assert_string_equal(err, "--record /nonexistent/dir/x.dat: No such file or directory");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_trace_cmd_fixture),
		cmocka_unit_test(test_open_errors),
	};

	return cmocka_run_group_tests_name("trace.dat writer and reader", tests, NULL, NULL);
}
