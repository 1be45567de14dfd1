/*
 * lower_hist.c - pass 3: aggregations to hist triggers (issue 12).
 *
 * In: the elaborated program, each tracepoint probe's guards (computed
 * by lower_guard.c) and the target (lower_options.hist).  Out: per probe
 * whether it runs in the kernel only (lw_ctx.lowered), the hist trigger
 * objects of the kernel plan and the ir_prog.hreads that tell the
 * runtime (run_hist.c) how to read each hist back into the store.
 *
 * A global is kept in the kernel when every update is a statement of an
 * event handler that is nothing but such updates after a guard the
 * kernel evaluates (a[k...]++, a[k...] += EXPR, a[k...] <<< EXPR), and
 * it is read only in end and error probes (after the events stopped)
 * and in timers.  The keys must be ones a hist can hold exactly: event
 * fields, tid(), pid() and execname() (common_pid, resolved through
 * ktap's process tracking when read), cpu(), syscall_name() of a field
 * (named when read), constants; the keys and values may be locals the
 * probe's prologue binds.  The value is a field, a sum or difference of
 * two fields or a field and a constant (summed apart, combined when
 * read), or else + - * of fields and constants computed in the kernel
 * by a hist variable and passed to a synthetic event (the value hop,
 * lh_hop).  Statistics read
 * with @min, @max, @hist_log or @hist_linear key on the exact value, so
 * the runtime replays every distinct value into stap's own buckets;
 * @variance stays in user space (stap's integer running variance
 * depends on the order the values came in).  Anything else, and any
 * kernel without hist triggers, keeps the reference (user-space) path;
 * -v says why.
 */
#define _GNU_SOURCE
#include "lower_hist.h"
#include "arena.h"
#include "resolve_tpfmt.h"
#include "ast_walk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void lh_bad(struct lh *h, unsigned g, const char *why)
{
	if (!h->g[g].why)
		h->g[g].why = why;
}

/* ---- the handler's statements ---- */

/* @s's statements in order, blocks opened; the handler's single
   "if (C) S" (@wrap: C is part of its guard) is S. */
static void lh_flatten(struct lw_ctx *c, const struct ast_stmt *s, const struct ast_stmt *wrap,
		       const struct ast_stmt ***v, unsigned *n, size_t *cap)
{
	unsigned i;

	if (s && s == wrap) {
		lh_flatten(c, s->s1, wrap, v, n, cap);
		return;
	}
	if (s && s->kind == AST_S_BLOCK) {
		for (i = 0; i < s->body.n; i++)
			lh_flatten(c, s->body.v[i], wrap, v, n, cap);
		return;
	}
	if (!s || s->kind == AST_S_NULL)
		return;
	*v = arena_grow(c->arena, *v, *n, cap, sizeof(**v));
	(*v)[(*n)++] = s;
}

/* The variable @e (VAR, INDEX, IN, or a @stat's operand) names. */
static const struct sem_sym *lh_sym(const struct ast_expr *e)
{
	if (!e)
		return NULL;
	if (e->sym)
		return e->sym;
	if ((e->kind == AST_INDEX || e->kind == AST_IN) && e->a)
		return lh_sym(e->a);
	return NULL;
}

/* @s as an update of a global statistic or long array, or false. */
static bool lh_update(const struct ast_stmt *s, struct lh_upd *u)
{
	const struct ast_expr *e = s->kind == AST_S_EXPR ? s->e : NULL;
	const struct sem_sym *sym;

	memset(u, 0, sizeof(*u));
	if (!e)
		return false;
	if (e->kind == AST_INCDEC) {
		u->lv = e->a;
		u->mult = e->op == AST_OP_PREINC || e->op == AST_OP_POSTINC ? 1 : -1;
	} else if (e->kind == AST_ASSIGN && (e->op == AST_OP_ADD_SET || e->op == AST_OP_STAT_ADD)) {
		u->lv = e->a;
		u->val = e->b;
		u->stat = e->op == AST_OP_STAT_ADD;
	} else
		return false;
	sym = lh_sym(u->lv);
	if ((u->lv->kind != AST_VAR && u->lv->kind != AST_INDEX) || !sym ||
	    sym->kind != SEM_GLOBAL)
		return false;
	if (u->stat != (sym->type == SEM_STATS) || (!u->stat && sym->type != SEM_LONG))
		return false;
	u->s = s;
	u->global = sym->slot;
	return true;
}

