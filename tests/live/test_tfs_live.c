/*
 * test_tfs_live.c - runtime/tfs.c and runtime/reader.c on the live kernel.
 *
 * Needs root and a tracefs mount; otherwise prints a TAP skip line and
 * exits 77.  Every test compares tfs_snapshot() before and after: a run
 * must leave tracefs exactly as it found it.  Objects created: the
 * instance ktap_<this pid>_<tag>; for the stale-cleanup tests instances
 * and a uprobe event named as sessions of a pid that is dead (a reaped
 * child's), which the code under test removes when unlocked and keeps
 * when locked.
 *
 * Build by hand:
 *   gcc -std=gnu11 -Iruntime $(pkg-config --cflags libtracefs libtraceevent) \
 *     -o test_tfs_live tests/live/test_tfs_live.c tests/tools/tfs_snapshot.c \
 *     runtime/reader.c runtime/tfs.c runtime/tfs_sweep.c runtime/tfs_session.c \
 *     runtime/fileio.c \
 *     $(pkg-config --libs libtracefs libtraceevent) -lcmocka
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <event-parse.h>
#include <tracefs.h>

#include "../testutil.h"
#include "../../runtime/reader.h"
#include "../../runtime/tfs.h"
#include "../tools/tfs_snapshot.h"

#define LIVE_CALLS 1000
#define GETPPID "events/syscalls/sys_enter_getppid"

/*
 * The state every test must leave unchanged (taken in the group setup),
 * and what a test holds, so that a failed test's teardown still removes
 * its instance.
 */
struct live {
	char *before;
	char name[64];
	struct tfs *t;
	struct rdr *r;
};

/* ---- helpers ---- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static struct tfs *create(struct live *l)
{
	char err[TFS_ERRLEN];

	l->t = tfs_create(l->name, NULL, err, sizeof(err));
	if (!l->t)
		fail_msg("tfs_create: %s", err);
	return l->t;
}

static void destroy(struct live *l)
{
	char err[TFS_ERRLEN];
	struct tfs *t = l->t;

	l->t = NULL;
	if (tfs_destroy(t, err, sizeof(err)) != 0)
		fail_msg("tfs_destroy: %s", err);
}

static struct rdr *open_live(struct live *l, const char *const *events, unsigned n)
{
	char err[1024];

	l->r = rdr_open_live(tfs_instance_dir(l->t), events, n, NULL, err, sizeof(err));
	if (!l->r)
		fail_msg("rdr_open_live: %s", err);
	return l->r;
}

static void close_live(struct live *l)
{
	rdr_close(l->r);
	l->r = NULL;
}

static void expect_write(struct tfs *t, const char *path, const char *text)
{
	if (tfs_write(t, path, text, false) != 0)
		fail_msg("%s", tfs_error(t));
}

/* tracefs must look as it did when the group started. */
static void expect_unchanged(struct live *l)
{
	char *now = tfs_snapshot(NULL);

	assert_non_null(now);
	if (strcmp(now, l->before) != 0)
		fail_msg("tracefs state changed:\n--- before\n%s--- after\n%s",
			 l->before, now);
	free(now);
}

/* One write(2) of @text to @path (tracefs files refuse stdio's "a"). */
static int put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1;
	close(fd);
	return rc;
}

/* A whole (small) file, malloc'd. */
static char *tfs_test_read(const char *path)
{
	char *buf = calloc(1, 4096);
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_true(read(fd, buf, 4095) >= 0);
	close(fd);
	return buf;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}


/* ---- instance lifecycle ---- */

static void test_create_destroy_unchanged(void **state)
{
	struct live *l = *state;
	struct tfs *t = create(l);
	char dir[1024];

	snprintf(dir, sizeof(dir), "%s", tfs_instance_dir(t));
	assert_true(exists(dir));
	expect_write(t, GETPPID "/filter", "common_pid == 1");
	expect_write(t, GETPPID "/trigger", "stacktrace if common_pid == 1");
	expect_write(t, GETPPID "/trigger", "traceoff:1");
	expect_write(t, GETPPID "/enable", "1");
	expect_write(t, "events/sched/sched_switch/enable", "1");
	destroy(l);
	assert_false(exists(dir));
	expect_unchanged(l);
}

/* The first line of an error is "PATH: kernel message". */
static void expect_first_line(const char *msg, const char *want)
{
	size_t n = strcspn(msg, "\n");

	if (strlen(want) != n || strncmp(msg, want, n) != 0)
		fail_msg("error \"%s\", want first line \"%s\"", msg, want);
}

