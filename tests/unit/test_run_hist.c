/*
 * test_run_hist.c - run_hist.c: a kernel hist file, as Linux 6.1 prints
 * it, read into the store (issue 12's lowered aggregations).
 *
 * The hist text comes from a fake run_source and the processes from a
 * fake process table, so the keys' resolution (pid() and execname()
 * through common_pid, sign extension of narrow signed fields), the sums
 * of entries that meet in one element, and exact statistics are checked
 * without a kernel that has hist triggers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "../../runtime/rt_ctx.h"
#include "../../runtime/run.h"
#include "../../runtime/store.h"
#include "../../runtime/ksym.h"

static const char *hist_text;

static char *fake_read(void *ctx, const char *system, const char *event, size_t *len)
{
	(void)ctx;
	(void)system;
	(void)event;
	*len = strlen(hist_text);
	return strdup(hist_text);
}

/* Threads 120 and 121 of process 100 ("a"; 121 renamed itself), 130 alone. */
static const struct rt_proc *fake_proc(struct rt_ctx *c, int tid)
{
	static struct rt_proc p;

	(void)c;
	memset(&p, 0, sizeof(p));
	p.tid = tid;
	p.tgid = tid == 130 ? 130 : 100;
	snprintf(p.comm, sizeof(p.comm), "%s", tid == 130 ? "b" : "a");
	p.renamed = tid == 121;
	return &p;
}

struct fix {
	struct ir_global g;
	struct kp_hist_key hk[3];
	struct kp_obj obj;
	struct ir_hread r;
	struct ir_prog p;
	struct rt_ctx ctx;
	struct run_source src;
};

static void fix_init(struct fix *f, bool stats, unsigned nkeys, const char *const *fields)
{
	unsigned i;

	memset(f, 0, sizeof(*f));
	f->g.name = "a";
	f->g.type = RT_LONG;
	f->g.is_array = nkeys > 0;
	f->g.nkeys = nkeys;
	f->g.hist_log = stats;
	for (i = 0; i < 3 && fields[i]; i++)
		f->hk[i].field = fields[i];
	f->obj.kind = KP_TRIGGER;
	f->obj.u.trigger.kind = KP_T_HIST;
	f->obj.u.trigger.hist.keys = f->hk;
	f->obj.u.trigger.hist.nkeys = i;
	f->r.nkeys = i;
	f->p.globals = &f->g;
	f->p.nglobals = 1;
	f->p.kplan.objs = &f->obj;
	f->p.kplan.n = 1;
	f->p.hreads = &f->r;
	f->p.nhreads = 1;
	f->r.system = "syscalls";
	f->r.event = "sys_enter_read";
	f->src.read_hist = fake_read;
	f->ctx.proc = fake_proc;
}

static void fix_store(struct fix *f, bool stats)
{
	if (stats)
		f->g.type = RT_STATS;
	f->ctx.store = st_new(&f->p, 2048, 512);
}

