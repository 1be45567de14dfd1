/*
 * test_hist_parse.c - runtime/hist_parse.c on real and malformed hist files.
 *
 * The real files are tests/fixtures/hist-6.1/NAME.hist, captured from
 * Debian's 6.1 kernel in the VM by tests/vm/capture-hist.sh (the triggers
 * are listed in triggers.txt there); each is checked with exact values.
 * Hand-written texts cover what the capture cannot (strings holding ", "
 * and " }", newer kernels' common_stacktrace, named and filtered
 * triggers), and damaged texts (every truncation, flipped bytes, a huge
 * line) must give an error or a result, never a crash or a leak (run it
 * under valgrind: make check KTAP_VALGRIND='valgrind -q --leak-check=full
 * --error-exitcode=1' TESTS=tests/unit/test_hist_parse).
 *
 * The fixtures are found through $KTAP_SRCDIR (set by make check), else
 * the working directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../runtime/hist_parse.h"

/* ---- helpers ---- */

/* The bytes of fixture NAME (caller frees); *LEN gets its size. */
static char *slurp(const char *name, size_t *len)
{
	char path[4096];
	const char *src = getenv("KTAP_SRCDIR");
	snprintf(path, sizeof(path), "%s/tests/fixtures/hist-6.1/%s", src && *src ? src : ".", name);
	FILE *fp = fopen(path, "rb");
	if (!fp)
		fail_msg("cannot open %s", path);
	char *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		size_t r = fread(buf + n, 1, cap - n, fp);
		if (r == 0)
			break;
		n += r;
	}
	fclose(fp);
	*len = n;
	return buf;
}

/* Parses fixture NAME; fails the test on a parse error. */
static struct hist_parse_file *load(const char *name)
{
	size_t len;
	char *text = slurp(name, &len);
	struct hist_parse_file *f = NULL;
	struct hist_parse_error err;
	int rc = hist_parse_text(text, len, &f, &err);
	free(text);
	if (rc != 0)
		fail_msg("%s:%u: %s", name, err.line, err.msg);
	return f;
}

static struct hist_parse_file *parse_str(const char *text, struct hist_parse_error *err)
{
	struct hist_parse_file *f = NULL;
	if (hist_parse_text(text, strlen(text), &f, err) != 0)
		return NULL;
	return f;
}

/* Entry of T whose key 0 has number U (first match), or fail. */
static const struct hist_parse_entry *by_key(const struct hist_parse_trigger *t, uint64_t u)
{
	for (size_t i = 0; i < t->n_entries; i++)
		if (t->entries[i].keys[0].u == u)
			return &t->entries[i];
	fail_msg("no entry with key %llu", (unsigned long long)u);
	return NULL;
}

static const struct hist_parse_entry *by_str(const struct hist_parse_trigger *t, const char *s)
{
	for (size_t i = 0; i < t->n_entries; i++)
		if (t->entries[i].keys[0].str && strcmp(t->entries[i].keys[0].str, s) == 0)
			return &t->entries[i];
	fail_msg("no entry with key '%s'", s);
	return NULL;
}

static void totals(const struct hist_parse_trigger *t, uint64_t hits, uint64_t entries,
		   uint64_t dropped)
{
	assert_true(t->has_totals);
	assert_int_equal(t->hits, hits);
	assert_int_equal(t->total_entries, entries);
	assert_int_equal(t->n_entries, entries);
	assert_int_equal(t->dropped, dropped);
}

/* ---- the real files ---- */

/* call_site.sym, 2 values; .sym-offset with .hex key and value; a
 * size=128 map that dropped; .buckets with .percent and .graph; a bare
 * expression value the kernel never prints. */
