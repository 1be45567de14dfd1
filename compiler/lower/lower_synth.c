/*
 * lower_synth.c - pass 3: what a synthetic event can carry from the
 * event that fires it (issue 12): the keys of a statistic as synthetic
 * fields, and a value as a hist expression.
 *
 * In: an expression of a probe's event.  Out: the synthetic field's type
 * and the onmatch().trace() parameter that fills it (lw_synth_key), or
 * the text of a hist variable's expression (lw_synth_expr).  Used by the
 * latency pairs (lower_latency.c) and by the aggregations whose value
 * the kernel must compute before summing it (lower_hist.c's value hop).
 */
#include "lower_int.h"
#include "arena.h"
#include "resolve_tpfmt.h"

#include <string.h>

bool lw_synth_key(const struct sem_probe *p, const struct ast_expr *e, struct lw_skey *sk)
{
	/* The kernel (6.1 check_synth_field) wants a parameter's type
	   spelled as the synthetic field's: the field's own C type, when
	   it is one a synthetic field can have (trace_events_synth.c). */
	static const char *const ok[] = {
		"s64", "u64", "s32", "u32", "s16", "u16", "s8", "u8", "char",
		"unsigned char", "int", "unsigned int", "long", "unsigned long",
		"bool", "pid_t", "gfp_t",
	};
	const struct tpf_field *f;
	size_t i;

	memset(sk, 0, sizeof(*sk));
	if (e->kind == AST_CALL && e->ref < 0 && !e->args.n) {
		switch (-e->ref - 1) {
		case IR_BI_TID: sk->k.kind = IR_HK_TID; break;
		case IR_BI_PID: sk->k.kind = IR_HK_PID; break;
		case IR_BI_EXECNAME: sk->k.kind = IR_HK_EXECNAME; sk->k.is_string = true; break;
		default: return false;
		}
		sk->k.is_signed = true;
		sk->k.size = 4;
		sk->type = "int";		/* common_pid's */
		sk->param = "common_pid";
		return true;
	}
	if (e->kind != AST_TARGET || e->ref < 0 || e->chain.n || e->chain.mem ||
	    (unsigned)e->ref >= p->event->nfields)
		return false;
	f = &p->event->fields[e->ref];
	if (f->kind == TPF_CHARS && f->ctype && !strcmp(f->ctype, "char") &&
	    f->size > 0 && f->size <= 256) {	/* MAX_FILTER_STR_VAL */
		sk->k = (struct ir_hkey){ .kind = IR_HK_FIELD, .is_string = true, .size = f->size };
		sk->type = "char";
		sk->len = f->size;
		sk->param = f->name;
		return true;
	}
	if (f->kind != TPF_INT || f->pointer || !f->ctype)
		return false;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]) && strcmp(ok[i], f->ctype); i++)
		;
	if (i == sizeof(ok) / sizeof(ok[0]))
		return false;
	sk->k = (struct ir_hkey){ .kind = IR_HK_FIELD, .is_signed = f->is_signed, .size = f->size };
	sk->type = f->ctype;
	sk->param = f->name;
	return true;
}

/* An operand: an integer field of @p's event or a constant >= 0. */
static const char *lw_synth_atom(struct lw_ctx *c, const struct sem_probe *p,
				 const struct ast_expr *e)
{
	const struct tpf_field *f;

	if (e->kind == AST_NUM)
		return e->num >= 0 ? arena_printf(c->arena, "%lld", (long long)e->num) : NULL;
	if (e->kind != AST_TARGET || e->ref < 0 || e->chain.n || e->chain.mem ||
	    (unsigned)e->ref >= p->event->nfields)
		return NULL;
	f = &p->event->fields[e->ref];
	return f->kind == TPF_INT ? f->name : NULL;
}

/*
 * @e as a hist expression: NULL when it has other operands or
 * operators, more than @max of them, or a shape the kernel's parser
 * would read otherwise (it has no parentheses and takes the rightmost
 * + or -, else the rightmost *, as the root: the right operand of + and
 * - must hold no + or -, both operands of * none, and the right one no
 * * either).  *@ops counts the operators; *@sum: + or - at the top.
 */
static const char *lw_synth_text(struct lw_ctx *c, const struct sem_probe *p,
				 const struct ast_expr *e, unsigned max, unsigned *ops, bool *sum)
{
	const char *a, *b;
	bool sa = false, sb = false;

	*sum = false;
	if (e->kind != AST_BINARY)
		return lw_synth_atom(c, p, e);
	if ((e->op != AST_OP_ADD && e->op != AST_OP_SUB && e->op != AST_OP_MUL) ||
	    ++*ops > max)
		return NULL;
	if (!(a = lw_synth_text(c, p, e->a, max, ops, &sa)) ||
	    !(b = lw_synth_text(c, p, e->b, max, ops, &sb)))
		return NULL;
	if (e->op == AST_OP_MUL && (sa || sb || e->b->kind == AST_BINARY))
		return NULL;
	if (sb)
		return NULL;
	*sum = e->op != AST_OP_MUL;
	return arena_printf(c->arena, "%s%s%s", a, e->op == AST_OP_ADD ? "+" :
			    e->op == AST_OP_SUB ? "-" : "*", b);
}

const char *lw_synth_expr(struct lw_ctx *c, const struct sem_probe *p, const struct ast_expr *e)
{
	unsigned ops = 0;
	bool sum;
	const char *t = lw_synth_text(c, p, e, LW_SYNTH_OPS, &ops, &sum);

	/* "0+" first: the kernel gives an expression its left operand's
	   type, a constant's is u64, so the value is the whole 64-bit
	   result (stap's), not truncated to an int field's size. */
	return t ? arena_printf(c->arena, "0+%s", t) : NULL;
}
