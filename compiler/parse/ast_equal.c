/*
 * ast_equal.c - structural equality of ASTs.
 *
 * Two trees are equal when they have the same shape and the same names,
 * operators and literals.  Spans are ignored (a reprinted script has
 * different offsets), and so are the annotations pass 2 adds (sym, type,
 * ref).  The round-trip tests use this: parse, print with -p1, parse the
 * output again, and the two trees must be equal.  Pass 2 uses it to
 * compare probe-point arguments.
 */
#include "ast.h"

#include <string.h>

/* Names and other NUL-terminated strings; NULL equals only NULL. */
static bool eq_name(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

/*
 * The str field: a string literal by length and bytes (NULs included),
 * a name (len unused) as a C string.
 */
static bool eq_text(const struct ast_expr *x, const struct ast_expr *y)
{
	if (x->kind != AST_STR)
		return eq_name(x->str, y->str);
	if (x->len != y->len)
		return false;
	if (!x->str || !y->str)
		return x->str == y->str || x->len == 0;
	return memcmp(x->str, y->str, x->len) == 0;
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

static bool eq_comp(const struct ast_comp *a, const struct ast_comp *b)
{
	return a->is_index == b->is_index && eq_name(a->name, b->name) &&
	       ast_expr_equal(a->index, b->index);
}

static bool eq_chain(const struct ast_chain *a, const struct ast_chain *b)
{
	unsigned i;

	if (a->n != b->n || a->pretty != b->pretty)
		return false;
	for (i = 0; i < a->n; i++)
		if (!eq_comp(&a->v[i], &b->v[i]))
			return false;
	return true;
}

/**
 * ast_expr_equal() - whether two expressions have the same structure.
 * @x: an expression or NULL.
 * @y: an expression or NULL.
 *
 * Compares kind, operator, number, string (a literal by its bytes, NUL
 * bytes included), module, operands, arguments and target chain,
 * recursively.  Spans and pass-2 annotations are ignored.  Two NULLs are
 * equal; NULL and an expression are not.
 */
bool ast_expr_equal(const struct ast_expr *x, const struct ast_expr *y)
{
	if (!x || !y)
		return x == y;
	if (x->kind != y->kind || x->op != y->op || x->num != y->num ||
	    !eq_text(x, y) || !eq_name(x->module, y->module))
		return false;
	return ast_expr_equal(x->a, y->a) && ast_expr_equal(x->b, y->b) &&
	       ast_expr_equal(x->c, y->c) && eq_list(&x->args, &y->args) &&
	       eq_chain(&x->chain, &y->chain);
}

/* ---- statements ---- */

static bool eq_stmt(const struct ast_stmt *x, const struct ast_stmt *y);

/* The sort: which key or the value, the direction, and any @stat. */
static bool eq_sort(const struct ast_foreach *x, const struct ast_foreach *y)
{
	if (x->sort_key != y->sort_key ||
	    x->has_sort_stat != y->has_sort_stat)
		return false;
	if (x->sort_key && x->sort_dir != y->sort_dir)
		return false;
	return !x->has_sort_stat || x->sort_stat == y->sort_stat;
}

static bool eq_foreach(const struct ast_foreach *x,
		       const struct ast_foreach *y)
{
	if (!x || !y)
		return x == y;
	return ast_expr_equal(x->value, y->value) &&
	       eq_list(&x->keys, &y->keys) && x->bracketed == y->bracketed &&
	       ast_expr_equal(x->array, y->array) &&
	       x->has_slice == y->has_slice && eq_list(&x->slice, &y->slice) &&
	       eq_sort(x, y) && ast_expr_equal(x->limit, y->limit) &&
	       eq_stmt(x->body, y->body);
}

static bool eq_stmts(const struct ast_stmt_list *x,
		     const struct ast_stmt_list *y)
{
	unsigned i;

	if (x->n != y->n)
		return false;
	for (i = 0; i < x->n; i++)
		if (!eq_stmt(x->v[i], y->v[i]))
			return false;
	return true;
}

static bool eq_stmt(const struct ast_stmt *x, const struct ast_stmt *y)
{
	if (!x || !y)
		return x == y;
	if (x->kind != y->kind || !eq_name(x->name, y->name))
		return false;
	return ast_expr_equal(x->e, y->e) && ast_expr_equal(x->e2, y->e2) &&
	       ast_expr_equal(x->e3, y->e3) && eq_stmt(x->s1, y->s1) &&
	       eq_stmt(x->s2, y->s2) && eq_stmts(&x->body, &y->body) &&
	       eq_foreach(x->fe, y->fe);
}

/* ---- declarations ---- */

static bool eq_ppcomp(const struct ast_ppcomp *x, const struct ast_ppcomp *y)
{
	return eq_name(x->name, y->name) && ast_expr_equal(x->arg, y->arg);
}

static bool eq_ppoint(const struct ast_ppoint *x, const struct ast_ppoint *y)
{
	unsigned i;

	if (x->n != y->n || x->optional != y->optional ||
	    x->sufficient != y->sufficient || !ast_expr_equal(x->cond, y->cond))
		return false;
	for (i = 0; i < x->n; i++)
		if (!eq_ppcomp(&x->comps[i], &y->comps[i]))
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

static bool eq_probe(const struct ast_probe *x, const struct ast_probe *y)
{
	return x->kind == y->kind && eq_pplist(&x->names, &y->names) &&
	       eq_pplist(&x->points, &y->points) && eq_stmt(x->body, y->body) &&
	       eq_stmt(x->epilogue, y->epilogue);
}

static bool eq_func(const struct ast_func *x, const struct ast_func *y)
{
	unsigned i;

	if (!eq_name(x->name, y->name) || x->type != y->type ||
	    x->nparams != y->nparams || x->private_ != y->private_ ||
	    x->has_priority != y->has_priority || x->priority != y->priority ||
	    !eq_name(x->embedded, y->embedded) || !eq_stmt(x->body, y->body))
		return false;
	for (i = 0; i < x->nparams; i++)
		if (!eq_name(x->params[i].name, y->params[i].name) ||
		    x->params[i].type != y->params[i].type)
			return false;
	return true;
}

static bool eq_global(const struct ast_global *x, const struct ast_global *y)
{
	return eq_name(x->name, y->name) && x->size == y->size &&
	       x->wrap == y->wrap && x->is_array == y->is_array &&
	       x->private_ == y->private_ && ast_expr_equal(x->init, y->init);
}

static bool eq_decl(const struct ast_decl *x, const struct ast_decl *y)
{
	if (x->kind != y->kind)
		return false;
	switch (x->kind) {
	case AST_D_PROBE:
		return eq_probe(x->probe, y->probe);
	case AST_D_GLOBAL:
		return eq_global(x->global, y->global);
	case AST_D_FUNC:
		return eq_func(x->func, y->func);
	case AST_D_EMBEDDED:
		return eq_name(x->embedded, y->embedded);
	}
	return false;
}

/**
 * ast_file_equal() - whether two files declare the same things, in order.
 * @x: a parsed file.
 * @y: another.
 *
 * Every declaration is compared as ast_expr_equal() compares
 * expressions: structure, names and literals, not spans.  The files'
 * names and ids are not compared (a reprinted file has another name).
 */
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
