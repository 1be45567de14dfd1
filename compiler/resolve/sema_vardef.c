/*
 * sema_vardef.c - the fetchable expression a variable was set from.
 *
 * ktap reads memory only at the probe, through the kernel's fetch
 * arguments: an address the kernel can compute there (a target
 * variable, a @cast() chain).  Scripts often name such an address
 * first and read through the name later in the same handler:
 *
 *   r = $r;  ...  println(@cast(r, "struct req")->id)
 *
 * The value of 'r' at the read is exactly $r at the probe when the
 * assignment is the only definition reaching the read: made on the
 * handler's (or a function copy specialised for the probe's: sema_spec.c)
 * straight-line path (not inside an if, a loop, a try),
 * with no other write to the variable between it and the statement
 * holding the read, nor in that statement.  For a global, no user
 * function may be called in between either (it could write the
 * global); other probes cannot run inside a handler.  Then the read
 * can use the assignment's right-hand side instead, and both are the
 * value at the probe.  Anything else stays an error (sema_target.c
 * says why): ktap never reads memory after the fact.
 */
#include "sema_int.h"

#include <string.h>

#include "arena.h"
#include "ast_walk.h"

/* The statements a handler runs in order, blocks flattened. */
struct vd_seq {
	struct ast_stmt **v;
	unsigned n;
	size_t cap;
	struct arena *arena;
};

static void vd_flatten(struct vd_seq *q, struct ast_stmt *s)
{
	unsigned i;

	if (!s)
		return;
	if (s->kind == AST_S_BLOCK) {
		for (i = 0; i < s->body.n; i++)
			vd_flatten(q, s->body.v[i]);
		return;
	}
	q->v = arena_grow(q->arena, q->v, q->n, &q->cap, sizeof(*q->v));
	q->v[q->n++] = s;
}

/* What a statement does to the variable named @name. */
struct vd_scan {
	const char *name;
	const struct ast_expr *use;	/* found: the statement holds it */
	bool found;
	bool writes;			/* assigns, increments or deletes it */
	bool calls;			/* calls a function of the script or tapset */
};

static bool vd_names(const struct ast_expr *e, const char *name)
{
	if (e && e->kind == AST_INDEX)
		e = e->a;
	return e && e->kind == AST_VAR && !strcmp(e->str, name);
}

static int vd_scan_fn(struct ast_expr *e, void *arg)
{
	struct vd_scan *sc = arg;

	if (e == sc->use)
		sc->found = true;
	if ((e->kind == AST_ASSIGN || e->kind == AST_INCDEC) && vd_names(e->a, sc->name))
		sc->writes = true;
	if (e->kind == AST_CALL && sema_builtin(e->str) < 0)
		sc->calls = true;
	return 0;
}

/* foreach and delete write variables outside any expression. */
static void vd_scan_stmt(struct vd_scan *sc, struct ast_stmt *s)
{
	unsigned i;

	if (!s)
		return;
	if (s->kind == AST_S_DELETE && vd_names(s->e, sc->name))
		sc->writes = true;
	if (s->kind == AST_S_FOREACH) {
		struct ast_foreach *fe = s->fe;

		if (vd_names(fe->value, sc->name))
			sc->writes = true;
		for (i = 0; i < fe->keys.n; i++)
			if (vd_names(fe->keys.v[i], sc->name))
				sc->writes = true;
		ast_walk_expr(fe->array, vd_scan_fn, sc);
		ast_walk_expr(fe->limit, vd_scan_fn, sc);
		for (i = 0; i < fe->slice.n; i++)
			ast_walk_expr(fe->slice.v[i], vd_scan_fn, sc);
		vd_scan_stmt(sc, fe->body);
		return;
	}
	ast_walk_expr(s->e, vd_scan_fn, sc);
	ast_walk_expr(s->e2, vd_scan_fn, sc);
	ast_walk_expr(s->e3, vd_scan_fn, sc);
	vd_scan_stmt(sc, s->s1);
	vd_scan_stmt(sc, s->s2);
	for (i = 0; i < s->body.n; i++)
		vd_scan_stmt(sc, s->body.v[i]);
}

/* 'name = EXPR' as a statement of its own: its EXPR, else NULL. */
static struct ast_expr *vd_plain_set(const struct ast_stmt *s, const char *name)
{
	const struct ast_expr *e = s->e;

	if (s->kind != AST_S_EXPR || !e || e->kind != AST_ASSIGN || e->op != AST_OP_SET ||
	    !e->a || e->a->kind != AST_VAR || strcmp(e->a->str, name) != 0)
		return NULL;
	return e->b;
}

struct ast_expr *sema_var_def(struct sema_ctx *c, const struct ast_expr *use)
{
	struct vd_seq q = { .arena = c->arena };
	struct ast_expr *def = NULL;
	bool global;
	unsigned i;

	struct ast_stmt *body = c->func ? (c->func->site ? c->func->ast->body : NULL) :
			       c->probe ? c->probe->body : NULL;

	if (!body || use->kind != AST_VAR)
		return NULL;
	global = sema_global(c, use->str) != NULL;
	vd_flatten(&q, body);
	for (i = 0; i < q.n; i++) {
		struct vd_scan sc = { .name = use->str, .use = use };
		struct ast_expr *set;

		vd_scan_stmt(&sc, q.v[i]);
		if (sc.found)
			return sc.writes || (global && sc.calls) ? NULL : def;
		set = vd_plain_set(q.v[i], use->str);
		if (set && !(global && sc.calls))
			def = set;
		else if (sc.writes || (global && sc.calls))
			def = NULL;
	}
	return NULL;
}
