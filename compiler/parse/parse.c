/*
 * parse.c - pass 1c support: the token feeder, syntax error messages,
 * and the checks grammar actions delegate (see parse.h).
 */
#include "parse.h"
#include "arena.h"
#include "diag.h"
#include "parser.h"
#include "ast_walk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Brace expansion may not produce more probe points than this. */
#define PARSE_MAX_EXPANSION 4096

static void parse_err(struct parse_ctx *c, struct src_span at,
		      const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void parse_err(struct parse_ctx *c, struct src_span at,
		      const char *fmt, ...)
{
	va_list ap;

	c->errors++;
	va_start(ap, fmt);
	diag_vreport(c->diag, DIAG_ERROR, at, fmt, ap);
	va_end(ap);
}

/* ================= the feeder ================= */

int parse_bison_token(enum tok_kind k)
{
	static const int map[] = {
#define TOK(name, spelling, cls) [TOK_##name] = P_##name,
#include "token.def"
#undef TOK
	};

	return k < TOK__COUNT ? map[k] : P_PR_UNDEF;
}

static const struct token *parse_peek(struct parse_ctx *c)
{
	return &c->toks[c->pos < c->ntoks ? c->pos : c->ntoks - 1];
}

static const struct token *parse_take(struct parse_ctx *c)
{
	const struct token *t = parse_peek(c);

	if (c->pos < c->ntoks - 1)
		c->pos++;
	return t;
}

static struct token *parse_copy(struct parse_ctx *c, const struct token *t)
{
	struct token *n = arena_alloc(c->arena, sizeof(*n));

	*n = *t;
	return n;
}

/* "a" "b" are one literal, as in C. */
static const struct token *parse_glue_strings(struct parse_ctx *c,
					      const struct token *t)
{
	struct token *n;
	char *buf;

	if (parse_peek(c)->kind != TOK_STRING)
		return t;
	n = parse_copy(c, t);
	while (parse_peek(c)->kind == TOK_STRING) {
		const struct token *u = parse_take(c);

		buf = arena_alloc(c->arena, n->len + u->len + 1);
		memcpy(buf, n->text, n->len);
		memcpy(buf + n->len, u->text, u->len);
		n->text = buf;
		n->len += u->len;
		n->span = src_join(n->span, u->span);
	}
	return n;
}

static bool parse_wordlike(const struct token *t)
{
	return t->kind == TOK_IDENT || t->kind == TOK_STAR ||
	       t->kind == TOK_NUMBER || tok_kind_class(t->kind) == TC_KW;
}

/*
 * A probe point component: words, keywords, numbers and '*' written
 * without spaces between them ("sys_*", "*abc*", "return").
 */
static const struct token *parse_ppname(struct parse_ctx *c,
					 const struct token *t)
{
	struct token *n = parse_copy(c, t);
	char *buf;

	n->kind = TOK_PPNAME;
	n->text = t->kind == TOK_STAR ? "*" : t->text;
	n->len = t->kind == TOK_STAR ? 1 : t->len;
	while (parse_wordlike(parse_peek(c)) && !parse_peek(c)->ws_before) {
		const struct token *u = parse_take(c);
		const char *ut = u->kind == TOK_STAR ? "*" : u->text;
		size_t ul = u->kind == TOK_STAR ? 1 : u->len;

		buf = arena_alloc(c->arena, n->len + ul + 1);
		memcpy(buf, n->text, n->len);
		memcpy(buf + n->len, ut, ul);
		n->text = buf;
		n->len += (uint32_t)ul;
		n->span = src_join(n->span, u->span);
	}
	return n;
}

static void parse_open_push(struct parse_ctx *c, const struct token *t)
{
	c->open = arena_grow(c->arena, c->open, c->nopen, &c->capopen,
			     sizeof(*c->open));
	c->open[c->nopen].kind = t->kind;
	c->open[c->nopen].span = t->span;
	c->nopen++;
}

static enum tok_kind parse_closer(enum tok_kind open)
{
	switch (open) {
	case TOK_LPAREN: return TOK_RPAREN;
	case TOK_LBRACKET: return TOK_RBRACKET;
	case TOK_LBRACE: return TOK_RBRACE;
	case TOK_PPLBRACE: return TOK_PPRBRACE;
	default: return TOK_EOF;
	}
}

/* Keep the stack of open brackets, for "to close '(' at L:C". */
static void parse_track_brackets(struct parse_ctx *c, const struct token *t)
{
	switch (t->kind) {
	case TOK_LPAREN: case TOK_LBRACKET: case TOK_LBRACE: case TOK_PPLBRACE:
		parse_open_push(c, t);
		break;
	case TOK_RPAREN: case TOK_RBRACKET: case TOK_RBRACE: case TOK_PPRBRACE:
		if (c->nopen && parse_closer(c->open[c->nopen - 1].kind) == t->kind)
			c->nopen--;
		break;
	default:
		break;
	}
}

/* Probe point, at a component's start. */
static const struct token *parse_feed_pp_start(struct parse_ctx *c,
					       const struct token *t)
{
	if (t->kind == TOK_LBRACE) {
		struct token *n = parse_copy(c, t);

		n->kind = TOK_PPLBRACE;
		c->pp_braces++;
		return n;
	}
	if (parse_wordlike(t)) {
		c->mode = PM_PP_AFTER;
		return parse_ppname(c, t);
	}
	return t;
}

/* Probe point, after a component. */
static const struct token *parse_feed_pp_after(struct parse_ctx *c,
					       const struct token *t)
{
	struct token *n;

	switch (t->kind) {
	case TOK_LPAREN:
		c->mode = PM_PP_ARG;
		c->pp_parens = 1;
		break;
	case TOK_IF:
		c->mode = PM_PP_COND;
		c->pp_parens = 0;
		break;
	case TOK_DOT: case TOK_COMMA: case TOK_ASSIGN: case TOK_ADD_ASSIGN:
		c->mode = PM_PP_START;
		break;
	case TOK_RBRACE:
		if (!c->pp_braces)
			break;
		c->pp_braces--;
		n = parse_copy(c, t);
		n->kind = TOK_PPRBRACE;
		return n;
	case TOK_LBRACE:
		c->mode = PM_NORMAL;
		c->braces = 1;
		break;
	default:
		break;
	}
	return t;
}

/* Inside a component's argument or a probe point's condition. */
static void parse_feed_pp_parens(struct parse_ctx *c, const struct token *t)
{
	if (t->kind == TOK_LPAREN) {
		c->pp_parens++;
	} else if (t->kind == TOK_RPAREN && c->pp_parens && --c->pp_parens == 0) {
		c->mode = PM_PP_AFTER;
	}
}

/* Normal code: count braces so 'probe' is recognised at the top level. */
static const struct token *parse_feed_normal(struct parse_ctx *c,
					     const struct token *t)
{
	if (t->kind == TOK_LBRACE) {
		c->braces++;
	} else if (t->kind == TOK_RBRACE && c->braces) {
		c->braces--;
	} else if (tok_kind_class(t->kind) == TC_KW &&
		   c->last == TOK_ARROW) {
		struct token *n = parse_copy(c, t);	/* $p->function */

		n->kind = TOK_IDENT;
		return n;
	}
	return t;
}

/* The next token for bison, in the feeder's current mode. */
static const struct token *parse_feed(struct parse_ctx *c)
{
	const struct token *t = parse_take(c);

	if (t->kind == TOK_PROBE && c->braces == 0) {
		c->mode = PM_PP_START;
		c->pp_braces = 0;
		c->pp_parens = 0;
		return t;
	}
	if (t->kind == TOK_STRING)
		t = parse_glue_strings(c, t);
	switch (c->mode) {
	case PM_PP_START:
		return parse_feed_pp_start(c, t);
	case PM_PP_AFTER:
		return parse_feed_pp_after(c, t);
	case PM_PP_ARG:
	case PM_PP_COND:
		parse_feed_pp_parens(c, t);
		if (c->mode == PM_PP_COND && t->kind != TOK_IF)
			return parse_feed_normal(c, t);
		return t;
	default:
		return parse_feed_normal(c, t);
	}
}

int pr_lex(PR_STYPE *lval, struct src_span *lloc, struct parse_ctx *ctx)
{
	const struct token *t = parse_feed(ctx);

	parse_track_brackets(ctx, t);
	ctx->last = t->kind;
	ctx->cur = t;
	lval->tok = t;
	*lloc = t->span;
	return parse_bison_token(t->kind);
}

/* ================= syntax errors ================= */

static bool parse_starts_expr(enum tok_kind k)
{
	switch (k) {
	case TOK_IDENT: case TOK_NUMBER: case TOK_STRING: case TOK_TARGET:
	case TOK_LPAREN: case TOK_MINUS: case TOK_PLUS: case TOK_BANG:
	case TOK_TILDE: case TOK_AMP: case TOK_INC: case TOK_DEC:
	case TOK_EMBEDDED: case TOK_LBRACKET:
		return true;
	default:
		return tok_kind_class(k) == TC_AT;
	}
}

static bool parse_has(const enum tok_kind *v, unsigned n, enum tok_kind k)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (v[i] == k)
			return true;
	return false;
}

