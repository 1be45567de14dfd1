/*
 * lower_hist_trigger.c - pass 3: the hist trigger of one aggregation
 * update (issue 12; lower_hist.c decides which updates the kernel
 * keeps).
 *
 * In: an update statement of a probe the kernel runs, with its keys and
 * value read through the prologue's locals.  Out: the trigger (keys,
 * values, size, the probe's guard as its filter), what must precede it
 * in the plan (the value hop's synthetic event and firing trigger), and
 * the ir_hread by which run_hist.c reads the hist back into the store.
 */
#define _GNU_SOURCE
#include "lower_hist.h"
#include "arena.h"
#include "resolve_tpfmt.h"

#include <string.h>

/* ---- keys and values as hist fields ---- */

static const struct tpf_field *lh_field(const struct sem_probe *p, const struct ast_expr *e)
{
	if (e->kind != AST_TARGET || e->ref < 0 || e->chain.n || e->chain.mem ||
	    (unsigned)e->ref >= p->event->nfields || p->event->fields[e->ref].element)
		return NULL;
	return &p->event->fields[e->ref];
}

/*
 * Key @e of probe @p: its hist field name and how the runtime reads it.
 * execname() is the kernel's common_comm where the target's hists have
 * it (the name when the event happened, as the user-space path's);
 * elsewhere common_pid, named through ktap's process tracking.
 */
static const char *lh_key(const struct lower_options *opt, const struct sem_probe *p,
			  const struct ast_expr *e, struct ir_hkey *k)
{
	const struct tpf_field *f = lh_field(p, e);

	memset(k, 0, sizeof(*k));
	if (e->kind == AST_STR || e->kind == AST_NUM) {	/* probefunc() of a kprobe */
		k->kind = IR_HK_CONST;
		k->is_string = e->kind == AST_STR;
		k->cstr = e->str;
		k->cnum = e->num;
		return "";
	}
	if (f && (f->kind == TPF_INT || f->kind == TPF_CHARS || f->kind == TPF_DATALOC_STR)) {
		k->kind = IR_HK_FIELD;
		k->is_string = f->kind != TPF_INT;
		k->is_signed = f->is_signed;
		k->size = f->size;
		return f->name;
	}
	if (e->kind == AST_CALL && e->ref < 0 && e->args.n == 1 &&
	    -e->ref - 1 == IR_BI_SYSCALL_NAME && (f = lh_field(p, e->args.v[0])) &&
	    f->kind == TPF_INT) {	/* syscall_any's name: numbers named when read */
		k->kind = IR_HK_SYSCALL;
		k->is_string = true;
		k->is_signed = f->is_signed;
		k->size = f->size;
		return f->name;
	}
	if (e->kind != AST_CALL || e->ref >= 0 || e->args.n)
		return NULL;
	switch (-e->ref - 1) {
	case IR_BI_TID: k->kind = IR_HK_TID; break;
	case IR_BI_PID: k->kind = IR_HK_PID; break;
	case IR_BI_EXECNAME:
		k->is_string = true;
		if (opt->comm_key && opt->comm_key(opt->comm_ctx))
			return "common_comm";	/* IR_HK_FIELD: a string key */
		k->kind = IR_HK_EXECNAME;
		break;
	case IR_BI_CPU: k->kind = IR_HK_CPU; return "common_cpu";
	default: return NULL;
	}
	k->is_signed = true;
	k->size = 4;
	return "common_pid";
}

/* The column among @keys' first @n holding field @f already (tid(),
   pid() and execname() all read common_pid), or -1. */
static int lh_column(const struct kp_hist_key *keys, unsigned n, const char *f)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (!strcmp(keys[i].field, f) && keys[i].mod == KP_KEY_NORMAL)
			return (int)i;
	return -1;
}

/* Is key @e backtrace()?  The hist's stacktrace key holds it (from the
   probe point: kernel stacks of tracepoints start there, rt_stack.c). */
