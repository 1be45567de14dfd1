/*
 * sema_elide.c - pass 2: elision of unused probe-alias locals.
 *
 * A probe alias's body sets locals for the user's body to read (stap's
 * syscall tapset sets a dozen: name, argstr, each argument).  As in stap,
 * an assignment of the alias's body to a local that nothing in the
 * probe reads, with a right-hand side free of side effects, is dropped
 * before the probe is typed and checked.  So an argstr nobody prints is
 * never computed, and a variable that would need something this kernel
 * cannot do (a user string on a tracepoint) is only an error when the
 * script reads it.  Statements of the script's own probes are never
 * elided: their unused assignments draw the usual warning instead.
 */
#include "sema_int.h"
#include "ast_walk.h"
#include "arena.h"

#include <string.h>

void sema_elide_mark(struct ast_stmt *s)
{
	unsigned i;

	if (!s)
		return;
	s->elidable = true;
	sema_elide_mark(s->s1);
	sema_elide_mark(s->s2);
	for (i = 0; i < s->body.n; i++)
		sema_elide_mark(s->body.v[i]);
}

/* The names read somewhere in a probe. */
struct elide_reads {
	struct arena *arena;
	const char **v;
	unsigned n;
	size_t cap;
};

static bool elide_is_read(const struct elide_reads *r, const char *name)
{
	unsigned i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->v[i], name))
			return true;
	return false;
}

static int elide_reads_fn(struct ast_expr *e, void *arg)
{
	struct elide_reads *r = arg;

	/* "x = e" writes x without reading it: look only at e. */
	if (e->kind == AST_ASSIGN && e->op == AST_OP_SET && e->a && e->a->kind == AST_VAR) {
		ast_walk_expr(e->b, elide_reads_fn, arg);
		return 1;
	}
	if (e->kind == AST_VAR && !elide_is_read(r, e->str)) {
		r->v = arena_grow(r->arena, r->v, r->n, &r->cap, sizeof(*r->v));
		r->v[r->n++] = e->str;
	}
	return 0;
}

/* Functions being checked, against recursion (assumed pure meanwhile). */
struct elide_pure {
	struct sema_ctx *c;
	const struct ast_func *stack[16];
	unsigned depth;
	bool pure;
};

static bool elide_func_pure(struct elide_pure *p, const struct ast_func *f);

static const struct ast_func *elide_func(struct sema_ctx *c, const char *name)
{
	unsigned i;

	for (i = 0; i < c->nfdecls; i++)
		if (!strcmp(c->fdecls[i]->name, name))
			return c->fdecls[i];
	return NULL;
}

static int elide_pure_fn(struct ast_expr *e, void *arg)
{
	struct elide_pure *p = arg;
	const struct ast_func *f;
	int id;

	switch (e->kind) {
	case AST_ASSIGN:
		/* Inside a function, writing a local is harmless. */
		if (p->depth && e->a->kind == AST_VAR && !sema_global(p->c, e->a->str))
			return 0;
		p->pure = false;
		return -1;
	case AST_INCDEC:
		if (p->depth && e->a->kind == AST_VAR && !sema_global(p->c, e->a->str))
			return 0;
		p->pure = false;
		return -1;
	case AST_CALL:
		if ((f = elide_func(p->c, e->str)) != NULL) {
			if (!elide_func_pure(p, f))
				return -1;
			return 0;
		}
		id = sema_builtin(e->str);
		if (id >= 0 && sema_builtin_has_side_effects(id)) {
			p->pure = false;
			return -1;
		}
		return 0;	/* other builtins; user_string() and friends */
	case AST_EMBEDDED:
		p->pure = false;
		return -1;
	default:
		return 0;
	}
}