/* How an expected token is named: keywords and @-words quoted. */
static const char *parse_expected_name(enum tok_kind k, char *buf, size_t size)
{
	enum tok_class cls = tok_kind_class(k);

	if (cls != TC_KW && cls != TC_AT)
		return tok_kind_name(k);
	snprintf(buf, size, "'%s'", tok_kind_name(k));
	return buf;
}

/*
 * "expected A, B or C": expression starters collapse into "an
 * expression", statement keywords into it too.  Returns how many
 * alternatives were named.
 */
static unsigned parse_expected_text(const enum tok_kind *v, unsigned n,
				    char *buf, size_t size)
{
	char names[16][48];
	unsigned i, m = 0;
	size_t o = 0;
	bool expr = parse_has(v, n, TOK_IDENT) && parse_has(v, n, TOK_NUMBER);

	if (expr)
		snprintf(names[m++], sizeof(names[0]), "an expression");
	for (i = 0; i < n && m < 16; i++) {
		if (expr && (parse_starts_expr(v[i]) ||
			     tok_kind_class(v[i]) == TC_KW ||
			     v[i] == TOK_LBRACE || v[i] == TOK_SEMI))
			continue;
		if (v[i] == TOK_EOF)
			continue;
		char tmp[40];

		snprintf(names[m++], sizeof(names[0]), "%s",
			 parse_expected_name(v[i], tmp, sizeof(tmp)));
	}
	buf[0] = '\0';
	for (i = 0; i < m && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%s%s",
				      i == 0 ? "" : i + 1 == m ? " or " : ", ",
				      names[i]);
	return m;
}

