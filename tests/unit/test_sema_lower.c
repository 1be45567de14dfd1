/*
 * test_sema_lower.c - passes 2 and 3 on small scripts: probe resolution,
 * alias expansion, types, and which guards become kernel filters.
 *
 * Scripts resolve kernel.trace() against tests/fixtures/tracefs (set
 * through KTAP_TRACEFS), so the tests need no root and no tracefs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "arena.h"
#include "resolve_btf.h"
#include "lower.h"
#include "sema.h"
#include "session.h"

struct compiled {
	struct ktap_session s;
	char *err;
	size_t errlen;
	FILE *errf;
};

/* Run passes 1-3 on @script; the session stays open for inspection. */
static struct compiled *compile(const char *script)
{
	struct compiled *c = calloc(1, sizeof(*c));
	struct sema_input in;
	struct lower_options lo = { 0 };

	c->errf = open_memstream(&c->err, &c->errlen);
	session_init(&c->s, c->errf);
	c->s.opt.script_text = script;
	session_facts(&c->s);
	if (session_parse(&c->s) == 0) {
		in = (struct sema_input){ c->s.script, c->s.library, c->s.nlibrary, false,
					  &c->s.up, .target = &c->s.target };
		c->s.prog = sema_run(c->s.arena, &c->s.diag, &in);
		lo.tracefs = c->s.target.tracefs;
		if (c->s.prog)
			c->s.ir = lower_run(c->s.arena, &c->s.diag, &c->s.src, c->s.prog, &lo);
	}
	fflush(c->errf);
	return c;
}

static void release(struct compiled *c)
{
	fclose(c->errf);
	free(c->err);
	session_free(&c->s);
	free(c);
}

/* The text the plan writes to @path (kept in the session's arena), or NULL. */
static const char *written(const struct compiled *c, const char *path)
{
	const char *line = NULL;
	struct kp_text t;
	unsigned i;

	for (i = 0; !line && c->s.ir && i < c->s.ir->kplan.n; i++) {
		if (kp_render(&c->s.ir->kplan.objs[i], &t) != 0)
			continue;
		if (strcmp(t.path, path) == 0)
			line = arena_strdup(c->s.arena, t.line);
		kp_text_free(&t);
	}
	return line;
}

static const struct sem_sym *global(const struct compiled *c, const char *name)
{
	unsigned i;

	for (i = 0; i < c->s.prog->nglobals; i++)
		if (strcmp(c->s.prog->globals[i]->name, name) == 0)
			return c->s.prog->globals[i];
	return NULL;
}

static void test_types_flow(void **state)
{
	struct compiled *c = compile(
		"global names, sizes, total\n"
		"function f(x) { return x . \"!\" }\n"
		"probe kernel.trace(\"syscalls:sys_enter_read\") {\n"
		"  names[tid(), execname()] = f(execname()); sizes <<< $count; total++ }\n"
		"probe end { foreach ([t, n] in names) println(t, n, names[t, n]) }\n");
	const struct sem_sym *g;

	assert_non_null(c->s.ir);
	g = global(c, "names");
	assert_true(g->is_array);
	assert_int_equal(g->nkeys, 2);
	assert_int_equal(g->keys[0], SEM_LONG);
	assert_int_equal(g->keys[1], SEM_STRING);
	assert_int_equal(g->type, SEM_STRING);
	assert_int_equal(global(c, "sizes")->type, SEM_STATS);
	assert_int_equal(global(c, "total")->type, SEM_LONG);
	assert_int_equal(c->s.prog->funcs[0]->ret, SEM_STRING);
	assert_int_equal(c->s.prog->funcs[0]->locals[0]->type, SEM_STRING);
	release(c);
}

static void test_alias_order(void **state)
{
	struct compiled *c = compile(
		"probe first = begin { a = 1 }\n"
		"probe last += first { z = 26 }\n"
		"probe last { m = a + z; print(m) }\n");
	const struct ast_stmt *b;

	assert_non_null(c->s.prog);
	assert_int_equal(c->s.prog->nprobes, 1);
	assert_int_equal(c->s.prog->probes[0]->kind, SEM_P_BEGIN);
	/* first's prologue, then (user body, then last's epilogue). */
	b = c->s.prog->probes[0]->body;
	assert_int_equal(b->kind, AST_S_BLOCK);
	assert_int_equal(b->body.n, 2);
	assert_int_equal(c->s.prog->probes[0]->nlocals, 3);
	assert_string_equal(c->s.prog->probes[0]->locals[0]->name, "a");
	release(c);
}

static void test_wildcards_and_optional(void **state)
{
	struct compiled *c = compile(
		"probe kernel.trace(\"sched:sched_process_*\"), kernel.trace(\"nosuch:x\")? { n++ }\n");

	assert_non_null(c->s.prog);
	assert_int_equal(c->s.prog->nprobes, 5);	/* exec, exit, fork, free, wait */
	assert_string_equal(c->s.prog->probes[0]->pp,
			    "kernel.trace(\"sched:sched_process_exec\")");
	assert_int_equal(c->s.ir->nevents, 5);
	release(c);
}

