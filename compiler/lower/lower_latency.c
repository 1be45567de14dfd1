/*
 * lower_latency.c - pass 3: latency pairs to hist variables, synthetic
 * events and onmatch (issue 12).
 *
 * In: the elaborated program, lower_hist.c's decisions (lw_ctx.lowered)
 * and the target (lower_options.hist, .synth).  Out: more probes that run
 * in the kernel only, and for each pair the kernel objects
 *
 *   synthetic_events      ktap_$PID_latN u64 lat
 *   A's trigger           hist:keys=K:ktap_tsN=common_timestamp
 *   B's trigger           hist:keys=K:ktap_latN=common_timestamp-$ktap_tsN:
 *                             onmatch(SYS.A).trace(ktap_$PID_latN,$ktap_latN)
 *   the synthetic's       hist:keys=common_cpu[,lat]:vals=lat  (the statistic)
 *
 * plus the ir_prog.hreads entry through which run_hist.c reads the
 * statistic back into the store (the same reading as lower_hist.c's).
 *
 * The shape (the classic one of stap's function- and wake-up-latency
 * scripts):
 *
 *   probe A { t[K] = CLOCK() }
 *   probe B { if (K' in t) { s <<< CLOCK() - t[K']; delete t[K'] } }
 *
 * CLOCK is gettimeofday_ns() or local_clock_ns(): in ktap both are the
 * event's own timestamp (rt_builtins.c rtb_event_ns) plus a constant, so
 * their difference is the difference of the records' timestamps, which
 * is what common_timestamp gives in the kernel (in ns; the hist names
 * ktap's clock so the kernel does not switch the instance to "global").
 * K and K' are tid() (common_pid) or an integer field of the same size;
 * the kernel's onmatch fires only when A set the variable for that key
 * and resets it when read, which is exactly "K' in t" then "delete".
 * A second A before B overwrites, as t[K] = ... does.
 *
 * Exactness rules (otherwise the pair stays in user space; -v says why):
 * t is used nowhere else (it is only the pair's timestamp store); s is
 * a scalar statistic updated only there and read only in end, error and
 * timer probes, and not with @variance (lower_hist.c's rule); both
 * handlers are nothing but the shape; the kernel has hist
 * triggers and synthetic events.  Leading "if (C) next" guards the kernel
 * can evaluate become the triggers' filters.
 */
#define _GNU_SOURCE
#include "lower_int.h"
#include "arena.h"
#include "ast_walk.h"
#include "resolve_tpfmt.h"

#include <stdio.h>
#include <string.h>

#define LL_SIZE_EXACT 16384		/* statistics keyed on their values */

struct ll_pair {
	unsigned a, b;			/* the probes */
	unsigned start, stat;		/* the globals t and s */
	const struct ast_expr *ka, *kb;	/* the keys K and K' */
	const struct ast_list *sk;	/* s[KEYS] <<< ...: B's keys, or NULL */
	bool exact;			/* s is read with @min/@max/@hist_* */
};

#define LL_MAX_KEYS 3			/* TRACING_MAP_KEYS_MAX */

/* ---- the handlers' shapes ---- */

/* @s without its enclosing one-statement blocks. */
static const struct ast_stmt *ll_single(const struct ast_stmt *s)
{
	while (s && s->kind == AST_S_BLOCK && s->body.n == 1)
		s = s->body.v[0];
	return s;
}

/* Is @s an "if (C) next" guard? */
static bool ll_is_guard(const struct ast_stmt *s)
{
	const struct ast_stmt *t = ll_single(s->s1);

	return s->kind == AST_S_IF && !s->s2 && t && t->kind == AST_S_NEXT;
}

/*
 * The one statement of probe @i's handler after its leading guards, or
 * NULL when there are more or a guard has no kernel filter.
 */