static void test_filter_error_message(void **state)
{
	struct live *l = *state;
	struct tfs *t = create(l);

	assert_int_equal(tfs_write(t, GETPPID "/filter", "common_pidd == 1", false), -1);
	expect_first_line(tfs_error(t), GETPPID "/filter: Field not found");
	assert_non_null(strstr(tfs_error(t), "common_pidd == 1"));
	assert_int_equal(tfs_write(t, GETPPID "/trigger", "stacktrace if nope > 2", false), -1);
	expect_first_line(tfs_error(t), GETPPID "/trigger: Field not found");
	assert_int_equal(tfs_write(t, "events/syscalls/sys_enter_nope/enable", "1", false), -1);
	expect_first_line(tfs_error(t),
			  "events/syscalls/sys_enter_nope/enable: No such file or directory");
	assert_int_equal(tfs_write(t, "../../tracing_on", "0", false), -1);
	destroy(l);
	expect_unchanged(l);
}

/* ---- the live stream ---- */

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* A child that waits on @gate, then calls getppid() @n times, moving
   between CPUs every 50 calls. */
static pid_t spawn_getppid(int n, int *gate_w)
{
	int gate[2], ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN), i;
	pid_t pid;
	char c;

	assert_int_equal(pipe(gate), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(gate[1]);
		if (read(gate[0], &c, 1) != 1)
			_exit(1);
		for (i = 0; i < n; i++) {
			if (i % 50 == 0 && ncpus > 1)
				pin((i / 50) % 2);
			getppid();
		}
		_exit(0);
	}
	close(gate[0]);
	*gate_w = gate[1];
	return pid;
}

struct seen {
	int n, cpu_changes, last_cpu;
	uint64_t first, last;
};

static void check_record(struct seen *s, const struct rdr_record *rec, pid_t child)
{
	assert_int_equal(rec->index, 0);
	assert_int_equal(rec->pid, child);
	assert_string_equal(rec->event->name, "sys_enter_getppid");
	if (s->n)
		assert_true(rec->ts > s->last);
	else
		s->first = rec->ts;
	s->last = rec->ts;
	s->cpu_changes += s->n && rec->cpu != s->last_cpu;
	s->last_cpu = rec->cpu;
	s->n++;
}

/* Read while the child runs, then stop, drain and read the rest. */
static void read_all(struct tfs *t, struct rdr *r, pid_t child, struct seen *s)
{
	struct rdr_record rec;
	bool running = true;
	int rc, status;

	for (;;) {
		rc = rdr_next(r, &rec, RDR_FOREVER, running ? 20 : -1);
		if (rc == RDR_RECORD) {
			check_record(s, &rec, child);
			continue;
		}
		if (rc != RDR_NONE)
			break;
		if (running && waitpid(child, &status, WNOHANG) == child) {
			running = false;
			assert_true(WIFEXITED(status));
			/* Everything is read; the window proves nothing remains. */
			while ((rc = rdr_next(r, &rec, rdr_now(r), 50)) == RDR_RECORD)
				check_record(s, &rec, child);
			assert_int_equal(rc, RDR_UNTIL);
			assert_int_equal(tfs_tracing_on(t, false), 0);
			rdr_drain(r);
		}
	}
	assert_int_equal(rc, RDR_END);
}

static void test_live_read_getppid(void **state)
{
	static const char *const events[] = { "syscalls/sys_enter_getppid" };
	struct live *l = *state;
	struct tfs *t = create(l);
	struct seen s = { 0 };
	struct rdr_stats st;
	char filter[64];
	uint64_t t0;
	struct rdr *r;
	int gate;
	pid_t child = spawn_getppid(LIVE_CALLS, &gate);

	snprintf(filter, sizeof(filter), "common_pid == %d", (int)child);
	expect_write(t, GETPPID "/filter", filter);
	expect_write(t, GETPPID "/enable", "1");
	r = open_live(l, events, 1);
	t0 = now_ns();
	assert_int_equal(write(gate, "g", 1), 1);
	close(gate);
	read_all(t, r, child, &s);
	assert_int_equal(s.n, LIVE_CALLS);
	/* The trace clock is CLOCK_MONOTONIC. */
	assert_true(s.first >= t0 && s.last <= now_ns());
	if (rdr_ncpus(r) > 1 && sysconf(_SC_NPROCESSORS_ONLN) > 1)
		assert_true(s.cpu_changes >= 1);
	assert_int_equal(rdr_get_stats(r, &st), 0);
	assert_int_equal(st.lost, 0);
	assert_int_equal(st.late, 0);
	assert_int_equal(st.records, LIVE_CALLS);
	close_live(l);
	destroy(l);
	expect_unchanged(l);
}

