/*
 * sema_regs.c - pass 2: stap's register context functions, returnval(),
 * returnstr(), int_arg(N), uint_arg(N), long_arg(N), ulong_arg(N),
 * pointer_arg(N), s32_arg(N) ... ulonglong_arg(N), register(NAME) and
 * u_register(NAME), as fetch arguments.
 *
 * In: such a call met by typing (sema_type.c) in a probe body, inside
 * @entry(), or in a function specialised for a probe.  Out: the call
 * resolved in place into a target of the probe's dynamic event (the
 * argument's calling-convention register, typed s32/u32/s64/u64, or the
 * return value $retval), as $argN is; in a system call's return
 * tracepoint returnval() is its `ret` field; returnstr(F) becomes
 * return_str(F, returnval()) (tapset/errno.stp), as stap's computes it.
 *
 * Why at compile time: stap reads the registers of the probe's pt_regs
 * when the handler runs in the kernel; ktap's handler runs later in
 * user space, so the kernel must record the register with the event,
 * which it can only do for a register chosen now: the argument number
 * must be a literal.
 */
#include "sema_int.h"
#include "arena.h"
#include "diag.h"
#include "fetch.h"
#include "resolve_dwarf.h"
#include "resolve_tpfmt.h"

#include <inttypes.h>
#include <string.h>

/* The functions and the fetch type of what they return. */
static const struct { const char *name, *type; } sreg_fns[] = {
	{ "int_arg", "s32" }, { "uint_arg", "u32" }, { "long_arg", "s64" },
	{ "ulong_arg", "u64" }, { "pointer_arg", "u64" }, { "s32_arg", "s32" },
	{ "u32_arg", "u32" }, { "s64_arg", "s64" }, { "u64_arg", "u64" },
	{ "longlong_arg", "s64" }, { "ulonglong_arg", "u64" },
};

/* The event whose records the call reads (as sema_target.c's tg_event). */
static struct tpf_event *sreg_event(struct sema_ctx *c)
{
	struct sem_probe *pr = c->func ? c->func->site : c->probe;

	if (c->entry)
		return c->entry;
	return pr ? pr->event : NULL;
}

/*
 * @e becomes the resolved target NAME=FETCH; sema_target.c types it
 * (a field of the event) unless @only_address: then it is an address
 * another fetch reads through, and needs no field of its own.
 */
static int sreg_resolve(struct sema_ctx *c, struct ast_expr *e, const char *name,
			const char *fetch, bool only_address)
{
	e->str = sema_spec_text(c->arena, e);
	e->module = arena_printf(c->arena, "%s=%s", name, fetch);
	e->kind = AST_TARGET;
	e->args.n = 0;
	memset(&e->chain, 0, sizeof(e->chain));
	c->changed = true;
	return only_address ? SEM_LONG : (int)c->type_expr(c, e);
}

/* Not in a probe whose registers ktap can record: a located error. */
static int sreg_unavailable(struct sema_ctx *c, struct ast_expr *e)
{
	if (c->report)
		diag_error(c->diag, e->op_span, "%s() reads a register of the probed function, "
			   "which ktap records only in a kernel.function(), kprobe.function() "
			   "or process().function() probe (not in a function or this kind "
			   "of probe)", e->str);
	return SEM_UNKNOWN;
}

/* returnval(): the return value register of a .return probe. */
static int sreg_returnval(struct sema_ctx *c, struct ast_expr *e, struct tpf_event *ev,
			  bool only_address)
{
	const struct tpf_field *ret = ev ? tpf_field(ev, "ret") : NULL;

	if (ev && !ev->dyn && ret && ret->kind == TPF_INT &&
	    !strncmp(ev->name, "sys_exit", 8)) {	/* a system call's return */
		e->kind = AST_TARGET;
		e->str = "$ret";
		e->args.n = 0;
		memset(&e->chain, 0, sizeof(e->chain));
		c->changed = true;
		return (int)c->type_expr(c, e);
	}
	if (!ev || !ev->dyn_func)
		return sreg_unavailable(c, e);
	if (!ev->dyn_return) {
		if (c->report)
			diag_error(c->diag, e->op_span, "returnval() is the probed function's "
				   "return value: ktap records it only in a .return probe");
		return SEM_UNKNOWN;
	}
	return sreg_resolve(c, e, "returnval", "$retval:s64", only_address);
}

