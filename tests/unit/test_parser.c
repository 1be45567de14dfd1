/*
 * test_parser.c - compiler/parser.y + parse.c: the shapes of parsed
 * scripts (checked through the canonical -p1 printout, which prints
 * parentheses only where the tree needs them), declarations, statements,
 * probe points, and error recovery.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fe_util.h"

/* @script parses without a diagnostic and prints as @want. */
static void assert_prints(const char *script, const char *want)
{
	struct fe *f = fe_parse(script);

	if (f->rc != 0)
		fail_msg("%s", f->err);
	assert_string_equal(f->err, "");
	assert_string_equal(fe_body(f), want);
	fe_free(f);
}

/* @a and @b parse to the same tree (so print the same). */
static void assert_same_tree(const char *a, const char *b)
{
	struct fe *x = fe_parse(a), *y = fe_parse(b);

	assert_int_equal(x->rc, 0);
	assert_int_equal(y->rc, 0);
	assert_string_equal(fe_body(x), fe_body(y));
	fe_free(x);
	fe_free(y);
}

static void test_precedence(void **state)
{
	(void)state;
	assert_same_tree("probe begin { x = a ? b : c || d && e in f }",
			 "probe begin { x = a ? b : (c || (d && (e in f))) }");
	assert_same_tree("probe begin { y = 1 + 2 * 3 << 1 }",
			 "probe begin { y = (1 + (2 * 3)) << 1 }");
	/* stap's comparisons share one level and associate to the left. */
	assert_same_tree("probe begin { z = a | b ^ c & d == e < f }",
			 "probe begin { z = a | (b ^ (c & ((d == e) < f))) }");
	assert_same_tree("probe begin { s = a . b . c }", "probe begin { s = (a . b) . c }");
	assert_prints("probe begin { x = (a ? b : c) && d }",
		      "probe begin {\n  x = (a ? b : c) && d;\n}\n");
}

static void test_unary_and_incdec(void **state)
{
	(void)state;
	/* "!~" is the regex operator, so "! ~" needs its space. */
	assert_prints("probe begin { x = -! ~y; z++; --w }",
		      "probe begin {\n  x = - ! ~y;\n  z++;\n  --w;\n}\n");
}

static void test_globals_and_functions(void **state)
{
	(void)state;
	assert_prints("global a%[10], b = 5, c[3]\n"
		      "function f:long (x:long, s:string) { return x }",
		      "global a%[10]\nglobal b = 5\nglobal c[3]\n\n"
		      "function f:long (x:long, s:string) {\n  return x;\n}\n");
}

static void test_probe_points(void **state)
{
	(void)state;
	assert_prints("probe kernel.trace(\"sched:*\")!, timer.ms(10).randomize(2)? "
		      "if (x > 1) { }",
		      "probe kernel.trace(\"sched:*\")!, timer.ms(10).randomize(2)? "
		      "if (x > 1) {\n}\n");
	assert_prints("probe process(\"/bin/ls\").statement(\"*@main.c:10\") { }",
		      "probe process(\"/bin/ls\").statement(\"*@main.c:10\") {\n}\n");
}

static void test_aliases(void **state)
{
	(void)state;
	assert_prints("probe a.b = begin { x = 1 } probe a.c += end { y = 2 }",
		      "probe a.b = begin {\n  x = 1;\n}\n\nprobe a.c += end {\n  y = 2;\n}\n");
}

static void test_statements(void **state)
{
	(void)state;
	assert_prints("probe begin { if (x) y = 1 else { z = 2 } while (i < 3) i++ "
		      "for (j = 0; j < 2; j++) continue; try { x = 1 } catch (m) { print(m) } "
		      "delete a; next }",
		      "probe begin {\n  if (x)\n    y = 1;\n  else {\n    z = 2;\n  }\n"
		      "  while (i < 3)\n    i++;\n  for (j = 0; j < 2; j++)\n    continue;\n"
		      "  try {\n    x = 1;\n  } catch (m) {\n    print(m);\n  }\n"
		      "  delete a;\n  next;\n}\n");
}

static void test_foreach_forms(void **state)
{
	(void)state;
	assert_prints("probe begin { foreach ([a, b+] in arr limit 5) print(a) "
		      "foreach (v = k in arr-) print(v) foreach (k in arr[1, *]) print(k) }",
		      "probe begin {\n  foreach ([a, b+] in arr limit 5)\n    print(a);\n"
		      "  foreach (v = k in arr-)\n    print(v);\n"
		      "  foreach (k in arr[1, *])\n    print(k);\n}\n");
}

static void test_membership_and_stats(void **state)
{
	(void)state;
	assert_prints("probe begin { if ([1, \"a\"] in x) s <<< 3; "
		      "print(@count(s), @hist_linear(s, 0, 100, 10)) }",
		      "probe begin {\n  if ([1, \"a\"] in x)\n    s <<< 3;\n"
		      "  print(@count(s), @hist_linear(s, 0, 100, 10));\n}\n");
}

static void test_target_expressions(void **state)
{
	(void)state;
	assert_prints("probe begin { print(@cast(p, \"struct task_struct\")->pid + "
		      "@entry($x) + @defined($y) + $p->a[2]->b + &$q->c) }",
		      "probe begin {\n  print(@cast(p, \"struct task_struct\")->pid + "
		      "@entry($x) + @defined($y) + $p->a[2]->b + &$q->c);\n}\n");
}

static void test_optional_semicolons(void **state)
{
	(void)state;
	assert_same_tree("probe begin { a = 1 b = 2 }", "probe begin { a = 1; b = 2; }");
}

static void test_error_names_what_was_expected(void **state)
{
	struct fe *f = fe_parse("probe begin {\n  x = (1 + 2\n}\n");

	(void)state;
	assert_int_equal(f->rc, -1);
	assert_non_null(strstr(f->err, "expected ')' to close '(' at 2:7"));
	fe_free(f);
}

static void test_recovery_reports_several_errors(void **state)
{
	struct fe *f = fe_parse("probe begin { x = ; }\nprobe end { y = ) }\n"
				"probe begin { z = 1 }\n");

	(void)state;
	assert_int_equal(f->rc, -1);
	assert_int_equal(f->s.diag.errors, 2);
	assert_non_null(strstr(f->err, "<input>:1:19: error:"));
	assert_non_null(strstr(f->err, "<input>:2:17: error:"));
	fe_free(f);
}

static void test_embedded_c_needs_guru(void **state)
{
	struct fe *f = fe_parse("%{ int x; %}\nprobe begin { }");

	(void)state;
	assert_int_equal(f->rc, -1);
	assert_true(f->s.diag.errors >= 1);
	fe_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_unary_and_incdec),
		cmocka_unit_test(test_globals_and_functions),
		cmocka_unit_test(test_probe_points),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_statements),
		cmocka_unit_test(test_foreach_forms),
		cmocka_unit_test(test_membership_and_stats),
		cmocka_unit_test(test_target_expressions),
		cmocka_unit_test(test_optional_semicolons),
		cmocka_unit_test(test_error_names_what_was_expected),
		cmocka_unit_test(test_recovery_reports_several_errors),
		cmocka_unit_test(test_embedded_c_needs_guru),
	};

	return cmocka_run_group_tests_name("parser", tests, NULL, NULL);
}
