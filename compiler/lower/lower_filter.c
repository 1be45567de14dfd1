/*
 * lower_filter.c - pass 3: guards the kernel can evaluate.
 *
 * In: one guard conjunct (an expression that must be true for the
 * handler to run) of a tracepoint, kprobe or uprobe probe.  Out: the
 * same condition in the kernel's filter syntax, or NULL and the reason
 * it stays in user space.  lower_guard.c decides which conjuncts a probe
 * has and which of them may go to the kernel.
 *
 * Only what the kernel evaluates exactly as stap would is written:
 * comparisons of an event field (kprobe and uprobe fetch arguments are
 * fields too), tid() (common_pid), cpu() (CPU) or execname() (COMM)
 * with a constant (target() counts as one: $TARGET, filled in at run
 * time), "&" tests, string globs, and !, && and || of those.  pid()
 * stays in user space: events carry the thread id (common_pid) but not
 * the process id, so no filter can test pid() exactly, not even
 * pid() == target() (the -c/-x process may have threads; lower_target.c
 * pre-filters with set_event_pid when every probe checks it).
 *
 * Guards arrive read through the probe's prologue (lower_bind.c): a
 * condition that is true for every event is "" (nothing to filter), and
 * syscall_name(F) compared with a string is the list of numbers it
 * holds for (lower_fold.c), "F == 257".
 */
#include "lower_int.h"
#include "arena.h"
#include "resolve_tpfmt.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

enum lf_kind { LF_NONE, LF_NUM, LF_STR };

/* One translation: where the text goes, and the first reason it failed. */
struct lf_ctx {
	struct arena *a;
	const struct sem_probe *probe;
	const char *why;
	unsigned flags;			/* LOWER_FILTER_* */
};

/* At most this many numbers in a syscall_name() test's filter. */
#define LF_MAX_SC 32

/* A side of a comparison: a kernel operand or a constant, as text. */
struct lf_side {
	enum lf_kind kind;
	bool constant;
	bool is_unsigned64;	/* an 8-byte unsigned field */
	const char *text;
	int64_t value;		/* a numeric constant's value */
	unsigned unsigned_size;	/* an unsigned field's size, else 0 */
	unsigned signed_size;	/* a signed field's size, else 0 */
	unsigned chars;		/* a char[N] field's N, else 0 */
	size_t len;		/* a string constant's length */
};

/* Does @v fit a field of @size bytes (signed or not)?  The kernel
   truncates constants to the field's type before comparing. */
static bool lf_fits(int64_t v, unsigned size, bool is_signed)
{
	unsigned bits = size * 8;

	if (size == 0 || size >= 8)
		return true;
	if (is_signed)
		return v >= -(INT64_C(1) << (bits - 1)) && v < (INT64_C(1) << (bits - 1));
	return v >= 0 && v < (INT64_C(1) << bits);
}

/* A numeric constant: a literal, possibly negated. */
static bool lf_number(const struct ast_expr *e, int64_t *v)
{
	if (e->kind == AST_NUM) {
		*v = e->num;
		return true;
	}
	if (e->kind == AST_UNARY && e->op == AST_OP_NEG && lf_number(e->a, v)) {
		*v = (int64_t)(0 - (uint64_t)*v);
		return true;
	}
	return false;
}

/* Record why @c's expression stays in user space (the first reason wins). */
static const char *lf_fail(struct lf_ctx *c, const char *why)
{
	if (!c->why)
		c->why = why;
	return NULL;
}

static bool lf_call(const struct ast_expr *e, const char *name)
{
	return e->kind == AST_CALL && e->args.n == 0 && strcmp(e->str, name) == 0 &&
	       e->ref < 0;
}

/* Quote a string constant for the filter parser, or NULL if it can't. */
static const char *lf_quote(struct arena *a, const char *s, size_t len)
{
	size_t i;

	if (len > 250)
		return NULL;
	for (i = 0; i < len; i++)
		if (s[i] == '"' || s[i] == '\\' || (unsigned char)s[i] < 32 || s[i] == '#')
			return NULL;
	return arena_printf(a, "\"%.*s\"", (int)len, s);
}


