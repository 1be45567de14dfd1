/*
 * test_ast_print.c - compiler/ast_print.c and ast_equal.c: the -p1
 * printout parses back to the same tree (round trip) for constructs
 * whose printing is delicate, and prints them canonically.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fe_util.h"

/* print(parse(@script)) parses to an equal tree, and prints as @want. */
static void assert_round_trip(const char *script, const char *want)
{
	struct fe *a = fe_parse(script), *b;

	if (a->rc != 0)
		fail_msg("%s", a->err);
	b = fe_parse(fe_body(a));
	if (b->rc != 0)
		fail_msg("reparse: %s", b->err);
	assert_true(ast_file_equal(a->s.script, b->s.script));
	assert_string_equal(fe_body(a), fe_body(b));
	if (want)
		assert_string_equal(fe_body(a), want);
	fe_free(a);
	fe_free(b);
}

static void test_strings(void **state)
{
	(void)state;
	assert_round_trip("probe begin { s = \"tab\\t nl\\n quote\\\" bs\\\\ bell\\a \\001\" }",
			  "probe begin {\n  s = \"tab\\t nl\\n quote\\\" bs\\\\ bell\\a \\001\";\n}\n");
}

static void test_numbers(void **state)
{
	(void)state;
	assert_round_trip("probe begin { a = -9223372036854775808; b = 0x7fffffffffffffff; "
			  "c = - -1 }", NULL);
}

static void test_parentheses_kept_where_needed(void **state)
{
	(void)state;
	assert_round_trip("probe begin { x = (a + b) * c; y = a - (b - c); z = -(a + b) }",
			  "probe begin {\n  x = (a + b) * c;\n  y = a - (b - c);\n"
			  "  z = -(a + b);\n}\n");
	assert_round_trip("probe begin { x = a ? (b ? c : d) : e ? f : g }", NULL);
	assert_round_trip("probe begin { x = (a = b) + 1; y = (s . t) == \"u\" }", NULL);
}

static void test_incdec_spacing(void **state)
{
	(void)state;
	assert_round_trip("probe begin { x = - --y; z = a - -b; w = + +c }", NULL);
}

static void test_declarations(void **state)
{
	(void)state;
	assert_round_trip("global a%[10], b = \"s\", c = -3\nprivate global d\n"
			  "function f:string (x:long, y) { return sprint(x, y) }\n"
			  "probe a.b = begin, end(-1) { } probe a.c += never { }", NULL);
}

static void test_statements(void **state)
{
	(void)state;
	assert_round_trip("probe begin { if (a) if (b) c = 1; else d = 2 "
			  "while (1) { break } for (;;) continue "
			  "foreach ([k1, k2-] in arr[*, 1] limit n + 1) { delete arr[k1, k2] } "
			  "try { } catch { } ; }", NULL);
}

static void test_targets_and_stats(void **state)
{
	(void)state;
	assert_round_trip("probe begin { x = $p->a[3]->b$ + @cast(q, \"struct s\", \"m\")->c "
			  "+ &$r->d + @entry($e) + @defined($f) ? 1 : 0; s <<< x; "
			  "print(@hist_log(s)); y = @variance(s) + @avg(t[1, \"k\"]) }", NULL);
}

static void test_points(void **state)
{
	(void)state;
	assert_round_trip("probe kernel.function(\"f@net/ipv4/*.c\").return!, "
			  "process(\"/bin/ls\").statement(\"*@main.c:10\")?, "
			  "timer.ms(100).randomize(10) if (on) { }", NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_parentheses_kept_where_needed),
		cmocka_unit_test(test_incdec_spacing),
		cmocka_unit_test(test_declarations),
		cmocka_unit_test(test_statements),
		cmocka_unit_test(test_targets_and_stats),
		cmocka_unit_test(test_points),
	};

	return cmocka_run_group_tests_name("ast printer", tests, NULL, NULL);
}
