/*
 * lower_format.c - pass 3: printf-style formats checked against their
 * arguments.
 *
 * In: a printf/sprintf call whose format is a string literal.  Out: the
 * compiled format (runtime/format.h) in ir_prog.formats, or a
 * diagnostic that points into the literal at the bad conversion, or at
 * the argument whose type the format contradicts.  Its own file because
 * this is a type check with its own helpers (decoding escapes to map a
 * format offset back to a source column), not code generation; sema
 * cannot do it because the format is only parsed here, once.
 */
#include "lower_int.h"
#include "arena.h"
#include "diag.h"
#include "format.h"

#include <string.h>

static void *lw_fmt_alloc(void *arena, size_t n)
{
	return arena_alloc(arena, n);
}

static bool lw_is_hex(char ch)
{
	return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') ||
	       (ch >= 'A' && ch <= 'F');
}

/*
 * Source length of the escape at @p (before @end) in a string literal,
 * decoded as the lexer does; *@bytes is how many bytes it stands for.
 */
static size_t lw_escape_len(const char *p, const char *end, unsigned *bytes)
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
	if (p[1] == 'x' && p + 2 < end && lw_is_hex(p[2]))
		return p + 3 < end && lw_is_hex(p[3]) ? 4 : 3;
	if (p[1] == '\n')
		*bytes = 0;	/* backslash-newline */
	return 2;
}

/*
 * The source text of decoded bytes [@off, @off + @n) of string literal
 * @lit, so a diagnostic can point into the literal.  Falls back to the
 * whole literal when its span is not a plain "..." token.
 */
static struct src_span lw_str_subspan(struct lw_ctx *c, const struct ast_expr *lit,
				      size_t off, size_t n)
{
	const struct src_file *f = src_file(c->src, lit->span.file);
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
		len = *p == '\\' ? lw_escape_len(p, end, &bytes) : (bytes = 1, 1);
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
static size_t lw_directive_len(const char *s, size_t len, size_t off)
{
	size_t e = off + 1;

	while (e < len && s[e] && strchr("-+ #0123456789.*lhLjzt", s[e]))
		e++;
	return (e < len ? e + 1 : len) - off;
}

/* The type sema gave @e, or its variable's when the walk left it open. */
int lw_arg_type(const struct ast_expr *e)
{
	if (e->type == SEM_UNKNOWN && (e->kind == AST_VAR || e->kind == AST_INDEX) &&
	    e->sym)
		return e->sym->type;
	return e->type;
}

/* The values after the format must be as many, and of the types, it wants. */
static void lw_format_args(struct lw_ctx *c, const struct ast_expr *call,
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
		t = lw_arg_type(a);
		rt = fmt_arg_type(fs, i);
		if ((t == SEM_LONG && rt == RT_STRING) || (t == SEM_STRING && rt == RT_LONG))
			diag_error(c->diag, a->span,
				   "argument %u of %s() must be a %s, as its format requires",
				   i + 2, call->str, rt == RT_LONG ? "long" : "string");
	}
}

/*
 * printf/sprintf: the format must be a literal, so it is parsed once
 * here and its conversions checked against the arguments.
 */
int lower_format(struct lw_ctx *c, const struct ast_expr *call)
{
	struct ir_prog *ir = c->ir;
	const struct ast_expr *f = call->args.n ? call->args.v[0] : NULL;
	struct fmt_spec *fs;
	struct fmt_error err;

	if (!f || f->kind != AST_STR) {
		diag_error(c->diag, f ? f->span : call->span,
			   "the format of %s must be a literal string", call->str);
		return 0;
	}
	fs = fmt_compile(f->str, f->len, lw_fmt_alloc, c->arena, &err);
	if (fs)
		lw_format_args(c, call, fs);
	else
		diag_error(c->diag, lw_str_subspan(c, f, err.offset,
				lw_directive_len(f->str, f->len, err.offset)),
			   "%s", err.msg);
	ir->formats = arena_grow(c->arena, ir->formats, ir->nformats, &ir->fmcap,
				 sizeof(*ir->formats));
	ir->formats[ir->nformats] = fs;
	return (int)ir->nformats++;
}

