/*
 * sema_elide.c - pass 2: stap's elision of what has no effect.
 *
 * As stap's optimizer does before it types the program (and as -u turns
 * off), a statement that only assigns a local nothing reads loses its
 * assignment, an expression statement free of side effects goes, and
 * so do an if, a loop or a foreach left with nothing to run and a
 * condition free of side effects.  Functions only such statements
 * called are then never typed.  So a probe alias's argstr nobody prints
 * is never computed, a variable that would need something this kernel
 * cannot do (a user string on a tracepoint) is only an error when the
 * script reads it, and stap's scripts that count on the optimizer to
 * drop a local statistic or an ill-typed expression nobody uses
 * (testsuite semok/three, optimize) elaborate.  The script's own
 * elided statements draw a warning, as in stap; the tapset's and the
 * aliases' go silently.
 */
#include "sema_int.h"
#include "ast_walk.h"
#include "arena.h"
#include "diag.h"

#include <stdlib.h>
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

	/* "x = e" and "x <<< e" write x without reading it: look only at e. */
	if (e->kind == AST_ASSIGN && (e->op == AST_OP_SET || e->op == AST_OP_STAT_ADD) &&
	    e->a && e->a->kind == AST_VAR) {
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
	bool user;		/* of a statement the script wrote */
};

static bool elide_func_pure(struct elide_pure *p, const struct ast_func *f);

/* The tapset's marker of what this kernel cannot have: "__ktap_missing(
   VAR, WHY)" (__ktap_missing_str() for a string) alone is an error of
   the probe (sema_check.c), its effect; "x = __ktap_missing(...)" one
   only when x is read. */
static bool elide_marker(const struct ast_expr *e)
{
	return e->kind == AST_CALL && sema_is_missing_marker(e->str);
}

/* Are the functions @e calls pure?  A call of the script's with no
   function, builtin or memory reader of its name and arity is not: it
   stays for pass 2 to report (stap resolves names before it elides). */
static bool elide_call_pure(struct elide_pure *p, const struct ast_expr *e)
{
	bool named = false, found = false;
	unsigned i;
	int id;

	if (elide_marker(e))
		return p->pure = false;
	if (sema_current_call(p->c, e))	/* task_current(): an address, read */
		return p->pure;

	for (i = 0; i < p->c->nfdecls && p->pure; i++)
		if (!strcmp(p->c->fdecls[i]->name, e->str)) {
			named = true;
			if (p->c->fdecls[i]->nparams != e->args.n)
				continue;
			found = true;
			elide_func_pure(p, p->c->fdecls[i]);
		}
	id = sema_builtin(e->str);
	if (found || (named && id < 0)) {
		if (!found)
			p->pure = false;
		return p->pure;
	}
	if (id >= 0 ? sema_builtin_has_side_effects(id) :
	    p->user && !(sema_mem_arities(e->str) & (1u << e->args.n)))
		p->pure = false;
	return p->pure;
}

