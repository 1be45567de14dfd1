/*
 * test_kplan.c - runtime/kplan.c: every kernel object's tracefs text
 * (file, line, undo line), exactly, including the hist triggers and
 * synthetic events that nothing lowers to yet (issue 12 will).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kplan.h"

/* Render @o and compare all four parts (@undo NULL: none). */
static void expect(const struct kp_obj *o, bool global, const char *path,
		   const char *line, const char *undo)
{
	struct kp_text t;

	assert_int_equal(kp_render(o, &t), 0);
	assert_int_equal(t.global, global);
	assert_string_equal(t.path, path);
	assert_string_equal(t.line, line);
	if (undo)
		assert_string_equal(t.undo, undo);
	else
		assert_null(t.undo);
	kp_text_free(&t);
}

static void test_kprobe(void **state)
{
	struct kp_arg args[] = {
		{ "dfd", "%di", "s32" },
		{ "filename", "+0(%si)", "string" },
		{ "flags", "%dx", NULL },
	};
	struct kp_dynevent d = { .kind = KP_KPROBE, .group = "ktap_$PID",
				 .name = "do_sys_open_0", .target = "do_sys_open",
				 .args = args, .nargs = 3 };
	struct kp_obj o = { .kind = KP_DYNEVENT, .u.dyn = &d };

	(void)state;
	expect(&o, true, "kprobe_events",
	       "p:ktap_$PID/do_sys_open_0 do_sys_open dfd=%di:s32 filename=+0(%si):string "
	       "flags=%dx", "-:ktap_$PID/do_sys_open_0");
	d.nargs = 0;
	d.target = "ext4:ext4_sync_file";
	expect(&o, true, "kprobe_events", "p:ktap_$PID/do_sys_open_0 ext4:ext4_sync_file",
	       "-:ktap_$PID/do_sys_open_0");
	assert_string_equal(kp_dyn_file(&d), "kprobe_events");
}

static void test_kretprobe_maxactive(void **state)
{
	struct kp_arg ret = { "ret", "$retval", "s64" };
	struct kp_dynevent d = { .kind = KP_KRETPROBE, .group = "ktap_$PID", .name = "vfs_read_1",
				 .target = "vfs_read", .args = &ret, .nargs = 1 };
	struct kp_obj o = { .kind = KP_DYNEVENT, .u.dyn = &d };

	(void)state;
	expect(&o, true, "kprobe_events", "r:ktap_$PID/vfs_read_1 vfs_read ret=$retval:s64",
	       "-:ktap_$PID/vfs_read_1");
	d.maxactive = 64;
	expect(&o, true, "kprobe_events", "r64:ktap_$PID/vfs_read_1 vfs_read ret=$retval:s64",
	       "-:ktap_$PID/vfs_read_1");
}

static void test_uprobes(void **state)
{
	struct kp_arg a = { "n", "%di", "s32" };
	struct kp_dynevent d = { .kind = KP_UPROBE, .group = "ktap_$PID", .name = "add_0",
				 .target = "/bin/prog:0x1139", .args = &a, .nargs = 1,
				 .maxactive = 8 /* ignored: uprobes have none */ };
	struct kp_obj o = { .kind = KP_DYNEVENT, .u.dyn = &d };

	(void)state;
	expect(&o, true, "uprobe_events", "p:ktap_$PID/add_0 /bin/prog:0x1139 n=%di:s32",
	       "-:ktap_$PID/add_0");
	d.kind = KP_URETPROBE;
	expect(&o, true, "uprobe_events", "r:ktap_$PID/add_0 /bin/prog:0x1139 n=%di:s32",
	       "-:ktap_$PID/add_0");
	assert_string_equal(kp_dyn_file(&d), "uprobe_events");
	/* An SDT marker's semaphore: the reference counter's file offset. */
	d.kind = KP_UPROBE;
	d.ref_ctr_offset = 0x402c;
	expect(&o, true, "uprobe_events",
	       "p:ktap_$PID/add_0 /bin/prog:0x1139(0x402c) n=%di:s32", "-:ktap_$PID/add_0");
}

