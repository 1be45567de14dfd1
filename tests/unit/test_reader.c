/*
 * test_reader.c - hermetic tests of runtime/reader.c and runtime/tfs.c.
 *
 * No root and no tracefs: the reader replays tests/fixtures/getppid (made
 * by tests/tools/ktap-record: a child that calls getppid() 100 times in
 * blocks of 10 alternating between CPU 0 and CPU 1, then execs
 * /bin/true; events sys_enter_getppid, sched_switch,
 * sched_process_exec), and tfs's stale-object cleanup runs on a fake
 * tracing directory made of plain files in a temporary directory.
 *
 * The fixture is found through $KTAP_SRCDIR (set by make check), else
 * KTAP_SRCDIR_DEFAULT given at compile time, else the working directory.
 * Build by hand:
 *   gcc -std=gnu11 -Iruntime $(pkg-config --cflags libtracefs libtraceevent) \
 *     -o test_reader tests/unit/test_reader.c runtime/reader.c runtime/tfs.c \
 *     $(pkg-config --libs libtracefs libtraceevent) -lcmocka
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <event-parse.h>

#include "../testutil.h"
#include "../../runtime/reader.h"
#include "../../runtime/tfs.h"

#ifndef KTAP_SRCDIR_DEFAULT
#define KTAP_SRCDIR_DEFAULT "."
#endif

#define GETPPID_CALLS 100

/* ---- helpers ---- */

static const char *fixture(void)
{
	static char path[4096];
	const char *src = getenv("KTAP_SRCDIR");

	snprintf(path, sizeof(path), "%s/tests/fixtures/getppid",
		 src && *src ? src : KTAP_SRCDIR_DEFAULT);
	return path;
}

/* The "pid" line of the fixture's info file. */
static int fixture_pid(void)
{
	char path[4200], line[256];
	int pid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/info", fixture());
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "pid ", 4))
			pid = atoi(line + 4);
	fclose(f);
	assert_true(pid > 0);
	return pid;
}

static struct rdr *open_fixture(const char *const *events, unsigned n)
{
	char err[1024];
	struct rdr *r = rdr_open_replay(fixture(), events, n, NULL, err, sizeof(err));

	if (!r)
		fail_msg("rdr_open_replay: %s", err);
	return r;
}


/* ---- replay: the merged stream ---- */

static void test_replay_getppid_count_and_order(void **state)
{
	struct rdr *r = open_fixture(NULL, 0);
	struct rdr_record rec;
	int pid = fixture_pid(), n = 0, switches = 0, last_cpu = -1, rc;
	uint64_t last = 0, all_last = 0;

	(void)state;
	assert_int_equal(rdr_ncpus(r), 2);
	while ((rc = rdr_next(r, &rec, RDR_FOREVER, -1)) == RDR_RECORD) {
		assert_true(rec.ts >= all_last);	/* whole stream in order */
		all_last = rec.ts;
		if (rec.index != 0 || rec.pid != pid)
			continue;
		assert_string_equal(rec.event->name, "sys_enter_getppid");
		assert_true(rec.ts > last);		/* strictly increasing */
		last = rec.ts;
		if (rec.cpu != last_cpu)
			switches += last_cpu >= 0;
		last_cpu = rec.cpu;
		n++;
	}
	assert_int_equal(rc, RDR_END);
	assert_int_equal(n, GETPPID_CALLS);
	/* 10 blocks on alternating CPUs: the merge interleaved them. */
	assert_int_equal(switches, 9);
	assert_int_equal(rdr_next(r, &rec, RDR_FOREVER, -1), RDR_END);
	rdr_close(r);
}

static void test_replay_stats(void **state)
{
	struct rdr *r = open_fixture(NULL, 0);
	struct rdr_record rec;
	struct rdr_stats st;
	uint64_t n = 0;

	(void)state;
	while (rdr_next(r, &rec, RDR_FOREVER, -1) == RDR_RECORD)
		n++;
	assert_int_equal(rdr_get_stats(r, &st), 0);
	assert_int_equal(st.records, n);
	assert_true(st.subbufs >= 2);
	assert_int_equal(st.unknown, 0);
	assert_int_equal(st.late, 0);
	assert_int_equal(st.lost, 0);
	assert_int_equal(rdr_lost(r), 0);
	rdr_close(r);
}

