/*
 * sema_libprobe.c - pass 2: the probes a tapset file declares for
 * itself (not aliases), such as argv.stp's begin probe that fills argv.
 *
 * As in stap, such a probe belongs to the program only when the script
 * uses the file: here, when the script names one of the globals the
 * file declares (and does not declare that global itself: the script's
 * own argv is not the tapset's).  The rule reads the script alone, so the program is the
 * same whether the tapset was parsed whole or lazily (tapset.c: a file
 * whose globals the script names is always among those parsed).
 */
#include "sema_int.h"
#include "ast_walk.h"

#include <string.h>

struct lp_names {
	const struct ast_file *lib;	/* whose globals are looked for */
	const struct ast_file *script;	/* its own globals hide the tapset's */
	bool found;
};

/* Does file @f declare global @name? */
static bool lp_declares(const struct ast_file *f, const char *name)
{
	unsigned i;

	for (i = 0; i < f->n; i++)
		if (f->decls[i]->kind == AST_D_GLOBAL &&
		    !strcmp(f->decls[i]->global->name, name))
			return true;
	return false;
}

static int lp_visit(struct ast_expr *e, void *arg)
{
	struct lp_names *n = arg;

	if (e->kind == AST_VAR && lp_declares(n->lib, e->str) &&
	    !lp_declares(n->script, e->str)) {
		n->found = true;
		return -1;
	}
	return 0;
}

/* Does the script name a global of @lib in a probe or function body? */
static bool lp_script_uses(const struct ast_file *script, const struct ast_file *lib)
{
	struct lp_names n = { lib, script, false };
	unsigned i;

	for (i = 0; i < script->n && !n.found; i++) {
		const struct ast_decl *d = script->decls[i];

		if (d->kind == AST_D_PROBE)
			ast_walk_stmt(d->probe->body, lp_visit, &n);
		else if (d->kind == AST_D_FUNC)
			ast_walk_stmt(d->func->body, lp_visit, &n);
	}
	return n.found;
}

static bool lp_has_probes(const struct ast_file *f)
{
	unsigned i;

	for (i = 0; i < f->n; i++)
		if (f->decls[i]->kind == AST_D_PROBE && f->decls[i]->probe->kind == AST_PROBE)
			return true;
	return false;
}

void sema_library_probes(struct sema_ctx *c)
{
	unsigned i, j;

	for (i = 0; i < c->in->nlibrary; i++) {
		const struct ast_file *f = c->in->library[i];

		if (!lp_has_probes(f) || !lp_script_uses(c->in->script, f))
			continue;
		for (j = 0; j < f->n; j++)
			if (f->decls[j]->kind == AST_D_PROBE &&
			    f->decls[j]->probe->kind == AST_PROBE)
				sema_resolve_probe(c, f->decls[j]->probe);
	}
}
