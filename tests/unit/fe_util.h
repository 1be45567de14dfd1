/*
 * fe_util.h - helpers for the front-end unit tests: run pass 1 on a
 * script held in memory, with its diagnostics and its -p1 printout
 * captured as strings.  Include after <cmocka.h>.
 */
#ifndef KTAP_FE_UTIL_H
#define KTAP_FE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "pp.h"
#include "session.h"

struct fe {
	struct ktap_session s;
	int rc;			/* session_parse's */
	char *err, *p1;		/* diagnostics; the -p1 text */
	size_t errlen, p1len;
	FILE *errf;
};

/* Pass 1 on @script with script arguments @args (NULL-terminated). */
static inline struct fe *fe_parse_args(const char *script, char **args)
{
	struct fe *f = calloc(1, sizeof(*f));
	FILE *out;

	assert_non_null(f);
	f->errf = open_memstream(&f->err, &f->errlen);
	session_init(&f->s, f->errf);
	f->s.opt.script_text = script;
	f->s.opt.release = "6.1.0-13-amd64";
	f->s.opt.arch = "x86_64";
	f->s.opt.args = args;
	while (args && args[f->s.opt.nargs])
		f->s.opt.nargs++;
	session_facts(&f->s);
	f->rc = session_parse(&f->s);
	fflush(f->errf);
	out = open_memstream(&f->p1, &f->p1len);
	if (f->rc == 0 && f->s.script)
		ast_print_file(out, f->s.script);
	fclose(out);
	return f;
}

static inline struct fe *fe_parse(const char *script)
{
	return fe_parse_args(script, NULL);
}

static inline void fe_free(struct fe *f)
{
	fclose(f->errf);
	free(f->err);
	free(f->p1);
	session_free(&f->s);
	free(f);
}

/* The -p1 text without its "# ..." header lines. */
static inline const char *fe_body(const struct fe *f)
{
	const char *p = f->p1;

	while (p && p[0] == '#' && p[1] == ' ') {
		p = strchr(p, '\n');
		p = p ? p + 1 : "";
	}
	return p ? p : "";
}

#endif
