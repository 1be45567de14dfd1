/*
 * sema_timer.c - pass 2: the timer.* points.  timer.UNIT(N)[.randomize(M)]
 * are ktap's own timers (user space, SEM_P_TIMER).  timer.profile and
 * timer.profile.tick are stap's sampling probe on every CPU's scheduler
 * tick, with tracefs alone:
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
 * In: the point.  Out: what it resolves to (struct sema_timer), for
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

/* Component @k of @p is @name, without an argument. */
static bool timer_bare(const struct ast_ppoint *p, unsigned k, const char *name)
{
	return k < p->n && strcmp(p->comps[k].name, name) == 0 && !p->comps[k].arg;
}

/* The argument of component @k of @p as a number; false if absent. */
static bool timer_num_arg(const struct ast_ppoint *p, unsigned k, int64_t *v)
{
	if (k >= p->n || !p->comps[k].arg || p->comps[k].arg->kind != AST_NUM)
		return false;
	*v = p->comps[k].arg->num;
	return true;
}

/* Nanoseconds per unit of timer.UNIT(N); 0 when UNIT is not a timer. */
static int64_t timer_unit(const char *unit, int64_t n, bool *per_second)
{
	*per_second = false;
	if (!strcmp(unit, "s") || !strcmp(unit, "sec"))
		return 1000000000;
	if (!strcmp(unit, "ms") || !strcmp(unit, "msec"))
		return 1000000;
	if (!strcmp(unit, "us") || !strcmp(unit, "usec"))
		return 1000;
	if (!strcmp(unit, "ns") || !strcmp(unit, "nsec"))
		return 1;
	if (!strcmp(unit, "jiffies"))
		return 4000000;		/* HZ=250, Debian's default */
	if (!strcmp(unit, "hz")) {
		*per_second = true;
		return n;
	}
	return 0;
}

/* timer.UNIT(N)[.randomize(M)]: 1 and @t, or -1 after an error. */
static int timer_own(struct sema_ctx *c, const struct ast_ppoint *p, struct sema_timer *t)
{
	int64_t n, r = 0, unit;
	bool hz;

	if (!timer_num_arg(p, 1, &n) || n <= 0 ||
	    (unit = timer_unit(p->comps[1].name, n, &hz)) == 0) {
		diag_error(c->diag, p->span,
			   "expected timer.s(N), .ms(N), .us(N), .ns(N), .hz(N) or .jiffies(N) with N > 0%s",
			   sema_point_is(p, 1, "profile") ? ", or timer.profile[.tick]" : "");
		return -1;
	}
	if (p->n == 3 && (!sema_point_is(p, 2, "randomize") || !timer_num_arg(p, 2, &r) || r < 0)) {
		diag_error(c->diag, p->comps[2].span,
			   "expected .randomize(N) with N >= 0 after a timer");
		return -1;
	}
	if (p->n == 3 && hz) {
		diag_error(c->diag, p->comps[2].span,
			   "randomization is not supported for hertz timers (timer.hz(N))");
		return -1;
	}
	t->kind = SEM_P_TIMER;
	t->pp = sema_point_text(c, p);
	t->period_ns = hz ? 1000000000 / n : n * unit;
	t->randomize_ns = hz ? 0 : r * unit;
	if (t->period_ns <= 0)
		t->period_ns = 1;
	return 1;
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

/* timer.profile[.tick]: 0 when @p is not one, 1 and @t, or -1 after an error. */
static int timer_profile(struct sema_ctx *c, const struct ast_ppoint *p, bool optional,
			 struct sema_timer *t)
{
	const struct tpf_field *f;
	uint64_t addr;

	if (p->n < 2 || !timer_bare(p, 0, "timer") || !timer_bare(p, 1, "profile"))
		return 0;
	if (p->n == 4 && timer_bare(p, 2, "freq") && strcmp(p->comps[3].name, "hz") == 0) {
		diag_error(c->diag, p->span, "timer.profile.freq.hz(N) samples with a perf "
			   "event, which ktap does not create (it uses tracefs only): use "
			   "timer.profile (every scheduler tick, CONFIG_HZ per second per busy CPU)");
		return -1;
	}
	if (p->n > 3 || (p->n == 3 && !timer_bare(p, 2, "tick")))
		return 0;
	t->event = tpf_load(c->arena, c->in->target->tracefs, "timer", "hrtimer_expire_entry");
	f = t->event ? tpf_field(t->event, "function") : NULL;
	if (!f || f->size != 8) {
		if (!optional)
			diag_error(c->diag, p->span, "timer.profile needs the tracepoint "
				   "timer:hrtimer_expire_entry with its 'function' field%s%s%s",
				   SEMA_NO_TRACEFS(c));
		return -1;
	}
	if ((addr = tick_handler(c, p, optional)) == 0)
		return -1;
	t->kind = SEM_P_TRACE;
	t->pp = "timer.profile.tick";	/* what the alias timer.profile is of, as in stap */
	t->family = p->n == 2 ? "timer.profile" : NULL;
	t->cond = ast_binary(c->arena, AST_BINARY, AST_OP_EQ,
			     ast_named(c->arena, AST_TARGET, "$function", p->span),
			     ast_num(c->arena, (int64_t)addr, p->span), p->span);
	return 1;
}

int sema_timer_point(struct sema_ctx *c, const struct ast_ppoint *p, bool optional,
		     struct sema_timer *t)
{
	int r;

	memset(t, 0, sizeof(*t));
	if (p->n < 2 || !sema_point_is(p, 0, "timer"))
		return 0;
	if ((r = timer_profile(c, p, optional, t)) != 0) {
		t->none = r < 0 && optional;	/* an optional point: dropped quietly */
		return t->none ? 1 : r;
	}
	if (p->n > 3)
		return 0;
	return timer_own(c, p, t);
}