static int elide_stmt_pure(struct elide_pure *p, const struct ast_stmt *s)
{
	unsigned i;

	if (!s || !p->pure)
		return p->pure;
	if (s->kind == AST_S_DELETE || s->kind == AST_S_EMBEDDED || s->kind == AST_S_NEXT) {
		p->pure = false;
		return 0;
	}
	ast_walk_expr(s->e, elide_pure_fn, p);
	ast_walk_expr(s->e2, elide_pure_fn, p);
	ast_walk_expr(s->e3, elide_pure_fn, p);
	elide_stmt_pure(p, s->s1);
	elide_stmt_pure(p, s->s2);
	for (i = 0; i < s->body.n; i++)
		elide_stmt_pure(p, s->body.v[i]);
	if (s->fe)
		elide_stmt_pure(p, s->fe->body);
	return p->pure;
}

static bool elide_func_pure(struct elide_pure *p, const struct ast_func *f)
{
	unsigned i;

	if (!f->body)
		return p->pure = false;
	for (i = 0; i < p->depth; i++)
		if (p->stack[i] == f)
			return p->pure;
	if (p->depth == sizeof(p->stack) / sizeof(p->stack[0]))
		return p->pure = false;
	p->stack[p->depth++] = f;
	elide_stmt_pure(p, f->body);
	p->depth--;
	return p->pure;
}

/* Is @s an assignment "x = e" of an alias to a local nobody reads? */
static bool elide_dead(struct sema_ctx *c, const struct elide_reads *r,
		       const struct ast_stmt *s)
{
	struct elide_pure p = { c, { 0 }, 0, true };
	const struct ast_expr *e = s->e;

	if (!s->elidable || s->kind != AST_S_EXPR || e->kind != AST_ASSIGN ||
	    e->op != AST_OP_SET || e->a->kind != AST_VAR ||
	    elide_is_read(r, e->a->str) || sema_global(c, e->a->str))
		return false;
	ast_walk_expr(e->b, elide_pure_fn, &p);
	return p.pure;
}

/* Does @s do nothing (absent, ';', or a block of those)? */
static bool elide_empty(const struct ast_stmt *s)
{
	unsigned i;

	if (!s || s->kind == AST_S_NULL)
		return true;
	if (s->kind != AST_S_BLOCK)
		return false;
	for (i = 0; i < s->body.n; i++)
		if (!elide_empty(s->body.v[i]))
			return false;
	return true;
}

/* Drop the dead assignments of @s; true when one was. */
static bool elide_stmt(struct sema_ctx *c, const struct elide_reads *r,
		       struct ast_stmt *s)
{
	bool any = false;
	unsigned i;

	if (!s)
		return false;
	if (elide_dead(c, r, s)) {
		s->kind = AST_S_NULL;
		s->e = NULL;
		return true;
	}
	any |= elide_stmt(c, r, s->s1);
	any |= elide_stmt(c, r, s->s2);
	for (i = 0; i < s->body.n; i++)
		any |= elide_stmt(c, r, s->body.v[i]);
	if (s->elidable && s->kind == AST_S_IF && elide_empty(s->s1) && elide_empty(s->s2)) {
		struct elide_pure p = { c, { 0 }, 0, true };

		/* "if (C) argstr = A else argstr = B" with argstr unused */
		ast_walk_expr(s->e, elide_pure_fn, &p);
		if (p.pure) {
			s->kind = AST_S_NULL;
			s->e = NULL;
			s->s1 = s->s2 = NULL;
			any = true;
		}
	}
	return any;
}

/* ---- an alias's "task = $p" ---- */

/* Reads of the local being replaced, and what replaces them. */
struct elide_subst {
	struct sema_ctx *c;
	const char *name;
	const struct ast_expr *by;
	bool seen;
};

static int elide_seen_fn(struct ast_expr *e, void *arg)
{
	struct elide_subst *sb = arg;

	if (e->kind == AST_VAR && !strcmp(e->str, sb->name))
		sb->seen = true;
	return 0;
}

static int elide_subst_fn(struct ast_expr *e, void *arg)
{
	struct elide_subst *sb = arg;
	struct src_span at = e->span;

	if (e->kind != AST_VAR || strcmp(e->str, sb->name) != 0)
		return 0;
	*e = *ast_clone_expr(sb->c->arena, sb->by);
	e->span = at;		/* a message about it points at the read */
	return 1;
}

