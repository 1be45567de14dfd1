/*
 * parse.h - pass 1c: tokens to AST.
 *
 * parse_tokens() runs the bison parser (parser.y) over a preprocessed
 * token vector.  Between the vector and the parser sits a small feeder
 * that knows the one context-sensitive part of the language: probe
 * points, where "a*b" glued without spaces is one wildcard component,
 * keywords are ordinary names ("kernel.function(...).return"), and
 * "{a,b}" is a brace expansion rather than a block.  The feeder also
 * glues adjacent string literals, lets keywords be member names after
 * "->", and tracks open brackets so errors can say which one is unclosed.
 */
#ifndef KTAP_PARSE_H
#define KTAP_PARSE_H

#include <stdbool.h>

#include "ast.h"
#include "token.h"

struct arena;
struct diag_sink;
struct src_map;

enum parse_mode {
	PM_NORMAL,	/* statements and expressions */
	PM_PP_START,	/* probe point: a component name is next */
	PM_PP_AFTER,	/* probe point: after a component */
	PM_PP_ARG,	/* inside a component's (argument) */
	PM_PP_COND,	/* inside a probe point's if (condition) */
};

struct parse_open {
	enum tok_kind kind;		/* ( [ { or PPLBRACE */
	struct src_span span;
};

struct parse_ctx {
	struct arena *arena;
	struct diag_sink *diag;
	const struct src_map *src;
	bool guru;			/* -g: embedded C is accepted */
	/* input */
	const struct token *toks;
	size_t ntoks, pos;
	const struct token *cur;	/* the token last handed to bison */
	/* feeder state */
	enum parse_mode mode;
	unsigned braces;		/* depth of { } outside probe points */
	unsigned pp_braces;		/* depth of brace expansions */
	unsigned pp_parens;		/* depth of ( ) in ARG/COND mode */
	enum tok_kind last;		/* kind of the previous token */
	struct parse_open *open;
	size_t nopen, capopen;
	/* output */
	struct ast_file *file;
	unsigned errors;
};

/*
 * Parse @toks (ending with TOK_EOF) of file @file into an ast_file in
 * @a.  Errors go to @d.  Returns the file (possibly partial); check
 * d->errors.
 */
struct ast_file *parse_tokens(struct arena *a, struct diag_sink *d,
			      const struct src_map *src, uint32_t file,
			      const struct token *toks, size_t ntoks,
			      bool guru, bool library);

/* ---- helpers called from grammar actions (parse.c) ---- */

/* One set of alternative probe points under construction (brace expansion). */
struct parse_alts {
	struct ast_ppoint **v;
	unsigned n;
	size_t cap;
};

struct parse_alts *parse_alts_one(struct parse_ctx *c, const struct token *name,
				  struct ast_expr *arg, struct src_span span);
struct parse_alts *parse_alts_cross(struct parse_ctx *c, struct parse_alts *l,
				    struct parse_alts *r, struct src_span at);
struct parse_alts *parse_alts_union(struct parse_ctx *c, struct parse_alts *l,
				    struct parse_alts *r);
struct parse_alts *parse_alts_mark(struct parse_ctx *c, struct parse_alts *s,
				   int suffix, struct ast_expr *cond);
void parse_point_finish(struct parse_ctx *c, struct ast_pplist *out,
			struct parse_alts *alts, int suffix,
			struct ast_expr *cond);

struct ast_probe *parse_probe(struct parse_ctx *c, enum ast_probe_kind kind,
			      struct ast_pplist *names, struct ast_pplist *points,
			      struct ast_stmt *body, struct src_span span);
/* The globals of one 'global' declaration, until its end is seen. */
struct parse_globals {
	struct ast_global **v;
	unsigned n;
	size_t cap;
};

void parse_global(struct parse_ctx *c, struct parse_globals *list,
		  const struct token *name, bool wrap,
		  const struct token *size, struct ast_expr *init);
void parse_globals_done(struct parse_ctx *c, struct parse_globals *list,
			bool private_);
struct ast_func *parse_func_begin(struct parse_ctx *c, const struct token *name,
				  enum ast_type type);
void parse_func_param(struct parse_ctx *c, struct ast_func *f,
		      const struct token *name, enum ast_type type);
/* ":PRIORITY" after a function's parameters (stap's runtime overloading). */
void parse_func_priority(struct parse_ctx *c, struct ast_func *f, const struct token *n);
void parse_func_end(struct parse_ctx *c, struct ast_func *f,
		    struct ast_stmt *body, const struct token *embedded,
		    bool private_, struct src_span span);
void parse_embedded_decl(struct parse_ctx *c, const struct token *code);

struct ast_expr *parse_literal_num(struct parse_ctx *c, const struct token *t,
				   bool negative, struct src_span span);
struct ast_expr *parse_literal_str(struct parse_ctx *c, const struct token *t);
struct ast_expr *parse_call(struct parse_ctx *c, const struct token *name,
			    struct ast_list *args, struct src_span span);
struct ast_expr *parse_target(struct parse_ctx *c, const struct token *t,
			      struct ast_chain *chain, struct src_span span);
struct ast_expr *parse_autocast(struct parse_ctx *c, struct ast_expr *operand,
				struct ast_chain *chain, struct src_span span);
void parse_chain_member(struct parse_ctx *c, struct ast_chain *chain,
			const struct token *name, struct src_span span);
/* A '$' after a chain (@cast(...)$, $p[0]$): one more pretty-printing level. */
void parse_chain_pretty(struct parse_ctx *c, struct ast_chain *chain, struct src_span span);
void parse_chain_append(struct parse_ctx *c, struct ast_chain *dst,
			const struct ast_chain *src);
struct ast_expr *parse_index(struct parse_ctx *c, struct ast_expr *base,
			     struct ast_list *keys, struct src_span span);
struct ast_expr *parse_embedded_expr(struct parse_ctx *c,
				     const struct token *t);
struct ast_expr *parse_guru_op(struct parse_ctx *c, enum ast_expr_kind kind,
			       enum ast_op op, struct ast_expr *a,
			       struct ast_expr *b, struct src_span span);
struct ast_expr *parse_perf(struct parse_ctx *c, const struct token *name,
			    struct src_span span);

struct ast_foreach *parse_foreach_key(struct parse_ctx *c,
				      struct ast_foreach *fe,
				      const struct token *name, int dir,
				      struct src_span at);
struct ast_foreach *parse_foreach_rest(struct parse_ctx *c,
				       struct ast_expr *array,
				       struct ast_list *slice, int sort,
				       struct ast_expr *limit,
				       struct src_span sort_at);
struct ast_foreach *parse_foreach_merge(struct parse_ctx *c,
					struct ast_foreach *keys,
					const struct token *value, int value_dir,
					struct ast_foreach *rest);

/* The parser's terminal for a token kind, and syntax error reporting. */
int parse_bison_token(enum tok_kind k);
void parse_report(struct parse_ctx *c, const enum tok_kind *expected,
		  unsigned n);

#endif