static const struct ast_stmt *ll_body(const struct lw_ctx *c, unsigned i)
{
	const struct sem_probe *p = c->sp->probes[i];
	const struct lw_probe_guards *g = &c->guards[i];
	const struct ast_stmt *s = p->body, *one = NULL;
	unsigned k;

	for (k = 0; k < g->n; k++)	/* the wrap's "K in t": ll_end() checks it */
		if (!g->v[k].filter && (!g->wrap || g->v[k].origin != g->wrap))
			return NULL;
	if (p->nentries || p->event->dyn_entry)
		return NULL;
	while (s && s->kind == AST_S_BLOCK && s->body.n == 1 &&
	       s->body.v[0]->kind == AST_S_BLOCK)
		s = s->body.v[0];
	if (!s || s->kind != AST_S_BLOCK)
		return ll_single(s);
	for (k = 0; k < s->body.n; k++) {
		if (!one && ll_is_guard(s->body.v[k]))
			continue;
		if (one || s->body.v[k]->kind == AST_S_NULL)
			return NULL;
		one = s->body.v[k];
	}
	return ll_single(one);
}

/* The kernel filter of probe @i's guards and ktap's own-pid clause. */
static const char *ll_filter(struct lw_ctx *c, unsigned i)
{
	const struct sem_probe *p = c->sp->probes[i];
	const char *own = lw_own_pid(p->event->system, p->event->name), *f = NULL;
	unsigned k;

	for (k = 0; k < c->guards[i].n; k++) {
		const struct lw_guard *g = &c->guards[i].v[k];

		if (c->guards[i].wrap && g->origin == c->guards[i].wrap)
			continue;	/* the pair's own "K in t" */
		f = !f ? g->filter : arena_printf(c->arena, "%s && %s", f, g->filter);
	}
	return f ? arena_printf(c->arena, "(%s) && %s", f, own) : own;
}

static bool ll_is_clock(const struct ast_expr *e)
{
	return e && e->kind == AST_CALL && e->ref < 0 && !e->args.n &&
	       (-e->ref - 1 == IR_BI_GETTIMEOFDAY_NS || -e->ref - 1 == IR_BI_LOCAL_CLOCK_NS);
}

/* The global array @e (VAR or INDEX with one key) names, or NULL. */
static const struct sem_sym *ll_global(const struct ast_expr *e)
{
	const struct sem_sym *s = e ? e->sym : NULL;

	if (!s && e && (e->kind == AST_INDEX || e->kind == AST_IN) && e->a)
		s = e->a->sym;
	return s && s->kind == SEM_GLOBAL ? s : NULL;
}

/* probe A: "t[K] = CLOCK()" alone (after guards). */
static bool ll_start(const struct lw_ctx *c, unsigned i, struct ll_pair *l)
{
	const struct ast_stmt *s = ll_body(c, i);
	const struct ast_expr *e = s && s->kind == AST_S_EXPR ? s->e : NULL;
	const struct sem_sym *t;

	if (!e || e->kind != AST_ASSIGN || e->op != AST_OP_SET ||
	    e->a->kind != AST_INDEX || e->a->args.n != 1 || !ll_is_clock(e->b) ||
	    !(t = ll_global(e->a)) || t->type != SEM_LONG)
		return false;
	l->start = t->slot;
	l->ka = e->a->args.v[0];
	return true;
}

/* probe B: "if (K in t) { s <<< CLOCK() - t[K]; delete t[K] }" alone
   (after guards). */
