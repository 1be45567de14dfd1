/*
 * sema_trigger.c - pass 2: begin and end probes that read the running
 * task.
 *
 * stap's begin and end probes run in the session's own task, and its
 * scripts read that task there: task_current(), @cast(task_current(),
 * "task_struct")->fs, task_execname(task_current()).  Reading 'current'
 * takes an event (sema_current.c): such a probe gets a kprobe of its
 * own on the getppid system call, which ktap makes itself just before
 * it runs the probe (runtime/run_trigger.c); the kprobe's filter keeps ktap's
 * own call only, and its fetch arguments read 'current' and what the
 * probe reads through it.  The values are ktap's task's at that moment,
 * read by the kernel, as stap's are its own task's.
 *
 * The same for the other reads of kernel memory at an address the
 * kernel can fetch there (a constant: @cast(0, "task_struct")->tgid,
 * kernel_long(ADDR)): the event is made when typing first needs it.
 *
 * In:  a begin or end probe, before typing (sema.c, when its code calls
 *      task_current()) or while it is typed (a memory read).
 * Out: its event set and self_trigger, where the kernel has kprobes and
 *      the trigger function; else unchanged (the read is then an error
 *      saying what is missing).
 */
#include "sema_int.h"
#include "arena.h"
#include "resolve_sym.h"
#include "target.h"

#include <string.h>

/* The kernel's function of getppid(2), which takes no argument, changes
   nothing and which ktap calls nowhere else: __do_sys_getppid, of which
   x86-64's system-call entry __x64_sys_getppid is an alias (6.1, 6.18:
   available_filter_functions lists only the first), else the entry. */
static const char *const trigger_funcs[] = { "__do_sys_getppid", "__x64_sys_getppid" };

bool sema_trigger_attach(struct sema_ctx *c, struct sem_probe *sp)
{
	struct fetch_site *uf;
	char err[256];
	unsigned i;

	if (sp->event)
		return sp->self_trigger;
	if ((sp->kind != SEM_P_BEGIN && sp->kind != SEM_P_END) || !c->in->up ||
	    !target_has(c->in->target, TGT_KPROBES))
		return false;
	uf = arena_alloc(c->arena, sizeof(*uf));
	for (i = 0; i < sizeof(trigger_funcs) / sizeof(trigger_funcs[0]); i++)
		if (rsym_find_kernel_raw(c->in->up, c->arena, NULL, trigger_funcs[i], uf, err,
					 sizeof(err)) == 0)
			break;
	if (i == sizeof(trigger_funcs) / sizeof(trigger_funcs[0]))
		return false;
	sp->event = sema_dyn_event(c, uf, NULL, false, sp->point);
	/* each probe's own event, named after it: its own fetch arguments */
	sp->event->name = sp->event->dyn->name =
		arena_printf(c->arena, "%s_%u", sp->kind == SEM_P_BEGIN ? "begin" : "end", sp->index);
	sp->self_trigger = true;
	c->changed = true;
	return true;
}

struct tpf_event *sema_trigger_event(struct sema_ctx *c)
{
	struct sem_probe *pr = c->func ? c->func->site : c->probe;

	return pr && !c->entry && sema_trigger_attach(c, pr) ? pr->event : NULL;
}
