/*
 * test_kplan_live.c - runtime/kplan_apply.c on the live kernel: a plan
 * with a uprobe event (fetch argument), filters, a stacktrace trigger
 * with a filter and enables is applied to ktap's instance and undone by
 * each object's own undo text; the instance and dynamic_events must then
 * be as before, already before tfs_destroy() sweeps anything, and
 * tracefs as a whole after it.  Also a plan the kernel refuses half way.
 *
 * Needs root and a tracefs mount with uprobe events (this machine has
 * no kprobe events, hist triggers or synthetic events; those objects are
 * covered by tests/unit/test_kplan.c).  Skips (TAP plan 1..0) otherwise.
 * Run under the live lock: flock /tmp/ktap-live.lock.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <tracefs.h>

#include "../../runtime/kplan.h"
#include "../../runtime/tfs.h"
#include "../tools/tfs_snapshot.h"

#define GETPPID_SYS "syscalls"
#define GETPPID_EV "sys_enter_getppid"

struct live {
	char *before;
	char name[64], group[80];
	char exe[4096], target[4200];
	struct tfs *t;
};

/* File offset of this program's entry point (a real instruction). */
static int entry_offset(const char *exe, unsigned long *off)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(exe, O_RDONLY | O_CLOEXEC), rc = -1;
	unsigned i;

	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64)
		goto out;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * eh.e_phentsize)) !=
		    sizeof(ph))
			goto out;
		if (ph.p_type == PT_LOAD && eh.e_entry >= ph.p_vaddr &&
		    eh.e_entry < ph.p_vaddr + ph.p_filesz) {
			*off = eh.e_entry - ph.p_vaddr + ph.p_offset;
			rc = 0;
			break;
		}
	}
out:
	if (fd >= 0)
		close(fd);
	return rc;
}

static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r"), *m = open_memstream(&buf, &len);
	int ch;

	assert_non_null(m);
	while (f && (ch = fgetc(f)) != EOF)
		fputc(ch, m);
	if (f)
		fclose(f);
	fclose(m);
	return buf;
}

/* @file of event SYS/EV in the instance, as read. */
static char *event_file(struct live *l, const char *sys, const char *ev, const char *file)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/events/%s/%s/%s", tfs_instance_dir(l->t), sys, ev,
		 file);
	return slurp(path);
}

static bool dynevents_mention(const char *group)
{
	char path[512], *text;
	bool found;

	snprintf(path, sizeof(path), "%s/dynamic_events", tracefs_tracing_dir());
	text = slurp(path);
	found = strstr(text, group) != NULL;
	free(text);
	return found;
}

/* The instance's copy of SYS/EV carries nothing of ours. */
static void expect_event_clean(struct live *l, const char *sys, const char *ev)
{
	char *s;

	s = event_file(l, sys, ev, "enable");
	assert_string_equal(s, "0\n");
	free(s);
	s = event_file(l, sys, ev, "filter");
	assert_string_equal(s, "none\n");
	free(s);
	s = event_file(l, sys, ev, "trigger");	/* only "# Available triggers" help */
	assert_true(s[0] == '#' && !strstr(s, "\ns") && !strstr(s, "\nt"));
	free(s);
}

static void expect_unchanged(struct live *l)
{
	char *now = tfs_snapshot(NULL);

	assert_non_null(now);
	if (strcmp(now, l->before) != 0)
		fail_msg("tracefs state changed:\n--- before\n%s--- after\n%s", l->before, now);
	free(now);
}

static void create(struct live *l)
{
	char err[TFS_ERRLEN];

	l->t = tfs_create(l->name, NULL, err, sizeof(err));
	if (!l->t)
		fail_msg("tfs_create: %s", err);
}

static void destroy(struct live *l)
{
	char err[TFS_ERRLEN];
	struct tfs *t = l->t;

	l->t = NULL;
	if (tfs_destroy(t, err, sizeof(err)) != 0)
		fail_msg("tfs_destroy: %s", err);
}

