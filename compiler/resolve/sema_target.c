/*
 * sema_target.c - pass 2: target variables.
 *
 * In: a target expression met by typing (sema_type.c) in a probe body or
 * a function specialised for a probe (sema_spec.c): $var, $p->a->b,
 * $var$ and $$vars, @cast(), @entry(), &$p->m, @var(), @defined() of a
 * member, kernel_string($p) and the other memory reads, probefunc().
 * Out: the node resolved in place (e->ref is a field of the probe's
 * event; pretty printing becomes string concatenation, @defined a
 * number), the fetch arguments added as fields of the dynamic event
 * (tpf_event.dyn, runtime/kplan.h) through fetch.h and the back ends
 * resolve_btf.c, resolve_dwarf.c and resolve_pretty.c, and @entry's
 * companion entry event.
 *
 * Why a callback, not a stage of its own: resolving a target needs the
 * types of its subexpressions (an @entry operand, the address of a
 * @cast, a memory builtin turned into a target) and typing needs the
 * target's type, so a plain cut would make a sema_type <-> sema_target
 * file cycle.  A separate walk before typing would change the order in
 * which fetch fields are added to the dynamic event (the -p3 plans print
 * them in order) and in which diagnostics come out (typing reports in
 * its final round), and would have to resolve sema_spec.c's function
 * copies ahead of the typing that creates them.  So typing calls in
 * here exactly where it did before, and this file types subexpressions
 * through the function pointer sema_types() leaves in sema_ctx.type_expr:
 * sema_type.c calls sema_target.c, never the other way round, and the
 * evaluation order (hence every output) is unchanged.
 */
#include "sema_int.h"
#include "arena.h"
#include "diag.h"
#include "fetch.h"
#include "resolve_tpfmt.h"
#include "resolve_dwarf.h"
#include "resolve_pretty.h"
#include "resolve_sdt.h"
#include "resolve_sym.h"
#include "resolve_btf.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Type subexpression @e: typing's own walk (sema_types() sets it). */
static enum sem_type tg_expr(struct sema_ctx *c, struct ast_expr *e)
{
	return c->type_expr(c, e);
}

/*
 * An address the kernel can compute at the probe: the value of the fetch
 * expression @expr ("%di", "+8(%di)", no type) plus the constant @off.
 */
struct tg_addr {
	const char *expr;
	int64_t off;
	const char *name;		/* a field name for what is read there */
};

/*
 * The event whose fields target variables name here: the probe's, or
 * inside @entry() the entry event of its function; in a function, the
 * event of the probe it is specialised for (sema_spec.c), else NULL.
 */
struct tpf_event *sema_target_event(struct sema_ctx *c)
{
	struct sem_probe *pr = c->func ? c->func->site : c->probe;

	if (c->entry)
		return c->entry;
	return pr ? pr->event : NULL;
}

#define tg_event sema_target_event

/*
 * A resolved target (sema_target_mem_call, sema_addr_of): module holds
 * "NAME=FETCHARG", str the expression's text for -p2.
 */
static void tg_resolved(struct sema_ctx *c, const struct ast_expr *e, struct fetch *f)
{
	const char *eq = strchr(e->module, '='), *colon = strrchr(e->module, ':');

	f->name = arena_strndup(c->arena, e->module, (size_t)(eq - e->module));
	f->arg = eq + 1;
	f->is_string = colon && (strstr(colon, "string") || strchr(colon, '['));	/* or bytes */
}

static int tg_fetch_addr(struct sema_ctx *c, struct tpf_event *ev, struct ast_expr *e,
			 struct tg_addr *out);

static void tg_cast_as_number(struct sema_ctx *c, struct ast_expr *e);
static void tg_take_address(struct sema_ctx *c, struct ast_expr *e);
static const char *tg_mem_arg(struct sema_ctx *c, const struct tg_addr *ad, enum ast_mem mem,
			      bool kernel, bool user);

/* Memory read @call where no kprobe or uprobe can read it. */
static void tg_no_event(struct sema_ctx *c, const struct ast_expr *call)
{
	sema_err(c, call->span, "%s() reads memory, which ktap can only do in the kernel: %s",
		 call->str, sema_trigger_probe(c) && !tg_event(c) ? SEMA_TRIGGER_WHY :
		 "its argument must be a target variable of a kernel.function() or process() "
		 "probe ($ptr, $p->member)");
}

/*
 * kernel_string(A), user_string(A), kernel_long(A) ... where A is an
 * address the kernel can fetch (a target variable, a @cast() chain,
 * either plus a constant) in a kprobe or uprobe: the kernel reads the
 * memory as part of the event (a fetch argument).  On a plain target
 * variable the call becomes that target with its chain marked; on
 * anything else it becomes a resolved target: str is the call's text,
 * module the fetch argument.  Returns -1 when @e is not one.
 */