/* Eprobes and tracepoint probe events go to dynamic_events. */
static void test_eprobe_tprobe(void **state)
{
	struct kp_arg a = { "prev_tgid", "+2436($arg2)", "s32" };
	struct kp_dynevent d = { .kind = KP_TPROBE, .group = "ktap_$PID",
				 .name = "sched_switch_t", .target = "sched_switch",
				 .args = &a, .nargs = 1 };
	struct kp_obj o = { .kind = KP_DYNEVENT, .u.dyn = &d };

	(void)state;
	expect(&o, true, "dynamic_events",
	       "t:ktap_$PID/sched_switch_t sched_switch prev_tgid=+2436($arg2):s32",
	       "-:ktap_$PID/sched_switch_t");
	d.kind = KP_EPROBE;
	d.name = "timer_start_e0";
	d.target = "timer.timer_start";
	a = (struct kp_arg){ "timer_flags", "+40($timer)", "u32" };
	expect(&o, true, "dynamic_events",
	       "e:ktap_$PID/timer_start_e0 timer.timer_start timer_flags=+40($timer):u32",
	       "-:ktap_$PID/timer_start_e0");
}

static void test_enable_filter(void **state)
{
	struct kp_obj e = { .kind = KP_ENABLE, .u.enable = { "sched", "sched_switch" } };
	struct kp_obj f = { .kind = KP_FILTER, .u.filter = { "sched", "sched_switch",
		"(prev_pid == 1) && common_pid != $KTAP" } };

	(void)state;
	expect(&e, false, "events/sched/sched_switch/enable", "1", "0");
	expect(&f, false, "events/sched/sched_switch/filter",
	       "(prev_pid == 1) && common_pid != $KTAP", "0");
}

static void test_simple_triggers(void **state)
{
	struct kp_obj o = { .kind = KP_TRIGGER, .u.trigger = {
		.system = "syscalls", .event = "sys_enter_read", .kind = KP_T_STACKTRACE } };
	struct kp_trigger *t = &o.u.trigger;
	const char *path = "events/syscalls/sys_enter_read/trigger";

	(void)state;
	expect(&o, false, path, "stacktrace", "!stacktrace");
	t->filter = "common_pid == 42";
	t->count = 5;
	expect(&o, false, path, "stacktrace:5 if common_pid == 42", "!stacktrace:5");
	t->filter = NULL;
	t->count = 0;
	t->kind = KP_T_TRACEON;
	expect(&o, false, path, "traceon", "!traceon");
	t->kind = KP_T_TRACEOFF;
	t->count = 1;
	expect(&o, false, path, "traceoff:1", "!traceoff:1");
	t->kind = KP_T_SNAPSHOT;
	t->count = 0;
	t->filter = "count > 4096";
	expect(&o, false, path, "snapshot if count > 4096", "!snapshot");
	t->filter = NULL;
	t->kind = KP_T_ENABLE_EVENT;
	t->other_system = "sched";
	t->other_event = "sched_switch";
	expect(&o, false, path, "enable_event:sched:sched_switch",
	       "!enable_event:sched:sched_switch");
	t->kind = KP_T_DISABLE_EVENT;
	t->count = 2;
	expect(&o, false, path, "disable_event:sched:sched_switch:2",
	       "!disable_event:sched:sched_switch:2");
}

/* c[execname()]++ as a hist on the pid, sorted by count, sized. */
static void test_hist_count(void **state)
{
	static const struct kp_hist_key keys[] = { { "common_pid", KP_KEY_EXECNAME, 0 } };
	static const struct kp_hist_sort sort[] = { { "hitcount", true } };
	struct kp_obj o = { .kind = KP_TRIGGER, .u.trigger = {
		.system = "syscalls", .event = "sys_enter_getppid", .kind = KP_T_HIST,
		.hist = { .keys = keys, .nkeys = 1, .sort = sort, .nsort = 1, .size = 4096 },
		.filter = "common_pid != 99" } };

	(void)state;
	expect(&o, false, "events/syscalls/sys_enter_getppid/trigger",
	       "hist:keys=common_pid.execname:sort=hitcount.descending:size=4096 "
	       "if common_pid != 99",
	       "!hist:keys=common_pid.execname:sort=hitcount.descending:size=4096 "
	       "if common_pid != 99");
}

