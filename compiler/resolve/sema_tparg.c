/*
 * sema_tparg.c - pass 2: the arguments of a tracepoint in a
 * kernel.trace() probe, as SystemTap has them.
 *
 * In SystemTap, the target variables of kernel.trace("sched_switch") are
 * the tracepoint's arguments ($prev and $next are struct task_struct
 * pointers, $preempt a bool), read where the tracepoint is called.  ktap
 * reads the event's record, which TP_fast_assign filled from those
 * arguments.  Where a record field is an exact copy of an argument
 * expression (resolve_tparg.c's table, generated from the kernel's
 * source: prev->pid is prev_pid, comm of task_rename is newcomm), the
 * expression is read from the field: the target becomes that field
 * ($prev->pid becomes $prev_pid), so pass 3 sees a plain field.  The
 * running kernel has the last word: its BTF (__bpf_trace_<class>, whose
 * parameters are the tracepoint's) says which names are arguments and
 * which members exist, its event format that the field is there with a
 * matching kind; otherwise the expression cannot be read, and the error
 * says so and why.
 *
 * A record field of the same name as an argument wins for a plain $name
 * (ktap's own $field access; the two hold the same value where the
 * kernel copies the argument under its own name, as irq's irq does).
 *
 * In:  a target, kernel_string() of one, or @cast() of one, met by
 *      sema_target.c in a kernel.trace() probe or in a function
 *      specialised for one (sema_spec.c: task_pid($prev) reads
 *      @cast($prev, "task_struct")->tgid).
 * Out: the node rewritten into a field target and typed, or an error.
 */
#include "sema_int.h"
#include "arena.h"
#include "diag.h"
#include "resolve_btf.h"
#include "resolve_elf.h"
#include "resolve_tparg.h"
#include "resolve_tpfmt.h"
#include "target.h"

#include <stdio.h>
#include <string.h>

/* The running kernel's view of one tracepoint: its BTF prototype. */
struct tpa_btf {
	const struct btf *btf;		/* NULL: no BTF, the table's prototype */
	int32_t proto;
	const char *fname;		/* "__bpf_trace_<class>" */
};

/* The tracepoint @ev reads: itself, or the one of tpa_eprobe()'s eprobe. */
static const struct tpf_event *tpa_tp(const struct tpf_event *ev)
{
	return sema_point_tracepoint(ev);
}

const struct rtparg_event *sema_tparg_event(const struct tpf_event *ev)
{
	ev = tpa_tp(ev);
	if (!ev || ev->dyn || ev->dyn_func)
		return NULL;
	return rtparg_event(ev->system, ev->name);
}

/* The BTF prototype of @te's probe function, when the kernel has BTF. */
static struct tpa_btf tpa_btf(struct sema_ctx *c, const struct rtparg_event *te)
{
	struct tpa_btf b = { NULL, 0, NULL };
	struct btf *btf;
	char err[256] = "";

	if (!c->in->up || !(btf = relf_kernel_btf(c->in->up, c->arena, NULL, err, sizeof(err))))
		return b;
	b.fname = arena_printf(c->arena, "__bpf_trace_%s", te->cls);
	if (rbtf_find(btf, b.fname, &b.proto, err, sizeof(err)) == 0)
		b.btf = btf;
	return b;
}

/* Is @name an argument of @te on the running kernel? */
static bool tpa_is_arg(struct sema_ctx *c, const struct rtparg_event *te, const char *name)
{
	struct tpa_btf b = tpa_btf(c, te);
	struct ast_chain none = { 0 };
	char var[128], err[256];
	uint32_t type;

	if (!strcmp(name, "__data"))	/* the probe function's own first parameter */
		return false;
	if (!b.btf)
		return rtparg_arg_type(c->arena, te, name) != NULL;
	snprintf(var, sizeof(var), "$%s", name);
	return rbtf_chain_type(c->arena, b.btf, b.proto, b.fname, var, &none, false, &type, err,
			       sizeof(err)) == 0;
}

/* Does target @e name an argument of @ev's tracepoint (a field of the
   same name or not)? */
static bool tpa_names_arg(struct sema_ctx *c, const struct tpf_event *ev,
			  const struct ast_expr *e)
{
	const struct rtparg_event *te = sema_tparg_event(ev);

	if (!te || e->kind != AST_TARGET || e->module || !strncmp(e->str, "$$", 2))
		return false;
	return tpa_is_arg(c, te, e->str + 1);
}