static void test_kmalloc(void **state)
{
	(void)state;
	struct hist_parse_file *f = load("kmem-kmalloc.hist");
	assert_int_equal(f->n_triggers, 5);

	const struct hist_parse_trigger *t = &f->triggers[0];
	assert_string_equal(t->info, "hist:keys=call_site.sym:vals=hitcount,bytes_req,bytes_alloc:"
				     "sort=bytes_alloc.descending:size=2048");
	assert_false(t->paused);
	assert_int_equal(t->n_keys, 1);
	assert_string_equal(t->keys[0].name, "call_site");
	assert_int_equal(t->keys[0].mod, HIST_PARSE_MOD_SYM);
	assert_int_equal(t->n_vals, 3);
	assert_string_equal(t->vals[0].name, "hitcount");
	assert_string_equal(t->vals[2].name, "bytes_alloc");
	assert_string_equal(t->sort, "bytes_alloc.descending");
	assert_int_equal(t->size, 2048);
	const struct hist_parse_entry *e = &t->entries[0];
	assert_int_equal(e->line, 6);
	assert_int_equal(e->keys[0].kind, HIST_PARSE_U64);
	assert_int_equal(e->keys[0].u, 0xffffffff811cdbc5ull);
	assert_string_equal(e->keys[0].str, "tracing_map_init");
	assert_int_equal(e->vals[0], 39040);
	assert_int_equal(e->vals[1], 1873920);
	assert_int_equal(e->vals[2], 2498560);
	assert_true(e->shown[0] && e->shown[1] && e->shown[2]);
	totals(t, 205813, 103, 0);

	t = &f->triggers[1];
	assert_int_equal(t->n_keys, 2);
	assert_int_equal(t->keys[0].mod, HIST_PARSE_MOD_SYM_OFFSET);
	assert_int_equal(t->keys[1].mod, HIST_PARSE_MOD_HEX);
	assert_int_equal(t->vals[1].mod, HIST_PARSE_MOD_HEX);
	e = &t->entries[0];
	assert_int_equal(e->keys[0].u, 0xffffffff810c2fedull);
	assert_string_equal(e->keys[0].str, "alloc_worker+0x1d/0x50");
	assert_int_equal(e->keys[1].u, 0xdc0);
	assert_int_equal(e->vals[0], 1);
	assert_int_equal(e->vals[1], 0xa0);
	totals(t, 197705, 103, 0);

	t = &f->triggers[2];
	assert_int_equal(t->size, 128);
	assert_int_equal(t->entries[0].keys[0].u, 0xffff888006701200ull);
	totals(t, 143, 128, 197164);

	t = &f->triggers[3];
	assert_int_equal(t->keys[0].mod, HIST_PARSE_MOD_BUCKETS);
	assert_int_equal(t->keys[0].buckets, 64);
	assert_int_equal(t->vals[1].mod, HIST_PARSE_MOD_PERCENT);
	assert_int_equal(t->vals[2].mod, HIST_PARSE_MOD_GRAPH);
	e = by_key(t, 832);
	assert_int_equal(e->keys[0].hi, 895);
	assert_int_equal(e->vals[0], 4);
	assert_int_equal(e->vals[1], 4);   /* 0.04 % */
	assert_int_equal(e->vals[2], 0);   /* no bar */
	e = by_key(t, 256);
	assert_int_equal(e->vals[0], 4163);
	assert_int_equal(e->vals[1], 1251);
	assert_int_equal(e->vals[2], 3);
	e = by_key(t, 0);
	assert_int_equal(e->keys[0].hi, 63);
	assert_int_equal(e->vals[1], 5710);
	assert_int_equal(e->vals[2], 20);
	totals(t, 189113, 17, 0);

	t = &f->triggers[4];
	assert_int_equal(t->n_vals, 2);
	assert_string_equal(t->vals[1].name, "bytes_alloc-bytes_req");
	e = by_key(t, 0xa20);
	assert_int_equal(e->vals[0], 112);
	assert_true(e->shown[0]);
	assert_false(e->shown[1]);
	totals(t, 180908, 8, 0);
	hist_parse_free(f);
}

/* Five triggers on one event: .execname, a string key, a stacktrace key,
 * three keys, and the onmatch() half of the synthetic-event pair. */
