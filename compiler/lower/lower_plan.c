/*
 * lower_plan.c - pass 3: the kernel half of the plan.
 *
 * In: the tracepoint, kprobe and uprobe probes of the elaborated program.
 * Out: the events the runtime reads (ir_prog.events) and the kernel
 * objects that arm them (ir_prog.kplan, runtime/kplan.h): dynamic events
 * with their fetch arguments, filters and enables, in the order they are
 * applied.  A probe's guard is its point condition plus the leading
 * "if (C) next" statements of its body; the conjuncts the kernel can
 * evaluate exactly (lower_filter.c) become the event's filter.
 */
#include "lower_int.h"
#include "arena.h"
#include "resolve_tpfmt.h"

#include <string.h>

/* ---- guards and the kernel plan ---- */

static const char *lw_own_pid(const char *system, const char *name);

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
		"uid", "euid", "gid", "egid", "pp", "probefunc",
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

static const char *lw_probe_filter(struct lw_ctx *c, const struct lw_probe_guards *g)
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
static bool lw_all_kernel(const struct lw_probe_guards *g)
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
	const char *f = lw_probe_filter((struct lw_ctx *)c, g);

	if (complete)
		*complete = lw_all_kernel(g);
	const struct tpf_event *ev = c->sp->probes[probe]->event;
	const char *own = lw_own_pid(ev->system, ev->name);

	return f ? arena_printf(c->arena, "(%s) && %s", f, own) : own;
}

void lw_wrap_if(struct lw_ctx *c, const struct ast_stmt *s)
{
	const struct lw_probe_guards *g = &c->guards[c->probe->index];
	unsigned i, j;

	for (i = 0; i < g->n; i++) {
		if (g->v[i].origin != s || (g->removable && g->v[i].filter))
			continue;
		c->at = g->v[i].expr->span;
		lw_expr(c, g->v[i].expr);
		j = lw_emit(c, IR_JNZ, 0, 0, 0);
		lw_emit(c, IR_NEXT, 0, 0, 0);
		lw_patch(c, j, lw_here(c));
	}
	lw_stmt(c, s->s1);
}

/* -v: what of probe @p's guard @g went into the kernel, and why not the rest. */
static void lw_explain(struct lw_ctx *c, FILE *out, const struct sem_probe *p,
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
		lw_all_kernel(g) ? "all in the kernel filter" : "filter split");
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
	else if (g->only_exit && lw_all_kernel(g))
		fprintf(out, "  the handler only calls exit(), but other probes share the "
			"event: no traceoff trigger\n");
}

/*
 * A dynamic event (kprobe, uprobe) joins the plan as pass 2's object
 * with every fetch argument pass 2 collected (its fields), copied so
 * that pass 2's result stays as it was.
 */
static void lw_dyn_define(struct lw_ctx *c, const struct tpf_event *ev)
{
	struct kp_dynevent *d = arena_alloc(c->arena, sizeof(*d));
	unsigned i;

	*d = *ev->dyn;
	/* A kretprobe without .maxactive(N) gets the default, since the
	   kernel's own (the number of CPUs) misses returns of functions
	   that sleep.  uprobe_events has no maxactive. */
	if (d->kind == KP_KRETPROBE && !d->maxactive)
		d->maxactive = c->kretactive;
	d->args = ev->nfields ? arena_alloc(c->arena, ev->nfields * sizeof(*d->args)) : NULL;
	d->nargs = d->acap = ev->nfields;
	for (i = 0; i < ev->nfields; i++)
		d->args[i] = lower_fetch_arg(c->arena, ev->fields[i].name, ev->fields[i].fetch);
	lower_kplan_add(c->arena, c->ir, &(struct kp_obj){ .kind = KP_DYNEVENT, .u.dyn = d });
}

unsigned lw_event(struct lw_ctx *c, const struct tpf_event *ev)
{
	struct ir_prog *ir = c->ir;
	unsigned i;

	for (i = 0; i < ir->nevents; i++)
		if (!strcmp(ir->events[i].system, ev->system) &&
		    !strcmp(ir->events[i].name, ev->name))
			return i;
	ir->events = arena_grow(c->arena, ir->events, ir->nevents, &ir->ecap,
				sizeof(*ir->events));
	memset(&ir->events[ir->nevents], 0, sizeof(ir->events[0]));
	ir->events[ir->nevents].system = ev->system;
	ir->events[ir->nevents].name = ev->name;
	if (ev->dyn)
		lw_dyn_define(c, ev);
	return ir->nevents++;
}

