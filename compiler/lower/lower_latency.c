/*
 * lower_latency.c - pass 3: latency pairs to hist variables, synthetic
 * events and onmatch (issue 12).
 *
 * In: the elaborated program, lower_hist.c's decisions (lw_ctx.lowered)
 * and the target (lower_options.hist, .synth, .target_zero,
 * .maxmapentries).  Out: more probes that run in the kernel only, and
 * for each pair the kernel objects
 *
 *   synthetic_events      ktap_$PID_latN u64 lat[; KEYTYPE kI...]
 *   each A's trigger      hist:keys=K:ktap_tsN=common_timestamp:size=S
 *                             [:name=ktap_$PID_tsN]
 *   B's trigger           hist:keys=K':ktap_latN=common_timestamp-$ktap_tsN:
 *                             size=S:onmatch(SYS.A).trace(ktap_$PID_latN,
 *                             $ktap_latN[,KEYS])
 *   the synthetic's       hist:keys=common_cpu|kI...[,lat[.buckets=D]]
 *                             [:vals=lat]  (the statistic)
 *
 * plus the ir_prog.hreads entries through which run_hist.c reads the
 * statistic back into the store (lower_hist.c's reading) and reports
 * the Dropped count of the start and end hists (IR_HV_DROPS).
 * lower_latency_shape.c finds the pairs; this file decides and emits.
 *
 * The shape (the classic one of stap's function- and wake-up-latency
 * scripts, examples/sched_latency.stp):
 *
 *   probe A1, A2... { [if (C)] t[K] = CLOCK() }
 *   probe B { if (K' in t) { s[KEYS] <<< (CLOCK() - t[K']) [/ D]; delete t[K'] } }
 *
 * or a .return probe alone, whose entry kprobe/uprobe (the @entry
 * companion, sema_target.c's dyn_entry) is A, both keyed on common_pid:
 *
 *   probe F.return { s[KEYS] <<< (CLOCK() - @entry(CLOCK())) [/ D] }
 *
 * Its one difference from the user-space path (a stack of frames per
 * thread): a call nested in the same thread overwrites the outer one's
 * time, so the outer return finds none and is not counted; nor is a
 * return whose call began before ktap started (stap's kretprobes skip
 * those too; --no-lower counts them from 0).  run_hist.c warns with the
 * count of such returns (IR_HV_UNMATCHED: the return hist's hits less
 * the statistic's).
 *
 * An alias's prologue ("task_tid = $pid") is read through: K may be a
 * local bound there.  C must be true all run: target() is 0 without -c
 * and -x, so "!target() || task_pid in ours" vanishes; with -c the pair
 * stays in user space.
 *
 * CLOCK is gettimeofday_ns() or local_clock_ns(), the same on both
 * sides: in ktap both are the event's own timestamp (rt_builtins.c
 * rtb_event_ns) plus a constant, so their difference is the difference
 * of the records' timestamps, which is what common_timestamp gives (in
 * ns; the hist names ktap's clock so the kernel does not switch the
 * instance to "global").  gettimeofday_us/ms/s() truncate each
 * wall-clock time: (b+off)/D - (a+off)/D (D = 1000, 10^6, 10^9) depends
 * on ktap's offset off = CLOCK_REALTIME - CLOCK_MONOTONIC, not on b - a
 * alone (and common_timestamp.usecs rounds instead of truncating).  It
 * equals (b+R)/D - (a+R)/D with R = off mod D, so A's variable is
 * common_timestamp+R, B passes its own common_timestamp+R with it, and
 * the statistic's value key is e/D-s/D on the synthetic event: exact,
 * since 6.1 divides values of 2^20 and more exactly and monotonic
 * timestamps are past 2^20 ns (1 ms after boot).  R is the plan's
 * $WALL%D, filled in from the offset run.c takes before applying it,
 * the one rtb_event_ns() adds in user space.  "/ D" (D > 0 a constant) is exact as the statistic's
 * value key lat.buckets=D (hist_field_bucket: (lat / D) * D), read back
 * divided by D; the kernel's expression x/D is not (6.1
 * div_by_mult_and_shift rounds up below 2^20).
 *
 * K and K' are tid() (common_pid) or an integer field of the same size;
 * the kernel's onmatch fires only when A set the variable for that key
 * and resets it when read, which is exactly "K' in t" then "delete".  A
 * second A before B overwrites, as t[K] = ... does: several start
 * probes share one named hist (one variable per key), which needs their
 * keys to be the same field (name, offset, size, sign).  The statistic's
 * keys ride along as synthetic fields: tid(), pid(), execname(), integer
 * fields and char[N] fields (next_comm).
 *
 * The start and end hists hold an entry per key ever seen (a read
 * variable is reset, its entry stays): they are sized from t's [N] or
 * MAXMAPENTRIES, and a full one (a lost latency) is warned about with
 * its Dropped count.
 *
 * Exactness rules (otherwise the pair stays in user space; -v says why):
 * t is used nowhere else (it is only the pair's timestamp store); s is
 * updated only there and read only in end, error and timer probes, and
 * not with @variance (lower_hist.c's rule); both handlers are nothing
 * but the shape; the kernel has hist triggers and synthetic events.
 * Leading "if (C) next" guards the kernel can evaluate become the
 * triggers' filters.
 */