int sema_target_mem_call(struct sema_ctx *c, struct ast_expr *e)
{
	enum ast_mem mem = sema_mem_fn(e->str);
	struct ast_expr *arg = e->args.n == 1 ? e->args.v[0] : NULL;
	struct tpf_event *ev = tg_event(c);
	struct tg_addr ad;
	bool user;

	/* another number of arguments: sema_mem_arities()'s error */
	if (mem == AST_MEM_NONE || sema_func_use(c, e->str, e->args.n) || e->args.n != 1)
		return -1;
	/* kernel_string(@defined($x) ? $x : $y) (@choose_defined): the
	   branch taken, before it is looked at as an address (typing the
	   ternary would read the branch's value as a number too) */
	while (arg->kind == AST_TERNARY && arg->a->kind == AST_DEFINED) {
		c->type_expr(c, arg->a);
		*arg = arg->a->num ? *arg->b : *arg->c;
		c->changed = true;
	}
	user = !strncmp(e->str, "user_", 5);
	if (sema_current_in(c, arg) < 0)
		return SEM_UNKNOWN;
	if (ev && !ev->dyn_func && sema_tparg_event(ev) && !sema_current_reads(arg)) {
		int t = sema_tparg_mem_call(c, ev, e);

		if (t >= 0)
			return t;
	}
	/* A string already: where stap's tapset gives an address to read
	   (irq_handler.entry's dev_name), ktap's gives the text itself, and
	   scripts still say kernel_string(dev_name). */
	if (arg && (mem == AST_MEM_KSTRING || mem == AST_MEM_USTRING) &&
	    (arg->kind == AST_VAR || arg->kind == AST_INDEX || arg->kind == AST_STR) &&
	    c->type_expr(c, arg) == SEM_STRING) {
		*e = *arg;
		c->changed = true;
		return SEM_STRING;
	}
	if (arg && !ev)
		ev = sema_trigger_event(c);	/* in begin or end */
	if (!arg || !ev || (!ev->dyn_func && !sema_current_reads(arg))) {
		tg_no_event(c, e);
		return SEM_UNKNOWN;
	}
	if (mem == AST_MEM_KSTRING || mem == AST_MEM_USTRING)
		e->str_read = mem == AST_MEM_KSTRING ? 2 : 1;
	if ((arg->kind == AST_TARGET && !arg->module) || (arg->kind == AST_CAST && arg->chain.n)) {
		unsigned char str_read = e->str_read;
		const struct ast_expr *on_fault = e->on_fault;

		*e = *arg;
		e->chain.mem = mem;
		e->chain.user_mem = user;
		e->str_read = str_read;
		e->on_fault = on_fault;
		return (int)tg_expr(c, e);
	}
	if (tg_fetch_addr(c, ev, arg, &ad) != 0)
		return SEM_UNKNOWN;
	e->str = sema_spec_text(c->arena, e);
	e->module = arena_printf(c->arena, "%s_%s=%s", ad.name,
				 mem == AST_MEM_KSTRING || mem == AST_MEM_USTRING ? "str" : "mem",
				 tg_mem_arg(c, &ad, mem, !ev->dyn_func ||
					    ((const struct fetch_site *)ev->dyn_func)->kernel, user));
	e->kind = AST_TARGET;
	e->args.n = 0;
	memset(&e->chain, 0, sizeof(e->chain));
	return (int)tg_expr(c, e);
}

/*
 * The memory reference "+OFF(EXPR)" ("+uOFF(EXPR)": a user address in a
 * kprobe) of the address @arg of memory read @call, fetchable at the
 * probe, and the fetch's name in *@name (sema_buffer.c); NULL after
 * reporting why not.
 */
const char *sema_target_mem_ref(struct sema_ctx *c, const struct ast_expr *call,
				struct ast_expr *arg, bool user, const char **name)
{
	struct tpf_event *ev = tg_event(c) ? tg_event(c) : sema_trigger_event(c);
	struct tg_addr ad;
	bool kernel;

	if (!ev || !ev->dyn_func) {
		tg_no_event(c, call);
		return NULL;
	}
	if (tg_fetch_addr(c, ev, arg, &ad) != 0)
		return NULL;
	kernel = ((const struct fetch_site *)ev->dyn_func)->kernel;
	*name = ad.name;
	return arena_printf(c->arena, "%c%s%" PRId64 "(%s)", ad.off < 0 ? '-' : '+',
			    user && kernel ? "u" : "", ad.off < 0 ? -ad.off : ad.off, ad.expr);
}

/*
 * probefunc() in a kernel.function(), kprobe.function() or
 * process().function()/.statement() probe: the probed function's name
 * (stap's symname(addr())), known now, so a constant.  Elsewhere it stays
 * a call (the empty string at run time).  True when @e was replaced.
 */
bool sema_target_probefunc(struct sema_ctx *c, struct ast_expr *e)
{
	const struct tpf_event *ev = tg_event(c);
	const struct fetch_site *fn = ev ? ev->dyn_func : NULL;

	if (strcmp(e->str, "probefunc") != 0 || e->args.n || !fn || !fn->name ||
	    !strcmp(fn->name, "?"))
		return false;
	e->kind = AST_STR;
	e->str = fn->name;
	e->len = strlen(fn->name);
	c->changed = true;
	return true;
}

