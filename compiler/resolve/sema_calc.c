/*
 * sema_calc.c - pass 2: a target variable whose value DWARF computes
 * from a register (resolve_dwloc.c's fetch_calc) as the script's
 * arithmetic over the register's fetch argument.
 */
#include "sema_int.h"
#include "arena.h"
#include "fetch.h"

/*
 * $var whose value DWARF computes from a register (@f->calc: an
 * optimised "n * 3" that lives nowhere): the register's fetch argument,
 * then the computation as the script's arithmetic, cut to the
 * variable's type, as stap evaluates the DWARF expression at run time.
 */
enum sem_type sema_calc_expr(struct sema_ctx *c, struct ast_expr *e, const struct fetch *f)
{
	static const enum ast_op ops[] = {
		[FETCH_C_ADD] = AST_OP_ADD, [FETCH_C_SUB] = AST_OP_SUB, [FETCH_C_MUL] = AST_OP_MUL,
		[FETCH_C_DIV] = AST_OP_DIV, [FETCH_C_MOD] = AST_OP_MOD, [FETCH_C_AND] = AST_OP_BAND,
		[FETCH_C_OR] = AST_OP_BOR, [FETCH_C_XOR] = AST_OP_BXOR, [FETCH_C_SHL] = AST_OP_SHL,
		[FETCH_C_SHR] = AST_OP_USHR, [FETCH_C_SHRA] = AST_OP_SHR,
		[FETCH_C_NEG] = AST_OP_NEG, [FETCH_C_NOT] = AST_OP_BNOT,
	};
	const struct fetch_calc *k = f->calc;
	struct ast_expr *stack[16], *leaf, *x;
	struct src_span at = e->span;
	unsigned i, d = 0, sh = 64 - k->bits;

	leaf = ast_expr_new(c->arena, AST_TARGET, at);
	leaf->str = e->str;
	leaf->module = arena_printf(c->arena, "%s=%s", f->name, f->arg);
	for (i = 0; i < k->n; i++) {
		enum fetch_calc_op op = k->v[i].op;

		if (d == sizeof(stack) / sizeof(stack[0])) {
			sema_err(c, at, "%s: its DWARF computation is too deep for ktap", e->str);
			return SEM_UNKNOWN;
		}
		if (op == FETCH_C_VAL) {
			stack[d++] = leaf;
		} else if (op == FETCH_C_IMM) {
			stack[d++] = ast_num(c->arena, k->v[i].imm, at);
		} else if (op == FETCH_C_NEG || op == FETCH_C_NOT) {
			x = ast_expr_new(c->arena, AST_UNARY, at);
			x->op = ops[op];
			x->a = stack[d - 1];
			stack[d - 1] = x;
		} else {	/* dwloc_calc() checked the depths */
			d--;
			stack[d - 1] = ast_binary(c->arena, AST_BINARY, ops[op], stack[d - 1],
						  stack[d], at);
		}
	}
	x = stack[0];
	if (sh && k->is_signed)		/* the variable's width and sign */
		x = ast_binary(c->arena, AST_BINARY, AST_OP_SHR,
			       ast_binary(c->arena, AST_BINARY, AST_OP_SHL, x,
					  ast_num(c->arena, sh, at), at),
			       ast_num(c->arena, sh, at), at);
	else if (sh)
		x = ast_binary(c->arena, AST_BINARY, AST_OP_BAND, x,
			       ast_num(c->arena, (int64_t)((1ULL << k->bits) - 1), at), at);
	*e = *x;
	c->changed = true;
	return c->type_expr(c, e);
}
