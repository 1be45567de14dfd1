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

#include <string.h>

static void lw_guard_add(struct lw_ctx *c, struct lw_probe_guards *g,
			 const struct ast_expr *e, const struct ast_expr *written,
			 bool negated, const struct ast_stmt *origin)
{
	g->v = arena_grow(c->arena, g->v, g->n, &g->cap, sizeof(*g->v));
	g->v[g->n].expr = e;
	g->v[g->n].written = written;
	g->v[g->n].negated = negated;
	g->v[g->n].origin = origin;
	g->v[g->n].filter = lower_filter_explain(c->arena, e, c->probe, &g->v[g->n].why);
	g->n++;
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

/*
 * The leading "if (C) next" statements of a body, in order, and, when
 * what follows them is the whole rest of the handler and a single
 * "if (C) S" without else, that statement's conjuncts too (S then runs
 * when they hold).  Notes whether the handler then only calls exit().
 */
static void lw_leading_guards(struct lw_ctx *c, struct lw_probe_guards *g,
			      const struct ast_stmt *body)
{
	bool whole = true;	/* body's statements are the whole handler */
	const struct ast_stmt *s = NULL;
	unsigned i;

	while (body && body->kind == AST_S_BLOCK && body->body.n &&
	       body->body.v[0]->kind == AST_S_BLOCK) {
		whole = whole && body->body.n == 1;
		body = body->body.v[0];
	}
	if (!body || body->kind != AST_S_BLOCK)
		return;
	for (i = 0; i < body->body.n; i++) {
		s = body->body.v[i];
		if (s->kind != AST_S_IF || s->s2 || !lw_is_next(s->s1))
			break;
		lw_negated(c, g, s->e, s);
	}
	if (!whole)
		return;
	if (i + 1 == body->body.n && s->kind == AST_S_IF && !s->s2) {
		g->wrap = s;
		lw_conjuncts(c, g, s->e, s);
		g->only_exit = lw_is_exit(s->s1);
	} else {
		g->only_exit = i + 1 == body->body.n && lw_is_exit(s);
	}
}

/* Builtins without side effects or run-time errors. */
static bool lw_pure_call(const struct ast_expr *e)
{
	static const char *const pure[] = {
		"pid", "tid", "ppid", "cpu", "execname", "pexecname", "target",
		"uid", "euid", "gid", "egid", "pp", "pn", "probefunc",
	};
	unsigned i;

	if (e->ref >= 0 || e->args.n)
		return false;
	for (i = 0; i < sizeof(pure) / sizeof(pure[0]); i++)
		if (!strcmp(e->str, pure[i]))
			return true;
	return false;
}

/*
 * Can evaluating @e change anything, or fail (which runs error probes)?
 * Conservative: only constants, variables, fields, operators without a
 * failure mode and a few builtins are known not to.
 */
static bool lw_pure(const struct ast_expr *e)
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
		if (!g->v[i].filter)
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
	const char *own = lw_own_pid(ev->system, ev->name);

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
		if (g->v[i].filter)
			fprintf(out, "  ->  %s\n", g->v[i].filter);
		else
			fprintf(out, ": %s\n", g->v[i].why);
	}
	if (traceoff)
		fprintf(out, "  the handler only calls exit(): traceoff trigger\n");
	else if (g->only_exit && lw_guard_all_kernel(g))
		fprintf(out, "  the handler only calls exit(), but other probes share the "
			"event: no traceoff trigger\n");
}