/* A char * field: the kernel filters it as a string it reads from the
   pointer (FILTER_PTR_STRING), stap reads the pointer's value. */
static bool lf_char_pointer(const struct tpf_field *f)
{
	return f->pointer && f->ctype && strstr(f->ctype, "char");
}

static struct lf_side lf_side(struct lf_ctx *c, const struct ast_expr *e)
{
	struct lf_side s = { LF_NONE, false, false, NULL, 0, 0, 0, 0, 0 };
	const struct sem_probe *probe = c->probe;
	const struct tpf_field *f;
	int64_t v;

	if (lf_number(e, &v)) {
		s = (struct lf_side){ LF_NUM, true, false,
				      arena_printf(c->a, "%" PRId64, v), v, 0, 0, 0, 0 };
	} else if (e->kind == AST_STR) {
		s.text = lf_quote(c->a, e->str, e->len);
		s.kind = s.text ? LF_STR : LF_NONE;
		s.constant = true;
		s.len = e->len;
		if (!s.text)
			lf_fail(c, "the string holds characters a filter cannot quote, or is "
				"longer than 250 bytes");
	} else if (lf_call(e, "target")) {
		s = (struct lf_side){ LF_NUM, true, false, "$TARGET", 0, 0, 0, 0, 0 };
	} else if (lf_call(e, "tid")) {
		/* common_pid and the CPU number are ints: the kernel truncates
		   a constant to 32 bits before comparing. */
		s = (struct lf_side){ LF_NUM, false, false, "common_pid", 0, 0, 4, 0, 0 };
	} else if (lf_call(e, "cpu")) {
		s = (struct lf_side){ LF_NUM, false, false, "CPU", 0, 0, 4, 0, 0 };
	} else if (lf_call(e, "execname")) {
		s = (struct lf_side){ LF_STR, false, false, "COMM", 0, 0, 0, 0, 0 };
	} else if (lf_call(e, "pid")) {
		lf_fail(c, "pid() is the process id, events carry only the thread id "
			"(common_pid)");
	} else if (e->kind == AST_TARGET && e->ref >= 0 && probe && probe->event &&
		   !e->chain.pretty) {
		f = &probe->event->fields[e->ref];
		if (f->element)
			lf_fail(c, "a filter cannot index an array field");
		else if (f->kind == TPF_INT && lf_char_pointer(f))
			lf_fail(c, "the kernel filters a char * field as the string it "
				"points to");
		else if (f->kind == TPF_INT)
			s = (struct lf_side){ LF_NUM, false, f->size == 8 && !f->is_signed,
					      f->name, 0, f->is_signed ? 0 : f->size,
					      f->is_signed ? f->size : 0, 0, 0 };
		else if (f->kind == TPF_CHARS || f->kind == TPF_DATALOC_STR)
			s = (struct lf_side){ LF_STR, false, false, f->name, 0, 0, 0,
					      f->kind == TPF_CHARS ? f->size : 0, 0 };
	}
	if (s.kind == LF_NONE)
		lf_fail(c, "not an event field, tid(), cpu() or execname() compared with "
			"a constant");
	return s;
}

static const char *lf_op(enum ast_op op, bool swapped)
{
	switch (op) {
	case AST_OP_EQ: return "==";
	case AST_OP_NE: return "!=";
	case AST_OP_LT: return swapped ? ">" : "<";
	case AST_OP_GT: return swapped ? "<" : ">";
	case AST_OP_LE: return swapped ? ">=" : "<=";
	case AST_OP_GE: return swapped ? "<=" : ">=";
	default: return NULL;
	}
}