#define _GNU_SOURCE
#include "lower_latency.h"
#include "arena.h"
#include "ast_walk.h"
#include "resolve_tpfmt.h"

#include <stdio.h>
#include <string.h>

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
				   lw_lat_array(e->a) : NULL;

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

/* K as a hist key field of @p's event, or NULL; the field in @f (NULL
   for common_pid). */
static const char *ll_key(const struct sem_probe *p, const struct ast_expr *e,
			  const struct tpf_field **f)
{
	*f = NULL;
	if (e->kind == AST_CALL && e->ref < 0 && !e->args.n && -e->ref - 1 == IR_BI_TID)
		return "common_pid";
	if (e->kind != AST_TARGET || e->ref < 0 || e->chain.n || e->chain.mem ||
	    (unsigned)e->ref >= p->event->nfields)
		return NULL;
	*f = &p->event->fields[e->ref];
	return (*f)->kind == TPF_INT ? (*f)->name : NULL;
}

/* The key's size in bytes (common_pid: 4). */
static unsigned ll_key_size(const struct tpf_field *f)
{
	return f ? f->size : 4;
}

/* Can start probes' keys @f and @g share one named hist (the kernel's
   hist_trigger_match: the same field, offset, size and signedness)? */
static bool ll_key_same(const struct tpf_field *f, const struct tpf_field *g)
{
	if (!f || !g)
		return !f && !g;
	return !strcmp(f->name, g->name) && f->offset == g->offset && f->size == g->size &&
	       f->is_signed == g->is_signed;
}

/* ---- deciding ---- */

/* The size of the start and end hists: t's [N], else MAXMAPENTRIES,
   within the kernel's bounds (lower_hist.c's rule). */
static unsigned ll_size(const struct lw_ctx *c, const struct lower_options *opt, unsigned g)
{
	int64_t n = g != ~0u && c->ir->globals[g].maxentries > 0 ? c->ir->globals[g].maxentries :
		    opt->maxmapentries ? opt->maxmapentries : 2048;

	return (unsigned)(n < LL_SIZE_MIN ? LL_SIZE_MIN : n > LL_SIZE_MAX ? LL_SIZE_MAX : n);
}

/*
 * Why the clocks of @l give another difference in the kernel, or NULL;
 * sets l->wall for gettimeofday_us/ms/s().  Those truncate each
 * wall-clock time: (b + off) / D - (a + off) / D, which depends on
 * ktap's wall-clock offset off, not only on b - a.  With R = off mod D
 * it is (b + R) / D - (a + R) / D: both timestamps, shifted by R (the
 * plan's $WALL%D, filled in when it is applied), go to the synthetic
 * event, whose value key divides each (ll_emit_pair).
 */
