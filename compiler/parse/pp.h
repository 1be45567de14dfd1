/*
 * pp.h - pass 1b: the preprocessor.
 *
 * SystemTap's preprocessor works on tokens, not text.  pp_run() reads the
 * lexer's vector for one file and writes the vector the parser sees:
 *
 *   - %( COND %? THEN %: ELSE %) conditionals are evaluated against the
 *     facts of the target (kernel version, arch, CONFIG_*, script
 *     arguments, privilege) and only the chosen branch is kept;
 *   - @define NAME(PARAMS) %( BODY %) definitions are recorded, and @NAME
 *     invocations expanded, with the expansion chain kept in each token's
 *     span for diagnostics;
 *   - $1/@1 and $#/@# are replaced by the script arguments.
 *
 * Macros defined in a library .stpm file are visible to every file;
 * those of a script only from their definition to the end of that file.
 */
#ifndef KTAP_PP_H
#define KTAP_PP_H

#include <stdbool.h>

#include "token.h"

struct arena;
struct diag_sink;
struct src_map;

/* What preprocessor conditions can test. */
struct pp_facts {
	const char *kernel_v;		/* "6.18.44" */
	const char *kernel_vr;		/* "6.18.44-fc-v669" */
	const char *arch;		/* "x86_64" */
	const char *runtime;		/* "kernel" */
	const char *systemtap_v;	/* language version we implement */
	const char *privilege;		/* "stapdev" ... */
	bool guru;			/* -g */
	/* Value of a kernel config option, "" when unset. */
	const char *(*config)(void *ctx, const char *name);
	void *config_ctx;
	char *const *args;		/* script arguments ($1 ...) */
	int nargs;
};

struct pp_macro {
	const char *name;		/* without '@' */
	const char **params;
	unsigned nparams;
	const struct token *body;	/* tokens between %( and %) */
	size_t nbody;
	struct src_span span;		/* the name in the definition */
	bool library;			/* from a tapset .stpm file */
};

/* Macro table shared by the files of one compilation. */
struct pp_macros {
	struct pp_macro *v;
	size_t n, cap;
};

struct pp_ctx {
	struct arena *arena;
	struct diag_sink *diag;
	struct src_map *src;		/* expansions are recorded here */
	const struct pp_facts *facts;
	struct pp_macros *macros;
};

/*
 * Preprocess @in (ending with TOK_EOF) into @out (ending with TOK_EOF).
 * With @library, the file is a .stpm: its definitions become visible to
 * every later file, and anything but @define in it is an error.
 * Returns the number of errors reported.
 */
unsigned pp_run(struct pp_ctx *pp, const struct tok_vec *in,
		struct tok_vec *out, bool library);

/*
 * Evaluate one condition "l op r" (internal to the preprocessor; exposed
 * for unit tests).  Returns 1 true, 0 false, -1 after reporting an error.
 */
int pp_eval_cond(struct pp_ctx *pp, const struct token *l,
		 const struct token *op, const struct token *r);

/* glibc's strverscmp semantics, independent of _GNU_SOURCE. */
int pp_vercmp(const char *a, const char *b);

#endif