/* The innermost bracket still open before the offending token. */
static const struct parse_open *parse_innermost(const struct parse_ctx *c)
{
	size_t i = c->nopen;

	while (i > 0) {
		const struct parse_open *o = &c->open[--i];

		if (o->span.start != c->cur->span.start ||
		    o->span.file != c->cur->span.file)
			return o;
	}
	return NULL;
}

void parse_report(struct parse_ctx *c, const enum tok_kind *expected,
		  unsigned n)
{
	const struct token *t = c->cur;
	char what[128], exp[1024], where[32], closer[32];
	const struct parse_open *o = parse_innermost(c);
	unsigned m = parse_expected_text(expected, n, exp, sizeof(exp));
	bool closes = o && parse_has(expected, n, parse_closer(o->kind));

	/* At the end of a file that already had errors, the first one
	   (an unterminated comment, a bad macro) explains this one. */
	if (t->kind == TOK_EOF && c->diag->errors)
		return;
	tok_describe(t, what, sizeof(what));
	if (closes)
		parse_err(c, t->span, "expected %s to close %s at %s, found %s",
			  m <= 4 ? exp : parse_expected_name(parse_closer(o->kind),
							     closer, sizeof(closer)),
			  tok_kind_name(o->kind),
			  diag_where(c->diag, o->span, where, sizeof(where)),
			  what);
	else if (parse_has(expected, n, TOK_PROBE) &&
		 parse_has(expected, n, TOK_FUNCTION))
		parse_err(c, t->span,
			  "expected a probe, global or function declaration, found %s",
			  what);
	else if (m > 0 && m <= 4)
		parse_err(c, t->span, "expected %s, found %s", exp, what);
	else
		parse_err(c, t->span, "unexpected %s%s", what,
			  c->mode != PM_NORMAL ? " in probe point" : "");
}