static const char *ll_clock_why(struct ll_pair *l)
{
	unsigned i;

	for (i = 0; i < l->na; i++)
		if (l->ca[i] != l->cb)
			return "the two timestamps come from different clocks";
	switch (l->cb) {
	case IR_BI_GETTIMEOFDAY_US: l->wall = 1000; break;
	case IR_BI_GETTIMEOFDAY_MS: l->wall = 1000000; break;
	case IR_BI_GETTIMEOFDAY_S: l->wall = 1000000000; break;
	default: l->wall = 0; break;
	}
	/* The value key is already an expression: no .buckets on it. */
	if (l->wall && l->div > 1)
		return "a difference of gettimeofday_us/ms/s() values divided again needs "
		       "user space (divide a gettimeofday_ns() difference instead)";
	return NULL;
}

/* Why the starts of @l cannot be lowered, or NULL. */
static const char *ll_starts_why(struct lw_ctx *c, const struct ll_pair *l)
{
	const struct sem_prog *sp = c->sp;
	const struct sem_probe *b = sp->probes[l->b];
	const struct tpf_field *fa, *f0 = NULL, *fb;
	unsigned i, k;

	if (l->entry)	/* common_pid on the entry and the return */
		return NULL;
	if (!ll_key(b, l->kb, &fb))
		return "a key is not tid() or an integer event field";
	for (i = 0; i < l->na; i++) {
		const struct sem_probe *a = sp->probes[l->a[i]];

		if (c->lowered[l->a[i]])
			return "a probe of the pair already runs in the kernel";
		if (!ll_key(a, l->ka[i], &fa))
			return "a key is not tid() or an integer event field";
		if (ll_key_size(fa) != ll_key_size(fb))
			return "the two keys have different sizes";
		if (i == 0) {
			f0 = fa;
			continue;
		}
		/* Several starts share one named hist, so a later start
		   overwrites an earlier one's time as t[K] = ... does. */
		if (!ll_key_same(f0, fa))
			return "the start probes' keys are not the same field";
		for (k = 0; k < i; k++)
			if (sp->probes[l->a[k]]->event == a->event)
				return "two start probes on one event";
	}
	return NULL;
}

/* Why the pair @l (shape already matched) cannot be lowered, or NULL. */
static const char *ll_why(struct lw_ctx *c, const struct lower_options *opt,
			  struct ll_pair *l)
{
	const struct sem_prog *sp = c->sp;
	const struct sem_probe *b = sp->probes[l->b];
	struct ll_use ut = { .g = l->start }, us = { .g = l->stat }, ur = { .g = l->stat };
	const char *why;
	struct lw_skey sk;
	unsigned i;

	if (!opt->hist)
		return opt->hist_why ? "--no-lower" : "the kernel has no hist triggers";
	if (!opt->synth)
		return "the kernel has no synthetic events";
	if (l->why)
		return l->why;
	if (c->lowered[l->b])
		return "a probe of the pair already runs in the kernel";
	if (!l->entry)
		ll_uses_all(sp, &ut, false);
	if (!l->entry && ut.n != 3 + l->na)	/* t[K] = (each start), K in t, t[K] read, delete t[K] */
		return arena_printf(c->arena, "%s is used outside the pair",
				    sp->globals[l->start]->name);
	ll_uses_all(sp, &us, true);
	if (us.n != 1)
		return arena_printf(c->arena, "%s is used in another event probe",
				    sp->globals[l->stat]->name);
	ll_uses_all(sp, &ur, false);
	if (ur.bad)
		return "@variance needs user space";
	if ((why = ll_clock_why(l)))
		return why;
	/* x / N in the kernel's expressions is not exact (6.1
	   div_by_mult_and_shift rounds up below 2^20); .buckets=N is.  A
	   wall-clock difference is an expression, which vals= cannot
	   print: a key. */
	l->exact = ur.exact || !sp->globals[l->stat]->read || l->div > 1 || l->wall;
	if (l->nsk + (l->exact ? 1 : 0) > LL_MAX_KEYS)
		return "the kernel's hists have at most 3 keys (the value is one)";
	for (i = 0; i < l->nsk; i++)
		if (!lw_synth_key(b, l->sk[i], &sk))
			return "a key of the statistic is not tid(), pid(), execname(), "
			       "a char[N] field or an integer field of a synthetic field's type";
	if ((why = ll_starts_why(c, l)))
		return why;
	l->size = ll_size(c, opt, l->start);	/* ~0u for @entry: MAXMAPENTRIES */
	return NULL;
}


