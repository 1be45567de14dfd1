/*
 * test_lexer.c - compiler/lexer.l: token kinds, values and spans, and
 * the lexical errors (bad numbers, unterminated strings and comments).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "arena.h"
#include "diag.h"
#include "lexer.h"

struct lexed {
	struct arena *a;
	struct src_map src;
	struct diag_sink d;
	struct tok_vec toks;
	char *err;
	size_t errlen;
	FILE *errf;
};

static struct lexed *lex(const char *text)
{
	struct lexed *l = calloc(1, sizeof(*l));
	uint32_t id;

	assert_non_null(l);
	l->a = arena_new();
	src_init(&l->src);
	l->errf = open_memstream(&l->err, &l->errlen);
	diag_init(&l->d, &l->src, l->errf);
	id = src_add(&l->src, "t.stp", text, strlen(text));
	lex_file(l->a, &l->d, &l->src, id, &l->toks);
	fflush(l->errf);
	return l;
}

static void lexed_free(struct lexed *l)
{
	fclose(l->errf);
	free(l->err);
	src_release(&l->src);
	arena_free(l->a);
	free(l);
}

/* The kinds of all tokens but the final EOF. */
static void assert_kinds(const struct lexed *l, const enum tok_kind *want, size_t n)
{
	size_t i;

	assert_int_equal(l->toks.n, n + 1);
	for (i = 0; i < n; i++)
		assert_string_equal(tok_kind_name(l->toks.v[i].kind), tok_kind_name(want[i]));
	assert_int_equal(l->toks.v[n].kind, TOK_EOF);
}

static void test_numbers(void **state)
{
	struct lexed *l = lex("0 42 0x1F 017 9223372036854775807 0xffffffffffffffff");
	int64_t want[] = { 0, 42, 31, 15, INT64_MAX, -1 };
	size_t i;

	(void)state;
	for (i = 0; i < 6; i++) {
		assert_int_equal(l->toks.v[i].kind, TOK_NUMBER);
		assert_int_equal(l->toks.v[i].num, want[i]);
	}
	assert_int_equal(l->d.errors, 0);
	lexed_free(l);
}

static void test_number_too_big(void **state)
{
	struct lexed *l = lex("x = 99999999999999999999");

	(void)state;
	assert_int_equal(l->d.errors, 1);
	assert_non_null(strstr(l->err, "t.stp:1:5: error:"));
	lexed_free(l);
}

static void test_string_escapes(void **state)
{
	struct lexed *l = lex("\"a\\tb\\n\\\\\\\"\\101\\x41\"");

	(void)state;
	assert_int_equal(l->toks.v[0].kind, TOK_STRING);
	assert_int_equal(l->toks.v[0].len, 8);
	assert_memory_equal(l->toks.v[0].text, "a\tb\n\\\"AA", 8);
	lexed_free(l);
}

static void test_unterminated_string(void **state)
{
	struct lexed *l = lex("probe begin { s = \"abc\n}");

	(void)state;
	assert_true(l->d.errors >= 1);
	assert_non_null(strstr(l->err, "t.stp:1:19: error:"));
	lexed_free(l);
}

static void test_comments(void **state)
{
	static const enum tok_kind want[] = { TOK_IDENT, TOK_IDENT, TOK_IDENT, TOK_IDENT };
	struct lexed *l = lex("a # shell\nb // c++\nc /* c\n multi */ d");

	(void)state;
	assert_kinds(l, want, 4);
	assert_true(l->toks.v[3].ws_before);
	lexed_free(l);
}

static void test_unterminated_comment(void **state)
{
	struct lexed *l = lex("a /* never closed");

	(void)state;
	assert_int_equal(l->d.errors, 1);
	assert_non_null(strstr(l->err, "t.stp:1:3: error:"));
	lexed_free(l);
}

static void test_targets(void **state)
{
	struct lexed *l = lex("$x $x$ $x$$ $$vars $$parms $$locals $$return");
	const char *names[] = { "$x", "$x$", "$x$$", "$$vars", "$$parms", "$$locals",
				"$$return" };
	size_t i;

	(void)state;
	for (i = 0; i < 7; i++) {
		assert_int_equal(l->toks.v[i].kind, TOK_TARGET);
		assert_memory_equal(l->toks.v[i].text, names[i], strlen(names[i]));
	}
	lexed_free(l);
}