/* Records before @until first, RDR_UNTIL, then the rest. */
static void test_replay_until(void **state)
{
	struct rdr *r = open_fixture(NULL, 0);
	struct rdr_record rec;
	uint64_t ts[4096], until;
	unsigned n = 0, i = 0, half;

	(void)state;
	while (rdr_next(r, &rec, RDR_FOREVER, -1) == RDR_RECORD && n < 4096)
		ts[n++] = rec.ts;
	rdr_close(r);
	assert_true(n > 100);
	half = n / 2;
	until = ts[half];
	while (half > 0 && ts[half - 1] == until)
		half--;
	r = open_fixture(NULL, 0);
	while (rdr_next(r, &rec, until, 0) == RDR_RECORD)
		assert_true(rec.ts == ts[i++]);
	assert_int_equal(i, half);
	assert_int_equal(rdr_next(r, &rec, until, 0), RDR_UNTIL);
	assert_int_equal(rdr_next(r, &rec, 0, 0), RDR_UNTIL);
	while (rdr_next(r, &rec, RDR_FOREVER, 0) == RDR_RECORD)
		assert_true(rec.ts == ts[i++]);
	assert_int_equal(i, n);
	rdr_close(r);
}

/* Only the listed events are delivered; the rest is counted. */
static void test_replay_subset(void **state)
{
	static const char *const only[] = { "syscalls/sys_enter_getppid" };
	struct rdr *r = open_fixture(only, 1);
	struct rdr_record rec;
	struct rdr_stats st;
	int n = 0, pid = fixture_pid();

	(void)state;
	while (rdr_next(r, &rec, RDR_FOREVER, -1) == RDR_RECORD) {
		assert_int_equal(rec.index, 0);
		n += rec.pid == pid;
	}
	assert_int_equal(n, GETPPID_CALLS);
	rdr_get_stats(r, &st);
	assert_true(st.unknown > 0);
	rdr_close(r);
}

/* ---- replay: fields ---- */

static void test_fields_numbers(void **state)
{
	struct rdr *r = open_fixture(NULL, 0);
	const struct rdr_field *nr = rdr_field(r, 0, "__syscall_nr");
	const struct rdr_field *cpid = rdr_field(r, 0, "common_pid");
	const struct rdr_field *next_pid = rdr_field(r, 1, "next_pid");
	const struct rdr_field *prio = rdr_field(r, 1, "prev_prio");
	struct rdr_record rec;
	int64_t first_nr = -1;
	int pid = fixture_pid(), switches = 0;

	(void)state;
	assert_non_null(nr);
	assert_non_null(cpid);
	assert_non_null(next_pid);
	assert_non_null(prio);
	assert_int_equal(rdr_field_type(nr), RDR_F_NUM);
	while (rdr_next(r, &rec, RDR_FOREVER, -1) == RDR_RECORD) {
		if (rec.index == 0) {
			assert_int_equal(rdr_field_num(cpid, &rec), rec.pid);
			if (rec.pid != pid)
				continue;
			if (first_nr < 0)
				first_nr = rdr_field_num(nr, &rec);
			assert_int_equal(rdr_field_num(nr, &rec), first_nr);
		} else if (rec.index == 1) {
			assert_true(rdr_field_num(next_pid, &rec) >= 0);
			assert_true(rdr_field_num(prio, &rec) >= 0);
			assert_true(rdr_field_num(prio, &rec) < 140);
			switches += rdr_field_num(next_pid, &rec) == pid;
		}
	}
	assert_true(first_nr > 0);	/* 110 on x86_64 */
	assert_true(switches > 0);
	rdr_close(r);
}

static void test_fields_strings(void **state)
{
	struct rdr *r = open_fixture(NULL, 0);
	const struct rdr_field *comm = rdr_field(r, 1, "prev_comm");
	const struct rdr_field *file = rdr_field(r, 2, "filename");
	struct rdr_record rec;
	const char *s;
	uint32_t len;
	int pid = fixture_pid(), execs = 0, named = 0;

	(void)state;
	assert_non_null(comm);
	assert_non_null(file);
	assert_int_equal(rdr_field_type(comm), RDR_F_STR);	/* char[16] */
	assert_int_equal(rdr_field_type(file), RDR_F_STR);	/* __data_loc */
	while (rdr_next(r, &rec, RDR_FOREVER, -1) == RDR_RECORD) {
		if (rec.index == 1 && rec.pid == pid) {
			len = rdr_field_str(comm, &rec, &s);
			assert_true(len > 0 && len < 16);
			named += len == strlen("ktap-record") &&
				 !memcmp(s, "ktap-record", len);
		} else if (rec.index == 2 && rec.pid == pid) {
			len = rdr_field_str(file, &rec, &s);
			assert_int_equal(len, strlen("/bin/true"));
			assert_memory_equal(s, "/bin/true", len);
			execs++;
		}
	}
	assert_int_equal(execs, 1);
	assert_true(named > 0);
	rdr_close(r);
}