/*
 * int_arg(N) and the others in a system call's entry tracepoint: its Nth
 * argument field (the tracepoint records the arguments, in order, after
 * __syscall_nr), as the register would hold it: the low 32 bits
 * sign-extended (s32) or zero-extended (u32), else all 64.  In its
 * return tracepoint stap's tracepoint-based syscall tapset
 * (tp_syscall.NAME.return) reads the user registers the system call
 * saved at its entry, which hold the arguments still: the return
 * record has none, so the value is the entry's, @entry(int_arg(N)),
 * paired per thread.  (A system call that replaces the task's registers,
 * execve() or rt_sigreturn(), gives the entry's values too.)  In a
 * function there is no @entry(): an error.
 */
static int sreg_syscall_arg(struct sema_ctx *c, struct ast_expr *e, struct tpf_event *ev,
			    const char *type, int64_t n)
{
	struct ast_expr *t = NULL, *v;
	struct src_span at = e->span;
	unsigned i, k = 0;

	if (strncmp(ev->name, "sys_enter_", 10) != 0 && !c->func && !c->entry) {
		struct ast_expr *call = arena_alloc(c->arena, sizeof(*call));

		*call = *e;
		memset(e, 0, sizeof(*e));
		e->kind = AST_ENTRY;
		e->span = e->op_span = call->span;
		e->a = call;
		c->changed = true;
		return (int)c->type_expr(c, e);
	}
	if (strncmp(ev->name, "sys_enter_", 10) != 0) {
		if (c->report)
			diag_error(c->diag, e->op_span, "%s(%lld) reads an argument of the "
				   "system call, which its return's record does not hold: use "
				   "@entry(%s(%lld))", e->str, (long long)n, e->str, (long long)n);
		return SEM_UNKNOWN;
	}
	for (i = 0; i < ev->nfields && !t; i++)
		if (!ev->fields[i].common && strcmp(ev->fields[i].name, "__syscall_nr") != 0 &&
		    ++k == (unsigned)n)
			t = ast_named(c->arena, AST_TARGET,
				      arena_printf(c->arena, "$%s", ev->fields[i].name), at);
	if (!t) {
		if (c->report)
			diag_error(c->diag, e->op_span, "%s(%lld): system call %s has %u "
				   "argument%s", e->str, (long long)n, ev->name + 10, k,
				   k == 1 ? "" : "s");
		return SEM_UNKNOWN;
	}
	v = t;
	if (!strcmp(type, "s32"))
		v = ast_binary(c->arena, AST_BINARY, AST_OP_SHR,
			       ast_binary(c->arena, AST_BINARY, AST_OP_SHL, t,
					  ast_num(c->arena, 32, at), at),
			       ast_num(c->arena, 32, at), at);
	else if (!strcmp(type, "u32"))
		v = ast_binary(c->arena, AST_BINARY, AST_OP_BAND, t,
			       ast_num(c->arena, 0xffffffffLL, at), at);
	*e = *v;
	e->span = at;
	c->changed = true;
	return (int)c->type_expr(c, e);
}

/*
 * In a syscall.NAME probe made a kprobe on the kernel's wrapper
 * __x64_sys_NAME(const struct pt_regs *regs) (sema_syscall.c), argument
 * N is the system call's, as stap's nd_syscall tapset reads it from the
 * user registers: regs->di, not %di (the wrapper's own argument, regs).
 * Its fetch into @f (f->arg NULL for any other probe); -1 with @err
 * for an argument past the sixth.
 */
static int sreg_wrapped_arg(struct sema_ctx *c, const struct ast_expr *e,
			    const struct tpf_event *ev, int64_t n, struct fetch *f,
			    char *err, size_t errsz)
{
	struct sem_probe *pr = c->func ? c->func->site : c->probe;
	struct ast_chain regs = { 0 };

	memset(f, 0, sizeof(*f));
	if (!pr || !pr->syscall_regs)
		return 0;
	if (n > 6) {
		snprintf(err, errsz, "%s(%" PRId64 "): a system call has at most 6 arguments",
			 e->str, n);
		return -1;
	}
	ast_chain_member(c->arena, &regs, pr->syscall_regs[n - 1], e->span);
	return rdwarf_fetch(c->arena, ev->dyn_func, pr->syscall_regs_var, &regs, false, f, err,
			    errsz) ? -1 : 0;
}

