/*
 * lower_fold.c - pass 3: guard conditions whose value the compiler
 * knows, and syscall_name() tests as sets of system-call numbers.
 *
 * In: a guard conjunct read through the prologue's locals
 * (lower_bind.c), so syscall.openat's name == "openat" arrives here as
 * "openat" == "openat", and syscall_any's as syscall_name($id) ==
 * "openat".  Out: the condition's value when it is the same for every
 * event, and for a syscall_name() comparison the numbers it holds for,
 * read from the table the runtime's syscall_name() uses
 * (runtime/syscall_table.c), so lower_filter.c can write "id == 257".
 */
#include "lower_int.h"
#include "../runtime/syscall_table.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

/* Does regular expression @re (stap's =~: POSIX extended, found
   anywhere) match @s?  -1 when it does not compile. */
static int lw_fold_regex(const char *re, const char *s, size_t len)
{
	regex_t r;
	char *str;
	int m;

	if (regcomp(&r, re, REG_EXTENDED | REG_NOSUB))
		return -1;
	str = strndup(s, len);
	m = str ? regexec(&r, str, 0, NULL, 0) == 0 : -1;
	free(str);
	regfree(&r);
	return m;
}

/* Does the comparison @op of strings @s (@len bytes) and @k hold? */
static int lw_fold_str_op(enum ast_op op, const char *s, size_t len, const struct ast_expr *k)
{
	bool eq = len == k->len && !memcmp(s, k->str, len);

	switch (op) {
	case AST_OP_EQ: return eq;
	case AST_OP_NE: return !eq;
	case AST_OP_MATCH: case AST_OP_NOMATCH: {
		int m = lw_fold_regex(k->str, s, len);

		return m < 0 ? -1 : op == AST_OP_MATCH ? m : !m;
	}
	default: return -1;
	}
}

static bool lw_fold_is_sc(const struct ast_expr *e)
{
	return e->kind == AST_CALL && e->ref < 0 && -e->ref - 1 == IR_BI_SYSCALL_NAME &&
	       e->args.n == 1;
}

int lw_sc_set(const struct ast_expr *e, const struct ast_expr **arg, int64_t *nrs,
	      unsigned max, unsigned *n, bool *rest)
{
	const struct ast_expr *k = e->b, *call = e->a;
	const char *name;
	int64_t nr;
	size_t i;
	int m;

	if (e->kind == AST_BINARY && (e->op == AST_OP_EQ || e->op == AST_OP_NE) &&
	    e->a->kind == AST_STR) {	/* "openat" == name */
		k = e->a;
		call = e->b;
	}
	if (e->kind != AST_BINARY || !lw_fold_is_sc(call) || k->kind != AST_STR ||
	    (e->op == AST_OP_MATCH || e->op == AST_OP_NOMATCH ? false :
	     e->op != AST_OP_EQ && e->op != AST_OP_NE) || !sct_available())
		return -1;
	*arg = call->args.v[0];
	*n = 0;
	/* numbers the table lacks are named "" */
	if ((m = lw_fold_str_op(e->op, "", 0, k)) < 0)
		return -1;
	*rest = m;
	for (i = 0; (name = sct_entry(i, &nr)); i++) {
		if ((m = lw_fold_str_op(e->op, name, strlen(name), k)) < 0)
			return -1;
		if (m == *rest)
			continue;
		if (*n < max)
			nrs[*n] = nr;
		++*n;
	}
	return 0;
}

/* @e's value if it is a constant long or string comparison. */
static int lw_fold_compare(const struct ast_expr *e)
{
	const struct ast_expr *a = e->a, *b = e->b, *arg;
	unsigned n;
	bool rest;

	if (a->kind == AST_NUM && b->kind == AST_NUM) {
		switch (e->op) {
		case AST_OP_EQ: return a->num == b->num;
		case AST_OP_NE: return a->num != b->num;
		case AST_OP_LT: return a->num < b->num;
		case AST_OP_LE: return a->num <= b->num;
		case AST_OP_GT: return a->num > b->num;
		case AST_OP_GE: return a->num >= b->num;
		default: return -1;
		}
	}
	if (a->kind == AST_STR && b->kind == AST_STR)
		return lw_fold_str_op(e->op, a->str, a->len, b);
	/* syscall_name(X) tested against a string no number or every one
	   satisfies */
	if (lw_sc_set(e, &arg, NULL, 0, &n, &rest) == 0 && n == 0)
		return rest;
	return -1;
}

int lw_fold_cond(const struct ast_expr *e)
{
	int a, b;

	switch (e->kind) {
	case AST_NUM:
		return e->num != 0;
	case AST_UNARY:
		if (e->op != AST_OP_NOT || (a = lw_fold_cond(e->a)) < 0)
			return -1;
		return !a;
	case AST_BINARY:
		if (e->op == AST_OP_LAND || e->op == AST_OP_LOR) {
			/* both sides are pure (guards): no order to keep */
			a = lw_fold_cond(e->a);
			b = lw_fold_cond(e->b);
			if (e->op == AST_OP_LAND)
				return a == 0 || b == 0 ? 0 : a == 1 && b == 1 ? 1 : -1;
			return a == 1 || b == 1 ? 1 : a == 0 && b == 0 ? 0 : -1;
		}
		return lw_fold_compare(e);
	default:
		return -1;
	}
}
