/*
 * sema_prom.c - pass 2: $value in a prometheus probe.
 *
 * stap's prometheus probe is a procfs read probe, whose handler builds
 * the file's text in the string $value ('$value .= "..."', as the
 * @prometheus_dump_array macros of tapset/prometheus.stpm do).  ktap
 * answers an HTTP scrape instead (runtime/run_prom.c), and keeps the
 * answer in the runtime, not in a variable: the body is not cut to
 * MAXSTRINGLEN and each '.=' appends to it without copying what is
 * there.  So the handler's $value becomes calls of three builtins:
 *
 *   $value = X    __ktap_prometheus_set(X)
 *   $value .= X   __ktap_prometheus_append(X)
 *   $value        __ktap_prometheus_value()  (the answer so far)
 *
 * Any other write of $value is an error here.  The assignments have no
 * value (a void builtin), which no prometheus macro or example needs.
 */
#include "sema_int.h"
#include "ast_walk.h"
#include "arena.h"
#include "diag.h"

#include <string.h>

static bool prom_is_value(const struct ast_expr *e)
{
	return e && e->kind == AST_TARGET && !e->module && !e->chain.n && !e->chain.pretty &&
	       !strcmp(e->str, "$value");
}

/* @e becomes a call of @name with the argument @arg (or none). */
static void prom_call(struct sema_ctx *c, struct ast_expr *e, const char *name,
		      struct ast_expr *arg)
{
	struct ast_expr *call = ast_named(c->arena, AST_CALL, name, e->span);

	call->op_span = e->span;
	if (arg)
		ast_list_push(c->arena, &call->args, arg);
	*e = *call;
}

static int prom_rewrite_fn(struct ast_expr *e, void *arg)
{
	struct sema_ctx *c = arg;

	if (e->kind == AST_ASSIGN && prom_is_value(e->a)) {
		if (e->op != AST_OP_SET && e->op != AST_OP_CAT_SET) {
			/* said now: pass 2's later rounds see the call only */
			diag_error(c->diag, e->op_span, "$value of a prometheus probe is the "
				   "answer's text: assign it with '=' or append to it with '.='");
			prom_call(c, e, "__ktap_prometheus_value", NULL);
			return 1;
		}
		prom_call(c, e, e->op == AST_OP_SET ? "__ktap_prometheus_set" :
			  "__ktap_prometheus_append", e->b);
		return 0;	/* the operand may read $value */
	}
	if (prom_is_value(e))
		prom_call(c, e, "__ktap_prometheus_value", NULL);
	return 0;
}

void sema_prom_rewrite(struct sema_ctx *c, struct sem_probe *sp)
{
	ast_walk_stmt(sp->body, prom_rewrite_fn, c);
}