static void test_sched_switch(void **state)
{
	(void)state;
	struct hist_parse_file *f = load("sched-sched_switch.hist");
	assert_int_equal(f->n_triggers, 5);

	const struct hist_parse_trigger *t = &f->triggers[0];
	assert_int_equal(t->keys[0].mod, HIST_PARSE_MOD_EXECNAME);
	assert_string_equal(t->keys[0].name, "common_pid");
	const struct hist_parse_entry *e = &t->entries[0];
	assert_int_equal(e->keys[0].u, 0);
	assert_string_equal(e->keys[0].str, "<idle>");
	assert_int_equal(e->vals[0], 930);
	e = &t->entries[1];
	assert_int_equal(e->keys[0].u, 15);
	assert_string_equal(e->keys[0].str, "rcu_preempt");
	assert_int_equal(e->vals[0], 770);
	totals(t, 2226, 106, 0);

	t = &f->triggers[1];
	assert_int_equal(t->line, 119);
	e = by_str(t, "dd");
	assert_int_equal(e->keys[0].kind, HIST_PARSE_STR);
	assert_int_equal(e->vals[0], 3);
	assert_int_equal(t->entries[0].line, 124);
	assert_string_equal(t->entries[0].keys[0].str, "base64");
	totals(t, 2224, 22, 0);

	t = &f->triggers[2];
	assert_int_equal(t->keys[0].mod, HIST_PARSE_MOD_STACKTRACE);
	e = &t->entries[0];
	assert_int_equal(e->line, 158);
	assert_int_equal(e->keys[0].kind, HIST_PARSE_STACK);
	assert_int_equal(e->keys[0].n_frames, 7);
	assert_string_equal(e->keys[0].frames[0], "__schedule+0x4f8/0xa00");
	assert_string_equal(e->keys[0].frames[3], "rcu_gp_fqs_loop+0x141/0x560");
	assert_string_equal(e->keys[0].frames[6], "ret_from_fork+0x22/0x30");
	assert_int_equal(e->vals[0], 699);
	assert_int_equal(t->entries[1].line, 167);
	totals(t, 2220, 59, 0);

	t = &f->triggers[3];
	assert_int_equal(t->n_keys, 3);
	e = &t->entries[2];
	assert_int_equal(e->line, 874);
	assert_int_equal(e->keys[0].u, 7);
	assert_int_equal(e->keys[1].u, 120);
	assert_int_equal(e->keys[2].u, 0x80);
	assert_int_equal(e->vals[0], 35);
	totals(t, 2216, 155, 0);

	t = &f->triggers[4];
	assert_non_null(strstr(t->info, ":onmatch(sched.sched_waking).ktap_wakeup_lat("));
	assert_string_equal(t->keys[0].name, "next_pid");
	assert_int_equal(t->entries[0].keys[0].u, 136);
	totals(t, 869, 19, 0);
	hist_parse_free(f);
}

/* .syscall, and three keys (.execname, .syscall, a number). */
static void test_sys_enter(void **state)
{
	(void)state;
	struct hist_parse_file *f = load("raw_syscalls-sys_enter.hist");
	assert_int_equal(f->n_triggers, 2);
	const struct hist_parse_trigger *t = &f->triggers[0];
	assert_int_equal(t->keys[0].mod, HIST_PARSE_MOD_SYSCALL);
	const struct hist_parse_entry *e = by_key(t, 231);
	assert_string_equal(e->keys[0].str, "sys_exit_group");
	assert_int_equal(e->vals[0], 95);
	assert_string_equal(t->entries[2].keys[0].str, "sys_close");
	assert_int_equal(t->entries[2].vals[0], 9104);
	totals(t, 105077, 33, 0);

	t = &f->triggers[1];
	assert_int_equal(t->n_keys, 3);
	e = &t->entries[t->n_entries - 1];
	assert_int_equal(e->keys[0].u, 200);
	assert_string_equal(e->keys[0].str, "exe");
	assert_int_equal(e->keys[1].u, 334);
	assert_string_equal(e->keys[1].str, "sys_rseq");
	assert_int_equal(e->keys[2].u, 0);
	assert_null(e->keys[2].str);
	assert_int_equal(e->vals[0], 1);
	totals(t, 105063, 1340, 0);
	hist_parse_free(f);
}

