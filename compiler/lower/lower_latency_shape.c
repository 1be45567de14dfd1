/*
 * lower_latency_shape.c - pass 3: the latency pairs' shapes in the
 * handlers (lower_latency.c's header has them and their rules).
 *
 * In: the elaborated program and lower_guard.c's guards.  Out: the
 * pairs, with their keys read through alias prologues, their clocks,
 * divisor and statistic keys, and a reason when a start's condition
 * keeps the pair in user space.  Whether a pair can run in the kernel
 * is lower_latency.c's decision.
 */
#define _GNU_SOURCE
#include "lower_latency.h"
#include "arena.h"
#include "resolve_tpfmt.h"

#include <string.h>

#define LL_MAX_FLAT 24			/* statements of a handler, blocks opened */
#define LL_MAX_BIND 16			/* alias locals bound in a handler */

/* "local = $field" and the like: an alias's prologue (scheduler.wakeup's
   task_tid = $pid), which the shape reads through. */
struct ll_binds {
	const struct sem_sym *sym[LL_MAX_BIND];
	const struct ast_expr *e[LL_MAX_BIND];
	unsigned n;
};

/* ---- the handlers' shapes ---- */

/* @s without its enclosing one-statement blocks. */
static const struct ast_stmt *ll_single(const struct ast_stmt *s)
{
	while (s && s->kind == AST_S_BLOCK && s->body.n == 1)
		s = s->body.v[0];
	return s;
}

/* Is @s an "if (C) next" guard? */
static bool ll_is_guard(const struct ast_stmt *s)
{
	const struct ast_stmt *t = ll_single(s->s1);

	return s->kind == AST_S_IF && !s->s2 && t && t->kind == AST_S_NEXT;
}

/* @s's statements with its blocks opened and ";" dropped (an alias's
   prologue is a block of its own); the count, which may exceed @max. */
static unsigned ll_flat(const struct ast_stmt *s, const struct ast_stmt **v, unsigned n,
			unsigned max)
{
	unsigned k;

	if (!s || s->kind == AST_S_NULL)
		return n;
	if (s->kind != AST_S_BLOCK) {
		if (n < max)
			v[n] = s;
		return n + 1;
	}
	for (k = 0; k < s->body.n; k++)
		n = ll_flat(s->body.v[k], v, n, max);
	return n;
}

/* Is @e free of side effects and cheap: a field, a constant, tid(),
   pid() or execname()? */
static bool ll_pure(const struct ast_expr *e)
{
	if (e->kind == AST_NUM || e->kind == AST_STR)
		return true;
	if (e->kind == AST_TARGET)
		return e->ref >= 0 && !e->chain.n && !e->chain.mem;
	return e->kind == AST_CALL && e->ref < 0 && !e->args.n &&
	       (-e->ref - 1 == IR_BI_TID || -e->ref - 1 == IR_BI_PID ||
		-e->ref - 1 == IR_BI_EXECNAME);
}

/* Is @s "local = PURE"?  Then it is bound in @b. */
static bool ll_bind(const struct ast_stmt *s, struct ll_binds *b)
{
	const struct ast_expr *e = s->kind == AST_S_EXPR ? s->e : NULL;

	if (!e || e->kind != AST_ASSIGN || e->op != AST_OP_SET || e->a->kind != AST_VAR ||
	    !e->a->sym || e->a->sym->kind != SEM_LOCAL || !ll_pure(e->b) ||
	    b->n == LL_MAX_BIND)
		return false;
	b->sym[b->n] = e->a->sym;
	b->e[b->n++] = e->b;
	return true;
}

/* @e with an alias local replaced by what the prologue bound it to. */
static const struct ast_expr *ll_resolve(const struct ll_binds *b, const struct ast_expr *e)
{
	unsigned i;

	if (e->kind != AST_VAR || !e->sym || e->sym->kind != SEM_LOCAL)
		return e;
	for (i = b->n; i-- > 0;)	/* the last binding wins */
		if (b->sym[i] == e->sym)
			return b->e[i];
	return e;
}

/*
 * The one statement of probe @i's handler after its alias prologue
 * (bound in @b) and leading guards, or NULL when there are more or a
 * guard has no kernel filter.
 */
static const struct ast_stmt *ll_body(const struct lw_ctx *c, unsigned i, struct ll_binds *b,
				      bool entry)
{
	const struct sem_probe *p = c->sp->probes[i];
	const struct lw_probe_guards *g = &c->guards[i];
	const struct ast_stmt *v[LL_MAX_FLAT], *one = NULL;
	unsigned k, n;

	b->n = 0;
	for (k = 0; k < g->n; k++)	/* the wrap's "K in t": ll_end() checks it */
		if (!g->v[k].filter && (!g->wrap || g->v[k].origin != g->wrap))
			return NULL;
	if (entry ? p->nentries != 1 || !p->event->dyn_entry : p->nentries || p->event->dyn_entry)
		return NULL;
	if ((n = ll_flat(p->body, v, 0, LL_MAX_FLAT)) > LL_MAX_FLAT)
		return NULL;
	for (k = 0; k < n; k++) {
		if (one)
			return NULL;
		if (ll_bind(v[k], b) || ll_is_guard(v[k]))
			continue;
		one = v[k];
	}
	return ll_single(one);
}