/* ---- the objects ---- */

/* The start probes' names, for -v: "A" or "A, A2". */
static const char *ll_starts_pp(struct lw_ctx *c, const struct ll_pair *l)
{
	const char *s = c->sp->probes[l->a[0]]->pp;
	unsigned i;

	if (l->entry)
		return arena_printf(c->arena, "%s's entry", s);

	for (i = 1; i < l->na; i++)
		s = arena_printf(c->arena, "%s, %s", s, c->sp->probes[l->a[i]]->pp);
	return s;
}

static void ll_add_read(struct lw_ctx *c, const struct ir_hread *r)
{
	c->ir->hreads = arena_grow(c->arena, c->ir->hreads, c->ir->nhreads,
				   &c->ir->hrcap, sizeof(*c->ir->hreads));
	c->ir->hreads[c->ir->nhreads++] = *r;
}

/* The global a full start or end hist is reported under: t, or for
   @entry the statistic. */
static unsigned ll_drop_global(const struct ll_pair *l)
{
	return l->entry ? l->stat : l->start;
}

/* Trigger @obj (a start or end hist keyed like t) is read at the end for
   its Dropped count only: a full one loses latencies. */
static void ll_add_drops(struct lw_ctx *c, unsigned t, unsigned obj)
{
	const struct kp_trigger *kt = &c->ir->kplan.objs[obj].u.trigger;
	struct ir_hread r;

	memset(&r, 0, sizeof(r));
	r.global = t;
	r.obj = obj;
	r.system = kt->system;
	r.event = kt->event;
	r.val = IR_HV_DROPS;
	ll_add_read(c, &r);
}

/* Start @i of @l's event: the probe's, or for @entry the return's entry
   probe. */
static const struct tpf_event *ll_start_event(const struct lw_ctx *c, const struct ll_pair *l,
					      unsigned i)
{
	const struct tpf_event *ev = c->sp->probes[l->a[i]]->event;

	return l->entry ? ev->dyn_entry : ev;
}

/* "common_timestamp", or for a wall clock "common_timestamp+$WALL%D"
   (ll_clock_why). */
static const char *ll_stamp(struct lw_ctx *c, const struct ll_pair *l)
{
	return l->wall ? arena_printf(c->arena, "common_timestamp+$WALL%%%lld",
				      (long long)l->wall) : "common_timestamp";
}

/*
 * The start hists: "hist:keys=K:ktap_tsN=common_timestamp" on each A,
 * one named hist when there are several, so that they share one
 * variable per key.
 */