static bool lh_backtrace(const struct ast_expr *e)
{
	return e->kind == AST_CALL && e->ref < 0 && !e->args.n &&
	       -e->ref - 1 == IR_BI_BACKTRACE;
}

/* ---- the plan ---- */

static unsigned lh_size(struct lh *h, unsigned g)
{
	const struct ir_global *ig = &h->c->ir->globals[g];
	int64_t n = ig->maxentries > 0 ? ig->maxentries :
		    h->opt->maxmapentries ? h->opt->maxmapentries : 2048;

	/* Exact values: one entry per distinct value, which MAXMAPENTRIES
	   (a number of keys) does not bound. */
	if (h->g[g].exact && n < LH_SIZE_EXACT)
		n = LH_SIZE_EXACT;
	if (n < LH_SIZE_MIN)
		n = LH_SIZE_MIN;
	if (n > LH_SIZE_MAX)
		n = LH_SIZE_MAX;
	return (unsigned)n;
}

/* An integer field of @p's event that @e is, or NULL. */
static const struct tpf_field *lh_int(const struct sem_probe *p, const struct ast_expr *e)
{
	const struct tpf_field *f = lh_field(p, e);

	return f && f->kind == TPF_INT ? f : NULL;
}

/*
 * Can the kernel sum or key update @u's value as it stands: a count, a
 * constant, a field, and for sums f1 +- f2, f +- N, N + f (whose sums
 * run_hist.c combines)?  Otherwise the value hop computes it.
 */
static bool lh_direct(struct lh *h, const struct sem_probe *p, const struct lh_upd *u)
{
	const struct ast_expr *v = u->val;
	const bool bin = v && v->kind == AST_BINARY && (v->op == AST_OP_ADD || v->op == AST_OP_SUB);

	if (!v || v->kind == AST_NUM || lh_int(p, v))
		return true;
	if (u->stat && h->g[u->global].exact)
		return false;
	return (bin && lh_int(p, v->a) && lh_int(p, v->b) && lh_int(p, v->a) != lh_int(p, v->b)) ||
	       (bin && lh_int(p, v->a) && v->b->kind == AST_NUM) ||
	       (v->kind == AST_BINARY && v->op == AST_OP_ADD && v->a->kind == AST_NUM &&
		lh_int(p, v->b));
}

/*
 * The value hop: a value the kernel must compute before summing or
 * keying it (a * of fields, or any + - expression of a statistic read
 * exactly, as stap's kmalloc waste $bytes_alloc - $bytes_req) goes
 * through a hist variable, which only a synthetic event can pass on:
 *
 *   synthetic_events  ktap_$PID_vP_K u64 v[; TYPE kJ...]
 *   the event         hist:keys=common_cpu:ktap_vP_K=0+EXPR:
 *                       onmatch(SYS.EV).trace(ktap_$PID_vP_K,$ktap_vP_K,KEYS...)
 *                       if GUARD
 *   the synthetic     hist:keys=kJ...[,v]:vals=v  (what run_hist.c reads)
 *
 * The variable is the event's own, set and read by the same record
 * (6.1 resolves a hist's own variables after updating its entry, then
 * runs the actions), keyed per CPU so that no other record can come
 * between.  The keys ride along as the latency pairs' do.
 */