/* The kernel filter of probe @i's guards and ktap's own-pid clause. */
const char *lw_lat_filter(struct lw_ctx *c, unsigned i)
{
	const struct sem_probe *p = c->sp->probes[i];
	const char *own = lw_own_pid_ev(p->event), *f = NULL;
	unsigned k;

	for (k = 0; k < c->guards[i].n; k++) {
		const struct lw_guard *g = &c->guards[i].v[k];

		if (c->guards[i].wrap && g->origin == c->guards[i].wrap)
			continue;	/* the pair's own "K in t" */
		if (!*g->filter)
			continue;	/* true for every event */
		f = !f ? g->filter : arena_printf(c->arena, "%s && %s", f, g->filter);
	}
	return f ? arena_printf(c->arena, "(%s) && %s", f, own) : own;
}

/*
 * The value of condition @e where it is known at compile time: 1 or 0,
 * else -1.  target() is 0 all run without -c and -x; || and && stop
 * where the script's do, so what they skip is never evaluated.
 */
static int ll_fold(const struct lower_options *opt, const struct ast_expr *e)
{
	int x;

	switch (e->kind) {
	case AST_NUM:
		return e->num != 0;
	case AST_CALL:
		return e->ref < 0 && !e->args.n && -e->ref - 1 == IR_BI_TARGET &&
		       opt->target_zero ? 0 : -1;
	case AST_UNARY:
		if (e->op != AST_OP_NOT || (x = ll_fold(opt, e->a)) < 0)
			return -1;
		return !x;
	case AST_BINARY:
		if (e->op != AST_OP_LOR && e->op != AST_OP_LAND)
			return -1;
		x = ll_fold(opt, e->a);
		if (x < 0 || x == (e->op == AST_OP_LOR))
			return x;
		return ll_fold(opt, e->b);
	default:
		return -1;
	}
}

/* The clock @e reads (IR_BI_*), or -1. */
static int ll_clock(const struct ast_expr *e)
{
	int id = e && e->kind == AST_CALL && e->ref < 0 && !e->args.n ? -e->ref - 1 : -1;

	switch (id) {
	case IR_BI_GETTIMEOFDAY_NS: case IR_BI_LOCAL_CLOCK_NS: case IR_BI_GETTIMEOFDAY_US:
	case IR_BI_GETTIMEOFDAY_MS: case IR_BI_GETTIMEOFDAY_S:
		return id;
	default:
		return -1;
	}
}

/* The global array @e (VAR or INDEX with one key) names, or NULL. */
const struct sem_sym *lw_lat_array(const struct ast_expr *e)
{
	const struct sem_sym *s = e ? e->sym : NULL;

	if (!s && e && (e->kind == AST_INDEX || e->kind == AST_IN) && e->a)
		s = e->a->sym;
	return s && s->kind == SEM_GLOBAL ? s : NULL;
}

/* @s is "t[K] = CLOCK()" with t the pair's @start: K (resolved) and the
   clock into start @n of @l. */
static bool ll_start_set(const struct ast_stmt *s, const struct ll_binds *b, struct ll_pair *l,
			 unsigned n)
{
	const struct ast_expr *e = s && s->kind == AST_S_EXPR ? s->e : NULL;
	const struct sem_sym *t;

	if (!e || e->kind != AST_ASSIGN || e->op != AST_OP_SET ||
	    e->a->kind != AST_INDEX || e->a->args.n != 1 || ll_clock(e->b) < 0 ||
	    !(t = lw_lat_array(e->a)) || t->type != SEM_LONG || t->slot != l->start)
		return false;
	l->ka[n] = ll_resolve(b, e->a->args.v[0]);
	l->ca[n] = ll_clock(e->b);
	return true;
}

/* probe A: "t[K] = CLOCK()" alone (after guards), or inside an "if (C)"
   that is true all run; another condition keeps the pair in user space. */
static bool ll_start(const struct lw_ctx *c, const struct lower_options *opt, unsigned i,
		     struct ll_pair *l)
{
	struct ll_binds b;
	const struct ast_stmt *s = ll_body(c, i, &b, false);
	int f;

	if (!s || l->na == LL_MAX_STARTS)
		return false;
	if (s->kind == AST_S_IF && !s->s2) {
		if ((f = ll_fold(opt, s->e)) == 0 || !ll_start_set(ll_single(s->s1), &b, l, l->na))
			return false;
		if (f < 0 && !l->why)
			l->why = arena_printf(c->arena, "%s's condition needs user space%s",
					      c->sp->probes[i]->pp, opt->target_zero ? "" :
					      " (target() is set by -c or -x)");
	} else if (!ll_start_set(s, &b, l, l->na)) {
		return false;
	}
	l->a[l->na++] = i;
	return true;
}