static void test_timer_periods(void **state)
{
	struct compiled *c = compile(
		"probe timer.ms(250) { } probe timer.hz(4) { } probe timer.s(2).randomize(1) { }\n");

	assert_non_null(c->s.prog);
	assert_int_equal(c->s.prog->probes[0]->period_ns, 250000000);
	assert_int_equal(c->s.prog->probes[1]->period_ns, 250000000);
	assert_int_equal(c->s.prog->probes[2]->period_ns, 2000000000);
	assert_int_equal(c->s.prog->probes[2]->randomize_ns, 1000000000);
	release(c);
}

static void test_filters(void **state)
{
	struct compiled *c = compile(
		"probe kernel.trace(\"syscalls:sys_enter_openat\") {\n"
		"  if (tid() != target() || execname() == \"sh\") next\n"
		"  if ($dfd == -100) next\n"
		"  print(1) }\n"
		"probe kernel.trace(\"sched:sched_switch\") if (cpu() == 1 && pid() > 0) { print(2) }\n");

	assert_non_null(c->s.ir);
	assert_string_equal(written(c, "events/syscalls/sys_enter_openat/filter"),
			    "(common_pid == $TARGET && COMM != \"sh\" && dfd != 18446744073709551516)"
			    " && (common_pid != $KTAP || common_flags & 0x58)");
	assert_string_equal(written(c, "events/sched/sched_switch/filter"),
			    "(CPU == 1) && (common_pid != $KTAP || common_flags & 0x58) && next_pid != $KTAP");
	assert_string_equal(written(c, "events/sched/sched_switch/enable"), "1");
	assert_true(c->s.ir->uses_target);
	/* The openat guards went to the kernel: no jump left in its code. */
	for (unsigned i = 0; i < c->s.ir->probes[0].code.n; i++)
		assert_int_not_equal(c->s.ir->probes[0].code.insns[i].op, IR_JZ);
	release(c);
}

static void test_shared_event_keeps_checks(void **state)
{
	struct compiled *c = compile(
		"probe kernel.trace(\"syscalls:sys_enter_read\") { if ($fd != 3) next; a = 1 }\n"
		"probe kernel.trace(\"syscalls:sys_enter_read\") { if ($fd != 4) next; b = 1 }\n");

	assert_non_null(c->s.ir);
	assert_string_equal(written(c, "events/syscalls/sys_enter_read/filter"),
			    "((fd == 3) || (fd == 4)) && (common_pid != $KTAP || common_flags & 0x58)");
	assert_int_equal(c->s.ir->events[0].nprobes, 2);
	release(c);
}

static void test_errors(void **state)
{
	static const struct {
		const char *script, *message;
	} cases[] = {
		{ "probe begin { x = 1; x = \"a\"; print(x) }", "type mismatch for 'x'" },
		{ "probe begin { a[1] = 2 }", "unresolved arity-1 global array 'a'" },
		{ "probe begin { printff(\"x\") }", "did you mean 'printf'?" },
		{ "probe nosuch.point { }", "no match for probe point 'nosuch.point'" },
		{ "probe module(\"m\").statement(\"f\") { }", "is not supported by this version" },
		{ "probe begin { print($x) }", "not available in this kind of probe" },
		{ "global s probe begin { s <<< 1; s = 2 }", "statistics only take values" },
		{ "probe begin { break }", "'break' outside a loop" },
		{ "function f(a) { } probe begin { f(1, 2) }", "takes 1 argument, 2 given" },
		{ "probe timer.ms(0) { }", "with N > 0" },
		{ "probe begin { print(@entry(1)) }", "@entry() is for .return probes" },
	};
	unsigned i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct compiled *c = compile(cases[i].script);

		if (!c->err || !strstr(c->err, cases[i].message))
			fail_msg("case %u: expected \"%s\" in:\n%s", i, cases[i].message,
				 c->err ? c->err : "(nothing)");
		assert_null(c->s.ir);
		release(c);
	}
}

/* stap's KRETACTIVE: max(15, 6 * possible CPUs), at most the kernel's 4096. */
static void test_kretactive(void **state)
{
	(void)state;
	assert_int_equal(rbtf_kretactive("0\n"), 15);
	assert_int_equal(rbtf_kretactive("0-1\n"), 15);
	assert_int_equal(rbtf_kretactive("0-2\n"), 18);
	assert_int_equal(rbtf_kretactive("0-3,8-11\n"), 48);
	assert_int_equal(rbtf_kretactive("0,2,4\n"), 18);
	assert_int_equal(rbtf_kretactive("0-681\n"), 4092);
	assert_int_equal(rbtf_kretactive("0-682\n"), 4096);
	assert_int_equal(rbtf_kretactive(""), 15);
}

