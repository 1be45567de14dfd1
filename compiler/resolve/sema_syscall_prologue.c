/*
 * sema_syscall_prologue.c - pass 2: the generic prologue of a system
 * call's probe (sema_syscall.c's family): stap's variables built from the
 * syscalls:sys_enter_NAME / sys_exit_NAME tracepoint's fields, with
 * stap's own names, texts and argstr where they are not the fields'
 * (sema_syscall_vars.def, sema_syscall_argstr.def).
 */
#include "sema_int.h"
#include "arena.h"
#include "resolve_tpfmt.h"

#include <stdlib.h>
#include <string.h>

/* ---- the generic prologue ---- */

/* How an argument field reads and prints. */
enum sc_kind { SC_INT32, SC_UINT32, SC_LONG, SC_ULONG, SC_PTR, SC_STRING };

static bool sc_in(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

static enum sc_kind sc_kind(const struct tpf_field *f)
{
	static const char *const i32[] = {
		"int", "pid_t", "clockid_t", "const clockid_t", "timer_t", "mqd_t", "key_t",
		"key_serial_t", "qid_t", "rwf_t", NULL };
	static const char *const u32[] = {
		"unsigned int", "unsigned", "u32", "const __u32", "__u32", "uid_t", "gid_t",
		"umode_t", "old_uid_t", "old_gid_t", "u16", "unsigned short", NULL };
	static const char *const i64[] = { "long", "loff_t", "off_t", "__s32", NULL };
	static const char *const bufs[] = { "buf", "ubuf", "data", NULL };

	if (!strcmp(f->ctype, "const char *") && !sc_in(f->name, bufs))
		return SC_STRING;
	if (f->pointer || strchr(f->ctype, '*'))
		return SC_PTR;
	if (sc_in(f->ctype, i32))
		return SC_INT32;
	if (sc_in(f->ctype, u32))
		return SC_UINT32;
	if (sc_in(f->ctype, i64))
		return SC_LONG;
	return SC_ULONG;
}

/* The printf conversion of argument @f in the generic argstr. */
static const char *sc_conv(const struct tpf_field *f, enum sc_kind k)
{
	if (k == SC_STRING)
		return "%s";
	if (k == SC_PTR)
		return "%p";
	if (strstr(f->name, "flags") || strstr(f->name, "mask"))
		return "%#x";
	if (!strcmp(f->name, "mode"))
		return "%#o";
	return k == SC_INT32 || k == SC_LONG ? "%d" : "%u";
}

static struct ast_expr *sc_target(struct sema_ctx *c, const char *field, struct src_span at)
{
	return ast_named(c->arena, AST_TARGET, arena_printf(c->arena, "$%s", field), at);
}

/* The value of field @f: 32-bit types sign- or zero-extended. */
static struct ast_expr *sc_value(struct sema_ctx *c, const struct tpf_field *f,
				 enum sc_kind k, struct src_span at)
{
	struct ast_expr *t = sc_target(c, f->name, at);

	if (k == SC_INT32)	/* the register's low half, sign-extended */
		return ast_binary(c->arena, AST_BINARY, AST_OP_SHR,
				  ast_binary(c->arena, AST_BINARY, AST_OP_SHL, t,
					     ast_num(c->arena, 32, at), at),
				  ast_num(c->arena, 32, at), at);
	if (k == SC_UINT32)
		return ast_binary(c->arena, AST_BINARY, AST_OP_BAND, t,
				  ast_num(c->arena, 0xffffffffLL, at), at);
	if (k == SC_STRING)	/* quoted, as stap's tapset has it */
		return sema_call(c, "user_string_quoted", t, NULL, at);
	return t;
}

static void sc_assign(struct sema_ctx *c, struct ast_stmt *block, const char *var,
		      struct ast_expr *value, struct src_span at)
{
	struct ast_stmt *s = ast_stmt_new(c->arena, AST_S_EXPR, at);

	s->e = ast_binary(c->arena, AST_ASSIGN, AST_OP_SET,
			  ast_named(c->arena, AST_VAR, var, at), value, at);
	ast_stmt_push(c->arena, &block->body, s);
}

/* The local of argument @f: its name, unless it clashes with name/argstr
   or with the tapset's globals argv/argc (argv.stp: execveat's argv
   would be that array; its address stays argv_uaddr, stap's name). */
static const char *sc_var(struct sema_ctx *c, const struct tpf_field *f, enum sc_kind k)
{
	static const char *const taken[] = { "name", "argstr", "retstr", "argv", "argc", NULL };

	if (!sc_in(f->name, taken))
		return f->name;
	return arena_printf(c->arena, "%s_%s", f->name, k == SC_STRING ? "str" : "val");
}

bool sema_syscall_is_arg(const struct tpf_field *f)
{
	return !f->common && strcmp(f->name, "__syscall_nr") != 0;
}

/* ---- stap's own variables (sema_syscall_vars.def) ---- */

enum scv_how { SCV_ARG, SCV_INT32, SCV_UINT32, SCV_STR, SCV_DEC, SCV_DEC2, SCV_DECN, SCV_CONST };

struct scv {
	const char *call, *var, *field;
	enum scv_how how;
	const char *extra;	/* SCV_DEC's decoder, SCV_DEC2's and SCV_DECN's
				   "decoder field", SCV_DECN's "decoder N",
				   SCV_CONST's literal */
};

static const struct scv sc_vars[] = {
#define SCV(call, var, field, how, extra) { call, var, field, how, extra },
#include "sema_syscall_vars.def"
#undef SCV
};

#define SC_NVARS (sizeof(sc_vars) / sizeof(sc_vars[0]))

static bool sc_has_suffix(const char *s, const char *sfx)
{
	size_t n = strlen(s), k = strlen(sfx);

	return n >= k && !strcmp(s + n - k, sfx);
}

/* True when stap's variable @var of @call is not the generic one. */
static bool sc_stap_var(const char *call, const char *var)
{
	size_t i;

	for (i = 0; i < SC_NVARS; i++)
		if (!strcmp(sc_vars[i].call, call) && !strcmp(sc_vars[i].var, var))
			return true;
	return false;
}

/* stap's text of field @field of @call (its _str variable), if any. */
static const struct scv *sc_stap_text(const char *call, const char *field)
{
	size_t i;

	for (i = 0; i < SC_NVARS; i++)
		if ((sc_vars[i].how == SCV_STR || sc_vars[i].how == SCV_DEC ||
		     sc_vars[i].how == SCV_DEC2 ||
		     /* the whole struct's text, not bind's uaddr_ip */
		     (sc_vars[i].how == SCV_DECN && sc_has_suffix(sc_vars[i].var, "_str"))) &&
		    !strcmp(sc_vars[i].call, call) && !strcmp(sc_vars[i].field, field))
			return &sc_vars[i];
	return NULL;
}

/* "%d"/"%u" where stap's variable @var of @call is field @f with its
   own sign (an unsigned int fd stap reads as int: -1), else NULL. */
static const char *sc_stap_conv(const char *call, const struct tpf_field *f, const char *var)
{
	size_t i;

	for (i = 0; i < SC_NVARS; i++)
		if (!strcmp(sc_vars[i].call, call) && !strcmp(sc_vars[i].var, var) &&
		    !strcmp(sc_vars[i].field, f->name) &&
		    (sc_vars[i].how == SCV_INT32 || sc_vars[i].how == SCV_UINT32))
			return sc_vars[i].how == SCV_INT32 ? "%d" : "%u";
	return NULL;
}

static const struct tpf_field *sc_field(const struct tpf_event *ev, const char *name)
{
	unsigned i;

	for (i = 0; i < ev->nfields; i++)
		if (!strcmp(ev->fields[i].name, name))
			return &ev->fields[i];
	return NULL;
}

/* SCV_DEC2: the decoder of two arguments, the other field's value first
   (_sock_protocol_str(family, protocol)); SCV_DECN: the value first, then
   the number or the other field's value (_struct_timespec_u(tsp, 1),
   _struct_sockaddr_u(addr, addrlen)); NULL without that field. */
static struct ast_expr *sc_stap_dec2(struct sema_ctx *c, const struct scv *v,
				     const struct tpf_event *ev, struct ast_expr *value,
				     struct src_span at)
{
	const char *sp = strchr(v->extra, ' ');
	const char *fn = arena_printf(c->arena, "%.*s", (int)(sp - v->extra), v->extra);
	const struct tpf_field *g = sc_field(ev, sp + 1);
	struct ast_expr *other;

	if (v->how == SCV_DECN && (sp[1] == '-' || (sp[1] >= '0' && sp[1] <= '9')))
		return sema_call(c, fn, value, ast_num(c->arena, strtoll(sp + 1, NULL, 0), at), at);
	if (!g)
		return NULL;
	other = sc_value(c, g, sc_kind(g), at);
	return v->how == SCV_DECN ? sema_call(c, fn, value, other, at)
				  : sema_call(c, fn, other, value, at);
}

static struct ast_expr *sc_stap_value(struct sema_ctx *c, const struct scv *v,
				      const struct tpf_event *ev, const struct tpf_field *f,
				      struct src_span at)
{
	enum sc_kind k = f ? sc_kind(f) : SC_LONG;

	switch (v->how) {
	case SCV_CONST:
		if (v->extra[0] == '"')
			return ast_str(c->arena, v->extra + 1, strlen(v->extra) - 2, at);
		return ast_num(c->arena, strtoll(v->extra, NULL, 0), at);
	case SCV_INT32:
		return sc_value(c, f, SC_INT32, at);
	case SCV_UINT32:
		return sc_value(c, f, SC_UINT32, at);
	case SCV_STR:
		return sc_value(c, f, SC_STRING, at);
	case SCV_DEC:
		return sema_call(c, v->extra, sc_value(c, f, k == SC_STRING ? SC_PTR : k, at),
				 NULL, at);
	case SCV_DEC2:
	case SCV_DECN:
		return sc_stap_dec2(c, v, ev, sc_value(c, f, k == SC_STRING ? SC_PTR : k, at), at);
	case SCV_ARG:
		break;
	}
	return sc_value(c, f, k == SC_STRING ? SC_PTR : k, at);
}

/* stap's variables of @call that the generic ones are not. */
static void sc_stap_vars(struct sema_ctx *c, struct ast_stmt *b, const char *call,
			 const struct tpf_event *ev, struct src_span at)
{
	size_t i;

	for (i = 0; i < SC_NVARS; i++) {
		const struct scv *v = &sc_vars[i];
		const struct tpf_field *f = v->how == SCV_CONST ? NULL : sc_field(ev, v->field);

		struct ast_expr *e;

		if (strcmp(v->call, call) || (v->how != SCV_CONST && !f))
			continue;
		e = sc_stap_value(c, v, ev, f, at);
		if (e)
			sc_assign(c, b, v->var, e, at);
	}
}

/* ---- stap's argstr (sema_syscall_argstr.def) ---- */

struct sca {
	const char *call, *fmt, *vars;	/* vars: space-separated */
};

static const struct sca sc_argstrs[] = {
#define SCA(call, fmt, vars) { call, fmt, vars },
#include "sema_syscall_argstr.def"
#undef SCA
};

/* Does the prologue of @call on @ev set variable @var (@len bytes)? */
static bool sc_sets(struct sema_ctx *c, const struct tpf_event *ev, const char *call,
		    const char *var, size_t len)
{
	const char *name = arena_strndup(c->arena, var, len);
	unsigned i;
	size_t k;

	for (k = 0; k < SC_NVARS; k++)
		if (!strcmp(sc_vars[k].call, call) && !strcmp(sc_vars[k].var, name))
			return sc_vars[k].how == SCV_CONST || sc_field(ev, sc_vars[k].field);
	for (i = 0; i < ev->nfields; i++) {
		const struct tpf_field *f = &ev->fields[i];
		enum sc_kind kd = sc_kind(f);

		if (!sema_syscall_is_arg(f))
			continue;
		if (!strcmp(sc_var(c, f, kd), name) ||
		    (kd == SC_PTR && !strstr(f->name, "_uaddr") &&
		     !strcmp(arena_printf(c->arena, "%s_uaddr", f->name), name)))
			return true;
	}
	return false;
}

/*
 * One argument of an SCA row, @len bytes at @v: a variable, or a
 * decoder's call of variables and numbers, "_struct_timespec_u(tsp,1)"
 * (no spaces).  Its expression, or NULL when the prologue of @call does
 * not set one of the variables on this kernel (@e NULL: only checked).
 */
static struct ast_expr *sc_sca_arg(struct sema_ctx *c, const struct tpf_event *ev,
				   const char *call, const char *v, size_t len, struct src_span at)
{
	const char *open = memchr(v, '(', len), *a, *end = v + len - 1;
	struct ast_expr *e;

	if (!open)
		return sc_sets(c, ev, call, v, len) ?
			ast_named(c->arena, AST_VAR, arena_strndup(c->arena, v, len), at) : NULL;
	e = ast_named(c->arena, AST_CALL, arena_strndup(c->arena, v, (size_t)(open - v)), at);
	e->op_span = at;
	for (a = open + 1; a < end; a += strcspn(a, ",)") + 1) {
		size_t n = strcspn(a, ",)");
		struct ast_expr *arg;

		if (*a == '-' || (*a >= '0' && *a <= '9'))
			arg = ast_num(c->arena, strtoll(a, NULL, 0), at);
		else if (!(arg = sc_sca_arg(c, ev, call, a, n, at)))
			return NULL;
		ast_list_push(c->arena, &e->args, arg);
	}
	return e;
}

/* stap's argstr of @call, sprintf(FMT, its variables and decoders' calls
   of them), when the prologue sets every variable on this kernel; else
   NULL. */
static struct ast_expr *sc_stap_argstr(struct sema_ctx *c, const struct tpf_event *ev,
				       const char *call, struct src_span at)
{
	struct ast_expr *e, *arg;
	const char *v, *end;
	size_t i;

	for (i = 0; i < sizeof(sc_argstrs) / sizeof(sc_argstrs[0]); i++)
		if (!strcmp(sc_argstrs[i].call, call))
			break;
	if (i == sizeof(sc_argstrs) / sizeof(sc_argstrs[0]))
		return NULL;
	e = ast_named(c->arena, AST_CALL, "sprintf", at);
	e->op_span = at;
	ast_list_push(c->arena, &e->args, ast_str(c->arena, sc_argstrs[i].fmt,
						 strlen(sc_argstrs[i].fmt), at));
	for (v = sc_argstrs[i].vars; *v; v = *end ? end + 1 : end) {
		end = v + strcspn(v, " ");
		if (!(arg = sc_sca_arg(c, ev, call, v, (size_t)(end - v), at)))
			return NULL;
		ast_list_push(c->arena, &e->args, arg);
	}
	return e;
}

/* argstr = sprintf("FMT, FMT", args...): strace-like, with stap's text of
   an argument where stap has one (a string, decoded flags). */
static struct ast_expr *sc_argstr(struct sema_ctx *c, const struct tpf_event *ev,
				  const char *sysc, struct src_span at)
{
	struct ast_expr *call = ast_named(c->arena, AST_CALL, "sprintf", at), *arg;
	const struct scv *text;
	const char *fmt = "", *conv;
	unsigned i, n = 0;

	call->op_span = at;
	ast_list_push(c->arena, &call->args, NULL);
	for (i = 0; i < ev->nfields; i++) {
		const struct tpf_field *f = &ev->fields[i];
		enum sc_kind k = sc_kind(f);

		if (!sema_syscall_is_arg(f))
			continue;
		text = sc_stap_text(sysc, f->name);
		conv = sc_stap_conv(sysc, f, sc_var(c, f, k));	/* stap's sign */
		fmt = arena_printf(c->arena, "%s%s%s", fmt, n++ ? ", " : "",
				   text ? "%s" : conv ? conv : sc_conv(f, k));
		if (text)
			arg = ast_named(c->arena, AST_VAR, text->var, at);
		else if (!conv && sc_stap_var(sysc, sc_var(c, f, k)))
			/* the field's own value: stap's variable of its name is not it */
			arg = sc_value(c, f, k, at);
		else
			arg = ast_named(c->arena, AST_VAR, sc_var(c, f, k), at);
		ast_list_push(c->arena, &call->args, arg);
	}
	if (n == 0)
		return ast_str(c->arena, "", 0, at);
	call->args.v[0] = ast_str(c->arena, fmt, strlen(fmt), at);
	return call;
}

/* return_str()'s format for @name's value: 2 hex (addresses), 3 octal. */
static int sc_ret_format(const char *name)
{
	static const char *const hex[] = { "mmap", "mremap", NULL };

	if (sc_in(name, hex))
		return 2;
	return strcmp(name, "umask") ? 1 : 3;
}

/* A pointer to user memory is also NAME_uaddr (buf_uaddr), the
   convention of stap's syscall tapset; unused ones are elided. */
static void sc_uaddr(struct sema_ctx *c, struct ast_stmt *b, const struct tpf_field *f,
		     enum sc_kind k, struct src_span at)
{
	if (k == SC_PTR && !strstr(f->name, "_uaddr"))
		sc_assign(c, b, arena_printf(c->arena, "%s_uaddr", f->name),
			  sc_value(c, f, k, at), at);
}

struct ast_stmt *sema_syscall_prologue(struct sema_ctx *c, const struct tpf_event *ev,
				       const char *name, bool ret, struct src_span at)
{
	struct ast_stmt *b = ast_stmt_new(c->arena, AST_S_BLOCK, at);
	struct ast_expr *argstr;
	unsigned i;

	sc_assign(c, b, "name", ast_str(c->arena, name, strlen(name), at), at);
	if (ret) {
		sc_assign(c, b, "retval", sc_target(c, "ret", at), at);
		sc_assign(c, b, "retstr", sema_call(c, "return_str",
						  ast_num(c->arena, sc_ret_format(name), at),
						  sc_target(c, "ret", at), at), at);
	} else {
		for (i = 0; i < ev->nfields; i++) {
			const struct tpf_field *f = &ev->fields[i];
			enum sc_kind k = sc_kind(f);

			if (!sema_syscall_is_arg(f))
				continue;
			if (!sc_stap_var(name, sc_var(c, f, k)))
				sc_assign(c, b, sc_var(c, f, k), sc_value(c, f, k, at), at);
			sc_uaddr(c, b, f, k, at);
		}
		sc_stap_vars(c, b, name, ev, at);
		argstr = sc_stap_argstr(c, ev, name, at);
		sc_assign(c, b, "argstr", argstr ? argstr : sc_argstr(c, ev, name, at), at);
	}
	sema_elide_mark(b);
	return b;
}