/* c[execname(), pid(), $fd] += $count: two threads of one process meet. */
static void test_sum_by_execname_pid(void **state)
{
	static const char *const fields[] = { "common_pid", "common_pid", "fd" };
	struct fix f;
	struct rt_value k[3];
	const char *vals[1] = { "count" };

	(void)state;
	hist_text =
		"# event histogram\n#\n"
		"# trigger info: hist:keys=common_pid,common_pid,fd:vals=hitcount,count:"
		"sort=hitcount:size=2048 if fd == 3 [active]\n#\n\n"
		"{ common_pid:        120, common_pid:        120, fd:          3 } "
		"hitcount:          2  count:        300\n"
		"{ common_pid:        121, common_pid:        121, fd:          3 } "
		"hitcount:          5  count:       1000\n"
		"{ common_pid:        130, common_pid:        130, fd:          3 } "
		"hitcount:          1  count: 18446744073709551615\n"
		"\nTotals:\n    Hits: 8\n    Entries: 3\n    Dropped: 0\n";
	fix_init(&f, false, 3, fields);
	f.obj.u.trigger.hist.vals = vals;
	f.obj.u.trigger.hist.nvals = 1;
	f.g.keys[0] = RT_STRING;
	f.g.keys[1] = RT_LONG;
	f.g.keys[2] = RT_LONG;
	f.r.keys[0] = (struct ir_hkey){ .kind = IR_HK_EXECNAME, .is_string = true,
					 .is_signed = true, .size = 4, .col = 0 };
	f.r.keys[1] = (struct ir_hkey){ .kind = IR_HK_PID, .is_signed = true, .size = 4,
					 .col = 1 };
	f.r.keys[2] = (struct ir_hkey){ .kind = IR_HK_FIELD, .size = 8, .col = 2 };
	f.r.val = IR_HV_SUM;
	fix_store(&f, false);
	/* what the store held before is replaced */
	k[0] = rt_cstr("old");
	k[1] = rt_long(1);
	k[2] = rt_long(1);
	st_aset(f.ctx.store, 0, k, rt_long(9));
	run_hist_load(&f.p, &f.ctx, &f.src, true);
	assert_int_equal(st_aget(f.ctx.store, 0, k).l, 0);
	k[0] = rt_cstr("a");
	k[1] = rt_long(100);
	k[2] = rt_long(3);
	assert_int_equal(st_aget(f.ctx.store, 0, k).l, 1300);
	k[0] = rt_cstr("b");
	k[1] = rt_long(130);
	assert_int_equal(st_aget(f.ctx.store, 0, k).l, -1);	/* u64 sum, reinterpreted */
	/* a[k]++ from the same hist: the hitcounts */
	f.r.val = IR_HV_COUNT;
	f.r.mult = 1;
	run_hist_load(&f.p, &f.ctx, &f.src, false);
	k[0] = rt_cstr("a");
	k[1] = rt_long(100);
	assert_int_equal(st_aget(f.ctx.store, 0, k).l, 7);
	st_free(f.ctx.store);
}

/* c[execname(), tid()]++ where the hist keys on common_comm (Linux 6.16
   and later): the name is the kernel's, "%-50s" padded, digits too. */
static void test_common_comm_key(void **state)
{
	static const char *const fields[] = { "common_comm", "common_pid", NULL };
	struct fix f;
	struct rt_value k[2];
	char pad[64];

	(void)state;
	snprintf(pad, sizeof(pad), "%-50s", "1234");
	static char text[1024];
	snprintf(text, sizeof(text),
		 "# event histogram\n#\n"
		 "# trigger info: hist:keys=common_comm,common_pid:vals=hitcount:"
		 "sort=hitcount:size=2048 [active]\n#\n\n"
		 "{ common_comm: %-50s, common_pid:        120 } hitcount:          2\n"
		 "{ common_comm: %-50s, common_pid:        130 } hitcount:          5\n"
		 "{ common_comm: %s, common_pid:        131 } hitcount:          1\n"
		 "\nTotals:\n    Hits: 8\n    Entries: 3\n    Dropped: 0\n",
		 "kworker/u8:2", "a, b }", pad);
	hist_text = text;
	fix_init(&f, false, 2, fields);
	f.g.keys[0] = RT_STRING;
	f.g.keys[1] = RT_LONG;
	f.r.keys[0] = (struct ir_hkey){ .kind = IR_HK_FIELD, .is_string = true, .col = 0 };
	f.r.keys[1] = (struct ir_hkey){ .kind = IR_HK_TID, .is_signed = true, .size = 4,
					 .col = 1 };
	f.r.val = IR_HV_COUNT;
	f.r.mult = 1;
	fix_store(&f, false);
	run_hist_load(&f.p, &f.ctx, &f.src, true);
	k[0] = rt_cstr("kworker/u8:2");
	k[1] = rt_long(120);
	assert_int_equal(st_aget(f.ctx.store, 0, k).l, 2);
	k[0] = rt_cstr("a, b }");
	k[1] = rt_long(130);
	assert_int_equal(st_aget(f.ctx.store, 0, k).l, 5);
	k[0] = rt_cstr("1234");
	k[1] = rt_long(131);
	assert_int_equal(st_aget(f.ctx.store, 0, k).l, 1);
	st_free(f.ctx.store);
}

