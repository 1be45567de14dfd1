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

static void lw_guard_add(struct lw_ctx *c, struct lw_probe_guards *g,
			 const struct ast_expr *e, const struct ast_stmt *origin)
{
	g->v = arena_grow(c->arena, g->v, g->n, &g->cap, sizeof(*g->v));
	g->v[g->n].expr = e;
	g->v[g->n].origin = origin;
	g->v[g->n].filter = lower_filter_text(c->arena, e, c->probe);
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
	lw_guard_add(c, g, e, origin);
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
	};

	/* !(a < b) is a >= b: simpler filters, same meaning for longs and
	   strings alike (both orders are total). */
	if (e->kind == AST_BINARY && inverse[e->op]) {
		struct ast_expr *n = ast_binary(c->arena, AST_BINARY, inverse[e->op],
						e->a, e->b, e->op_span);

		n->type = e->type;
		lw_guard_add(c, g, n, origin);
		return;
	}
	lw_guard_add(c, g, ast_unary(c->arena, AST_OP_NOT, (struct ast_expr *)e,
				     e->span), origin);
}

static bool lw_is_next(const struct ast_stmt *s)
{
	while (s && s->kind == AST_S_BLOCK && s->body.n == 1)
		s = s->body.v[0];
	return s && s->kind == AST_S_NEXT;
}

/* The leading "if (C) next" statements of a body, in order. */
static void lw_leading_guards(struct lw_ctx *c, struct lw_probe_guards *g,
			      const struct ast_stmt *body)
{
	unsigned i;

	while (body && body->kind == AST_S_BLOCK && body->body.n &&
	       body->body.v[0]->kind == AST_S_BLOCK)
		body = body->body.v[0];
	for (i = 0; body && body->kind == AST_S_BLOCK && i < body->body.n; i++) {
		const struct ast_stmt *s = body->body.v[i];

		if (s->kind != AST_S_IF || s->s2 || !lw_is_next(s->s1))
			break;
		lw_negated(c, g, s->e, s);
	}
}

static const char *lw_probe_filter(struct lw_ctx *c, const struct lw_probe_guards *g)
{
	const char *f = NULL;
	unsigned i;

	for (i = 0; i < g->n; i++) {
		if (!g->v[i].filter)
			continue;
		f = f ? arena_printf(c->arena, "%s && %s", f, g->v[i].filter) :
			g->v[i].filter;
	}
	return f;
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
void lw_plan_events(struct lw_ctx *c, const struct lower_options *opt)
{
	const struct sem_prog *sp = c->sp;
	struct ir_prog *ir = c->ir;
	unsigned i, j;

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
	for (i = 0; i < ir->nevents; i++) {
		struct ir_event *ev = &ir->events[i];
		const char *f = NULL;

		for (j = 0; j < ev->nprobes; j++) {
			const char *pf = lw_probe_filter(c, &c->guards[ev->probes[j]]);

			if (!pf) {
				f = NULL;
				break;
			}
			f = !f ? pf : arena_printf(c->arena, "(%s) || (%s)", f, pf);
		}
		if (ev->nprobes == 1)
			c->guards[ev->probes[0]].removable = true;
		ev->filter = f;
		if (f && strstr(f, "$TARGET"))
			ir->uses_target = true;
		lower_event_writes(c->arena, ir, ev->system, ev->name, f);
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
