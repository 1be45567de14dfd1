/*
 * lower_bind.c - pass 3: what a probe's prologue binds its locals to.
 *
 * A probe alias's body runs before the user's (syscall_any sets
 * name = syscall_name($id), syscall.openat sets name = "openat"), and a
 * user's handler may itself start with "x = $field".  A guard that
 * tests such a local tests a pure function of the event: read through
 * the binding (name == "openat" is syscall_name($id) == "openat"), the
 * kernel may be able to evaluate it (lower_filter.c).  Only statements
 * that can neither change anything outside the probe's locals nor fail
 * are read through; anything else ends the prologue, and the guards
 * after it stay in user space (lower_guard.c).
 */
#include "lower_int.h"
#include "arena.h"

#include <string.h>

/* Builtins without side effects or run-time errors (no arguments). */
static bool lw_pure_call0(const char *name)
{
	static const char *const pure[] = {
		"pid", "tid", "ppid", "cpu", "execname", "pexecname", "target",
		"uid", "euid", "gid", "egid", "pp", "pn", "probefunc",
	};
	unsigned i;

	for (i = 0; i < sizeof(pure) / sizeof(pure[0]); i++)
		if (!strcmp(name, pure[i]))
			return true;
	return false;
}

static bool lw_pure_call(const struct ast_expr *e)
{
	if (e->ref >= 0)
		return false;
	if (!e->args.n)
		return lw_pure_call0(e->str);
	/* a table lookup: "" for a number the table lacks */
	return e->args.n == 1 && -e->ref - 1 == IR_BI_SYSCALL_NAME && lw_pure(e->args.v[0]);
}

bool lw_pure(const struct ast_expr *e)
{
	unsigned i;

	if (!e)
		return true;
	switch (e->kind) {
	case AST_NUM: case AST_STR: case AST_VAR:
		return true;
	case AST_TARGET:
		return e->ref >= 0 && !e->chain.pretty && !e->chain.n;
	case AST_CALL:
		return lw_pure_call(e);
	case AST_UNARY:
		return e->op != AST_OP_ADDR && lw_pure(e->a);
	case AST_BINARY:
		if (e->op == AST_OP_DIV || e->op == AST_OP_MOD)
			return false;
		return lw_pure(e->a) && lw_pure(e->b);
	case AST_TERNARY:
		return lw_pure(e->a) && lw_pure(e->b) && lw_pure(e->c);
	case AST_INDEX: case AST_IN:
		for (i = 0; i < e->args.n; i++)
			if (!lw_pure(e->args.v[i]))
				return false;
		return true;
	default:
		return false;
	}
}

/* Set @sym's binding to @e (NULL: unknown from here on). */
static void lw_bind_set(struct lw_ctx *c, struct lw_binds *b, const struct sem_sym *sym,
			const struct ast_expr *e)
{
	unsigned i;

	for (i = 0; i < b->n; i++)
		if (b->sym[i] == sym) {
			b->e[i] = e;
			return;
		}
	b->sym = arena_grow(c->arena, b->sym, b->n, &b->scap, sizeof(*b->sym));
	b->e = arena_grow(c->arena, b->e, b->n, &b->ecap, sizeof(*b->e));
	b->sym[b->n] = sym;
	b->e[b->n++] = e;
}

const struct sem_sym *lw_local_set(const struct ast_stmt *s)
{
	const struct ast_expr *e = s->kind == AST_S_EXPR ? s->e : NULL;

	if (!e || e->kind != AST_ASSIGN || e->op != AST_OP_SET || !e->a ||
	    e->a->kind != AST_VAR || !e->a->sym || e->a->sym->kind != SEM_LOCAL ||
	    !lw_pure(e->b))
		return NULL;
	return e->a->sym;
}

/* Is @s only assignments of pure values to locals, under pure
   conditions?  Each local it may assign becomes unknown in @b. */
static bool lw_bind_forget(struct lw_ctx *c, struct lw_binds *b, const struct ast_stmt *s)
{
	const struct sem_sym *sym;
	unsigned i;

	if (!s || s->kind == AST_S_NULL)
		return true;
	switch (s->kind) {
	case AST_S_BLOCK:
		for (i = 0; i < s->body.n; i++)
			if (!lw_bind_forget(c, b, s->body.v[i]))
				return false;
		return true;
	case AST_S_IF:
		return lw_pure(s->e) && lw_bind_forget(c, b, s->s1) &&
		       lw_bind_forget(c, b, s->s2);
	case AST_S_EXPR:
		sym = lw_local_set(s);
		if (sym)
			lw_bind_set(c, b, sym, NULL);
		return sym != NULL;
	default:
		return false;
	}
}

bool lw_bind_stmt(struct lw_ctx *c, struct lw_binds *b, const struct ast_stmt *s)
{
	const struct sem_sym *sym;

	if (s->kind == AST_S_EXPR && (sym = lw_local_set(s))) {
		lw_bind_set(c, b, sym, lw_bind_subst(c, b, s->e->b));
		return true;
	}
	return lw_bind_forget(c, b, s);
}

/* What @sym is bound to, or NULL. */
static const struct ast_expr *lw_bound(const struct lw_binds *b, const struct sem_sym *sym)
{
	unsigned i;

	for (i = 0; b && i < b->n; i++)
		if (b->sym[i] == sym)
			return b->e[i];
	return NULL;
}

const struct ast_expr *lw_bind_subst(struct lw_ctx *c, const struct lw_binds *b,
				     const struct ast_expr *e)
{
	const struct ast_expr *a, *bb, *cc, *to;
	struct ast_expr *n;
	bool changed;
	unsigned i;

	if (!e || !b || !b->n)
		return e;
	if (e->kind == AST_VAR) {
		to = e->sym && e->sym->kind == SEM_LOCAL ? lw_bound(b, e->sym) : NULL;
		return to ? to : e;
	}
	a = lw_bind_subst(c, b, e->a);
	bb = lw_bind_subst(c, b, e->b);
	cc = lw_bind_subst(c, b, e->c);
	changed = a != e->a || bb != e->b || cc != e->c;
	n = arena_alloc(c->arena, sizeof(*n));
	*n = *e;
	n->a = (struct ast_expr *)a;
	n->b = (struct ast_expr *)bb;
	n->c = (struct ast_expr *)cc;
	if (e->args.n) {
		n->args.v = arena_alloc(c->arena, e->args.n * sizeof(*n->args.v));
		n->args.cap = e->args.n;
		for (i = 0; i < e->args.n; i++) {
			n->args.v[i] = (struct ast_expr *)lw_bind_subst(c, b, e->args.v[i]);
			changed = changed || n->args.v[i] != e->args.v[i];
		}
	}
	return changed ? n : e;
}
