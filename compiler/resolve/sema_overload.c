/*
 * sema_overload.c - pass 2: stap's runtime overloading of functions.
 *
 * In: the declarations of the script and the tapset (sema_ctx.fdecls).
 * Out: the same, where several functions share a name and a number of
 * parameters, as a chain: ordered by priority (":PRIORITY" after the
 * parameters; else 0 for the script's, 1 for the tapset's), then by
 * declaration, the first keeps the name and the others are renamed
 * "NAME#2", "NAME#3"...; a "next" in one of them becomes
 * "return NAME#K+1(PARAMS)", and in the last one (or in a function
 * without overloads) an error() ("no more overloads", the run-time error
 * stap's langref says).  A call resolves
 * to the first of the chain (sema_func_decl_n), so the rest of pass 2
 * and pass 3 see ordinary functions.  (Functions of one name and other
 * arities are not overloads of each other: sema_func_decl_n picks by
 * arity.)
 */
#include "sema_int.h"
#include "arena.h"

#include <string.h>

/* The priority @f runs at; @script: declared by the script. */
static int64_t ovl_priority(const struct ast_func *f, bool script)
{
	return f->has_priority ? f->priority : script ? 0 : 1;
}

/* "next" in @s (not in nested functions: there are none) becomes @to. */
static void ovl_rewrite(struct sema_ctx *c, struct ast_stmt *s, const struct ast_stmt *to)
{
	unsigned i;

	if (!s)
		return;
	if (s->kind == AST_S_NEXT) {
		struct src_span at = s->span;

		*s = *ast_clone_stmt(c->arena, to);
		s->span = at;
		return;
	}
	ovl_rewrite(c, s->s1, to);
	ovl_rewrite(c, s->s2, to);
	for (i = 0; i < s->body.n; i++)
		ovl_rewrite(c, s->body.v[i], to);
	if (s->fe)
		ovl_rewrite(c, s->fe->body, to);
}

/* What "next" in overload @f becomes: a call of @next (NULL: the last). */
static struct ast_stmt *ovl_next(struct sema_ctx *c, const struct ast_func *f, const char *next)
{
	struct ast_expr *call;
	struct ast_stmt *s;
	unsigned i;

	if (!next) {
		call = ast_named(c->arena, AST_CALL, "error", f->span);
		call->op_span = f->span;
		ast_list_push(c->arena, &call->args,
			      ast_str(c->arena, "next: no more overloads of this function", 40,
				      f->span));
		s = ast_stmt_new(c->arena, AST_S_EXPR, f->span);
		s->e = call;
		return s;
	}
	call = ast_named(c->arena, AST_CALL, next, f->span);
	call->op_span = f->span;
	for (i = 0; i < f->nparams; i++)
		ast_list_push(c->arena, &call->args,
			      ast_named(c->arena, AST_VAR, f->params[i].name, f->span));
	s = ast_stmt_new(c->arena, AST_S_RETURN, f->span);
	s->e = call;
	return s;
}

/* Is there a "next" in @s? */
static bool ovl_has_next(const struct ast_stmt *s)
{
	unsigned i;

	if (!s)
		return false;
	if (s->kind == AST_S_NEXT || ovl_has_next(s->s1) || ovl_has_next(s->s2) ||
	    (s->fe && ovl_has_next(s->fe->body)))
		return true;
	for (i = 0; i < s->body.n; i++)
		if (ovl_has_next(s->body.v[i]))
			return true;
	return false;
}

/* Chain the @n overloads at @idx (indices into fdecls, declaration order). */
static void ovl_chain(struct sema_ctx *c, unsigned *idx, unsigned n)
{
	const char *name = c->fdecls[idx[0]]->name;
	const char **names = arena_alloc(c->arena, n * sizeof(*names));
	unsigned i, j, t;

	/* stable: by priority, then declaration */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && ovl_priority(c->fdecls[idx[j]], idx[j] < c->nscript_fdecls) <
				    ovl_priority(c->fdecls[idx[j - 1]], idx[j - 1] < c->nscript_fdecls);
		     j--) {
			t = idx[j];
			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	for (i = 0; i < n; i++)
		names[i] = i ? arena_printf(c->arena, "%s#%u", name, i + 1) : name;
	for (i = 0; i < n; i++) {
		struct ast_func *f = arena_alloc(c->arena, sizeof(*f));

		*f = *c->fdecls[idx[i]];
		f->name = names[i];
		if (ovl_has_next(f->body)) {
			f->body = ast_clone_stmt(c->arena, f->body);
			ovl_rewrite(c, f->body, ovl_next(c, f, i + 1 < n ? names[i + 1] : NULL));
		}
		c->fdecls[idx[i]] = f;
	}
}

void sema_overloads(struct sema_ctx *c)
{
	unsigned *idx = arena_alloc(c->arena, (c->nfdecls + 1) * sizeof(*idx));
	unsigned char *done = arena_alloc(c->arena, c->nfdecls + 1);
	unsigned i, j, n;

	for (i = 0; i < c->nfdecls; i++) {
		if (done[i])
			continue;
		n = 0;
		for (j = i; j < c->nfdecls; j++)
			if (!done[j] && c->fdecls[j]->nparams == c->fdecls[i]->nparams &&
			    !strcmp(c->fdecls[j]->name, c->fdecls[i]->name)) {
				done[j] = 1;
				idx[n++] = j;
			}
		if (n > 1 || ovl_has_next(c->fdecls[i]->body))
			ovl_chain(c, idx, n);
	}
}