/* A kprobe event: name the first probe on it in missed-hits warnings. */
static void lw_kprobe_pp(struct lw_ctx *c, unsigned idx, const struct tpf_event *ev,
			 const char *pp)
{
	struct ir_event *e = &c->ir->events[idx];

	if (!ev->dyn || (ev->dyn->kind != KP_KPROBE && ev->dyn->kind != KP_KRETPROBE) ||
	    e->kprobe_pp)
		return;
	e->kprobe_pp = pp;
	e->kretprobe = ev->dyn_return;
}

/*
 * Group tracepoint probes by event, compute each probe's guards, and
 * decide each event's filter: a single probe's kernel conjuncts, or the
 * disjunction of several probes' filters (their checks then stay in
 * user space too).
 */
/* ktap's process tracking reads every record of its events: no filter. */
static void lw_tracked(struct lw_probe_guards *g)
{
	unsigned i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].filter) {
			g->v[i].filter = NULL;
			g->v[i].why = "ktap's process tracking reads every record of this event";
		}
}

/*
 * The traceoff trigger of event @ev: when every probe on it only calls
 * exit() once its guard holds, and the kernel has all of those guards,
 * nothing after the record that ends the run is needed (the runtime
 * handles no record from the exit on), so the kernel may stop writing
 * into ktap's instance at once.  Not when other probes share the event:
 * the record's own trailing records (a stacktrace trigger's stack) must
 * still be written, and post triggers run in no order ktap controls.
 * Triggers do not see the event's filter: the trigger carries the
 * probes' own (their disjunction; one traceoff per event).
 */
static bool lw_traceoff(struct lw_ctx *c, const struct ir_event *ev)
{
	const char *f = NULL, *own = lw_own_pid(ev->system, ev->name);
	bool any = false, always = false;
	unsigned j;

	for (j = 0; j < ev->nprobes; j++) {
		const struct lw_probe_guards *g = &c->guards[ev->probes[j]];
		const char *pf;

		if (!g->only_exit || !lw_all_kernel(g))
			return false;
		any = true;
		pf = lw_probe_filter(c, g);
		if (!pf)
			always = true;
		else
			f = !f ? pf : arena_printf(c->arena, "(%s) || (%s)", f, pf);
	}
	if (!any)
		return false;
	if (f && strstr(f, "$TARGET"))
		c->ir->uses_target = true;
	lower_kplan_add(c->arena, c->ir, &(struct kp_obj){ .kind = KP_TRIGGER,
		.u.trigger = { .system = ev->system, .event = ev->name, .kind = KP_T_TRACEOFF,
			       .filter = always || !f ? own :
				arena_printf(c->arena, "(%s) && %s", f, own) } });
	return true;
}

