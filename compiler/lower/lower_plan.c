/*
 * lower_plan.c - pass 3: the kernel half of the plan.
 *
 * In: the tracepoint, kprobe and uprobe probes of the elaborated program.
 * Out: the events the runtime reads (ir_prog.events) and the kernel
 * objects that arm them (ir_prog.kplan, runtime/kplan.h): dynamic events
 * with their fetch arguments, filters and enables, in the order they are
 * applied.  Each probe's guard comes from lower_guard.c; here the
 * probes are grouped by event and each event gets its filter.
 */
#include "lower_int.h"
#include "arena.h"
#include "resolve_tpfmt.h"

#include <string.h>

/* Is @f the field of ktap's eprobe or tprobe @ev that its filter's
   own-pid clause reads (lw_own_pid_ev())? */
static bool lw_is_own_field(const struct tpf_event *ev, const struct tpf_field *f)
{
	const char *name = ev->dyn_tp ? lw_own_field(ev->dyn_tp->system, ev->dyn_tp->name) : NULL;

	return name && !strcmp(f->name, name);
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
	d->nargs = 0;
	d->acap = ev->nfields;
	/* (an eprobe's record has the common fields already: no fetch; of
	   the tracepoint's fields its eprobe or tprobe copies, the ones the
	   script reads: every fetch costs each hit, and a string a copy) */
	for (i = 0; i < ev->nfields; i++)
		if (ev->fields[i].fetch && (!ev->dyn_tp || ev->all_used || ev->fields[i].used ||
					    lw_is_own_field(ev, &ev->fields[i])))
			d->args[d->nargs++] = lower_fetch_arg(c->arena, ev->fields[i].name,
							      ev->fields[i].fetch);
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
	lower_stack_event(c->arena, &ir->events[ir->nevents], ev);
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
/* The own-pid clause of plan event @ev: its probes' event's (ktap's
   eprobe or tprobe on sched_switch leaves out switches to ktap too). */
static const char *lw_ir_own_pid(struct lw_ctx *c, const struct ir_event *ev)
{
	if (!ev->nprobes)
		return lw_own_pid(ev->system, ev->name);
	return lw_own_pid_ev(c->sp->probes[ev->probes[0]]->event);
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
	const char *f = NULL, *own = lw_ir_own_pid(c, ev);
	bool any = false, always = false;
	unsigned j;

	for (j = 0; j < ev->nprobes; j++) {
		const struct lw_probe_guards *g = &c->guards[ev->probes[j]];
		const char *pf;

		if (!g->only_exit || !lw_guard_all_kernel(g))
			return false;
		any = true;
		pf = lw_guard_filter(c, g);
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
	c->reads_matched = lw_reads_matched(sp);
	for (i = 0; i < sp->nprobes; i++) {
		const struct sem_probe *p = sp->probes[i];

		if (p->kind != SEM_P_TRACE)
			continue;
		c->probe = p;
		lw_guard_build(c, &c->guards[i], p);
		if (lower_track_event(p->event->system, p->event->name))
			lw_guard_untracked(&c->guards[i]);
	}
	lw_hist_decide(c, opt);
	lw_lat_decide(c, opt);
	if (opt->verbose)
		lw_hist_verbose(c);
	for (i = 0; i < sp->nprobes; i++) {
		const struct sem_probe *p = sp->probes[i];
		struct ir_event *ev;

		if (p->kind != SEM_P_TRACE)
			continue;
		j = lw_event(c, p->event);	/* may move ir->events */
		lw_kprobe_pp(c, j, p->event, p->pp);	/* missed hits: also when lowered */
		if (c->lowered[i]) {	/* its hist trigger soft-enables the event */
			if (!ir->events[j].nprobes && !ir->events[j].streamed)
				ir->events[j].hist_only = true;
			if (p->event->dyn_entry) {	/* a lowered @entry pair's start */
				unsigned d = lw_event(c, p->event->dyn_entry);

				lw_kprobe_pp(c, d, p->event->dyn_entry, p->pp);
				if (!ir->events[d].nprobes && !ir->events[d].streamed)
					ir->events[d].hist_only = true;
			}
			continue;
		}
		ir->events[j].hist_only = false;
		ir->events[j].streamed = true;
		if (p->event->dyn_entry) {	/* its probes: lw_entry_probe() */
			unsigned d = lw_event(c, p->event->dyn_entry);

			lw_kprobe_pp(c, d, p->event->dyn_entry, p->pp);
			ir->events[d].hist_only = false;
			ir->events[d].streamed = true;
		}
		ev = &ir->events[j];
		ev->probes = arena_grow(c->arena, ev->probes, ev->nprobes, &ev->pcap,
					sizeof(*ev->probes));
		ev->probes[ev->nprobes++] = i;
	}
	for (i = 0; i < sp->nprobes; i++)	/* begin/end on ktap's own record */
		if (sp->probes[i]->self_trigger) {
			j = lw_event(c, sp->probes[i]->event);
			ir->events[j].streamed = ir->events[j].trigger = true;
		}
	if (opt->buffer_kb)
		lower_kplan_add(c->arena, ir, &(struct kp_obj){ .kind = KP_OPTION,
			.u.option = { .kind = KP_OPT_BUFFER_KB, .kb = opt->buffer_kb } });
	traceoff = arena_alloc(c->arena, (ir->nevents + 1) * sizeof(*traceoff));
	for (i = 0; i < ir->nevents; i++) {
		struct ir_event *ev = &ir->events[i];
		const char *f = NULL, *why = NULL;

		if (ev->hist_only)
			continue;
		if (ev->trigger) {
			lw_event_writes_own(c->arena, ir, ev->system, ev->name, NULL,
					    "common_pid == $KTAP");
			continue;
		}
		for (j = 0; j < ev->nprobes; j++) {
			const char *pf = lw_guard_filter(c, &c->guards[ev->probes[j]]);

			if (!pf) {
				f = NULL;
				why = "another probe on this event has no kernel filter: no "
				      "filter, every probe checks its guard in user space";
				break;
			}
			f = !f ? pf : arena_printf(c->arena, "(%s) || (%s)", f, pf);
		}
		if (opt->recording)
			f = NULL;
		else if (ev->nprobes == 1)
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
		lw_event_writes_own(c->arena, ir, ev->system, ev->name, f,
				    lw_ir_own_pid(c, ev));
	}
	lw_hist_emit(c);
	lw_lat_emit(c);
	/* a probe in a hist trigger: its guard is the trigger's filter */
	for (i = 0; opt->explain && i < sp->nprobes; i++)
		if (sp->probes[i]->kind == SEM_P_TRACE && c->lowered[i] && c->guards[i].n &&
		    lw_guard_all_kernel(&c->guards[i]))
			lw_guard_explain(c, opt->explain, sp->probes[i], &c->guards[i], true, false);
	for (i = 0; opt->explain && i < ir->nevents; i++)
		for (j = 0; j < ir->events[i].nprobes; j++) {
			unsigned k = ir->events[i].probes[j];

			lw_guard_explain(c, opt->explain, sp->probes[k], &c->guards[k],
				   ir->events[i].filter != NULL, traceoff[i] && c->guards[k].only_exit &&
				   lw_guard_all_kernel(&c->guards[k]));
		}
}
