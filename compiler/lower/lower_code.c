/*
 * lower_code.c - pass 3: expressions and statements to bytecode.
 *
 * In: the typed AST of a probe or function body (sema).  Out: the
 * ir_code of the current probe or function (lw_ctx.code).  Expressions
 * compile to stack code that leaves one value; statements leave the
 * stack as they found it.  Every instruction records where it came from
 * so the runtime can say "near operator '/' at f.stp:3:9".  A leading
 * "if (C) next" whose guard the kernel filter evaluates entirely
 * (lower_guard.c) emits nothing.
 */
#include "lower_int.h"
#include "arena.h"
#include "diag.h"
#include "format.h"
#include "resolve_tpfmt.h"

#include <string.h>

/* ---- emission ---- */

uint32_t lw_loc(struct lw_ctx *c)
{
	struct ir_prog *ir = c->ir;
	const struct src_file *f = src_file(c->src, c->at.file);
	struct ir_loc *l;
	unsigned line = 0, col = 0;

	src_linecol(c->src, c->at.file, c->at.start, &line, &col);
	if (ir->nlocs) {
		l = &ir->locs[ir->nlocs - 1];
		if (l->line == line && l->col == col && l->near == c->near)
			return ir->nlocs - 1;
	}
	ir->locs = arena_grow(c->arena, ir->locs, ir->nlocs, &ir->lcap,
			      sizeof(*ir->locs));
	l = &ir->locs[ir->nlocs];
	l->file = f ? f->name : "<input>";
	l->line = line;
	l->col = col;
	l->near = c->near;
	return ir->nlocs++;
}

unsigned lw_emit(struct lw_ctx *c, enum ir_op op, unsigned n,
			unsigned a, int32_t b)
{
	struct ir_code *k = c->code;
	size_t lcap = k->cap;

	k->insns = arena_grow(c->arena, k->insns, k->n, &k->cap, sizeof(*k->insns));
	k->locs = arena_grow(c->arena, k->locs, k->n, &lcap, sizeof(*k->locs));
	k->insns[k->n] = (struct ir_insn){ (uint8_t)op, (uint8_t)n, (uint16_t)a, b };
	k->locs[k->n] = lw_loc(c);
	return k->n++;
}

void lw_patch(struct lw_ctx *c, unsigned at, unsigned target)
{
	c->code->insns[at].b = (int32_t)target;
}

unsigned lw_here(struct lw_ctx *c)
{
	return c->code->n;
}

/* Set the location for what follows: @e's operator or name. */
static void lw_at(struct lw_ctx *c, const struct ast_expr *e)
{
	c->at = e->op_span;
	switch (e->kind) {
	case AST_BINARY: case AST_ASSIGN: case AST_UNARY: case AST_INCDEC:
		c->near = arena_printf(c->arena, "operator '%s'", ast_op_spelling(e->op));
		break;
	case AST_VAR: case AST_CALL: case AST_INDEX:
		c->near = arena_printf(c->arena, "identifier '%s'",
				       e->kind == AST_INDEX && e->a->kind == AST_VAR ?
				       e->a->str : e->str ? e->str : "?");
		break;
	case AST_TARGET:	/* the read's own name, for its fault */
		c->near = !e->str_read ? "expression" : e->str_read == 2 ?
			  "identifier 'kernel_string'" : "identifier 'user_string'";
		break;
	default:
		c->near = "expression";
		break;
	}
}

static unsigned lw_const(struct lw_ctx *c, struct rt_value v)
{
	struct ir_prog *ir = c->ir;
	unsigned i;

	for (i = 0; i < ir->nconsts; i++) {
		const struct rt_value *k = &ir->consts[i];

		if (k->type == v.type && (v.type == RT_LONG ? k->l == v.l :
		    k->len == v.len && memcmp(k->s, v.s, v.len) == 0))
			return i;
	}
	ir->consts = arena_grow(c->arena, ir->consts, ir->nconsts, &ir->ccap,
				sizeof(*ir->consts));
	ir->consts[ir->nconsts] = v;
	return ir->nconsts++;
}

static void lw_push_long(struct lw_ctx *c, int64_t v)
{
	if (v >= INT32_MIN && v <= INT32_MAX)
		lw_emit(c, IR_PUSHI, 0, 0, (int32_t)v);
	else
		lw_emit(c, IR_PUSHC, 0, 0, (int32_t)lw_const(c, rt_long(v)));
}