/* .log2 alone and after a number key with 2 values; the onmax() pair's
 * variable-only first half. */
static void test_read_log2(void **state)
{
	(void)state;
	struct hist_parse_file *f = load("syscalls-sys_enter_read.hist");
	assert_int_equal(f->n_triggers, 3);
	const struct hist_parse_trigger *t = &f->triggers[0];
	assert_int_equal(t->keys[0].mod, HIST_PARSE_MOD_LOG2);
	assert_int_equal(t->entries[0].keys[0].u, 0);
	assert_int_equal(t->entries[0].keys[0].hi, 1);
	const struct hist_parse_entry *e = by_key(t, 16);
	assert_int_equal(e->keys[0].hi, 65536);
	assert_int_equal(e->vals[0], 15);
	assert_int_equal(by_key(t, 9)->vals[0], 473);
	totals(t, 572, 13, 0);

	t = &f->triggers[1];
	e = &t->entries[42 - 31];
	assert_int_equal(e->line, 42);
	assert_int_equal(e->keys[0].u, 0);
	assert_int_equal(e->keys[1].u, 16);
	assert_int_equal(e->vals[0], 3);
	assert_int_equal(e->vals[1], 196608);
	totals(t, 572, 19, 0);

	t = &f->triggers[2];
	assert_non_null(strstr(t->info, ":ts0=common_timestamp.usecs:"));
	totals(t, 570, 42, 0);
	hist_parse_free(f);
}

static void test_write_buckets(void **state)
{
	(void)state;
	struct hist_parse_file *f = load("syscalls-sys_enter_write.hist");
	assert_int_equal(f->n_triggers, 1);
	const struct hist_parse_trigger *t = &f->triggers[0];
	assert_int_equal(t->keys[0].buckets, 10);
	/* A key and a value both named count. */
	assert_string_equal(t->vals[1].name, "count");
	const struct hist_parse_entry *e = by_key(t, 65530);
	assert_int_equal(e->keys[0].hi, 65539);
	assert_int_equal(e->vals[0], 3);
	assert_int_equal(e->vals[1], 196608);
	e = &t->entries[2];
	assert_int_equal(e->keys[0].u, 0);
	assert_int_equal(e->keys[0].hi, 9);
	assert_int_equal(e->vals[0], 34);
	assert_int_equal(e->vals[1], 161);
	totals(t, 4431, 23, 0);
	hist_parse_free(f);
}

/* A __data_loc string key, .usecs, a paused trigger. */
static void test_exec(void **state)
{
	(void)state;
	struct hist_parse_file *f = load("sched-sched_process_exec.hist");
	assert_int_equal(f->n_triggers, 3);
	const struct hist_parse_trigger *t = &f->triggers[0];
	assert_string_equal(t->entries[0].keys[0].str, "/bin/true");
	assert_int_equal(t->entries[0].vals[0], 40);
	assert_string_equal(t->entries[1].keys[0].str, "/proc/self/exe");
	totals(t, 68, 2, 0);
	t = &f->triggers[1];
	assert_int_equal(t->keys[0].mod, HIST_PARSE_MOD_USECS);
	assert_string_equal(t->keys[0].name, "common_timestamp");
	assert_int_equal(t->entries[0].keys[0].kind, HIST_PARSE_U64);
	assert_int_equal(t->entries[0].keys[0].u, 11575559);
	totals(t, 68, 68, 0);
	t = &f->triggers[2];
	assert_true(t->paused);
	assert_int_equal(t->line, 95);
	totals(t, 52, 52, 0);
	hist_parse_free(f);
}