/* Every key modifier, values, variables, a name, pause. */
static void test_hist_full(void **state)
{
	static const struct kp_hist_key keys[] = {
		{ "call_site", KP_KEY_SYM, 0 }, { "bytes_req", KP_KEY_BUCKETS, 64 },
		{ "ptr", KP_KEY_HEX, 0 },
	};
	static const struct kp_hist_var vars[] = { { "waste", "bytes_alloc-bytes_req" } };
	static const char *const vals[] = { "bytes_alloc", "$waste" };
	static const struct kp_hist_sort sort[] = { { "bytes_alloc", false },
						    { "hitcount", true } };
	struct kp_obj o = { .kind = KP_TRIGGER, .u.trigger = {
		.system = "kmem", .event = "kmalloc", .kind = KP_T_HIST,
		.hist = { .keys = keys, .nkeys = 3, .vars = vars, .nvars = 1, .vals = vals,
			  .nvals = 2, .sort = sort, .nsort = 2, .name = "ktap_h0",
			  .paused = true } } };
	static const char *const mods[][2] = {
		{ "x", "x" }, { "x.hex", "x.hex" }, { "x.sym", "x.sym" },
		{ "x.sym-offset", "x.sym-offset" }, { "x.syscall", "x.syscall" },
		{ "x.execname", "x.execname" }, { "x.log2", "x.log2" },
		{ "x.usecs", "x.usecs" }, { "x.buckets=10", "x.buckets=10" },
	};
	struct kp_hist_key one;
	struct kp_text t;
	unsigned m;

	(void)state;
	expect(&o, false, "events/kmem/kmalloc/trigger",
	       "hist:keys=call_site.sym,bytes_req.buckets=64,ptr.hex:waste=bytes_alloc-bytes_req"
	       ":vals=bytes_alloc,$waste:sort=bytes_alloc,hitcount.descending:name=ktap_h0:pause",
	       "!hist:keys=call_site.sym,bytes_req.buckets=64,ptr.hex:waste=bytes_alloc-bytes_req"
	       ":vals=bytes_alloc,$waste:sort=bytes_alloc,hitcount.descending:name=ktap_h0:pause");
	o.u.trigger.hist = (struct kp_hist){ .keys = &one, .nkeys = 1 };
	for (m = KP_KEY_NORMAL; m <= KP_KEY_BUCKETS; m++) {
		char want[64];

		one = (struct kp_hist_key){ "x", (enum kp_key_mod)m, 10 };
		snprintf(want, sizeof(want), "hist:keys=%s", mods[m][0]);
		assert_int_equal(kp_render(&o, &t), 0);
		assert_string_equal(t.line, want);
		kp_text_free(&t);
	}
}