/*
 * Numeric constant @k against field @f: the kernel truncates constants
 * to the field's type, so a constant the field cannot hold would compare
 * wrongly; a negative one against an unsigned field is written unsigned
 * (the same 64 bits) when the field has 64.  NULL: not exact.
 */
static const char *lf_constant(struct lf_ctx *c, const struct lf_side *k,
			       const struct lf_side *n)
{
	if (n->text[0] == '$')
		return n->text;
	if (k->unsigned_size && n->value < 0) {
		if (k->unsigned_size < 8)
			return lf_fail(c, "a negative constant against an unsigned field "
				       "narrower than 64 bits");
		return arena_printf(c->a, "%" PRIu64, (uint64_t)n->value);
	}
	if (!lf_fits(n->value, k->unsigned_size | k->signed_size, k->signed_size != 0))
		return lf_fail(c, "the constant does not fit the field's type (the kernel "
			       "would truncate it)");
	return n->text;
}

static const char *lf_band(struct lf_ctx *c, const struct ast_expr *e);
static struct lf_side lf_side(struct lf_ctx *c, const struct ast_expr *e);
static const char *lf_constant(struct lf_ctx *c, const struct lf_side *k,
			       const struct lf_side *n);

/*
 * syscall_name(F) compared with a string, as tests of the number F: "F
 * == a || F == b" when the names the table lacks ("") fail the test,
 * "F != a && ..." when they pass it.  NULL (and why) when @e is not such
 * a test or the kernel cannot do it.
 */
static const char *lf_syscall(struct lf_ctx *c, const struct ast_expr *e, bool *is)
{
	const struct ast_expr *arg;
	int64_t nrs[LF_MAX_SC];
	unsigned n, i;
	bool rest;
	struct lf_side k, v;
	const char *t = NULL, *val;

	*is = lw_sc_set(e, &arg, nrs, LF_MAX_SC, &n, &rest) == 0;
	if (!*is)
		return NULL;
	if ((e->op == AST_OP_MATCH || e->op == AST_OP_NOMATCH) &&
	    (c->flags & LOWER_FILTER_NO_REGEX))
		return lf_fail(c, "the script reads matched(): the match runs in user space");
	if (n > LF_MAX_SC)
		return lf_fail(c, "the test holds for too many system-call numbers for a "
			       "filter (more than 32)");
	k = lf_side(c, arg);
	if (k.kind != LF_NUM || k.constant)
		return lf_fail(c, "syscall_name() of something other than a numeric field");
	for (i = 0; i < n; i++) {
		v = (struct lf_side){ LF_NUM, true, false, arena_printf(c->a, "%lld",
				      (long long)nrs[i]), nrs[i], 0, 0, 0, 0 };
		if (!(val = lf_constant(c, &k, &v)))
			return NULL;
		val = arena_printf(c->a, "%s %s %s", k.text, rest ? "!=" : "==", val);
		t = !t ? val : arena_printf(c->a, "%s %s %s", t, rest ? "&&" : "||", val);
	}
	return t;	/* n == 0: lf_cond() folded it */
}

