/*
 * lower_guard.c - pass 3: a probe's guard and which of it the kernel filters.
 *
 * A probe's guard is its point condition plus the leading "if (C) next"
 * statements of its body (or its single "if (C) S"); the conjuncts the
 * kernel can evaluate exactly (lower_filter.c) become the event's filter,
 * the rest stays in the handler's code (lower_code.c's lw_wrap_if()).
 * lower_plan.c decides, per event, which probes' filters are written.
 */
#include "lower_int.h"
#include "arena.h"
#include "resolve_tpfmt.h"
#include "ast_walk.h"

#include <string.h>

static void lw_guard_add(struct lw_ctx *c, struct lw_probe_guards *g,
			 const struct ast_expr *e, const struct ast_expr *written,
			 bool negated, const struct ast_stmt *origin)
{
	/* the filter reads the prologue's locals through their bindings;
	   user space keeps @e as written (it runs the prologue) */
	const struct ast_expr *via = lw_bind_subst(c, &g->binds, e);
	struct lw_guard *v;

	g->v = arena_grow(c->arena, g->v, g->n, &g->cap, sizeof(*g->v));
	v = &g->v[g->n++];
	v->expr = e;
	v->written = written;
	v->negated = negated;
	v->origin = origin;
	v->via = via != e ? via : NULL;
	v->filter = lower_filter_explain(c->arena, via, c->probe,
					 c->reads_matched ? LOWER_FILTER_NO_REGEX : 0, &v->why);
}

/* Conjuncts of @e (which must hold): split a && b. */
static void lw_conjuncts(struct lw_ctx *c, struct lw_probe_guards *g,
			 const struct ast_expr *e, const struct ast_stmt *origin)
{
	if (e->kind == AST_BINARY && e->op == AST_OP_LAND) {
		lw_conjuncts(c, g, e->a, origin);
		lw_conjuncts(c, g, e->b, origin);
		return;
	}
	lw_guard_add(c, g, e, e, false, origin);
}

/* "if (C) next": the handler runs when !C; !(a || b) splits in two. */
static void lw_negated(struct lw_ctx *c, struct lw_probe_guards *g,
		       const struct ast_expr *e, const struct ast_stmt *origin)
{
	if (e->kind == AST_BINARY && e->op == AST_OP_LOR) {
		lw_negated(c, g, e->a, origin);
		lw_negated(c, g, e->b, origin);
		return;
	}
	static const enum ast_op inverse[AST_OP__COUNT] = {
		[AST_OP_EQ] = AST_OP_NE, [AST_OP_NE] = AST_OP_EQ,
		[AST_OP_LT] = AST_OP_GE, [AST_OP_GE] = AST_OP_LT,
		[AST_OP_GT] = AST_OP_LE, [AST_OP_LE] = AST_OP_GT,
		[AST_OP_MATCH] = AST_OP_NOMATCH, [AST_OP_NOMATCH] = AST_OP_MATCH,
	};

	/* !(a < b) is a >= b: simpler filters, same meaning for longs and
	   strings alike (both orders are total). */
	if (e->kind == AST_BINARY && inverse[e->op]) {
		struct ast_expr *n = ast_binary(c->arena, AST_BINARY, inverse[e->op],
						e->a, e->b, e->op_span);

		n->type = e->type;
		n->span = e->span;
		lw_guard_add(c, g, n, e, true, origin);
		return;
	}
	lw_guard_add(c, g, ast_unary(c->arena, AST_OP_NOT, (struct ast_expr *)e,
				     e->span), e, true, origin);
}

static const struct ast_stmt *lw_single(const struct ast_stmt *s)
{
	while (s && s->kind == AST_S_BLOCK && s->body.n == 1)
		s = s->body.v[0];
	return s;
}

static bool lw_is_next(const struct ast_stmt *s)
{
	s = lw_single(s);
	return s && s->kind == AST_S_NEXT;
}

static bool lw_is_exit(const struct ast_stmt *s)
{
	s = lw_single(s);
	return s && s->kind == AST_S_EXPR && s->e->kind == AST_CALL &&
	       !strcmp(s->e->str, "exit") && s->e->ref < 0 && s->e->args.n == 0;
}