void lw_plan_events(struct lw_ctx *c, const struct lower_options *opt)
{
	const struct sem_prog *sp = c->sp;
	struct ir_prog *ir = c->ir;
	unsigned i, j;
	bool *traceoff;

	c->guards = arena_alloc(c->arena, (sp->nprobes + 1) * sizeof(*c->guards));
	for (i = 0; i < sp->nprobes; i++) {
		const struct sem_probe *p = sp->probes[i];
		struct ir_event *ev;

		if (p->kind != SEM_P_TRACE)
			continue;
		c->probe = p;
		if (p->cond)
			lw_conjuncts(c, &c->guards[i], p->cond, NULL);
		lw_leading_guards(c, &c->guards[i], p->body);
		lw_side_effects(&c->guards[i]);
		if (lower_track_event(p->event->system, p->event->name))
			lw_tracked(&c->guards[i]);
		j = lw_event(c, p->event);	/* may move ir->events */
		lw_kprobe_pp(c, j, p->event, p->pp);
		if (p->event->dyn_entry)	/* its probes: lw_entry_probe() */
			lw_kprobe_pp(c, lw_event(c, p->event->dyn_entry), p->event->dyn_entry,
				     p->pp);
		ev = &ir->events[j];
		ev->probes = arena_grow(c->arena, ev->probes, ev->nprobes, &ev->pcap,
					sizeof(*ev->probes));
		ev->probes[ev->nprobes++] = i;
	}
	if (opt->buffer_kb)
		lower_kplan_add(c->arena, ir, &(struct kp_obj){ .kind = KP_OPTION,
			.u.option = { .kind = KP_OPT_BUFFER_KB, .kb = opt->buffer_kb } });
	traceoff = arena_alloc(c->arena, (ir->nevents + 1) * sizeof(*traceoff));
	for (i = 0; i < ir->nevents; i++) {
		struct ir_event *ev = &ir->events[i];
		const char *f = NULL, *why = NULL;

		for (j = 0; j < ev->nprobes; j++) {
			const char *pf = lw_probe_filter(c, &c->guards[ev->probes[j]]);

			if (!pf) {
				f = NULL;
				why = "another probe on this event has no kernel filter: no "
				      "filter, every probe checks its guard in user space";
				break;
			}
			f = !f ? pf : arena_printf(c->arena, "(%s) || (%s)", f, pf);
		}
		if (ev->nprobes == 1)
			c->guards[ev->probes[0]].removable = true;
		else
			for (j = 0; j < ev->nprobes; j++)
				c->guards[ev->probes[j]].shared_why = why ? why :
					"probes share this event: the filter is their "
					"disjunction, each checks its guard in user space too";
		ev->filter = f;
		if (f && strstr(f, "$TARGET"))
			ir->uses_target = true;
		traceoff[i] = lw_traceoff(c, ev);
		lower_event_writes(c->arena, ir, ev->system, ev->name, f);
	}
	for (i = 0; opt->explain && i < ir->nevents; i++)
		for (j = 0; j < ir->events[i].nprobes; j++) {
			unsigned k = ir->events[i].probes[j];

			lw_explain(c, opt->explain, sp->probes[k], &c->guards[k],
				   ir->events[i].filter != NULL, traceoff[i] && c->guards[k].only_exit &&
				   lw_all_kernel(&c->guards[k]));
		}
}

/*
 * The filter clause that leaves out ktap itself ($KTAP, replaced by
 * ktap's pid at run time).  common_pid is the task an event happened in;
 * the scheduler's events also name a second task, and ktap's sleeping in
 * poll() between reads makes the switches into it and its wake-ups.
 */
static const char *lw_own_pid(const char *system, const char *name)
{
	if (strcmp(system, "sched") != 0)
		return "common_pid != $KTAP";
	if (!strcmp(name, "sched_switch"))
		return "common_pid != $KTAP && next_pid != $KTAP";
	if (!strcmp(name, "sched_wakeup") || !strcmp(name, "sched_waking"))
		return "common_pid != $KTAP && pid != $KTAP";
	return "common_pid != $KTAP";
}

/*
 * The objects that arm one event: its filter, then enable.  Every filter
 * leaves out ktap's own threads (lw_own_pid()): reading the ring buffer
 * takes system calls and context switches, and a script tracing those
 * would otherwise see ktap's reads, which make records, which wake ktap
 * to read them, and so on.
 */
void lower_event_writes(struct arena *a, struct ir_prog *ir, const char *system,
			const char *name, const char *filter)
{
	const char *own = lw_own_pid(system, name);

	lower_kplan_add(a, ir, &(struct kp_obj){ .kind = KP_FILTER, .u.filter = {
		system, name, filter ? arena_printf(a, "(%s) && %s", filter, own) : own } });
	lower_kplan_add(a, ir, &(struct kp_obj){ .kind = KP_ENABLE,
						 .u.enable = { system, name } });
}

void lower_kplan_add(struct arena *a, struct ir_prog *ir, const struct kp_obj *o)
{
	struct kp_plan *p = &ir->kplan;

	p->objs = arena_grow(a, p->objs, p->n, &p->cap, sizeof(*p->objs));
	p->objs[p->n++] = *o;
}

struct kp_arg lower_fetch_arg(struct arena *a, const char *name, const char *fetch)
{
	/* "+8(%di):s32": the type follows the last ':' (types have none) */
	const char *colon = strrchr(fetch, ':');

	if (!colon)
		return (struct kp_arg){ name, fetch, NULL };
	return (struct kp_arg){ name, arena_strndup(a, fetch, (size_t)(colon - fetch)),
				colon + 1 };
}