/* Target variable @e is the string @v, known now: a constant. */
static enum sem_type tg_constant(struct sema_ctx *c, struct ast_expr *e, const char *v)
{
	e->kind = AST_STR;
	e->str = v;
	e->len = strlen(v);
	c->changed = true;
	return SEM_STRING;
}

/*
 * $args[N] of a tracepoint field that is an array of integers (raw
 * syscalls' unsigned long args[6]) or of chars ($next_comm[0] is the
 * first byte's value, as in stap), N a constant: the element, as a
 * field of its own, "args[N]", which the reader reads at the array's
 * offset plus N elements; @e becomes that field's target.
 */
static enum sem_type tg_element(struct sema_ctx *c, struct tpf_event *ev,
				const struct tpf_field *f, struct ast_expr *e)
{
	const struct ast_expr *ix = e->chain.v[0].index;
	unsigned elem = f->size / f->nelem, k;
	struct tpf_field *v;
	const char *name;

	if ((f->kind != TPF_OTHER && f->kind != TPF_CHARS) || f->size % f->nelem ||
	    (elem != 1 && elem != 2 && elem != 4 && elem != 8)) {
		sema_err(c, e->span, "'%s' is not an array of integers ktap can index", e->str);
		return SEM_UNKNOWN;
	}
	if (!ix || ix->kind != AST_NUM || ix->num < 0 || ix->num >= (int64_t)f->nelem) {
		sema_err(c, e->chain.v[0].span, "%s[] takes a constant index from 0 to %u",
			 e->str, f->nelem - 1);
		return SEM_UNKNOWN;
	}
	name = arena_printf(c->arena, "%s[%lld]", f->name, (long long)ix->num);
	if (!tpf_field(ev, name)) {
		k = (unsigned)(f - ev->fields);
		ev->fields = arena_grow(c->arena, ev->fields, ev->nfields, &ev->fcap,
					sizeof(*ev->fields));
		v = &ev->fields[ev->nfields++];
		*v = ev->fields[k];
		v->name = name;
		v->offset += (unsigned)ix->num * elem;
		v->size = elem;
		v->kind = TPF_INT;
		v->nelem = 0;
		v->element = true;
	}
	e->str = arena_printf(c->arena, "$%s", name);
	e->chain.n = 0;
	c->changed = true;
	return c->type_expr(c, e);
}

/* $var of a process().function() probe: a fetch argument of its uprobe. */
static enum sem_type tg_dyn_target(struct sema_ctx *c, struct ast_expr *e,
				   struct tpf_event *ev)
{
	const struct fetch_site *site = ev->dyn_func;
	struct fetch f;
	char err[512];

	if (site->sdt && (!strcmp(e->str, "$$name") || !strcmp(e->str, "$$provider")))
		return tg_constant(c, e, e->str[2] == 'n' ? site->sdt->name : site->sdt->provider);
	if (site->plt) {
		if (strcmp(e->str, "$$name") != 0) {
			sema_err(c, e->span, "target variable '%s' is not available in a .plt() "
				 "probe: a PLT stub has no debug information (only $$name, the "
				 "function's name)", e->str);
			return SEM_UNKNOWN;
		}
		return tg_constant(c, e, site->name);
	}
	if (!strcmp(e->str, "$$parms") || !strcmp(e->str, "$$vars") ||
	    !strcmp(e->str, "$$locals") || !strcmp(e->str, "$$return")) {
		struct rpretty_item *v;
		unsigned n = rpretty_context(c->arena, ev->dyn_func, e->str, e->chain.pretty,
					ev->dyn_return, &v);

		return sema_pretty_items(c, e, v, n);
	}
	if (e->chain.pretty && site->sdt && !rdwarf_is_argn(e->str) && site->file->dw)
		/* $var$ at a marker: the program's variable in scope there */
		return sema_pretty_var(c, e, rdwarf_sdt_scope(c->arena, site), ev->dyn_return);
	if (e->chain.pretty)
		return sema_pretty_var(c, e, site, ev->dyn_return);
	/* In a .return probe every $var and $var->chain but $return is its
	   value at the entry, as stap saves it there (a global's too, which
	   the return could read: stap's $g->m == @entry($g->m) holds) */
	if (sema_entry_param(c, e, ev))
		return tg_expr(c, e);
	if (rdwarf_fetch(c->arena, ev->dyn_func, e->str, &e->chain, ev->dyn_return, &f,
		     err, sizeof(err)) != 0) {
		sema_err(c, e->span, "%s", err);
		return SEM_UNKNOWN;
	}
	if (f.calc)
		return sema_calc_expr(c, e, &f);
	e->ref = sema_point_dyn_field(c, ev, &f);
	return f.is_string ? SEM_STRING : SEM_LONG;
}

static enum sem_type tg_target(struct sema_ctx *c, struct ast_expr *e)
{
	const struct tpf_event *ev = tg_event(c);
	const struct tpf_field *f;