/* int_arg(N) and the others: argument N's register at the function's entry. */
static int sreg_arg(struct sema_ctx *c, struct ast_expr *e, struct tpf_event *ev,
		    const char *type, bool only_address)
{
	const struct ast_expr *n = e->args.v[0];
	static const struct ast_chain none;
	struct fetch f;
	char var[32], err[512];
	const char *colon;

	if (n->kind != AST_NUM || n->num < 1 || n->num > 64) {
		if (c->report)
			diag_error(c->diag, e->op_span, "%s() takes a literal argument number "
				   "(1, 2 ...): ktap records the register with the event, so it "
				   "must be known when the script is compiled", e->str);
		return SEM_UNKNOWN;
	}
	if (ev && !ev->dyn && ev->system && !strcmp(ev->system, "syscalls"))
		return sreg_syscall_arg(c, e, ev, type, n->num);
	if (!ev || !ev->dyn_func)
		return sreg_unavailable(c, e);
	if (ev->dyn_return) {
		if (c->report)
			diag_error(c->diag, e->op_span, "%s(%lld) reads an argument register, "
				   "which a .return probe no longer holds: use @entry(%s(%lld))",
				   e->str, (long long)n->num, e->str, (long long)n->num);
		return SEM_UNKNOWN;
	}
	if (sreg_wrapped_arg(c, e, ev, n->num, &f, err, sizeof(err)) < 0) {
		if (c->report)
			diag_error(c->diag, e->op_span, "%s", err);
		return SEM_UNKNOWN;
	}
	snprintf(var, sizeof(var), "$arg%" PRId64, n->num);
	if (!f.arg && rdwarf_fetch(c->arena, ev->dyn_func, var, &none, false, &f, err,
				   sizeof(err)) != 0) {
		if (c->report)
			diag_error(c->diag, e->op_span, "%s", err);
		return SEM_UNKNOWN;
	}
	if (!(colon = strrchr(f.arg, ':')))	/* "%di:s64": the type goes */
		colon = f.arg + strlen(f.arg);
	return sreg_resolve(c, e, arena_printf(c->arena, "arg%" PRId64 "_%s", n->num, type),
			    arena_printf(c->arena, "%.*s:%s", (int)(colon - f.arg), f.arg, type),
			    only_address);
}

/*
 * register(NAME), u_register(NAME): the register as the probe's pt_regs
 * holds it, recorded with the event (stap's x86_64 names; a 32-bit name
 * is the low half, sign-extended by register(), zero-extended by
 * u_register()).  At a .return probe, the registers at the return.
 */