/* Stack keys followed and preceded by another key. */
static void test_fork_stacks(void **state)
{
	(void)state;
	struct hist_parse_file *f = load("sched-sched_process_fork.hist");
	assert_int_equal(f->n_triggers, 2);
	const struct hist_parse_trigger *t = &f->triggers[0];
	const struct hist_parse_entry *e = &t->entries[0];
	assert_int_equal(e->keys[0].n_frames, 3);
	assert_string_equal(e->keys[0].frames[0], "kernel_thread+0x63/0x90");
	assert_string_equal(e->keys[0].frames[2], "ret_from_fork+0x22/0x30");
	assert_int_equal(e->keys[1].u, 104);
	assert_int_equal(e->vals[0], 1);
	assert_int_equal(t->entries[1].line, 11);
	assert_string_equal(t->entries[1].keys[0].frames[2],
			    "entry_SYSCALL_64_after_hwframe+0x6e/0xd8");
	totals(t, 125, 125, 0);
	t = &f->triggers[1];
	e = &t->entries[1];
	assert_string_equal(e->keys[0].str, "run-in-vm.sh");
	assert_int_equal(e->keys[1].kind, HIST_PARSE_STACK);
	assert_int_equal(e->keys[1].n_frames, 3);
	assert_string_equal(e->keys[1].frames[1], "do_syscall_64+0x5d/0xb0");
	assert_int_equal(e->vals[0], 124);
	totals(t, 125, 2, 0);
	hist_parse_free(f);
}

/* onmax().save(), onchange().save(), onmax().snapshot(). */
static void test_handlers(void **state)
{
	(void)state;
	struct hist_parse_file *f = load("syscalls-sys_exit_read.hist");
	const struct hist_parse_trigger *t = &f->triggers[0];
	const struct hist_parse_entry *e = &t->entries[0];
	assert_int_equal(e->keys[0].u, 127);
	assert_int_equal(e->n_tracks, 1);
	assert_false(e->tracks[0].changed);
	assert_int_equal(e->tracks[0].value, 64);
	assert_int_equal(e->tracks[0].n_saved, 2);
	assert_string_equal(e->tracks[0].saved[0].name, "ret");
	assert_false(e->tracks[0].saved[0].is_str);
	assert_int_equal(e->tracks[0].saved[0].u, 30);
	assert_string_equal(e->tracks[0].saved[1].name, "__syscall_nr");
	assert_int_equal(e->tracks[0].saved[1].u, 0);
	assert_int_equal(t->entries[1].line, 8);
	totals(t, 777, 55, 0);
	hist_parse_free(f);

	f = load("syscalls-sys_exit_write.hist");
	t = &f->triggers[0];
	e = &t->entries[0];
	assert_string_equal(e->keys[0].str, "tr");
	assert_int_equal(e->keys[0].u, 199);
	assert_true(e->tracks[0].changed);
	assert_int_equal(e->tracks[0].value, 23);
	assert_int_equal(e->tracks[0].saved[0].u, 23);
	totals(t, 5830, 75, 0);
	hist_parse_free(f);

	f = load("syscalls-sys_exit_close.hist");
	t = &f->triggers[0];
	assert_true(t->has_snapshot);
	assert_int_equal(t->snapshot_value, 4529);
	assert_string_equal(t->snapshot_key, "{ common_pid:        135 }");
	assert_int_equal(t->entries[0].n_tracks, 0);
	totals(t, 9130, 137, 0);
	hist_parse_free(f);
}

/* .sym on a kprobe argument, .sym-offset on a return address. */
static void test_kprobes(void **state)
{
	(void)state;
	struct hist_parse_file *f = load("ktaphist-vfsread.hist");
	const struct hist_parse_trigger *t = &f->triggers[0];
	const struct hist_parse_entry *e = &t->entries[1];
	assert_int_equal(e->keys[0].u, 0xffffffff8203a580ull);
	assert_string_equal(e->keys[0].str, "shmem_file_operations");
	assert_int_equal(e->vals[0], 14);
	assert_int_equal(e->vals[1], 48125);
	totals(t, 686, 5, 0);
	hist_parse_free(f);

	f = load("ktaphist-ttwu.hist");
	t = &f->triggers[0];
	e = &t->entries[0];
	assert_int_equal(e->keys[0].u, 0xffffffff81105e96ull);
	assert_string_equal(e->keys[0].str, "__wake_up_common+0x76/0x180");
	assert_int_equal(e->vals[0], 1840);
	totals(t, 3119, 12, 0);
	hist_parse_free(f);
}