/* The latency pair: ts0 on the waking, onmatch().trace() on the switch. */
static void test_hist_onmatch(void **state)
{
	static const struct kp_hist_key k1[] = { { "$saved_pid", KP_KEY_NORMAL, 0 } };
	static const struct kp_hist_var v1[] = { { "saved_pid", "pid" },
						 { "ts0", "common_timestamp.usecs" } };
	static const struct kp_hist_key k2[] = { { "next_pid", KP_KEY_NORMAL, 0 } };
	static const struct kp_hist_var v2[] = { { "wakeup_lat", "common_timestamp.usecs-$ts0" } };
	static const char *const params[] = { "$wakeup_lat", "$saved_pid", "next_prio" };
	static const char *const saved[] = { "next_comm", "prev_pid" };
	static const struct kp_hist_action acts[] = {
		{ KP_ON_MATCH, "sched.sched_waking", KP_ACT_TRACE, "wakeup_latency", params, 3 },
		{ KP_ON_MAX, "$wakeup_lat", KP_ACT_SAVE, NULL, saved, 2 },
		{ KP_ON_CHANGE, "$wakeup_lat", KP_ACT_SNAPSHOT, NULL, NULL, 0 },
	};
	struct kp_obj start = { .kind = KP_TRIGGER, .u.trigger = {
		.system = "sched", .event = "sched_waking", .kind = KP_T_HIST,
		.hist = { .keys = k1, .nkeys = 1, .vars = v1, .nvars = 2 },
		.filter = "comm==\"cyclictest\"" } };
	struct kp_obj end = { .kind = KP_TRIGGER, .u.trigger = {
		.system = "sched", .event = "sched_switch", .kind = KP_T_HIST,
		.hist = { .keys = k2, .nkeys = 1, .vars = v2, .nvars = 1, .actions = acts,
			  .nactions = 3 } } };

	(void)state;
	expect(&start, false, "events/sched/sched_waking/trigger",
	       "hist:keys=$saved_pid:saved_pid=pid:ts0=common_timestamp.usecs "
	       "if comm==\"cyclictest\"",
	       "!hist:keys=$saved_pid:saved_pid=pid:ts0=common_timestamp.usecs "
	       "if comm==\"cyclictest\"");
	expect(&end, false, "events/sched/sched_switch/trigger",
	       "hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0"
	       ":onmatch(sched.sched_waking).trace(wakeup_latency,$wakeup_lat,$saved_pid,next_prio)"
	       ":onmax($wakeup_lat).save(next_comm,prev_pid)"
	       ":onchange($wakeup_lat).snapshot()",
	       "!hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts0"
	       ":onmatch(sched.sched_waking).trace(wakeup_latency,$wakeup_lat,$saved_pid,next_prio)"
	       ":onmax($wakeup_lat).save(next_comm,prev_pid)"
	       ":onchange($wakeup_lat).snapshot()");
}

/* delete a -> ":clear"; pause and continue; nohitcount. */
static void test_hist_commands(void **state)
{
	static const struct kp_hist_key keys[] = { { "common_pid", KP_KEY_NORMAL, 0 } };
	static const char *const vals[] = { "count" };
	struct kp_obj o = { .kind = KP_TRIGGER, .u.trigger = {
		.system = "syscalls", .event = "sys_enter_read", .kind = KP_T_HIST,
		.hist = { .keys = keys, .nkeys = 1, .vals = vals, .nvals = 1, .paused = true,
			  .nohitcount = true },
		.filter = "fd == 0" } };
	struct kp_obj stack = { .kind = KP_TRIGGER, .u.trigger = {
		.system = "a", .event = "b", .kind = KP_T_STACKTRACE } };
	char *s;

	(void)state;
	expect(&o, false, "events/syscalls/sys_enter_read/trigger",
	       "hist:keys=common_pid:vals=count:nohitcount:pause if fd == 0",
	       "!hist:keys=common_pid:vals=count:nohitcount:pause if fd == 0");
	s = kp_hist_cmd_line(&o, KP_HIST_CLEAR);
	assert_string_equal(s, "hist:keys=common_pid:vals=count:nohitcount:clear if fd == 0");
	free(s);
	s = kp_hist_cmd_line(&o, KP_HIST_CONT);
	assert_string_equal(s, "hist:keys=common_pid:vals=count:nohitcount:cont if fd == 0");
	free(s);
	o.u.trigger.filter = NULL;
	s = kp_hist_cmd_line(&o, KP_HIST_PAUSE);
	assert_string_equal(s, "hist:keys=common_pid:vals=count:nohitcount:pause");
	free(s);
	errno = 0;
	assert_null(kp_hist_cmd_line(&stack, KP_HIST_CLEAR));
	assert_int_equal(errno, EINVAL);
}

static void test_hist_without_keys(void **state)
{
	struct kp_obj o = { .kind = KP_TRIGGER, .u.trigger = {
		.system = "a", .event = "b", .kind = KP_T_HIST } };
	struct kp_text t;

	(void)state;
	errno = 0;
	assert_int_equal(kp_render(&o, &t), -1);
	assert_int_equal(errno, EINVAL);
	assert_null(t.path);
}