/* Does @v[0..n) hold a read or a write of @name? */
static bool elide_mentions(struct elide_subst *sb, struct ast_stmt **v, unsigned n)
{
	unsigned i;

	sb->seen = false;
	for (i = 0; i < n && !sb->seen; i++)
		ast_walk_stmt(v[i], elide_seen_fn, sb);
	return sb->seen;
}

/*
 * An alias's "x = $target", the only write of the local x in the probe,
 * before any use of it: a target variable has one value during a run of
 * the probe, so every read of x reads $target itself, and the assignment
 * becomes dead (dropped below).  So on a tracepoint that records
 * $p->comm but not $p, scheduler.wakeup's "task = $p" does not stop
 * task_execname(task) from reading the recorded field (sema_spec.c);
 * a read of the address itself is an error at the script's read.
 */
static void elide_propagate(struct sema_ctx *c, struct sem_probe *sp)
{
	struct ast_stmt **v;
	unsigned n = sema_stmt_flatten(c->arena, sp->body, &v), i, j;

	for (i = 0; i < n; i++) {
		struct ast_expr *e = v[i]->e;
		struct elide_subst sb = { c, NULL, NULL, false };
		bool other = false;

		if (!v[i]->elidable || v[i]->kind != AST_S_EXPR || e->kind != AST_ASSIGN ||
		    e->op != AST_OP_SET || e->a->kind != AST_VAR || e->b->kind != AST_TARGET ||
		    sema_global(c, e->a->str))
			continue;
		sb.name = e->a->str;
		sb.by = e->b;
		ast_walk_expr(sp->cond, elide_seen_fn, &sb);
		if (sb.seen || elide_mentions(&sb, v, i))
			continue;	/* read before it is set */
		for (j = i + 1; j < n && !other; j++)
			other = sema_stmt_writes(v[j], sb.name);
		if (other)
			continue;
		for (j = i + 1; j < n; j++)
			ast_walk_stmt(v[j], elide_subst_fn, &sb);
	}
}

void sema_elide(struct sema_ctx *c, struct sem_probe *sp)
{
	bool again = true;

	elide_propagate(c, sp);

	/* Each round can free more: argstr reads the argument locals. */
	while (again) {
		struct elide_reads r = { c->arena, NULL, 0, 0 };

		ast_walk_stmt(sp->body, elide_reads_fn, &r);
		ast_walk_expr(sp->cond, elide_reads_fn, &r);
		again = elide_stmt(c, &r, sp->body);
	}
}

/* @e's value when it is logic of decided @defined()s (!, &&, ||), else
   -1.  A literal is not one: the tapset's "if (0) { ... }" types globals. */
static int el_const(const struct ast_expr *e)
{
	int a, b;

	if (!e)
		return -1;
	if (e->kind == AST_NUM)
		return e->str && !strcmp(e->str, "@defined") ? e->num != 0 : -1;
	if (e->kind == AST_UNARY && e->op == AST_OP_NOT)
		return (a = el_const(e->a)) < 0 ? -1 : !a;
	if (e->kind != AST_BINARY || (e->op != AST_OP_LAND && e->op != AST_OP_LOR))
		return -1;
	a = el_const(e->a);
	b = el_const(e->b);
	if (e->op == AST_OP_LAND)
		return a == 0 || b == 0 ? 0 : a < 0 || b < 0 ? -1 : 1;
	return a == 1 || b == 1 ? 1 : a < 0 || b < 0 ? -1 : 0;
}

void sema_prune_if(struct arena *a, struct ast_stmt *s)
{
	int v = el_const(s->e);

	if (v == 1)
		s->s2 = NULL;
	else if (v == 0)	/* an if has a then-branch: an empty one */
		s->s1 = ast_stmt_new(a, AST_S_BLOCK, s->s1 ? s->s1->span : s->span);
}
