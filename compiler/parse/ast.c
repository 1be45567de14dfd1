/*
 * ast.c - AST constructors (see ast.h).
 *
 * Constructors only allocate and link; checks that need more than one
 * node live in the parser's support code (parse.c) and in pass 2.
 */
#include "ast.h"
#include "arena.h"

#include <string.h>

static const struct {
	const char *spelling;
	int prec;
} ast_ops[] = {
#define OP(name, spelling, prec) { spelling, prec },
#include "ast.def"
#undef OP
};

const char *ast_op_spelling(enum ast_op op)
{
	return op < AST_OP__COUNT ? ast_ops[op].spelling : "?";
}

int ast_op_prec(enum ast_op op)
{
	return op < AST_OP__COUNT ? ast_ops[op].prec : 0;
}

struct ast_expr *ast_expr_new(struct arena *a, enum ast_expr_kind kind,
			      struct src_span span)
{
	struct ast_expr *e = arena_alloc(a, sizeof(*e));

	e->kind = kind;
	e->span = span;
	e->op_span = span;
	return e;
}

struct ast_expr *ast_num(struct arena *a, int64_t v, struct src_span span)
{
	struct ast_expr *e = ast_expr_new(a, AST_NUM, span);

	e->num = v;
	return e;
}

struct ast_expr *ast_str(struct arena *a, const char *s, size_t len,
			 struct src_span span)
{
	struct ast_expr *e = ast_expr_new(a, AST_STR, span);

	e->str = s;
	e->len = len;
	return e;
}

struct ast_expr *ast_named(struct arena *a, enum ast_expr_kind kind,
			   const char *name, struct src_span span)
{
	struct ast_expr *e = ast_expr_new(a, kind, span);

	e->str = name;
	return e;
}

struct ast_expr *ast_unary(struct arena *a, enum ast_op op,
			   struct ast_expr *x, struct src_span op_span)
{
	enum ast_expr_kind kind = op == AST_OP_PREINC || op == AST_OP_PREDEC ?
				  AST_INCDEC : AST_UNARY;
	struct ast_expr *e = ast_expr_new(a, kind, src_join(op_span, x->span));

	e->op = op;
	e->op_span = op_span;
	e->a = x;
	return e;
}

struct ast_expr *ast_postfix(struct arena *a, enum ast_op op,
			     struct ast_expr *x, struct src_span op_span)
{
	struct ast_expr *e = ast_expr_new(a, AST_INCDEC,
					  src_join(x->span, op_span));

	e->op = op;
	e->op_span = op_span;
	e->a = x;
	return e;
}

struct ast_expr *ast_binary(struct arena *a, enum ast_expr_kind kind,
			    enum ast_op op, struct ast_expr *l,
			    struct ast_expr *r, struct src_span op_span)
{
	struct ast_expr *e = ast_expr_new(a, kind, src_join(l->span, r->span));

	e->op = op;
	e->op_span = op_span;
	e->a = l;
	e->b = r;
	return e;
}

struct ast_expr *ast_ternary(struct arena *a, struct ast_expr *c,
			     struct ast_expr *t, struct ast_expr *f)
{
	struct ast_expr *e = ast_expr_new(a, AST_TERNARY,
					  src_join(c->span, f->span));

	e->a = c;
	e->b = t;
	e->c = f;
	return e;
}

void ast_list_push(struct arena *a, struct ast_list *l, struct ast_expr *e)
{
	l->v = arena_grow(a, l->v, l->n, &l->cap, sizeof(*l->v));
	l->v[l->n++] = e;
}

static struct ast_comp *ast_chain_add(struct arena *a, struct ast_chain *c)
{
	struct ast_comp *k;

	c->v = arena_grow(a, c->v, c->n, &c->cap, sizeof(*c->v));
	k = &c->v[c->n++];
	memset(k, 0, sizeof(*k));
	return k;
}

void ast_chain_member(struct arena *a, struct ast_chain *c, const char *name,
		      struct src_span span)
{
	struct ast_comp *k = ast_chain_add(a, c);

	k->is_index = false;
	k->name = name;
	k->span = span;
}

void ast_chain_index(struct arena *a, struct ast_chain *c,
		     struct ast_expr *index, struct src_span span)
{
	struct ast_comp *k = ast_chain_add(a, c);

	k->is_index = true;
	k->index = index;
	k->span = span;
}

struct ast_stmt *ast_stmt_new(struct arena *a, enum ast_stmt_kind kind,
			      struct src_span span)
{
	struct ast_stmt *s = arena_alloc(a, sizeof(*s));

	s->kind = kind;
	s->span = span;
	return s;
}

void ast_stmt_push(struct arena *a, struct ast_stmt_list *l,
		   struct ast_stmt *s)
{
	l->v = arena_grow(a, l->v, l->n, &l->cap, sizeof(*l->v));
	l->v[l->n++] = s;
}

struct ast_ppoint *ast_ppoint_new(struct arena *a, struct src_span span)
{
	struct ast_ppoint *p = arena_alloc(a, sizeof(*p));

	p->span = span;
	return p;
}

void ast_ppoint_push(struct arena *a, struct ast_ppoint *p,
		     const char *name, struct ast_expr *arg,
		     struct src_span span)
{
	struct ast_ppcomp *c;

	p->comps = arena_grow(a, p->comps, p->n, &p->cap, sizeof(*p->comps));
	c = &p->comps[p->n++];
	c->name = name;
	c->arg = arg;
	c->span = span;
	p->span = src_join(p->span, span);
}

void ast_pplist_push(struct arena *a, struct ast_pplist *l,
		     struct ast_ppoint *p)
{
	l->v = arena_grow(a, l->v, l->n, &l->cap, sizeof(*l->v));
	l->v[l->n++] = p;
}

void ast_file_push(struct arena *a, struct ast_file *f, struct ast_decl *d)
{
	f->decls = arena_grow(a, f->decls, f->n, &f->cap, sizeof(*f->decls));
	f->decls[f->n++] = d;
}

void ast_func_param(struct arena *a, struct ast_func *f, const char *name,
		    enum ast_type type, struct src_span span)
{
	struct ast_param *p;

	f->params = arena_grow(a, f->params, f->nparams, &f->pcap,
			       sizeof(*f->params));
	p = &f->params[f->nparams++];
	p->name = name;
	p->type = type;
	p->span = span;
}