/* ================= probe points ================= */

static struct parse_alts *parse_alts_new(struct parse_ctx *c)
{
	return arena_alloc(c->arena, sizeof(struct parse_alts));
}

static void parse_alts_add(struct parse_ctx *c, struct parse_alts *s,
			   struct ast_ppoint *p)
{
	s->v = arena_grow(c->arena, s->v, s->n, &s->cap, sizeof(*s->v));
	s->v[s->n++] = p;
}

struct parse_alts *parse_alts_one(struct parse_ctx *c, const struct token *name,
				  struct ast_expr *arg, struct src_span span)
{
	struct parse_alts *s = parse_alts_new(c);
	struct ast_ppoint *p = ast_ppoint_new(c->arena, span);

	ast_ppoint_push(c->arena, p, arena_strndup(c->arena, name->text,
						   name->len), arg, span);
	parse_alts_add(c, s, p);
	return s;
}

/* Whether @p carries its own '?', '!' or condition (a brace alternative's). */
static bool parse_point_marked(const struct ast_ppoint *p)
{
	return p->optional || p->sufficient || p->cond;
}

/*
 * Give @p the suffix @suffix ('?', '!' or 0) and the condition @cond, as
 * the point of an enclosing list or brace: a suffix the point already
 * has (from an inner brace alternative) stays, conditions are and-ed
 * (stap stacks them through every level of expansion).
 */
static void parse_point_mark(struct parse_ctx *c, struct ast_ppoint *p,
			     int suffix, struct ast_expr *cond)
{
	if (!p->optional && !p->sufficient) {
		p->optional = suffix == '?';
		p->sufficient = suffix == '!';
	}
	if (cond && p->cond)
		p->cond = ast_binary(c->arena, AST_BINARY, AST_OP_LAND, p->cond, cond,
				     cond->span);
	else if (cond)
		p->cond = cond;
}

/* ppalt: ppseq suffix_opt cond_opt -- one alternative inside braces,
   which stap lets carry its own '?', '!' and condition. */
struct parse_alts *parse_alts_mark(struct parse_ctx *c, struct parse_alts *s,
				   int suffix, struct ast_expr *cond)
{
	unsigned i;

	for (i = 0; i < s->n; i++)
		parse_point_mark(c, s->v[i], suffix, cond);
	return s;
}

/* Every alternative of @l followed by every alternative of @r. */
struct parse_alts *parse_alts_cross(struct parse_ctx *c, struct parse_alts *l,
				    struct parse_alts *r, struct src_span at)
{
	struct parse_alts *s = parse_alts_new(c);
	unsigned i, j, k;

	if ((size_t)l->n * r->n > PARSE_MAX_EXPANSION) {
		parse_err(c, at, "brace expansion yields more than %d probe points",
			  PARSE_MAX_EXPANSION);
		return l;
	}
	for (i = 0; i < l->n; i++) {
		if (parse_point_marked(l->v[i])) {
			parse_err(c, l->v[i]->span, "'?', '!' and 'if' may follow a brace alternative only in the last component of a probe point");
			return l;
		}
	}
	for (i = 0; i < l->n; i++) {
		for (j = 0; j < r->n; j++) {
			struct ast_ppoint *p = ast_ppoint_new(c->arena, l->v[i]->span);

			for (k = 0; k < l->v[i]->n; k++)
				ast_ppoint_push(c->arena, p, l->v[i]->comps[k].name,
						l->v[i]->comps[k].arg,
						l->v[i]->comps[k].span);
			for (k = 0; k < r->v[j]->n; k++)
				ast_ppoint_push(c->arena, p, r->v[j]->comps[k].name,
						r->v[j]->comps[k].arg,
						r->v[j]->comps[k].span);
			parse_point_mark(c, p, r->v[j]->optional ? '?' :
					 r->v[j]->sufficient ? '!' : 0, r->v[j]->cond);
			parse_alts_add(c, s, p);
		}
	}
	return s;
}

