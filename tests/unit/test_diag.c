/*
 * test_diag.c - compiler/diag.c: the exact text of a diagnostic (file,
 * line, column, the source line and a caret under the whole span),
 * warnings, notes for macro expansions, one message per place, counts,
 * and the codes of --diag-codes (diag.def).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "diag.h"
#include "fe_util.h"

struct sink {
	struct src_map src;
	struct diag_sink d;
	char *text;
	size_t len;
	FILE *f;
	uint32_t id;
};

static void sink_open(struct sink *s, const char *name, const char *text)
{
	src_init(&s->src);
	s->f = open_memstream(&s->text, &s->len);
	diag_init(&s->d, &s->src, s->f);
	s->id = src_add(&s->src, name, text, strlen(text));
}

static const char *sink_text(struct sink *s)
{
	fflush(s->f);
	return s->text;
}

static void sink_close(struct sink *s)
{
	fclose(s->f);
	free(s->text);
	src_release(&s->src);
}

static struct src_span span(uint32_t file, uint32_t start, uint32_t end)
{
	struct src_span sp = { file, start, end, 0 };

	return sp;
}

static void test_error_format(void **state)
{
	struct sink s;

	(void)state;
	sink_open(&s, "x.stp", "probe begin {\n  x = y / 0\n}\n");
	diag_error(&s.d, span(s.id, 20, 25), "something about %s", "this");
	assert_string_equal(sink_text(&s),
			    "x.stp:2:7: error: something about this\n"
			    "     2 |   x = y / 0\n"
			    "       |       ^~~~~\n");
	assert_int_equal(s.d.errors, 1);
	sink_close(&s);
}

static void test_warning_and_counts(void **state)
{
	struct sink s;

	(void)state;
	sink_open(&s, "w.stp", "global g\n");
	diag_warning(&s.d, span(s.id, 7, 8), "unused");
	assert_string_equal(sink_text(&s),
			    "w.stp:1:8: warning: unused\n"
			    "     1 | global g\n"
			    "       |        ^\n");
	assert_int_equal(s.d.errors, 0);
	assert_int_equal(s.d.warnings, 1);
	sink_close(&s);
}

static void test_warnings_off(void **state)
{
	struct sink s;

	(void)state;
	sink_open(&s, "w.stp", "global g\n");
	s.d.warnings_off = true;
	diag_warning(&s.d, span(s.id, 7, 8), "unused");
	assert_string_equal(sink_text(&s) ? sink_text(&s) : "", "");
	sink_close(&s);
}

static void test_same_place_once(void **state)
{
	struct sink s;

	(void)state;
	sink_open(&s, "d.stp", "abc\n");
	diag_error(&s.d, span(s.id, 0, 3), "first");
	diag_error(&s.d, span(s.id, 0, 3), "second, same place");
	assert_null(strstr(sink_text(&s), "second"));
	assert_int_equal(s.d.errors, 1);
	sink_close(&s);
}

static void test_plain(void **state)
{
	struct sink s;

	(void)state;
	sink_open(&s, "p.stp", "");
	diag_plain(&s.d, DIAG_ERROR, "no script given");
	assert_string_equal(sink_text(&s), "ktap: error: no script given\n");
	sink_close(&s);
}

static void test_where(void **state)
{
	struct sink s;
	char buf[32];

	(void)state;
	sink_open(&s, "l.stp", "a\nbb\nccc\n");
	assert_string_equal(diag_where(&s.d, span(s.id, 6, 7), buf, sizeof(buf)), "3:2");
	sink_close(&s);
}

/* Through the whole front end: an error inside a macro expansion. */
static void test_macro_expansion_note(void **state)
{
	struct fe *f = fe_parse("@define bad %( 1 + @nosuch %)\nprobe begin { x = @bad }\n");

	(void)state;
	assert_int_equal(f->rc, -1);
	assert_string_equal(f->err,
			    "<input>:1:20: error: unknown macro or operator '@nosuch'\n"
			    "     1 | @define bad %( 1 + @nosuch %)\n"
			    "       |                    ^~~~~~~\n"
			    "<input>:2:19: note: in expansion of macro '@bad'\n"
			    "     2 | probe begin { x = @bad }\n"
			    "       |                   ^~~~\n");
	fe_free(f);
}

/* --diag-codes: the level carries the code of the format (diag.def). */
static void test_codes(void **state)
{
	const char *name = NULL;
	struct sink s;

	(void)state;
	assert_string_equal(diag_code("unterminated string literal", &name), "E0103");
	assert_string_equal(name, "unterminated_string_literal");
	assert_null(diag_code("a format nobody registered", NULL));
	sink_open(&s, "c.stp", "global g\n");
	s.d.show_codes = true;
	diag_error(&s.d, span(s.id, 0, 6), "unterminated string literal");
	diag_warning(&s.d, span(s.id, 7, 8), "variable '%s' is assigned but never read", "g");
	diag_plain(&s.d, DIAG_ERROR, "cannot read script %s: %s", "x.stp", "gone");
	diag_error(&s.d, span(s.id, 2, 3), "a format nobody registered");
	assert_string_equal(sink_text(&s),
			    "c.stp:1:1: error[E0103]: unterminated string literal\n"
			    "     1 | global g\n"
			    "       | ^~~~~~\n"
			    "c.stp:1:8: warning[E0405]: variable 'g' is assigned but never read\n"
			    "     1 | global g\n"
			    "       |        ^\n"
			    "ktap: error[E0802]: cannot read script x.stp: gone\n"
			    "c.stp:1:3: error: a format nobody registered\n"
			    "     1 | global g\n"
			    "       |   ^\n");
	sink_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error_format),
		cmocka_unit_test(test_warning_and_counts),
		cmocka_unit_test(test_warnings_off),
		cmocka_unit_test(test_same_place_once),
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_where),
		cmocka_unit_test(test_macro_expansion_note),
		cmocka_unit_test(test_codes),
	};

	return cmocka_run_group_tests_name("diagnostics", tests, NULL, NULL);
}