static void ll_emit_starts(struct lw_ctx *c, const struct ll_pair *l, unsigned n,
			   const char *ts)
{
	struct kp_hist_key *ka = arena_alloc(c->arena, sizeof(*ka));
	struct kp_hist_var *va = arena_alloc(c->arena, sizeof(*va));
	const char *name = l->na > 1 ? arena_printf(c->arena, "ktap_$PID_ts%u", n) : NULL;
	const struct tpf_field *f;
	struct kp_obj o;
	unsigned i;

	ka->field = l->entry ? "common_pid" : ll_key(c->sp->probes[l->a[0]], l->ka[0], &f);
	va->name = ts;
	va->expr = ll_stamp(c, l);
	for (i = 0; i < l->na; i++) {
		const struct tpf_event *ev = ll_start_event(c, l, i);

		/* An entry probe has no guards of its own: only ktap's pid. */
		o = (struct kp_obj){ .kind = KP_TRIGGER, .u.trigger = {
			.system = ev->system, .event = ev->name, .kind = KP_T_HIST,
			.filter = l->entry ? lw_own_pid_ev(ev) :
					     lw_lat_filter(c, l->a[i]),
			.hist = { .keys = ka, .nkeys = 1, .vars = va, .nvars = 1, .clock = "mono",
				  .size = l->size, .name = name } } };
		lower_kplan_add(c->arena, c->ir, &o);
		ll_add_drops(c, ll_drop_global(l), c->ir->kplan.n - 1);
	}
}

