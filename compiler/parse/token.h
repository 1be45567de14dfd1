/*
 * token.h - tokens as the lexer produces them and the preprocessor and
 * parser consume them.
 *
 * The lexer turns a whole file into a token vector up front; the
 * preprocessor rewrites vectors (conditionals, macros, script arguments);
 * the parser reads the final vector.  Token text and values live in the
 * compilation's arena.
 */
#ifndef KTAP_TOKEN_H
#define KTAP_TOKEN_H

#include <stdbool.h>
#include <stdint.h>

#include "source.h"

struct arena;

enum tok_class { TC_OP, TC_KW, TC_AT, TC_LIT, TC_PP, TC_SPECIAL };

enum tok_kind {
#define TOK(name, spelling, cls) TOK_##name,
#include "token.def"
#undef TOK
	TOK__COUNT
};

struct token {
	enum tok_kind kind;
	struct src_span span;
	/*
	 * IDENT/TARGET/AT_*: the name as written; STRING: the decoded value
	 * (may contain NUL, see len); EMBEDDED: the code between %{ and %};
	 * NUMBER: the digits as written; ARG_NUM/ARG_STR: the digits.
	 */
	const char *text;
	uint32_t len;
	int64_t num;		/* NUMBER's value (two's complement) */
	bool ws_before;		/* whitespace or a comment precedes it */
};

struct tok_vec {
	struct token *v;
	size_t n;
	size_t cap;
};

/* Append @t to @vec (storage from @a). */
void tok_push(struct arena *a, struct tok_vec *vec, const struct token *t);

/* How diagnostics name a token kind: "'('", "identifier", "probe". */
const char *tok_kind_name(enum tok_kind k);
enum tok_class tok_kind_class(enum tok_kind k);

/*
 * How diagnostics name a particular token: the spelling of operators and
 * keywords, "identifier 'foo'", "string \"...\"", "number 42".  The
 * result is in @buf.
 */
const char *tok_describe(const struct token *t, char *buf, unsigned size);

/* Keyword or @-word for @s (length @n), or TOK_EOF when it is neither. */
enum tok_kind tok_keyword(const char *s, unsigned n);

#endif