static void test_fields_errors(void **state)
{
	struct rdr *r = open_fixture(NULL, 0);
	struct rdr_record rec;
	const char *s = NULL;

	(void)state;
	errno = 0;
	assert_null(rdr_field(r, 0, "no_such_field"));
	assert_int_equal(errno, ENOENT);
	assert_null(rdr_field(r, 99, "common_pid"));
	assert_int_equal(errno, EINVAL);
	assert_null(rdr_event(r, 3));
	assert_string_equal(rdr_event(r, 1)->name, "sched_switch");
	assert_non_null(rdr_tep(r));
	/* A number read as a string is empty; a short record reads 0. */
	assert_int_equal(rdr_next(r, &rec, RDR_FOREVER, -1), RDR_RECORD);
	assert_int_equal(rdr_field_str(rdr_field(r, rec.index, "common_pid"), &rec, &s), 0);
	assert_string_equal(s, "");
	rec.size = 2;
	assert_int_equal(rdr_field_num(rdr_field(r, rec.index, "common_pid"), &rec), 0);
	rdr_close(r);
}

/* ---- replay: opening errors ---- */

static void expect_open_error(const char *dir, const char *const *events,
			      unsigned n, const char *needle)
{
	char err[1024] = "";
	struct rdr *r = rdr_open_replay(dir, events, n, NULL, err, sizeof(err));

	assert_null(r);
	if (!strstr(err, needle))
		fail_msg("error \"%s\" does not mention \"%s\"", err, needle);
}

static void test_open_errors(void **state)
{
	static const char *const nosuch[] = { "syscalls/sys_enter_nope" };
	static const char *const bad[] = { "sys_enter_getppid" };
	static const char *const twice[] = {
		"syscalls/sys_enter_getppid", "syscalls/sys_enter_getppid",
	};

	(void)state;
	expect_open_error("/nonexistent/ktap", NULL, 0, "/nonexistent/ktap/info");
	expect_open_error(fixture(), nosuch, 1, "no such event");
	expect_open_error(fixture(), bad, 1, "not a \"system/event\" name");
	expect_open_error(fixture(), twice, 2, "listed twice");
}

/* Copy the fixture to @dst, truncating cpu0.raw to @cut bytes. */
static void copy_fixture(const char *dst, long cut)
{
	char cmd[9000];

	snprintf(cmd, sizeof(cmd), "cp -r '%s/.' '%s' && truncate -s %ld '%s/cpu0.raw'",
		 fixture(), dst, cut, dst);
	assert_int_equal(system(cmd), 0);
}