/* s <<< $offset read with @min/@max/@hist_log: exact values, signed. */
static void test_exact_stat(void **state)
{
	static const char *const fields[] = { "common_cpu", "offset", NULL };
	struct fix f;
	int64_t v;

	(void)state;
	hist_text =
		"# event histogram\n#\n"
		"# trigger info: hist:keys=common_cpu,offset:vals=hitcount:sort=hitcount:"
		"size=2048 [active]\n#\n\n"
		"{ common_cpu:          1, offset: 18446744073709551615 } hitcount:          1\n"
		"{ common_cpu:          1, offset:          4 } hitcount:          1\n"
		"{ common_cpu:          0, offset:          4 } hitcount:          3\n"
		"{ common_cpu:          0, offset:          0 } hitcount:          2\n"
		"\nTotals:\n    Hits: 7\n    Entries: 4\n    Dropped: 5\n";
	fix_init(&f, true, 0, fields);
	f.r.keys[0] = (struct ir_hkey){ .kind = IR_HK_NONE, .size = 4, .col = 0 };
	f.r.keys[1] = (struct ir_hkey){ .kind = IR_HK_FIELD, .is_signed = true, .size = 8,
					 .col = 1 };
	f.r.val = IR_HV_STATX;
	fix_store(&f, true);
	run_hist_load(&f.p, &f.ctx, &f.src, true);
	assert_int_equal(st_stat_get(f.ctx.store, 0, NULL, IR_STAT_COUNT, &v), ST_OK);
	assert_int_equal(v, 7);
	st_stat_get(f.ctx.store, 0, NULL, IR_STAT_SUM, &v);
	assert_int_equal(v, 15);
	st_stat_get(f.ctx.store, 0, NULL, IR_STAT_MIN, &v);
	assert_int_equal(v, -1);
	st_stat_get(f.ctx.store, 0, NULL, IR_STAT_MAX, &v);
	assert_int_equal(v, 4);
	/* stap's log buckets: 0 is bucket 64, 4 is 2^2 (bucket 67), -1 bucket 63 */
	assert_int_equal(st_hist_bucket(f.ctx.store, 0, NULL, IR_HIST_LOG, 64), 2);
	assert_int_equal(st_hist_bucket(f.ctx.store, 0, NULL, IR_HIST_LOG, 67), 4);
	assert_int_equal(st_hist_bucket(f.ctx.store, 0, NULL, IR_HIST_LOG, 63), 1);
	st_free(f.ctx.store);
}

/*
 * n[pid(), execname(), syscall_name($id)] <<< 1 (stap's syscallbypid-nd):
 * pid() and execname() read one common_pid column, the name is the
 * number's (0 read, 3 close; 999 has none: ""), and the value, always 1,
 * is a constant with no column.  Threads 120 and 121 meet in process 100.
 */
static void test_syscall_key_const_value(void **state)
{
	static const char *const fields[] = { "common_pid", "id", NULL };
	struct fix f;
	struct rt_value k[3];
	int64_t v;

	(void)state;
	hist_text =
		"# event histogram\n#\n"
		"# trigger info: hist:keys=common_pid,id:vals=hitcount:sort=hitcount:"
		"size=16384 [active]\n#\n\n"
		"{ common_pid:        120, id:          0 } hitcount:          2\n"
		"{ common_pid:        121, id:          0 } hitcount:          5\n"
		"{ common_pid:        121, id:          3 } hitcount:          1\n"
		"{ common_pid:        130, id:        999 } hitcount:          4\n"
		"\nTotals:\n    Hits: 12\n    Entries: 4\n    Dropped: 0\n";
	fix_init(&f, true, 3, fields);
	f.g.keys[0] = RT_LONG;
	f.g.keys[1] = RT_STRING;
	f.g.keys[2] = RT_STRING;
	f.r.keys[0] = (struct ir_hkey){ .kind = IR_HK_PID, .is_signed = true, .size = 4 };
	f.r.keys[1] = (struct ir_hkey){ .kind = IR_HK_EXECNAME, .is_string = true,
					 .is_signed = true, .size = 4 };
	f.r.keys[2] = (struct ir_hkey){ .kind = IR_HK_SYSCALL, .is_string = true,
					 .is_signed = true, .size = 8, .col = 1 };
	f.r.keys[3] = (struct ir_hkey){ .kind = IR_HK_CONST, .col = -1, .cnum = 1 };
	f.r.nkeys = 4;
	f.r.val = IR_HV_STATX;
	fix_store(&f, true);
	run_hist_load(&f.p, &f.ctx, &f.src, true);
	k[0] = rt_long(100);
	k[1] = rt_cstr("a");
	k[2] = rt_cstr("read");
	assert_int_equal(st_stat_get(f.ctx.store, 0, k, IR_STAT_COUNT, &v), ST_OK);
	assert_int_equal(v, 7);
	st_stat_get(f.ctx.store, 0, k, IR_STAT_SUM, &v);
	assert_int_equal(v, 7);
	st_stat_get(f.ctx.store, 0, k, IR_STAT_MIN, &v);
	assert_int_equal(v, 1);
	k[2] = rt_cstr("close");
	st_stat_get(f.ctx.store, 0, k, IR_STAT_COUNT, &v);
	assert_int_equal(v, 1);
	k[0] = rt_long(130);
	k[1] = rt_cstr("b");
	k[2] = rt_cstr("");
	st_stat_get(f.ctx.store, 0, k, IR_STAT_MAX, &v);
	assert_int_equal(v, 1);
	st_stat_get(f.ctx.store, 0, k, IR_STAT_COUNT, &v);
	assert_int_equal(v, 4);
	st_free(f.ctx.store);
}

