/*
 * sema_spec.c - pass 2: functions that read memory through their
 * parameters, specialised per call site.
 *
 * ktap reads kernel and user memory only as fetch arguments of a kprobe
 * or uprobe, computed at compile time from the probe's registers.  A
 * function such as
 *
 *	function family(sk) { return @cast(sk, "sock")->__sk_common->skc_family }
 *
 * cannot read anything at run time: its parameter is only a number
 * there.  But called as family($sk) in a kernel.function() probe, the
 * address is known at compile time as an expression of the probe's
 * registers.  So such a call gets its own copy of the function (a
 * specialisation for that probe), in which every use of the parameter
 * is replaced by the caller's expression; the memory reads in the copy
 * then become fetch arguments of the probe's event like the caller's
 * own.  Specialisation goes through calls (a function passing its
 * address parameter to another one), and one copy serves every call in
 * the same probe with the same address expressions.
 *
 * An address parameter is one the body uses as the address of a read:
 * the first argument of @cast(), of kernel_long() and the other memory
 * builtins, either of them plus or minus a constant, or an address
 * parameter of another function.  The argument passed for it must be
 * fetchable: a target variable ($sk, $p->q), a @cast(...) chain, a
 * memory builtin of one, one of these plus or minus a constant, or a
 * call of a function that only returns such an expression of its
 * parameters, with fetchable arguments (task_parent($p), spc_inline()).
 * Anything else (a local variable, a value computed at run time) is a
 * located error at the call.
 *
 * A function that reads the running task (task_current(), itself or
 * through the functions it calls) is copied per probe the same way,
 * with no parameter replaced: 'current' is read by the probe's own
 * fetches (sema_current.c), so only a copy made for a probe can read it.
 */
#include "sema_int.h"
#include "arena.h"
#include "ast_walk.h"
#include "diag.h"
#include "resolve_tparg.h"
#include "resolve_tpfmt.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Functions calling functions deeper than this are not searched. */
#define SPEC_MAX_DEPTH 16

/* The (function, parameter) pairs being searched: each at most once on a path. */
struct spc_path {
	const struct ast_func *f[SPEC_MAX_DEPTH];
	unsigned k[SPEC_MAX_DEPTH];
	unsigned n;
};

static const struct { const char *name; enum ast_mem mem; } spc_mem_fns[] = {
	{ "kernel_string", AST_MEM_KSTRING }, { "user_string", AST_MEM_USTRING },
	{ "kernel_long", AST_MEM_S64 }, { "kernel_int", AST_MEM_S32 },
	{ "kernel_short", AST_MEM_S16 }, { "kernel_char", AST_MEM_S8 },
	{ "user_long", AST_MEM_S64 }, { "user_int", AST_MEM_S32 },
	{ "user_short", AST_MEM_S16 }, { "user_char", AST_MEM_S8 },
	{ "user_uint32", AST_MEM_U32 }, { "user_uint16", AST_MEM_U16 },
	{ "user_uint8", AST_MEM_U8 }, { "user_uint64", AST_MEM_U64 },
	{ "user_int8", AST_MEM_S8 }, { "user_int16", AST_MEM_S16 },
	{ "user_int32", AST_MEM_S32 }, { "user_int64", AST_MEM_S64 },
	/* atomic_t is { int counter; }, atomic_long_t { long counter; } */
	{ "atomic_read", AST_MEM_S32 }, { "atomic_long_read", AST_MEM_S64 },
	/* stap's other names of the same reads (x86_64: a long is 64 bits;
	   the _error and _warn forms differ only in how a fault is told,
	   and a fetch argument cannot fault the script) */
	{ "kernel_pointer", AST_MEM_U64 }, { "user_ulong", AST_MEM_U64 },
	{ "user_ushort", AST_MEM_U16 }, { "user_string_warn", AST_MEM_USTRING },
	{ "user_long_error", AST_MEM_S64 }, { "user_long_warn", AST_MEM_S64 },
	{ "user_ulong_error", AST_MEM_U64 }, { "user_ulong_warn", AST_MEM_U64 },
	{ "user_int_error", AST_MEM_S32 }, { "user_int_warn", AST_MEM_S32 },
	{ "user_short_error", AST_MEM_S16 }, { "user_short_warn", AST_MEM_S16 },
	{ "user_ushort_error", AST_MEM_U16 }, { "user_ushort_warn", AST_MEM_U16 },
	{ "user_char_error", AST_MEM_S8 }, { "user_char_warn", AST_MEM_S8 },
	{ "user_int8_error", AST_MEM_S8 }, { "user_int16_error", AST_MEM_S16 },
	{ "user_int32_error", AST_MEM_S32 }, { "user_int64_error", AST_MEM_S64 },
	{ "user_uint8_error", AST_MEM_U8 }, { "user_uint16_error", AST_MEM_U16 },
	{ "user_uint32_error", AST_MEM_U32 }, { "user_uint64_error", AST_MEM_U64 },
};

/*
 * stap's string readers that are a core read, R = kernel_string(A) or
 * user_string(A) of their first argument A, and some text work.  A NULL
 * A is tested here; a fault at another address is R's on_fault (the
 * error text, or ""), or else stap's run-time error (doc/tapset.md).
 */