static bool ll_end(const struct lw_ctx *c, unsigned i, struct ll_pair *l)
{
	const struct ast_stmt *s = ll_body(c, i), *body;
	const struct ast_expr *in, *upd, *v, *del;
	const struct sem_sym *st;

	if (!s || s->kind != AST_S_IF || s->s2 || !(in = s->e) ||
	    in->kind != AST_IN || in->args.n != 1)
		return false;
	body = s->s1;
	if (!body || body->kind != AST_S_BLOCK || body->body.n != 2 ||
	    body->body.v[0]->kind != AST_S_EXPR || body->body.v[1]->kind != AST_S_DELETE)
		return false;
	upd = body->body.v[0]->e;
	del = body->body.v[1]->e;
	if (upd->kind != AST_ASSIGN || upd->op != AST_OP_STAT_ADD ||
	    (upd->a->kind != AST_VAR && upd->a->kind != AST_INDEX) ||
	    !(st = ll_global(upd->a)) || st->type != SEM_STATS)
		return false;
	l->sk = upd->a->kind == AST_INDEX ? &upd->a->args : NULL;
	v = upd->b;
	if (v->kind != AST_BINARY || v->op != AST_OP_SUB || !ll_is_clock(v->a) ||
	    v->b->kind != AST_INDEX || v->b->args.n != 1)
		return false;
	if (!ll_global(in) || ll_global(in)->slot != l->start ||
	    !ll_global(v->b) || ll_global(v->b)->slot != l->start ||
	    del->kind != AST_INDEX || !ll_global(del) || ll_global(del)->slot != l->start ||
	    del->args.n != 1 || !ast_expr_equal(in->args.v[0], v->b->args.v[0]) ||
	    !ast_expr_equal(in->args.v[0], del->args.v[0]))
		return false;
	l->stat = st->slot;
	l->kb = in->args.v[0];
	return true;
}

/* ---- where t and s are used ---- */

struct ll_use {
	unsigned g;
	unsigned n;			/* references */
	bool bad;			/* a use lower_hist.c cannot read back */
	bool exact;
};

static int ll_use_fn(struct ast_expr *e, void *arg)
{
	struct ll_use *u = arg;
	const struct sem_sym *s = e->sym;
	const struct sem_sym *of = (e->kind == AST_STAT || e->kind == AST_HIST) ?
				   ll_global(e->a) : NULL;

	if (of && of->slot == u->g) {
		if (e->kind == AST_HIST || e->op == AST_OP_MIN || e->op == AST_OP_MAX)
			u->exact = true;
		if (e->kind == AST_STAT && e->op == AST_OP_VARIANCE)
			u->bad = true;
		return 1;
	}
	if (s && s->kind == SEM_GLOBAL && s->slot == u->g &&
	    (e->kind == AST_VAR || e->kind == AST_INDEX || e->kind == AST_IN))
		u->n++;
	return 0;
}

/* How often global @g is named in @s (and whether @s reads it as stap
   statistics lower_hist.c can read back). */
static void ll_uses(struct ast_stmt *s, struct ll_use *u)
{
	if (s)
		ast_walk_stmt(s, ll_use_fn, u);
}

static void ll_uses_all(const struct sem_prog *sp, struct ll_use *u, bool trace_only)
{
	unsigned i;

	for (i = 0; i < sp->nprobes; i++)
		if (!trace_only || sp->probes[i]->kind == SEM_P_TRACE) {
			ll_uses(sp->probes[i]->body, u);
			if (sp->probes[i]->cond)
				ast_walk_expr(sp->probes[i]->cond, ll_use_fn, u);
		}
	for (i = 0; !trace_only && i < sp->nfuncs; i++)
		if (sp->funcs[i]->ast && sp->funcs[i]->ast->body)
			ll_uses(sp->funcs[i]->ast->body, u);
}

/* ---- keys ---- */

/* K as a hist key field of @p's event, or NULL; its size in @size. */
static const char *ll_key(const struct sem_probe *p, const struct ast_expr *e, unsigned *size)
{
	const struct tpf_field *f;

	if (e->kind == AST_CALL && e->ref < 0 && !e->args.n && -e->ref - 1 == IR_BI_TID) {
		*size = 4;
		return "common_pid";
	}
	if (e->kind != AST_TARGET || e->ref < 0 || e->chain.n || e->chain.mem ||
	    (unsigned)e->ref >= p->event->nfields)
		return NULL;
	f = &p->event->fields[e->ref];
	if (f->kind != TPF_INT)
		return NULL;
	*size = f->size;
	return f->name;
}

/*
 * Key @e of the statistic, an expression of probe @p's event passed to
 * the synthetic event: its synthetic field type, the B-side parameter
 * and how the runtime reads it back.  NULL when it is not an integer
 * field, tid(), pid() or execname().
 */
