/*
 * sema_format.c - pass 2: printf-style formats checked against their
 * arguments, as stap's elaboration checks them (so -p2 rejects what stap
 * -p2 rejects).
 *
 * In: a printf/sprintf call of the typed program.  Out: nothing, or a
 * diagnostic: the format is not a literal, a conversion is malformed
 * (pointing into the literal at it), or the arguments are not as many,
 * or not of the types, the format wants.  Pass 3 compiles the same
 * literal again for the runtime (lower_code.c) and finds it valid.  Its
 * own file because mapping a format offset back to a source column
 * (decoding the literal's escapes) needs helpers of its own.
 */
#include "sema_int.h"
#include "arena.h"
#include "diag.h"
#include "format.h"
#include "source.h"

#include <string.h>

static bool sf_is_hex(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') ||
	       (ch >= 'A' && ch <= 'F');
}

/*
 * Source length of the escape at @p (before @end) in a string literal,
 * decoded as the lexer does; *@bytes is how many bytes it stands for.
 */
static size_t sf_escape_len(const char *p, const char *end, unsigned *bytes)
{
	size_t n = 1;

	*bytes = 1;
	if (p + 1 >= end)
		return 1;
	if (p[1] >= '0' && p[1] <= '7') {
		while (n < 4 && p + n < end && p[n] >= '0' && p[n] <= '7')
			n++;
		return n;
	}
	if (p[1] == 'x' && p + 2 < end && sf_is_hex(p[2]))
		return p + 3 < end && sf_is_hex(p[3]) ? 4 : 3;
	if (p[1] == '\n')
		*bytes = 0;	/* backslash-newline */
	return 2;
}

/*
 * The source text of decoded bytes [@off, @off + @n) of string literal
 * @lit, so a diagnostic can point into the literal.  Falls back to the
 * whole literal when its span is not a plain "..." token.
 */
static struct src_span sf_str_subspan(const struct src_map *src, const struct ast_expr *lit,
				      size_t off, size_t n)
{
	const struct src_file *f = src_file(src, lit->span.file);
	struct src_span sp = lit->span;
	const char *p, *end;
	size_t k = 0, len;
	unsigned bytes;

	if (!f || sp.end > f->len || sp.end - sp.start < 2 ||
	    f->text[sp.start] != '"' || f->text[sp.end - 1] != '"')
		return lit->span;
	p = f->text + sp.start + 1;
	end = f->text + sp.end - 1;
	for (; p < end; p += len) {
		len = *p == '\\' ? sf_escape_len(p, end, &bytes) : (bytes = 1, 1);
		if (bytes && k == off)
			sp.start = (uint32_t)(p - f->text);
		k += bytes;
		if (bytes && k == off + n) {
			sp.end = (uint32_t)(p + len - f->text);
			return sp;
		}
	}
	return lit->span;
}

/* Decoded length of the directive at @off of format @s, for the caret. */
static size_t sf_directive_len(const char *s, size_t len, size_t off)
{
	size_t e = off + 1;

	while (e < len && s[e] && strchr("-+ #0123456789.*lhLjzt", s[e]))
		e++;
	return (e < len ? e + 1 : len) - off;
}

/* The type pass 2 gave @e, or its variable's when the walk left it open. */
int sem_final_type(const struct ast_expr *e)
{
	if (e->type == SEM_UNKNOWN && (e->kind == AST_VAR || e->kind == AST_INDEX) &&
	    e->sym)
		return e->sym->type;
	return e->type;
}

/* The values after the format must be as many, and of the types, it wants. */
static void sf_args(struct sema_ctx *c, const struct ast_expr *call,
			   const struct fmt_spec *fs)
{
	unsigned i, want = fmt_nargs(fs), got = call->args.n - 1;
	const struct ast_expr *a;
	enum rt_type rt;
	int t;

	if (got != want) {
		diag_error(c->diag, call->span,
			   "format of %s() expects %u argument%s, %u given",
			   call->str, want, want == 1 ? "" : "s", got);
		return;
	}
	for (i = 0; i < want; i++) {
		a = call->args.v[i + 1];
		t = sem_final_type(a);
		rt = fmt_arg_type(fs, i);
		/* stap's %m/%M take an address; sema_buffer_format() turned one
		   the kernel can read into its bytes, so a number left here is
		   one no event can read: say that, not "must be a string" */
		if (t == SEM_LONG && rt == RT_STRING && fmt_arg_memory(fs, i) >= 0)
			diag_error(c->diag, a->span,
				   "argument %u of %s(): %%m and %%M print the bytes at an address, "
				   "which ktap can read only as part of the event: the address must be "
				   "a target variable of a kernel.function() or process() probe "
				   "($ptr, $p->member)", i + 2, call->str);
		else if ((t == SEM_LONG && rt == RT_STRING) || (t == SEM_STRING && rt == RT_LONG))
			diag_error(c->diag, a->span,
				   "argument %u of %s() must be a %s, as its format requires",
				   i + 2, call->str, rt == RT_LONG ? "long" : "string");
	}
}

/*
 * printf/sprintf: the format must be a literal, its conversions well
 * formed, and the arguments as the conversions want them.
 */
void sema_format_check(struct sema_ctx *c, const struct ast_expr *call)
{
	const struct ast_expr *f = call->args.n ? call->args.v[0] : NULL;
	struct fmt_spec *fs;
	struct fmt_error err;

	if (!f || f->kind != AST_STR) {
		diag_error(c->diag, f ? f->span : call->span,
			   "the format of %s must be a literal string", call->str);
		return;
	}
	fs = fmt_compile(f->str, f->len, arena_alloc_cb, c->arena, &err);
	if (fs)
		sf_args(c, call, fs);
	else
		diag_error(c->diag, sf_str_subspan(c->diag->src, f, err.offset,
				sf_directive_len(f->str, f->len, err.offset)),
			   "%s", err.msg);
}