bool sema_tparg_applies(struct sema_ctx *c, const struct tpf_event *ev, const struct ast_expr *e)
{
	if (e->kind == AST_TARGET && !e->chain.n && tpf_field(ev, e->str + 1))
		return false;		/* the record's own field ($irq, $irq$) */
	return tpa_names_arg(c, ev, e);
}

/* "prev->se->vruntime" for $prev->se->vruntime; NULL when it has an index. */
static const char *tpa_path(struct sema_ctx *c, const struct ast_expr *e)
{
	const char *s = e->str + 1;
	unsigned i;

	for (i = 0; i < e->chain.n; i++) {
		if (e->chain.v[i].is_index)
			return NULL;
		s = arena_printf(c->arena, "%s->%s", s, e->chain.v[i].name);
	}
	return s;
}

/* Where to report about @e: the call of the function specialised for the probe, or @e. */
static struct src_span tpa_at(const struct sema_ctx *c, const struct ast_expr *e)
{
	return c->func && c->func->site && c->func->has_call ? c->func->call : e->span;
}

/* " (read by task_pid())" inside a specialised function, else "". */
static const char *tpa_via(const struct sema_ctx *c)
{
	if (!c->func || !c->func->site)
		return "";
	return arena_printf(c->arena, " (read by %s())", c->func->ast->name);
}

/* @written cannot be read: the record holds no copy of it. */
static enum sem_type tpa_unrecorded(struct sema_ctx *c, const struct tpf_event *ev,
				    const struct ast_expr *e, const char *written)
{
	bool tprobes = target_has(c->in->target, TGT_TPROBES);

	sema_err(c, tpa_at(c, e), "%s%s: %s:%s records no field for it; reading tracepoint "
		 "arguments needs tracepoint probe events (Linux 6.10+ with "
		 "CONFIG_FPROBE_EVENTS)%s", written, tpa_via(c), tpa_tp(ev)->system,
		 tpa_tp(ev)->name,
		 tprobes ? " and the kernel's BTF (CONFIG_DEBUG_INFO_BTF), which this kernel "
			   "does not have" : ", which this kernel does not have");
	return SEM_UNKNOWN;
}

/*
 * The field of @ev holding @path, of the kind the table says, or NULL.
 * @size: the size of the value at @path by the running kernel's BTF (-1
 * without): a number must fit the field, or the kernel's assignment is
 * no longer the copy the table says it is.
 */
static const struct tpf_field *tpa_field(const struct tpf_event *ev,
					 const struct rtparg_event *te, const char *path,
					 int64_t size)
{
	bool is_string;
	const char *name = rtparg_field(te, path, &is_string);
	const struct tpf_field *f = name ? tpf_field(ev, name) : NULL;

	if (!f)
		return NULL;
	if (is_string ? f->kind != TPF_CHARS && f->kind != TPF_DATALOC_STR : f->kind != TPF_INT)
		return NULL;
	if (!is_string && size > (int64_t)f->size)
		return NULL;
	return f;
}

/* The size of the value $arg->chain is by the kernel's BTF, or -1. */
static int64_t tpa_size(struct sema_ctx *c, const struct rtparg_event *te,
			const struct ast_expr *e)
{
	struct tpa_btf b = tpa_btf(c, te);
	char err[512];
	uint32_t type;

	if (!b.btf || rbtf_chain_type(c->arena, b.btf, b.proto, b.fname, e->str, &e->chain,
				      false, &type, err, sizeof(err)) != 0)
		return -1;
	return rbtf_type_size(b.btf, type);
}

/*
 * Check $arg->chain against the running kernel's BTF: the members must
 * exist.  0, or -1 after reporting.
 */
static int tpa_check_members(struct sema_ctx *c, const struct rtparg_event *te,
			     const struct ast_expr *e, const char *written)
{
	struct tpa_btf b = tpa_btf(c, te);
	const char *type_text;
	char err[512];
	uint32_t type;

	if (!b.btf || rbtf_chain_type(c->arena, b.btf, b.proto, b.fname, e->str, &e->chain, false,
				      &type, err, sizeof(err)) == 0)
		return 0;
	type_text = rtparg_arg_type(c->arena, te, e->str + 1);
	sema_err(c, tpa_at(c, e), "%s%s: %s (tracepoint argument %s is %s)", written, tpa_via(c),
		 err, e->str, type_text ? type_text : "of unknown type");
	return -1;
}