/* The handler's statements in the order they run: blocks opened (an
   alias's prologue is a block of its own), ";" dropped. */
static void lw_flatten(struct lw_ctx *c, const struct ast_stmt *s,
		       const struct ast_stmt ***v, unsigned *n, size_t *cap)
{
	unsigned i;

	if (!s || s->kind == AST_S_NULL)
		return;
	if (s->kind == AST_S_BLOCK) {
		for (i = 0; i < s->body.n; i++)
			lw_flatten(c, s->body.v[i], v, n, cap);
		return;
	}
	*v = arena_grow(c->arena, *v, *n, cap, sizeof(**v));
	(*v)[(*n)++] = s;
}

/* Is one of @v (@n statements) a guard: "if (C) next", or the last
   statement and an "if (C) S" without else? */
static bool lw_later_guard(const struct ast_stmt **v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (v[i]->kind == AST_S_IF && !v[i]->s2 && (lw_is_next(v[i]->s1) || i + 1 == n))
			return true;
	return false;
}

/*
 * The leading "if (C) next" statements of a body, in order, read
 * through the locals the statements before them bound (an alias's
 * prologue: lower_bind.c), and, when what follows is the handler's
 * last statement and a single "if (C) S" without else, that statement's
 * conjuncts too (S then runs when they hold).  Notes whether the
 * handler then only calls exit().
 */
static void lw_leading_guards(struct lw_ctx *c, struct lw_probe_guards *g,
			      const struct ast_stmt *body)
{
	const struct ast_stmt **v = NULL, *s;
	unsigned i, n = 0;
	size_t cap = 0;

	lw_flatten(c, body, &v, &n, &cap);
	for (i = 0; i < n; i++) {
		s = v[i];
		if (s->kind == AST_S_IF && !s->s2 && lw_is_next(s->s1))
			lw_negated(c, g, s->e, s);
		else if (!lw_bind_stmt(c, &g->binds, s))
			break;
	}
	if (i + 1 < n && lw_later_guard(v + i + 1, n - i - 1))
		g->stopped = v[i];	/* for -v: why the guards after it stay */
	if (i + 1 != n)
		return;
	s = v[i];
	if (s->kind == AST_S_IF && !s->s2) {
		g->wrap = s;
		lw_conjuncts(c, g, s->e, s);
		g->only_exit = lw_is_exit(s->s1);
	} else {
		g->only_exit = lw_is_exit(s);
	}
}

/*
 * The kernel drops an event before the handler runs.  A conjunct may go
 * there only when nothing evaluated before it in user space could have
 * done something (an assignment, a call, an error): that would be lost
 * with the event.  Conjuncts after such a one stay in user space.
 */
static void lw_side_effects(struct lw_probe_guards *g)
{
	bool blocked = false;
	unsigned i;

	for (i = 0; i < g->n; i++) {
		if (blocked && g->v[i].filter) {
			g->v[i].filter = NULL;
			g->v[i].why = "an earlier condition the handler evaluates first may "
				      "have side effects";
		}
		if (!g->v[i].filter && !lw_pure(g->v[i].expr))
			blocked = true;
	}
}

static int lw_matched_fn(struct ast_expr *e, void *arg)
{
	(void)arg;
	return e->kind == AST_CALL && e->ref < 0 && -e->ref - 1 == IR_BI_MATCHED ? -1 : 0;
}

bool lw_reads_matched(const struct sem_prog *sp)
{
	unsigned i;

	for (i = 0; i < sp->nprobes; i++)
		if (ast_walk_stmt(sp->probes[i]->body, lw_matched_fn, NULL) ||
		    (sp->probes[i]->cond &&
		     ast_walk_expr(sp->probes[i]->cond, lw_matched_fn, NULL)))
			return true;
	for (i = 0; i < sp->nfuncs; i++)
		if (sp->funcs[i]->ast && sp->funcs[i]->ast->body &&
		    ast_walk_stmt(sp->funcs[i]->ast->body, lw_matched_fn, NULL))
			return true;
	return false;
}