	if (e->module && ev && ev->dyn_func) {	/* resolved by sema_target_mem_call/sema_addr_of */
		struct fetch uf;

		tg_resolved(c, e, &uf);
		e->ref = sema_point_dyn_field(c, (struct tpf_event *)ev, &uf);
		return uf.is_string ? SEM_STRING : SEM_LONG;
	}
	if (e->module && ev) {	/* task_current() in a tracepoint probe: its eprobe */
		struct fetch uf;

		tg_resolved(c, e, &uf);
		return sema_tparg_fetched(c, e, &uf);
	}
	if (!ev) {
		sema_err(c, e->span, "target variable '%s' is not available %s", e->str,
		       c->func ? "in a function" : "in this kind of probe");
		return SEM_UNKNOWN;
	}
	if (c->entry && !strcmp(e->str, "$return")) {
		sema_err(c, e->span, "$return does not exist yet at the function's entry, "
		       "where @entry() is evaluated");
		return SEM_UNKNOWN;
	}
	if (ev->dyn_func)
		return tg_dyn_target(c, e, (struct tpf_event *)ev);
	if (ev->dyn && !sema_point_on_tp(ev)) {
		sema_err(c, e->span, "target variable '%s' is not available in a kernel "
		       "statement probe: registers only hold the parameters at a function's "
		       "entry (use kernel.function())", e->str);
		return SEM_UNKNOWN;
	}
	if (!strcmp(e->str, "$$parms") || !strcmp(e->str, "$$vars") ||
	    !strcmp(e->str, "$$locals")) {
		e->ref = -1;
		((struct tpf_event *)ev)->all_used = true;
		return SEM_STRING;
	}
	if (!strcmp(e->str, "$$system") || !strcmp(e->str, "$$name")) {
		const char *v = e->str[2] == 's' ? ev->system : ev->name;

		e->kind = AST_STR;	/* known now: a constant */
		e->str = v;
		e->len = strlen(v);
		return SEM_STRING;
	}
	if (sema_tparg_applies(c, ev, e))	/* stap's $prev->pid, $comm */
		return sema_tparg_target(c, (struct tpf_event *)ev, e);
	sema_process_syscall_var(c, ev, e);
	f = tpf_field(ev, e->str + 1);
	if (f && f->nelem && e->chain.n == 1 && e->chain.v[0].is_index && !e->chain.pretty)
		return tg_element(c, (struct tpf_event *)ev, f, e);
	if (!f || f->kind == TPF_OTHER || e->str[1] == '$') {
		const struct tpf_event *tp = sema_point_tracepoint(ev);
		const char *hint = f ? NULL : sema_suggest_field(ev, e->str + 1);
		const char *args = hint || f ? NULL : sema_tparg_arg_list(c, ev);
		const struct tpf_field *tf = f && tp != ev ? tpf_field(tp, f->name) : NULL;
		/* a field of the tracepoint's that its tprobe's record lacks */
		const char *why = tf && tf->kind != TPF_OTHER ?
			" in this probe: it reads tracepoint arguments through a tracepoint probe "
			"event, whose record holds only the fields that copy an argument" : "";

		if (args)	/* stap's variables there, which may be what was meant */
			sema_err(c, e->span, "tracepoint %s:%s has no usable field '%s'%s%s%s",
				 tp->system, tp->name, e->str + 1, "; its arguments are ", args,
				 " (doc/probes.md: the ones a field holds can be read)");
		else
			sema_err(c, e->span, "tracepoint %s:%s has no usable field '%s'%s%s%s",
				 tp->system, tp->name, e->str + 1, why, hint ? "; did you mean '$" : "",
				 hint ? arena_printf(c->arena, "%s'?", hint) : "");
		return SEM_UNKNOWN;
	}
	if (e->chain.n) {
		sema_err(c, e->chain.v[0].span,
		       "'%s' is a plain tracepoint field: '->' and '[]' need a kprobe with type information",
		       e->str);
		return SEM_UNKNOWN;
	}
	e->ref = (int)(f - ev->fields);
	((struct tpf_event *)ev)->fields[e->ref].used = true;
	return f->kind == TPF_INT && !e->chain.pretty ? SEM_LONG : SEM_STRING;
}

/*
 * stap's value of a target variable (or @cast() member) ktap reads as a
 * string, where a number is wanted (arithmetic, a condition, a
 * comparison with a number): a char * is the pointer ($msg == 0), a char
 * array its own address ($r->tag + 1 is &$r->tag + 1).  Decided before
 * @e is typed, so the event only gets the fetch that is used.
 */