static void test_live_open_errors(void **state)
{
	static const char *const nosuch[] = { "syscalls/sys_enter_nope" };
	struct live *l = *state;
	struct tfs *t = create(l);
	char err[1024] = "";

	assert_null(rdr_open_live(tfs_instance_dir(t), nosuch, 1, NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "events/syscalls/sys_enter_nope/format"));
	assert_non_null(strstr(err, "no such event"));
	/* A clock user space cannot read is refused. */
	expect_write(t, "trace_clock", "local");
	assert_null(rdr_open_live(tfs_instance_dir(t), nosuch, 1, NULL, err, sizeof(err)));
	assert_non_null(strstr(err, "trace_clock: 'local'"));
	destroy(l);
	expect_unchanged(l);
}

/* ---- failures ---- */

/* Set-up fails half-way (bad filter after an enable and a trigger). */
static void test_cleanup_after_partial_setup(void **state)
{
	static const char *const events[] = {
		"syscalls/sys_enter_getppid", "sched/sched_switch",
	};
	struct live *l = *state;
	struct tfs *t = create(l);
	char dir[1024];

	snprintf(dir, sizeof(dir), "%s", tfs_instance_dir(t));
	expect_write(t, GETPPID "/enable", "1");
	expect_write(t, GETPPID "/trigger", "stacktrace");
	expect_write(t, "events/sched/sched_switch/enable", "1");
	open_live(l, events, 2);
	assert_int_equal(tfs_write(t, "events/sched/sched_switch/filter", "nope == 1", false), -1);
	/* the caller's error path: close the reader, destroy */
	close_live(l);
	destroy(l);
	assert_false(exists(dir));
	expect_unchanged(l);
}

/* tfs_create() itself fails after mkdir: nothing is left. */
static void test_create_fails_cleanly(void **state)
{
	struct live *l = *state;
	struct tfs_options opt = { .clock = "no_such_clock" };
	char err[TFS_ERRLEN];

	assert_null(tfs_create(l->name, &opt, err, sizeof(err)));
	expect_first_line(err, "trace_clock: Invalid argument");
	opt.clock = NULL;
	opt.buffer_size_kb = 1u << 31;	/* far too big */
	assert_null(tfs_create(l->name, &opt, err, sizeof(err)));
	assert_non_null(strstr(err, "buffer_size_kb: "));
	expect_unchanged(l);
}

/* rmdir fails while a trace_pipe_raw is open; destroy says why. */
static void test_destroy_busy(void **state)
{
	static const char *const events[] = { "syscalls/sys_enter_getppid" };
	struct live *l = *state;
	char err[TFS_ERRLEN];
	struct tfs_stale st;
	struct tfs *t = create(l);

	open_live(l, events, 1);
	l->t = NULL;
	assert_int_equal(tfs_destroy(t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "rmdir: Device or resource busy"));
	close_live(l);
	/* now it can go: its lock was given up with the handle, so the next
	   sweep proves it dead and removes it */
	assert_int_equal(tfs_cleanup_stale(NULL, &st, err, sizeof(err)), 0);
	assert_int_equal(st.instances, 1);
	expect_unchanged(l);
}

/* ---- stale objects ---- */

/* A session instance of a dead pid with enable, filter and trigger set. */
static void make_session(char *dir, size_t len, pid_t pid, const char *tag)
{
	char path[1200];

	snprintf(dir, len, "%s/instances/ktap_%d_%s", tracefs_tracing_dir(), (int)pid, tag);
	assert_int_equal(mkdir(dir, 0750), 0);
	snprintf(path, sizeof(path), "%s/" GETPPID "/trigger", dir);
	assert_int_equal(put(path, "stacktrace if common_pid == 1\n"), 0);
	snprintf(path, sizeof(path), "%s/" GETPPID "/filter", dir);
	assert_int_equal(put(path, "common_pid != 1\n"), 0);
	snprintf(path, sizeof(path), "%s/" GETPPID "/enable", dir);
	assert_int_equal(put(path, "1\n"), 0);
}