static void ll_emit_pair(struct lw_ctx *c, const struct ll_pair *l, unsigned n)
{
	const struct sem_prog *sp = c->sp;
	const struct tpf_event *a = ll_start_event(c, l, 0);
	const struct sem_probe *b = sp->probes[l->b];
	const char *synth = arena_printf(c->arena, "ktap_$PID_lat%u", n);
	const char *ts = arena_printf(c->arena, "ktap_ts%u", n);
	const char *lat = arena_printf(c->arena, "ktap_lat%u", n);
	unsigned nsk = l->nsk, nv = l->wall ? 2 : 1, i;	/* e, s or lat */
	struct kp_synth_field *sf = arena_alloc(c->arena, (nv + nsk) * sizeof(*sf));
	struct kp_hist_key *kb = arena_alloc(c->arena, sizeof(*kb));
	struct kp_hist_key *ks = arena_alloc(c->arena, (LL_MAX_KEYS + 1) * sizeof(*ks));
	struct kp_hist_var *vb = arena_alloc(c->arena, 2 * sizeof(*vb));
	struct kp_hist_action *act = arena_alloc(c->arena, sizeof(*act));
	const char **params = arena_alloc(c->arena, (nv + nsk) * sizeof(*params));
	const char **vals = arena_alloc(c->arena, sizeof(*vals));
	const struct tpf_field *f;
	struct lw_skey sk[LL_MAX_KEYS];
	struct kp_obj o;
	struct ir_hread r;
	unsigned bobj;

	sf[0].type = "u64";
	sf[0].name = "lat";
	params[0] = arena_printf(c->arena, "$%s", lat);
	if (l->wall) {	/* the end's and the start's shifted timestamps */
		sf[0].name = "e";
		sf[1].type = "u64";
		sf[1].name = "s";
		params[0] = arena_printf(c->arena, "$ktap_e%u", n);
		params[1] = arena_printf(c->arena, "$%s", ts);
	}
	for (i = 0; i < nsk; i++) {	/* the statistic's keys ride along */
		lw_synth_key(b, l->sk[i], &sk[i]);
		params[nv + i] = sk[i].param;
		sf[nv + i].type = sk[i].type;
		sf[nv + i].name = sk[i].len ? arena_printf(c->arena, "k%u[%u]", i, sk[i].len) :
					      arena_printf(c->arena, "k%u", i);
	}
	o = (struct kp_obj){ .kind = KP_SYNTH,
			     .u.synth = { .name = synth, .fields = sf, .nfields = nv + nsk } };
	lower_kplan_add(c->arena, c->ir, &o);

	ll_emit_starts(c, l, n, ts);

	kb->field = l->entry ? "common_pid" : ll_key(b, l->kb, &f);
	/* lat reads $ktap_tsN in an expression, which makes the kernel's
	   reference to it read-once (6.1 parse_expr): a second end without
	   a new start finds it unset, as "K' in t" after "delete t[K']". */
	vb[0].name = lat;
	vb[0].expr = arena_printf(c->arena, "common_timestamp-$%s", ts);
	vb[1].name = arena_printf(c->arena, "ktap_e%u", n);
	vb[1].expr = ll_stamp(c, l);
	*act = (struct kp_hist_action){ .handler = KP_ON_MATCH,
		.arg = arena_printf(c->arena, "%s.%s", a->system, a->name), .action = KP_ACT_TRACE,
		.synth = synth, .params = params, .nparams = nv + nsk };
	o = (struct kp_obj){ .kind = KP_TRIGGER, .u.trigger = {
		.system = b->event->system, .event = b->event->name, .kind = KP_T_HIST,
		.filter = lw_lat_filter(c, l->b),
		.hist = { .keys = kb, .nkeys = 1, .vars = vb, .nvars = nv, .clock = "mono",
			  .size = l->size, .actions = act, .nactions = 1 } } };
	lower_kplan_add(c->arena, c->ir, &o);
	/* An end event whose key finds no room in its full hist fires no
	   onmatch: that latency is lost, and said so. */
	bobj = c->ir->kplan.n - 1;
	ll_add_drops(c, ll_drop_global(l), bobj);

	/* The statistic, read back as lower_hist.c's scalars are: one entry
	   per CPU (summed), the value as the last key when exact. */
	memset(&r, 0, sizeof(r));
	r.global = l->stat;
	r.system = "synthetic";
	r.event = synth;
	r.mult = 1;
	r.div = l->div;
	for (i = 0; i < nsk; i++) {
		ks[r.nkeys].field = arena_printf(c->arena, "k%u", i);
		r.keys[r.nkeys++] = sk[i].k;
	}
	if (!l->keyed) {	/* a scalar: one entry per CPU, summed when read */
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
		if (l->wall)	/* (b + R) / D - (a + R) / D, exact above 2^20 */
			ks[r.nkeys - 1].field = arena_printf(c->arena, "e/%lld-s/%lld",
							     (long long)l->wall, (long long)l->wall);
		if (l->div > 1) {	/* (lat / div) * div, exactly */
			ks[r.nkeys - 1].mod = KP_KEY_BUCKETS;
			ks[r.nkeys - 1].buckets = (unsigned)l->div;
		}
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
	ll_add_read(c, &r);
	if (l->entry) {	/* returns without an entry time: warned about */
		memset(&r, 0, sizeof(r));
		r.global = l->stat;
		r.obj = bobj;
		r.system = b->event->system;
		r.event = b->event->name;
		r.val = IR_HV_UNMATCHED;
		r.pair = c->ir->nhreads - 1;
		ll_add_read(c, &r);
	}
	for (i = 0; i < r.nkeys; i++)
		if (r.keys[i].kind == IR_HK_PID || r.keys[i].kind == IR_HK_EXECNAME)
			c->ir->hist_track = true;
}

void lw_lat_decide(struct lw_ctx *c, const struct lower_options *opt)
{
	const struct sem_prog *sp = c->sp;
	struct ll_pair *v;
	unsigned n = lw_lat_find(c, opt, &v), i, k = 0, j;
	const char *why;

	c->lat = NULL;
	c->nlat = 0;
	for (i = 0; i < n; i++) {
		why = ll_why(c, opt, &v[i]);
		if (opt->verbose)
			fprintf(stderr, why ? "Pass 3: latency pair %s -> %s stays in user "
				"space: %s\n" : "Pass 3: latency pair %s -> %s runs in the "
				"kernel (hist variables, synthetic event, onmatch)%s\n",
				ll_starts_pp(c, &v[i]), sp->probes[v[i].b]->pp, why ? why : "");
		if (why)
			continue;
		c->lowered[v[i].b] = true;
		for (j = 0; j < v[i].na; j++)
			c->lowered[v[i].a[j]] = true;
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
