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
 * assignment is the only definition reaching the read: made in the
 * handler (or a function copy specialised for the probe: sema_spec.c)
 * before the read in the order statements run, in the block holding the
 * read or one around it (so not in one branch of an if the read is not
 * in), with no other write to the variable between it and the read,
 * nor in the read's statement; a read in a loop's body sees an
 * assignment before the loop only when nothing in the loop writes the
 * variable (the next round would see that write), and one made earlier
 * in the body itself.  For a global, no user
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
#include "diag.h"

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

unsigned sema_stmt_flatten(struct arena *a, struct ast_stmt *s, struct ast_stmt ***v)
{
	struct vd_seq q = { .arena = a };

	vd_flatten(&q, s);
	*v = q.v;
	return q.n;
}

bool sema_stmt_writes(struct ast_stmt *s, const char *name)
{
	struct vd_scan sc = { name, NULL, false, false, false };

	vd_scan_stmt(&sc, s);
	return sc.writes;
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

/* The search for one use: its variable, whether a global. */
struct vd_find {
	struct arena *arena;
	const struct ast_expr *use;
	bool global;
};

/* What statement (or expression, @e) @s does to the variable. */
static struct vd_scan vd_scan_of(const struct vd_find *f, struct ast_stmt *s,
				 struct ast_expr *e)
{
	struct vd_scan sc = { .name = f->use->str, .use = f->use };

	if (s)
		vd_scan_stmt(&sc, s);
	else
		ast_walk_expr(e, vd_scan_fn, &sc);
	return sc;
}

static bool vd_spoils(const struct vd_find *f, const struct vd_scan *sc)
{
	return sc->writes || (f->global && sc->calls);
}

static struct ast_expr *vd_seq_def(const struct vd_find *f, struct ast_stmt *s,
				   struct ast_expr *def, bool *found);

/*
 * The definition reaching the use inside compound statement @s (which
 * holds it), @def reaching @s: an if's branch and a try's body see what
 * reaches the statement; a loop's body only when the loop writes the
 * variable nowhere (the next round would see the write), else only what
 * the body itself sets before the use.
 */
static struct ast_expr *vd_into(const struct vd_find *f, struct ast_stmt *s,
				struct ast_expr *def)
{
	struct vd_scan sc;
	bool found = false;

	switch (s->kind) {
	case AST_S_IF:
		sc = vd_scan_of(f, NULL, s->e);
		if (sc.found || vd_spoils(f, &sc))
			return sc.found && !vd_spoils(f, &sc) ? def : NULL;
		sc = vd_scan_of(f, s->s1, NULL);
		return vd_seq_def(f, sc.found ? s->s1 : s->s2, def, &found);
	case AST_S_TRY:
		sc = vd_scan_of(f, s->s1, NULL);
		if (sc.found)
			return vd_seq_def(f, s->s1, def, &found);
		return vd_seq_def(f, s->s2, vd_spoils(f, &sc) ? NULL : def, &found);
	case AST_S_WHILE:
	case AST_S_FOR:
	case AST_S_FOREACH: {
		struct ast_stmt *body = s->kind == AST_S_FOREACH ? s->fe->body : s->s1;

		sc = vd_scan_of(f, body, NULL);
		if (!sc.found)		/* in the condition or the steps */
			return NULL;
		sc = vd_scan_of(f, s, NULL);
		return vd_seq_def(f, body, vd_spoils(f, &sc) ? NULL : def, &found);
	}
	case AST_S_BLOCK:
		return vd_seq_def(f, s, def, &found);
	default:		/* the use's own statement */
		sc = vd_scan_of(f, s, NULL);
		return vd_spoils(f, &sc) ? NULL : def;
	}
}

/*
 * The definition reaching the use in statement @s run in order (a block
 * flattened), @def reaching @s's start; *@found when @s holds the use
 * (then the result is the use's definition, or NULL), else the
 * definition reaching @s's end.
 */
static struct ast_expr *vd_seq_def(const struct vd_find *f, struct ast_stmt *s,
				   struct ast_expr *def, bool *found)
{
	struct vd_seq q = { .arena = f->arena };
	unsigned i;

	vd_flatten(&q, s);
	for (i = 0; i < q.n; i++) {
		struct vd_scan sc = vd_scan_of(f, q.v[i], NULL);
		struct ast_expr *set;

		if (sc.found) {
			*found = true;
			return vd_into(f, q.v[i], def);
		}
		set = vd_plain_set(q.v[i], f->use->str);
		if (set && !(f->global && sc.calls))
			def = set;
		else if (vd_spoils(f, &sc))
			def = NULL;
	}
	return def;
}

struct ast_expr *sema_var_def(struct sema_ctx *c, const struct ast_expr *use)
{
	struct ast_stmt *body = c->func ? (c->func->site ? c->func->ast->body : NULL) :
			       c->probe ? c->probe->body : NULL;
	struct vd_find f = { c->arena, use, false };
	struct ast_expr *def;
	bool found = false;

	if (!body || use->kind != AST_VAR)
		return NULL;
	f.global = sema_global(c, use->str) != NULL;
	def = vd_seq_def(&f, body, NULL, &found);
	return found ? def : NULL;
}

/*
 * stap's autocast: 'p->member' on a script variable 'p' set from a typed
 * value (p = $r, p = &$q->key, p = @cast(a, "T")->next) has that value's
 * type.  ktap reads the member at the probe, so where the assignment is
 * the definition reaching the read (sema_var_def()), 'p->member' is the
 * typed expression with the member appended: $r->member,
 * $q->key->member, @cast(a, "T")->next->member.  The rewrite runs before
 * typing, on the expressions as written, so the copy is resolved as if
 * the script had spelled it out; any other '->' on a script value stays
 * an error at typing (sema_type.c).
 */
static bool vd_typed(const struct ast_expr *d)
{
	if (d->kind == AST_UNARY && d->op == AST_OP_ADDR)
		d = d->a;
	return (d->kind == AST_TARGET || d->kind == AST_CAST) && !d->chain.pretty;
}

static int vd_autocast_fn(struct ast_expr *e, void *arg)
{
	struct sema_ctx *c = arg;
	struct ast_expr *def, *n;
	unsigned i;

	if (e->kind != AST_AUTOCAST || e->a->kind != AST_VAR || !e->chain.n ||
	    !(def = sema_var_def(c, e->a)) || !vd_typed(def))
		return 0;
	/* (&X)->m is X's member m: the address of a struct, read as one */
	if (def->kind == AST_UNARY) {
		if (e->chain.v[0].is_index)
			return 0;
		def = def->a;
	}
	n = ast_clone_expr(c->arena, def);
	for (i = 0; i < e->chain.n; i++) {
		const struct ast_comp *k = &e->chain.v[i];

		if (k->is_index)
			ast_chain_index(c->arena, &n->chain, k->index, k->span);
		else
			ast_chain_member(c->arena, &n->chain, k->name, k->span);
	}
	n->chain.pretty = e->chain.pretty;
	n->span = e->span;
	if (!sema_autocast_read(c, e->a->str)) {
		c->autocast = arena_grow(c->arena, c->autocast, c->nautocast, &c->accap,
					 sizeof(*c->autocast));
		c->autocast[c->nautocast++] = e->a->str;
	}
	*e = *n;
	return 0;
}

bool sema_autocast_read(const struct sema_ctx *c, const char *name)
{
	unsigned i;

	for (i = 0; i < c->nautocast; i++)
		if (!strcmp(c->autocast[i], name))
			return true;
	return false;
}

void sema_autocast(struct sema_ctx *c, struct sem_probe *sp)
{
	struct sem_probe *saved = c->probe;

	c->nautocast = 0;
	c->probe = sp;
	ast_walk_stmt(sp->body, vd_autocast_fn, c);
	c->probe = saved;
}

/* '->' on a script value that sema_autocast() could not type. */
enum sem_type sema_autocast_error(struct sema_ctx *c, struct ast_expr *e)
{
	const char *all = ast_expr_text(c->arena, e), *base = ast_expr_text(c->arena, e->a);
	size_t n = strlen(base);
	unsigned errors = c->diag->errors;

	c->type_expr(c, e->a);		/* its own errors first, and alone */
	if (c->diag->errors > errors)
		return SEM_UNKNOWN;
	sema_err(c, e->span, "%s: '->' on a script value needs the value's type, which ktap "
		 "knows only for a variable set from a typed value (a target variable, "
		 "&$p->member, @cast()) earlier in the same probe, with no other write to it "
		 "in between; or write @cast(%s, \"TYPE\")%s",
		 all, base, strncmp(all, base, n) ? "->MEMBER" : all + n);
	return SEM_UNKNOWN;
}
