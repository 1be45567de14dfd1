/*
 * sema_list.c - stap's -l and -L: the probe points a pattern resolves
 * to, one per line, sorted; with -L each followed by its target
 * variables ("$name:type"): a tracepoint's fields, a function's
 * parameters from DWARF or BTF.
 */
#include "sema.h"
#include "arena.h"
#include "resolve_tpfmt.h"
#include "resolve_elf.h"
#include "resolve_list.h"
#include "resolve_sym.h"

#include <stdlib.h>
#include <string.h>

static int sl_cmp(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* "$field:ctype ..." of a tracepoint's own (non-common) fields. */
static const char *sl_fields(struct arena *a, const struct tpf_event *e)
{
	const char *s = "";
	unsigned i;

	for (i = 0; i < e->nfields; i++) {
		const struct tpf_field *f = &e->fields[i];

		if (f->common)
			continue;
		if (f->kind == TPF_CHARS)
			s = arena_printf(a, "%s $%s:%s[%u]", s, f->name, f->ctype, f->size);
		else
			s = arena_printf(a, "%s $%s:%s", s, f->name, f->ctype);
	}
	return s;
}

static const char *sl_params(struct arena *a, const struct fetch_site *uf)
{
	const char **decls, *s = "";
	unsigned i, n = rlist_decls(a, uf, &decls);

	for (i = 0; i < n; i++)
		s = arena_printf(a, "%s %s", s, decls[i]);
	return s;
}

static const char *sl_line(struct arena *a, const struct sem_probe *p, bool vars)
{
	const struct tpf_event *e = p->event;

	if (!vars && p->family)		/* -l syscall.*: the names, as stap lists them */
		return p->family;
	if (!vars || p->kind != SEM_P_TRACE || !e)
		return p->pp;
	return arena_printf(a, "%s%s", p->pp, e->dyn_func ? sl_params(a, e->dyn_func) :
			    sl_fields(a, e));
}

void sema_list(FILE *out, struct arena *a, const struct sem_prog *p, bool vars)
{
	const char **lines = arena_alloc(a, (p->nprobes + 1) * sizeof(*lines));
	unsigned i, n = 0;

	for (i = 0; i < p->nprobes; i++)
		lines[n++] = sl_line(a, p->probes[i], vars);
	qsort(lines, n, sizeof(*lines), sl_cmp);
	for (i = 0; i < n; i++)
		if (i == 0 || strcmp(lines[i], lines[i - 1]) != 0)
			fprintf(out, "%s\n", lines[i]);
}

/* -v: where each dynamic probe's types came from (stap -v says it too). */
void sema_type_sources(FILE *out, const struct sem_prog *p)
{
	unsigned i;

	for (i = 0; i < p->nprobes; i++) {
		const struct tpf_event *e = p->probes[i]->event;
		const struct fetch_site *uf = e ? e->dyn_func : NULL;

		if (!e || !e->dyn_def)
			continue;
		fprintf(out, "Pass 2: %s: ", p->probes[i]->pp);
		if (!uf)
			fprintf(out, "no target variables (a statement probe)\n");
		else if (uf->btf)
			fprintf(out, "types from the kernel's BTF\n");
		else if (uf->die)
			fprintf(out, "types from the DWARF of %s\n", relf_dwarf_path(uf));
		else if (uf->kernel)
			fprintf(out, "no type information: raw registers ($arg1..., $return)\n");
		else
			fprintf(out, "no type information in %s: raw registers ($arg1...)\n",
				uf->path);
	}
}
