/*
 * sema_libprobe.c - pass 2: the probes a tapset file declares for
 * itself (not aliases), such as argv.stp's begin probe that fills argv.
 *
 * As in stap, such a probe belongs to the program only when the program
 * uses the file.  stap pulls a tapset file in whole when a symbol it
 * resolves is one of the file's functions or globals, then resolves the
 * bodies of all the file's functions and probes, which may pull in more
 * files.  Here the same closure is computed over files: the script's
 * bodies name globals and functions (its own declarations hide the
 * tapset's: the script's own argv is not the tapset's); a file that
 * declares one is used; a used file's function and probe bodies name
 * more.  The rule reads declarations and bodies, not what typing keeps,
 * so the program is the same whether the tapset was parsed whole or
 * lazily (tapset.c parses every file whose names a parsed file uses).
 * A file one of whose probe aliases a probe expanded is used too (stap's
 * PR10568: an alias pulls its file in whole); its probes may expand
 * more aliases, so the closure is taken again until no file is added.
 */
#include "sema_int.h"
#include "arena.h"
#include "ast_walk.h"

#include <stdlib.h>
#include <string.h>

/* A name a library file declares: a function or a global. */
struct lp_decl {
	const char *name;
	unsigned file;
};

struct lp_state {
	const struct ast_file *script;
	struct ast_file *const *lib;
	struct lp_decl *decls;		/* sorted by name */
	size_t ndecls;
	bool *used;			/* per library file */
	unsigned *queue;		/* used files whose bodies are unread */
	unsigned nqueue;
};

static int lp_cmp(const void *a, const void *b)
{
	return strcmp(((const struct lp_decl *)a)->name, ((const struct lp_decl *)b)->name);
}

static const char *lp_decl_name(const struct ast_decl *d)
{
	if (d->kind == AST_D_GLOBAL)
		return d->global->name;
	return d->kind == AST_D_FUNC ? d->func->name : NULL;
}

/* Does file @f declare a function or global @name? */
static bool lp_declares(const struct ast_file *f, const char *name)
{
	unsigned i;

	for (i = 0; i < f->n; i++) {
		const char *n = lp_decl_name(f->decls[i]);

		if (n && !strcmp(n, name))
			return true;
	}
	return false;
}

/* Mark the library files that declare @name (unless the script does). */
static void lp_name(struct lp_state *st, const char *name)
{
	struct lp_decl key = { name, 0 }, *d;

	d = bsearch(&key, st->decls, st->ndecls, sizeof(*d), lp_cmp);
	if (!d || lp_declares(st->script, name))
		return;
	while (d > st->decls && !strcmp(d[-1].name, name))
		d--;
	for (; d < st->decls + st->ndecls && !strcmp(d->name, name); d++)
		if (!st->used[d->file]) {
			st->used[d->file] = true;
			st->queue[st->nqueue++] = d->file;
		}
}

static int lp_visit(struct ast_expr *e, void *arg)
{
	if (e->kind == AST_VAR || e->kind == AST_CALL)
		lp_name(arg, e->str);
	return 0;
}

/* The names @f's function and probe bodies use. */
static void lp_read_bodies(struct lp_state *st, const struct ast_file *f)
{
	unsigned i;

	for (i = 0; i < f->n; i++) {
		const struct ast_decl *d = f->decls[i];

		if (d->kind == AST_D_PROBE && (d->probe->kind == AST_PROBE || f == st->script))
			ast_walk_stmt(d->probe->body, lp_visit, st);
		else if (d->kind == AST_D_FUNC)
			ast_walk_stmt(d->func->body, lp_visit, st);
	}
}

/* Every library file's functions and globals, sorted by name. */
static void lp_index(struct sema_ctx *c, struct lp_state *st)
{
	size_t cap = 0;
	unsigned i, j;

	for (i = 0; i < c->in->nlibrary; i++)
		for (j = 0; j < st->lib[i]->n; j++) {
			const char *n = lp_decl_name(st->lib[i]->decls[j]);

			if (!n)
				continue;
			st->decls = arena_grow(c->arena, st->decls, st->ndecls, &cap,
					       sizeof(*st->decls));
			st->decls[st->ndecls++] = (struct lp_decl){ n, i };
		}
	if (st->ndecls)
		qsort(st->decls, st->ndecls, sizeof(*st->decls), lp_cmp);
}

static bool lp_has_probes(const struct ast_file *f)
{
	unsigned i;

	for (i = 0; i < f->n; i++)
		if (f->decls[i]->kind == AST_D_PROBE && f->decls[i]->probe->kind == AST_PROBE)
			return true;
	return false;
}

/* Is there a library file with probes of its own at all? */
static bool lp_any_probes(const struct sema_input *in)
{
	unsigned i;

	for (i = 0; i < in->nlibrary; i++)
		if (lp_has_probes(in->library[i]))
			return true;
	return false;
}

/* Whether a probe expanded one of @f's aliases. */
static bool lp_alias_expanded(const struct sema_ctx *c, const struct ast_file *f)
{
	unsigned i, k;

	for (i = 0; i < f->n; i++)
		for (k = 0; f->decls[i]->kind == AST_D_PROBE &&
			    f->decls[i]->probe->kind != AST_PROBE && k < c->naliases; k++)
			if (c->aliases[k].decl == f->decls[i]->probe && c->aliases[k].expanded)
				return true;
	return false;
}

/* Mark the files whose aliases were expanded; how many are new. */
static unsigned lp_alias_files(const struct sema_ctx *c, struct lp_state *st)
{
	unsigned i, n = 0;

	for (i = 0; i < c->in->nlibrary; i++)
		if (!st->used[i] && lp_has_probes(st->lib[i]) &&
		    lp_alias_expanded(c, st->lib[i])) {
			st->used[i] = true;
			st->queue[st->nqueue++] = i;
			n++;
		}
	return n;
}

/* The probes of the used files not resolved yet, in the library's order. */
static void lp_resolve_used(struct sema_ctx *c, const struct lp_state *st, bool *done)
{
	unsigned i, j;

	for (i = 0; i < c->in->nlibrary; i++) {
		const struct ast_file *f = c->in->library[i];

		if (!st->used[i] || done[i])
			continue;
		done[i] = true;
		for (j = 0; j < f->n; j++)
			if (f->decls[j]->kind == AST_D_PROBE && f->decls[j]->probe->kind == AST_PROBE)
				sema_resolve_probe(c, f->decls[j]->probe);
	}
}

void sema_library_probes(struct sema_ctx *c)
{
	struct lp_state st;
	unsigned read = 0;
	bool *done;

	if (!lp_any_probes(c->in))
		return;		/* the usual case: nothing to compute */
	memset(&st, 0, sizeof(st));
	st.script = c->in->script;
	st.lib = c->in->library;
	st.used = arena_alloc(c->arena, c->in->nlibrary * sizeof(*st.used));
	st.queue = arena_alloc(c->arena, c->in->nlibrary * sizeof(*st.queue));
	done = arena_alloc(c->arena, c->in->nlibrary * sizeof(*done));
	lp_index(c, &st);
	lp_read_bodies(&st, st.script);
	lp_alias_files(c, &st);
	do {
		for (; read < st.nqueue; read++)
			lp_read_bodies(&st, st.lib[st.queue[read]]);
		lp_resolve_used(c, &st, done);
	} while (lp_alias_files(c, &st));
}