static void lw_push_str(struct lw_ctx *c, const char *s, size_t len)
{
	lw_emit(c, IR_PUSHC, 0, 0, (int32_t)lw_const(c, rt_str(s, (uint32_t)len)));
}

enum rt_type lw_rt(int t)
{
	return t == SEM_STRING ? RT_STRING : t == SEM_STATS ? RT_STATS : RT_LONG;
}

static unsigned lw_new_slot(struct lw_ctx *c)
{
	return c->nslots++;
}


/* ---- expressions ---- */

void lw_expr(struct lw_ctx *c, const struct ast_expr *e);

static void lw_keys(struct lw_ctx *c, const struct ast_list *keys, unsigned *mask)
{
	unsigned i;

	if (mask)
		*mask = 0;
	for (i = 0; i < keys->n; i++) {
		if (keys->v[i]->kind == AST_STAR) {
			lw_emit(c, IR_PUSHI, 0, 0, 0);
			if (mask)
				*mask |= 1u << i;
		} else {
			lw_expr(c, keys->v[i]);
		}
	}
}

static bool lw_is_global(const struct sem_sym *s)
{
	return s && s->kind == SEM_GLOBAL;
}

static void lw_var(struct lw_ctx *c, const struct ast_expr *e)
{
	lw_at(c, e);
	lw_emit(c, lw_is_global(e->sym) ? IR_LDG : IR_LDL, 0, e->sym->slot, 0);
}

/* The index of event field @ref in the probe's field list. */
static unsigned lw_field(struct lw_ctx *c, int ref)
{
	const struct tpf_field *f = &c->event->fields[ref];
	struct ir_probe *p = c->irp;
	/* a byte buffer: the reader's "NAME[]", all of the array's bytes */
	const char *name = f->bytes ? arena_printf(c->arena, "%s[]", f->name) : f->name;
	unsigned i;

	for (i = 0; i < p->nfields; i++)
		if (strcmp(p->fields[i].name, name) == 0)
			return i;
	p->fields = arena_grow(c->arena, p->fields, p->nfields, &(size_t){ p->nfields },
			       sizeof(*p->fields));
	p->fields[p->nfields].name = name;
	p->fields[p->nfields].type = f->kind == TPF_INT ? RT_LONG : RT_STRING;
	return p->nfields++;
}

/* Is @e (a field's target or @cast) a kernel_string()/user_string()
   read of a string the kernel may have failed to copy (sfield, sfieldor)? */
static bool lw_is_str_read(const struct lw_ctx *c, const struct ast_expr *e)
{
	const struct tpf_field *f;

	if (!e->str_read || e->ref < 0)
		return false;
	f = &c->event->fields[e->ref];
	return f->kind != TPF_INT && f->percpu < 2;
}

static void lw_target(struct lw_ctx *c, const struct ast_expr *e)
{
	unsigned n, k, first;

	lw_at(c, e);
	if (e->ref < 0) {
		lw_emit(c, IR_PARMS, 0, 0, 0);
		return;
	}
	n = c->event->fields[e->ref].percpu;
	first = lw_field(c, e->ref);
	if (lw_is_str_read(c, e)) {
		if (!e->on_fault) {
			lw_emit(c, IR_SFIELD, e->str_read, first, 0);
			return;
		}
		lw_expr(c, e->on_fault);
		lw_at(c, e);
		lw_emit(c, IR_SFIELDOR, 0, first, 0);
		return;
	}
	if (n < 2) {
		lw_emit(c, IR_FIELD, 0, first, 0);
		return;
	}
	/* A read through task_current(): its CPUs' copies, consecutive in
	   the probe's fields as they are in the event's (sema_current.c). */
	for (k = 1; k < n; k++)
		lw_field(c, e->ref + (int)k);
	lw_emit(c, IR_PCPUFIELD, n, first, 0);
}

/* @hist_log(a[k])[b]: bucket b's count (0 outside the buckets). */
static void lw_hist_bucket(struct lw_ctx *c, const struct ast_expr *h,
			   const struct ast_expr *bucket)
{
	/* the symbol is the array's, on its VAR */
	const struct sem_sym *s = h->a->kind == AST_INDEX ? h->a->a->sym : h->a->sym;

	if (h->a->kind == AST_INDEX)
		lw_keys(c, &h->a->args, NULL);
	lw_expr(c, bucket);
	lw_at(c, h->a);		/* the statistic, named in its errors */
	lw_emit(c, IR_HBUCKET, h->a->kind == AST_INDEX ? h->a->args.n : 0,
		s->slot, h->op == AST_OP_HIST_LOG ? IR_HIST_LOG : IR_HIST_LINEAR);
}