/* The synthetic event's hists: 3 number keys; a string key then .log2. */
static void test_synthetic(void **state)
{
	(void)state;
	struct hist_parse_file *f = load("synthetic-ktap_wakeup_lat.hist");
	assert_int_equal(f->n_triggers, 2);
	const struct hist_parse_trigger *t = &f->triggers[0];
	const struct hist_parse_entry *e = &t->entries[1];
	assert_int_equal(e->keys[0].u, 7);
	assert_int_equal(e->keys[1].u, 120);
	assert_int_equal(e->keys[2].u, 37);
	assert_int_equal(e->vals[0], 2);
	totals(t, 1146, 652, 0);
	t = &f->triggers[1];
	e = &t->entries[0];
	assert_int_equal(e->line, 670);
	assert_string_equal(e->keys[0].str, "base64");
	assert_int_equal(e->keys[1].u, 6);
	assert_int_equal(e->keys[1].hi, 64);
	assert_int_equal(e->vals[1], 98);
	totals(t, 1144, 72, 0);
	hist_parse_free(f);

	f = load("sched-sched_waking.hist");
	t = &f->triggers[0];
	assert_string_equal(t->keys[0].name, "pid");
	assert_int_equal(t->entries[0].keys[0].u, 139);
	totals(t, 1230, 40, 0);
	hist_parse_free(f);
}

/* ---- hand-written texts ---- */

#define HDR(info) "# event histogram\n#\n# trigger info: " info "\n#\n\n"

/* String keys holding the separators, longer than 50 columns, empty
 * (printed as the kernel does: "%-50s"). */
static void test_strings(void **state)
{
	(void)state;
	char text[2048];
	struct hist_parse_error err;
	snprintf(text, sizeof(text),
		 HDR("hist:keys=comm,pid:vals=hitcount:sort=hitcount:size=2048 [active]")
		 "{ comm: %-50s, pid: %10d } hitcount: %10d\n"
		 "{ comm: %-50s, pid: %10d } hitcount: %10d\n"
		 "{ comm: %-50s, pid: %10d } hitcount: %10d\n"
		 "\nTotals:\n    Hits: 6\n    Entries: 3\n    Dropped: 0\n",
		 "a, pid: 1 }", 7, 2,
		 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 12, 3, "", 0, 1);
	struct hist_parse_file *f = parse_str(text, &err);
	if (!f)
		fail_msg("line %u: %s", err.line, err.msg);
	const struct hist_parse_trigger *t = &f->triggers[0];
	assert_string_equal(t->entries[0].keys[0].str, "a, pid: 1 }");
	assert_int_equal(t->entries[0].keys[0].kind, HIST_PARSE_STR);
	assert_int_equal(t->entries[0].keys[1].u, 7);
	assert_int_equal(strlen(t->entries[1].keys[0].str), 62);
	assert_int_equal(t->entries[1].keys[1].u, 12);
	assert_string_equal(t->entries[2].keys[0].str, "");
	assert_int_equal(t->entries[2].vals[0], 1);
	hist_parse_free(f);

	/* A string as the last key, holding " } hitcount:", and a string of
	 * digits (left-aligned and padded: not a number). */
	snprintf(text, sizeof(text),
		 HDR("hist:keys=comm:vals=hitcount [active]")
		 "{ comm: %-50s } hitcount: %10d\n"
		 "{ comm: %-50s } hitcount: %10d\n"
		 "Totals:\n    Hits: 10\n    Entries: 2\n    Dropped: 0\n",
		 "x } hitcount: 5", 9, "1234", 1);
	f = parse_str(text, &err);
	if (!f)
		fail_msg("line %u: %s", err.line, err.msg);
	t = &f->triggers[0];
	assert_string_equal(t->entries[0].keys[0].str, "x } hitcount: 5");
	assert_int_equal(t->entries[0].vals[0], 9);
	assert_int_equal(t->entries[1].keys[0].kind, HIST_PARSE_STR);
	assert_string_equal(t->entries[1].keys[0].str, "1234");
	hist_parse_free(f);
}