/* "field OP constant", or NULL. */
static const char *lf_compare(struct lf_ctx *c, const struct ast_expr *e)
{
	struct lf_side l, r, k, n;
	bool swapped, is_sc;
	const char *op = lf_op(e->op, false), *band, *val;
	int64_t zero;

	val = lf_syscall(c, e, &is_sc);
	if (is_sc)
		return val;

	/* (X & C) != 0 and (X & C) == 0: the kernel's "&" test. */
	if ((e->op == AST_OP_EQ || e->op == AST_OP_NE) &&
	    ((e->a->kind == AST_BINARY && e->a->op == AST_OP_BAND &&
	      lf_number(e->b, &zero) && zero == 0) ||
	     (e->b->kind == AST_BINARY && e->b->op == AST_OP_BAND &&
	      lf_number(e->a, &zero) && zero == 0))) {
		band = lf_band(c, e->a->kind == AST_BINARY ? e->a : e->b);
		if (!band)
			return NULL;
		return e->op == AST_OP_NE ? band : arena_printf(c->a, "!(%s)", band);
	}
	l = lf_side(c, e->a);
	r = lf_side(c, e->b);
	swapped = l.constant;
	k = swapped ? r : l;
	n = swapped ? l : r;
	op = lf_op(e->op, swapped);
	if (!op || k.kind == LF_NONE || n.kind == LF_NONE)
		return NULL;
	if (k.constant || !n.constant)
		return lf_fail(c, "the kernel compares a field with a constant only");
	if (n.kind != k.kind)
		return lf_fail(c, "a string compared with a number");
	if (k.kind == LF_STR && e->op != AST_OP_EQ && e->op != AST_OP_NE)
		return lf_fail(c, "the kernel orders no strings (only ==, != and globs)");
	/* A char[N] field equal to a string of N or more bytes: the kernel
	   compares N bytes only. */
	if (k.chars && n.len >= k.chars)
		return lf_fail(c, "the string is as long as the char array field or longer");
	/* Unsigned 64-bit fields order differently from stap's signed longs. */
	if (k.is_unsigned64 && e->op != AST_OP_EQ && e->op != AST_OP_NE)
		return lf_fail(c, "an unsigned 64-bit field orders differently from stap's "
			       "signed longs (only == and != are exact)");
	val = k.kind == LF_NUM ? lf_constant(c, &k, &n) : n.text;
	return val ? arena_printf(c->a, "%s %s %s", k.text, op, val) : NULL;
}

/*
 * "X & C" in a condition (nonzero): the kernel's "&" is the same test.
 * CPU has no "&" in the kernel (filter_pred_cpu rejects it).
 */
static const char *lf_band(struct lf_ctx *c, const struct ast_expr *e)
{
	struct lf_side l = lf_side(c, e->a), r = lf_side(c, e->b);
	const struct lf_side *k = l.constant ? &r : &l, *n = l.constant ? &l : &r;
	const char *val;

	if (k->kind == LF_NONE || n->kind == LF_NONE)
		return NULL;
	if (k->kind != LF_NUM || n->kind != LF_NUM || k->constant || !n->constant ||
	    n->text[0] == '$')
		return lf_fail(c, "the kernel's & tests a field with a numeric constant only");
	if (!strcmp(k->text, "CPU"))
		return lf_fail(c, "the kernel has no & on the CPU number");
	/* An 8-byte field: the same 64 bits either way. */
	if (k->unsigned_size == 8 && n->value < 0)
		return arena_printf(c->a, "%s & %" PRIu64, k->text, (uint64_t)n->value);
	val = lf_constant(c, k, n);
	return val ? arena_printf(c->a, "%s & %s", k->text, val) : NULL;
}

/*
 * A regular expression that is exactly a glob: literal characters with
 * optional ^ and $ anchors (stap's =~ finds the expression anywhere in
 * the string; a glob must match all of it, hence the '*'s).  NULL for
 * anything with other regex or glob meaning.
 */
