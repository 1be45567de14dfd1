/*
 * lower_kobj.c - pass 3: adding kernel objects to the plan.
 *
 * The helpers every lowering (events, hist triggers, synthetic events,
 * stack triggers, process tracking) uses to append typed kernel objects
 * (runtime/kplan.h) to ir_prog.kplan; none of them calls back into the
 * lowerings, so those depend on this file and not on each other.
 */
#include "lower_int.h"
#include "arena.h"
#include "resolve_tpfmt.h"

#include <string.h>

/*
 * The filter clause that leaves out ktap itself ($KTAP, replaced by
 * ktap's pid at run time).  common_pid is the task an event happened in;
 * the scheduler's events also name a second task, and ktap's sleeping in
 * poll() between reads makes the switches into it and its wake-ups.
 * A record written in interrupt context (common_flags' hardirq 0x08,
 * softirq 0x10 or NMI 0x40 bit: the kernel's TRACE_FLAG_*, the same
 * in 6.1 and 6.18) names whatever task the interrupt hit; one that hit ktap is
 * not ktap's doing, so it stays (a timer's tick, a block completion, a
 * packet received while ktap decoded).
 */
#define LW_NOT_KTAP "(common_pid != $KTAP || common_flags & 0x58)"

const char *lw_own_field(const char *system, const char *name)
{
	if (strcmp(system, "sched") != 0)
		return NULL;
	if (!strcmp(name, "sched_switch"))
		return "next_pid";
	if (!strcmp(name, "sched_wakeup") || !strcmp(name, "sched_waking"))
		return "pid";
	return NULL;
}

const char *lw_own_pid(const char *system, const char *name)
{
	const char *f = lw_own_field(system, name);

	if (!f)
		return LW_NOT_KTAP;
	return !strcmp(f, "pid") ? LW_NOT_KTAP " && pid != $KTAP" :
				   LW_NOT_KTAP " && next_pid != $KTAP";
}

const char *lw_own_pid_ev(const struct tpf_event *ev)
{
	const struct tpf_event *tp = ev->dyn_tp ? ev->dyn_tp : ev;
	const char *name = lw_own_field(tp->system, tp->name);
	const struct tpf_field *f = name ? tpf_field(ev, name) : NULL;

	if (ev->dyn_tp && (!f || !f->fetch))	/* its record does not copy the field */
		return LW_NOT_KTAP;
	return lw_own_pid(tp->system, tp->name);
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
	lw_event_writes_own(a, ir, system, name, filter, lw_own_pid(system, name));
}

void lw_event_writes_own(struct arena *a, struct ir_prog *ir, const char *system,
			 const char *name, const char *filter, const char *own)
{
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

void lower_kplan_insert(struct arena *a, struct ir_prog *ir, unsigned at,
			const struct kp_obj *o)
{
	struct kp_plan *p = &ir->kplan;

	lower_kplan_add(a, ir, o);
	memmove(&p->objs[at + 1], &p->objs[at], (p->n - 1 - at) * sizeof(*p->objs));
	p->objs[at] = *o;
}