/* Newer kernels: common_stacktrace, a named trigger with a filter, a
 * module frame, saved string variables ("%-32s"). */
static void test_newer_spellings(void **state)
{
	(void)state;
	char text[2048];
	struct hist_parse_error err;
	snprintf(text, sizeof(text),
		 HDR("hist:wq:keys=common_stacktrace:vals=hitcount:sort=hitcount:size=2048 if prev_state == 2 [paused]")
		 "{ common_stacktrace:\n"
		 "         e1000_xmit_frame+0x12/0x400 [e1000]\n"
		 "         dev_hard_start_xmit+0x8f/0x1e0\n"
		 "} hitcount:          4\n"
		 "\nTotals:\n    Hits: 4\n    Entries: 1\n    Dropped: 0\n\n\n"
		 HDR("hist:keys=next_pid:vals=hitcount:x=common_timestamp:onmax($x).save(next_comm,prev_pid) [active]")
		 "{ next_pid:         12 } hitcount:          1\n"
		 "\tmax: %10d  next_comm: %-32s  prev_pid: %10d\n"
		 "\nTotals:\n    Hits: 1\n    Entries: 1\n    Dropped: 0\n",
		 100, "a b", 3);
	struct hist_parse_file *f = parse_str(text, &err);
	if (!f)
		fail_msg("line %u: %s", err.line, err.msg);
	assert_int_equal(f->n_triggers, 2);
	const struct hist_parse_trigger *t = &f->triggers[0];
	assert_string_equal(t->name, "wq");
	assert_string_equal(t->filter, "prev_state == 2");
	assert_true(t->paused);
	assert_int_equal(t->entries[0].keys[0].n_frames, 2);
	assert_string_equal(t->entries[0].keys[0].frames[0], "e1000_xmit_frame+0x12/0x400 [e1000]");
	t = &f->triggers[1];
	assert_int_equal(t->line, 17);
	const struct hist_parse_track *tr = &t->entries[0].tracks[0];
	assert_int_equal(tr->value, 100);
	assert_true(tr->saved[0].is_str);
	assert_string_equal(tr->saved[0].str, "a b");
	assert_int_equal(tr->saved[1].u, 3);
	hist_parse_free(f);

	/* nohitcount (>= 6.12): no hitcount column; values by name. */
	snprintf(text, sizeof(text),
		 HDR("hist:keys=pid:vals=hitcount,runtime:sort=pid:size=2048:nohitcount [active]")
		 "{ pid: %10d }  runtime: %10d\n"
		 "\nTotals:\n    Hits: 1\n    Entries: 1\n    Dropped: 0\n",
		 12, 345);
	f = parse_str(text, &err);
	if (!f)
		fail_msg("line %u: %s", err.line, err.msg);
	assert_false(f->triggers[0].entries[0].shown[0]);
	assert_true(f->triggers[0].entries[0].shown[1]);
	assert_int_equal(f->triggers[0].entries[0].vals[1], 345);
	hist_parse_free(f);

	/* An event without hist triggers has an empty hist file. */
	f = parse_str("", &err);
	assert_non_null(f);
	assert_int_equal(f->n_triggers, 0);
	hist_parse_free(f);
}

/* ---- malformed input ---- */

