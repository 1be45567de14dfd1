/*
 * lexer.h - pass 1a: script text to tokens.
 *
 * The lexer (lexer.l, a reentrant flex scanner) reads one whole file and
 * appends its tokens to a vector, ending with TOK_EOF.  Malformed tokens
 * (bad numbers, unterminated strings or comments, stray characters) are
 * reported to the diagnostic sink and skipped or replaced so that parsing
 * can go on and find more problems.
 */
#ifndef KTAP_LEXER_H
#define KTAP_LEXER_H

#include "token.h"

struct arena;
struct diag_sink;
struct src_map;

/* Tokenize file @file of @src into @out.  Returns the number of errors. */
unsigned lex_file(struct arena *a, struct diag_sink *d,
		  const struct src_map *src, uint32_t file,
		  struct tok_vec *out);

/*
 * Tokenize @text (not part of any file: a script argument substituted for
 * $1) into @out, without a final TOK_EOF.  Every token gets the span @at.
 * Returns the number of errors.
 */
unsigned lex_text(struct arena *a, struct diag_sink *d, const char *text,
		  size_t len, struct src_span at, struct tok_vec *out);

#endif
