/*
 * sema_badvars.c - pass 2: --skip-badvars, stap's "ignore unresolvable
 * or run-time-inaccessible context variables and substitute with 0,
 * without errors" (man stap).
 *
 * sema_type.c runs, once its rounds have settled, one round with the
 * diagnostics muted (c->skipping); an expression of a kind below that
 * reports an error in it is replaced by a literal here, and the rounds go
 * on from there.  At that point what fails cannot be resolved by a later
 * round, so nothing a later step could read is replaced.
 */
#include "sema_int.h"
#include "ast_walk.h"

#include <string.h>

static int bv_is_target(struct ast_expr *e, void *arg)
{
	(void)arg;
	return e->kind == AST_TARGET || e->kind == AST_CAST || e->kind == AST_ATVAR ? -1 : 0;
}

/*
 * --skip-badvars: is @e what stap gives 0 for when it cannot be read?
 * A target, or a memory read through one or through the 0 one became
 * (not one through a value computed at run time: that stays an error).
 */
bool sema_badvar_kind(struct ast_expr *e)
{
	unsigned i;

	switch (e->kind) {
	case AST_TARGET: case AST_CAST: case AST_ATVAR: return true;
	case AST_UNARY: return e->op == AST_OP_ADDR;
	case AST_CALL:
		if (sema_mem_fn(e->str) == AST_MEM_NONE)
			return false;
		for (i = 0; i < e->args.n; i++)
			if ((e->args.v[i]->kind == AST_NUM && e->args.v[i]->num == 0) ||
			    ast_walk_expr(e->args.v[i], bv_is_target, NULL))
				return true;
		return false;
	default: return false;
	}
}

/*
 * --skip-badvars: @e, which could not be resolved (its errors are
 * forgotten: the round is muted), becomes 0, or "" for a pretty-printed
 * variable ($var$, $$vars) and a string read (kernel_string($bad)).
 */
enum sem_type sema_skip_badvar(struct sema_ctx *c, struct ast_expr *e)
{
	enum ast_mem m = e->kind == AST_CALL ? sema_mem_fn(e->str) : AST_MEM_NONE;
	bool str = m == AST_MEM_KSTRING || m == AST_MEM_USTRING ||
		   (e->kind == AST_TARGET && (e->chain.pretty || !strncmp(e->str, "$$", 2)));
	struct src_span at = e->span;

	memset(e, 0, sizeof(*e));
	e->kind = str ? AST_STR : AST_NUM;
	e->str = str ? "" : NULL;
	e->span = e->op_span = at;
	c->changed = true;
	return str ? SEM_STRING : SEM_LONG;
}