struct parse_alts *parse_alts_union(struct parse_ctx *c, struct parse_alts *l,
				    struct parse_alts *r)
{
	unsigned i;

	for (i = 0; i < r->n && l->n < PARSE_MAX_EXPANSION; i++)
		parse_alts_add(c, l, r->v[i]);
	return l;
}

void parse_point_finish(struct parse_ctx *c, struct ast_pplist *out,
			struct parse_alts *alts, int suffix,
			struct ast_expr *cond)
{
	unsigned i;

	for (i = 0; i < alts->n; i++) {
		struct ast_ppoint *p = alts->v[i];

		parse_point_mark(c, p, suffix, cond);
		ast_pplist_push(c->arena, out, p);
	}
}

/* ================= declarations ================= */

static struct ast_decl *parse_decl(struct parse_ctx *c, enum ast_decl_kind k,
				   struct src_span span)
{
	struct ast_decl *d = arena_alloc(c->arena, sizeof(*d));

	d->kind = k;
	d->span = span;
	ast_file_push(c->arena, c->file, d);
	return d;
}

struct ast_probe *parse_probe(struct parse_ctx *c, enum ast_probe_kind kind,
			      struct ast_pplist *names, struct ast_pplist *points,
			      struct ast_stmt *body, struct src_span span)
{
	struct ast_probe *p = arena_alloc(c->arena, sizeof(*p));
	unsigned i;

	p->kind = kind;
	p->points = *points;
	p->body = body;
	p->span = span;
	if (names)
		p->names = *names;
	for (i = 0; names && i < names->n; i++) {
		if (names->v[i]->optional || names->v[i]->sufficient ||
		    names->v[i]->cond)
			parse_err(c, names->v[i]->span,
				  "a probe alias name cannot be optional ('?'), sufficient ('!') or conditional");
	}
	parse_decl(c, AST_D_PROBE, span)->probe = p;
	return p;
}

void parse_global(struct parse_ctx *c, struct parse_globals *list,
		  const struct token *name, bool wrap,
		  const struct token *size, struct ast_expr *init)
{
	struct ast_global *g = arena_alloc(c->arena, sizeof(*g));

	g->name = name->text;
	g->span = name->span;
	g->wrap = wrap;
	g->init = init;
	if (size) {
		g->is_array = true;
		g->size = size->num;
		if (size->num <= 0)
			parse_err(c, size->span,
				  "array size must be a positive number");
	}
	if (size && init)
		parse_err(c, init->span, "an array cannot have an initial value");
	list->v = arena_grow(c->arena, list->v, list->n, &list->cap,
			     sizeof(*list->v));
	list->v[list->n++] = g;
}

void parse_globals_done(struct parse_ctx *c, struct parse_globals *list,
			bool private_)
{
	unsigned i;

	for (i = 0; i < list->n; i++) {
		list->v[i]->private_ = private_;
		parse_decl(c, AST_D_GLOBAL, list->v[i]->span)->global =
			list->v[i];
	}
}

struct ast_func *parse_func_begin(struct parse_ctx *c, const struct token *name,
				  enum ast_type type)
{
	struct ast_func *f = arena_alloc(c->arena, sizeof(*f));

	f->name = name->text;
	f->type = type;
	f->span = name->span;
	return f;
}

void parse_func_param(struct parse_ctx *c, struct ast_func *f,
		      const struct token *name, enum ast_type type)
{
	unsigned i;

	for (i = 0; i < f->nparams; i++)
		if (strcmp(f->params[i].name, name->text) == 0)
			parse_err(c, name->span,
				  "duplicate parameter '%s' of function '%s'",
				  name->text, f->name);
	ast_func_param(c->arena, f, name->text, type, name->span);
}

void parse_func_priority(struct parse_ctx *c, struct ast_func *f, const struct token *n)
{
	(void)c;
	f->has_priority = true;
	f->priority = n->num;
}

static void parse_need_guru(struct parse_ctx *c, struct src_span at)
{
	if (!c->guru)
		parse_err(c, at, "embedded C code is only allowed in guru mode (-g)");
}

