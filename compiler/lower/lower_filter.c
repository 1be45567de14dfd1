/*
 * lower_filter.c - pass 3: guards the kernel can evaluate.
 *
 * A tracepoint probe's guard is its point's "if (cond)" and the leading
 * "if (C) next" statements of its body.  Each is split into conjuncts
 * (things that must all hold for the handler to run); a conjunct made of
 * comparisons between an event field, tid(), cpu() or execname() and a
 * constant (target() counts as one) becomes part of the event's filter,
 * written in the kernel's filter syntax.  pid() stays in user space:
 * events carry the thread id (common_pid) but not the process id, so no
 * filter can test pid() exactly.
 */
#include "lower.h"
#include "arena.h"
#include "resolve_tpfmt.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

enum lf_kind { LF_NONE, LF_NUM, LF_STR };

/* A side of a comparison: a kernel operand or a constant, as text. */
struct lf_side {
	enum lf_kind kind;
	bool constant;
	bool is_unsigned64;	/* an 8-byte unsigned field */
	const char *text;
	int64_t value;		/* a numeric constant's value */
	unsigned unsigned_size;	/* an unsigned field's size, else 0 */
	unsigned signed_size;	/* a signed field's size, else 0 */
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

static struct lf_side lf_side(struct arena *a, const struct ast_expr *e,
			      const struct sem_probe *probe)
{
	struct lf_side s = { LF_NONE, false, false, NULL, 0, 0, 0 };
	const struct tpf_field *f;
	int64_t v;

	if (lf_number(e, &v)) {
		s = (struct lf_side){ LF_NUM, true, false,
				      arena_printf(a, "%" PRId64, v), v, 0, 0 };
	} else if (e->kind == AST_STR) {
		s.text = lf_quote(a, e->str, e->len);
		s.kind = s.text ? LF_STR : LF_NONE;
		s.constant = true;
	} else if (lf_call(e, "target")) {
		s = (struct lf_side){ LF_NUM, true, false, "$TARGET", 0, 0, 0 };
	} else if (lf_call(e, "tid")) {
		s = (struct lf_side){ LF_NUM, false, false, "common_pid", 0, 0, 0 };
	} else if (lf_call(e, "cpu")) {
		s = (struct lf_side){ LF_NUM, false, false, "CPU", 0, 0, 0 };
	} else if (lf_call(e, "execname")) {
		s = (struct lf_side){ LF_STR, false, false, "COMM", 0, 0, 0 };
	} else if (e->kind == AST_TARGET && e->ref >= 0 && probe->event &&
		   !e->chain.pretty) {
		f = &probe->event->fields[e->ref];
		if (f->kind == TPF_INT)
			s = (struct lf_side){ LF_NUM, false, f->size == 8 && !f->is_signed,
					      f->name, 0, f->is_signed ? 0 : f->size,
					      f->is_signed ? f->size : 0 };
		else if (f->kind == TPF_CHARS || f->kind == TPF_DATALOC_STR)
			s = (struct lf_side){ LF_STR, false, false, f->name, 0, 0, 0 };
	}
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

/* "field OP constant", or NULL. */
static const char *lf_compare(struct arena *a, const struct ast_expr *e,
			      const struct sem_probe *probe)
{
	struct lf_side l = lf_side(a, e->a, probe), r = lf_side(a, e->b, probe);
	bool swapped = l.constant;
	struct lf_side k = swapped ? r : l, c = swapped ? l : r;
	const char *op = lf_op(e->op, swapped);

	if (!op || k.kind == LF_NONE || c.kind != k.kind || k.constant || !c.constant)
		return NULL;
	/* Strings: only equality; unsigned 64-bit fields order differently
	   from stap's signed longs, so they only take equality too. */
	if ((k.kind == LF_STR || k.is_unsigned64) &&
	    e->op != AST_OP_EQ && e->op != AST_OP_NE)
		return NULL;
	/* The kernel reads constants for unsigned fields as unsigned: a
	   negative one is the same 64 bits written unsigned, and cannot
	   match a narrower unsigned field at all (leave that to user space). */
	if (k.unsigned_size && c.kind == LF_NUM && c.value < 0 && c.text[0] == '-') {
		if (k.unsigned_size < 8)
			return NULL;
		c.text = arena_printf(a, "%" PRIu64, (uint64_t)c.value);
	}
	if (c.kind == LF_NUM && c.text[0] != '$' &&
	    !lf_fits(c.value, k.unsigned_size | k.signed_size, k.signed_size != 0))
		return NULL;
	return arena_printf(a, "%s %s %s", k.text, op, c.text);
}

const char *lower_filter_text(struct arena *a, const struct ast_expr *e,
			      const struct sem_probe *probe)
{
	const char *l, *r;

	if (e->kind == AST_UNARY && e->op == AST_OP_NOT) {
		l = lower_filter_text(a, e->a, probe);
		return l ? arena_printf(a, "!(%s)", l) : NULL;
	}
	if (e->kind != AST_BINARY)
		return NULL;
	if (e->op == AST_OP_LAND || e->op == AST_OP_LOR) {
		l = lower_filter_text(a, e->a, probe);
		r = l ? lower_filter_text(a, e->b, probe) : NULL;
		return r ? arena_printf(a, "(%s) %s (%s)", l,
					e->op == AST_OP_LAND ? "&&" : "||", r) : NULL;
	}
	return lf_compare(a, e, probe);
}