/* The statistic's value: "CLOCK() - t[K']" or "(CLOCK() - t[K']) / N". */
static const struct ast_expr *ll_value(const struct ast_expr *v, struct ll_pair *l)
{
	l->div = 1;
	if (v->kind == AST_BINARY && v->op == AST_OP_DIV && v->b->kind == AST_NUM &&
	    v->b->num > 0) {
		l->div = v->b->num;
		v = v->a;
	}
	if (v->kind != AST_BINARY || v->op != AST_OP_SUB || ll_clock(v->a) < 0)
		return NULL;
	l->cb = ll_clock(v->a);
	return v->b;
}

/* "s[KEYS] <<< VALUE" in probe @p with its keys resolved through @bd
   into @l; VALUE, or NULL. */
static const struct ast_expr *ll_update(const struct ast_expr *upd, const struct ll_binds *bd,
					struct ll_pair *l)
{
	const struct sem_sym *st;
	unsigned k;

	if (upd->kind != AST_ASSIGN || upd->op != AST_OP_STAT_ADD ||
	    (upd->a->kind != AST_VAR && upd->a->kind != AST_INDEX) ||
	    !(st = lw_lat_array(upd->a)) || st->type != SEM_STATS)
		return NULL;
	l->keyed = upd->a->kind == AST_INDEX;
	if (l->keyed && upd->a->args.n > LL_MAX_KEYS)
		return NULL;
	for (k = 0; l->keyed && k < upd->a->args.n; k++)
		l->sk[k] = ll_resolve(bd, upd->a->args.v[k]);
	l->nsk = l->keyed ? upd->a->args.n : 0;
	l->stat = st->slot;
	return upd->b;
}

/*
 * probe B, a .return: "s[KEYS] <<< CLOCK() - @entry(CLOCK())" alone
 * (after guards).  Its entry probe is the start, keyed on common_pid as
 * the kernel's return event is.
 */
static bool ll_end_entry(const struct lw_ctx *c, unsigned i, struct ll_pair *l)
{
	struct ll_binds bd;
	const struct ast_stmt *s = ll_body(c, i, &bd, true);
	const struct ast_expr *v, *en;

	if (!s || s->kind != AST_S_EXPR || !(v = ll_update(s->e, &bd, l)) ||
	    !(en = ll_value(v, l)) || en->kind != AST_ENTRY || ll_clock(en->a) < 0)
		return false;
	l->entry = true;
	l->start = ~0u;
	l->a[0] = l->b = i;
	l->ca[0] = ll_clock(en->a);
	l->na = 1;
	return true;
}

/* probe B: "if (K in t) { s <<< CLOCK() - t[K]; delete t[K] }" alone
   (after guards); t becomes @l's start. */
static bool ll_end(const struct lw_ctx *c, unsigned i, struct ll_pair *l)
{
	struct ll_binds bd;
	const struct ast_stmt *s = ll_body(c, i, &bd, false), *body;
	const struct ast_expr *in, *v, *del;
	const struct sem_sym *t;

	if (!s || s->kind != AST_S_IF || s->s2 || !(in = s->e) ||
	    in->kind != AST_IN || in->args.n != 1 || !(t = lw_lat_array(in)))
		return false;
	body = s->s1;
	if (!body || body->kind != AST_S_BLOCK || body->body.n != 2 ||
	    body->body.v[0]->kind != AST_S_EXPR || body->body.v[1]->kind != AST_S_DELETE)
		return false;
	del = body->body.v[1]->e;
	if (!(v = ll_update(body->body.v[0]->e, &bd, l)) || !(v = ll_value(v, l)) ||
	    v->kind != AST_INDEX || v->args.n != 1)
		return false;
	if (!lw_lat_array(v) || lw_lat_array(v)->slot != t->slot ||
	    del->kind != AST_INDEX || !lw_lat_array(del) || lw_lat_array(del)->slot != t->slot ||
	    del->args.n != 1 || !ast_expr_equal(in->args.v[0], v->args.v[0]) ||
	    !ast_expr_equal(in->args.v[0], del->args.v[0]))
		return false;
	l->start = t->slot;
	l->kb = ll_resolve(&bd, in->args.v[0]);
	return true;
}


/* Find the pairs: each end probe B with the start probes A that set
   its t. */
unsigned lw_lat_find(struct lw_ctx *c, const struct lower_options *opt, struct ll_pair **out)
{
	const struct sem_prog *sp = c->sp;
	struct ll_pair *v = NULL, l;
	size_t cap = 0;
	unsigned n = 0, i, j;

	for (j = 0; j < sp->nprobes; j++) {
		if (sp->probes[j]->kind != SEM_P_TRACE)
			continue;
		memset(&l, 0, sizeof(l));
		if (ll_end_entry(c, j, &l)) {
			v = arena_grow(c->arena, v, n, &cap, sizeof(*v));
			v[n++] = l;
			continue;
		}
		memset(&l, 0, sizeof(l));
		if (!ll_end(c, j, &l))
			continue;
		l.b = j;
		for (i = 0; i < sp->nprobes; i++)
			if (i != j && sp->probes[i]->kind == SEM_P_TRACE)
				ll_start(c, opt, i, &l);
		if (!l.na)
			continue;
		v = arena_grow(c->arena, v, n, &cap, sizeof(*v));
		v[n++] = l;
	}
	*out = v;
	return n;
}
