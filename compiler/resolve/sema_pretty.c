/*
 * sema_pretty.c - pass 2: stap's pretty-printed target variables ($var$,
 * $var$$, $$vars, @cast(...)$): the string built from the pieces
 * resolve_pretty.c decides, each value a fetch of the probe.
 */
#include "sema_int.h"
#include "arena.h"
#include "resolve_pretty.h"

#include <string.h>

static struct ast_expr *pp_lit(struct sema_ctx *c, const char *s, struct src_span at)
{
	return ast_str(c->arena, s, strlen(s), at);
}

static struct ast_expr *pp_cat(struct sema_ctx *c, struct ast_expr *l, struct ast_expr *r)
{
	return ast_binary(c->arena, AST_BINARY, AST_OP_CONCAT, l, r, r->span);
}

static struct ast_expr *pp_call1(struct sema_ctx *c, const char *fn, struct ast_expr *fmt,
				 struct ast_expr *arg)
{
	struct ast_expr *call = ast_named(c->arena, AST_CALL, fn, arg->span);

	call->op_span = arg->span;
	if (fmt)
		ast_list_push(c->arena, &call->args, fmt);
	ast_list_push(c->arena, &call->args, arg);
	return call;
}

/* One piece of a pretty-printed string: text, or a value in stap's
   format (a target, or a member chain of @cast, rpretty_cast()'s). */
static struct ast_expr *pp_item(struct sema_ctx *c, const struct rpretty_item *it,
				const struct ast_expr *cast, struct src_span at)
{
	static const char *const fmts[] = {
		[RPRETTY_HEX] = "%#x", [RPRETTY_UINT] = "%u", [RPRETTY_CHAR] = "'%c'",
		[RPRETTY_PTR] = "%p",
	};
	struct ast_expr *t;

	if (it->fmt == RPRETTY_TEXT)
		return pp_lit(c, it->text, at);
	if (it->var) {
		t = ast_expr_new(c->arena, AST_TARGET, at);
		t->str = it->var;
	} else {
		t = ast_clone_expr(c->arena, cast);
	}
	t->chain = it->chain;
	if (it->fmt == RPRETTY_STRING)
		return pp_cat(c, pp_cat(c, pp_lit(c, "\"", at), t), pp_lit(c, "\"", at));
	if (it->fmt == RPRETTY_INT)
		return pp_call1(c, "sprint", NULL, t);
	return pp_call1(c, "sprintf", pp_lit(c, fmts[it->fmt], at), t);
}

/* @e becomes the concatenation of @v (@n pieces), then is typed again. */
enum sem_type sema_pretty_items(struct sema_ctx *c, struct ast_expr *e,
				const struct rpretty_item *v, unsigned n)
{
	struct ast_expr *acc = n ? pp_item(c, &v[0], e, e->span) : pp_lit(c, "", e->span);
	unsigned i;

	for (i = 1; i < n; i++)
		acc = pp_cat(c, acc, pp_item(c, &v[i], e, e->span));
	*e = *acc;
	c->changed = true;
	return c->type_expr(c, e);
}

/*
 * $var$ and $var$$ at @site (@ret: in its .return): "{.a=1, .s="x",
 * .p=0x10, .in={...}}" as stap prints it (resolve_pretty.c decides the
 * pieces), one fetch per value.
 */
enum sem_type sema_pretty_var(struct sema_ctx *c, struct ast_expr *e,
			      const struct fetch_site *site, bool ret)
{
	struct rpretty_item *v;
	unsigned n;
	char err[512] = "";

	if (rpretty_var(c->arena, site, e->str, &e->chain, ret, &v, &n, err, sizeof(err)) != 0) {
		sema_err(c, e->span, "%s", err);
		return SEM_UNKNOWN;
	}
	return sema_pretty_items(c, e, v, n);
}