static const char *lf_regex_glob(struct arena *a, const char *re, size_t len)
{
	bool start = len && re[0] == '^', end;
	size_t i;

	if (start) {
		re++;
		len--;
	}
	end = len && re[len - 1] == '$';
	if (end)
		len--;
	for (i = 0; i < len; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_-/:,@%=<>' ", re[i]) || re[i] == 0)
			return NULL;
	if (len > 240)
		return NULL;
	return arena_printf(a, "\"%s%.*s%s\"", start ? "" : "*", (int)len, re, end ? "" : "*");
}

/* "S =~ RE" / "S !~ RE" as "S ~ GLOB". */
static const char *lf_match(struct lf_ctx *c, const struct ast_expr *e)
{
	struct lf_side k;
	const char *glob;
	bool is_sc;

	glob = lf_syscall(c, e, &is_sc);
	if (is_sc)
		return glob;
	if (c->flags & LOWER_FILTER_NO_REGEX)
		return lf_fail(c, "the script reads matched(): the match runs in user space");
	k = lf_side(c, e->a);
	if (k.kind == LF_NONE)
		return NULL;
	if (k.kind != LF_STR || k.constant || e->b->kind != AST_STR)
		return lf_fail(c, "the kernel matches a string field with a constant "
			       "pattern only");
	glob = lf_regex_glob(c->a, e->b->str, e->b->len);
	if (!glob)
		return lf_fail(c, "the regular expression is not exactly a glob (only "
			       "literal characters with ^ and $ are)");
	return e->op == AST_OP_MATCH ? arena_printf(c->a, "%s ~ %s", k.text, glob) :
				       arena_printf(c->a, "!(%s ~ %s)", k.text, glob);
}

/* @a && @b or @a || @b, either of which may be "" (true). */
static const char *lf_join(struct lf_ctx *c, const char *l, const char *r, bool and)
{
	if (!*l || !*r)
		return and ? (*l ? l : r) : "";
	return arena_printf(c->a, "(%s) %s (%s)", l, and ? "&&" : "||", r);
}

static const char *lf_cond(struct lf_ctx *c, const struct ast_expr *e)
{
	const char *l, *r;
	struct lf_side k;
	int v = lw_pure(e) ? lw_fold_cond(e) : -1;

	if (v == 1)
		return "";
	if (v == 0)
		return lf_fail(c, "false for every event: the handler never runs");
	if (e->kind == AST_UNARY && e->op == AST_OP_NOT) {
		l = lf_cond(c, e->a);
		if (l && !*l)	/* not folded: impure */
			return lf_fail(c, "not a condition the kernel has");
		return l ? arena_printf(c->a, "!(%s)", l) : NULL;
	}
	if (e->kind == AST_BINARY) {
		switch (e->op) {
		case AST_OP_LAND: case AST_OP_LOR:
			/* a side false for every event: "a || false" is a */
			if (e->op == AST_OP_LOR && lw_pure(e->a) && lw_fold_cond(e->a) == 0)
				return lf_cond(c, e->b);
			if (e->op == AST_OP_LOR && lw_pure(e->b) && lw_fold_cond(e->b) == 0)
				return lf_cond(c, e->a);
			l = lf_cond(c, e->a);
			r = l ? lf_cond(c, e->b) : NULL;
			return r ? lf_join(c, l, r, e->op == AST_OP_LAND) : NULL;
		case AST_OP_EQ: case AST_OP_NE: case AST_OP_LT: case AST_OP_GT:
		case AST_OP_LE: case AST_OP_GE:
			return lf_compare(c, e);
		case AST_OP_MATCH: case AST_OP_NOMATCH:
			return lf_match(c, e);
		case AST_OP_BAND:
			return lf_band(c, e);
		default:
			break;
		}
	}
	/* A number as a condition: nonzero. */
	if (e->kind == AST_TARGET || e->kind == AST_CALL) {
		k = lf_side(c, e);
		if (k.kind == LF_NUM && !k.constant)
			return arena_printf(c->a, "%s != 0", k.text);
		if (k.kind != LF_NONE)
			return lf_fail(c, "not a condition the kernel has");
		return NULL;
	}
	return lf_fail(c, "not a comparison of an event field, tid(), cpu() or "
		       "execname() with a constant");
}

const char *lower_filter_explain(struct arena *a, const struct ast_expr *e,
				 const struct sem_probe *probe, unsigned flags, const char **why)
{
	struct lf_ctx c = { a, probe, NULL, flags };
	const char *text = lf_cond(&c, e);

	if (why)
		*why = text ? NULL : c.why ? c.why : "not a condition the kernel has";
	return text;
}

const char *lower_filter_text(struct arena *a, const struct ast_expr *e,
			      const struct sem_probe *probe)
{
	return lower_filter_explain(a, e, probe, 0, NULL);
}