static void lw_index(struct lw_ctx *c, const struct ast_expr *e)
{
	if (e->a->kind == AST_HIST) {
		lw_hist_bucket(c, e->a, e->args.v[0]);
		return;
	}
	lw_keys(c, &e->args, NULL);
	lw_at(c, e);
	lw_emit(c, IR_AGET, e->args.n, e->a->sym->slot, 0);
}

static const enum ir_op lw_binops[AST_OP__COUNT] = {
	[AST_OP_ADD] = IR_ADD, [AST_OP_SUB] = IR_SUB, [AST_OP_MUL] = IR_MUL,
	[AST_OP_DIV] = IR_DIV, [AST_OP_MOD] = IR_MOD, [AST_OP_SHL] = IR_SHL,
	[AST_OP_SHR] = IR_SHR, [AST_OP_USHR] = IR_USHR, [AST_OP_BAND] = IR_BAND, [AST_OP_BOR] = IR_BOR,
	[AST_OP_BXOR] = IR_BXOR, [AST_OP_CONCAT] = IR_CAT,
	[AST_OP_LT] = IR_LT, [AST_OP_GT] = IR_GT, [AST_OP_LE] = IR_LE,
	[AST_OP_GE] = IR_GE, [AST_OP_EQ] = IR_EQ, [AST_OP_NE] = IR_NE,
};

/* a && b, a || b: 0 or 1, the right side only when needed. */
static void lw_logical(struct lw_ctx *c, const struct ast_expr *e)
{
	bool and = e->op == AST_OP_LAND;
	unsigned j1, j2, jend;

	lw_expr(c, e->a);
	j1 = lw_emit(c, and ? IR_JZ : IR_JNZ, 0, 0, 0);
	lw_expr(c, e->b);
	j2 = lw_emit(c, and ? IR_JZ : IR_JNZ, 0, 0, 0);
	lw_emit(c, IR_PUSHI, 0, 0, and ? 1 : 0);
	jend = lw_emit(c, IR_JMP, 0, 0, 0);
	lw_patch(c, j1, lw_here(c));
	lw_patch(c, j2, lw_here(c));
	lw_emit(c, IR_PUSHI, 0, 0, and ? 0 : 1);
	lw_patch(c, jend, lw_here(c));
}

static unsigned lw_regex(struct lw_ctx *c, const struct ast_expr *re)
{
	struct ir_prog *ir = c->ir;

	ir->regexes = arena_grow(c->arena, ir->regexes, ir->nregexes, &ir->rcap,
				 sizeof(*ir->regexes));
	ir->regexes[ir->nregexes] = arena_strndup(c->arena, re->str, re->len);
	return ir->nregexes++;
}

static void lw_binary(struct lw_ctx *c, const struct ast_expr *e)
{
	enum ir_op op = lw_binops[e->op];

	if (e->op == AST_OP_LAND || e->op == AST_OP_LOR) {
		lw_logical(c, e);
		return;
	}
	lw_expr(c, e->a);
	if (e->op == AST_OP_MATCH || e->op == AST_OP_NOMATCH) {
		lw_at(c, e);
		lw_emit(c, IR_MATCH, 0, e->op == AST_OP_NOMATCH, (int32_t)lw_regex(c, e->b));
		return;
	}
	lw_expr(c, e->b);
	if (op >= IR_LT && op <= IR_NE && e->a->type == SEM_STRING)
		op = (enum ir_op)(op - IR_LT + IR_SLT);
	lw_at(c, e);
	lw_emit(c, op, 0, 0, 0);
}

static void lw_ternary(struct lw_ctx *c, const struct ast_expr *e)
{
	unsigned jelse, jend;

	lw_expr(c, e->a);
	jelse = lw_emit(c, IR_JZ, 0, 0, 0);
	lw_expr(c, e->b);
	jend = lw_emit(c, IR_JMP, 0, 0, 0);
	lw_patch(c, jelse, lw_here(c));
	lw_expr(c, e->c);
	lw_patch(c, jend, lw_here(c));
}

