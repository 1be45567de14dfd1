/*
 * ast_equal.c - structural equality of ASTs, ignoring spans and pass-2
 * annotations.  The round-trip tests use it: parse, print, parse again,
 * and the two trees must be equal.
 */
#include "ast.h"

#include <string.h>

static bool eq_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool eq_list(const struct ast_list *a, const struct ast_list *b)
{
	unsigned i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (!ast_expr_equal(a->v[i], b->v[i]))
			return false;
	return true;
}

static bool eq_chain(const struct ast_chain *a, const struct ast_chain *b)
{
	unsigned i;

	if (a->n != b->n || a->pretty != b->pretty)
		return false;
	for (i = 0; i < a->n; i++) {
		if (a->v[i].is_index != b->v[i].is_index ||
		    !eq_str(a->v[i].name, b->v[i].name) ||
		    !ast_expr_equal(a->v[i].index, b->v[i].index))
			return false;
	}
	return true;
}

bool ast_expr_equal(const struct ast_expr *x, const struct ast_expr *y)
{
	if (!x || !y)
		return x == y;
	if (x->kind != y->kind || x->op != y->op || x->num != y->num ||
	    x->len != y->len || !eq_str(x->module, y->module))
		return false;
	if (x->kind == AST_STR ? memcmp(x->str, y->str, x->len) != 0 :
	    !eq_str(x->str, y->str))
		return false;
	return ast_expr_equal(x->a, y->a) && ast_expr_equal(x->b, y->b) &&
	       ast_expr_equal(x->c, y->c) && eq_list(&x->args, &y->args) &&
	       eq_chain(&x->chain, &y->chain);
}

static bool eq_stmt(const struct ast_stmt *x, const struct ast_stmt *y);

static bool eq_foreach(const struct ast_foreach *x, const struct ast_foreach *y)
{
	if (!x || !y)
		return x == y;
	return ast_expr_equal(x->value, y->value) && eq_list(&x->keys, &y->keys) &&
	       x->bracketed == y->bracketed && ast_expr_equal(x->array, y->array) &&
	       eq_list(&x->slice, &y->slice) && x->has_slice == y->has_slice &&
	       x->sort_key == y->sort_key && x->sort_dir == y->sort_dir &&
	       x->has_sort_stat == y->has_sort_stat &&
	       (!x->has_sort_stat || x->sort_stat == y->sort_stat) &&
	       ast_expr_equal(x->limit, y->limit) && eq_stmt(x->body, y->body);
}

static bool eq_stmt(const struct ast_stmt *x, const struct ast_stmt *y)
{
	unsigned i;

	if (!x || !y)
		return x == y;
	if (x->kind != y->kind || x->body.n != y->body.n || !eq_str(x->name, y->name))
		return false;
	for (i = 0; i < x->body.n; i++)
		if (!eq_stmt(x->body.v[i], y->body.v[i]))
			return false;
	return ast_expr_equal(x->e, y->e) && ast_expr_equal(x->e2, y->e2) &&
	       ast_expr_equal(x->e3, y->e3) && eq_stmt(x->s1, y->s1) &&
	       eq_stmt(x->s2, y->s2) && eq_foreach(x->fe, y->fe);
}

static bool eq_ppoint(const struct ast_ppoint *x, const struct ast_ppoint *y)
{
	unsigned i;

	if (x->n != y->n || x->optional != y->optional ||
	    x->sufficient != y->sufficient || !ast_expr_equal(x->cond, y->cond))
		return false;
	for (i = 0; i < x->n; i++)
		if (!eq_str(x->comps[i].name, y->comps[i].name) ||
		    !ast_expr_equal(x->comps[i].arg, y->comps[i].arg))
			return false;
	return true;
}

static bool eq_pplist(const struct ast_pplist *x, const struct ast_pplist *y)
{
	unsigned i;

	if (x->n != y->n)
		return false;
	for (i = 0; i < x->n; i++)
		if (!eq_ppoint(x->v[i], y->v[i]))
			return false;
	return true;
}

static bool eq_func(const struct ast_func *x, const struct ast_func *y)
{
	unsigned i;

	if (!eq_str(x->name, y->name) || x->type != y->type ||
	    x->nparams != y->nparams || x->private_ != y->private_ ||
	    !eq_str(x->embedded, y->embedded) || !eq_stmt(x->body, y->body))
		return false;
	for (i = 0; i < x->nparams; i++)
		if (!eq_str(x->params[i].name, y->params[i].name) ||
		    x->params[i].type != y->params[i].type)
			return false;
	return true;
}

static bool eq_global(const struct ast_global *x, const struct ast_global *y)
{
	return eq_str(x->name, y->name) && x->size == y->size &&
	       x->wrap == y->wrap && x->is_array == y->is_array &&
	       x->private_ == y->private_ && ast_expr_equal(x->init, y->init);
}

static bool eq_decl(const struct ast_decl *x, const struct ast_decl *y)
{
	if (x->kind != y->kind)
		return false;
	switch (x->kind) {
	case AST_D_PROBE:
		return x->probe->kind == y->probe->kind &&
		       eq_pplist(&x->probe->names, &y->probe->names) &&
		       eq_pplist(&x->probe->points, &y->probe->points) &&
		       eq_stmt(x->probe->body, y->probe->body);
	case AST_D_GLOBAL: return eq_global(x->global, y->global);
	case AST_D_FUNC: return eq_func(x->func, y->func);
	case AST_D_EMBEDDED: return eq_str(x->embedded, y->embedded);
	}
	return false;
}

bool ast_file_equal(const struct ast_file *x, const struct ast_file *y)
{
	unsigned i;

	if (x->n != y->n)
		return false;
	for (i = 0; i < x->n; i++)
		if (!eq_decl(x->decls[i], y->decls[i]))
			return false;
	return true;
}