void sema_target_as_number(struct sema_ctx *c, struct ast_expr *e)
{
	struct tpf_event *ev = tg_event(c);
	struct ast_chain raw;
	struct fetch f;
	char err[512];
	bool ret;

	if (e->kind == AST_CAST) {
		tg_cast_as_number(c, e);
		return;
	}
	if (e->kind == AST_ENTRY && e->a->kind == AST_TARGET)
		e = e->a;	/* @entry($msg): read at the entry, as below */
	if (e->kind != AST_TARGET || e->module || !ev || !ev->dyn_func || e->chain.pretty ||
	    e->chain.mem || e->chain.raw || !strncmp(e->str, "$$", 2))
		return;
	/* in a .return, a parameter is read at the entry (sema_entry_param()) */
	ret = ev->dyn_return && !sema_entry_reads(c, ev, e->str, &e->chain);
	if (rdwarf_fetch(c->arena, ev->dyn_func, e->str, &e->chain, ret, &f, err,
			 sizeof(err)) != 0 || !f.is_string)
		return;		/* not a string; or an error, which typing reports */
	raw = e->chain;
	raw.raw = true;
	if (rdwarf_fetch(c->arena, ev->dyn_func, e->str, &raw, ret, &f, err,
			 sizeof(err)) == 0 && !f.is_string) {
		e->chain.raw = true;	/* a char *: the pointer */
		return;
	}
	tg_take_address(c, e);
}

/* @e becomes &@e: an array where a number is wanted is its address. */
static void tg_take_address(struct sema_ctx *c, struct ast_expr *e)
{
	struct ast_expr *x;

	x = arena_alloc(c->arena, sizeof(*x));	/* an array: its address */
	*x = *e;
	memset(e, 0, sizeof(*e));
	e->kind = AST_UNARY;
	e->op = AST_OP_ADDR;
	e->span = x->span;
	e->op_span = x->span;
	e->a = x;
	c->changed = true;
}

/*
 * @e's kernel type read through @chain from address 0 (no address is
 * needed to know the member's type): 0 with the fetch in @f, -1 when the
 * type or the member chain is not there.
 */
static int tg_cast_type_fetch(struct sema_ctx *c, const struct ast_expr *e,
			      const struct ast_chain *chain, struct fetch *f)
{
	const struct btf *btf;
	char err[256];

	btf = sema_cast_btf(c, NULL, e, err, sizeof(err));
	return btf && rbtf_cast_at(c->arena, &c->in->up->types, btf, "0", 0, "d", e->str,
				   chain, f, err, sizeof(err)) == 0 ? 0 : -1;
}

/* Does @e's kernel type have its member chain (no address needed)? */
static bool tg_cast_type_defined(struct sema_ctx *c, const struct ast_expr *e)
{
	struct fetch f;

	return tg_cast_type_fetch(c, e, &e->chain, &f) == 0;
}

/*
 * sema_target_as_number() of @cast(A, "T")->m of a kernel type: a char *
 * member is the pointer, a char array its address, as for $p->m; decided
 * from the type alone (address 0), so nothing is fetched for it.
 */
static void tg_cast_as_number(struct sema_ctx *c, struct ast_expr *e)
{
	struct ast_chain raw;
	struct fetch f;

	if (!e->chain.n || e->chain.pretty || e->chain.mem || e->chain.raw || !tg_event(c) ||
	    tg_cast_type_fetch(c, e, &e->chain, &f) != 0 || !f.is_string)
		return;
	raw = e->chain;
	raw.raw = true;
	if (tg_cast_type_fetch(c, e, &raw, &f) == 0 && !f.is_string) {
		e->chain.raw = true;	/* a char *: the pointer */
		return;
	}
	tg_take_address(c, e);
}

/* @defined(x) is decided now: 1 when x resolves. */
static enum sem_type tg_defined(struct sema_ctx *c, struct ast_expr *e)
{
	const struct tpf_event *ev = tg_event(c);
	bool ok = true;

	if (e->a->kind == AST_TARGET && ev && !ev->dyn_func)
		sema_process_syscall_var(c, ev, e->a);	/* $arg1 of process.syscall */
	if (e->a->kind == AST_TARGET && ev && ev->dyn_func && e->a->str[1] != '$') {
		struct fetch f;
		struct ast_chain plain = e->a->chain;
		char err[512];

		plain.pretty = 0;
		ok = rdwarf_fetch(c->arena, ev->dyn_func, e->a->str, &plain, ev->dyn_return, &f, err,
			      sizeof(err)) == 0 ||
		     sema_entry_reads(c, ev, e->a->str, &plain);	/* a parameter at entry */
	} else if (e->a->kind == AST_TARGET && ev && sema_tparg_applies(c, ev, e->a)) {
		ok = sema_tparg_defined(c, ev, e->a);
	} else if (e->a->kind == AST_TARGET) {
		const struct tpf_field *fl = ev ? tpf_field(ev, e->a->str + 1) : NULL;
		const struct ast_chain *ch = &e->a->chain;

		/* a field, an element of an array field ($args[N]), $$vars */
		ok = ev && ((ch->n == 0 && (fl || e->a->str[1] == '$')) ||
			    (ch->n == 1 && ch->v[0].is_index && fl && fl->nelem &&
			     ch->v[0].index->kind == AST_NUM && ch->v[0].index->num >= 0 &&
			     (uint64_t)ch->v[0].index->num < fl->nelem));
	} else if (e->a->kind == AST_CAST && sema_current_in(c, e->a) < 0) {
		ok = false;	/* reported */
	} else if (e->a->kind == AST_CAST && ev && (ev->dyn_func || sema_current_reads(e->a))) {
		/* Resolve a copy quietly: its members may not exist here. */
		struct fetch f;
		bool report = c->report;

		c->report = false;
		/* or the type alone, as stap asks (@cast(0, "T")->m) */
		ok = sema_target_cast_fetch(c, tg_event(c), ast_clone_expr(c->arena, e->a), &f) == 0 ||
		     tg_cast_type_defined(c, e->a);
		c->report = report;
	} else if (e->a->kind == AST_CAST && ev && sema_tparg_event(ev)) {
		ok = sema_tparg_cast_defined(c, ev, e->a);
	} else if (e->a->kind == AST_CAST && (!e->a->module || !strncmp(e->a->module, "kernel", 6))) {
		ok = tg_cast_type_defined(c, e->a);	/* begin, timers: the type alone */
	}
	e->kind = AST_NUM;
	e->num = ok;
	e->str = "@defined";	/* decided here: sema_prune_if() may prune on it */
	e->a = NULL;
	c->changed = true;
	return SEM_LONG;
}

