/*
 * ast_walk.c - generic walks over the AST (pass 1's output), for the
 * rewrites and scans of the later passes, and the nesting bound that
 * keeps every recursive walk of passes 1-3 within the stack.
 *
 * In: a tree of pass 1 (or a pass-2 copy of one).  Out: calls
 * of a visitor (ast_walk_expr/stmt), or a located error when the tree
 * nests deeper than AST_MAX_DEPTH (ast_walk_depth).
 */
#include "ast_walk.h"
#include "diag.h"
#include "arena.h"

#include <stdlib.h>

static int walk_chain(struct ast_chain *ch, ast_walk_fn fn, void *arg)
{
	unsigned i;

	for (i = 0; i < ch->n; i++)
		if (ch->v[i].is_index && ast_walk_expr(ch->v[i].index, fn, arg))
			return 1;
	return 0;
}

int ast_walk_expr(struct ast_expr *e, ast_walk_fn fn, void *arg)
{
	unsigned i;
	int r;

	if (!e)
		return 0;
	r = fn(e, arg);
	if (r)
		return r < 0;
	if (ast_walk_expr(e->a, fn, arg) || ast_walk_expr(e->b, fn, arg) ||
	    ast_walk_expr(e->c, fn, arg))
		return 1;
	for (i = 0; i < e->args.n; i++)
		if (ast_walk_expr(e->args.v[i], fn, arg))
			return 1;
	return walk_chain(&e->chain, fn, arg);
}

static int walk_list(struct ast_list *l, ast_walk_fn fn, void *arg)
{
	unsigned i;

	for (i = 0; i < l->n; i++)
		if (ast_walk_expr(l->v[i], fn, arg))
			return 1;
	return 0;
}

int ast_walk_stmt(struct ast_stmt *s, ast_walk_fn fn, void *arg)
{
	unsigned i;

	if (!s)
		return 0;
	if (ast_walk_expr(s->e, fn, arg) || ast_walk_expr(s->e2, fn, arg) ||
	    ast_walk_expr(s->e3, fn, arg) || ast_walk_stmt(s->s1, fn, arg) ||
	    ast_walk_stmt(s->s2, fn, arg))
		return 1;
	for (i = 0; i < s->body.n; i++)
		if (ast_walk_stmt(s->body.v[i], fn, arg))
			return 1;
	if (s->fe && (ast_walk_expr(s->fe->value, fn, arg) ||
		      walk_list(&s->fe->keys, fn, arg) ||
		      ast_walk_expr(s->fe->array, fn, arg) ||
		      walk_list(&s->fe->slice, fn, arg) ||
		      ast_walk_expr(s->fe->limit, fn, arg) ||
		      ast_walk_stmt(s->fe->body, fn, arg)))
		return 1;
	return 0;
}

/* ---- the depth bound: an explicit stack instead of recursion ---- */

struct walk_item {
	const struct ast_expr *e;	/* one of e, s */
	const struct ast_stmt *s;
	unsigned depth;
	const struct ast_expr *top;	/* e's outermost expression, for errors */
};

struct walk_stack {
	struct walk_item *v;
	size_t n, cap;
};

static void walk_push_top(struct walk_stack *st, const struct ast_expr *e,
			  const struct ast_stmt *s, unsigned depth,
			  const struct ast_expr *top)
{
	if (!e && !s)
		return;
	if (st->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 64;
		st->v = xrealloc(st->v, st->cap * sizeof(*st->v));
	}
	st->v[st->n++] = (struct walk_item){ e, s, depth, top ? top : e };
}

/* A statement, or an expression that is the root of its own tree. */
static void walk_push(struct walk_stack *st, const struct ast_expr *e,
		      const struct ast_stmt *s, unsigned depth)
{
	walk_push_top(st, e, s, depth, NULL);
}

static void walk_push_list(struct walk_stack *st, const struct ast_list *l, unsigned depth,
			   const struct ast_expr *top)
{
	unsigned i;

	for (i = 0; i < l->n; i++)
		walk_push_top(st, l->v[i], NULL, depth, top);
}

static void walk_push_expr(struct walk_stack *st, const struct walk_item *it)
{
	unsigned i, d = it->depth + 1;

	walk_push_top(st, it->e->a, NULL, d, it->top);
	walk_push_top(st, it->e->b, NULL, d, it->top);
	walk_push_top(st, it->e->c, NULL, d, it->top);
	walk_push_list(st, &it->e->args, d, it->top);
	for (i = 0; i < it->e->chain.n; i++)
		if (it->e->chain.v[i].is_index)
			walk_push_top(st, it->e->chain.v[i].index, NULL, d, it->top);
}

static void walk_push_stmt(struct walk_stack *st, const struct ast_stmt *s, unsigned d)
{
	unsigned i;

	walk_push(st, s->e, NULL, d);
	walk_push(st, s->e2, NULL, d);
	walk_push(st, s->e3, NULL, d);
	walk_push(st, NULL, s->s1, d);
	walk_push(st, NULL, s->s2, d);
	for (i = 0; i < s->body.n; i++)
		walk_push(st, NULL, s->body.v[i], d);
	if (!s->fe)
		return;
	walk_push(st, s->fe->value, NULL, d);
	walk_push_list(st, &s->fe->keys, d, NULL);
	walk_push(st, s->fe->array, NULL, d);
	walk_push_list(st, &s->fe->slice, d, NULL);
	walk_push(st, s->fe->limit, NULL, d);
	walk_push(st, NULL, s->fe->body, d);
}

/* The roots of declaration @d: bodies, probe-point conditions, initialisers. */
static void walk_push_decl(struct walk_stack *st, const struct ast_decl *d)
{
	unsigned i;

	if (d->kind == AST_D_PROBE) {
		walk_push(st, NULL, d->probe->body, 1);
		for (i = 0; i < d->probe->points.n; i++)
			walk_push(st, d->probe->points.v[i]->cond, NULL, 1);
	} else if (d->kind == AST_D_FUNC) {
		walk_push(st, NULL, d->func->body, 1);
	} else if (d->kind == AST_D_GLOBAL) {
		walk_push(st, d->global->init, NULL, 1);
	}
}

int ast_walk_depth(const struct ast_file *f, struct diag_sink *d)
{
	struct walk_stack st = { NULL, 0, 0 };
	unsigned i;
	int r = 0;

	for (i = 0; i < f->n; i++)
		walk_push_decl(&st, f->decls[i]);
	while (st.n) {
		struct walk_item it = st.v[--st.n];

		if (it.depth > AST_MAX_DEPTH) {
			/* At the outermost expression: where the user sees it begin. */
			diag_error(d, it.e ? it.top->span : it.s->span,
				   "%s nested too deeply (more than %d levels)",
				   it.e ? "expression" : "statement", AST_MAX_DEPTH);
			r = -1;
			break;
		}
		if (it.e)
			walk_push_expr(&st, &it);
		else
			walk_push_stmt(&st, it.s, it.depth + 1);
	}
	free(st.v);
	return r;
}
