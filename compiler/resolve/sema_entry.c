/*
 * sema_entry.c - pass 2: @entry(), values of a function's (or a
 * tracepoint pair's) entry read in its .return probe.
 *
 * In:  an @entry(EXPR) met by typing (sema_target.c), or a parameter
 *      read in a .return probe, which stap reads at the entry too.
 * Out: EXPR typed against the entry's event (a companion kprobe or
 *      uprobe on the function's entry, or the pair's first tracepoint),
 *      its slot among the probe's @entry values in e->ref.
 */
#include "sema_int.h"
#include "arena.h"
#include "fetch.h"
#include "resolve_dwarf.h"
#include "resolve_tpfmt.h"
#include "target.h"

#include <string.h>

/*
 * An entry event for return event @ev: same function, no fetches yet.
 * Not yet @ev's entry probe: ent_event() makes it that; alone it lets
 * sema_target.c compute what a fetch at the entry would read.
 */
struct tpf_event *sema_entry_event(struct sema_ctx *c, const struct tpf_event *ev)
{
	struct tpf_event *en = arena_alloc(c->arena, sizeof(*en));

	*en = *ev;
	en->fields = NULL;
	en->nfields = 0;
	en->fcap = 0;
	en->dyn_return = false;
	en->name = arena_printf(c->arena, "%se", ev->name);
	en->dyn = arena_alloc(c->arena, sizeof(*en->dyn));
	*en->dyn = *ev->dyn;	/* same target and origin, no maxactive */
	en->dyn->kind = ev->dyn->kind == KP_URETPROBE ? KP_UPROBE : KP_KPROBE;
	en->dyn->name = en->name;
	en->dyn->maxactive = 0;
	en->dyn_entry = NULL;
	return en;
}

/* The entry probe of return event @ev, made at the first @entry(). */
static struct tpf_event *ent_event(struct sema_ctx *c, struct tpf_event *ev)
{
	if (!ev->dyn_entry)
		ev->dyn_entry = sema_entry_event(c, ev);
	return ev->dyn_entry;
}

/*
 * Tracepoints that end what another one began on the same task, as a
 * function's return ends its call: a system call's exit and its entry,
 * an interrupt handler's, a timer callback's, a work item's.  @entry()
 * in a probe on the first reads the second (paired per thread, as for
 * functions).  NULL: none.
 */
static struct tpf_event *ent_tracepoint(struct sema_ctx *c, struct tpf_event *ev)
{
	static const char *const pairs[][3] = {
		{ "raw_syscalls", "sys_exit", "sys_enter" },
		{ "irq", "irq_handler_exit", "irq_handler_entry" },
		{ "irq", "softirq_exit", "softirq_entry" },
		{ "timer", "hrtimer_expire_exit", "hrtimer_expire_entry" },
		{ "timer", "timer_expire_exit", "timer_expire_entry" },
		{ "workqueue", "workqueue_execute_end", "workqueue_execute_start" },
	};
	const char *name = NULL;
	size_t i;

	if (ev->dyn_entry || ev->dyn || !ev->system)
		return ev->dyn_entry;
	if (!strcmp(ev->system, "syscalls") && !strncmp(ev->name, "sys_exit_", 9))
		name = arena_printf(c->arena, "sys_enter_%s", ev->name + 9);
	for (i = 0; !name && i < sizeof(pairs) / sizeof(pairs[0]); i++)
		if (!strcmp(ev->system, pairs[i][0]) && !strcmp(ev->name, pairs[i][1]))
			name = pairs[i][2];
	if (name && *c->in->target->tracefs)
		ev->dyn_entry = tpf_load(c->arena, c->in->target->tracefs, ev->system, name);
	return ev->dyn_entry;
}

bool sema_entry_retargs(const struct sema_ctx *c, const struct tpf_event *ev)
{
	return ev->dyn && ev->dyn->kind == KP_KRETPROBE && ev->dyn_func &&
	       target_has(c->in->target, TGT_RETPROBE_ARGS);
}

/*
 * The fetch text and field name of @entry(A)'s operand @a at the entry
 * of return event @ev, when A is an argument as the entry's registers
 * hold it: pointer_arg(N) and the like (made a resolved target here),
 * or a parameter a register holds.  False: something else.
 */
static bool ent_arg_fetch(struct sema_ctx *c, struct tpf_event *ev, struct ast_expr *a,
			  const char **fetch, const char **name)
{
	static const struct ast_chain none;
	struct tpf_event *saved = c->entry;
	bool report = c->report;
	struct fetch f;
	char err[512];

	if (a->kind == AST_CALL && sema_regs_fn(c, a->str)) {
		c->entry = sema_entry_event(c, ev);
		c->report = false;	/* an error stays for the entry probe to say */
		sema_regs_address(c, a);
		c->entry = saved;
		c->report = report;
	}
	if (a->kind == AST_TARGET && a->module && strchr(a->module, '=')) {
		*name = arena_strndup(c->arena, a->module, strcspn(a->module, "="));
		*fetch = strchr(a->module, '=') + 1;
		return true;
	}
	if (a->kind != AST_TARGET || a->module || a->chain.n || a->str[0] != '$' ||
	    a->str[1] == '$' || !strcmp(a->str, "$return") ||
	    rdwarf_fetch(c->arena, ev->dyn_func, a->str, &none, false, &f, err, sizeof(err)) != 0 ||
	    f.calc || f.is_string)
		return false;
	*name = f.name;
	*fetch = f.arg;
	return true;
}