enum spc_shape {
	SH_PLAIN,	/* R */
	SH_N,		/* substr(R, 0, N) */
	SH_ERR,		/* A ? R : ERR */
	SH_N_ERR,	/* A ? substr(R, 0, N) : ERR */
	SH_QUOTED,	/* A ? text_strn(R, 0, 1) : "0x0" */
	SH_N_QUOTED,	/* A ? text_strn(substr(R, 0, N), 0, 1) : "(null)" */
	SH_NIO_QUOTED,	/* A ? text_strn(substr(R, 0, IN), OUT, 1) : "(null)" */
};

static const struct {
	const char *suffix;
	unsigned nargs;
	enum spc_shape shape;
} spc_sugar[] = {
	{ "", 1, SH_PLAIN },	/* kernel_or_user_string(A) only */
	{ "", 2, SH_ERR }, { "_n", 2, SH_N }, { "_n", 3, SH_N_ERR },
	{ "_nofault", 1, SH_PLAIN }, { "_n_nofault", 2, SH_N },
	{ "_quoted", 1, SH_QUOTED }, { "_n_quoted", 2, SH_N_QUOTED },
	{ "_n_quoted", 3, SH_NIO_QUOTED },
	/* stap's older names of the same forms (still in its tapset) */
	{ "2", 2, SH_ERR }, { "_n2", 3, SH_N_ERR }, { "_n2_quoted", 3, SH_NIO_QUOTED },
	/* the _warn forms: stap also warns of a fault, which a fetch cannot tell */
	{ "_warn", 2, SH_ERR }, { "2_warn", 2, SH_ERR }, { "_n_warn", 2, SH_N },
	{ "_n_warn", 3, SH_N_ERR },
};

/* Is @name with @nargs arguments one of them?  Its shape, and in *@user
   whether it reads user memory; -1 if not. */
static int spc_sugar_find(const char *name, unsigned nargs, bool *user)
{
	static const char *const pre[] = { "user_string", "kernel_string",
					   "kernel_or_user_string" };
	size_t i, j, l;

	for (i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
		l = strlen(pre[i]);
		if (strncmp(name, pre[i], l) != 0)
			continue;
		for (j = 0; j < sizeof(spc_sugar) / sizeof(spc_sugar[0]); j++)
			if (!strcmp(name + l, spc_sugar[j].suffix) &&
			    nargs == spc_sugar[j].nargs && (j != 0 || i == 2)) {
				*user = i == 0;
				return (int)spc_sugar[j].shape;
			}
	}
	return -1;
}

bool sema_is_buffer_fn(const char *name)
{
	return !strcmp(name, "__kernel_buffer") || !strcmp(name, "__user_buffer");
}

/* The numbers of arguments the memory reader @name takes, as a bit
   set (bit N: N arguments); 0 when @name is none. */
unsigned sema_mem_arities(const char *name)
{
	unsigned n, set = sema_mem_fn(name) != AST_MEM_NONE ? 1u << 1 : 0;
	bool user;

	if (sema_is_buffer_fn(name))
		set |= 1u << 2;		/* (ADDR, N): sema_buffer.c */

	for (n = 1; n <= 3; n++)
		if (spc_sugar_find(name, n, &user) >= 0)
			set |= 1u << n;
	return set;
}

void sema_mem_arity_err(struct sema_ctx *c, const struct ast_expr *e, unsigned set)
{
	unsigned lo = 1, hi = 3;
	char range[32] = "";

	while (!(set & (1u << lo)))
		lo++;
	while (!(set & (1u << hi)))
		hi--;
	if (lo != hi)
		snprintf(range, sizeof(range), "%u%s", lo, hi - lo == 1 ? " or " : " to ");
	sema_err(c, e->span, "%s() takes %s%u argument%s, %u given", e->str, range, hi,
		 hi == 1 ? "" : "s", e->args.n);
}

static struct ast_expr *spc_strn(struct sema_ctx *c, struct ast_expr *x, struct ast_expr *len,
				 struct src_span at)
{
	struct ast_expr *e = sema_call(c, "text_strn", x, len, at);

	ast_list_push(c->arena, &e->args, ast_num(c->arena, 1, at));
	return e;
}

static struct ast_expr *spc_substr(struct sema_ctx *c, struct ast_expr *x, struct ast_expr *n,
				   struct src_span at)
{
	struct ast_expr *e = sema_call(c, "substr", x, ast_num(c->arena, 0, at), at);

	ast_list_push(c->arena, &e->args, n);
	return e;
}

/* Whether the script itself (not the tapset) defines function @name. */
static bool spc_script_defines(const struct sema_ctx *c, const char *name)
{
	unsigned i;

	for (i = 0; i < c->nscript_fdecls; i++)
		if (!strcmp(c->fdecls[i]->name, name))
			return true;
	return false;
}

/*
 * format_ipaddr(__ip_sock_saddr(S), F), and __ip_sock_daddr(S): for an
 * IPv6 socket stap's __ip_sock_*addr() returns a pointer to the 16-byte
 * address, which format_ipaddr() reads when it runs.  ktap reads that
 * memory at the probe, through S: the call becomes tapset/ip.stp's
 * __ip_sock_addr_text(S, F, REMOTE), which reads both address forms
 * and formats the one F names, as format_ipaddr() would.
 */