/* @f's fetch argument without its type: the value as an expression. */
static const char *tg_untyped(struct sema_ctx *c, const struct fetch *f)
{
	const char *colon = strrchr(f->arg, ':');

	return colon ? arena_strndup(c->arena, f->arg, (size_t)(colon - f->arg)) : f->arg;
}

/*
 * @cast(ADDR, "T"[, "module"])->chain where ADDR is an address the
 * kernel can fetch (see tg_fetch_addr): one fetch argument that reads
 * through the address with T's layout (from DWARF, or BTF: the kernel's
 * or the named module's).  0, or -1 after reporting.
 */
int sema_target_cast_fetch(struct sema_ctx *c, struct tpf_event *ev, struct ast_expr *e,
			   struct fetch *f)
{
	const struct fetch_site *uf = ev->dyn_func;
	const struct btf *btf;
	struct tg_addr base;
	char err[512] = "";

	if (tg_fetch_addr(c, ev, e->a, &base) != 0)
		return -1;
	if (sema_cast_by_btf(uf, e)) {
		btf = sema_cast_btf(c, uf, e, err, sizeof(err));
		if (btf && rbtf_cast_at(c->arena, &c->in->up->types, btf, base.expr, base.off, base.name, e->str,
				      &e->chain, f, err, sizeof(err)) == 0)
			return 0;
	} else if (base.off) {
		snprintf(err, sizeof(err), "@cast() of an address plus a constant needs BTF "
			 "(a kernel type); in a process() probe, cast the target variable itself");
	} else if (rdwarf_cast(c->arena, uf, base.expr, base.name, e->str, &e->chain, f, err,
			   sizeof(err)) == 0) {
		return 0;
	}
	sema_err(c, e->span, "%s", err);
	return -1;
}

/*
 * A read through @entry(A) @e in a kernel .return probe @ev, A an entry
 * argument (pointer_arg(N), a parameter in a register, plus a constant):
 * where return probes fetch $argN (6.10+: the kretprobe saves them at the
 * entry), @ev reads through $argN at the return, as stap reads there.
 * -1 (nothing said): not such a read, or not such a kernel.
 */
static int tg_entry_addr(struct sema_ctx *c, struct tpf_event *ev, struct ast_expr *e,
			 struct tg_addr *out)
{
	struct tpf_event *saved = c->entry;
	bool report = c->report;
	const char *arg;
	int rc;

	if (saved || !sema_entry_retargs(c, ev))
		return -1;
	c->entry = sema_entry_event(c, ev);
	c->report = false;	/* not such a read: the caller's error says why */
	rc = tg_fetch_addr(c, c->entry, e->a, out);
	c->entry = saved;
	c->report = report;
	if (rc != 0 || !(arg = sema_entry_arg_reg(out->expr)))
		return -1;
	out->expr = arg;
	return 0;
}

/*
 * The address fetchable @e evaluates to: a target variable ($p,
 * $p->q, kernel_long($p)), a @cast() chain, a memory builtin of one of
 * these, or one of these plus or minus a constant; or a constant (a
 * netfilter hook's $out of 0), the kernel's immediate "\\N", where a read
 * faults at run time as stap's does.  0, or -1 after reporting why not.
 */
static int tg_fetch_addr(struct sema_ctx *c, struct tpf_event *ev, struct ast_expr *e,
			 struct tg_addr *out)
{
	struct fetch f;
	char err[512];

