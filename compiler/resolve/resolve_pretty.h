/*
 * resolve_pretty.h - pass 2: pretty printing of target variables as
 * stap does it ($var$, $var$$, $$vars, $$parms, $$locals, $$return), for
 * DWARF and BTF types alike, as a list of pieces: text, and values, each
 * a target variable (@var with @chain) and the way stap formats it.
 * Values the kernel cannot fetch are already text ("?").
 */
#ifndef KTAP_RESOLVE_PRETTY_H
#define KTAP_RESOLVE_PRETTY_H

#include <stdbool.h>
#include <stddef.h>

#include "ast.h"
#include "fetch.h"

struct arena;

enum rpretty_fmt {
	RPRETTY_TEXT,	/* @text */
	RPRETTY_HEX,	/* %#x */
	RPRETTY_INT,	/* %i */
	RPRETTY_UINT,	/* %u */
	RPRETTY_CHAR,	/* '%c' */
	RPRETTY_STRING,	/* "%s" */
	RPRETTY_PTR,	/* %p */
};

struct rpretty_item {
	enum rpretty_fmt fmt;
	const char *text;
	const char *var;	/* NULL: of rpretty_cast()'s cast */
	struct ast_chain chain;
};

/* stap prints at most this many values in one pretty-printed string. */
#define RPRETTY_MAX 32

/*
 * $var->chain$ (@chain->pretty 1) or $$ (2, nested structs expanded) as
 * stap prints it; -1 + @err when @var itself cannot be resolved.
 */
int rpretty_var(struct arena *a, const struct fetch_site *fn, const char *var,
		const struct ast_chain *chain, bool ret, struct rpretty_item **out,
		unsigned *n, char *err, size_t errlen);

/*
 * @cast(A, "@type")->chain$ (or $$): the same, of the struct at A; the
 * items' values are that cast with their chains (var NULL).
 */
int rpretty_cast(struct arena *a, const struct fetch_site *fn, const char *type,
		 const struct ast_chain *chain, struct rpretty_item **out, unsigned *n,
		 char *err, size_t errlen);

/*
 * $$vars, $$parms or $$locals (@which), pretty with @pretty ($$vars$):
 * "name=value" for each variable in scope at the probe, "name=?" for
 * one without a location there; $$return: "return=VALUE" in a return
 * probe of a function that returns something.  Returns the number of
 * items.
 */
unsigned rpretty_context(struct arena *a, const struct fetch_site *fn, const char *which,
			 unsigned pretty, bool ret, struct rpretty_item **out);

#endif
