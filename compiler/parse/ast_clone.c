/*
 * ast_clone.c - deep copies of statements and expressions.
 *
 * Pass 2 gives every probe its own copy of an alias body, so that the
 * body's locals and types belong to that probe alone (as in stap).
 */
#include "ast.h"
#include "arena.h"

#include <string.h>

static void clone_list(struct arena *a, struct ast_list *dst,
		       const struct ast_list *src)
{
	unsigned i;

	memset(dst, 0, sizeof(*dst));
	for (i = 0; i < src->n; i++)
		ast_list_push(a, dst, ast_clone_expr(a, src->v[i]));
}

static void clone_chain(struct arena *a, struct ast_chain *dst,
			const struct ast_chain *src)
{
	unsigned i;

	memset(dst, 0, sizeof(*dst));
	for (i = 0; i < src->n; i++) {
		if (src->v[i].is_index)
			ast_chain_index(a, dst, ast_clone_expr(a, src->v[i].index),
					src->v[i].span);
		else
			ast_chain_member(a, dst, src->v[i].name, src->v[i].span);
	}
	dst->pretty = src->pretty;
	dst->raw = src->raw;	/* a $$vars value: the pointer itself */
	dst->mem = src->mem;
}

struct ast_expr *ast_clone_expr(struct arena *a, const struct ast_expr *e)
{
	struct ast_expr *n;

	if (!e)
		return NULL;
	n = arena_alloc(a, sizeof(*n));
	*n = *e;
	n->a = ast_clone_expr(a, e->a);
	n->b = ast_clone_expr(a, e->b);
	n->c = ast_clone_expr(a, e->c);
	clone_list(a, &n->args, &e->args);
	clone_chain(a, &n->chain, &e->chain);
	n->sym = NULL;
	n->type = 0;
	return n;
}

static struct ast_foreach *clone_foreach(struct arena *a,
					 const struct ast_foreach *f)
{
	struct ast_foreach *n = arena_alloc(a, sizeof(*n));

	*n = *f;
	n->value = ast_clone_expr(a, f->value);
	clone_list(a, &n->keys, &f->keys);
	n->array = ast_clone_expr(a, f->array);
	clone_list(a, &n->slice, &f->slice);
	n->limit = ast_clone_expr(a, f->limit);
	n->body = ast_clone_stmt(a, f->body);
	return n;
}

struct ast_stmt *ast_clone_stmt(struct arena *a, const struct ast_stmt *s)
{
	struct ast_stmt *n;
	unsigned i;

	if (!s)
		return NULL;
	n = arena_alloc(a, sizeof(*n));
	*n = *s;
	n->e = ast_clone_expr(a, s->e);
	n->e2 = ast_clone_expr(a, s->e2);
	n->e3 = ast_clone_expr(a, s->e3);
	n->s1 = ast_clone_stmt(a, s->s1);
	n->s2 = ast_clone_stmt(a, s->s2);
	memset(&n->body, 0, sizeof(n->body));
	for (i = 0; i < s->body.n; i++)
		ast_stmt_push(a, &n->body, ast_clone_stmt(a, s->body.v[i]));
	if (s->fe)
		n->fe = clone_foreach(a, s->fe);
	return n;
}