void parse_func_end(struct parse_ctx *c, struct ast_func *f,
		    struct ast_stmt *body, const struct token *embedded,
		    bool private_, struct src_span span)
{
	f->body = body;
	f->private_ = private_;
	if (embedded) {
		parse_need_guru(c, embedded->span);
		f->embedded = embedded->text;
	}
	parse_decl(c, AST_D_FUNC, f->span)->func = f;
	(void)span;
}

void parse_embedded_decl(struct parse_ctx *c, const struct token *code)
{
	parse_need_guru(c, code->span);
	parse_decl(c, AST_D_EMBEDDED, code->span)->embedded = code->text;
}

/* ================= expressions ================= */

struct ast_expr *parse_literal_num(struct parse_ctx *c, const struct token *t,
				   bool negative, struct src_span span)
{
	uint64_t v = (uint64_t)t->num;

	if (negative && v > (uint64_t)INT64_MAX + 1)
		parse_err(c, span, "number '-%.*s' is out of range", (int)t->len,
			  t->text);
	return ast_num(c->arena, negative ? (int64_t)(0 - v) : (int64_t)v, span);
}

struct ast_expr *parse_literal_str(struct parse_ctx *c, const struct token *t)
{
	return ast_str(c->arena, t->text, t->len, t->span);
}

/* printd/printdln: a literal delimiter and at least two values to join. */
static void parse_check_printd(struct parse_ctx *c, const char *name,
			       struct ast_list *args, struct src_span span)
{
	if (args->n == 0 || args->v[0]->kind != AST_STR)
		parse_err(c, args->n ? args->v[0]->span : span,
			  "the first argument of %s must be a literal delimiter string",
			  name);
	else if (args->n < 3)
		parse_err(c, span, "%s needs a delimiter and at least two values",
			  name);
}

struct ast_expr *parse_call(struct parse_ctx *c, const struct token *name,
			    struct ast_list *args, struct src_span span)
{
	struct ast_expr *e = ast_named(c->arena, AST_CALL, name->text, span);

	e->args = *args;
	e->op_span = name->span;
	if (strcmp(name->text, "printd") == 0 ||
	    strcmp(name->text, "printdln") == 0)
		parse_check_printd(c, name->text, args, span);
	return e;
}

struct ast_expr *parse_index(struct parse_ctx *c, struct ast_expr *base,
			     struct ast_list *keys, struct src_span span)
{
	struct ast_expr *e = ast_expr_new(c->arena, AST_INDEX, span);

	e->a = base;
	e->args = *keys;
	return e;
}

/* Strip trailing '$'s (pretty-printing) from a name; returns how many. */
static unsigned parse_pretty(struct parse_ctx *c, const char **name,
			     uint32_t len)
{
	unsigned n = 0;

	while (len > 1 && (*name)[len - 1] == '$' && n < 3) {
		len--;
		n++;
	}
	if (n)
		*name = arena_strndup(c->arena, *name, len);
	return n;
}

void parse_chain_member(struct parse_ctx *c, struct ast_chain *chain,
			const struct token *name, struct src_span span)
{
	const char *s = name->text;
	unsigned pretty = parse_pretty(c, &s, name->len);

	if (chain->pretty)
		parse_err(c, span, "'$' pretty-printing may only end a target variable");
	ast_chain_member(c->arena, chain, s, span);
	chain->pretty = pretty;
}

void parse_chain_pretty(struct parse_ctx *c, struct ast_chain *chain, struct src_span span)
{
	if (chain->pretty >= 2)
		parse_err(c, span, "pretty-printing takes '$' or '$$'");
	else
		chain->pretty++;
}

void parse_chain_append(struct parse_ctx *c, struct ast_chain *dst,
			const struct ast_chain *src)
{
	unsigned i;

	if (src->n && dst->pretty)
		parse_err(c, src->v[0].span,
			  "'$' pretty-printing may only end a target variable");
	for (i = 0; i < src->n; i++) {
		dst->v = arena_grow(c->arena, dst->v, dst->n, &dst->cap,
				    sizeof(*dst->v));
		dst->v[dst->n++] = src->v[i];
	}
	if (src->n)
		dst->pretty = src->pretty;
}

