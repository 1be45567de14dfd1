/*
 * test_pp.c - compiler/pp.c + ppcond.c: %( %? %: %) conditionals on the
 * kernel version, architecture, runtime, language level, CONFIG_* and
 * defined(); @define macros; $N/@N script arguments; and their errors.
 * Facts: release 6.1.0-13-amd64, arch x86_64 (fe_util.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fe_util.h"

static void assert_pp(const char *script, char **args, const char *want)
{
	struct fe *f = fe_parse_args(script, args);

	if (f->rc != 0)
		fail_msg("%s", f->err);
	assert_string_equal(fe_body(f), want);
	fe_free(f);
}

#define BEGIN_A(n) "probe begin {\n  a = " #n ";\n}\n"

static void test_kernel_version(void **state)
{
	(void)state;
	assert_pp("%( kernel_v >= \"2.6.30\" %? probe begin { a = 1 } %: probe begin { a = 2 } %)",
		  NULL, BEGIN_A(1));
	assert_pp("%( kernel_v < \"6.1\" %? probe begin { a = 1 } %: probe begin { a = 2 } %)",
		  NULL, BEGIN_A(2));
	assert_pp("%( kernel_vr == \"6.1.0-13-amd64\" %? probe begin { a = 1 } %)", NULL,
		  BEGIN_A(1));
}

static void test_arch_runtime_language(void **state)
{
	(void)state;
	assert_pp("%( arch == \"x86_64\" && runtime == \"kernel\" %? probe begin { a = 1 } "
		  "%: probe begin { a = 2 } %)", NULL, BEGIN_A(1));
	assert_pp("%( systemtap_v >= \"4.0\" %? probe begin { a = 1 } %)", NULL, BEGIN_A(1));
	assert_pp("%( arch == \"arm64\" || arch == \"x86_64\" %? probe begin { a = 3 } %)",
		  NULL, BEGIN_A(3));
}

static void test_nested(void **state)
{
	(void)state;
	assert_pp("%( arch == \"x86_64\" %? %( kernel_v > \"7\" %? probe begin { a = 1 } "
		  "%: probe begin { a = 2 } %) %: probe begin { a = 3 } %)", NULL, BEGIN_A(2));
}

static void test_inside_expressions(void **state)
{
	(void)state;
	assert_pp("probe begin { a = %( arch == \"x86_64\" %? 64 %: 32 %) }", NULL,
		  BEGIN_A(64));
}

static void test_macros(void **state)
{
	(void)state;
	assert_pp("@define sq(x) %( (@x) * (@x) %) probe begin { a = @sq(3 + 1) }", NULL,
		  "probe begin {\n  a = (3 + 1) * (3 + 1);\n}\n");
	assert_pp("@define one %( 1 %) @define two %( @one + @one %) probe begin { a = @two }",
		  NULL, "probe begin {\n  a = 1 + 1;\n}\n");
}

static void test_script_arguments(void **state)
{
	char a1[] = "42", a2[] = "hello";
	char *args[] = { a1, a2, NULL };

	(void)state;
	assert_pp("probe begin { a = $1; s = @2; n = $# }", args,
		  "probe begin {\n  a = 42;\n  s = \"hello\";\n  n = 2;\n}\n");
}

static void test_argument_out_of_range(void **state)
{
	struct fe *f = fe_parse("probe begin { print($1) }");

	(void)state;
	assert_int_equal(f->rc, -1);
	assert_non_null(strstr(f->err, "<input>:1:21: error: command line argument index 1 "
				       "out of range [1-0]"));
	fe_free(f);
}

/* A $N whose text is not code: the error, then a note quoting the
   argument; said at its first use only (stap's hw_watch_addr.stp uses
   its $1 twice). */
static void test_argument_bad_text(void **state)
{
	char a1[] = "0x";
	char *args[] = { a1, NULL };
	struct fe *f = fe_parse_args("probe begin { print($1) } probe end { print($1 + 1) }", args);

	(void)state;
	assert_int_equal(f->rc, -1);
	assert_int_equal(f->s.diag.errors, 1);
	assert_non_null(strstr(f->err, "<input>:1:21: error: invalid hexadecimal number '0x'"));
	assert_non_null(strstr(f->err, "<input>:1:21: note: command line argument $1 is \"0x\""));
	assert_null(strstr(f->err, "<input>:1:47:"));
	fe_free(f);
}

static void test_unterminated_conditional(void **state)
{
	struct fe *f = fe_parse("%( arch == \"x86_64\" %? probe begin { }");

	(void)state;
	assert_int_equal(f->rc, -1);
	assert_int_equal(f->s.diag.errors, 1);
	fe_free(f);
}

static void test_unknown_macro(void **state)
{
	struct fe *f = fe_parse("probe begin { a = @nosuch(1) }");

	(void)state;
	assert_int_equal(f->rc, -1);
	assert_non_null(strstr(f->err, "unknown macro or operator '@nosuch'"));
	fe_free(f);
}

static void test_vercmp(void **state)
{
	(void)state;
	assert_true(pp_vercmp("2.6.30", "2.6.9") > 0);
	assert_true(pp_vercmp("6.1", "6.1.0") <= 0);
	assert_int_equal(pp_vercmp("5.10", "5.10"), 0);
	assert_true(pp_vercmp("4.19", "5.0") < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_version),
		cmocka_unit_test(test_arch_runtime_language),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_inside_expressions),
		cmocka_unit_test(test_macros),
		cmocka_unit_test(test_script_arguments),
		cmocka_unit_test(test_argument_out_of_range),
		cmocka_unit_test(test_argument_bad_text),
		cmocka_unit_test(test_unterminated_conditional),
		cmocka_unit_test(test_unknown_macro),
		cmocka_unit_test(test_vercmp),
	};

	return cmocka_run_group_tests_name("preprocessor", tests, NULL, NULL);
}