static bool spc_ipaddr_sugar(struct sema_ctx *c, struct ast_expr *e)
{
	struct ast_expr *a = e->args.n == 2 ? e->args.v[0] : NULL;
	bool remote;

	if (!a || a->kind != AST_CALL || a->args.n != 1 || strcmp(e->str, "format_ipaddr") != 0 ||
	    (strcmp(a->str, "__ip_sock_saddr") != 0 && strcmp(a->str, "__ip_sock_daddr") != 0) ||
	    spc_script_defines(c, e->str) || spc_script_defines(c, a->str) ||
	    !sema_func_decl(c, "__ip_sock_addr_text"))
		return false;
	remote = a->str[10] == 'd';	/* __ip_sock_daddr */
	e->str = "__ip_sock_addr_text";
	e->args.v[0] = a->args.v[0];
	ast_list_push(c->arena, &e->args, ast_num(c->arena, remote, a->span));
	return true;
}

/*
 * Rewrite @e in place when it is one of them (its arguments are typed
 * again by the caller); false when it is none of them or the script
 * defines a function of its name.
 */
bool sema_mem_sugar(struct sema_ctx *c, struct ast_expr *e)
{
	struct arena *a = c->arena;
	struct src_span at = e->span;
	struct ast_expr *r, *x, *alt, **v;
	bool user;
	int shape;

	if (e->kind == AST_CALL && spc_ipaddr_sugar(c, e))
		return true;
	if (e->kind != AST_CALL || sema_func_decl(c, e->str) ||
	    (shape = spc_sugar_find(e->str, e->args.n, &user)) < 0)
		return false;
	v = e->args.v;
	r = sema_call(c, user ? "user_string" : "kernel_string", v[0], NULL, at);
	/* What a string the kernel could not copy is: the error text, or
	   "" for the _nofault forms (and the quoted ones, whose stap's
	   gives the address instead); else an error, as stap's */
	if (shape == SH_ERR || shape == SH_N_ERR)
		r->on_fault = v[shape == SH_ERR ? 1 : 2];
	else if (strstr(e->str, "_nofault") || shape >= SH_QUOTED)
		r->on_fault = ast_str(a, "", 0, at);
	switch ((enum spc_shape)shape) {
	case SH_PLAIN: *e = *r; return true;
	case SH_N: *e = *spc_substr(c, r, v[1], at); return true;
	case SH_ERR: x = r; alt = v[1]; break;
	case SH_N_ERR:	/* ERR on a fault, not cut: the cut's own (lower_code.c) */
		x = spc_substr(c, r, v[1], at);
		x->on_fault = alt = v[2];
		break;
	case SH_QUOTED:
		x = spc_strn(c, r, ast_num(a, 0, at), at);
		alt = ast_str(a, "0x0", 3, at);
		break;
	case SH_N_QUOTED:
		x = spc_strn(c, spc_substr(c, r, v[1], at), ast_num(a, 0, at), at);
		alt = ast_str(a, "(null)", 6, at);
		break;
	default:	/* SH_NIO_QUOTED */
		x = spc_strn(c, spc_substr(c, r, v[1], at), v[2], at);
		alt = ast_str(a, "(null)", 6, at);
		break;
	}
	*e = *ast_ternary(a, ast_clone_expr(a, v[0]), x, alt);
	return true;
}

/*
 * task_pid(task_current()), task_execname(task_current()) ...: a task
 * function of the running task is, by stap's definitions, the context
 * function of the same name (pid(), execname() ...), which ktap has
 * without reading the task (task_current() itself is refused: no fetch
 * argument reads the per-CPU 'current').  @e becomes that call; false
 * when it is not such a call, or the script defines task_current().
 */
bool sema_current_task(struct sema_ctx *c, struct ast_expr *e)
{
	static const char *const fns[] = {
		"pid", "tid", "execname", "cpu", "uid", "gid", "euid", "egid",
		"ns_pid", "ns_tid", "ns_uid", "ns_gid", "ns_euid", "ns_egid",
	};
	const struct ast_expr *a = e->args.n == 1 ? e->args.v[0] : NULL;
	size_t i;

	if (e->kind != AST_CALL || !a || a->kind != AST_CALL || a->args.n ||
	    strcmp(a->str, "task_current") != 0 || strncmp(e->str, "task_", 5) != 0 ||
	    sema_func_decl(c, "task_current"))
		return false;
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(e->str + 5, fns[i])) {
			e->str = fns[i];
			e->args.n = 0;
			return true;
		}
	return false;
}

enum ast_mem sema_mem_fn(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(spc_mem_fns) / sizeof(spc_mem_fns[0]); i++)
		if (!strcmp(name, spc_mem_fns[i].name))
			return spc_mem_fns[i].mem;
	return AST_MEM_NONE;
}

/* A memory builtin (not a user function of the same name). */
static bool spc_is_mem_call(struct sema_ctx *c, const struct ast_expr *e)
{
	return e->kind == AST_CALL && sema_mem_fn(e->str) != AST_MEM_NONE &&
	       !sema_func_decl(c, e->str);
}