/* A 4-byte signed key prints as its u32: sign-extended back; a constant
   key (probefunc()) has no column. */
static void test_narrow_signed_key(void **state)
{
	static const char *const fields[] = { "ret", NULL, NULL };
	struct fix f;
	struct rt_value k[2];

	(void)state;
	hist_text =
		"# event histogram\n#\n"
		"# trigger info: hist:keys=ret:vals=hitcount:sort=hitcount:size=2048 [active]\n"
		"#\n\n"
		"{ ret: 4294967294 } hitcount:          3\n"
		"\nTotals:\n    Hits: 3\n    Entries: 1\n    Dropped: 0\n";
	fix_init(&f, false, 2, fields);
	f.g.keys[0] = RT_STRING;
	f.g.keys[1] = RT_LONG;
	/* a[probefunc(), $ret] += 2: probefunc() is the kprobe's constant */
	f.r.keys[0] = (struct ir_hkey){ .kind = IR_HK_CONST, .is_string = true, .col = -1,
					.cstr = "vfs_read" };
	f.r.keys[1] = (struct ir_hkey){ .kind = IR_HK_FIELD, .is_signed = true, .size = 4,
					.col = 0 };
	f.r.nkeys = 2;
	f.r.val = IR_HV_COUNT;
	f.r.mult = 2;
	fix_store(&f, false);
	run_hist_load(&f.p, &f.ctx, &f.src, true);
	k[0] = rt_cstr("vfs_read");
	k[1] = rt_long(-2);
	assert_int_equal(st_aget(f.ctx.store, 0, k).l, 6);
	st_free(f.ctx.store);
}

/* a[execname(), backtrace()]++: the stacktrace key's frames (6.1's
   spelling, after another key) back to backtrace()'s hex addresses
   through kallsyms, module and unsymbolised frames included; without
   kallsyms the run refuses to start. */
static void test_stack_key(void **state)
{
	static const char *const fields[] = { "common_pid", "stacktrace", NULL };
	static const char syms[] =
		"ffffffff81146420 t syscall_trace_enter.constprop.0\n"
		"ffffffff811465c0 t next_one\n"
		"ffffffff81a43dc0 T do_syscall_64\n"
		"ffffffff81a43e70 T after\n"
		"ffffffffc0001000 t modfn\t[mymod]\n"
		"ffffffffc0001100 t modfn2\t[mymod]\n";
	struct ksym_table *t = NULL;
	struct fix f;
	struct rt_value k[2];
	char err[128];

	(void)state;
	hist_text =
		"# event histogram\n#\n"
		"# trigger info: hist:keys=common_pid,stacktrace:vals=hitcount:sort=hitcount:"
		"size=2048 [active]\n#\n\n"
		"{ common_pid:        120, stacktrace:\n"
		"         modfn+0x20/0x100 [mymod]\n"
		"         0xffffffffc02010c8\n"
		"         syscall_trace_enter.constprop.0+0x183/0x1a0\n"
		"         do_syscall_64+0x3e/0xb0\n"
		"} hitcount:          7\n"
		"\nTotals:\n    Hits: 7\n    Entries: 1\n    Dropped: 0\n";
	fix_init(&f, false, 2, fields);
	f.g.keys[0] = RT_STRING;
	f.g.keys[1] = RT_STRING;
	f.r.keys[0] = (struct ir_hkey){ .kind = IR_HK_EXECNAME, .is_string = true,
					.is_signed = true, .size = 4, .col = 0 };
	f.r.keys[1] = (struct ir_hkey){ .kind = IR_HK_KSTACK, .is_string = true, .col = 1 };
	f.r.val = IR_HV_COUNT;
	f.r.mult = 1;
	fix_store(&f, false);
	assert_int_equal(run_hist_stacks(&f.p, NULL), -1);
	assert_int_equal(ksym_parse(syms, sizeof(syms) - 1, &t, err, sizeof(err)), 0);
	assert_int_equal(run_hist_stacks(&f.p, t), 0);
	f.ctx.ksym = t;
	run_hist_load(&f.p, &f.ctx, &f.src, true);
	k[0] = rt_cstr("a");
	k[1] = rt_cstr("0xffffffffc0001020 0xffffffffc02010c8 0xffffffff811465a3 "
		       "0xffffffff81a43dfe ");
	assert_int_equal(st_aget(f.ctx.store, 0, k).l, 7);
	st_free(f.ctx.store);
	ksym_names_free(f.ctx.ksym_names);
	ksym_free(t);
}