static int lw_sub(enum ast_op op)
{
	switch (op) {
	case AST_OP_ADD_SET: return IR_SUB_ADD;
	case AST_OP_SUB_SET: return IR_SUB_SUB;
	case AST_OP_MUL_SET: return IR_SUB_MUL;
	case AST_OP_DIV_SET: return IR_SUB_DIV;
	case AST_OP_MOD_SET: return IR_SUB_MOD;
	case AST_OP_SHL_SET: return IR_SUB_SHL;
	case AST_OP_SHR_SET: return IR_SUB_SHR;
	case AST_OP_AND_SET: return IR_SUB_AND;
	case AST_OP_XOR_SET: return IR_SUB_XOR;
	case AST_OP_OR_SET: return IR_SUB_OR;
	case AST_OP_CAT_SET: return IR_SUB_CAT;
	default: return IR_SUB_ADD;
	}
}

/* Store the value on the stack into @lv (which stays on the stack). */
static void lw_store(struct lw_ctx *c, const struct ast_expr *lv,
		     const struct ast_expr *e, int sub, bool stat)
{
	const struct sem_sym *s = lv->kind == AST_VAR ? lv->sym : lv->a->sym;
	unsigned n = lv->kind == AST_INDEX ? lv->args.n : 0;
	enum ir_op op;

	/* An array's store fails on the array ("Array overflow ... near
	   identifier 'a'", as stap places it), a scalar's on the operator. */
	lw_at(c, lv->kind == AST_INDEX ? lv : e);
	if (lv->kind == AST_INDEX)
		op = stat ? IR_ASADD : sub >= 0 ? IR_AOP : IR_ASET;
	else if (lw_is_global(s))
		op = stat ? IR_SADD : sub >= 0 ? IR_OPG : IR_STG;
	else
		op = sub >= 0 ? IR_OPL : IR_STL;
	if (stat && !lw_is_global(s))
		diag_error(c->diag, lv->span, "statistics must be global variables");
	lw_emit(c, op, n, s->slot, sub >= 0 ? sub : 0);
}

static void lw_assign(struct lw_ctx *c, const struct ast_expr *e)
{
	const struct ast_expr *lv = e->a;

	if (lv->kind == AST_INDEX)
		lw_keys(c, &lv->args, NULL);
	lw_expr(c, e->b);
	lw_store(c, lv, e, e->op == AST_OP_SET || e->op == AST_OP_STAT_ADD ? -1 :
		 lw_sub(e->op), e->op == AST_OP_STAT_ADD);
}

static void lw_incdec(struct lw_ctx *c, const struct ast_expr *e)
{
	bool inc = e->op == AST_OP_PREINC || e->op == AST_OP_POSTINC;
	bool post = e->op == AST_OP_POSTINC || e->op == AST_OP_POSTDEC;

	if (e->a->kind == AST_INDEX)
		lw_keys(c, &e->a->args, NULL);
	lw_emit(c, IR_PUSHI, 0, 0, 1);
	lw_store(c, e->a, e, (inc ? IR_SUB_ADD : IR_SUB_SUB) | (post ? IR_SUB_OLD : 0),
		 false);
}

static void lw_in(struct lw_ctx *c, const struct ast_expr *e)
{
	unsigned mask;

	/* stap: 'b in @hist_log(s)' is true where '@hist_log(s)[b]' is not 0 */
	if (e->a->kind == AST_HIST && e->args.n == 1) {
		lw_hist_bucket(c, e->a, e->args.v[0]);
		lw_emit(c, IR_PUSHI, 0, 0, 0);
		lw_emit(c, IR_NE, 0, 0, 0);
		return;
	}
	if (e->a->kind != AST_VAR) {
		diag_error(c->diag, e->span, "'in' on a histogram takes one bucket number");
		return;
	}
	lw_keys(c, &e->args, &mask);
	lw_at(c, e);
	lw_emit(c, IR_AIN, e->args.n, e->a->sym->slot, (int32_t)mask);
}

static void lw_stat(struct lw_ctx *c, const struct ast_expr *e)
{
	const struct ast_expr *x = e->a;
	const struct sem_sym *s = x->kind == AST_VAR ? x->sym : x->a->sym;
	int op = e->op - AST_OP_COUNT;

	if (op == IR_STAT_SUM && c->empty_sum_error)
		op = IR_STAT_SUM_NONEMPTY;
	lw_at(c, x);
	if (!lw_is_global(s)) {
		diag_error(c->diag, x->span, "statistics must be global variables");
		return;
	}
	if (x->kind == AST_INDEX) {
		lw_keys(c, &x->args, NULL);
		lw_emit(c, IR_ASGET, x->args.n, s->slot, op);
	} else {
		lw_emit(c, IR_SGET, 0, s->slot, op);
	}
}