/* __kernel_buffer(A, N), __user_buffer(A, N) (sema_buffer.c): a read at A. */
static bool spc_is_buffer_call(struct sema_ctx *c, const struct ast_expr *e)
{
	return e->kind == AST_CALL && e->args.n == 2 && !sema_func_decl(c, e->str) &&
	       sema_is_buffer_fn(e->str);
}

/* user_string_n(A, N), kernel_string_quoted(A) ... (sema_mem_sugar): a
   read at their first argument. */
static bool spc_is_sugar_call(struct sema_ctx *c, const struct ast_expr *e)
{
	bool user;

	return e->kind == AST_CALL && spc_sugar_find(e->str, e->args.n, &user) >= 0 &&
	       !sema_func_decl(c, e->str);
}

bool sema_is_const_addr(const struct ast_expr *e)
{
	return e->kind == AST_UNARY && e->op == AST_OP_ADDR && e->a->kind == AST_CAST &&
	       e->a->a->kind == AST_NUM && e->a->chain.n;
}

/* A constant an address may be offset by: a number, or an @offsetof. */
static bool spc_is_offset(const struct ast_expr *e)
{
	return e->kind == AST_NUM || sema_is_const_addr(e);
}

/* @x is parameter @p, or @p plus or minus a constant. */
static bool spc_is_param(const struct ast_expr *x, const char *p)
{
	if (x->kind == AST_VAR)
		return !strcmp(x->str, p);
	if (x->kind == AST_BINARY && (x->op == AST_OP_ADD || x->op == AST_OP_SUB))
		return (spc_is_offset(x->b) && spc_is_param(x->a, p)) ||
		       (x->op == AST_OP_ADD && x->a->kind == AST_NUM && spc_is_param(x->b, p));
	return false;
}

static bool spc_addr_param(struct sema_ctx *c, const struct ast_func *f, unsigned k,
			   struct spc_path *path);

static bool spc_stmt_reads(struct sema_ctx *c, const struct ast_stmt *s, const char *p,
			   struct spc_path *path);

/* Does @e read memory at an address made from @p? */
static bool spc_expr_reads(struct sema_ctx *c, const struct ast_expr *e, const char *p,
			   struct spc_path *path)
{
	const struct ast_func *g;
	unsigned i;

	if (!e)
		return false;
	if (e->kind == AST_CAST && spc_is_param(e->a, p))
		return true;
	if (((spc_is_mem_call(c, e) && e->args.n == 1) || spc_is_sugar_call(c, e) ||
	     spc_is_buffer_call(c, e)) && spc_is_param(e->args.v[0], p))
		return true;
	if (e->kind == AST_CALL && (g = sema_func_decl_n(c, e->str, e->args.n)) != NULL)
		for (i = 0; i < e->args.n && i < g->nparams; i++)
			if (spc_is_param(e->args.v[i], p) && spc_addr_param(c, g, i, path))
				return true;
	if (spc_expr_reads(c, e->a, p, path) || spc_expr_reads(c, e->b, p, path) ||
	    spc_expr_reads(c, e->c, p, path))
		return true;
	for (i = 0; i < e->args.n; i++)
		if (spc_expr_reads(c, e->args.v[i], p, path))
			return true;
	return false;
}

static bool spc_stmt_reads(struct sema_ctx *c, const struct ast_stmt *s, const char *p,
			   struct spc_path *path)
{
	unsigned i;

	if (!s)
		return false;
	if (spc_expr_reads(c, s->e, p, path) || spc_expr_reads(c, s->e2, p, path) ||
	    spc_expr_reads(c, s->e3, p, path) || spc_stmt_reads(c, s->s1, p, path) ||
	    spc_stmt_reads(c, s->s2, p, path))
		return true;
	for (i = 0; i < s->body.n; i++)
		if (spc_stmt_reads(c, s->body.v[i], p, path))
			return true;
	return s->fe && spc_stmt_reads(c, s->fe->body, p, path);
}

/* Parameter @k of @f is the address of a memory read in its body. */
static bool spc_addr_param(struct sema_ctx *c, const struct ast_func *f, unsigned k,
			   struct spc_path *path)
{
	unsigned i;
	bool r;

	if (path->n >= SPEC_MAX_DEPTH || !f->body || k >= f->nparams)
		return false;
	for (i = 0; i < path->n; i++)	/* recursion adds nothing new */
		if (path->f[i] == f && path->k[i] == k)
			return false;
	path->f[path->n] = f;
	path->k[path->n++] = k;
	r = spc_stmt_reads(c, f->body, f->params[k].name, path);
	path->n--;
	return r;
}