static struct kp_trigger *lh_hop(struct lh *h, unsigned pi, const struct lh_upd *u,
				 struct ir_hread *r, const char **why, struct lh_hop *hop)
{
	struct lw_ctx *c = h->c;
	const struct sem_probe *p = c->sp->probes[pi];
	const struct ast_list *kl = u->lv->kind == AST_INDEX ? &u->lv->args : NULL;
	unsigned k = (unsigned)(u - h->p[pi].u), nk = kl ? kl->n : 0, i, j, nf = 1;
	const char *synth = arena_printf(c->arena, "ktap_$PID_v%u_%u", pi, k);
	const char *var = arena_printf(c->arena, "ktap_v%u_%u", pi, k);
	const char *expr = lw_synth_expr(c, p, u->val);
	struct kp_synth_field *sf = arena_alloc(c->arena, (nk + 1) * sizeof(*sf));
	const char **params = arena_alloc(c->arena, (nk + 1) * sizeof(*params));
	struct kp_hist_key *ks = arena_alloc(c->arena, 4 * sizeof(*ks));
	struct kp_hist_key *kc = arena_alloc(c->arena, sizeof(*kc));
	struct kp_hist_var *hv = arena_alloc(c->arena, sizeof(*hv));
	struct kp_hist_action *act = arena_alloc(c->arena, sizeof(*act));
	const char **vals = arena_alloc(c->arena, sizeof(*vals));
	struct kp_trigger *t = arena_alloc(c->arena, sizeof(*t));
	struct lw_skey sk;
	unsigned ncol = 0;

	if (!expr) {
		*why = "the value is not + - * of event fields and constants that the kernel can "
		       "compute (at most two operators)";
		return NULL;
	}
	if (!h->opt->synth) {
		*why = "a computed value needs synthetic events, which the kernel lacks";
		return NULL;
	}
	sf[0] = (struct kp_synth_field){ .type = "u64", .name = "v" };
	params[0] = arena_printf(c->arena, "$%s", var);
	for (i = 0; i < nk; i++) {
		if (kl->v[i]->kind == AST_STR || kl->v[i]->kind == AST_NUM) {
			r->keys[r->nkeys++] = (struct ir_hkey){ .kind = IR_HK_CONST, .col = -1,
				.is_string = kl->v[i]->kind == AST_STR, .cstr = kl->v[i]->str,
				.cnum = kl->v[i]->num };
			continue;
		}
		if (!lw_synth_key(p, kl->v[i], &sk)) {
			*why = "with a computed value, a key that is not tid(), pid(), execname(), "
			       "a char[N] field or an integer field of a synthetic field's type";
			return NULL;
		}
		for (j = 1; j < nf && strcmp(params[j], sk.param); j++)
			;
		if (j == nf) {	/* a new synthetic field and key column */
			if (ncol == LH_MAX_KEYS) {
				*why = "the kernel's hists have at most 3 keys";
				return NULL;
			}
			params[nf] = sk.param;
			sf[nf].type = sk.type;
			sf[nf].name = sk.len ? arena_printf(c->arena, "k%u[%u]", nf - 1, sk.len) :
					       arena_printf(c->arena, "k%u", nf - 1);
			ks[ncol++].field = arena_printf(c->arena, "k%u", nf - 1);
			nf++;
		}
		sk.k.col = (int)(j - 1);
		r->keys[r->nkeys++] = sk.k;
	}
	r->system = "synthetic";
	r->event = synth;
	r->mult = 1;
	r->val = u->stat ? IR_HV_STAT : IR_HV_SUM;
	if (u->stat && h->g[u->global].exact) {
		if (ncol == LH_MAX_KEYS) {
			*why = "the kernel's hists have at most 3 keys, the value being one";
			return NULL;
		}
		r->val = IR_HV_STATX;
		r->keys[r->nkeys++] = (struct ir_hkey){ .kind = IR_HK_FIELD, .is_signed = true,
							.size = 8, .col = (int)ncol };
		ks[ncol++].field = "v";
	} else {
		vals[0] = "v";
		t->hist.vals = vals;
		t->hist.nvals = 1;
	}
	if (!ncol) {	/* a scalar: one entry per CPU, summed when read */
		ks[ncol].field = "common_cpu";
		r->keys[r->nkeys++] = (struct ir_hkey){ .kind = IR_HK_NONE, .col = (int)ncol++ };
	}
	hop->synth = (struct kp_obj){ .kind = KP_SYNTH,
				      .u.synth = { .name = synth, .fields = sf, .nfields = nf } };
	kc->field = "common_cpu";
	hv->name = var;
	hv->expr = expr;
	*act = (struct kp_hist_action){ .handler = KP_ON_MATCH, .action = KP_ACT_TRACE,
		.arg = arena_printf(c->arena, "%s.%s", p->event->system, p->event->name),
		.synth = synth, .params = params, .nparams = nf };
	hop->fire = (struct kp_obj){ .kind = KP_TRIGGER, .u.trigger = {
		.system = p->event->system, .event = p->event->name, .kind = KP_T_HIST,
		.filter = lw_probe_kernel_filter(c, pi, NULL),
		.hist = { .keys = kc, .nkeys = 1, .vars = hv, .nvars = 1, .size = 128,
			  .actions = act, .nactions = 1 } } };
	t->system = "synthetic";
	t->event = synth;
	t->kind = KP_T_HIST;
	t->hist.keys = ks;
	t->hist.nkeys = ncol;
	t->hist.size = lh_size(h, u->global);
	return t;
}