static int elide_pure_fn(struct ast_expr *e, void *arg)
{
	struct elide_pure *p = arg;

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
		/* builtins without side effects: user_string() and friends */
		return elide_call_pure(p, e) ? 0 : -1;
	case AST_INDEX:
	case AST_IN:
		/* kept for typing to say it, as stap checks before it elides:
		   "if (4 in foo) {}" of a scalar foo is an error (semko/ten) */
		if (e->a->kind != AST_VAR || !sema_global(p->c, e->a->str) ||
		    sema_global(p->c, e->a->str)->shape_use != 3)
			return 0;
		p->pure = false;
		return -1;
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

/* Did the user write @s (the script, -E scripts, their @includes),
   not the tapset? */
static bool elide_written(const struct sema_ctx *c, const struct ast_stmt *s)
{
	unsigned i;

	for (i = 0; i < c->in->nlibrary; i++)
		if (c->in->library[i]->file == s->span.file)
			return false;
	return true;
}

/* A statement the user wrote (not an alias's, not what is left of an
   assignment already warned about): stap warns. */
static bool elide_user(const struct sema_ctx *c, const struct ast_stmt *s)
{
	return !s->elidable && elide_written(c, s);
}

/* Are the expressions @e of @s (NULL ones left out) free of side effects? */
static bool elide_pure3(struct sema_ctx *c, const struct ast_stmt *s, struct ast_expr *e,
			struct ast_expr *e2, struct ast_expr *e3)
{
	struct elide_pure p = { c, { 0 }, 0, true, elide_written(c, s) };

	ast_walk_expr(e, elide_pure_fn, &p);
	ast_walk_expr(e2, elide_pure_fn, &p);
	ast_walk_expr(e3, elide_pure_fn, &p);
	return p.pure;
}

/* Note an elision of the script's own for sema_elide_warn(). */
static void elide_said(struct sema_ctx *c, struct src_span at, const char *name)
{
	c->elided = arena_grow(c->arena, c->elided, c->nelided, &c->elcap, sizeof(*c->elided));
	c->elided[c->nelided].at = at;
	c->elided[c->nelided++].name = name;
}

static int elide_said_cmp(const void *a, const void *b)
{
	const struct sema_elided *x = a, *y = b;

	if (x->at.file != y->at.file)
		return x->at.file < y->at.file ? -1 : 1;
	return x->at.start < y->at.start ? -1 : x->at.start > y->at.start;
}

void sema_elide_warn(struct sema_ctx *c)
{
	unsigned i;

	/* in the script's order (functions are elided after the probes) */
	if (c->nelided)	/* (qsort of NULL: undefined, even for none) */
		qsort(c->elided, c->nelided, sizeof(*c->elided), elide_said_cmp);

	for (i = 0; i < c->nelided; i++)
		if (c->elided[i].name)
			diag_warning(c->diag, c->elided[i].at, "eliding assignment to '%s': "
				     "nothing reads it", c->elided[i].name);
		else
			diag_warning(c->diag, c->elided[i].at, "eliding side-effect-free expression");
}

/* Is @e "x = v" or "x <<< v" of a local x nobody reads? */
static bool elide_dead(struct sema_ctx *c, const struct elide_reads *r,
		       const struct ast_expr *e)
{
	return e && e->kind == AST_ASSIGN && (e->op == AST_OP_SET || e->op == AST_OP_STAT_ADD) &&
	       e->a->kind == AST_VAR && !elide_is_read(r, e->a->str) &&
	       !sema_global(c, e->a->str);
}

/* Assignments of the locals nobody reads, anywhere in a statement's
   expressions ("if (i = j)"), become their right-hand sides. */
struct elide_assign {
	struct sema_ctx *c;
	const struct elide_reads *r;
	bool warn;		/* the script's own statement */
	bool any;
};

static int elide_assign_fn(struct ast_expr *e, void *arg)
{
	struct elide_assign *d = arg;

	while (elide_dead(d->c, d->r, e)) {
		if (d->warn && !sema_autocast_read(d->c, e->a->str))
			elide_said(d->c, e->a->span, e->a->str);
		if (elide_marker(e->b))	/* x unread: no error */
			*e = *ast_num(d->c->arena, 0, e->span);
		else
			*e = *e->b;
		d->any = true;
	}
	return 0;
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

/* Does @s now do nothing that needs running: an if or a loop with
   nothing to run and conditions free of side effects, a foreach with
   nothing to run (stap's: its limit is not looked at)? */
static bool elide_idle(struct sema_ctx *c, const struct ast_stmt *s)
{
	switch (s->kind) {
	case AST_S_IF:
		return elide_empty(s->s1) && elide_empty(s->s2) &&
		       elide_pure3(c, s, s->e, NULL, NULL);
	case AST_S_WHILE:
	case AST_S_FOR:
		return elide_empty(s->s1) && elide_pure3(c, s, s->e, s->e2, s->e3);
	case AST_S_FOREACH:
		return elide_empty(s->fe->body);
	default:
		return false;
	}
}

static void elide_null(struct ast_stmt *s)
{
	s->kind = AST_S_NULL;
	s->e = s->e2 = s->e3 = NULL;
	s->s1 = s->s2 = NULL;
	s->fe = NULL;
}

/* Drop from @s what has no effect; true when something was.  Inside a
   try block (@in_try) an expression stays: its error is what the catch
   is there for (try { fp_to_long(x, 0, 1) } catch (e) ...). */
static bool elide_stmt(struct sema_ctx *c, const struct elide_reads *r,
		       struct ast_stmt *s, bool in_try)
{
	bool any = false;
	unsigned i, n;

	if (!s)
		return false;
	if (s->e || s->e2 || s->e3) {
		struct elide_assign d = { c, r, elide_user(c, s), false };
		bool top = s->kind == AST_S_EXPR && elide_dead(c, r, s->e);

		ast_walk_expr(s->e, elide_assign_fn, &d);
		ast_walk_expr(s->e2, elide_assign_fn, &d);
		ast_walk_expr(s->e3, elide_assign_fn, &d);
		if (top)	/* what is left runs for its effects, if any */
			s->elidable = true;
		if (d.any)
			return true;
	}
	if (s->kind == AST_S_EXPR && !in_try && elide_pure3(c, s, s->e, NULL, NULL)) {
		if (elide_user(c, s))
			elide_said(c, s->e->span, NULL);
		elide_null(s);
		return true;
	}
	any |= elide_stmt(c, r, s->s1, in_try || s->kind == AST_S_TRY);
	any |= elide_stmt(c, r, s->s2, in_try);
	for (i = n = 0; i < s->body.n; i++) {
		any |= elide_stmt(c, r, s->body.v[i], in_try);
		if (s->body.v[i]->kind != AST_S_NULL)
			s->body.v[n++] = s->body.v[i];
	}
	s->body.n = n;
	if (s->fe)
		any |= elide_stmt(c, r, s->fe->body, in_try);
	if (elide_idle(c, s)) {
		elide_null(s);
		any = true;
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

/* ---- @probewrite(x) ---- */

/* Does a statement of the user's handler in @s (the statements no alias
   brought: not elidable; blocks join them to the aliases') write @name? */
static bool elide_user_writes(struct ast_stmt *s, const char *name)
{
	unsigned i;

	if (!s)
		return false;
	if (!s->elidable && s->kind != AST_S_BLOCK)
		return sema_stmt_writes(s, name);
	if (elide_user_writes(s->s1, name) || elide_user_writes(s->s2, name) ||
	    (s->fe && elide_user_writes(s->fe->body, name)))
		return true;
	for (i = 0; i < s->body.n; i++)
		if (elide_user_writes(s->body.v[i], name))
			return true;
	return false;
}

struct elide_pw {
	struct sema_ctx *c;
	struct sem_probe *sp;
};

static int elide_probewrite_fn(struct ast_expr *e, void *arg)
{
	struct elide_pw *w = arg;

	if (e->kind != AST_PROBEWRITE)
		return 0;
	if (e->a->kind != AST_VAR) {
		diag_error(w->c->diag, e->a->span, "@probewrite() takes a variable's name");
		*e = *ast_num(w->c->arena, 0, e->span);
		return 1;
	}
	*e = *ast_num(w->c->arena, elide_user_writes(w->sp->body, e->a->str), e->span);
	return 1;
}

void sema_probewrite(struct sema_ctx *c, struct sem_probe *sp)
{
	struct elide_pw w = { c, sp };

	ast_walk_stmt(sp->body, elide_probewrite_fn, &w);
	ast_walk_expr(sp->cond, elide_probewrite_fn, &w);
}

/* ---- globals used both as scalars and as arrays ---- */

static void elide_shape_stmt(struct sema_ctx *c, struct ast_stmt *s);

static void elide_shape_mark(struct sema_ctx *c, const char *name, unsigned char use)
{
	struct sem_sym *g = sema_global(c, name);

	if (g)
		g->shape_use |= use;
}

static int elide_shape_fn(struct ast_expr *e, void *arg)
{
	struct sema_ctx *c = arg;
	unsigned i;

	if ((e->kind == AST_INDEX || e->kind == AST_IN) && e->a->kind == AST_VAR) {
		elide_shape_mark(c, e->a->str, 2);
		for (i = 0; i < e->args.n; i++)
			ast_walk_expr(e->args.v[i], elide_shape_fn, c);
		return 1;
	}
	if (e->kind == AST_VAR)
		elide_shape_mark(c, e->str, 1);
	return 0;
}

static void elide_shape_stmt(struct sema_ctx *c, struct ast_stmt *s)
{
	struct ast_foreach *fe;
	unsigned i;

	if (!s)
		return;
	ast_walk_expr(s->e, elide_shape_fn, c);
	ast_walk_expr(s->e2, elide_shape_fn, c);
	ast_walk_expr(s->e3, elide_shape_fn, c);
	elide_shape_stmt(c, s->s1);
	elide_shape_stmt(c, s->s2);
	for (i = 0; i < s->body.n; i++)
		elide_shape_stmt(c, s->body.v[i]);
	if ((fe = s->fe) == NULL)
		return;
	if (fe->array->kind == AST_VAR)
		elide_shape_mark(c, fe->array->str, 2);
	else
		ast_walk_expr(fe->array, elide_shape_fn, c);
	for (i = 0; i < fe->slice.n; i++)
		ast_walk_expr(fe->slice.v[i], elide_shape_fn, c);
	ast_walk_expr(fe->limit, elide_shape_fn, c);
	elide_shape_stmt(c, fe->body);
}

/* Before anything is elided: which globals the program uses both ways
   (typing says so, so what uses them must stay to be typed). */
void sema_elide_shapes(struct sema_ctx *c)
{
	unsigned i;

	for (i = 0; i < c->prog->nprobes; i++) {
		elide_shape_stmt(c, c->prog->probes[i]->body);
		ast_walk_expr(c->prog->probes[i]->cond, elide_shape_fn, c);
	}
	for (i = 0; i < c->nfdecls; i++)
		elide_shape_stmt(c, c->fdecls[i]->body);
}

/* Elide in @body (and read @cond) until nothing more goes: each round
   can free more (argstr reads the argument locals). */
static void elide_body(struct sema_ctx *c, struct ast_stmt *body, struct ast_expr *cond)
{
	bool again = true;

	while (again) {
		struct elide_reads r = { c->arena, NULL, 0, 0 };

		ast_walk_stmt(body, elide_reads_fn, &r);
		ast_walk_expr(cond, elide_reads_fn, &r);
		again = elide_stmt(c, &r, body, false);
	}
}

void sema_elide(struct sema_ctx *c, struct sem_probe *sp)
{
	elide_propagate(c, sp);
	elide_body(c, sp->body, sp->cond);
}

/* The names called anywhere in the probes and the functions. */
static int elide_calls_fn(struct ast_expr *e, void *arg)
{
	struct elide_reads *r = arg;

	if (e->kind == AST_CALL && !elide_is_read(r, e->str)) {
		r->v = arena_grow(r->arena, r->v, r->n, &r->cap, sizeof(*r->v));
		r->v[r->n++] = e->str;
	}
	return 0;
}

/* ---- arguments of parameters nobody reads ---- */

/* The calls of script functions in the program, to look at their arguments. */
struct elide_calls {
	struct arena *arena;
	struct ast_expr **v;
	unsigned n;
	size_t cap;
};

static int elide_collect_fn(struct ast_expr *e, void *arg)
{
	struct elide_calls *k = arg;

	if (e->kind == AST_CALL) {
		k->v = arena_grow(k->arena, k->v, k->n, &k->cap, sizeof(*k->v));
		k->v[k->n++] = e;
	}
	return 0;
}

/* Only literals, operators and calls: a variable, a target or an
   @-operator stays for pass 2 to see (its errors, what it reads). */
static int elide_arg_kinds_fn(struct ast_expr *e, void *arg)
{
	int *calls = arg;

	switch (e->kind) {
	case AST_CALL:
		++*calls;
		return 0;
	case AST_NUM: case AST_STR: case AST_UNARY: case AST_BINARY: case AST_TERNARY:
		return 0;
	default:
		*calls = -1000;
		return -1;
	}
}

/* Is argument @e worth not computing: of the kinds above with a call
   in it (a literal costs nothing), free of side effects? */
static bool elide_arg_droppable(struct sema_ctx *c, struct ast_expr *e)
{
	struct elide_pure p = { c, { 0 }, 0, true, true };
	int calls = 0;

	ast_walk_expr(e, elide_arg_kinds_fn, &calls);
	if (calls > 0)
		ast_walk_expr(e, elide_pure_fn, &p);
	return calls > 0 && p.pure;
}

/* The one function of @f's name and arity (none when overloaded). */
static bool elide_unique(const struct sema_ctx *c, const struct ast_func *f)
{
	unsigned i, n = 0;

	for (i = 0; i < c->nfdecls; i++)
		n += !strcmp(c->fdecls[i]->name, f->name) && c->fdecls[i]->nparams == f->nparams;
	return n == 1;
}

/* Does @f's body read or write parameter @k? */
static bool elide_param_used(const struct ast_func *f, unsigned k)
{
	struct elide_subst sb = { NULL, f->params[k].name, NULL, false };
	struct ast_stmt *body = f->body;

	return elide_mentions(&sb, &body, 1);
}

/* Is @e a call of @f? */
static bool elide_calls_f(const struct ast_expr *e, const struct ast_func *f)
{
	return !strcmp(e->str, f->name) && e->args.n == f->nparams;
}

/* The arguments of parameter @p in the calls @k of @f, when each is a
   literal or droppable: the droppable ones become a literal, "" where
   the parameter is a string (declared, or a literal argument says). */
static void elide_unread_args(struct sema_ctx *c, const struct elide_calls *k,
			      const struct ast_func *f, unsigned p)
{
	bool str = f->params[p].type == AST_TYPE_STRING;
	unsigned j;

	for (j = 0; j < k->n; j++) {
		const struct ast_expr *a;

		if (!elide_calls_f(k->v[j], f))
			continue;
		a = k->v[j]->args.v[p];
		if (a->kind == AST_STR || a->kind == AST_NUM)
			str |= a->kind == AST_STR;
		else if (!elide_arg_droppable(c, k->v[j]->args.v[p]))
			return;
	}
	for (j = 0; j < k->n; j++) {
		struct ast_expr *a;

		if (!elide_calls_f(k->v[j], f))
			continue;
		a = k->v[j]->args.v[p];
		if (a->kind != AST_STR && a->kind != AST_NUM)
			k->v[j]->args.v[p] = str ? ast_str(c->arena, "", 0, a->span) :
						   ast_num(c->arena, 0, a->span);
	}
}

/*
 * A parameter its function never mentions (task_dentry_path()'s task,
 * kept for stap's signature): when the argument of every call is free
 * of side effects, none is computed, it is 0 ("" for a string
 * parameter).  So task_dentry_path(task_current(), ...) in a kprobe
 * fetches no 'current'.  Every call or none, so that the parameter's
 * type, which only its arguments give, is the same at each.
 */
static void elide_unread_params(struct sema_ctx *c)
{
	struct elide_calls k = { c->arena, NULL, 0, 0 };
	unsigned i, p;

	for (i = 0; i < c->prog->nprobes; i++) {
		ast_walk_stmt(c->prog->probes[i]->body, elide_collect_fn, &k);
		ast_walk_expr(c->prog->probes[i]->cond, elide_collect_fn, &k);
	}
	for (i = 0; i < c->nfdecls; i++)
		ast_walk_stmt(c->fdecls[i]->body, elide_collect_fn, &k);
	for (i = 0; i < c->nfdecls; i++) {
		const struct ast_func *f = c->fdecls[i];

		/* __ktap_missing(VAR, WHY)'s arguments are its message */
		if (!f->body || !elide_unique(c, f) || sema_is_missing_marker(f->name))
			continue;
		for (p = 0; p < f->nparams; p++)
			if (!elide_param_used(f, p))
				elide_unread_args(c, &k, f, p);
	}
}

void sema_elide_funcs(struct sema_ctx *c)
{
	struct elide_reads called = { c->arena, NULL, 0, 0 };
	unsigned i;

	for (i = 0; i < c->prog->nprobes; i++) {
		ast_walk_stmt(c->prog->probes[i]->body, elide_calls_fn, &called);
		ast_walk_expr(c->prog->probes[i]->cond, elide_calls_fn, &called);
	}
	for (i = 0; i < c->nfdecls; i++)
		ast_walk_stmt(c->fdecls[i]->body, elide_calls_fn, &called);
	/* a function nobody calls is never typed: stap drops it unlooked at */
	for (i = 0; i < c->nfdecls; i++)
		if (c->fdecls[i]->body && elide_is_read(&called, c->fdecls[i]->name))
			elide_body(c, c->fdecls[i]->body, NULL);
	elide_unread_params(c);
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
