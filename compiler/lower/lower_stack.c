/*
 * lower_stack.c - pass 3: the kernel objects that record stacks.
 *
 * In: the lowered program (its bytecode, events and plan).  Out: for
 * each event whose handlers (or the functions they call) read the kernel
 * stack (backtrace(), print_backtrace(), sprint_backtrace()), a
 * `stacktrace` trigger on that event with the event's own filter, so
 * the kernel records a stack exactly for the records ktap handles; when
 * any handler reads the user stack (ubacktrace() ...), the instance's
 * `userstacktrace` option; and the ftrace kernel_stack/user_stack
 * records added to the events ktap reads (ir_event.stack_rec), which the
 * reader pairs with the event before its record follows (reader_stack.c).
 * ir_event.stacks says which events want which stack, ir_prog.stacks
 * what the session must load (kallsyms, processes' maps).
 *
 * Why a trigger and not the instance's `stacktrace` option: the option
 * records a stack after every event of the instance (the fork/exec
 * tracking events too), the trigger only after the events that need one
 * and only when the filter passes.  The user stack has no trigger, so
 * the option it is (8 frames, FTRACE_STACK_ENTRIES).
 *
 * The kernel walks a user stack by frame pointers.  At a uprobe on a
 * function's first instruction the function has not pushed its frame
 * yet: the walk starts at the caller's frame and so misses the caller
 * itself, whose return address is at the top of the stack.  Such a
 * uprobe event also fetches that word (IR_STACK_RA_FIELD, on machines
 * whose calls push the return address: x86_64), and the runtime puts it
 * back as the second frame.
 */
#include "lower.h"
#include "arena.h"
#include "fetch.h"
#include "resolve_cconv.h"
#include "resolve_elf.h"
#include "resolve_tpfmt.h"

#include <stdio.h>
#include <string.h>

static unsigned ls_builtin_bits(unsigned id)
{
	switch (id) {
	case IR_BI_BACKTRACE: case IR_BI_PRINT_BACKTRACE: case IR_BI_SPRINT_BACKTRACE:
		return IR_STACK_KERNEL | IR_STACK_KSYMS;
	case IR_BI_UBACKTRACE: case IR_BI_PRINT_UBACKTRACE: case IR_BI_SPRINT_UBACKTRACE:
		return IR_STACK_USER | IR_STACK_MAPS;
	case IR_BI_SYMNAME: case IR_BI_SYMDATA:
		return IR_STACK_KSYMS;
	case IR_BI_USYMNAME: case IR_BI_USYMDATA:
	case IR_BI_USYMFILELINE: case IR_BI_USYMFILE: case IR_BI_USYMLINE:
		return IR_STACK_MAPS;
	default:
		return 0;
	}
}

/* What @code needs itself, plus what the functions it calls need
   (@fbits, NULL: ignore calls). */
static unsigned ls_code_bits(const struct ir_code *code, const unsigned *fbits, unsigned nfuncs)
{
	unsigned i, bits = 0;

	for (i = 0; i < code->n; i++) {
		const struct ir_insn *in = &code->insns[i];

		if (in->op == IR_BI)
			bits |= ls_builtin_bits(in->a);
		else if (in->op == IR_CALL && fbits && (unsigned)in->b < nfuncs)
			bits |= fbits[in->b];
	}
	return bits;
}

/* Per function, what it and everything it calls needs (a fixed point). */
static unsigned *ls_func_bits(struct arena *a, const struct ir_prog *ir)
{
	unsigned *fb = arena_alloc(a, (ir->nfuncs + 1) * sizeof(*fb));
	bool changed = true;
	unsigned i, b;

	while (changed) {
		changed = false;
		for (i = 0; i < ir->nfuncs; i++) {
			b = fb[i] | ls_code_bits(&ir->funcs[i].code, fb, ir->nfuncs);
			if (b != fb[i]) {
				fb[i] = b;
				changed = true;
			}
		}
	}
	return fb;
}

/* Insert @o before plan object @at. */
/*
 * The trigger's filter: exactly the event's own.  The kernel runs an
 * event's triggers whether or not its filter lets the record through
 * (trace_events_trigger.c, __event_trigger_test_discard), so a looser
 * trigger filter would record stacks for records that are discarded.
 */
static const char *ls_filter(const struct ir_prog *ir, const struct ir_event *e)
{
	unsigned i;

	for (i = 0; i < ir->kplan.n; i++) {
		const struct kp_obj *o = &ir->kplan.objs[i];

		if (o->kind == KP_FILTER && !strcmp(o->u.filter.system, e->system) &&
		    !strcmp(o->u.filter.event, e->name))
			return o->u.filter.expr;
	}
	return NULL;
}

/* The plan index of event @e's enable (or the plan's end). */
static unsigned ls_enable_at(const struct ir_prog *ir, const struct ir_event *e)
{
	unsigned i;

	for (i = 0; i < ir->kplan.n; i++) {
		const struct kp_obj *o = &ir->kplan.objs[i];

		if (o->kind == KP_ENABLE && !strcmp(o->u.enable.system, e->system) &&
		    !strcmp(o->u.enable.event, e->name))
			return i;
	}
	return ir->kplan.n;
}