/* An expression the kernel can fetch at the probe (see the file comment). */
static bool spc_fetchable(struct sema_ctx *c, const struct ast_expr *e)
{
	switch (e->kind) {
	case AST_TARGET:
		return !e->chain.pretty && strncmp(e->str, "$$", 2) != 0;
	case AST_CAST:
		return true;
	case AST_UNARY:
		return e->op == AST_OP_ADDR &&
		       (e->a->kind == AST_TARGET || e->a->kind == AST_CAST);
	case AST_CALL:	/* task_current(): sema_current.c, or its error there */
		if (sema_current_call(c, e))
			return true;
		return spc_is_mem_call(c, e) && e->args.n == 1 &&
		       sema_mem_fn(e->str) != AST_MEM_KSTRING &&
		       sema_mem_fn(e->str) != AST_MEM_USTRING && spc_fetchable(c, e->args.v[0]);
	case AST_BINARY:
		if (e->op != AST_OP_ADD && e->op != AST_OP_SUB)
			return false;
		return (spc_is_offset(e->b) && spc_fetchable(c, e->a)) ||
		       (e->op == AST_OP_ADD && e->a->kind == AST_NUM && spc_fetchable(c, e->b));
	default:
		return false;
	}
}

/* ---- the copy ---- */

struct spc_subst {
	const struct ast_func *f;
	struct ast_expr **args;		/* per parameter: the replacement, or NULL */
};

static void spc_subst_stmt(struct arena *a, struct ast_stmt *s, const struct spc_subst *sb);

static void spc_subst_expr(struct arena *a, struct ast_expr *e, const struct spc_subst *sb)
{
	unsigned i;

	if (!e)
		return;
	if (e->kind == AST_VAR) {
		for (i = 0; i < sb->f->nparams; i++) {
			if (sb->args[i] && !strcmp(e->str, sb->f->params[i].name)) {
				*e = *ast_clone_expr(a, sb->args[i]);
				return;
			}
		}
		return;
	}
	spc_subst_expr(a, e->a, sb);
	spc_subst_expr(a, e->b, sb);
	spc_subst_expr(a, e->c, sb);
	for (i = 0; i < e->args.n; i++)
		spc_subst_expr(a, e->args.v[i], sb);
	for (i = 0; i < e->chain.n; i++)
		if (e->chain.v[i].is_index)
			spc_subst_expr(a, e->chain.v[i].index, sb);
}

static void spc_subst_stmt(struct arena *a, struct ast_stmt *s, const struct spc_subst *sb)
{
	unsigned i;

	if (!s)
		return;
	spc_subst_expr(a, s->e, sb);
	spc_subst_expr(a, s->e2, sb);
	spc_subst_expr(a, s->e3, sb);
	spc_subst_stmt(a, s->s1, sb);
	spc_subst_stmt(a, s->s2, sb);
	for (i = 0; i < s->body.n; i++)
		spc_subst_stmt(a, s->body.v[i], sb);
	if (s->fe) {
		for (i = 0; i < s->fe->slice.n; i++)
			spc_subst_expr(a, s->fe->slice.v[i], sb);
		spc_subst_expr(a, s->fe->limit, sb);
		spc_subst_stmt(a, s->fe->body, sb);
	}
}

/* Is parameter @p assigned anywhere in @s?  Then it cannot be replaced. */
static bool spc_expr_writes(const struct ast_expr *e, const char *p)
{
	unsigned i;

	if (!e)
		return false;
	if ((e->kind == AST_ASSIGN || e->kind == AST_INCDEC) && e->a->kind == AST_VAR &&
	    !strcmp(e->a->str, p))
		return true;
	if (spc_expr_writes(e->a, p) || spc_expr_writes(e->b, p) || spc_expr_writes(e->c, p))
		return true;
	for (i = 0; i < e->args.n; i++)
		if (spc_expr_writes(e->args.v[i], p))
			return true;
	return false;
}

static bool spc_stmt_writes(const struct ast_stmt *s, const char *p)
{
	unsigned i;

	if (!s)
		return false;
	if (spc_expr_writes(s->e, p) || spc_expr_writes(s->e2, p) ||
	    spc_expr_writes(s->e3, p) || spc_stmt_writes(s->s1, p) || spc_stmt_writes(s->s2, p))
		return true;
	for (i = 0; i < s->body.n; i++)
		if (spc_stmt_writes(s->body.v[i], p))
			return true;
	if (s->fe) {
		if (s->fe->value && !strcmp(s->fe->value->str, p))
			return true;
		for (i = 0; i < s->fe->keys.n; i++)
			if (!strcmp(s->fe->keys.v[i]->str, p))
				return true;
		return spc_stmt_writes(s->fe->body, p);
	}
	return s->kind == AST_S_TRY && s->name && !strcmp(s->name, p);
}

/* The name of a non-string memory builtin reading @mem. */
static const char *spc_mem_name(enum ast_mem mem)
{
	size_t i;

	for (i = 0; i < sizeof(spc_mem_fns) / sizeof(spc_mem_fns[0]); i++)
		if (spc_mem_fns[i].mem == mem)
			return spc_mem_fns[i].name;
	return "?";
}

/*
 * The canonical text of fetchable @e ("$sk", "kernel_long($p + 8)"),
 * the same before and after pass 2 rewrote kernel_long($p) into a
 * target with a memory read, so that every round finds the same copy.
 */
static const char *spc_text(struct arena *a, const struct ast_expr *e);

const char *sema_spec_text(struct arena *a, const struct ast_expr *e)
{
	if (e->kind == AST_UNARY)	/* &x */
		return arena_printf(a, "%s%s", ast_op_spelling(e->op), spc_text(a, e->a));
	return spc_text(a, e);
}