	memset(out, 0, sizeof(*out));
	memset(&f, 0, sizeof(f));	/* not every way below sets calc */
	if (sema_current_call(c, e) && sema_current_address(c, e) < 0)
		return -1;
	if (e->kind == AST_ATVAR && !sema_atvar_as_target(c, e))	/* as $name */
		return -1;
	if (e->kind == AST_VAR) {
		struct ast_expr *def = sema_var_def(c, e);

		if (def) {	/* 'r = $r; ... @cast(r, ...)': $r at the probe */
			c->type_expr(c, e);	/* 'r' is read */
			return tg_fetch_addr(c, ev, def, out);
		}
		sema_err(c, e->span, "'%s' is not an address the kernel can fetch at the probe: "
			 "ktap reads memory only through an address known there, so read through "
			 "a variable only after setting it from one (a target variable, a @cast() "
			 "chain) earlier in the same probe, with no other write to it in between "
			 "(in a loop, none anywhere in the loop)",
			 e->str);
		return -1;
	}
	if (e->kind == AST_NUM) {
		out->expr = arena_printf(c->arena, "\\%" PRId64, e->num);
		out->name = "addr";
		return 0;
	}
	if (e->kind == AST_UNARY && e->op == AST_OP_ADDR) {
		struct fetch base;

		if (tg_expr(c, e) == SEM_UNKNOWN)
			return -1;	/* reported */
		tg_resolved(c, e, &base);
		out->expr = tg_untyped(c, &base);
		out->off = e->num;
		out->name = base.name;
		return 0;
	}
	if (e->kind == AST_BINARY && sema_is_const_addr(e->b))
		tg_expr(c, e->b);	/* @offsetof: a number now */
	if (e->kind == AST_BINARY && (e->op == AST_OP_ADD || e->op == AST_OP_SUB) &&
	    (e->b->kind == AST_NUM || (e->op == AST_OP_ADD && e->a->kind == AST_NUM))) {
		bool left = e->b->kind == AST_NUM;

		if (tg_fetch_addr(c, ev, left ? e->a : e->b, out) != 0)
			return -1;
		out->off += e->op == AST_OP_ADD ? (left ? e->b->num : e->a->num) : -e->b->num;
		return 0;
	}
	if (e->kind == AST_CALL && sema_mem_fn(e->str) == AST_MEM_NONE &&
	    !sema_regs_fn(c, e->str) && !sema_current_call(c, e)) {
		/* a function that returns a fetchable address of its fetchable
		   arguments (current_exe_file(), task_parent($p)): that address */
		struct ast_expr *r = sema_spec_inline(c, e);

		if (r != e)
			return tg_fetch_addr(c, ev, r, out);
	}
	if (e->kind == AST_CALL && sema_mem_fn(e->str) != AST_MEM_NONE)
		tg_expr(c, e);		/* becomes a target */
	if (e->kind == AST_CALL && sema_regs_fn(c, e->str))
		sema_regs_address(c, e);	/* pointer_arg(N): a register */
	if (e->kind == AST_TARGET && e->module) {
		tg_resolved(c, e, &f);
	} else if (e->kind == AST_TARGET && ev->dyn_func && !e->chain.pretty &&
		   strncmp(e->str, "$$", 2) != 0) {
		if (rdwarf_fetch(c->arena, ev->dyn_func, e->str, &e->chain, ev->dyn_return, &f,
			     err, sizeof(err)) != 0) {
			sema_err(c, e->span, "%s", err);
			return -1;
		}
	} else if (e->kind == AST_CAST && (ev->dyn_func || sema_current_reads(e))) {
		if (sema_target_cast_fetch(c, ev, e, &f) != 0)
			return -1;
	} else if (e->kind == AST_ENTRY) {
		if (tg_entry_addr(c, ev, e, out) == 0)
			return 0;
		sema_err(c, e->span, "%s is a value saved at the function's entry: the return's "
			 "event cannot read memory through it (its fetch arguments see the "
			 "registers at the return and, on Linux 6.10+, the function's arguments "
			 "as the entry had them, $argN, but no other value of the entry); read "
			 "through it at the entry instead, inside @entry()",
			 sema_spec_text(c->arena, e));
		return -1;
	} else {
		sema_err(c, e->span, "this is not an address the kernel can fetch at the probe: "
		       "use a target variable ($ptr, $p->member), a @cast() chain, or one of "
		       "these plus a constant (a value computed at run time cannot be read "
		       "through)");
		return -1;
	}
	if (f.is_string) {	/* "+OFF(EXPR):string": the string is at EXPR + OFF */
		char *end;

		out->off = strtoll(f.arg, &end, 10);
		out->expr = arena_strndup(c->arena, end + 1, (size_t)(strrchr(f.arg, ')') - end - 1));
		out->name = f.name;
		return 0;
	}
	if (f.calc && !(f.calc->n == 3 && f.calc->v[1].op == FETCH_C_IMM &&
			f.calc->v[2].op == FETCH_C_ADD)) {
		sema_err(c, e->span, "%s is a value the program computes (DWARF's "
			 "DW_OP_stack_value), not one the kernel can read through",
			 sema_spec_text(c->arena, e));
		return -1;
	}
	if (f.calc)	/* a register plus a constant: an array's address */
		out->off = f.calc->v[1].imm;
	out->expr = tg_untyped(c, &f);
	out->name = f.name;
	return 0;
}