static void lw_hist(struct lw_ctx *c, const struct ast_expr *e)
{
	const struct ast_expr *x = e->a;
	const struct sem_sym *s = x->kind == AST_VAR ? x->sym : x->a->sym;

	if (!lw_is_global(s)) {
		diag_error(c->diag, x->span, "statistics must be global variables");
		return;
	}
	if (x->kind == AST_INDEX)
		lw_keys(c, &x->args, NULL);
	lw_at(c, x);
	lw_emit(c, IR_HIST, x->kind == AST_INDEX ? x->args.n : 0, s->slot,
		e->op == AST_OP_HIST_LOG ? IR_HIST_LOG : IR_HIST_LINEAR);
}

/*
 * printf/sprintf's format compiled for the runtime: its index in
 * ir->formats.  Pass 2 checked it (sema_format.c), so it compiles.
 */
static int lw_format(struct lw_ctx *c, const struct ast_expr *call)
{
	struct ir_prog *ir = c->ir;
	struct fmt_error err;
	struct fmt_spec *fs;

	fs = fmt_compile(call->args.v[0]->str, call->args.v[0]->len, arena_alloc_cb, c->arena,
			 &err);
	if (!fs)
		diag_error(c->diag, call->span, "%s", err.msg);
	else if (c->old_pointers)
		fmt_old_pointers(fs);
	ir->formats = arena_grow(c->arena, ir->formats, ir->nformats, &ir->fmcap,
				 sizeof(*ir->formats));
	ir->formats[ir->nformats] = fs;
	return (int)ir->nformats++;
}

/*
 * substr(R, START, LEN) of user_string_n(A, N, ERR) (sema_spec.c), R a
 * string the kernel copied: ERR when the kernel could not, uncut, as
 * stap's; else the cut of R.  False when @e is no such call.
 */
static bool lw_cut_or(struct lw_ctx *c, const struct ast_expr *e)
{
	const struct ast_expr *r = e->args.n == 3 ? e->args.v[0] : NULL;

	if (!e->on_fault || !r || r->kind != AST_TARGET || !lw_is_str_read(c, r))
		return false;
	lw_expr(c, e->on_fault);
	lw_expr(c, e->args.v[1]);
	lw_expr(c, e->args.v[2]);
	lw_at(c, r);
	lw_emit(c, IR_SFIELDOR, 2, lw_field(c, r->ref), 0);
	return true;
}

static void lw_call(struct lw_ctx *c, const struct ast_expr *e)
{
	unsigned i;

	if (lw_cut_or(c, e))
		return;
	if (e->ref >= 0) {
		for (i = 0; i < e->args.n; i++)
			lw_expr(c, e->args.v[i]);
		lw_at(c, e);
		lw_emit(c, IR_CALL, e->args.n, 0, e->ref);
		return;
	}
	if ((!strcmp(e->str, "printf") || !strcmp(e->str, "sprintf"))) {
		int f = lw_format(c, e);

		for (i = 1; i < e->args.n; i++)
			lw_expr(c, e->args.v[i]);
		lw_at(c, e);
		lw_emit(c, e->str[0] == 'p' ? IR_PRINTF : IR_SPRINTF, e->args.n - 1, 0, f);
		return;
	}
	for (i = 0; i < e->args.n; i++)
		lw_expr(c, e->args.v[i]);
	lw_at(c, e);
	lw_emit(c, IR_BI, e->args.n, (unsigned)(-e->ref - 1), 0);
}

void lw_expr(struct lw_ctx *c, const struct ast_expr *e)
{
	switch (e->kind) {
	case AST_NUM: lw_push_long(c, e->num); break;
	case AST_STR: lw_push_str(c, e->str, e->len); break;
	case AST_VAR: lw_var(c, e); break;
	case AST_INDEX: lw_index(c, e); break;
	case AST_CALL: lw_call(c, e); break;
	case AST_TARGET: case AST_CAST: lw_target(c, e); break;
	case AST_ENTRY:	/* computed by the entry probe (lw_entry_probe) */
		lw_at(c, e);
		lw_emit(c, IR_ENTRY, 0, (unsigned)e->ref, 0);
		break;
	case AST_UNARY:
		if (e->op == AST_OP_ADDR) {	/* &$p->m: a fetched base + offset */
			lw_target(c, e);
			lw_push_long(c, e->num);
			lw_emit(c, IR_ADD, 0, 0, 0);
			break;
		}
		lw_expr(c, e->a);
		lw_at(c, e);
		if (e->op == AST_OP_NEG)
			lw_emit(c, IR_NEG, 0, 0, 0);
		else if (e->op == AST_OP_NOT)
			lw_emit(c, IR_LNOT, 0, 0, 0);
		else if (e->op == AST_OP_BNOT)
			lw_emit(c, IR_BNOT, 0, 0, 0);
		break;
	case AST_BINARY: lw_binary(c, e); break;
	case AST_TERNARY: lw_ternary(c, e); break;
	case AST_ASSIGN: lw_assign(c, e); break;
	case AST_INCDEC: lw_incdec(c, e); break;
	case AST_IN: lw_in(c, e); break;
	case AST_STAT: lw_stat(c, e); break;
	case AST_HIST: lw_hist(c, e); break;
	default:
		diag_error(c->diag, e->span, "internal error: cannot lower this expression");
		lw_emit(c, IR_PUSHI, 0, 0, 0);
		break;
	}
}