/* Is @s one of the probe's leading "if (C) next" guards? */
static bool lh_is_guard(const struct ast_stmt *s)
{
	const struct ast_stmt *t = s->s1;

	if (s->kind != AST_S_IF || s->s2)
		return false;
	while (t && t->kind == AST_S_BLOCK && t->body.n == 1)
		t = t->body.v[0];
	return t && t->kind == AST_S_NEXT;
}

/*
 * Probe @i as a candidate: its statements after the leading guards and
 * "local = PURE" statements (an alias's prologue: vm.kmem_cache_alloc's
 * bytes_req = $bytes_req, syscall_any's name = syscall_name($id)) must
 * all be updates.  The updates' keys and values read the prologue's
 * locals through their bindings (lower_bind.c), so that
 * slabs[execname(), bytes_req] <<< 1 keys on the field; a local the
 * prologue does not bind leaves a key or value the kernel cannot hold.
 */
static void lh_candidate(struct lh *h, unsigned i)
{
	struct lw_ctx *c = h->c;
	const struct sem_probe *p = c->sp->probes[i];
	struct lh_probe *lp = &h->p[i];
	const struct lw_probe_guards *g = &c->guards[i];
	const struct ast_stmt **v = NULL;
	unsigned n = 0, k;
	size_t cap = 0;
	bool lead = true;
	struct lw_binds b;
	bool complete;

	memset(&b, 0, sizeof(b));
	lw_probe_kernel_filter(c, i, &complete);
	if (!complete)
		lp->why = "its guard needs user space";
	if (p->nentries || p->event->dyn_entry)
		lp->why = "it uses @entry";
	lh_flatten(c, p->body, g->wrap, &v, &n, &cap);
	for (k = 0; k < n; k++) {
		struct lh_upd u;

		if (lead && (lh_is_guard(v[k]) || (lw_local_set(v[k]) && lw_bind_stmt(c, &b, v[k]))))
			continue;
		lead = false;
		if (!lh_update(v[k], &u)) {
			lp->why = "the handler does other work in user space";
			continue;
		}
		u.lv = lw_bind_subst(c, &b, u.lv);
		u.val = lw_bind_subst(c, &b, u.val);
		lp->u = arena_grow(c->arena, lp->u, lp->n, &lp->cap, sizeof(*lp->u));
		lp->u[lp->n++] = u;
	}
	if (!lp->n && !lp->why)
		lp->why = "it updates no aggregation";
}

/* ---- where each global is used ---- */

struct lh_walk {
	struct lh *h;
	const struct sem_probe *probe;	/* NULL in a function */
	const char *fname;
};

static void lh_stmt(struct lh_walk *w, const struct ast_stmt *s);

static void lh_ref(struct lh_walk *w, const struct ast_expr *e, bool delete, bool write)
{
	struct lh *h = w->h;
	unsigned g = e->sym->slot;

	if (!w->probe) {
		lh_bad(h, g, arena_printf(h->c->arena, "%s is used in function %s()",
					  e->sym->name, w->fname));
		return;
	}
	switch (w->probe->kind) {
	case SEM_P_END: case SEM_P_ERROR:
		return;
	case SEM_P_TIMER:	/* reads, and 'delete a' (':clear') */
		if (write)
			lh_bad(h, g, arena_printf(h->c->arena, "%s is written in a timer "
						  "probe", e->sym->name));
		if (delete)
			h->g[g].cleared = true;
		return;
	case SEM_P_BEGIN:
		lh_bad(h, g, arena_printf(h->c->arena, "%s is used in a begin probe",
					  e->sym->name));
		return;
	default:
		lh_bad(h, g, arena_printf(h->c->arena, "%s is read in an event probe",
					  e->sym->name));
	}
}

/* The VAR (or INDEX) of @e that carries its variable, or NULL. */
static const struct ast_expr *lh_var(const struct ast_expr *e)
{
	if (e && e->sym)
		return e;
	if (e && e->kind == AST_INDEX && e->a && e->a->sym)
		return e->a;
	return NULL;
}

