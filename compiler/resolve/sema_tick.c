/*
 * sema_tick.c - pass 2: timer.profile and timer.profile.tick, stap's
 * sampling probe on every CPU's scheduler tick, with tracefs alone.
 *
 * The tick is an hrtimer on each CPU (while the CPU is busy; an idle
 * CPU stops it, as in stap, NO_HZ), whose expiry runs in hard irq on
 * that CPU with `current` the task it interrupted.  So the
 * timer:hrtimer_expire_entry tracepoint, kept to records whose
 * `function` is the tick handler's address, is one record per tick in
 * the interrupted task's context: common_pid, the CPU, the kernel and
 * user stacks are that task's, which is what stap's timer.profile gives.
 * The kernel's filter takes a number, so the handler's address comes
 * from the target's kallsyms (target_kernel_symbols); its name changed
 * in Linux 6.9: tick_sched_timer before, tick_nohz_handler since (which
 * before 6.9 named the low-resolution tick's clockevent handler, not an
 * hrtimer: hence tick_sched_timer is looked for first).
 *
 * In: the point.  Out: the event and the condition on its record, for
 * sema_probe.c to emit.  A leaf: calls no other sema_*.c file.
 */
#include "sema_int.h"
#include "arena.h"
#include "diag.h"
#include "resolve_tpfmt.h"

#include <limits.h>
#include <string.h>

/* The tick handler's names, most recent kernel's last. */
static const char *const tick_handlers[] = { "tick_sched_timer", "tick_nohz_handler" };
#define TICK_NHANDLERS (sizeof(tick_handlers) / sizeof(tick_handlers[0]))

static bool tick_is(const struct ast_ppoint *p, unsigned k, const char *name)
{
	return k < p->n && strcmp(p->comps[k].name, name) == 0 && !p->comps[k].arg;
}

/* The tick handler's address, or 0 after an error at @p. */
static uint64_t tick_handler(struct sema_ctx *c, const struct ast_ppoint *p, bool optional)
{
	uint64_t addrs[TICK_NHANDLERS];
	char err[PATH_MAX + 256];
	unsigned i;

	if (target_kernel_symbols(c->in->target, tick_handlers, TICK_NHANDLERS, addrs, err,
				  sizeof(err)) != 0) {
		if (!optional)
			diag_error(c->diag, p->span, "timer.profile filters on the address of the "
				   "scheduler tick's handler, read from kallsyms: %s", err);
		return 0;
	}
	for (i = 0; i < TICK_NHANDLERS; i++)
		if (addrs[i])
			return addrs[i];
	if (!optional)
		diag_error(c->diag, p->span, "timer.profile: kallsyms has no tick_sched_timer "
			   "(Linux < 6.9) or tick_nohz_handler (6.9 and later), the scheduler "
			   "tick's hrtimer handler that ktap keeps timer:hrtimer_expire_entry to");
	return 0;
}

int sema_tick_point(struct sema_ctx *c, const struct ast_ppoint *p, bool optional,
		    struct tpf_event **ev, struct ast_expr **cond)
{
	const struct tpf_field *f;
	uint64_t addr;

	if (p->n < 2 || !tick_is(p, 0, "timer") || !tick_is(p, 1, "profile"))
		return 0;
	if (p->n == 4 && tick_is(p, 2, "freq") && strcmp(p->comps[3].name, "hz") == 0) {
		diag_error(c->diag, p->span, "timer.profile.freq.hz(N) samples with a perf "
			   "event, which ktap does not create (it uses tracefs only): use "
			   "timer.profile (every scheduler tick, CONFIG_HZ per second per busy CPU)");
		return -1;
	}
	if (p->n > 3 || (p->n == 3 && !tick_is(p, 2, "tick")))
		return 0;
	*ev = tpf_load(c->arena, c->in->target->tracefs, "timer", "hrtimer_expire_entry");
	f = *ev ? tpf_field(*ev, "function") : NULL;
	if (!f || f->size != 8) {
		if (!optional)
			diag_error(c->diag, p->span, "timer.profile needs the tracepoint "
				   "timer:hrtimer_expire_entry with its 'function' field%s%s%s",
				   SEMA_NO_TRACEFS(c));
		return -1;
	}
	if ((addr = tick_handler(c, p, optional)) == 0)
		return -1;
	*cond = ast_binary(c->arena, AST_BINARY, AST_OP_EQ,
			   ast_named(c->arena, AST_TARGET, "$function", p->span),
			   ast_num(c->arena, (int64_t)addr, p->span), p->span);
	return 1;
}
