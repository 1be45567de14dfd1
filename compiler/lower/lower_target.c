/*
 * lower_target.c - pass 3: the -c/-x target as a pre-filter of every
 * event (set_event_pid), when each probe only runs for its threads.
 *
 * Events carry the thread id (common_pid), not the process id, so no
 * event filter can say pid() == target() (lower_filter.c).  But the
 * instance's set_event_pid can hold every thread of the target, and
 * with options/event-fork the kernel adds each thread (and child
 * process) a listed one creates: what it lets through is a superset of
 * the target's records, and never misses one.  So when every event
 * probe's guard has pid() == target() (or tid() == target()) where the
 * kernel could have dropped the record (nothing with a side effect
 * evaluated before it: lower_guard.c), the plan lists the target's
 * threads there (kplan_apply.c reads /proc/TARGET/task) and each probe
 * keeps its own check in user space: children pass the pre-filter, the
 * check drops them.  The results are the same; fewer records cross.
 *
 * Not when a probe has another task's context (scheduler.cpu_on: its
 * pid() is not the recording task's), or the script calls pexecname()
 * (the parent's exec and rename records are outside the list), or
 * there is no -c or -x (target() is 0).
 */
#include "lower_int.h"
#include "ast_walk.h"

#include <string.h>

static bool lt_call(const struct ast_expr *e, unsigned bi)
{
	return e->kind == AST_CALL && e->ref < 0 && -e->ref - 1 == (int)bi && !e->args.n;
}

/* Is @e "pid() == target()" or "tid() == target()", either way round? */
static bool lt_target_test(const struct ast_expr *e)
{
	const struct ast_expr *a, *b;

	if (e->kind != AST_BINARY || e->op != AST_OP_EQ)
		return false;
	a = lt_call(e->a, IR_BI_TARGET) ? e->b : e->a;
	b = a == e->a ? e->b : e->a;
	return lt_call(b, IR_BI_TARGET) && (lt_call(a, IR_BI_PID) || lt_call(a, IR_BI_TID));
}

/* Does guard @g hold only for the target's threads, tested where the
   kernel could drop the record?  0 no, 1 yes, 2 yes and in user space
   (pid(): the event filter has tid() == target() already). */
static int lt_targeted(const struct lw_probe_guards *g)
{
	unsigned i;

	for (i = 0; i < g->n; i++) {
		if (lt_target_test(g->v[i].expr))
			return g->v[i].filter ? 1 : 2;
		if (!g->v[i].filter && !lw_pure(g->v[i].expr))
			return 0;	/* a side effect first: nothing may be dropped */
	}
	return 0;
}

static int lt_pexecname_fn(struct ast_expr *e, void *arg)
{
	(void)arg;
	return lt_call(e, IR_BI_PEXECNAME) ? -1 : 0;
}

/* Why the target cannot pre-filter every event, or NULL. */
static const char *lt_why_not(const struct lw_ctx *c, const struct lower_options *opt)
{
	const struct sem_prog *sp = c->sp;
	unsigned i, user = 0;
	int t;

	if (opt->target_zero)
		return "no -c or -x";
	for (i = 0; i < sp->nprobes; i++) {
		if (sp->probes[i]->kind != SEM_P_TRACE)
			continue;
		if (sp->probes[i]->other_task)
			return "a probe's context is another task";
		if (!(t = lt_targeted(&c->guards[i])))
			return "a probe has no pid() == target() guard the kernel could apply";
		user += t == 2;
	}
	if (!user)
		return "";	/* no pid() test: nothing to say */
	for (i = 0; i < sp->nprobes; i++)
		if (ast_walk_stmt(sp->probes[i]->body, lt_pexecname_fn, NULL))
			return "the script calls pexecname()";
	for (i = 0; i < sp->nfuncs; i++)
		if (sp->funcs[i]->ast && sp->funcs[i]->ast->body &&
		    ast_walk_stmt(sp->funcs[i]->ast->body, lt_pexecname_fn, NULL))
			return "the script calls pexecname()";
	return NULL;
}

void lw_target_prefilter(struct lw_ctx *c, const struct lower_options *opt)
{
	const char *why = lt_why_not(c, opt);

	if (why) {
		if (opt->explain && !opt->target_zero && *why)
			fprintf(opt->explain, "Pass 3: no set_event_pid pre-filter: %s\n", why);
		return;
	}
	/* first of all: no record of another task before the list is set */
	lower_kplan_insert(c->arena, c->ir, 0, &(struct kp_obj){ .kind = KP_OPTION,
		.u.option = { .kind = KP_OPT_EVENT_PID } });
	lower_kplan_insert(c->arena, c->ir, 0, &(struct kp_obj){ .kind = KP_OPTION,
		.u.option = { .kind = KP_OPT_FLAG, .name = "event-fork", .on = true } });
	c->ir->uses_target = true;
	if (opt->explain)
		fprintf(opt->explain, "Pass 3: every event probe checks pid() == target(): "
			"set_event_pid lists the target's threads (event-fork: and what "
			"they create) as a pre-filter, the checks stay in user space\n");
}