static void expect_error(const char *text, unsigned line, const char *msg_part)
{
	struct hist_parse_error err;
	struct hist_parse_file *f = (struct hist_parse_file *)1;
	assert_int_equal(hist_parse_text(text, strlen(text), &f, &err), -1);
	assert_null(f);
	if (err.line != line || !strstr(err.msg, msg_part))
		fail_msg("want line %u '%s', got line %u '%s'", line, msg_part, err.line, err.msg);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("garbage\n", 1, "expected '# event histogram'");
	expect_error("# event histogram\n#\n\n{ a: 1 } hitcount: 1\n", 3, "without a trigger info");
	expect_error(HDR("hist:keys=a.hex:vals=hitcount [active]") "{ a: xyz } hitcount: 1\n", 6,
		     "bad .hex key 'xyz'");
	expect_error(HDR("hist:keys=a:vals=hitcount [active]") "{ a: 1 } hitcount: 1\n", 6,
		     "no Totals");
	expect_error(HDR("hist:keys=a:vals=hitcount [active]") "{ b: 1 } hitcount: 1\n", 6,
		     "expected key 'a:'");
	expect_error(HDR("hist:keys=a:vals=hitcount [active]") "{ a: 1 } hitcount: 1\n"
							       "Totals:\n    Hits: 1\n    Entries: 2\n",
		     9, "Totals say 2 entries, the table has 1");
	expect_error(HDR("hist:keys=a:vals=hitcount [active]")
		     "{ a: 99999999999999999999999 } hitcount: 1\n", 6, "bad number key");
	expect_error(HDR("hist:keys=a.log2:vals=hitcount [active]") "{ a: ~ 2^ } hitcount: 1\n", 6,
		     "bad .log2 key");
	expect_error(HDR("hist:keys=stacktrace:vals=hitcount [active]") "{ stacktrace:\n   f+0x1/0x2\n",
		     7, "truncated stacktrace");
	expect_error(HDR("hist:keys=a:vals=hitcount [active]") "\tmax: 3\n", 6, "before any entry");
	expect_error("# event histogram\n# trigger info: hist:keys=a:vals=hitcount\n", 2,
		     "[active] or [paused]");

	/* A huge line, and a NUL byte. */
	size_t n = HIST_PARSE_MAX_LINE + 10;
	char *big = malloc(n + 1);
	assert_non_null(big);
	memset(big, 'x', n);
	big[n] = '\0';
	expect_error(big, 1, "longer than");
	free(big);
	struct hist_parse_error err;
	struct hist_parse_file *f;
	assert_int_equal(hist_parse_text("# event\0histogram\n", 18, &f, &err), -1);
	assert_int_equal(err.line, 1);
	assert_non_null(strstr(err.msg, "NUL"));
}

/* Every prefix of a real file, and the file with bytes changed by a fixed
 * pseudo-random sequence: a result or an error, never a crash or leak. */
static void test_damage(void **state)
{
	(void)state;
	size_t len;
	char *text = slurp("sched-sched_process_fork.hist", &len);
	if (len > 4000)
		len = 4000;
	size_t ok = 0;
	for (size_t cut = 0; cut <= len; cut++) {
		struct hist_parse_file *f = NULL;
		struct hist_parse_error err;
		char *copy = malloc(cut ? cut : 1); /* valgrind sees any overread */
		memcpy(copy, text, cut);
		if (hist_parse_text(copy, cut, &f, &err) == 0) {
			ok++;
			hist_parse_free(f);
		} else {
			assert_true(err.msg[0] != '\0');
			assert_true(err.line >= 1 || cut == 0);
		}
		free(copy);
	}
	/* Only the empty text and the cuts inside the leading blank area
	 * parse: each trigger needs its Totals. */
	assert_int_equal(ok, 1);
	free(text);

	text = slurp("syscalls-sys_exit_close.hist", &len);
	uint32_t seed = 12345;
	size_t errors = 0;
	for (int round = 0; round < 3000; round++) {
		char *copy = malloc(len);
		memcpy(copy, text, len);
		for (int k = 0; k < 1 + round % 4; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = (seed >> 8) % len;
			seed = seed * 1103515245u + 12345u;
			copy[at] = (char)(seed >> 16);
		}
		struct hist_parse_file *f = NULL;
		struct hist_parse_error err;
		if (hist_parse_text(copy, len, &f, &err) == 0)
			hist_parse_free(f);
		else
			errors++;
		free(copy);
	}
	assert_true(errors > 0);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kmalloc),
		cmocka_unit_test(test_sched_switch),
		cmocka_unit_test(test_sys_enter),
		cmocka_unit_test(test_read_log2),
		cmocka_unit_test(test_write_buckets),
		cmocka_unit_test(test_exec),
		cmocka_unit_test(test_fork_stacks),
		cmocka_unit_test(test_handlers),
		cmocka_unit_test(test_kprobes),
		cmocka_unit_test(test_synthetic),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_newer_spellings),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_damage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