struct ast_expr *parse_target(struct parse_ctx *c, const struct token *t,
			      struct ast_chain *chain, struct src_span span)
{
	const char *name = t->text;
	unsigned pretty = parse_pretty(c, &name, t->len);
	struct ast_expr *e = ast_named(c->arena, AST_TARGET, name, span);

	e->chain = *chain;
	if (pretty && chain->n)
		parse_err(c, chain->v[0].span,
			  "'$' pretty-printing may only end a target variable");
	if (!chain->n)
		e->chain.pretty = pretty;
	return e;
}

struct ast_expr *parse_autocast(struct parse_ctx *c, struct ast_expr *operand,
				struct ast_chain *chain, struct src_span span)
{
	struct ast_expr *e = ast_expr_new(c->arena, AST_AUTOCAST, span);

	e->a = operand;
	e->chain = *chain;
	return e;
}

struct ast_expr *parse_embedded_expr(struct parse_ctx *c,
				     const struct token *t)
{
	parse_need_guru(c, t->span);
	return ast_named(c->arena, AST_EMBEDDED, t->text, t->span);
}

struct ast_expr *parse_guru_op(struct parse_ctx *c, enum ast_expr_kind kind,
			       enum ast_op op, struct ast_expr *a,
			       struct ast_expr *b, struct src_span span)
{
	struct ast_expr *e = ast_expr_new(c->arena, kind, span);

	if (!c->guru)
		parse_err(c, span, "'%s' is only allowed in guru mode (-g)",
			  ast_op_spelling(op));
	e->op = op;
	e->a = a;
	e->b = b;
	return e;
}

struct ast_expr *parse_perf(struct parse_ctx *c, const struct token *name,
			    struct src_span span)
{
	if (name->len == 0)
		parse_err(c, name->span, "@perf needs the name of a perf counter");
	return ast_named(c->arena, AST_PERF, name->text, span);
}

/* ================= foreach ================= */

struct ast_foreach *parse_foreach_key(struct parse_ctx *c,
				      struct ast_foreach *fe,
				      const struct token *name, int dir,
				      struct src_span at)
{
	if (!fe)
		fe = arena_alloc(c->arena, sizeof(*fe));
	ast_list_push(c->arena, &fe->keys,
		      ast_named(c->arena, AST_VAR, name->text, name->span));
	if (dir && fe->sort_key)
		parse_err(c, at, "foreach may have only one sort directive");
	else if (dir) {
		fe->sort_key = (int)fe->keys.n;
		fe->sort_dir = dir;
	}
	return fe;
}

struct ast_foreach *parse_foreach_rest(struct parse_ctx *c,
				       struct ast_expr *array,
				       struct ast_list *slice, int sort,
				       struct ast_expr *limit,
				       struct src_span sort_at)
{
	struct ast_foreach *r = arena_alloc(c->arena, sizeof(*r));

	r->array = array;
	r->slice = *slice;
	r->has_slice = slice->n > 0;
	r->limit = limit;
	r->sort_dir = (sort & 3) == 0 ? 0 : (sort & 1) ? 1 : -1;
	r->has_sort_stat = (sort >> 2) != 0;
	if (r->has_sort_stat)
		r->sort_stat = (enum ast_op)((sort >> 2) - 1);
	r->body = (struct ast_stmt *)NULL;
	/* Remember where the value sort was written, for the check below. */
	r->value = r->sort_dir ? ast_expr_new(c->arena, AST_STAR, sort_at) : NULL;
	return r;
}

struct ast_foreach *parse_foreach_merge(struct parse_ctx *c,
					struct ast_foreach *keys,
					const struct token *value, int value_dir,
					struct ast_foreach *rest)
{
	/* "foreach (v- = k in a)": the value's sort, as "a-" writes it */
	if (value_dir && rest->sort_dir)
		parse_err(c, value->span, "foreach may have only one sort directive");
	else if (value_dir) {
		rest->sort_dir = value_dir;
		rest->value = ast_expr_new(c->arena, AST_STAR, value->span);
	}
	keys->array = rest->array;
	keys->slice = rest->slice;
	keys->has_slice = rest->has_slice;
	keys->limit = rest->limit;
	if (rest->sort_dir && keys->sort_key) {
		parse_err(c, rest->value->span,
			  "foreach may have only one sort directive");
	} else if (rest->sort_dir) {
		keys->sort_key = -1;
		keys->sort_dir = rest->sort_dir;
		keys->has_sort_stat = rest->has_sort_stat;
		keys->sort_stat = rest->sort_stat;
	}
	if (value)
		keys->value = ast_named(c->arena, AST_VAR, value->text,
					value->span);
	return keys;
}

