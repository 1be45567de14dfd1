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

const struct rtparg_event *sema_tparg_event(const struct tpf_event *ev)
{
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

bool sema_tparg_applies(struct sema_ctx *c, const struct tpf_event *ev, const struct ast_expr *e)
{
	const struct rtparg_event *te = sema_tparg_event(ev);

	if (!te || e->kind != AST_TARGET || e->module || !strncmp(e->str, "$$", 2))
		return false;
	if (!e->chain.n && tpf_field(ev, e->str + 1))
		return false;		/* the record's own field ($irq, $irq$) */
	return tpa_is_arg(c, te, e->str + 1);
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
		 "CONFIG_FPROBE_EVENTS), which %s", written, tpa_via(c), ev->system, ev->name,
		 tprobes ? "ktap does not use yet" : "this kernel does not have");
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

/* The field @e ($arg->chain) is read from, or NULL after reporting. */
static const struct tpf_field *tpa_resolve(struct sema_ctx *c, const struct tpf_event *ev,
					   const struct ast_expr *e)
{
	const struct rtparg_event *te = sema_tparg_event(ev);
	const char *written = sema_spec_text(c->arena, e);
	const char *path = tpa_path(c, e);
	const struct tpf_field *f;

	if (e->chain.pretty) {
		sema_err(c, tpa_at(c, e), "%s%s: pretty-printing a tracepoint argument needs its "
			 "memory, which the record does not hold", written, tpa_via(c));
		return NULL;
	}
	if (tpa_check_members(c, te, e, written) != 0)
		return NULL;
	f = path ? tpa_field(ev, te, path, tpa_size(c, te, e)) : NULL;
	if (!f)
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

	if (!path || e->chain.pretty || (b.btf && size < 0))
		return false;	/* with BTF, a member it does not have */
	return tpa_field(ev, te, path, size) != NULL;
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
	if (addr->kind != AST_TARGET || !sema_tparg_applies(c, ev, addr) || addr->chain.pretty) {
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
	if (!(f = tpa_resolve(c, ev, arg)))
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