static void test_truncated_raw(void **state)
{
	char dir[] = "/tmp/ktap-test-XXXXXX", cmd[64];
	struct rdr_record rec;
	struct rdr *r;
	int rc;

	(void)state;
	assert_non_null(mkdtemp(dir));
	copy_fixture(dir, 100);
	r = rdr_open_replay(dir, NULL, 0, NULL, NULL, 0);
	assert_non_null(r);
	while ((rc = rdr_next(r, &rec, RDR_FOREVER, -1)) == RDR_RECORD)
		;
	assert_int_equal(rc, RDR_ERROR);
	assert_non_null(strstr(rdr_error(r), "truncated"));
	rdr_close(r);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* ---- tfs on a fake tracing directory ---- */

static void make_file(const char *dir, const char *rel, const char *text)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *read_file(const char *dir, const char *rel)
{
	char path[4200], *buf = calloc(1, 65536);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_true(fread(buf, 1, 65535, f) < 65535);
	fclose(f);
	return buf;
}

/*
 * Ownership on a fake root: a session whose lock is free is removed with
 * its dynamic events; a locked one (ours here) is kept; an older ktap's
 * "ktap_<pid>" without a lock is kept and reported even when its pid is
 * dead here (it may run in another PID namespace); others are not ktap's.
 */
static void test_tfs_stale_fake_root(void **state)
{
	char root[] = "/tmp/ktap-root-XXXXXX", path[4200], text[1024], err[1024];
	char expect[1200], cmd[64], *after, mine[64];
	struct tfs_stale st;
	pid_t dead = test_dead_pid();
	int lock;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/instances", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/instances/ktap_%d_0badc0de", root, (int)dead);
	assert_int_equal(mkdir(path, 0755), 0);	/* unlocked: dead */
	tfs_unique_name(mine, sizeof(mine));
	snprintf(path, sizeof(path), "%s/instances/%s", root, mine);
	assert_int_equal(mkdir(path, 0755), 0);	/* locked: alive, kept */
	lock = open(path, O_RDONLY | O_DIRECTORY);
	assert_true(lock >= 0);
	assert_int_equal(flock(lock, LOCK_EX), 0);
	snprintf(path, sizeof(path), "%s/instances/ktap_%d", root, (int)dead);
	assert_int_equal(mkdir(path, 0755), 0);	/* an older ktap's: unproven */
	snprintf(path, sizeof(path), "%s/instances/other", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(text, sizeof(text),
		 "p:ktap_%d_0badc0de/open_x /bin/true:0x0000000000001000\n"
		 "r4:ktap_%d_0badc0de/ret_y vfs_read\n"
		 "p:%s/mine /bin/true:0x1000\n"
		 "p:ktap_%d/old /bin/true:0x1000\n"
		 "p:uprobes/ktap_%d /bin/true:0x1000\n",
		 (int)dead, (int)dead, mine, (int)dead, (int)dead);
	make_file(root, "dynamic_events", text);

	assert_int_equal(tfs_cleanup_stale(root, &st, err, sizeof(err)), 1);
	assert_int_equal(st.instances, 1);
	assert_int_equal(st.dynevents, 2);
	assert_int_equal(st.failed, 0);
	assert_int_equal(st.unproven, 2);
	snprintf(expect, sizeof(expect), "ktap_%d (and 1 more): left by a ktap that may still run", (int)dead);
	assert_non_null(strstr(err, expect));
	snprintf(path, sizeof(path), "%s/instances/ktap_%d_0badc0de", root, (int)dead);
	assert_int_not_equal(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/instances/%s", root, mine);
	assert_int_equal(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/instances/ktap_%d", root, (int)dead);
	assert_int_equal(access(path, F_OK), 0);
	after = read_file(root, "dynamic_events");
	snprintf(expect, sizeof(expect), "%s-:ktap_%d_0badc0de/open_x\n-:ktap_%d_0badc0de/ret_y\n",
		 text, (int)dead, (int)dead);
	assert_string_equal(after, expect);	/* appended, never truncated */
	free(after);
	close(lock);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* A set-up step that fails half-way leaves nothing behind. */
static void test_tfs_create_fails_cleanly(void **state)
{
	struct tfs_options opt = { 0 };
	char root[] = "/tmp/ktap-root-XXXXXX", path[4200], name[64], err[1024];
	char cmd[64];

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/instances", root);
	assert_int_equal(mkdir(path, 0755), 0);
	opt.root = root;
	tfs_unique_name(name, sizeof(name));
	/* mkdir works, writing trace_clock does not (no such file). */
	assert_null(tfs_create(name, &opt, err, sizeof(err)));
	assert_non_null(strstr(err, "trace_clock: No such file or directory"));
	snprintf(path, sizeof(path), "%s/instances/%s", root, name);
	assert_int_not_equal(access(path, F_OK), 0);
	/* Another process's name is refused before anything happens. */
	assert_null(tfs_create("ktap_1", &opt, err, sizeof(err)));
	assert_non_null(strstr(err, "not ktap_<pid>_<tag> of this process"));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay_getppid_count_and_order),
		cmocka_unit_test(test_replay_stats),
		cmocka_unit_test(test_replay_until),
		cmocka_unit_test(test_replay_subset),
		cmocka_unit_test(test_fields_numbers),
		cmocka_unit_test(test_fields_strings),
		cmocka_unit_test(test_fields_errors),
		cmocka_unit_test(test_open_errors),
		cmocka_unit_test(test_truncated_raw),
		cmocka_unit_test(test_tfs_stale_fake_root),
		cmocka_unit_test(test_tfs_create_fails_cleanly),
	};

	return cmocka_run_group_tests_name("reader (replay) and tfs (fake root)",
					   tests, NULL, NULL);
}