/* ================= whole-file checks ================= */

static void parse_check_returns(struct parse_ctx *c, const struct ast_stmt *s);

static void parse_check_list(struct parse_ctx *c, const struct ast_stmt_list *l)
{
	unsigned i;

	for (i = 0; i < l->n; i++)
		parse_check_returns(c, l->v[i]);
}

/* 'return' belongs to functions; a probe handler ends with 'next'. */
static void parse_check_returns(struct parse_ctx *c, const struct ast_stmt *s)
{
	if (!s)
		return;
	if (s->kind == AST_S_RETURN)
		parse_err(c, s->span,
			  "'return' outside a function (use 'next' to leave a probe handler)");
	parse_check_list(c, &s->body);
	parse_check_returns(c, s->s1);
	parse_check_returns(c, s->s2);
	if (s->fe)
		parse_check_returns(c, s->fe->body);
}

/* Globals (private or not) may be declared once per file. */
static int parse_cmp_globals(const void *x, const void *y)
{
	const struct ast_decl *a = *(const struct ast_decl *const *)x;
	const struct ast_decl *b = *(const struct ast_decl *const *)y;
	int r = strcmp(a->global->name, b->global->name);

	/* Same name: source order, so the first declaration comes first. */
	return r ? r : a->span.start < b->span.start ? -1 : a->span.start > b->span.start;
}

static void parse_check_globals(struct parse_ctx *c)
{
	const struct ast_file *f = c->file;
	const struct ast_decl **g = arena_alloc(c->arena, (f->n + 1) * sizeof(*g));
	unsigned i, n = 0, first = 0;
	char where[32];

	for (i = 0; i < f->n; i++)
		if (f->decls[i]->kind == AST_D_GLOBAL)
			g[n++] = f->decls[i];
	qsort(g, n, sizeof(*g), parse_cmp_globals);
	for (i = 1; i < n; i++) {
		if (strcmp(g[i]->global->name, g[first]->global->name) != 0) {
			first = i;
			continue;
		}
		parse_err(c, g[i]->span, "global '%s' is already declared at %s",
			  g[i]->global->name,
			  diag_where(c->diag, g[first]->span, where, sizeof(where)));
	}
}

static void parse_check_file(struct parse_ctx *c)
{
	unsigned i;

	for (i = 0; i < c->file->n; i++)
		if (c->file->decls[i]->kind == AST_D_PROBE)
			parse_check_returns(c, c->file->decls[i]->probe->body);
	parse_check_globals(c);
}

int pr_parse(struct parse_ctx *ctx);

struct ast_file *parse_tokens(struct arena *a, struct diag_sink *d,
			      const struct src_map *src, uint32_t file,
			      const struct token *toks, size_t ntoks,
			      bool guru, bool library)
{
	struct parse_ctx c;
	const struct src_file *sf = src_file(src, file);

	memset(&c, 0, sizeof(c));
	c.arena = a;
	c.diag = d;
	c.src = src;
	c.guru = guru || library;
	c.toks = toks;
	c.ntoks = ntoks;
	c.file = arena_alloc(a, sizeof(*c.file));
	c.file->name = sf ? sf->name : "<input>";
	c.file->file = file;
	c.file->library = library;
	pr_parse(&c);
	/* Every later walk recurses per level: bound the nesting first. */
	if (ast_walk_depth(c.file, d) != 0)
		return c.file;
	parse_check_file(&c);
	if (c.file->n == 0 && c.errors == 0 && d->errors == 0 && !library)
		parse_err(&c, toks[ntoks - 1].span,
			  "the script is empty: no probes, functions or globals");
	return c.file;
}