static void test_synth(void **state)
{
	static const struct kp_synth_field f[] = {
		{ "u64", "lat" }, { "pid_t", "pid" }, { "char", "comm[16]" },
	};
	struct kp_obj o = { .kind = KP_SYNTH, .u.synth = { "wakeup_latency", f, 3 } };

	(void)state;
	expect(&o, true, "synthetic_events", "wakeup_latency u64 lat; pid_t pid; char comm[16]",
	       "!wakeup_latency");
	o.u.synth.nfields = 1;
	expect(&o, true, "synthetic_events", "wakeup_latency u64 lat", "!wakeup_latency");
}

static void test_options(void **state)
{
	struct kp_obj o = { .kind = KP_OPTION, .u.option = { KP_OPT_FLAG, "userstacktrace",
							      true, 0 } };

	(void)state;
	expect(&o, false, "options/userstacktrace", "1", "0");
	o.u.option.on = false;
	expect(&o, false, "options/userstacktrace", "0", "1");
	o.u.option = (struct kp_option){ .kind = KP_OPT_BUFFER_KB, .kb = 4096 };
	expect(&o, false, "buffer_size_kb", "4096", NULL);
}

/* A perf event held open (not written): shown as its id file, no undo
   line (closing it removes it); no such event: an error, no fd. */
static void test_perf(void **state)
{
	struct kp_obj o = { .kind = KP_PERF, .u.perf = { "syscalls", "sys_enter_read" } };
	char err[256];

	(void)state;
	expect(&o, true, "events/syscalls/sys_enter_read/id",
	       "perf_event_open(PERF_TYPE_TRACEPOINT, disabled)", NULL);
	assert_int_equal(kplan_perf_hold(&o, "/nonexistent-tracefs", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent-tracefs/events/syscalls/sys_enter_read/id"));
}

static void test_expand(void **state)
{
	char want[128], *s;

	(void)state;
	snprintf(want, sizeof(want), "p:ktap_%d/x common_pid == 77 && common_pid != %d",
		 (int)getpid(), (int)getpid());
	s = kp_expand("p:ktap_$PID/x common_pid == $TARGET && common_pid != $KTAP",
		      &(struct kp_env){ .target = 77 });
	assert_string_equal(s, want);
	free(s);
	/* A session: $PID is its name after "ktap_", $KTAP still the pid. */
	snprintf(want, sizeof(want), "p:ktap_42_0badc0de/x common_pid != %d", (int)getpid());
	s = kp_expand("p:ktap_$PID/x common_pid != $KTAP",
		      &(struct kp_env){ .session = "ktap_42_0badc0de" });
	assert_string_equal(s, want);
	free(s);
	s = kp_expand("", &(struct kp_env){ .target = 1 });
	assert_string_equal(s, "");
	free(s);
	/* $WALL%D: the wall-clock offset modulo D (never negative), the
	   digits after % all read; a D of 0 or none is no placeholder. */
	s = kp_expand("t=common_timestamp+$WALL%1000:x=$WALL%1000000,$WALL%0,$WALL%",
		      &(struct kp_env){ .wall_ns = 1764316800123456789LL });
	assert_string_equal(s, "t=common_timestamp+789:x=456789,$WALL%0,$WALL%");
	free(s);
	s = kp_expand("$WALL%1000", &(struct kp_env){ .wall_ns = -1001 });
	assert_string_equal(s, "999");
	free(s);
	s = kp_expand("$WALL%1000", NULL);
	assert_string_equal(s, "0");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kprobe),
		cmocka_unit_test(test_kretprobe_maxactive),
		cmocka_unit_test(test_uprobes),
		cmocka_unit_test(test_eprobe_tprobe),
		cmocka_unit_test(test_enable_filter),
		cmocka_unit_test(test_simple_triggers),
		cmocka_unit_test(test_hist_count),
		cmocka_unit_test(test_hist_full),
		cmocka_unit_test(test_hist_onmatch),
		cmocka_unit_test(test_hist_commands),
		cmocka_unit_test(test_hist_without_keys),
		cmocka_unit_test(test_synth),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_perf),
		cmocka_unit_test(test_expand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