/*
 * The kernel prints by hitcount, ties in its map's order; the store gets
 * the entries in key order (thread ids ascending for execname()), so an
 * unsorted foreach does not depend on the kernel's hashes.
 */
static void test_key_order(void **state)
{
	static const char *const fields[] = { "common_pid", "fd", NULL };
	static const char *const want_name[] = { "a", "a", "a", "b" };
	static const int64_t want_fd[] = { 3, 5, 7, 3 };
	struct ir_foreach fe = { .global = 0, .nkeys = 2 };
	struct rt_value k[2], v;
	struct st_iter *it;
	struct fix f;
	unsigned n = 0;

	(void)state;
	hist_text =
		"# event histogram\n#\n"
		"# trigger info: hist:keys=common_pid,fd:vals=hitcount:sort=hitcount:"
		"size=2048 [active]\n#\n\n"
		"{ common_pid:        130, fd:          3 } hitcount:          1\n"
		"{ common_pid:        120, fd:          7 } hitcount:          1\n"
		"{ common_pid:        120, fd:          5 } hitcount:          2\n"
		"{ common_pid:        121, fd:          3 } hitcount:          2\n"
		"{ common_pid:        120, fd:          3 } hitcount:          4\n"
		"\nTotals:\n    Hits: 10\n    Entries: 5\n    Dropped: 0\n";
	fix_init(&f, false, 2, fields);
	f.g.keys[0] = RT_STRING;
	f.g.keys[1] = RT_LONG;
	f.r.keys[0] = (struct ir_hkey){ .kind = IR_HK_EXECNAME, .is_string = true,
					 .is_signed = true, .size = 4, .col = 0 };
	f.r.keys[1] = (struct ir_hkey){ .kind = IR_HK_FIELD, .size = 8, .col = 1 };
	f.r.val = IR_HV_COUNT;
	f.r.mult = 1;
	fix_store(&f, false);
	run_hist_load(&f.p, &f.ctx, &f.src, false);
	it = st_iter_new(f.ctx.store, &fe, NULL, -1, NULL);
	while (st_iter_next(it, k, &v)) {
		assert_true(n < 4);
		assert_int_equal(k[0].len, 1);
		assert_memory_equal(k[0].s, want_name[n], 1);
		assert_int_equal(k[1].l, want_fd[n]);
		n++;
	}
	assert_int_equal(n, 4);
	st_iter_free(it);
	k[0] = rt_cstr("a");
	k[1] = rt_long(3);
	assert_int_equal(st_aget(f.ctx.store, 0, k).l, 6);	/* threads 120 and 121 */
	st_free(f.ctx.store);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sum_by_execname_pid),
		cmocka_unit_test(test_exact_stat),
		cmocka_unit_test(test_syscall_key_const_value),
		cmocka_unit_test(test_common_comm_key),
		cmocka_unit_test(test_narrow_signed_key),
		cmocka_unit_test(test_key_order),
		cmocka_unit_test(test_stack_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