/*
 * A parameter's register counts the registers of the parameters before
 * it: a struct of up to 16 bytes passed by value takes one per 8 bytes
 * (6.1's sockptr_t moves tcp_setsockopt()'s optlen to the sixth); a
 * larger one is in memory on x86_64 (no register) and a reference on
 * aarch64 (one); a struct that no longer fits goes on the stack (an
 * error); a scalar or pointer past the registers is a stack slot.
 */
static const char *param_reg(const struct btf *btf, int32_t proto, const char *var)
{
	static char buf[64];
	struct arena *a = arena_new();
	struct ast_chain chain = { 0 };
	struct fetch out;
	char err[256] = "";

	if (rbtf_fetch(a, btf, proto, "f", var, &chain, false, &out, err, sizeof(err)) != 0)
		snprintf(buf, sizeof(buf), "%s", strstr(err, "on the stack") ? "stack" : err);
	else
		snprintf(buf, sizeof(buf), "%s", out.arg);
	arena_free(a);
	return buf;
}

/* A function prototype returning @ret with parameters @names (NULL-ended) of @types. */
static int add_proto(struct btf *btf, int ret, const char *const *names, const int *types)
{
	int id = btf__add_func_proto(btf, ret);
	size_t i;

	for (i = 0; names[i]; i++)
		btf__add_func_param(btf, names[i], types[i]);
	return id;
}

static void test_btf_param_registers(void **state)
{
	struct btf *btf = btf__new_empty();
	int i32, i64, p, s16, s24, f1, f2, f3, f4;

	(void)state;
	assert_non_null(btf);
	i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	i64 = btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	p = btf__add_ptr(btf, i64);
	s16 = btf__add_struct(btf, "s16", 16);	/* sockptr_t's size */
	btf__add_field(btf, "ptr", p, 0, 0);
	btf__add_field(btf, "is_kernel", i32, 64, 0);
	s24 = btf__add_struct(btf, "s24", 24);
	btf__add_field(btf, "a", i64, 0, 0);
	btf__add_field(btf, "b", i64, 64, 0);
	btf__add_field(btf, "c", i64, 128, 0);
	/* f1(int a, struct s16 b, int c, int d, int e) */
	f1 = add_proto(btf, i32, (const char *[]){ "a", "b", "c", "d", "e", NULL },
		       (const int[]){ i32, s16, i32, i32, i32 });
	/* f2(struct s24 big, long x) */
	f2 = add_proto(btf, i32, (const char *[]){ "big", "x", NULL }, (const int[]){ s24, i64 });
	/* f3(long a, long b, long c, long d, long e, struct s16 f, long g) */
	f3 = add_proto(btf, i32, (const char *[]){ "a", "b", "c", "d", "e", "f", "g", NULL },
		       (const int[]){ i64, i64, i64, i64, i64, s16, i64 });
	/* f4(long a, ..., long f, int g, long *h): g and h on the stack */
	f4 = add_proto(btf, i32, (const char *[]){ "a", "b", "c", "d", "e", "f", "g", "h", NULL },
		       (const int[]){ i64, i64, i64, i64, i64, i64, i32, p });
	assert_true(f1 > 0 && f2 > 0 && f3 > 0 && f4 > 0);
#if defined(__x86_64__)
	assert_string_equal(param_reg(btf, f1, "$a"), "%di:s32");
	assert_string_equal(param_reg(btf, f1, "$c"), "%cx:s32");
	assert_string_equal(param_reg(btf, f1, "$e"), "%r9:s32");
	assert_string_equal(param_reg(btf, f2, "$big"), "stack");
	assert_string_equal(param_reg(btf, f2, "$x"), "%di:s64");
	assert_string_equal(param_reg(btf, f3, "$e"), "%r8:s64");
	assert_string_equal(param_reg(btf, f3, "$f"), "stack");
	assert_string_equal(param_reg(btf, f3, "$g"), "%r9:s64");
	assert_string_equal(param_reg(btf, f4, "$g"), "+8(%sp):s32");
	assert_string_equal(param_reg(btf, f4, "$h"), "+16(%sp):u64");
#elif defined(__aarch64__)
	assert_string_equal(param_reg(btf, f1, "$c"), "%x3:s32");
	assert_string_equal(param_reg(btf, f2, "$x"), "%x1:s64");
	assert_string_equal(param_reg(btf, f3, "$g"), "%x7:s64");
#endif
	btf__free(btf);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_types_flow),
		cmocka_unit_test(test_alias_order),
		cmocka_unit_test(test_wildcards_and_optional),
		cmocka_unit_test(test_timer_periods),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_shared_event_keeps_checks),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_kretactive),
		cmocka_unit_test(test_btf_param_registers),
	};
	char path[4096];

	/* Tests run from the build tree; the fixtures are in the source tree. */
	snprintf(path, sizeof(path), "%s/tests/fixtures/tracefs",
		 getenv("KTAP_SRCDIR") ? getenv("KTAP_SRCDIR") : ".");
	setenv("KTAP_TRACEFS", path, 1);
	setenv("KTAP_TAPSET", "/nonexistent", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