static const char *spc_text(struct arena *a, const struct ast_expr *e)
{
	struct ast_expr tmp;
	const char *s;

	if (e->kind == AST_CALL && e->args.n == 1)	/* kernel_int(x), int_arg(1) */
		return arena_printf(a, "%s(%s)", sema_mem_fn(e->str) != AST_MEM_NONE ?
				    spc_mem_name(sema_mem_fn(e->str)) : e->str,
				    spc_text(a, e->args.v[0]));
	if (e->kind == AST_BINARY)
		return arena_printf(a, "%s %s %s", spc_text(a, e->a), ast_op_spelling(e->op),
				    spc_text(a, e->b));
	if (e->kind == AST_NUM)
		return arena_printf(a, "%" PRId64, e->num);
	tmp = *e;
	tmp.chain.mem = AST_MEM_NONE;
	s = ast_expr_text(a, &tmp);
	return e->chain.mem ? arena_printf(a, "%s(%s)", spc_mem_name(e->chain.mem), s) : s;
}

/*
 * "f<sk=$sk>": the function's name with its replaced parameters (and
 * "@entry" after a copy evaluated at the function's entry).
 */
static const char *spc_name(struct sema_ctx *c, const struct ast_func *f,
			    struct ast_expr **args, bool at_entry)
{
	const char *name = arena_printf(c->arena, "%s<", f->name);
	unsigned i, n = 0;

	for (i = 0; i < f->nparams; i++)
		if (args[i])
			name = arena_printf(c->arena, "%s%s%s=%s", name, n++ ? ", " : "",
					    f->params[i].name, spc_text(c->arena, args[i]));
	return arena_printf(c->arena, "%s>%s", name, at_entry ? "@entry" : "");
}

/*
 * The copy of @f for @site with @args, made once; @at_entry: called
 * inside @entry(), so it reads the entry event of @site's function.
 */
static struct sem_func *spc_copy(struct sema_ctx *c, const struct ast_func *f,
				 struct sem_probe *site, bool at_entry, struct ast_expr **args)
{
	const char *name = spc_name(c, f, args, at_entry);
	struct sem_prog *p = c->prog;
	struct spc_subst sb = { f, args };
	struct ast_func *nf;
	struct sem_func *sf;
	unsigned i;

	for (i = 0; i < p->nfuncs; i++)
		if (p->funcs[i]->site == site && p->funcs[i]->at_entry == at_entry &&
		    p->funcs[i]->ast->span.start == f->span.start &&
		    p->funcs[i]->ast->span.file == f->span.file && !strcmp(p->funcs[i]->name, name))
			return p->funcs[i];
	nf = arena_alloc(c->arena, sizeof(*nf));
	*nf = *f;
	nf->body = ast_clone_stmt(c->arena, f->body);
	spc_subst_stmt(c->arena, nf->body, &sb);
	sf = sema_func_add(c, nf, name);
	sf->site = site;
	sf->at_entry = at_entry;
	return sf;
}

/*
 * A call of a function whose whole body is "return EXPR", EXPR an
 * address the probe can fetch once its parameters are replaced by the
 * call's arguments (the tapset's task_parent(task), a member read
 * through its parameter): that expression, so that
 * task_pid(task_parent($p)) reads the parent's tgid through $p's
 * real_parent at the probe.  Every argument must itself be fetchable
 * (after the same rewriting) or a number, so nothing computed at run
 * time ends up in a fetch.  Anything else: @e unchanged.
 */
static struct ast_expr *spc_inline(struct sema_ctx *c, struct ast_expr *e, unsigned depth)
{
	const struct ast_func *f;
	const struct ast_stmt *s;
	struct ast_expr **args, *r;
	struct spc_subst sb;
	unsigned i;

	/* 'x = $sk; ... fam(x)': $sk itself (sema_vardef.c says when). */
	if (e->kind == AST_VAR && depth < SPEC_MAX_DEPTH && (r = sema_var_def(c, e)))
		return spc_inline(c, r, depth + 1);
	if (e->kind != AST_CALL || depth >= SPEC_MAX_DEPTH || spc_is_mem_call(c, e) ||
	    !(f = sema_func_decl_n(c, e->str, e->args.n)) || !f->body || e->args.n != f->nparams)
		return e;
	s = f->body;
	while (s->kind == AST_S_BLOCK && s->body.n == 1)
		s = s->body.v[0];
	if (s->kind != AST_S_RETURN || !s->e)
		return e;
	args = arena_alloc(c->arena, (f->nparams + 1) * sizeof(*args));
	for (i = 0; i < f->nparams; i++) {
		args[i] = spc_inline(c, e->args.v[i], depth + 1);
		if (args[i]->kind != AST_NUM && !spc_fetchable(c, args[i]))
			return e;
	}
	sb.f = f;
	sb.args = args;
	r = ast_clone_expr(c->arena, s->e);
	spc_subst_expr(c->arena, r, &sb);
	return spc_fetchable(c, r) ? r : e;
}

struct ast_expr *sema_spec_inline(struct sema_ctx *c, struct ast_expr *e)
{
	return spc_inline(c, e, 0);
}

/* The probe whose event the code being typed belongs to. */
static struct sem_probe *spc_site(struct sema_ctx *c)
{
	struct sem_probe *pr = c->func ? c->func->site : c->probe;
	const struct tpf_event *ev;