static const char *ll_stat_key(const struct sem_probe *p, const struct ast_expr *e,
			       const char **type, struct ir_hkey *k)
{
	/* The kernel (6.1 check_synth_field) wants a parameter's type
	   spelled as the synthetic field's: the field's own C type, when
	   it is one a synthetic field can have (trace_events_synth.c). */
	static const char *const ok[] = {
		"s64", "u64", "s32", "u32", "s16", "u16", "s8", "u8", "char",
		"unsigned char", "int", "unsigned int", "long", "unsigned long",
		"bool", "pid_t", "gfp_t",
	};
	const struct tpf_field *f;
	size_t i;

	memset(k, 0, sizeof(*k));
	if (e->kind == AST_CALL && e->ref < 0 && !e->args.n) {
		switch (-e->ref - 1) {
		case IR_BI_TID: k->kind = IR_HK_TID; break;
		case IR_BI_PID: k->kind = IR_HK_PID; break;
		case IR_BI_EXECNAME: k->kind = IR_HK_EXECNAME; k->is_string = true; break;
		default: return NULL;
		}
		k->is_signed = true;
		k->size = 4;
		*type = "int";		/* common_pid's */
		return "common_pid";
	}
	if (e->kind != AST_TARGET || e->ref < 0 || e->chain.n || e->chain.mem ||
	    (unsigned)e->ref >= p->event->nfields)
		return NULL;
	f = &p->event->fields[e->ref];
	if (f->kind != TPF_INT || f->pointer || !f->ctype)
		return NULL;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]) && strcmp(ok[i], f->ctype); i++)
		;
	if (i == sizeof(ok) / sizeof(ok[0]))
		return NULL;
	*k = (struct ir_hkey){ .kind = IR_HK_FIELD, .is_signed = f->is_signed, .size = f->size };
	*type = f->ctype;
	return f->name;
}

/* ---- deciding ---- */

/* Why the pair @l (shape already matched) cannot be lowered, or NULL. */
static const char *ll_why(struct lw_ctx *c, const struct lower_options *opt,
			  struct ll_pair *l)
{
	const struct sem_prog *sp = c->sp;
	const struct sem_probe *a = sp->probes[l->a], *b = sp->probes[l->b];
	struct ll_use ut = { .g = l->start }, us = { .g = l->stat }, ur = { .g = l->stat };
	unsigned sa, sb;

	if (!opt->hist)
		return opt->hist_why ? "--no-lower" : "the kernel has no hist triggers";
	if (!opt->synth)
		return "the kernel has no synthetic events";
	if (c->lowered[l->a] || c->lowered[l->b])
		return "a probe of the pair already runs in the kernel";
	ll_uses_all(sp, &ut, false);
	if (ut.n != 4)		/* t[K] =, K in t, t[K] read, delete t[K] */
		return arena_printf(c->arena, "%s is used outside the pair",
				    sp->globals[l->start]->name);
	ll_uses_all(sp, &us, true);
	if (us.n != 1)
		return arena_printf(c->arena, "%s is used in another event probe",
				    sp->globals[l->stat]->name);
	ll_uses_all(sp, &ur, false);
	if (ur.bad)
		return "@variance needs user space";
	l->exact = ur.exact || !sp->globals[l->stat]->read;
	if (l->sk) {
		const char *type;
		struct ir_hkey k;
		unsigned i;

		if (l->sk->n + (l->exact ? 1 : 0) > LL_MAX_KEYS)
			return "the kernel's hists have at most 3 keys (the value is one)";
		for (i = 0; i < l->sk->n; i++)
			if (!ll_stat_key(b, l->sk->v[i], &type, &k))
				return "a key of the statistic is not tid(), pid(), execname() "
				       "or an integer field of a synthetic field's type";
	}
	if (!ll_key(a, l->ka, &sa) || !ll_key(b, l->kb, &sb))
		return "a key is not tid() or an integer event field";
	if (sa != sb)
		return "the two keys have different sizes";
	return NULL;
}