static void test_apply_undo(void **state)
{
	struct live *l = *state;
	struct kp_arg arg = { "di", "%di", "x64" };
	struct kp_dynevent up = { .kind = KP_UPROBE, .group = "ktap_$PID", .name = "entry",
				  .target = l->target, .args = &arg, .nargs = 1 };
	struct kp_obj objs[] = {
		{ .kind = KP_DYNEVENT, .u.dyn = &up },
		{ .kind = KP_FILTER, .u.filter = { "ktap_$PID", "entry",
						   "common_pid != $KTAP" } },
		{ .kind = KP_ENABLE, .u.enable = { "ktap_$PID", "entry" } },
		{ .kind = KP_FILTER, .u.filter = { GETPPID_SYS, GETPPID_EV,
						   "common_pid == $TARGET" } },
		{ .kind = KP_TRIGGER, .u.trigger = { .system = GETPPID_SYS, .event = GETPPID_EV,
			.kind = KP_T_STACKTRACE, .filter = "common_pid == $TARGET" } },
		{ .kind = KP_ENABLE, .u.enable = { GETPPID_SYS, GETPPID_EV } },
	};
	struct kp_plan plan = { objs, sizeof(objs) / sizeof(objs[0]), 0 };
	char err[TFS_ERRLEN], want[128], *s;

	create(l);
	if (kplan_apply(&plan, l->t, &(struct kp_env){ .target = 1 }) != plan.n)
		fail_msg("kplan_apply: %s", tfs_error(l->t));
	assert_true(dynevents_mention(l->group));
	s = event_file(l, l->group, "entry", "enable");
	assert_string_equal(s, "1\n");
	free(s);
	snprintf(want, sizeof(want), "common_pid != %d\n", (int)getpid());
	s = event_file(l, l->group, "entry", "filter");
	assert_string_equal(s, want);
	free(s);
	s = event_file(l, GETPPID_SYS, GETPPID_EV, "trigger");
	assert_string_equal(s, "stacktrace:unlimited if common_pid == 1\n");
	free(s);

	assert_int_equal(kplan_undo(&plan, plan.n, l->t, &(struct kp_env){ .target = 1 }, err,
				    sizeof(err)), 0);
	/* Undone by the objects themselves, before any sweep. */
	assert_false(dynevents_mention(l->group));
	expect_event_clean(l, GETPPID_SYS, GETPPID_EV);
	destroy(l);
	expect_unchanged(l);
}

/* The kernel refuses the third object: the two before it are undone. */
static void test_refused_half_way(void **state)
{
	struct live *l = *state;
	struct kp_dynevent up = { .kind = KP_UPROBE, .group = "ktap_$PID", .name = "entry",
				  .target = l->target, .origin = "t.stp:1:7: process" };
	struct kp_obj objs[] = {
		{ .kind = KP_DYNEVENT, .u.dyn = &up },
		{ .kind = KP_TRIGGER, .u.trigger = { .system = GETPPID_SYS, .event = GETPPID_EV,
						     .kind = KP_T_STACKTRACE } },
		{ .kind = KP_FILTER, .u.filter = { GETPPID_SYS, GETPPID_EV, "no_such_field == 1" } },
		{ .kind = KP_ENABLE, .u.enable = { GETPPID_SYS, GETPPID_EV } },
	};
	struct kp_plan plan = { objs, sizeof(objs) / sizeof(objs[0]), 0 };
	char err[TFS_ERRLEN];
	unsigned n;

	create(l);
	n = kplan_apply(&plan, l->t, &(struct kp_env){ 0 });
	assert_int_equal(n, 2);
	assert_int_equal(kplan_undo(&plan, n, l->t, &(struct kp_env){ 0 }, err, sizeof(err)), 0);
	assert_false(dynevents_mention(l->group));
	expect_event_clean(l, GETPPID_SYS, GETPPID_EV);
	destroy(l);
	expect_unchanged(l);
}

static int live_setup(void **state)
{
	static struct live l;
	struct tfs_stale st;
	char err[TFS_ERRLEN];
	unsigned long off;
	ssize_t n;

	if (tfs_cleanup_stale(NULL, &st, err, sizeof(err)) != 0)
		fprintf(stderr, "stale cleanup: %s\n", err);
	tfs_unique_name(l.name, sizeof(l.name));
	snprintf(l.group, sizeof(l.group), "%s/", l.name);
	n = readlink("/proc/self/exe", l.exe, sizeof(l.exe) - 1);
	if (n <= 0 || entry_offset((l.exe[n] = '\0', l.exe), &off) != 0)
		return -1;
	snprintf(l.target, sizeof(l.target), "%s:0x%lx", l.exe, off);
	l.before = tfs_snapshot(NULL);
	*state = &l;
	return l.before ? 0 : -1;
}

static int live_teardown(void **state)
{
	free(((struct live *)*state)->before);
	return 0;
}

/* After each test, also a failed one: nothing of ours stays. */
static int test_teardown(void **state)
{
	struct live *l = *state;

	tfs_destroy(l->t, NULL, 0);
	l->t = NULL;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_apply_undo, test_teardown),
		cmocka_unit_test_teardown(test_refused_half_way, test_teardown),
	};
	char path[512];

	if (geteuid() != 0 || !tracefs_tracing_dir()) {
		printf("1..0 # SKIP needs root and a tracefs mount\n");
		return 0;
	}
	snprintf(path, sizeof(path), "%s/uprobe_events", tracefs_tracing_dir());
	if (access(path, W_OK) != 0) {
		printf("1..0 # SKIP no uprobe events\n");
		return 0;
	}
	return cmocka_run_group_tests_name("kernel plan apply/undo (live kernel)", tests,
					   live_setup, live_teardown);
}