	if (!pr || !pr->event)
		return NULL;
	/* kernel.trace(): the arguments the record holds (sema_tparg.c) */
	if (pr->event->dyn_func)
		return pr;
	ev = sema_point_tracepoint(pr->event);
	return !ev->dyn && rtparg_event(ev->system, ev->name) ? pr : NULL;
}

/*
 * A call already bound to its copy by spc_bind (its name is the copy's,
 * "task_pid<task=$prev>"): that copy, or NULL.
 */
static struct sem_func *spc_bound(struct sema_ctx *c, const struct ast_expr *e)
{
	struct sem_probe *site = spc_site(c);
	bool at_entry = c->entry || (c->func && c->func->at_entry);
	unsigned i;

	if (!site || !strchr(e->str, '<'))
		return NULL;
	for (i = 0; i < c->prog->nfuncs; i++)
		if (c->prog->funcs[i]->site == site && c->prog->funcs[i]->at_entry == at_entry &&
		    !strcmp(c->prog->funcs[i]->name, e->str))
			return c->prog->funcs[i];
	return NULL;
}

/*
 * In a kernel.trace() probe, the copy's replaced parameters are not
 * values the probe has: the record holds $prev->pid, not $prev.  The
 * copy never reads them (every use is replaced), so the call passes 0
 * for them instead, and names the copy so that later rounds find it
 * (spc_bound) without looking at the arguments again.
 */
static void spc_bind(struct sema_ctx *c, struct ast_expr *e, struct sem_func *sf,
		     struct ast_expr **args)
{
	unsigned i;

	if (sf->site->event->dyn_func)
		return;		/* kprobes and uprobes fetch the argument itself */
	e->str = sf->name;
	for (i = 0; i < e->args.n && i < sf->ast->nparams; i++)
		if (args[i])
			e->args.v[i] = ast_num(c->arena, 0, e->args.v[i]->span);
	c->changed = true;
}

/* The index of declared function @f in c->fdecls, or -1. */
static int spc_fdecl_index(const struct sema_ctx *c, const struct ast_func *f)
{
	unsigned i;

	for (i = 0; f && i < c->nfdecls; i++)
		if (c->fdecls[i] == f)
			return (int)i;
	return -1;
}

bool sema_spec_reads_param(struct sema_ctx *c, const struct ast_func *f, unsigned k)
{
	struct spc_path path = { .n = 0 };

	return f && spc_addr_param(c, f, k, &path);
}

/* The search for calls of task_current() (spc_calls_current()). */
struct spc_cur {
	struct sema_ctx *c;
	const bool *found;
};

/* A call of task_current(), or of a function already found to make one. */
static int spc_cur_fn(struct ast_expr *e, void *arg)
{
	const struct spc_cur *w = arg;
	int k;

	if (e->kind != AST_CALL)
		return 0;
	if (sema_current_call(w->c, e))
		return -1;
	k = spc_fdecl_index(w->c, sema_func_decl_n(w->c, e->str, e->args.n));
	return k >= 0 && w->found[k] ? -1 : 0;
}

/* Which declared functions call task_current(), by rounds until none
   changes (a function's callees may be declared after it, or recurse). */
static bool *spc_current_fns(struct sema_ctx *c)
{
	bool *found = arena_alloc(c->arena, (c->nfdecls + 1) * sizeof(*found));
	struct spc_cur w = { c, found };
	bool changed = true;
	unsigned i;

	while (changed) {
		changed = false;
		for (i = 0; i < c->nfdecls; i++)
			if (!found[i] && c->fdecls[i]->body &&
			    ast_walk_stmt(c->fdecls[i]->body, spc_cur_fn, &w))
				found[i] = changed = true;
	}
	return found;
}

/*
 * Does @f read the running task (task_current()), itself or through a
 * function it calls?  Then a call of it in a probe that can read
 * 'current' gets a copy for that probe, as an address parameter does
 * (sema_current.c reads 'current' only in a probe's own code).  The
 * answer for every declared function is found once (spc_current_fns()).
 */
static bool spc_calls_current(struct sema_ctx *c, const struct ast_func *f)
{
	int k;

	if (c->ncurrent != c->nfdecls) {	/* the lazy tapset declared more */
		c->fdecl_current = spc_current_fns(c);
		c->ncurrent = c->nfdecls;
	}
	k = spc_fdecl_index(c, f);
	return k >= 0 && c->fdecl_current[k];
}

bool sema_spec_reads_current(struct sema_ctx *c, struct ast_stmt *s, struct ast_expr *cond)
{
	struct spc_cur w = { c, NULL };

	if (c->ncurrent != c->nfdecls) {	/* as spc_calls_current() */
		c->fdecl_current = spc_current_fns(c);
		c->ncurrent = c->nfdecls;
	}
	w.found = c->fdecl_current;
	return ast_walk_stmt(s, spc_cur_fn, &w) || ast_walk_expr(cond, spc_cur_fn, &w);
}

struct sem_func *sema_spec_call(struct sema_ctx *c, struct ast_expr *e, bool *failed)
{
	const struct ast_func *f = sema_func_decl_n(c, e->str, e->args.n);
	struct ast_expr **args;
	struct sem_probe *site = spc_site(c);
	struct sem_func *sf;
	unsigned i, n = 0;