static void lh_expr(struct lh_walk *w, const struct ast_expr *e)
{
	const struct ast_expr *v;
	unsigned i;

	if (!e)
		return;
	if ((e->kind == AST_VAR || e->kind == AST_INDEX || e->kind == AST_IN) &&
	    e->sym && e->sym->kind == SEM_GLOBAL)
		lh_ref(w, e, false, false);
	if ((e->kind == AST_ASSIGN || e->kind == AST_INCDEC) && (v = lh_var(e->a)) &&
	    v->sym->kind == SEM_GLOBAL)
		lh_ref(w, v, false, true);
	if (e->kind == AST_STAT && e->op == AST_OP_VARIANCE && lh_sym(e->a))
		lh_bad(w->h, lh_sym(e->a)->slot, "@variance needs user space (stap's "
		       "integer running variance depends on the order of the values)");
	if ((e->kind == AST_HIST || (e->kind == AST_STAT && (e->op == AST_OP_MIN ||
	     e->op == AST_OP_MAX))) && lh_sym(e->a))
		w->h->g[lh_sym(e->a)->slot].exact = true;
	lh_expr(w, e->a);
	lh_expr(w, e->b);
	lh_expr(w, e->c);
	for (i = 0; i < e->args.n; i++)
		lh_expr(w, e->args.v[i]);
	for (i = 0; i < e->chain.n; i++)
		lh_expr(w, e->chain.v[i].index);
}

static void lh_foreach(struct lh_walk *w, const struct ast_foreach *fe)
{
	const struct ast_expr *a = fe->array;
	unsigned i;

	if (a->kind == AST_VAR && a->sym && a->sym->type == SEM_STATS) {
		if (fe->has_sort_stat && fe->sort_stat == AST_OP_VARIANCE)
			lh_bad(w->h, a->sym->slot, "sorting by @variance needs user space");
		else if (fe->sort_key == -1 && (!fe->has_sort_stat ||
			 fe->sort_stat == AST_OP_MIN || fe->sort_stat == AST_OP_MAX))
			w->h->g[a->sym->slot].exact = true;
	}
	lh_expr(w, fe->value);
	for (i = 0; i < fe->keys.n; i++)
		lh_expr(w, fe->keys.v[i]);
	lh_expr(w, a);
	for (i = 0; i < fe->slice.n; i++)
		lh_expr(w, fe->slice.v[i]);
	lh_expr(w, fe->limit);
	lh_stmt(w, fe->body);
}

static void lh_stmt(struct lh_walk *w, const struct ast_stmt *s)
{
	const struct ast_expr *v;
	unsigned i;

	if (!s)
		return;
	if (s->kind == AST_S_DELETE && s->e && s->e->kind == AST_VAR && s->e->sym &&
	    s->e->sym->kind == SEM_GLOBAL) {
		lh_ref(w, s->e, true, false);
		return;
	}
	if (s->kind == AST_S_DELETE && (v = lh_var(s->e)) && v->sym->kind == SEM_GLOBAL)
		lh_ref(w, v, false, true);	/* one element: back at the next read */
	if (s->kind == AST_S_FOREACH) {
		lh_foreach(w, s->fe);
		return;
	}
	lh_expr(w, s->e);
	lh_expr(w, s->e2);
	lh_expr(w, s->e3);
	lh_stmt(w, s->s1);
	lh_stmt(w, s->s2);
	for (i = 0; i < s->body.n; i++)
		lh_stmt(w, s->body.v[i]);
}

/* Walk every use of every global outside the candidates' updates. */
static void lh_uses(struct lh *h)
{
	const struct sem_prog *sp = h->c->sp;
	struct lh_walk w = { h, NULL, NULL };
	unsigned i, k, j;

	for (i = 0; i < sp->nprobes; i++) {
		const struct sem_probe *p = sp->probes[i];
		const struct ast_stmt **v = NULL;
		unsigned n = 0;
		size_t cap = 0;

		w.probe = p;
		lh_expr(&w, p->cond);
		if (p->kind != SEM_P_TRACE || h->p[i].why) {
			for (k = 0; k < h->p[i].n; k++)	/* updates kept in user space */
				lh_bad(h, h->p[i].u[k].global, arena_printf(h->c->arena,
				       "probe %s, which updates it, runs in user space: %s",
				       p->pp, h->p[i].why));
			lh_stmt(&w, p->body);
			continue;
		}
		/* A candidate: its guards' and prologue's expressions are
		   uses, and so are its updates' keys and values (not the
		   updated element itself): a global read there stays in user
		   space, whether or not the update can be lowered. */
		lh_flatten(h->c, p->body, h->c->guards[i].wrap, &v, &n, &cap);
		for (k = 0; k < n && (lh_is_guard(v[k]) || lw_local_set(v[k])); k++)
			lh_expr(&w, v[k]->e);
		if (h->c->guards[i].wrap)
			lh_expr(&w, h->c->guards[i].wrap->e);
		for (k = 0; k < h->p[i].n; k++) {
			const struct lh_upd *u = &h->p[i].u[k];

			lh_expr(&w, u->val);
			for (j = 0; u->lv->kind == AST_INDEX && j < u->lv->args.n; j++)
				lh_expr(&w, u->lv->args.v[j]);
		}
	}
	w.probe = NULL;
	for (i = 0; i < sp->nfuncs; i++) {
		w.fname = sp->funcs[i]->name;
		lh_stmt(&w, sp->funcs[i]->ast->body);
	}
}

