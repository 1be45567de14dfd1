/*
 * sema.c - pass 2 driver: collects the declarations of the script and
 * the tapset, runs the steps of the pass in order, and makes the checks
 * that need the whole program (see sema.h).  Nothing else in pass 2
 * calls back into it: symbol and builtin tables are in sema_sym.c,
 * probe points are resolved in sema_probe.c, alias locals elided in
 * sema_elide.c, types inferred in sema_type.c, -p2 printed in
 * sema_print.c.
 */
#include "sema_int.h"
#include "arena.h"
#include "diag.h"

#include <string.h>

static void sema_add_global(struct sema_ctx *c, const struct ast_global *g,
			    bool library)
{
	struct sem_prog *p = c->prog;
	struct sem_sym *s = sema_global(c, g->name);

	if (s) {
		/* The tapset may not clash with the script, nor the script with
		   itself (pass 1 caught duplicates within one file). */
		if (!library || !s->decl)
			diag_error(c->diag, g->span, "global '%s' is declared twice",
				   g->name);
		return;
	}
	s = arena_alloc(c->arena, sizeof(*s));
	s->name = g->name;
	s->kind = SEM_GLOBAL;
	s->span = g->span;
	s->decl = g;
	s->library = library;
	s->is_array = g->is_array || g->wrap;
	if (g->init)
		s->type = g->init->kind == AST_STR ? SEM_STRING : SEM_LONG;
	s->slot = p->nglobals;
	p->globals = arena_grow(c->arena, p->globals, p->nglobals, &p->gcap,
				sizeof(*p->globals));
	p->globals[p->nglobals++] = s;
}

static void sema_add_func(struct sema_ctx *c, const struct ast_func *f, bool library)
{
	/* Functions of one name are overloads (sema_overload.c): by their
	   number of parameters, or of one arity chained by "next".  A
	   tapset function the script defines too is the chain's last. */
	(void)library;
	if (f->embedded)
		diag_error(c->diag, f->span,
			   "function '%s' is written in embedded C, which ktap does not compile",
			   f->name);
	c->fdecls = arena_grow(c->arena, c->fdecls, c->nfdecls, &c->fdcap,
			       sizeof(*c->fdecls));
	c->fdecls[c->nfdecls++] = f;
}

static void sema_add_alias(struct sema_ctx *c, const struct ast_probe *p)
{
	unsigned i, k;

	for (i = 0; i < p->names.n; i++) {
		/* a whole component "*" is a pattern, no name (stap refuses it
		   when it binds the alias; "wild*" it takes) */
		for (k = 0; k < p->names.v[i]->n; k++)
			if (!strcmp(p->names.v[i]->comps[k].name, "*")) {
				diag_error(c->diag, p->names.v[i]->span, "'*' as a component of a "
					   "probe alias's name: it would name every component there "
					   "(a wildcard belongs in the probe points that use the alias)");
				break;
			}
		c->aliases = arena_grow(c->arena, c->aliases, c->naliases,
					&c->acap, sizeof(*c->aliases));
		/* the whole entry: arena_grow() leaves the new room undefined */
		c->aliases[c->naliases++] = (struct sema_alias){ .name = p->names.v[i],
								 .decl = p };
	}
}

/* Globals, functions and aliases of one file. */
static void sema_collect(struct sema_ctx *c, const struct ast_file *f)
{
	unsigned i;

	for (i = 0; i < f->n; i++) {
		const struct ast_decl *d = f->decls[i];

		switch (d->kind) {
		case AST_D_GLOBAL:
			sema_add_global(c, d->global, f->library);
			break;
		case AST_D_FUNC:
			sema_add_func(c, d->func, f->library);
			break;
		case AST_D_PROBE:
			if (d->probe->kind != AST_PROBE)
				sema_add_alias(c, d->probe);
			break;
		case AST_D_EMBEDDED:
			if (!f->library)
				diag_error(c->diag, d->span,
					   "embedded C code is not supported: ktap never compiles C");
			break;
		}
	}
}

/*
 * Warn about variables that are written but never read, and the reverse.
 * The first is stap's elision warning, which its optimizer prints: -u
 * (no optimization) has none, as stap's.  The second is its type pass's
 * "never-assigned local variable", printed with -u too.
 */
static void sema_check_locals(struct sema_ctx *c, struct sem_sym **v,
			      unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		if (v[i]->kind != SEM_LOCAL)
			continue;
		if (v[i]->written && !v[i]->read) {
			if (!c->in->unoptimized)
			diag_warning(c->diag, v[i]->span,
				     "variable '%s' is assigned but never read",
				     v[i]->name);
		} else if (v[i]->read && !v[i]->written)
			diag_warning(c->diag, v[i]->span,
				     "variable '%s' is read but never assigned (it is always %s)",
				     v[i]->name, v[i]->type == SEM_STRING ? "\"\"" : "0");
	}
}