/* Find the pairs: each probe A with the probe B that reads its t. */
static unsigned ll_find(struct lw_ctx *c, struct ll_pair **out)
{
	const struct sem_prog *sp = c->sp;
	struct ll_pair *v = NULL, l;
	size_t cap = 0;
	unsigned n = 0, i, j;

	for (i = 0; i < sp->nprobes; i++) {
		if (sp->probes[i]->kind != SEM_P_TRACE)
			continue;
		memset(&l, 0, sizeof(l));
		if (!ll_start(c, i, &l))
			continue;
		l.a = i;
		for (j = 0; j < sp->nprobes; j++)
			if (j != i && sp->probes[j]->kind == SEM_P_TRACE &&
			    ll_end(c, j, &l)) {
				l.b = j;
				v = arena_grow(c->arena, v, n, &cap, sizeof(*v));
				v[n++] = l;
				break;
			}
	}
	*out = v;
	return n;
}

/* ---- the objects ---- */

static const char *ll_onmatch_event(struct lw_ctx *c, const struct sem_probe *p)
{
	return arena_printf(c->arena, "%s.%s", p->event->system, p->event->name);
}


static void ll_emit_pair(struct lw_ctx *c, const struct ll_pair *l, unsigned n)
{
	const struct sem_prog *sp = c->sp;
	const struct sem_probe *a = sp->probes[l->a], *b = sp->probes[l->b];
	const char *synth = arena_printf(c->arena, "ktap_$PID_lat%u", n);
	const char *ts = arena_printf(c->arena, "ktap_ts%u", n);
	const char *lat = arena_printf(c->arena, "ktap_lat%u", n);
	unsigned nsk = l->sk ? l->sk->n : 0, i;
	struct kp_synth_field *sf = arena_alloc(c->arena, (1 + nsk) * sizeof(*sf));
	struct kp_hist_key *ka = arena_alloc(c->arena, sizeof(*ka));
	struct kp_hist_key *kb = arena_alloc(c->arena, sizeof(*kb));
	struct kp_hist_key *ks = arena_alloc(c->arena, (LL_MAX_KEYS + 1) * sizeof(*ks));
	struct kp_hist_var *va = arena_alloc(c->arena, sizeof(*va));
	struct kp_hist_var *vb = arena_alloc(c->arena, sizeof(*vb));
	struct kp_hist_action *act = arena_alloc(c->arena, sizeof(*act));
	const char **params = arena_alloc(c->arena, (1 + nsk) * sizeof(*params));
	const char **vals = arena_alloc(c->arena, sizeof(*vals));
	struct kp_obj o;
	struct ir_hread r;
	unsigned size;

	struct ir_hkey hk[LL_MAX_KEYS];

	sf[0].type = "u64";
	sf[0].name = "lat";
	params[0] = arena_printf(c->arena, "$%s", lat);
	for (i = 0; i < nsk; i++) {	/* the statistic's keys ride along */
		params[1 + i] = ll_stat_key(b, l->sk->v[i], &sf[1 + i].type, &hk[i]);
		sf[1 + i].name = arena_printf(c->arena, "k%u", i);
	}
	o = (struct kp_obj){ .kind = KP_SYNTH,
			     .u.synth = { .name = synth, .fields = sf, .nfields = 1 + nsk } };
	lower_kplan_add(c->arena, c->ir, &o);

	ka->field = ll_key(a, l->ka, &size);
	va->name = ts;
	va->expr = "common_timestamp";
	o = (struct kp_obj){ .kind = KP_TRIGGER, .u.trigger = {
		.system = a->event->system, .event = a->event->name, .kind = KP_T_HIST,
		.filter = ll_filter(c, l->a),
		.hist = { .keys = ka, .nkeys = 1, .vars = va, .nvars = 1, .clock = "mono" } } };
	lower_kplan_add(c->arena, c->ir, &o);

	kb->field = ll_key(b, l->kb, &size);
	vb->name = lat;
	vb->expr = arena_printf(c->arena, "common_timestamp-$%s", ts);
	*act = (struct kp_hist_action){ .handler = KP_ON_MATCH,
		.arg = ll_onmatch_event(c, a), .action = KP_ACT_TRACE,
		.synth = synth, .params = params, .nparams = 1 + nsk };
	o = (struct kp_obj){ .kind = KP_TRIGGER, .u.trigger = {
		.system = b->event->system, .event = b->event->name, .kind = KP_T_HIST,
		.filter = ll_filter(c, l->b),
		.hist = { .keys = kb, .nkeys = 1, .vars = vb, .nvars = 1, .clock = "mono",
			  .actions = act, .nactions = 1 } } };
	lower_kplan_add(c->arena, c->ir, &o);

	/* The statistic, read back as lower_hist.c's scalars are: one entry
	   per CPU (summed), the value as the last key when exact. */
	memset(&r, 0, sizeof(r));
	r.global = l->stat;
	r.system = "synthetic";
	r.event = synth;
	r.mult = 1;
	for (i = 0; i < nsk; i++) {
		ks[r.nkeys].field = sf[1 + i].name;
		r.keys[r.nkeys++] = hk[i];
	}
	if (!nsk) {	/* a scalar: one entry per CPU, summed when read */
		ks[0].field = "common_cpu";
		r.keys[r.nkeys++].kind = IR_HK_NONE;
	}
	o = (struct kp_obj){ .kind = KP_TRIGGER, .u.trigger = {
		.system = "synthetic", .event = synth, .kind = KP_T_HIST,
		.hist = { .keys = ks, .size = 2048 } } };
	if (l->exact) {
		r.val = IR_HV_STATX;
		r.keys[r.nkeys++] = (struct ir_hkey){ .kind = IR_HK_FIELD, .size = 8 };
		ks[r.nkeys - 1].field = "lat";
		o.u.trigger.hist.size = LL_SIZE_EXACT;
	} else {
		r.val = IR_HV_STAT;
		vals[0] = "lat";
		o.u.trigger.hist.vals = vals;
		o.u.trigger.hist.nvals = 1;
	}
	o.u.trigger.hist.nkeys = r.nkeys;
	for (i = 0; i < r.nkeys; i++)	/* the synthetic's hist has them in order */
		r.keys[i].col = (int)i;
	lower_kplan_add(c->arena, c->ir, &o);
	r.obj = c->ir->kplan.n - 1;
	c->ir->hreads = arena_grow(c->arena, c->ir->hreads, c->ir->nhreads,
				   &c->ir->hrcap, sizeof(*c->ir->hreads));
	c->ir->hreads[c->ir->nhreads++] = r;
	for (i = 0; i < r.nkeys; i++)
		if (r.keys[i].kind == IR_HK_PID || r.keys[i].kind == IR_HK_EXECNAME)
			c->ir->hist_track = true;
}