/* ---- statements ---- */

void lw_stmt(struct lw_ctx *c, const struct ast_stmt *s);

static void lw_loop_open(struct lw_ctx *c)
{
	memset(&c->loops[c->nloops], 0, sizeof(c->loops[0]));
	c->loops[c->nloops].tries = c->tries;
	c->nloops++;
}

/* Close a loop: breaks go to @brk, continues to @cont. */
static void lw_loop_close(struct lw_ctx *c, unsigned cont, unsigned brk)
{
	struct lw_loop *l = &c->loops[--c->nloops];
	unsigned i;

	for (i = 0; i < l->nbreaks; i++)
		lw_patch(c, l->breaks[i], brk);
	for (i = 0; i < l->nconts; i++)
		lw_patch(c, l->conts[i], cont);
}

static void lw_jump_out(struct lw_ctx *c, const struct ast_stmt *s)
{
	struct lw_loop *l = &c->loops[c->nloops - 1];
	unsigned j, k;

	/* Leaving try blocks inside the loop ends them: a continue left
	   their frames behind, one per round, until "nested too deeply". */
	for (k = l->tries; k < c->tries; k++)
		lw_emit(c, IR_TRYEND, 0, 0, 0);
	j = lw_emit(c, IR_JMP, 0, 0, 0);

	if (s->kind == AST_S_BREAK) {
		l->breaks = arena_grow(c->arena, l->breaks, l->nbreaks, &l->bcap,
				       sizeof(*l->breaks));
		l->breaks[l->nbreaks++] = j;
	} else {
		l->conts = arena_grow(c->arena, l->conts, l->nconts, &l->ccap,
				      sizeof(*l->conts));
		l->conts[l->nconts++] = j;
	}
}

static void lw_expr_stmt(struct lw_ctx *c, const struct ast_expr *e)
{
	lw_expr(c, e);
	lw_emit(c, IR_POP, 0, 0, 0);
}

static void lw_if(struct lw_ctx *c, const struct ast_stmt *s)
{
	unsigned jelse, jend;

	lw_expr(c, s->e);
	jelse = lw_emit(c, IR_JZ, 0, 0, 0);
	lw_stmt(c, s->s1);
	if (!s->s2) {
		lw_patch(c, jelse, lw_here(c));
		return;
	}
	jend = lw_emit(c, IR_JMP, 0, 0, 0);
	lw_patch(c, jelse, lw_here(c));
	lw_stmt(c, s->s2);
	lw_patch(c, jend, lw_here(c));
}

/*
 * One action for each iteration, before the condition, as stap counts
 * them (its translator records one at every loop's top label): a loop
 * with an empty body still ends at MAXACTION instead of spinning.
 */
static void lw_iteration_tick(struct lw_ctx *c, const struct ast_stmt *s)
{
	c->at = s->span;
	c->near = "keyword";
	lw_emit(c, IR_TICK, 0, 0, 0);
}

static void lw_while(struct lw_ctx *c, const struct ast_stmt *s)
{
	unsigned top = lw_here(c), jend;

	lw_loop_open(c);
	lw_iteration_tick(c, s);
	lw_expr(c, s->e);
	jend = lw_emit(c, IR_JZ, 0, 0, 0);
	lw_stmt(c, s->s1);
	lw_emit(c, IR_JMP, 0, 0, (int32_t)top);
	lw_patch(c, jend, lw_here(c));
	lw_loop_close(c, top, lw_here(c));
}