static void sema_final_checks(struct sema_ctx *c)
{
	struct sem_prog *p = c->prog;
	unsigned i;

	for (i = 0; i < p->nprobes; i++)
		sema_check_locals(c, p->probes[i]->locals, p->probes[i]->nlocals);
	for (i = 0; i < p->nfuncs; i++)
		sema_check_locals(c, p->funcs[i]->locals, p->funcs[i]->nlocals);
	/* As stap's: a script's global no probe or function that runs uses
	   (its optimizer's warning: none with -u). */
	for (i = 0; i < p->nglobals && !c->in->unoptimized; i++)
		if (!p->globals[i]->library && !p->globals[i]->read && !p->globals[i]->written)
			diag_warning(c->diag, p->globals[i]->span, "eliding unused variable '%s'",
				     p->globals[i]->name);
	/* A script of 'never' probes is valid, as in stap: it runs nothing. */
	if (p->nprobes == 0 && c->diag->errors == 0 && !c->saw_never && c->dropped_why &&
	    !c->dropped_missing)
		diag_error(c->diag, c->in->script->n ?
			   c->in->script->decls[0]->span : (struct src_span){ 0, 0, 0, 0 },
			   "no probes: the script has nothing to run on this kernel: %s",
			   c->dropped_why);
	else if (p->nprobes == 0 && c->diag->errors == 0 && !c->saw_never && c->dropped_missing)
		diag_error(c->diag, c->in->script->n ?
			   c->in->script->decls[0]->span : (struct src_span){ 0, 0, 0, 0 },
			   "no probes: the script has nothing to run on this kernel: its "
			   "optional probe points need %s", c->dropped_missing);
	else if (p->nprobes == 0 && c->diag->errors == 0 && !c->saw_never)
		diag_error(c->diag, c->in->script->n ?
			   c->in->script->decls[0]->span : (struct src_span){ 0, 0, 0, 0 },
			   "no probes: the script has nothing to run");
}

/*
 * Drop the tapset's globals that nothing used (those of functions the
 * script does not call): they cost nothing, and the program is then the
 * same whether the tapset was parsed whole or only the files the script
 * needs (tapset.c's lazy loading).
 */
static void sema_prune_globals(struct sema_ctx *c)
{
	struct sem_prog *p = c->prog;
	unsigned i, n = 0;

	for (i = 0; i < p->nglobals; i++) {
		struct sem_sym *s = p->globals[i];

		if (s->library && !s->read && !s->written)
			continue;
		s->slot = n;
		p->globals[n++] = s;
	}
	p->nglobals = n;
}

struct sem_prog *sema_run(struct arena *a, struct diag_sink *d,
			  const struct sema_input *in)
{
	struct sema_ctx c;
	unsigned i, j;

	memset(&c, 0, sizeof(c));
	c.arena = a;
	c.diag = d;
	c.in = in;
	c.prog = arena_alloc(a, sizeof(*c.prog));
	sema_collect(&c, in->script);
	c.nscript_fdecls = c.nfdecls;
	for (i = 0; i < in->nlibrary; i++)
		sema_collect(&c, in->library[i]);
	sema_overloads(&c);
	for (i = 0; i < in->script->n; i++) {
		const struct ast_decl *dl = in->script->decls[i];

		if (dl->kind == AST_D_PROBE && dl->probe->kind == AST_PROBE)
			sema_resolve_probe(&c, dl->probe);
	}
	sema_library_probes(&c);
	sema_context_order(&c);
	sema_procfs_check(&c);
	/* Before typing: what has no effect goes (with what it would have
	   needed), then syscall probes that still read user memory get it. */
	if (!in->unoptimized)
		sema_elide_shapes(&c);
	for (j = 0; j < c.prog->nprobes; j++) {
		sema_autocast(&c, c.prog->probes[j]);
		sema_probewrite(&c, c.prog->probes[j]);
		if (in->list_vars)
			sema_list_vars(&c, c.prog->probes[j]);
		if (!in->unoptimized)
			sema_elide(&c, c.prog->probes[j]);
		sema_syscall_fetch(&c, c.prog->probes[j]);
		/* task_current() in begin or end, also through functions */
		if (sema_spec_reads_current(&c, c.prog->probes[j]->body, c.prog->probes[j]->cond))
			sema_trigger_attach(&c, c.prog->probes[j]);
		c.nautocast = 0;	/* the next probe's (functions have none) */
	}
	if (!in->unoptimized)
		sema_elide_funcs(&c);
	if (d->errors)
		return NULL;
	sema_check_dropped(&c);
	sema_types(&c);
	if (d->errors)
		return NULL;
	sema_check(&c);
	if (!in->unoptimized)
		sema_spec_fold(&c);
	if (!d->errors)
		sema_elide_warn(&c);
	sema_final_checks(&c);
	sema_prune_globals(&c);
	return d->errors ? NULL : c.prog;
}
