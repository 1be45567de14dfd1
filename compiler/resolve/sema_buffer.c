/*
 * sema_buffer.c - pass 2: byte buffers the kernel reads at the probe.
 *
 * __kernel_buffer(ADDR, N) and __user_buffer(ADDR, N) are the N bytes at
 * ADDR, a string that may hold zero bytes: the tapset's
 * kernel_buffer_quoted() and user_buffer_quoted() (tapset/buffer.stp)
 * and netfilter's data_str and data_hex are made of them, and so is the
 * value of printf's %m and %M, which stap reads at the address it is
 * given (a number there becomes __kernel_buffer(ADDR, PRECISION)).
 *
 * ADDR must be an address the kernel can fetch at the probe (sema_target.c);
 * the fetch argument reads an array: "+0(ADDR):u8[N]" up to 64 bytes (the
 * kernel's MAX_ARRAY_LEN elements), "u64[K]" up to SB_MAX bytes, cut to N.
 * N not known until run time reads SB_MAX bytes, cut to N then.  The
 * event's field is read whole, as a string (runtime/reader_field.c's
 * "NAME[]").  A kprobe cannot read an array of user memory (Linux 6.1's
 * traceprobe_parse_probe_arg_body() takes arrays of kernel memory only):
 * __user_buffer() there is an error.
 * The kernel stores nothing to tell that it could not read the memory:
 * such a buffer holds what its place in the event held (doc/probes.md).
 *
 * In: a call met by typing (sema_type.c).  Out: the call rewritten in
 * place, typed.
 */
#include "sema_int.h"
#include "arena.h"
#include "format.h"

#include <string.h>

/* The most bytes one fetch argument reads: stap's MAXSTRINGLEN. */
#define SB_MAX 512
/* The kernel's MAX_ARRAY_LEN: elements of one array fetch argument. */
#define SB_ELEMS 64

int sema_buffer_call(struct sema_ctx *c, struct ast_expr *e)
{
	struct ast_expr *n, *cut = NULL;
	const char *ref, *name, *text;
	int64_t want;
	bool user;

	if (e->kind != AST_CALL || e->args.n != 2 || sema_func_decl(c, e->str) ||
	    !sema_is_buffer_fn(e->str))
		return -1;
	user = e->str[2] == 'u';
	n = e->args.v[1];
	if (c->type_expr(c, n) != SEM_LONG) {
		sema_err(c, n->span, "%s()'s length is a number", e->str);
		return SEM_UNKNOWN;
	}
	want = n->kind == AST_NUM ? n->num : SB_MAX;
	if (n->kind != AST_NUM)		/* known at run time: cut then */
		cut = n;
	want = want < 0 ? 0 : want > SB_MAX ? SB_MAX : want;
	text = sema_spec_text(c->arena, e);
	if (!(ref = sema_target_mem_ref(c, e, e->args.v[0], user, &name)))
		return SEM_UNKNOWN;
	if (ref[1] == 'u') {	/* "+u8(%si)": user memory in a kprobe */
		sema_err(c, e->span, "%s(): a kprobe's fetch arguments read arrays of kernel "
			 "memory only, not of user memory (user_buffer_quoted()): read the buffer "
			 "in a process() probe, or as text with user_string_n()", e->str);
		return SEM_UNKNOWN;
	}
	if (!want) {
		*e = *ast_str(c->arena, "", 0, e->span);
		return SEM_STRING;
	}
	if (!cut && want > SB_ELEMS && want % 8)	/* u64 elements: 8 bytes each */
		cut = ast_num(c->arena, want, e->span);
	e->kind = AST_TARGET;
	e->str = text;
	e->module = arena_printf(c->arena, "%s_buf=%s:%s[%lld]", name, ref,
				 want <= SB_ELEMS ? "u8" : "u64",
				 (long long)(want <= SB_ELEMS ? want : (want + 7) / 8));
	e->args.n = 0;
	memset(&e->chain, 0, sizeof(e->chain));
	if (cut) {
		struct ast_expr *buf = ast_clone_expr(c->arena, e);

		*e = *sema_call(c, "substr", buf, ast_num(c->arena, 0, e->span), e->span);
		ast_list_push(c->arena, &e->args, cut);
	}
	c->changed = true;
	return (int)c->type_expr(c, e);
}

/*
 * printf("%.16M", ADDR) and the other formatting calls: a number given
 * to %m or %M is an address whose bytes stap prints, read by the kernel
 * here; a string stays the bytes to print.  True when @e was rewritten.
 */
bool sema_buffer_format(struct sema_ctx *c, struct ast_expr *e)
{
	const struct ast_expr *f = e->kind == AST_CALL && e->args.n > 1 ? e->args.v[0] : NULL;
	const struct sem_probe *pr = c->func ? c->func->site : c->probe;
	struct fmt_error err;
	struct fmt_spec *fs;
	bool changed = false;
	unsigned i;
	int n;

	/* only where a kprobe or uprobe can read it: elsewhere the format's
	   type error says a string is wanted */
	if (!pr || !pr->event || !pr->event->dyn_func)
		return false;
	if (!f || f->kind != AST_STR || (strcmp(e->str, "printf") && strcmp(e->str, "sprintf")) ||
	    sema_func_decl(c, e->str) || !memchr(f->str, '%', f->len) ||
	    !(fs = fmt_compile(f->str, f->len, arena_alloc_cb, c->arena, &err)))
		return false;
	for (i = 0; i + 1 < e->args.n && i < fmt_nargs(fs); i++) {
		struct ast_expr *a = e->args.v[i + 1];

		if ((n = fmt_arg_memory(fs, i)) < 0 || c->type_expr(c, a) != SEM_LONG)
			continue;
		e->args.v[i + 1] = sema_call(c, "__kernel_buffer", a,
					     ast_num(c->arena, n ? n : SB_MAX, a->span), a->span);
		changed = true;
	}
	return changed;
}