/* Does probe @i's every update lower (its globals all kept in the kernel)? */
static bool lh_probe_ok(struct lh *h, unsigned i)
{
	unsigned k;

	if (h->p[i].why)
		return false;
	for (k = 0; k < h->p[i].n; k++)
		if (h->g[h->p[i].u[k].global].why)
			return false;
	return true;
}

/* The trigger text of update @k of probe @i (malloc'd), or NULL. */
static char *lh_text(struct lh *h, unsigned i, unsigned k)
{
	struct ir_hread r;
	const char *why;
	struct lh_hop hop;
	struct kp_trigger *t = lw_hist_trigger(h, i, &h->p[i].u[k], &r, &why, &hop);
	struct kp_obj o;
	struct kp_text x;
	char *s;

	if (!t)
		return NULL;
	o.kind = KP_TRIGGER;
	o.u.trigger = *t;
	if (kp_render(&o, &x) != 0)
		return NULL;
	s = x.line && x.path && asprintf(&s, "%s %s", x.path, x.line) >= 0 ? s : NULL;
	kp_text_free(&x);
	return s;
}

/*
 * Two globals with one hist share its trigger (the kernel refuses the
 * same trigger twice), so ':clear' of one would clear the other: a
 * global deleted in a timer keeps user space then.  True when it failed
 * one.
 */
static bool lh_shared_clear(struct lh *h)
{
	const struct sem_prog *sp = h->c->sp;
	unsigned i, k, j, l;
	bool changed = false;

	for (i = 0; i < sp->nprobes; i++)
		for (k = 0; sp->probes[i]->kind == SEM_P_TRACE && lh_probe_ok(h, i) &&
		     k < h->p[i].n; k++)
			for (j = 0; j < sp->nprobes; j++)
				for (l = 0; sp->probes[j]->kind == SEM_P_TRACE &&
				     lh_probe_ok(h, i) && lh_probe_ok(h, j) && l < h->p[j].n; l++) {
					unsigned a = h->p[i].u[k].global, b = h->p[j].u[l].global;
					char *x, *y;

					if (a == b || !h->g[a].cleared)
						continue;
					x = lh_text(h, i, k);
					y = lh_text(h, j, l);
					if (x && y && !strcmp(x, y)) {
						lh_bad(h, a, "it is deleted in a timer and shares its "
						       "hist with another global");
						changed = true;
					}
					free(x);
					free(y);
				}
	return changed;
}

/*
 * Decide: a global fails when any use fails; a probe fails when any of
 * its updates' globals fails, which fails its other globals in turn.
 */
static void lh_decide(struct lh *h)
{
	const struct sem_prog *sp = h->c->sp;
	struct ir_hread r;
	struct lh_hop hop;
	bool changed = true;
	const char *why;
	unsigned i, k;

	while (changed) {
		changed = false;
		for (i = 0; i < sp->nprobes; i++) {
			if (sp->probes[i]->kind != SEM_P_TRACE || h->p[i].why || lh_probe_ok(h, i))
				continue;
			for (k = 0; k < h->p[i].n; k++)
				if (h->g[h->p[i].u[k].global].why)
					why = h->g[h->p[i].u[k].global].why;
			h->p[i].why = arena_printf(h->c->arena, "it also updates a global "
						   "kept in user space (%s)", why);
			for (k = 0; k < h->p[i].n; k++)
				if (!h->g[h->p[i].u[k].global].why) {
					lh_bad(h, h->p[i].u[k].global, arena_printf(
					       h->c->arena, "probe %s, which updates it, "
					       "runs in user space", sp->probes[i]->pp));
					changed = true;
				}
		}
		for (i = 0; i < sp->nprobes; i++) {
			if (sp->probes[i]->kind != SEM_P_TRACE || !lh_probe_ok(h, i))
				continue;
			for (k = 0; k < h->p[i].n; k++) {
				why = NULL;
				if (!lw_hist_trigger(h, i, &h->p[i].u[k], &r, &why, &hop)) {
					lh_bad(h, h->p[i].u[k].global, why);
					changed = true;
				}
			}
		}
		changed |= lh_shared_clear(h);
	}
}