static void lw_for(struct lw_ctx *c, const struct ast_stmt *s)
{
	unsigned top, jend = ~0u, cont;

	/* INIT and STEP are statements of their own to stap, an action
	   each: a round of "for (;; i++)" costs two. */
	if (s->e) {
		lw_iteration_tick(c, s);
		lw_expr_stmt(c, s->e);
	}
	top = lw_here(c);
	lw_loop_open(c);
	lw_iteration_tick(c, s);
	if (s->e2) {
		lw_expr(c, s->e2);
		jend = lw_emit(c, IR_JZ, 0, 0, 0);
	}
	lw_stmt(c, s->s1);
	cont = lw_here(c);
	if (s->e3) {
		lw_iteration_tick(c, s);
		lw_expr_stmt(c, s->e3);
	}
	lw_emit(c, IR_JMP, 0, 0, (int32_t)top);
	if (jend != ~0u)
		lw_patch(c, jend, lw_here(c));
	lw_loop_close(c, cont, lw_here(c));
}

static unsigned lw_foreach_desc(struct lw_ctx *c, const struct ast_foreach *fe)
{
	struct ir_prog *ir = c->ir;
	struct ir_foreach *d;
	unsigned i;

	ir->foreachs = arena_grow(c->arena, ir->foreachs, ir->nforeachs, &ir->fecap,
				  sizeof(*ir->foreachs));
	d = &ir->foreachs[ir->nforeachs];
	memset(d, 0, sizeof(*d));
	d->hist = fe->array->kind == AST_HIST;
	if (d->hist) {
		const struct ast_expr *x = fe->array->a;

		d->global = (x->kind == AST_VAR ? x->sym : x->a->sym)->slot;
		d->hist_kind = fe->array->op == AST_OP_HIST_LOG ? IR_HIST_LOG : IR_HIST_LINEAR;
	} else {
		d->global = fe->array->sym->slot;
	}
	d->nkeys = fe->keys.n;
	d->sort_key = fe->sort_key;
	d->sort_dir = fe->sort_dir;
	d->sort_stat = fe->has_sort_stat ? (enum ir_stat)(fe->sort_stat - AST_OP_COUNT) :
		       IR_STAT_COUNT;
	d->has_limit = fe->limit != NULL;
	d->has_slice = fe->has_slice;
	d->want_value = fe->value != NULL;
	for (i = 0; i < fe->slice.n; i++)
		if (fe->slice.v[i]->kind == AST_STAR)
			d->slice_mask |= 1u << i;
	return ir->nforeachs++;
}

static void lw_store_local(struct lw_ctx *c, const struct ast_expr *v)
{
	lw_emit(c, lw_is_global(v->sym) ? IR_STG : IR_STL, 0, v->sym->slot, 0);
	lw_emit(c, IR_POP, 0, 0, 0);
}

static void lw_foreach(struct lw_ctx *c, const struct ast_stmt *s)
{
	const struct ast_foreach *fe = s->fe;
	unsigned it = lw_new_slot(c), desc = lw_foreach_desc(c, fe), top, jdone, i;

	if (fe->array->kind == AST_HIST && fe->array->a->kind == AST_INDEX)
		lw_keys(c, &fe->array->a->args, NULL);
	if (fe->has_slice)
		lw_keys(c, &fe->slice, NULL);
	if (fe->limit)
		lw_expr(c, fe->limit);
	c->at = s->span;
	c->near = "foreach";
	lw_emit(c, IR_FEINIT, 0, it, (int32_t)desc);
	top = lw_here(c);
	lw_loop_open(c);
	lw_iteration_tick(c, s);
	c->near = "foreach";
	jdone = lw_emit(c, IR_FENEXT, 0, it, 0);
	/* FENEXT pushes the keys then the value: store them in reverse. */
	if (fe->value)
		lw_store_local(c, fe->value);
	for (i = fe->keys.n; i-- > 0;)
		lw_store_local(c, fe->keys.v[i]);
	lw_stmt(c, fe->body);
	lw_emit(c, IR_JMP, 0, 0, (int32_t)top);
	lw_patch(c, jdone, lw_here(c));
	lw_loop_close(c, top, lw_here(c));
	lw_emit(c, IR_FEEND, 0, it, 0);
}

static void lw_delete(struct lw_ctx *c, const struct ast_expr *e)
{
	unsigned mask;

	if (e->kind == AST_INDEX) {
		lw_keys(c, &e->args, &mask);
		lw_at(c, e);
		lw_emit(c, IR_ADEL, e->args.n, e->a->sym->slot, (int32_t)mask);
	} else if (lw_is_global(e->sym)) {
		lw_at(c, e);
		lw_emit(c, e->sym->is_array ? IR_ACLEAR : IR_DELG, 0, e->sym->slot, 0);
	} else {
		lw_at(c, e);
		lw_emit(c, IR_DELL, 0, e->sym->slot, 0);
	}
}