static void ls_add_record(struct arena *a, struct ir_prog *ir, const char *name, unsigned rec)
{
	ir->events = arena_grow(a, ir->events, ir->nevents, &ir->ecap, sizeof(*ir->events));
	memset(&ir->events[ir->nevents], 0, sizeof(ir->events[0]));
	ir->events[ir->nevents].system = "ftrace";
	ir->events[ir->nevents].name = name;
	ir->events[ir->nevents].stack_rec = rec;
	ir->nevents++;
}

void lower_stack_event(struct arena *a, struct ir_event *e, const struct tpf_event *ev)
{
	const struct fetch_site *fs = ev->dyn_func;

	e->kstack_tp = !ev->dyn;
	if (!ev->dyn || ev->dyn->kind != KP_UPROBE || ev->dyn_return || !fs || fs->stmt ||
	    !fs->file || !fs->file->cc || !fs->file->cc->stack0)
		return;
	e->uentry_ra = arena_printf(a, "+0(%s)", fs->file->cc->sp);
}

/* Event @e's uprobe also fetches the return address (see above). */
static void ls_fetch_ra(struct arena *a, struct ir_prog *ir, const struct ir_event *e)
{
	unsigned i;

	for (i = 0; i < ir->kplan.n; i++) {
		struct kp_obj *o = &ir->kplan.objs[i];
		struct kp_dynevent *d;
		struct kp_arg *args;

		if (o->kind != KP_DYNEVENT || strcmp(o->u.dyn->group, e->system) ||
		    strcmp(o->u.dyn->name, e->name))
			continue;
		d = arena_alloc(a, sizeof(*d));
		*d = *o->u.dyn;
		args = arena_alloc(a, (d->nargs + 1) * sizeof(*args));
		if (d->nargs)
			memcpy(args, d->args, d->nargs * sizeof(*args));
		args[d->nargs++] = (struct kp_arg){ IR_STACK_RA_FIELD, e->uentry_ra, "u64" };
		d->args = args;
		d->acap = d->nargs;
		o->u.dyn = d;
		return;
	}
}

static void ls_explain(FILE *out, const struct ir_prog *ir, unsigned nev)
{
	unsigned i;

	for (i = 0; out && i < nev; i++) {
		const struct ir_event *e = &ir->events[i];

		if (e->stacks & IR_STACK_KERNEL)
			fprintf(out, "Pass 3: event %s:%s: kernel stacks from a stacktrace trigger "
				"(the event's filter), paired in user space\n", e->system, e->name);
		if (e->stacks & IR_STACK_USER)
			fprintf(out, "Pass 3: event %s:%s: user stacks from the instance's "
				"userstacktrace option: at most 8 frames%s\n", e->system, e->name,
				e->uentry_ra ? ", plus the return address the uprobe fetches" : "");
	}
}

void lower_stack(struct arena *a, struct ir_prog *ir, FILE *explain)
{
	unsigned *fb = ls_func_bits(a, ir), i, bits, all = 0, nev = ir->nevents;

	for (i = 0; i < ir->nprobes; i++) {
		const struct ir_probe *p = &ir->probes[i];

		bits = ls_code_bits(&p->code, fb, ir->nfuncs);
		all |= bits;
		if (p->kind == IR_P_EVENT && p->event < nev)
			ir->events[p->event].stacks |= bits & (IR_STACK_KERNEL | IR_STACK_USER);
	}
	/* a hist's stack key: its frames are read back through kallsyms */
	for (i = 0; i < ir->nhreads; i++)
		for (bits = 0; bits < ir->hreads[i].nkeys; bits++)
			if (ir->hreads[i].keys[bits].kind == IR_HK_KSTACK)
				all |= IR_STACK_KSYMS;
	ir->stacks = all;
	for (i = 0; i < nev; i++) {
		struct ir_event *e = &ir->events[i];

		if (!(e->stacks & IR_STACK_USER))
			e->uentry_ra = NULL;
		else if (e->uentry_ra)
			ls_fetch_ra(a, ir, e);
	}
	for (i = 0; i < nev; i++) {
		const struct ir_event *e = &ir->events[i];

		if (!(e->stacks & IR_STACK_KERNEL))
			continue;
		lower_kplan_insert(a, ir, ls_enable_at(ir, e), &(struct kp_obj){ .kind = KP_TRIGGER,
			.u.trigger = { .system = e->system, .event = e->name,
				       .kind = KP_T_STACKTRACE, .filter = ls_filter(ir, e) } });
	}
	if (all & IR_STACK_USER) {
		unsigned at = 0;

		/* before the first enable: every record then has its stack */
		while (at < ir->kplan.n && ir->kplan.objs[at].kind != KP_ENABLE)
			at++;
		lower_kplan_insert(a, ir, at, &(struct kp_obj){ .kind = KP_OPTION,
			.u.option = { .kind = KP_OPT_FLAG, .name = "userstacktrace", .on = true } });
	}
	ls_explain(explain, ir, nev);
	if (all & IR_STACK_KERNEL)
		ls_add_record(a, ir, "kernel_stack", IR_STACK_KERNEL);
	if (all & IR_STACK_USER)
		ls_add_record(a, ir, "user_stack", IR_STACK_USER);
}