/* Add @t to the plan, or find the same trigger there (two globals with
   one shape on one event share it); its index. */
static unsigned lh_add(struct lw_ctx *c, const struct kp_trigger *t)
{
	struct kp_obj o = { .kind = KP_TRIGGER, .u.trigger = *t };
	struct kp_text a, b;
	unsigned i;

	if (kp_render(&o, &a) != 0)
		return ~0u;
	for (i = 0; i < c->ir->kplan.n; i++) {
		bool same;

		if (c->ir->kplan.objs[i].kind != KP_TRIGGER ||
		    kp_render(&c->ir->kplan.objs[i], &b) != 0)
			continue;
		same = !strcmp(a.path, b.path) && !strcmp(a.line, b.line);
		kp_text_free(&b);
		if (same) {
			kp_text_free(&a);
			return i;
		}
	}
	kp_text_free(&a);
	lower_kplan_add(c->arena, c->ir, &o);
	return c->ir->kplan.n - 1;
}

/*
 * A tracepoint with a stacktrace key also gets a perf event held open
 * (kplan.h's KP_PERF), once: with two callbacks the tracepoint calls
 * through its iterator, whose frame HIST_STACKTRACE_SKIP counts, so the
 * key starts at the probe point (checked in the VM: the static call to
 * a lone callback made the key start one frame lower, at the caller of
 * the function that hit the tracepoint).
 */
static void lh_perf(struct lw_ctx *c, const char *system, const char *event)
{
	unsigned i;

	for (i = 0; i < c->ir->kplan.n; i++)
		if (c->ir->kplan.objs[i].kind == KP_PERF &&
		    !strcmp(c->ir->kplan.objs[i].u.perf.system, system) &&
		    !strcmp(c->ir->kplan.objs[i].u.perf.event, event))
			return;
	lower_kplan_add(c->arena, c->ir, &(struct kp_obj){ .kind = KP_PERF,
			.u.perf = { system, event } });
}

static void lh_verbose(struct lh *h)
{
	const struct sem_prog *sp = h->c->sp;
	unsigned i;

	for (i = 0; i < sp->nglobals; i++) {
		if ((!h->g[i].used && !h->g[i].why) || lw_lat_global(h->c, i))
			continue;
		if (h->g[i].why)
			fprintf(stderr, "Pass 3: global %s stays in user space: %s\n",
				sp->globals[i]->name, h->g[i].why);
		else
			fprintf(stderr, "Pass 3: global %s is kept in kernel hists%s%s\n",
				sp->globals[i]->name, h->g[i].exact ?
				" (one entry per distinct value)" : "", h->g[i].stack ?
				" (stacks: the hist's stacktrace key, at most 16 frames on 6.1; "
				"a perf event held open makes it start at the probe point)" : "");
	}
	for (i = 0; i < sp->nprobes; i++) {
		if (sp->probes[i]->kind != SEM_P_TRACE)
			continue;
		if (h->c->lowered[i] && h->p[i].n)
			fprintf(stderr, "Pass 3: probe %s runs in the kernel (%u hist "
				"trigger%s)\n", sp->probes[i]->pp, h->p[i].n,
				h->p[i].n == 1 ? "" : "s");
		else if (h->c->lowered[i])
			continue;	/* a latency pair's: lower_latency.c said so */
		else if (h->p[i].n)
			fprintf(stderr, "Pass 3: probe %s runs in user space: %s\n",
				sp->probes[i]->pp, h->p[i].why);
	}
}

/*
 * Whether an event probe may call exit(), directly or through the
 * functions it calls.  The kernel's hist keeps counting after the record
 * that exits, while user space stops at it, so such a script keeps its
 * aggregations in user space (a data-dependent stop point; a lowered
 * count would include the records after it).
 */
struct lh_exit {
	const struct sem_prog *sp;
	unsigned char *seen;	/* functions walked */
};