struct kp_trigger *lw_hist_trigger(struct lh *h, unsigned pi, const struct lh_upd *u,
				   struct ir_hread *r, const char **why, struct lh_hop *hop)
{
	struct lw_ctx *c = h->c;
	const struct sem_probe *p = c->sp->probes[pi];
	const struct ast_list *kl = u->lv->kind == AST_INDEX ? &u->lv->args : NULL;
	struct kp_trigger *t = arena_alloc(c->arena, sizeof(*t));
	struct kp_hist_key *keys = arena_alloc(c->arena, 4 * sizeof(*keys));
	const char **vals = arena_alloc(c->arena, 2 * sizeof(*vals));	/* VALS_MAX - 1 */
	unsigned nk = kl ? kl->n : 0, i, ncol = 0;
	const char *f;
	int col;

	memset(r, 0, sizeof(*r));
	memset(hop, 0, sizeof(*hop));
	if (nk + 1 > IR_HREAD_KEYS) {
		*why = "an array of more than 9 keys";
		return NULL;
	}
	r->global = u->global;
	if (!lh_direct(h, p, u))
		return lh_hop(h, pi, u, r, why, hop);
	r->system = p->event->system;
	r->event = p->event->name;
	r->mult = u->mult;
	for (i = 0; i < nk; i++) {
		if (lh_backtrace(kl->v[i])) {
			if (p->event->dyn) {
				*why = "backtrace() of a kprobe or uprobe: the hist key's frames are "
				       "not the stacktrace trigger's (6.1: the trigger's stop at the "
				       "kprobe's ftrace trampoline)";
				return NULL;
			}
			/* from the probe point: the perf event lw_hist_emit() adds */
			r->keys[r->nkeys] = (struct ir_hkey){ .kind = IR_HK_KSTACK, .is_string = true };
			f = h->opt->hist_stack ? h->opt->hist_stack : "stacktrace";
			h->g[u->global].stack = true;
		} else if (!(f = lh_key(h->opt, p, kl->v[i], &r->keys[r->nkeys]))) {
			*why = "a key is not an event field, tid(), pid(), execname(), cpu() "
			       "or a constant";
			return NULL;
		}
		if (r->keys[r->nkeys].kind == IR_HK_CONST) {
			r->keys[r->nkeys++].col = -1;
			continue;
		}
		if ((col = lh_column(keys, ncol, f)) >= 0) {	/* pid() and execname() */
			r->keys[r->nkeys++].col = col;
			continue;
		}
		if (ncol == LH_MAX_KEYS) {
			*why = "the kernel's hists have at most 3 keys";
			return NULL;
		}
		r->keys[r->nkeys++].col = (int)ncol;
		keys[ncol++].field = f;
	}
	/* s <<< N: every value is N, each hit one (a constant key of the
	   value, in no column: run_hist.c's exact reading) */
	const bool cval = u->stat && u->val && u->val->kind == AST_NUM;

