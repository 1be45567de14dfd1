/*
 * sema_context.c - pass 2: probes whose context is not the task that
 * recorded the event.
 *
 * A trace record's context (pid(), tid(), execname()) is the task that
 * was running when the kernel wrote it.  stap's scheduler.cpu_on runs in
 * the task being switched in, but the tracepoint ktap has for it
 * (sched_switch) is written by the task being switched out; the record
 * names the other task in its own fields.  A tapset alias says so with a
 * statement __ktap_context("TID_FIELD", "COMM_FIELD") in its body: the
 * statement is removed and every tid(), pid() and execname() in the
 * probe's handler and condition reads those fields instead.  The field
 * holds a thread id, so pid() is that thread id too (the process id of
 * every single-threaded process and of a main thread), as the *_pid
 * variables of tapset/scheduler.stp.  Functions the handler calls keep
 * the recording task's context.  Such probes run after the others of
 * the same record (sema_context_order()).
 */
#include "sema_int.h"
#include "ast_walk.h"
#include "arena.h"

#include <string.h>

struct ctx_fields {
	struct sema_ctx *c;
	const char *tid, *comm;	/* "$field", or NULL while not found */
};

static const char *ctx_str_arg(struct sema_ctx *c, const struct ast_expr *e, unsigned k)
{
	const struct ast_expr *a = k < e->args.n ? e->args.v[k] : NULL;

	if (!a || a->kind != AST_STR)
		return NULL;
	return arena_printf(c->arena, "$%.*s", (int)a->len, a->str);
}

/* Find and remove the marker statement in @s, recording its fields. */
static void ctx_take_marker(struct ctx_fields *f, struct ast_stmt *s)
{
	unsigned i;

	if (!s)
		return;
	if (s->kind == AST_S_EXPR && s->e && s->e->kind == AST_CALL &&
	    !strcmp(s->e->str, "__ktap_context")) {
		f->tid = ctx_str_arg(f->c, s->e, 0);
		f->comm = ctx_str_arg(f->c, s->e, 1);
		s->kind = AST_S_BLOCK;
		s->e = NULL;
		s->body.n = 0;
		return;
	}
	ctx_take_marker(f, s->s1);
	ctx_take_marker(f, s->s2);
	for (i = 0; i < s->body.n; i++)
		ctx_take_marker(f, s->body.v[i]);
}

/* Does the script (or the tapset) define function @name itself? */
bool sema_defines_func(struct sema_ctx *c, const char *name)
{
	unsigned i;

	for (i = 0; i < c->nfdecls; i++)
		if (!strcmp(c->fdecls[i]->name, name))
			return true;
	return false;
}

/* tid()/pid() -> $TID_FIELD, execname() -> $COMM_FIELD. */
static int ctx_rewrite_fn(struct ast_expr *e, void *arg)
{
	struct ctx_fields *f = arg;
	const char *to;

	if (e->kind != AST_CALL || e->args.n != 0 || sema_defines_func(f->c, e->str))
		return 0;
	if (!strcmp(e->str, "tid") || !strcmp(e->str, "pid"))
		to = f->tid;
	else if (!strcmp(e->str, "execname"))
		to = f->comm;
	else
		return 0;
	if (to)
		*e = *ast_named(f->c->arena, AST_TARGET, to, e->span);
	return 1;
}

void sema_context_rewrite(struct sema_ctx *c, struct sem_probe *sp)
{
	struct ctx_fields f = { c, NULL, NULL };

	ctx_take_marker(&f, sp->body);
	if (!f.tid && !f.comm)
		return;
	sp->other_task = true;
	ast_walk_stmt(sp->body, ctx_rewrite_fn, &f);
	ast_walk_expr(sp->cond, ctx_rewrite_fn, &f);
}

/*
 * The probes of another task's context run after the others on the same
 * record: scheduler.cpu_off (the task leaving) before scheduler.cpu_on
 * (the task arriving), whatever the script's order, as the two happen in
 * stap.  A stable partition; indices follow the new order.
 */
void sema_context_order(struct sema_ctx *c)
{
	struct sem_prog *p = c->prog;
	struct sem_probe **v;
	unsigned i, n = 0;

	for (i = 0; i < p->nprobes && !p->probes[i]->other_task; i++)
		;
	if (i == p->nprobes)
		return;
	v = arena_alloc(c->arena, p->nprobes * sizeof(*v));
	for (i = 0; i < p->nprobes; i++)
		if (!p->probes[i]->other_task)
			v[n++] = p->probes[i];
	for (i = 0; i < p->nprobes; i++)
		if (p->probes[i]->other_task)
			v[n++] = p->probes[i];
	for (i = 0; i < n; i++) {
		p->probes[i] = v[i];
		v[i]->index = i;
	}
}