static int lh_exit_fn(struct ast_expr *e, void *arg)
{
	struct lh_exit *x = arg;
	const struct ast_func *f;

	if (e->kind != AST_CALL)
		return 0;
	if (e->ref < 0)
		return e->str && !strcmp(e->str, "exit") ? -1 : 0;	/* -1: stop, found */
	if ((unsigned)e->ref >= x->sp->nfuncs || x->seen[e->ref])
		return 0;
	x->seen[e->ref] = 1;
	f = x->sp->funcs[e->ref]->ast;
	return f && f->body && ast_walk_stmt(f->body, lh_exit_fn, x) ? -1 : 0;
}

static bool lh_event_exits(struct lw_ctx *c)
{
	const struct sem_prog *sp = c->sp;
	struct lh_exit x = { sp, arena_alloc(c->arena, sp->nfuncs + 1) };
	unsigned i;

	for (i = 0; i < sp->nprobes; i++)
		if (sp->probes[i]->kind == SEM_P_TRACE && sp->probes[i]->body &&
		    ast_walk_stmt(sp->probes[i]->body, lh_exit_fn, &x))
			return true;
	return false;
}

void lw_hist_decide(struct lw_ctx *c, const struct lower_options *opt)
{
	const struct sem_prog *sp = c->sp;
	struct lh *h = arena_alloc(c->arena, sizeof(*h));
	unsigned i, k;

	h->c = c;
	h->opt = opt;
	c->hist = h;
	c->lowered = arena_alloc(c->arena, (sp->nprobes + 1) * sizeof(*c->lowered));
	h->g = arena_alloc(c->arena, (sp->nglobals + 1) * sizeof(*h->g));
	h->p = arena_alloc(c->arena, (sp->nprobes + 1) * sizeof(*h->p));
	for (i = 0; i < sp->nprobes; i++) {
		if (sp->probes[i]->kind != SEM_P_TRACE)
			continue;
		lh_candidate(h, i);
		for (k = 0; k < h->p[i].n; k++)
			h->g[h->p[i].u[k].global].used = true;
	}
	for (i = 0; i < sp->nglobals; i++)	/* printed at exit: @min, @max too */
		if (sp->globals[i]->type == SEM_STATS && !sp->globals[i]->read)
			h->g[i].exact = true;
	if (!opt->hist || lh_event_exits(c)) {
		const char *why = !opt->hist ? (opt->hist_why ? "--no-lower" :
						"the kernel has no hist triggers") :
			"an event probe calls exit(): the kernel would count past it";

		for (i = 0; i < sp->nglobals; i++)
			h->g[i].why = why;
		for (i = 0; i < sp->nprobes; i++)	/* -v's probe lines say it too */
			if (!h->p[i].why)
				h->p[i].why = why;
	} else {
		lh_uses(h);
		lh_decide(h);
	}
	for (i = 0; i < sp->nprobes; i++)
		c->lowered[i] = sp->probes[i]->kind == SEM_P_TRACE && lh_probe_ok(h, i);
}

void lw_hist_verbose(struct lw_ctx *c)
{
	lh_verbose(c->hist);
}

/* The hist triggers of the lowered probes, and how to read them back. */
void lw_hist_emit(struct lw_ctx *c)
{
	const struct sem_prog *sp = c->sp;
	struct lh *h = c->hist;
	unsigned i, k, j;

	for (i = 0; i < sp->nprobes; i++) {
		if (!c->lowered[i])
			continue;
		for (k = 0; k < h->p[i].n; k++) {
			struct ir_hread r;
			const char *why;
			struct lh_hop hop;
			struct kp_trigger *t = lw_hist_trigger(h, i, &h->p[i].u[k], &r, &why, &hop);

			if (!t)
				continue;
			if (hop.synth.kind == KP_SYNTH) {	/* the value hop's objects first */
				lower_kplan_add(c->arena, c->ir, &hop.synth);
				lh_add(c, &hop.fire.u.trigger);
			}
			if (h->g[r.global].stack)
				lh_perf(c, t->system, t->event);
			r.obj = lh_add(c, t);
			c->ir->hreads = arena_grow(c->arena, c->ir->hreads, c->ir->nhreads,
						   &c->ir->hrcap, sizeof(*c->ir->hreads));
			c->ir->hreads[c->ir->nhreads++] = r;
			for (j = 0; j < r.nkeys; j++)
				if (r.keys[j].kind == IR_HK_PID || r.keys[j].kind == IR_HK_EXECNAME)
					c->ir->hist_track = true;
		}
	}
}