	if (!ncol && !(u->stat && h->g[u->global].exact && !cval)) {
		/* no column: one entry per CPU, summed when read */
		keys[ncol].field = "common_cpu";
		r->keys[r->nkeys++] = (struct ir_hkey){ .kind = IR_HK_NONE, .col = (int)ncol++ };
	}
	t->hist.nvals = 0;
	if (!u->val) {
		r->val = IR_HV_COUNT;
	} else if (!u->stat && u->val->kind == AST_NUM) {
		r->val = IR_HV_COUNT;
		r->mult = u->val->num;
	} else if (cval) {
		r->val = IR_HV_STATX;
		r->keys[r->nkeys++] = (struct ir_hkey){ .kind = IR_HK_CONST, .col = -1,
							.cnum = u->val->num };
	} else if (u->stat && h->g[u->global].exact) {
		const struct tpf_field *vf = lh_field(p, u->val);

		if (!vf || vf->kind != TPF_INT) {
			*why = "@min/@max/@hist_* need the value to be an event field";
			return NULL;
		}
		r->val = IR_HV_STATX;
		if (ncol == LH_MAX_KEYS) {
			*why = "the kernel's hists have at most 3 keys, the value being one";
			return NULL;
		}
		r->keys[r->nkeys++] = (struct ir_hkey){ IR_HK_FIELD, false, vf->is_signed,
							vf->size, (int)ncol, NULL, 0 };
		keys[ncol++].field = vf->name;
	} else {
		const struct ast_expr *v = u->val;
		const struct tpf_field *fa = NULL, *fb = NULL;
		const bool bin = v->kind == AST_BINARY && (v->op == AST_OP_ADD ||
							   v->op == AST_OP_SUB);

		r->val = u->stat ? IR_HV_STAT : IR_HV_SUM;
		/*
		 * A sum of f1 +- f2 is the sum of f1 +- the sum of f2, and of
		 * f +- N the sum of f +- N per hit: the kernel sums plain
		 * fields (6.1 cannot print a value that is an expression or
		 * refer to a variable from vals=), run_hist.c does the rest.
		 */
		if ((fa = lh_field(p, v)) && fa->kind == TPF_INT) {
			vals[t->hist.nvals++] = fa->name;
		} else if (bin && (fa = lh_field(p, v->a)) && fa->kind == TPF_INT &&
			   (fb = lh_field(p, v->b)) && fb->kind == TPF_INT && fa != fb) {
			vals[t->hist.nvals++] = fa->name;
			vals[t->hist.nvals++] = fb->name;
			r->sign2 = v->op == AST_OP_ADD ? 1 : -1;
		} else if (bin && (fa = lh_field(p, v->a)) && fa->kind == TPF_INT &&
			   v->b->kind == AST_NUM) {
			vals[t->hist.nvals++] = fa->name;
			r->vconst = v->op == AST_OP_ADD ? v->b->num : -v->b->num;
		} else if (v->kind == AST_BINARY && v->op == AST_OP_ADD && v->a->kind == AST_NUM &&
			   (fb = lh_field(p, v->b)) && fb->kind == TPF_INT) {
			vals[t->hist.nvals++] = fb->name;
			r->vconst = v->a->num;
		} else {
			*why = "the value is not an event field, f1 + f2, f1 - f2 or f +- N";
			return NULL;
		}
	}
	t->system = p->event->system;
	t->event = p->event->name;
	t->kind = KP_T_HIST;
	t->hist.keys = keys;
	t->hist.nkeys = ncol;
	t->hist.vals = vals;
	t->hist.size = lh_size(h, u->global);
	/* the handler's guard, as the event filter would have it */
	t->filter = lw_probe_kernel_filter(c, pi, NULL);
	return t;
}
