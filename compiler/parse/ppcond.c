/*
 * ppcond.c - evaluation of one preprocessor condition "l op r", with
 * SystemTap's rules: versions compare with strverscmp and may use
 * wildcards with == and !=, arch and CONFIG_ values match with fnmatch,
 * guru_mode is 0 or 1, and two literals compare as strings or numbers.
 */
#define _GNU_SOURCE
#include "pp.h"
#include "diag.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

int pp_vercmp(const char *a, const char *b)
{
	int r = strverscmp(a, b);

	return r < 0 ? -1 : r > 0;
}

static bool pp_is(const struct token *t, enum tok_kind k, const char *text)
{
	return t->kind == k && (!text || strcmp(t->text, text) == 0);
}

static int pp_fail(struct pp_ctx *pp, const struct token *at, const char *msg)
{
	diag_error(pp->diag, at->span, "%s", msg);
	return -1;
}

/* Map a comparison result (-1, 0, 1) through operator @op. */
static int pp_compare(struct pp_ctx *pp, const struct token *op, int cmp)
{
	switch (op->kind) {
	case TOK_LT: return cmp < 0;
	case TOK_LE: return cmp <= 0;
	case TOK_GT: return cmp > 0;
	case TOK_GE: return cmp >= 0;
	case TOK_EQ: return cmp == 0;
	case TOK_NE: return cmp != 0;
	default:
		return pp_fail(pp, op, "expected a comparison operator ('==', '!=', '<', '<=', '>' or '>=')");
	}
}

/* == / != only: @match says whether the two sides match. */
static int pp_equality(struct pp_ctx *pp, const struct token *op, bool match)
{
	if (op->kind == TOK_EQ)
		return match;
	if (op->kind == TOK_NE)
		return !match;
	return pp_fail(pp, op, "expected '==' or '!='");
}

static bool pp_wild(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* kernel_v, kernel_vr, systemtap_v against a version string. */
static int pp_version(struct pp_ctx *pp, const char *have,
		      const struct token *op, const struct token *r)
{
	if (r->kind != TOK_STRING)
		return pp_fail(pp, r, "expected a string literal (a version such as \"5.10\")");
	if (pp_wild(r->text)) {
		if (op->kind != TOK_EQ && op->kind != TOK_NE)
			return pp_fail(pp, op, "wildcards are only allowed with '==' and '!='");
		return pp_equality(pp, op,
				   fnmatch(r->text, have, FNM_NOESCAPE) == 0);
	}
	return pp_compare(pp, op, pp_vercmp(have, r->text));
}

/* arch, runtime, systemtap_privilege: == / != with wildcards. */
static int pp_name_match(struct pp_ctx *pp, const char *have,
			 const struct token *op, const struct token *r)
{
	if (r->kind != TOK_STRING)
		return pp_fail(pp, r, "expected a string literal");
	return pp_equality(pp, op, fnmatch(r->text, have, FNM_NOESCAPE) == 0);
}

static bool pp_parse_long(const char *s, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 0);
	return *s && !*end && errno == 0;
}

static int pp_cmp_ll(long long a, long long b)
{
	return a < b ? -1 : a > b;
}

static int pp_cmp_str(const char *a, const char *b)
{
	int r = strcmp(a, b);

	return r < 0 ? -1 : r > 0;
}

/* CONFIG_X against a string (fnmatch), a number, or another CONFIG_Y. */
static int pp_config(struct pp_ctx *pp, const struct token *l,
		     const struct token *op, const struct token *r)
{
	const struct pp_facts *f = pp->facts;
	const char *lv = f->config ? f->config(f->config_ctx, l->text) : "";
	const char *rv;
	long long a, b;

	if (r->kind == TOK_STRING)
		return pp_equality(pp, op,
				   fnmatch(r->text, lv, FNM_NOESCAPE) == 0);
	if (r->kind == TOK_NUMBER) {
		/* stap: strtoll of the value, so an unset option is 0 */
		if (!*lv)
			lv = "0";
		if (!pp_parse_long(lv, &a))
			return pp_fail(pp, l, "this kernel config option's value is not a number");
		return pp_compare(pp, op, pp_cmp_ll(a, r->num));
	}
	if (r->kind == TOK_IDENT && strncmp(r->text, "CONFIG_", 7) == 0) {
		rv = f->config ? f->config(f->config_ctx, r->text) : "";
		if (pp_parse_long(lv, &a) && pp_parse_long(rv, &b))
			return pp_compare(pp, op, pp_cmp_ll(a, b));
		return pp_compare(pp, op, pp_cmp_str(lv, rv));
	}
	return pp_fail(pp, r, "expected a string, a number or another CONFIG_ option");
}

static int pp_guru(struct pp_ctx *pp, const struct token *op,
		   const struct token *r)
{
	if (r->kind != TOK_NUMBER || (r->num != 0 && r->num != 1))
		return pp_fail(pp, r, "expected 0 or 1");
	return pp_equality(pp, op, r->num == (pp->facts->guru ? 1 : 0));
}

/* Two literals: compared as the same kind only. */
static int pp_literals(struct pp_ctx *pp, const struct token *l,
		       const struct token *op, const struct token *r)
{
	if (l->kind == TOK_STRING && r->kind == TOK_STRING)
		return pp_compare(pp, op, pp_cmp_str(l->text, r->text));
	if (l->kind == TOK_NUMBER && r->kind == TOK_NUMBER)
		return pp_compare(pp, op, pp_cmp_ll(l->num, r->num));
	if (l->kind == TOK_STRING)
		return pp_fail(pp, r, "expected a string literal as the right operand");
	return pp_fail(pp, r, "expected a number literal as the right operand");
}

int pp_eval_cond(struct pp_ctx *pp, const struct token *l,
		 const struct token *op, const struct token *r)
{
	const struct pp_facts *f = pp->facts;

	if (pp_is(l, TOK_IDENT, "kernel_v"))
		return pp_version(pp, f->kernel_v, op, r);
	if (pp_is(l, TOK_IDENT, "kernel_vr"))
		return pp_version(pp, f->kernel_vr, op, r);
	if (pp_is(l, TOK_IDENT, "systemtap_v"))
		return pp_version(pp, f->systemtap_v, op, r);
	if (pp_is(l, TOK_IDENT, "arch"))
		return pp_name_match(pp, f->arch, op, r);
	if (pp_is(l, TOK_IDENT, "runtime"))
		return pp_name_match(pp, f->runtime, op, r);
	if (pp_is(l, TOK_IDENT, "systemtap_privilege"))
		return pp_name_match(pp, f->privilege, op, r);
	if (pp_is(l, TOK_IDENT, "guru_mode"))
		return pp_guru(pp, op, r);
	if (l->kind == TOK_IDENT && strncmp(l->text, "CONFIG_", 7) == 0)
		return pp_config(pp, l, op, r);
	if (l->kind == TOK_STRING || l->kind == TOK_NUMBER)
		return pp_literals(pp, l, op, r);
	return pp_fail(pp, l, "expected 'kernel_v', 'kernel_vr', 'systemtap_v', 'arch', 'runtime', 'guru_mode', 'systemtap_privilege', 'CONFIG_...', or a comparison of two literals");
}