static int sreg_register(struct sema_ctx *c, struct ast_expr *e, struct tpf_event *ev,
			 bool only_address)
{
	static const struct { const char *names, *reg; bool half; } regs[] = {
		{ " rax ax ", "ax", false }, { " rbx bx ", "bx", false },
		{ " rcx cx ", "cx", false }, { " rdx dx ", "dx", false },
		{ " rsi si ", "si", false }, { " rdi di ", "di", false },
		{ " rbp bp ", "bp", false }, { " rsp sp ", "sp", false },
		{ " rip ip ", "ip", false }, { " xcs cs ", "cs", false },
		{ " xss ss ", "ss", false }, { " orig_rax orig_ax ", "orig_ax", false },
		{ " eax ", "ax", true }, { " ebx ", "bx", true }, { " ecx ", "cx", true },
		{ " edx ", "dx", true }, { " esi ", "si", true }, { " edi ", "di", true },
		{ " ebp ", "bp", true }, { " esp ", "sp", true }, { " eip ", "ip", true },
		{ " flags eflags ", "flags", true }, { " orig_eax ", "orig_ax", true },
		{ " r8 ", "r8", false }, { " r9 ", "r9", false }, { " r10 ", "r10", false },
		{ " r11 ", "r11", false }, { " r12 ", "r12", false }, { " r13 ", "r13", false },
		{ " r14 ", "r14", false }, { " r15 ", "r15", false },
	};
	const struct ast_expr *n = e->args.v[0];
	bool u = e->str[0] == 'u';
	char key[32];
	size_t i;

	if (n->kind != AST_STR || strlen(n->str) > sizeof(key) - 3) {
		if (c->report)
			diag_error(c->diag, e->op_span, "%s() takes a literal register name "
				   "(\"rax\", \"rdi\" ...): ktap records the register with the "
				   "event, so it must be known when the script is compiled", e->str);
		return SEM_UNKNOWN;
	}
	if (!ev || !ev->dyn_func)
		return sreg_unavailable(c, e);
	snprintf(key, sizeof(key), " %s ", n->str);
	for (i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (strstr(regs[i].names, key))
			return sreg_resolve(c, e, arena_printf(c->arena, "reg_%s%s", n->str,
							       u ? "_u" : ""),
					    arena_printf(c->arena, "%%%s:%s", regs[i].reg,
							 regs[i].half ? (u ? "u32" : "s32")
								      : (u ? "u64" : "s64")),
					    only_address);
	if (c->report)
		diag_error(c->diag, n->span, "%s(\"%s\"): no such register (x86_64: rax ... "
			   "r15, eax ... esp, rip/eip, flags/eflags, orig_rax/orig_eax, cs, ss)",
			   e->str, n->str);
	return SEM_UNKNOWN;
}

/*
 * returnstr(F): stap's "%ld (ENAME)", "0x%lx", "%#lo" or "%ld" of
 * returnval(), which is tapset/errno.stp's return_str(F, returnval()).
 */
static int sreg_returnstr(struct sema_ctx *c, struct ast_expr *e)
{
	struct ast_expr *rv = ast_named(c->arena, AST_CALL, "returnval", e->span);

	rv->op_span = e->op_span;
	e->str = "return_str";
	ast_list_push(c->arena, &e->args, rv);
	c->changed = true;
	return (int)c->type_expr(c, e);
}

bool sema_regs_fn(struct sema_ctx *c, const char *name)
{
	int id = sema_builtin(name);

	return id >= 0 && (sema_builtin_info(id)->flags & BF_PASS2) && !sema_func_decl(c, name);
}

unsigned sema_regs_arg_number(struct sema_ctx *c, const struct ast_expr *e)
{
	const struct ast_expr *n = e->kind == AST_CALL && e->args.n == 1 ? e->args.v[0] : NULL;
	size_t i;

	if (!n || n->kind != AST_NUM || n->num < 1 || n->num > 64 || !sema_regs_fn(c, e->str))
		return 0;
	for (i = 0; i < sizeof(sreg_fns) / sizeof(sreg_fns[0]); i++)
		if (!strcmp(e->str, sreg_fns[i].name))
			return (unsigned)n->num;
	return 0;
}

static int sreg_call(struct sema_ctx *c, struct ast_expr *e, bool only_address)
{
	unsigned i;

	if (!strcmp(e->str, "returnval") && !e->args.n)
		return sreg_returnval(c, e, sreg_event(c), only_address);
	if (!strcmp(e->str, "returnstr") && e->args.n == 1 && !only_address)
		return sreg_returnstr(c, e);
	if ((!strcmp(e->str, "register") || !strcmp(e->str, "u_register")) && e->args.n == 1)
		return sreg_register(c, e, sreg_event(c), only_address);
	for (i = 0; i < sizeof(sreg_fns) / sizeof(sreg_fns[0]); i++)
		if (!strcmp(e->str, sreg_fns[i].name) && e->args.n == 1)
			return sreg_arg(c, e, sreg_event(c), sreg_fns[i].type, only_address);
	return -1;
}

int sema_regs_call(struct sema_ctx *c, struct ast_expr *e)
{
	return sreg_call(c, e, false);
}

void sema_regs_address(struct sema_ctx *c, struct ast_expr *e)
{
	if (sema_regs_fn(c, e->str))
		sreg_call(c, e, true);
}