static void test_stale_instance(void **state)
{
	struct live *l = *state;
	char dir[1024], err[TFS_ERRLEN];
	struct tfs_stale st;

	make_session(dir, sizeof(dir), test_dead_pid(), "0badc0de");
	assert_int_equal(tfs_cleanup_stale(NULL, &st, err, sizeof(err)), 0);
	assert_true(st.instances >= 1);
	assert_false(exists(dir));
	expect_unchanged(l);
}

/*
 * A locked session is never swept, even when its pid is dead here: the
 * pid may be one of another PID namespace (issue 10, item 1).  Once the
 * lock is free, the same sweep removes it.
 */
static void test_locked_session_kept(void **state)
{
	struct live *l = *state;
	char dir[1024], path[1200], err[TFS_ERRLEN], *en;
	struct tfs_stale st;
	int fd;

	make_session(dir, sizeof(dir), test_dead_pid(), "0000abcd");
	fd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX), 0);
	assert_true(tfs_cleanup_stale(NULL, &st, err, sizeof(err)) >= 0);
	assert_true(exists(dir));
	snprintf(path, sizeof(path), "%s/" GETPPID "/enable", dir);
	en = tfs_test_read(path);
	assert_int_equal(en[0], '1');		/* not disabled either */
	free(en);
	close(fd);
	assert_int_equal(tfs_cleanup_stale(NULL, &st, err, sizeof(err)), 0);
	assert_int_equal(st.instances, 1);
	assert_false(exists(dir));
	expect_unchanged(l);
}

/* A session's uprobe event without its instance: the session is dead. */
static void test_stale_dynevent(void **state)
{
	struct live *l = *state;
	char path[256], cmd[256], err[TFS_ERRLEN], *text;
	struct tfs_stale st = { 0 };
	pid_t dead = test_dead_pid();

	snprintf(path, sizeof(path), "%s/dynamic_events", tracefs_tracing_dir());
	snprintf(cmd, sizeof(cmd), "p:ktap_%d_0badc0de/ktap_test /bin/true:0x1000\n", (int)dead);
	if (put(path, cmd) != 0) {
		fprintf(stderr, "no uprobe: %s\n", strerror(errno));
		skip();
	}
	assert_int_equal(tfs_cleanup_stale(NULL, &st, err, sizeof(err)), 0);
	assert_int_equal(st.dynevents, 1);
	snprintf(cmd, sizeof(cmd), "ktap_%d_0badc0de/", (int)dead);
	text = tfs_snapshot(NULL);
	assert_null(strstr(text, cmd));
	free(text);
	expect_unchanged(l);
}

/* ---- main ---- */

/* Group set-up: earlier runs' leftovers go, then the reference state. */
static int live_setup(void **state)
{
	static struct live l;
	struct tfs_stale st;
	char err[TFS_ERRLEN];

	if (tfs_cleanup_stale(NULL, &st, err, sizeof(err)) != 0)
		fprintf(stderr, "stale cleanup: %s\n", err);
	tfs_unique_name(l.name, sizeof(l.name));
	l.before = tfs_snapshot(NULL);
	*state = &l;
	return l.before ? 0 : -1;
}

static int live_teardown(void **state)
{
	struct live *l = *state;

	free(l->before);
	return 0;
}

/* After each test, also a failed one: nothing of ours stays. */
static int test_teardown(void **state)
{
	struct live *l = *state;

	rdr_close(l->r);
	l->r = NULL;
	tfs_destroy(l->t, NULL, 0);
	l->t = NULL;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_create_destroy_unchanged, test_teardown),
		cmocka_unit_test_teardown(test_filter_error_message, test_teardown),
		cmocka_unit_test_teardown(test_live_read_getppid, test_teardown),
		cmocka_unit_test_teardown(test_live_open_errors, test_teardown),
		cmocka_unit_test_teardown(test_cleanup_after_partial_setup, test_teardown),
		cmocka_unit_test_teardown(test_create_fails_cleanly, test_teardown),
		cmocka_unit_test_teardown(test_destroy_busy, test_teardown),
		cmocka_unit_test_teardown(test_stale_instance, test_teardown),
		cmocka_unit_test_teardown(test_locked_session_kept, test_teardown),
		cmocka_unit_test_teardown(test_stale_dynevent, test_teardown),
	};

	if (geteuid() != 0 || !tracefs_tracing_dir()) {
		printf("1..0 # SKIP needs root and a tracefs mount\n");
		fprintf(stderr, "test_tfs_live: skipped: needs root and tracefs\n");
		return 0;
	}
	return cmocka_run_group_tests_name("tfs and reader (live kernel)", tests,
					   live_setup, live_teardown);
}