/* "task_struct" of "struct task_struct *", "struct task_struct" or "task_struct". */
static const char *tpa_struct_name(struct sema_ctx *c, const char *t)
{
	size_t n;

	if (!strncmp(t, "const ", 6))
		t += 6;
	if (!strncmp(t, "struct ", 7))
		t += 7;
	n = strcspn(t, " *");
	return arena_strndup(c->arena, t, n);
}

/* The fetch type of field @f copied into an eprobe's record ("$f:u32"),
   or NULL when the record cannot copy it. */
static const char *tpa_copy_type(struct sema_ctx *c, const struct tpf_field *f)
{
	if (f->kind == TPF_CHARS || f->kind == TPF_DATALOC_STR)
		return "string";
	if (f->kind != TPF_INT || f->element ||
	    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
		return NULL;
	return arena_printf(c->arena, "%c%u", f->is_signed ? 's' : 'u', f->size * 8);
}

/*
 * The probe's event as ktap's eprobe on its tracepoint: a record with
 * the tracepoint's fields under their own names and in their order (so
 * that what is typed already stays valid), copied by the eprobe's fetch
 * arguments ("$name:TYPE"; the common fields are in every record), and
 * room for the members read through recorded pointers.
 */
static struct tpf_event *tpa_eprobe_event(struct sema_ctx *c, struct sem_probe *pr)
{
	const struct tpf_event *tp = pr->event;
	struct tpf_event *ep;
	const char *type;
	unsigned i;
	char *name;

	if (sema_point_on_tp(tp))	/* its eprobe, or a tprobe, which reads as much */
		return pr->event;
	ep = arena_alloc(c->arena, sizeof(*ep));
	memset(ep, 0, sizeof(*ep));
	ep->system = "ktap_$PID";
	ep->name = name = arena_printf(c->arena, "%.40s_e%u", tp->name, pr->index);
	sema_point_ident(name);
	ep->fields = arena_alloc(c->arena, (tp->nfields + 1) * sizeof(*ep->fields));
	ep->nfields = tp->nfields;
	ep->fcap = tp->nfields + 1;
	for (i = 0; i < tp->nfields; i++) {
		ep->fields[i] = tp->fields[i];
		if (tp->fields[i].common)
			continue;
		type = tpa_copy_type(c, &tp->fields[i]);
		ep->fields[i].fetch = type ? arena_printf(c->arena, "$%s:%s", tp->fields[i].name,
							  type) : NULL;
		if (!type)	/* not in the eprobe's record */
			ep->fields[i].kind = TPF_OTHER, ep->fields[i].nelem = 0;
		else if (!strcmp(type, "string"))
			ep->fields[i].kind = TPF_DATALOC_STR;
	}
	ep->dyn = sema_point_dynevent(c, ep, KP_EPROBE,
				      arena_printf(c->arena, "%s.%s", tp->system, tp->name),
				      sema_point_origin(c, pr->point));
	ep->dyn_tp = tp;
	pr->event = ep;
	c->changed = true;
	return ep;
}

/* "skb->dev->mtu" as a fetch argument's name: "skb_dev_mtu". */
static const char *tpa_arg_name(struct sema_ctx *c, const char *path)
{
	char *s = arena_printf(c->arena, "%s", path), *r = s, *w = s;

	for (; *r; r++) {
		if (r[0] == '-' && r[1] == '>') {
			*w++ = '_';
			r++;
		} else {
			*w++ = *r;
		}
	}
	*w = 0;
	return s;
}

/* @path ("prev->pid") as target $prev->pid: @var "$prev" and @chain; -1
   for what is not a member chain. */
static int tpa_parse_path(struct sema_ctx *c, const char *path, const char **var,
			  struct ast_chain *chain)
{
	const char *p = path, *end;

	memset(chain, 0, sizeof(*chain));
	end = strstr(p, "->");
	*var = arena_printf(c->arena, "$%.*s", (int)(end ? end - p : (ptrdiff_t)strlen(p)), p);
	while (end) {
		p = end + 2;
		end = strstr(p, "->");
		chain->v = arena_grow(c->arena, chain->v, chain->n, &chain->cap, sizeof(*chain->v));
		memset(&chain->v[chain->n], 0, sizeof(chain->v[0]));
		chain->v[chain->n++].name = arena_strndup(c->arena, p, end ? (size_t)(end - p) :
								       strlen(p));
	}
	return strpbrk(path, ".[(*& ") ? -1 : 0;
}

/*
 * The fetch of the tracepoint probe event that reads what record field
 * @name holds (prev_pid: +OFF($arg2):s32, from prev->pid), or NULL when
 * the field is neither a copy of an argument expression nor an argument.
 */
static const char *tpa_copy_fetch(struct sema_ctx *c, const struct rtparg_event *te,
				  struct tpa_btf b, const char *name)
{
	const char **exprs, **fields, *var;
	unsigned i, n = rtparg_maps(c->arena, te, &exprs, &fields);
	struct ast_chain chain;
	struct fetch f;
	char err[256];

	for (i = 0; i < n; i++)
		if (!strcmp(fields[i], name))
			break;
	/* else an argument of the field's name, which $name reads in stap
	   (6.12's sched_switch: the argument prev_state, not the field the
	   tracepoint computes from it) */
	if (tpa_parse_path(c, i < n ? exprs[i] : name, &var, &chain) != 0 ||
	    rbtf_tp_fetch(c->arena, b.btf, b.proto, var, &chain, &f, err, sizeof(err)) != 0)
		return NULL;
	return f.arg;
}

/* Does ktap read @te's arguments with a tracepoint probe event here? */
static bool tpa_can_tprobe(struct sema_ctx *c, const struct rtparg_event *te)
{
	return te && target_has(c->in->target, TGT_TPROBES) && tpa_btf(c, te).btf;
}

/* Another probe's tprobe on @tp's tracepoint, or NULL. */
static struct tpf_event *tpa_shared_tprobe(struct sema_ctx *c, const struct tpf_event *tp)
{
	unsigned i;

	for (i = 0; i < c->prog->nprobes; i++) {
		struct tpf_event *ev = c->prog->probes[i]->event;

		if (ev && ev->dyn && ev->dyn->kind == KP_TPROBE &&
		    !strcmp(ev->dyn_tp->system, tp->system) && !strcmp(ev->dyn_tp->name, tp->name))
			return ev;
	}
	return NULL;
}

/*
 * The probe's event as ktap's tracepoint probe event (t:, Linux 6.10+)
 * on its tracepoint, which reads the tracepoint's arguments: a record
 * with the tracepoint's fields under their own names and in their order
 * (what is typed already stays valid) where they copy an argument
 * expression, read from the argument (prev_pid from prev->pid); fields
 * the tracepoint computes (prev_state) are not in it.  The kernel takes
 * one tracepoint probe event per tracepoint (6.12: a second is
 * "File exists"), so the script's probes on one tracepoint share it.
 * NULL when the probe reads an eprobe already.
 */
static struct tpf_event *tpa_tprobe_event(struct sema_ctx *c, struct sem_probe *pr,
					  const struct rtparg_event *te, struct tpa_btf b)
{
	const struct tpf_event *tp = pr->event;
	struct tpf_event *ev;
	unsigned i;
	char *name;

	if (tp->dyn)
		return tp->dyn->kind == KP_TPROBE ? pr->event : NULL;
	ev = tpa_shared_tprobe(c, tp);
	if (!ev) {
		ev = arena_alloc(c->arena, sizeof(*ev));
		memset(ev, 0, sizeof(*ev));
		ev->system = "ktap_$PID";
		ev->name = name = arena_printf(c->arena, "%.40s_t", tp->name);
		sema_point_ident(name);
		ev->fields = arena_alloc(c->arena, (tp->nfields + 1) * sizeof(*ev->fields));
		ev->nfields = tp->nfields;
		ev->fcap = tp->nfields + 1;
		for (i = 0; i < tp->nfields; i++) {
			struct tpf_field *f = &ev->fields[i];

			*f = tp->fields[i];
			if (f->common)
				continue;
			f->fetch = tpa_copy_fetch(c, te, b, f->name);
			if (!f->fetch)		/* not in the record */
				f->kind = TPF_OTHER, f->nelem = 0;
			else if (f->kind == TPF_CHARS)
				f->kind = TPF_DATALOC_STR;
		}
		ev->dyn = sema_point_dynevent(c, ev, KP_TPROBE, tp->name,
					      sema_point_origin(c, pr->point));
		ev->dyn_tp = tp;
	}
	pr->event = ev;
	c->changed = true;
	return ev;
}

/*
 * @e ($arg->chain, $arg) that the record does not hold, read by a
 * tracepoint probe event from the argument itself, with the kernel's
 * BTF (the caller checked that the kernel has both).  Its field, or NULL
 * after reporting.
 */
static const struct tpf_field *tpa_tprobe(struct sema_ctx *c, const struct tpf_event *ev,
					  const struct rtparg_event *te, const struct ast_expr *e)
{
	struct sem_probe *pr = c->func ? c->func->site : c->probe;
	struct tpa_btf b = tpa_btf(c, te);
	struct tpf_event *tev;
	struct fetch f;
	char err[512];
	int k;

	if (rbtf_tp_fetch(c->arena, b.btf, b.proto, e->str, &e->chain, &f, err, sizeof(err)) != 0) {
		sema_err(c, tpa_at(c, e), "%s%s: %s", sema_spec_text(c->arena, e), tpa_via(c), err);
		return NULL;
	}
	if (!(tev = tpa_tprobe_event(c, pr, te, b))) {
		sema_err(c, tpa_at(c, e), "%s%s: %s:%s records no field for it, and this probe "
			 "reads memory through an event probe on the tracepoint already; ktap "
			 "reads a probe's values with one kernel event", sema_spec_text(c->arena, e),
			 tpa_via(c), tpa_tp(ev)->system, tpa_tp(ev)->name);
		return NULL;
	}
	f.name = tpa_arg_name(c, tpa_path(c, e));
	k = sema_point_dyn_field(c, tev, &f);	/* may move tev->fields */
	return &tev->fields[k];
}

/*
 * @e ($arg->chain, a number) where the record holds the argument's
 * pointer but not the member ($skb->len of skb:consume_skb, whose skbaddr
 * is skb): an eprobe (Linux 5.15+) on the tracepoint reads the member
 * through the recorded pointer ("+112($skbaddr):u32"), from the kernel's
 * BTF; a string too, for kernel_string() of a char array or pointer
 * member ("+0(+16($skbaddr)):string").  The eprobe's field, or NULL when
 * none can (no BTF, no such pointer field; *@no_eprobes: only for want
 * of eprobes) and the caller reports.
 */
static const struct tpf_field *tpa_eprobe(struct sema_ctx *c, const struct tpf_event *ev,
					  const struct rtparg_event *te, const struct ast_expr *e,
					  bool *no_eprobes)
{
	struct sem_probe *pr = c->func ? c->func->site : c->probe;
	const struct tpf_field *pf;
	struct tpa_btf b = tpa_btf(c, te);
	const char *ptr, *type;
	struct tpf_event *ep;
	bool is_string;
	struct fetch f;
	char err[512];
	int k;

	if (!e->chain.n || !pr || c->entry || !b.btf ||
	    !(ptr = rtparg_field(te, e->str + 1, &is_string)) || is_string ||
	    !(pf = tpf_field(ev, ptr)) || pf->kind != TPF_INT || pf->size != 8 ||
	    !(type = rtparg_arg_type(c->arena, te, e->str + 1)) || !strchr(type, '*'))
		return NULL;
	if (!target_has(c->in->target, TGT_EPROBES)) {
		*no_eprobes = true;
		return NULL;
	}
	if (rbtf_cast(c->arena, b.btf, arena_printf(c->arena, "$%s", ptr), e->str + 1,
		      tpa_struct_name(c, type), &e->chain, &f, err, sizeof(err)) != 0)
		return NULL;
	f.name = tpa_arg_name(c, tpa_path(c, e));
	ep = tpa_eprobe_event(c, pr);
	k = sema_point_dyn_field(c, ep, &f);	/* may move ep->fields */
	return &ep->fields[k];
}

/* The field @e ($arg->chain) is read from, or NULL after reporting. */
static const struct tpf_field *tpa_resolve(struct sema_ctx *c, const struct tpf_event *ev,
					   const struct ast_expr *e)
{
	const struct rtparg_event *te = sema_tparg_event(ev);
	const char *written = sema_spec_text(c->arena, e);
	const char *path = tpa_path(c, e);
	const struct tpf_field *f;
	bool no_eprobes = false;

	if (e->chain.pretty) {
		sema_err(c, tpa_at(c, e), "%s%s: pretty-printing a tracepoint argument needs its "
			 "memory, which the record does not hold", written, tpa_via(c));
		return NULL;
	}
	if (tpa_check_members(c, te, e, written) != 0)
		return NULL;
	f = path ? tpa_field(ev, te, path, tpa_size(c, te, e)) : NULL;
	if (!f && tpa_can_tprobe(c, te) && (c->func ? c->func->site : c->probe) && !c->entry)
		return tpa_tprobe(c, ev, te, e);
	if (!f)
		f = tpa_eprobe(c, ev, te, e, &no_eprobes);
	if (!f && no_eprobes)
		sema_err(c, tpa_at(c, e), "%s%s: %s:%s records the pointer but not what it "
			 "points to; reading through it needs event probes (eprobes: Linux 5.15+, "
			 "CONFIG_EPROBE_EVENTS since 6.2), which this kernel does not have", written, tpa_via(c),
			 tpa_tp(ev)->system, tpa_tp(ev)->name);
	else if (!f)
		tpa_unrecorded(c, ev, e, written);
	return f;
}

/* @e becomes the plain target of field @f, typed. */
static enum sem_type tpa_become(struct sema_ctx *c, struct ast_expr *e, const struct tpf_field *f)
{
	e->kind = AST_TARGET;
	e->str = arena_printf(c->arena, "$%s", f->name);
	e->module = NULL;
	e->args.n = 0;
	memset(&e->chain, 0, sizeof(e->chain));
	c->changed = true;
	return c->type_expr(c, e);
}

/*
 * Fetch @f (a read through task_current(), sema_current.c) in the
 * probe's tracepoint: a field of the eprobe on it, which @e becomes.
 */
enum sem_type sema_tparg_fetched(struct sema_ctx *c, struct ast_expr *e, const struct fetch *f)
{
	struct sem_probe *pr = c->func ? c->func->site : c->probe;
	const struct rtparg_event *te;
	struct tpf_event *ep;
	int k;

	if (!pr)	/* sema_current_address() let no such call through */
		return SEM_UNKNOWN;
	te = sema_tparg_event(pr->event);
	ep = tpa_can_tprobe(c, te) ? tpa_tprobe_event(c, pr, te, tpa_btf(c, te)) : NULL;
	if (!ep)	/* no tprobes, or an eprobe the probe has already */
		ep = tpa_eprobe_event(c, pr);
	k = sema_point_dyn_field(c, ep, f);	/* may move ep->fields */
	return tpa_become(c, e, &ep->fields[k]);
}

enum sem_type sema_tparg_target(struct sema_ctx *c, struct tpf_event *ev, struct ast_expr *e)
{
	const struct tpf_field *f = tpa_resolve(c, ev, e);

	return f ? tpa_become(c, e, f) : SEM_UNKNOWN;
}

bool sema_tparg_defined(struct sema_ctx *c, const struct tpf_event *ev, const struct ast_expr *e)
{
	const struct rtparg_event *te = sema_tparg_event(ev);
	const char *path = tpa_path(c, e);
	struct tpa_btf b = tpa_btf(c, te);
	int64_t size = tpa_size(c, te, e);

	if (e->chain.pretty || (b.btf && size < 0))
		return false;	/* with BTF, a member it does not have */
	if (tpa_can_tprobe(c, te))	/* the tprobe reads any argument's member */
		return true;
	return path && tpa_field(ev, te, path, size) != NULL;
}


/*
 * @cast(ADDR, "T")->chain where ADDR is a tracepoint argument (or a
 * member chain or @cast of one) of type T *: the target ADDR->chain.  0,
 * or -1 after reporting.
 */
static int tpa_cast_target(struct sema_ctx *c, const struct tpf_event *ev, struct ast_expr *e)
{
	struct ast_expr *addr = e->a;
	struct tpa_btf b;
	const char *want, *have = NULL;
	unsigned i;

	if (addr->kind == AST_CAST && tpa_cast_target(c, ev, addr) != 0)
		return -1;
	/* @cast($timer, ...) of timer_start, whose record holds $timer too:
	   the argument, read through as $timer->member */
	if (addr->kind != AST_TARGET || !tpa_names_arg(c, ev, addr) || addr->chain.pretty) {
		sema_err(c, tpa_at(c, e), "%s%s: in a kernel.trace() probe, @cast() reads through a "
			 "tracepoint argument ($ptr, $p->member), and only what the event's record "
			 "holds", sema_spec_text(c->arena, e), tpa_via(c));
		return -1;
	}
	b = tpa_btf(c, sema_tparg_event(ev));
	if (b.btf) {
		uint32_t type;
		char err[512];

		if (tpa_check_members(c, sema_tparg_event(ev), addr, sema_spec_text(c->arena, addr)))
			return -1;
		rbtf_chain_type(c->arena, b.btf, b.proto, b.fname, addr->str, &addr->chain, false,
				&type, err, sizeof(err));
		have = rbtf_type_name(c->arena, b.btf, type);
	} else if (!addr->chain.n) {
		have = rtparg_arg_type(c->arena, sema_tparg_event(ev), addr->str + 1);
	}
	want = tpa_struct_name(c, e->str);
	if (have && strcmp(tpa_struct_name(c, have), want) != 0) {
		sema_err(c, tpa_at(c, e), "%s%s: the tracepoint argument is a %s, not a struct %s *",
			 sema_spec_text(c->arena, e), tpa_via(c), have, want);
		return -1;
	}
	for (i = 0; i < e->chain.n; i++) {
		addr->chain.v = arena_grow(c->arena, addr->chain.v, addr->chain.n,
					   &addr->chain.cap, sizeof(*addr->chain.v));
		addr->chain.v[addr->chain.n++] = e->chain.v[i];
	}
	addr->span = e->span;
	*e = *addr;
	return 0;
}

enum sem_type sema_tparg_cast(struct sema_ctx *c, struct tpf_event *ev, struct ast_expr *e)
{
	if (tpa_cast_target(c, ev, e) != 0)
		return SEM_UNKNOWN;
	return sema_tparg_target(c, ev, e);
}

bool sema_tparg_cast_defined(struct sema_ctx *c, const struct tpf_event *ev,
			     const struct ast_expr *e)
{
	struct ast_expr *copy = ast_clone_expr(c->arena, e);
	bool report = c->report, ok;

	/* Quietly: a member this kernel lacks makes it undefined, not an error. */
	c->report = false;
	ok = tpa_cast_target(c, ev, copy) == 0 && sema_tparg_defined(c, ev, copy);
	c->report = report;
	return ok;
}

/*
 * The string kernel_string(@arg) reads: the record's copy, or an
 * eprobe's string fetch through a recorded pointer; quietly NULL when
 * neither (then @arg is as it was, for the caller's error).
 */
static const struct tpf_field *tpa_resolve_string(struct sema_ctx *c, const struct tpf_event *ev,
						  struct ast_expr *arg)
{
	bool report = c->report;
	const struct tpf_field *f;

	c->report = false;
	arg->chain.mem = AST_MEM_KSTRING;
	f = tpa_resolve(c, ev, arg);
	c->report = report;
	if (!f || f->kind == TPF_INT) {
		arg->chain.mem = AST_MEM_NONE;
		return NULL;
	}
	return f;
}

int sema_tparg_mem_call(struct sema_ctx *c, struct tpf_event *ev, struct ast_expr *e)
{
	struct ast_expr *arg = e->args.n == 1 ? e->args.v[0] : NULL;
	const struct tpf_field *f;

	if (!sema_tparg_event(ev) || !arg || sema_mem_fn(e->str) != AST_MEM_KSTRING)
		return -1;
	if (arg->kind == AST_CAST && tpa_cast_target(c, ev, arg) != 0)
		return SEM_UNKNOWN;
	if (arg->kind != AST_TARGET || !sema_tparg_applies(c, ev, arg))
		return -1;
	if (!(f = tpa_resolve_string(c, ev, arg)) && !(f = tpa_resolve(c, ev, arg)))
		return SEM_UNKNOWN;
	if (f->kind == TPF_INT)	/* the pointer's value is recorded, not the string */
		return tpa_unrecorded(c, ev, e, sema_spec_text(c->arena, e));
	return (int)tpa_become(c, e, f);
}

const char *sema_tparg_arg_list(struct sema_ctx *c, const struct tpf_event *ev)
{
	const struct rtparg_event *te = sema_tparg_event(ev);
	const char *s = te ? rtparg_arg_list(c->arena, te) : "";

	return *s ? s : NULL;
}