void lw_guard_build(struct lw_ctx *c, struct lw_probe_guards *g, const struct sem_probe *p)
{
	if (p->cond)
		lw_conjuncts(c, g, p->cond, NULL);
	lw_leading_guards(c, g, p->body);
	lw_side_effects(g);
}

const char *lw_guard_filter(struct lw_ctx *c, const struct lw_probe_guards *g)
{
	const char *f = NULL;
	unsigned i;

	const char *t;

	for (i = 0; i < g->n; i++) {
		if (!g->v[i].filter || !*g->v[i].filter)	/* "": always true */
			continue;
		/* "a || b" as a conjunct: && binds tighter in the kernel too */
		t = g->v[i].filter;
		if (strstr(t, "||"))
			t = arena_printf(c->arena, "(%s)", t);
		f = f ? arena_printf(c->arena, "%s && %s", f, t) : t;
	}
	return f;
}

/* Does every conjunct of @g go to the kernel? */
bool lw_guard_all_kernel(const struct lw_probe_guards *g)
{
	unsigned i;

	for (i = 0; i < g->n; i++)
		if (!g->v[i].filter)
			return false;
	return true;
}

const char *lw_probe_kernel_filter(const struct lw_ctx *c, unsigned probe, bool *complete)
{
	const struct lw_probe_guards *g = &c->guards[probe];
	const char *f = lw_guard_filter((struct lw_ctx *)c, g);

	if (complete)
		*complete = lw_guard_all_kernel(g);
	const struct tpf_event *ev = c->sp->probes[probe]->event;
	const char *own = lw_own_pid_ev(ev);

	return f ? arena_printf(c->arena, "(%s) && %s", f, own) : own;
}

/* ktap's process tracking reads every record of its events: no filter. */
void lw_guard_untracked(struct lw_probe_guards *g)
{
	unsigned i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].filter) {
			g->v[i].filter = NULL;
			g->v[i].why = "ktap's process tracking reads every record of this event";
		}
}

/* -v: what of probe @p's guard @g went into the kernel, and why not the rest. */
void lw_guard_explain(struct lw_ctx *c, FILE *out, const struct sem_probe *p,
		       const struct lw_probe_guards *g, bool filtered, bool traceoff)
{
	const struct src_file *f = src_file(c->src, p->span.file);
	unsigned i, line = 0, col = 0;

	src_linecol(c->src, p->span.file, p->span.start, &line, &col);
	fprintf(out, "Pass 3: probe %s (%s:%u:%u): ", p->pp, f ? f->name : "<input>",
		line, col);
	if (!g->n && g->stopped) {
		src_linecol(c->src, g->stopped->span.file, g->stopped->span.start, &line, &col);
		fprintf(out, "no condition before line %u:%u, which may have side effects: "
			"the guards after it stay in user space\n", line, col);
		return;
	}
	if (!g->n) {
		fprintf(out, "no condition%s\n", traceoff ? ", traceoff trigger" : "");
		return;
	}
	fprintf(out, "%s\n", g->shared_why ? g->shared_why :
		lw_guard_all_kernel(g) ? "all in the kernel filter" : "filter split");
	for (i = 0; i < g->n; i++) {
		fprintf(out, "  %s ", !g->v[i].filter ? "user space:" :
			filtered ? "kernel:    " : "exact, unused:");
		if (g->v[i].negated)
			fputs("not (", out);
		ast_print_expr(out, g->v[i].written);
		if (g->v[i].negated)
			fputs(")", out);
		if (g->v[i].via) {
			fputs("  [as ", out);
			ast_print_expr(out, g->v[i].via);
			fputs("]", out);
		}
		if (g->v[i].filter)
			fprintf(out, "  ->  %s\n", *g->v[i].filter ? g->v[i].filter :
				"true for every event, nothing to test");
		else
			fprintf(out, ": %s\n", g->v[i].why);
	}
	if (traceoff)
		fprintf(out, "  the handler only calls exit(): traceoff trigger\n");
	else if (g->only_exit && lw_guard_all_kernel(g))
		fprintf(out, "  the handler only calls exit(), but other probes share the "
			"event: no traceoff trigger\n");
}