static void lw_try(struct lw_ctx *c, const struct ast_stmt *s)
{
	unsigned msg = lw_new_slot(c), jtry, jend;
	const struct sem_sym *var = NULL;
	struct sem_sym **v = c->func ? c->func->locals : c->probe->locals;
	unsigned n = c->func ? c->func->nlocals : c->probe->nlocals, i;

	for (i = 0; s->name && i < n; i++)
		if (strcmp(v[i]->name, s->name) == 0)
			var = v[i];
	jtry = lw_emit(c, IR_TRY, 0, var ? var->slot : msg, 0);
	c->tries++;
	lw_stmt(c, s->s1);
	c->tries--;
	lw_emit(c, IR_TRYEND, 0, 0, 0);
	jend = lw_emit(c, IR_JMP, 0, 0, 0);
	lw_patch(c, jtry, lw_here(c));
	lw_stmt(c, s->s2);
	lw_patch(c, jend, lw_here(c));
}

/* Is @s an "if (C) next" whose guard went to the kernel entirely? */
static bool lw_guard_done(struct lw_ctx *c, const struct ast_stmt *s)
{
	const struct lw_probe_guards *g;
	unsigned i, found = 0;

	if (!c->probe || c->func || !c->guards)
		return false;
	g = &c->guards[c->probe->index];
	if (!g->removable || s == g->wrap)
		return false;
	for (i = 0; i < g->n; i++) {
		if (g->v[i].origin != s)
			continue;
		if (!g->v[i].filter)
			return false;
		found++;
	}
	return found > 0;
}

/* Is @s the handler's single "if (C) S" whose kernel conjuncts are done? */
static bool lw_is_wrap(struct lw_ctx *c, const struct ast_stmt *s)
{
	const struct lw_probe_guards *g;

	if (!c->probe || c->func || !c->guards || c->probe->kind != SEM_P_TRACE)
		return false;
	g = &c->guards[c->probe->index];
	return g->removable && s == g->wrap;
}

void lw_stmt(struct lw_ctx *c, const struct ast_stmt *s)
{
	unsigned i;

	if (!s)
		return;
	c->at = s->span;
	c->near = "statement";
	if (s->kind != AST_S_BLOCK && s->kind != AST_S_NULL && !lw_guard_done(c, s))
		lw_emit(c, IR_TICK, 0, 0, 0);
	switch (s->kind) {
	case AST_S_BLOCK:
		for (i = 0; i < s->body.n; i++)
			lw_stmt(c, s->body.v[i]);
		break;
	case AST_S_EXPR: lw_expr_stmt(c, s->e); break;
	case AST_S_IF:
		if (lw_is_wrap(c, s))
			lw_wrap_if(c, s);
		else if (!lw_guard_done(c, s))
			lw_if(c, s);
		break;
	case AST_S_WHILE: lw_while(c, s); break;
	case AST_S_FOR: lw_for(c, s); break;
	case AST_S_FOREACH: lw_foreach(c, s); break;
	case AST_S_BREAK: case AST_S_CONTINUE: lw_jump_out(c, s); break;
	case AST_S_NEXT: lw_emit(c, IR_NEXT, 0, 0, 0); break;
	case AST_S_RETURN:
		if (s->e) {
			lw_expr(c, s->e);
			lw_emit(c, IR_RET, 0, 0, 0);
		} else {
			lw_emit(c, IR_RETV, 0, 0, 0);
		}
		break;
	case AST_S_DELETE: lw_delete(c, s->e); break;
	case AST_S_TRY: lw_try(c, s); break;
	default: break;
	}
}

void lw_wrap_if(struct lw_ctx *c, const struct ast_stmt *s)
{
	const struct lw_probe_guards *g = &c->guards[c->probe->index];
	unsigned i, j;

	for (i = 0; i < g->n; i++) {
		if (g->v[i].origin != s || (g->removable && g->v[i].filter))
			continue;
		c->at = g->v[i].expr->span;
		lw_expr(c, g->v[i].expr);
		j = lw_emit(c, IR_JNZ, 0, 0, 0);
		lw_emit(c, IR_NEXT, 0, 0, 0);
		lw_patch(c, j, lw_here(c));
	}
	lw_stmt(c, s->s1);
}