/*
 * @entry(A) @e in a kernel function's .return probe @ev, A an argument
 * (pointer_arg(N), a parameter in a register): where the kernel's return
 * probes fetch $argN (6.10+, TGT_RETPROBE_ARGS: the kretprobe saves the
 * arguments at the entry), @e becomes the return's own fetch of $argN:
 * the same value, with no entry probe and no pairing of the two events
 * per thread.  True then, @e typed.
 */
static bool ent_return_arg(struct sema_ctx *c, struct tpf_event *ev, struct ast_expr *e,
			   enum sem_type *t)
{
	const char *fetch, *name, *colon, *arg;
	struct ast_expr *a = e->a;

	if (!sema_entry_retargs(c, ev) || !ent_arg_fetch(c, ev, a, &fetch, &name))
		return false;
	colon = strrchr(fetch, ':');
	if (!colon || !(arg = sema_entry_arg_reg(arena_strndup(c->arena, fetch,
								(size_t)(colon - fetch)))))
		return false;
	e->kind = AST_TARGET;
	e->str = a->str;
	e->module = arena_printf(c->arena, "%s=%s%s", name, arg, colon);
	e->a = NULL;
	memset(&e->chain, 0, sizeof(e->chain));
	c->changed = true;
	*t = c->type_expr(c, e);
	return true;
}

/* @e's slot among the probe's @entry values (the same on every round). */
static unsigned ent_slot(struct sema_ctx *c, struct ast_expr *e)
{
	struct sem_probe *p = c->probe;
	unsigned i;

	for (i = 0; i < p->nentries; i++)
		if (p->entries[i] == e->a)
			return i;
	p->entries = arena_grow(c->arena, p->entries, p->nentries, &p->ecap,
				sizeof(*p->entries));
	p->entries[p->nentries] = e->a;
	c->changed = true;
	return p->nentries++;
}

/*
 * @entry(EXPR) in a .return probe: EXPR's value at the function's entry.
 * As in stap, EXPR is evaluated once, by a companion probe on the
 * function's entry: its target variables are fetch arguments of that
 * probe's event, and clocks, tid(), execname() and globals are those of
 * the entry.  The return probe reads the value as slot e->ref of the
 * matching entry (pass 3 builds the entry probe from sem_probe.entries).
 */
enum sem_type sema_entry_expr(struct sema_ctx *c, struct ast_expr *e)
{
	struct tpf_event *ev = c->probe && !c->func ? c->probe->event : NULL;
	enum sem_type t;

	if (!ev || (!(ev->dyn_func && ev->dyn_return) && !ent_tracepoint(c, ev))) {
		sema_err(c, e->span, "@entry() is for .return probes of kernel.function() and "
		       "process().function()");
		return SEM_UNKNOWN;
	}
	if (c->entry) {
		sema_err(c, e->span, "@entry() inside @entry(): the operand is already "
		       "evaluated at the function's entry");
		return SEM_UNKNOWN;
	}
	if (ent_return_arg(c, ev, e, &t))
		return t;
	e->ref = (int)ent_slot(c, e);
	c->entry = ev->dyn_func ? ent_event(c, ev) : ev->dyn_entry;
	t = c->type_expr(c, e->a);
	c->entry = NULL;
	if (t == SEM_STATS) {
		sema_err(c, e->a->span, "@entry() of a statistic: use @count(), @sum() ...");
		return SEM_UNKNOWN;
	}
	return t;
}

/*
 * $param (and $param->chain) in a .return probe is, as stap has it, its
 * value at the function's entry: the return's registers no longer hold
 * it.  When @e reads at the entry but not at the return, @e becomes
 * @entry(@e), read by the entry probe; true then.
 */
bool sema_entry_reads(struct sema_ctx *c, const struct tpf_event *ev, const char *var,
		      const struct ast_chain *chain)
{
	struct fetch f;
	char err[512];

	return ev->dyn_return && !c->entry && strcmp(var, "$return") != 0 && var[1] != '$' &&
	       rdwarf_fetch(c->arena, ev->dyn_func, var, chain, false, &f, err, sizeof(err)) == 0;
}

bool sema_entry_param(struct sema_ctx *c, struct ast_expr *e, const struct tpf_event *ev)
{
	struct ast_expr *inner;

	if (!sema_entry_reads(c, ev, e->str, &e->chain))
		return false;
	inner = ast_clone_expr(c->arena, e);
	*e = *ast_expr_new(c->arena, AST_ENTRY, inner->span);
	e->a = inner;
	c->changed = true;
	return true;
}

/*
 * Argument N's register at a kernel function's entry, as the kernel's
 * $argN reads it (x86_64's calling convention): a return probe that
 * fetches $argN reads the value the entry saved, where the registers
 * at the return hold other values.
 */
const char *sema_entry_arg_reg(const char *reg)
{
	static const char *const regs[] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };
	static const char *const args[] = { "$arg1", "$arg2", "$arg3", "$arg4", "$arg5", "$arg6" };
	size_t i;

	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (!strcmp(reg, regs[i]))
			return args[i];
	return NULL;
}