static void test_script_args(void **state)
{
	static const enum tok_kind want[] = { TOK_ARG_NUM, TOK_ARG_STR, TOK_ARGC_NUM,
					      TOK_ARGC_STR };
	struct lexed *l = lex("$1 @2 $# @#");

	(void)state;
	assert_kinds(l, want, 4);
	lexed_free(l);
}

static void test_operators(void **state)
{
	static const enum tok_kind want[] = {
		TOK_IDENT, TOK_ADD_ASSIGN, TOK_IDENT, TOK_SEMI, TOK_IDENT, TOK_SHL_ASSIGN,
		TOK_NUMBER, TOK_ARROW, TOK_IDENT,
	};
	struct lexed *l = lex("a += b; c <<= 1 -> d");

	(void)state;
	assert_kinds(l, want, sizeof(want) / sizeof(want[0]));
	lexed_free(l);
}

static void test_stat_ops_and_regex(void **state)
{
	struct lexed *l = lex("s <<< 1 x =~ \"a\" y !~ \"b\" z .= \"c\"");
	size_t i;
	bool saw_stat = false, saw_match = false, saw_nomatch = false, saw_cat = false;

	(void)state;
	for (i = 0; i + 1 < l->toks.n; i++) {
		const char *n = tok_kind_name(l->toks.v[i].kind);

		saw_stat |= !strcmp(n, "'<<<'");
		saw_match |= !strcmp(n, "'=~'");
		saw_nomatch |= !strcmp(n, "'!~'");
		saw_cat |= !strcmp(n, "'.='");
	}
	assert_true(saw_stat && saw_match && saw_nomatch && saw_cat);
	assert_int_equal(l->d.errors, 0);
	lexed_free(l);
}

static void test_keywords_and_at(void **state)
{
	static const enum tok_kind want[] = {
		TOK_PROBE, TOK_GLOBAL, TOK_FUNCTION, TOK_FOREACH, TOK_LIMIT, TOK_TRY,
		TOK_CATCH, TOK_AT_CAST, TOK_AT_ENTRY, TOK_AT_HIST_LOG, TOK_AT_COUNT,
	};
	struct lexed *l = lex("probe global function foreach limit try catch @cast @entry "
			      "@hist_log @count");

	(void)state;
	assert_kinds(l, want, sizeof(want) / sizeof(want[0]));
	lexed_free(l);
}

static void test_spans(void **state)
{
	struct lexed *l = lex("probe\n  begin { }");

	(void)state;
	assert_int_equal(l->toks.v[0].span.start, 0);
	assert_int_equal(l->toks.v[0].span.end, 5);
	assert_int_equal(l->toks.v[1].span.start, 8);
	assert_int_equal(l->toks.v[1].span.end, 13);
	assert_int_equal(l->toks.v[1].span.file, 1);
	lexed_free(l);
}

static void test_preprocessor_tokens(void **state)
{
	static const enum tok_kind want[] = {
		TOK_PP_IF, TOK_IDENT, TOK_PP_THEN, TOK_IDENT, TOK_PP_ELSE, TOK_IDENT, TOK_PP_END,
	};
	struct lexed *l = lex("%( arch %? a %: b %)");

	(void)state;
	assert_kinds(l, want, sizeof(want) / sizeof(want[0]));
	lexed_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_number_too_big),
		cmocka_unit_test(test_string_escapes),
		cmocka_unit_test(test_unterminated_string),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_unterminated_comment),
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_script_args),
		cmocka_unit_test(test_operators),
		cmocka_unit_test(test_stat_ops_and_regex),
		cmocka_unit_test(test_keywords_and_at),
		cmocka_unit_test(test_spans),
		cmocka_unit_test(test_preprocessor_tokens),
	};

	return cmocka_run_group_tests_name("lexer", tests, NULL, NULL);
}