	*failed = false;
	if ((sf = spc_bound(c, e)) != NULL)
		return sf;
	if (!f || !f->body)
		return NULL;
	args = arena_alloc(c->arena, (f->nparams + 1) * sizeof(*args));
	for (i = 0; i < f->nparams && i < e->args.n; i++) {
		struct spc_path path = { .n = 0 };
		struct ast_expr *arg;

		if (!spc_addr_param(c, f, i, &path))
			continue;
		if (!site && sema_trigger_event(c))	/* in begin or end */
			site = spc_site(c);
		if (!site) {
			if (c->report)
				diag_error(c->diag, e->span, "function '%s' reads memory through its "
					   "parameter '%s', which ktap can only do as a fetch "
					   "argument of a kernel.function() or process() probe",
					   f->name, f->params[i].name);
			*failed = true;
			return NULL;
		}
		arg = spc_inline(c, e->args.v[i], 0);
		if (!spc_fetchable(c, arg) && arg->kind == AST_ENTRY) {
			if (c->report)
				diag_error(c->diag, e->args.v[i]->span, "function '%s' reads memory "
					   "through its parameter '%s', whose argument %s is a value "
					   "saved at the function's entry: the return's event cannot "
					   "read memory through it; call the function at the entry "
					   "instead, inside @entry(): @entry(%s(...))", f->name,
					   f->params[i].name, sema_spec_text(c->arena, arg), f->name);
			*failed = true;
			return NULL;
		}
		if (!spc_fetchable(c, arg)) {
			if (c->report)
				diag_error(c->diag, e->args.v[i]->span, "function '%s' reads "
					   "memory through its parameter '%s': the argument must "
					   "be an address the kernel can fetch at the probe "
					   "($var, $p->member, @cast(...)->member, or one of these "
					   "plus a constant), not a value computed at run time",
					   f->name, f->params[i].name);
			*failed = true;
			return NULL;
		}
		if (spc_stmt_writes(f->body, f->params[i].name)) {
			if (c->report)
				diag_error(c->diag, e->args.v[i]->span, "function '%s' assigns to "
					   "its address parameter '%s', so its memory reads cannot "
					   "be fetched by the kernel", f->name, f->params[i].name);
			*failed = true;
			return NULL;
		}
		args[i] = arg;
		n++;
	}
	if (!n && !(site && spc_calls_current(c, f)))
		return NULL;
	sf = spc_copy(c, f, site, c->entry || (c->func && c->func->at_entry), args);
	if (!sf->has_call) {
		sf->call = e->span;
		sf->has_call = true;
	}
	spc_bind(c, e, sf, args);
	return sf;
}

/* ---- folding: a copy that only returns a field is that field ---- */

/* The field target @f only returns, or NULL. */
static const struct ast_expr *spc_returned_field(const struct sem_func *f)
{
	const struct ast_stmt *s = f->ast ? f->ast->body : NULL;

	while (s && s->kind == AST_S_BLOCK && s->body.n == 1)
		s = s->body.v[0];
	if (!s || s->kind != AST_S_RETURN || !s->e || s->e->kind != AST_TARGET ||
	    s->e->ref < 0 || s->e->chain.pretty)
		return NULL;
	return s->e;
}

/* Does @e write anything or call anything (its value dropped, it must not)? */
static int spc_effect_fn(struct ast_expr *e, void *arg)
{
	(void)arg;
	return e->kind == AST_ASSIGN || e->kind == AST_INCDEC || e->kind == AST_CALL ? -1 : 0;
}

struct spc_fold {
	struct sema_ctx *c;
	const struct sem_probe *probe;
};

static int spc_fold_fn(struct ast_expr *e, void *arg)
{
	const struct spc_fold *w = arg;
	const struct sem_func *f;
	const struct ast_expr *r;
	struct src_span span = e->span;
	unsigned i;

	if (e->kind != AST_CALL || e->ref < 0 || (unsigned)e->ref >= w->c->prog->nfuncs)
		return 0;
	f = w->c->prog->funcs[e->ref];
	if (f->site != w->probe || f->at_entry || !(r = spc_returned_field(f)))
		return 0;
	for (i = 0; i < e->args.n; i++)
		if (ast_walk_expr(e->args.v[i], spc_effect_fn, NULL))
			return 0;
	*e = *ast_clone_expr(w->c->arena, r);
	e->span = span;
	return 1;
}

/*
 * task_pid($prev) in a kernel.trace() probe is the copy
 * task_pid<task=$prev>, whose body only returns a field of the probe's
 * event ($prev's tgid, which the record or the tprobe holds): the call
 * becomes that field, so the kernel's filters and hist triggers can
 * use it as they use a field read directly (the copy stays, unused).
 */
void sema_spec_fold(struct sema_ctx *c)
{
	struct spc_fold w = { c, NULL };
	unsigned i;

	for (i = 0; i < c->prog->nprobes; i++) {
		w.probe = c->prog->probes[i];
		if (w.probe->body)
			ast_walk_stmt(w.probe->body, spc_fold_fn, &w);
	}
}