/* The fetch argument reading @mem at @ad ("+8(%di):s32"). */
static const char *tg_mem_arg(struct sema_ctx *c, const struct tg_addr *ad, enum ast_mem mem,
			      bool kernel, bool user)
{
	struct fetch f = { NULL, ad->name, false, NULL };
	/* user_long() in a kprobe: "+uOFF(...)" (a kernel read fails: SMAP) */
	const char *u = user && kernel && mem != AST_MEM_USTRING ? "u" : "";
	const char *at = arena_printf(c->arena, "%c%s%" PRId64 "(%s)", ad->off < 0 ? '-' : '+', u,
				      ad->off < 0 ? -ad->off : ad->off, ad->expr);

	/* fetch_mem reads at +0(VALUE): give it the address as a value. */
	fetch_mem(c->arena, "", mem, kernel, &f);
	return arena_printf(c->arena, "%s%s", at, strchr(f.arg, ':'));
}

/*
 * @cast(A, "T")->chain$ and $$: the struct printed as $var$ is, each
 * value the same @cast() with its member chain; the type from where
 * sema_target_cast_fetch() takes it.
 */
static enum sem_type tg_cast_pretty(struct sema_ctx *c, struct tpf_event *ev, struct ast_expr *e)
{
	struct fetch_site site = *(const struct fetch_site *)ev->dyn_func;
	struct rpretty_item *v;
	char err[512] = "";
	unsigned n;

	if ((sema_cast_by_btf(&site, e) &&
	     !(site.btf = sema_cast_btf(c, ev->dyn_func, e, err, sizeof(err)))) ||
	    rpretty_cast(c->arena, &site, e->str, &e->chain, &v, &n, err, sizeof(err)) != 0) {
		sema_err(c, e->span, "%s", err);
		return SEM_UNKNOWN;
	}
	return sema_pretty_items(c, e, v, n);
}

/* @cast(...)->chain: a fetch argument of the probe's event. */
static enum sem_type tg_cast(struct sema_ctx *c, struct ast_expr *e)
{
	struct tpf_event *ev = tg_event(c);
	struct fetch f;

	if (sema_current_in(c, e) < 0)
		return SEM_UNKNOWN;
	if (ev && !ev->dyn_func && sema_current_reads(e)) {	/* through an eprobe */
		if (sema_target_cast_fetch(c, ev, e, &f) != 0)
			return SEM_UNKNOWN;
		return sema_tparg_fetched(c, e, &f);
	}
	if (ev && !ev->dyn_func && sema_tparg_event(ev))
		return sema_tparg_cast(c, ev, e);
	if (!ev)
		ev = sema_trigger_event(c);	/* in begin or end */
	if (!ev || !ev->dyn_func) {
		sema_err(c, e->span, "@cast() needs an address the kernel can fetch: %s",
			 !ev && sema_trigger_probe(c) ? SEMA_TRIGGER_WHY : "a target variable "
			 "of a kernel.function() or process() probe");
		return SEM_UNKNOWN;
	}
	if (e->chain.pretty)
		return tg_cast_pretty(c, ev, e);
	if (sema_target_cast_fetch(c, ev, e, &f) != 0)
		return SEM_UNKNOWN;
	e->ref = sema_point_dyn_field(c, ev, &f);
	return f.is_string ? SEM_STRING : SEM_LONG;
}

/*
 * @var("name")->chain in a process() probe: the variable named so in
 * scope at the probe, file-level globals and statics included, i.e. the
 * same as $name (stap's @var, without its "@CU" and module forms).
 */
bool sema_atvar_as_target(struct sema_ctx *c, struct ast_expr *e)
{
	const struct tpf_event *ev = c->probe && !c->func ? c->probe->event : NULL;

	if (!ev || !ev->dyn_func || ((const struct fetch_site *)ev->dyn_func)->btf) {
		sema_err(c, e->span, "@var() needs a process() probe on a binary with debug "
		       "information");
		return false;
	}
	if (e->module || strchr(e->str, '@')) {
		sema_err(c, e->span, "@var(\"NAME@CU\", \"MODULE\") is not supported: write "
		       "@var(\"NAME\") for a variable in scope at the probe");
		return false;
	}
	e->kind = AST_TARGET;
	e->str = arena_printf(c->arena, "$%s", e->str);
	c->changed = true;
	return true;
}

static enum sem_type tg_atvar(struct sema_ctx *c, struct ast_expr *e)
{
	return sema_atvar_as_target(c, e) ? tg_expr(c, e) : SEM_UNKNOWN;
}

enum sem_type sema_target_expr(struct sema_ctx *c, struct ast_expr *e)
{
	switch (e->kind) {
	case AST_TARGET: return tg_target(c, e);
	case AST_DEFINED: return tg_defined(c, e);
	case AST_ENTRY: return sema_entry_expr(c, e);
	case AST_CAST: return tg_cast(c, e);
	case AST_ATVAR: return tg_atvar(c, e);
	default: return SEM_UNKNOWN;
	}
}