void lw_lat_decide(struct lw_ctx *c, const struct lower_options *opt)
{
	const struct sem_prog *sp = c->sp;
	struct ll_pair *v;
	unsigned n = ll_find(c, &v), i, k = 0;
	const char *why;

	c->lat = NULL;
	c->nlat = 0;
	for (i = 0; i < n; i++) {
		why = ll_why(c, opt, &v[i]);
		if (opt->verbose)
			fprintf(stderr, why ? "Pass 3: latency pair %s -> %s stays in user "
				"space: %s\n" : "Pass 3: latency pair %s -> %s runs in the "
				"kernel (hist variables, synthetic event, onmatch)%s\n",
				sp->probes[v[i].a]->pp, sp->probes[v[i].b]->pp, why ? why : "");
		if (why)
			continue;
		c->lowered[v[i].a] = c->lowered[v[i].b] = true;
		v[k++] = v[i];
	}
	c->lat = v;
	c->nlat = k;
}

void lw_lat_emit(struct lw_ctx *c)
{
	unsigned i;

	for (i = 0; i < c->nlat; i++)
		ll_emit_pair(c, &c->lat[i], i);
}

bool lw_lat_global(const struct lw_ctx *c, unsigned g)
{
	unsigned i;

	for (i = 0; i < c->nlat; i++)
		if (c->lat[i].start == g || c->lat[i].stat == g)
			return true;
	return false;
}
