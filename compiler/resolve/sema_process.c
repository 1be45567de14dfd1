/*
 * sema_process.c - pass 2: process() probe points, as uprobes: a
 * function's entry, return, inlined copies and labels, a source line,
 * an SDT marker, PLT stubs; process("GLOB") and .library("LIB") expand
 * to the points of the files they name, which sema_probe.c resolves.
 */
#include "sema_int.h"
#include "arena.h"
#include "diag.h"
#include "resolve_elf.h"
#include "resolve_sdt.h"
#include "resolve_sym.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A uprobe at statement @uf (a line's, a label's), event named @what. */
static void point_emit_stmt(struct sema_ctx *c, struct point_state *st, struct fetch_site *uf,
			    const char *what, const char *pp)
{
	struct tpf_event *ev = arena_alloc(c->arena, sizeof(*ev));
	struct sem_probe *sp;

	memset(ev, 0, sizeof(*ev));
	ev->system = "ktap_$PID";
	ev->name = point_event_name(c, what);
	ev->dyn = sema_point_dynevent(c, ev, KP_UPROBE,
				      arena_printf(c->arena, "%s:0x%llx", uf->path,
						   (unsigned long long)uf->offset),
				      sema_point_origin(c, st->written));
	ev->dyn_func = uf;
	sp = point_emit(c, st, SEM_P_TRACE, pp);
	sp->event = ev;
}

/*
 * process("PATH").statement("FUNC@FILE:LINE"): a uprobe at the first
 * instruction of a source line, from the DWARF line table.  Target
 * variables there are the variables in scope, read through their DWARF
 * locations at that address (resolve_dwarf.c).
 */
static int point_process_statement(struct sema_ctx *c, struct point_state *st,
				const struct ast_ppoint *p)
{
	const struct ast_expr *path = p->comps[0].arg, *arg = p->n > 1 ? p->comps[1].arg : NULL;
	const char *spec, *at, *colon;
	struct fetch_site *uf = arena_alloc(c->arena, sizeof(*uf));
	char err[512];

	if (p->n != 2 || !sema_point_is(p, 0, "process") || !sema_point_is(p, 1, "statement"))
		return 0;
	spec = arg && arg->kind == AST_STR ? arena_strndup(c->arena, arg->str, arg->len) : "";
	at = strchr(spec, '@');
	colon = at ? strrchr(at, ':') : NULL;
	if (!path || path->kind != AST_STR || !colon || atoi(colon + 1) <= 0) {
		diag_error(c->diag, p->span,
			   "expected process(\"PATH\").statement(\"FUNC@FILE:LINE\")");
		return -1;
	}
	if (rsym_line(c->in->up, c->arena, arena_strndup(c->arena, path->str, path->len),
		    arena_strndup(c->arena, at + 1, (size_t)(colon - at - 1)), atoi(colon + 1),
		    uf, err, sizeof(err)) != 0) {
		if (!st->optional)
			sema_point_unresolved(c, arg->span, err);
		return st->optional ? 1 : -1;
	}
	point_emit_stmt(c, st, uf, "line", arena_printf(c->arena,
			"process(\"%s\").statement(\"%s\")", uf->path, spec));
	return 1;
}

/*
 * process("PATH").mark("NAME") and process("PATH").provider("P").mark("NAME")
 * (globs both): a uprobe on each SDT marker (resolve_sdt.c); its
 * semaphore is the uprobe's reference counter, so the kernel sets it
 * while the probe is attached and markers guarded by it fire only then.
 */
static int point_process_mark(struct sema_ctx *c, struct point_state *st,
			      const struct ast_ppoint *p)
{
	const char *path, *prov = NULL, *name;
	struct relf_file *u;
	struct rsdt_mark *m = NULL;
	char err[600], why[64];
	int i, n;

	if (p->n < 2 || p->n > 3 || !sema_point_is(p, 0, "process") || !sema_point_is(p, p->n - 1, "mark") ||
	    (p->n == 3 && !sema_point_is(p, 1, "provider")))
		return 0;
	path = point_str_arg(c, p, 0);
	name = point_str_arg(c, p, p->n - 1);
	if (p->n == 3)
		prov = point_str_arg(c, p, 1);
	if (!path || !name || (p->n == 3 && !prov)) {
		diag_error(c->diag, p->span, "expected process(\"PATH\").mark(\"NAME\") or "
			   "process(\"PATH\").provider(\"P\").mark(\"NAME\")");
		return -1;
	}
	if (!c->in->up) {
		diag_error(c->diag, p->span, "process() probes are not available here");
		return -1;
	}
	u = relf_open(c->in->up, path, err, sizeof(err));
	n = u ? rsdt_marks(c->arena, u->elf, prov, name, &m, why, sizeof(why)) : -1;
	if (n < 0 || (n == 0 && !st->optional)) {
		if (u)
			snprintf(err, sizeof(err), n ? "%s has no SDT markers (%s)" :
				 "no SDT marker matches \"%s\" in %s", n ? u->path : name,
				 n ? why : u->path);
		if (!st->optional)
			sema_point_unresolved(c, p->span, err);
		return st->optional ? 1 : -1;
	}
	for (i = 0; i < n; i++) {
		struct fetch_site *uf = arena_alloc(c->arena, sizeof(*uf));

		memset(uf, 0, sizeof(*uf));
		uf->path = arena_strdup(c->arena, u->path);
		uf->name = m[i].name;
		uf->offset = m[i].offset;
		uf->addr = m[i].pc;
		uf->file = u;
		uf->sdt = &m[i];
		point_emit_dyn(c, st, uf, uf->path, false,
			    arena_printf(c->arena, "process(\"%s\")%s%s%s.mark(\"%s\")", uf->path,
					 prov ? ".provider(\"" : "", prov ? m[i].provider : "",
					 prov ? "\")" : "", m[i].name));
		c->prog->probes[c->prog->nprobes - 1]->event->dyn->ref_ctr_offset =
			m[i].sem_offset;
	}
	return 1;
}

/*
 * .function("NAME").label("LABEL") of process function @uf: a statement
 * probe at each label of the function matching LABEL (a glob), as stap
 * places them, with the variables in scope there.  Another function of
 * a wildcard may have none (@quiet): not an error.  -1 after an error.
 */
static int point_labels(struct sema_ctx *c, struct point_state *st, const struct ast_ppoint *p,
			struct fetch_site *uf, bool quiet)
{
	const char *pattern = point_str_arg(c, p, 2);
	struct fetch_site *v;
	char err[512];
	int n, i;

	if (!pattern) {
		diag_error(c->diag, p->span, "expected .label(\"NAME\") with a string argument");
		return -1;
	}
	n = rsym_labels(c->arena, uf, pattern, &v, err, sizeof(err));
	if (n < 0 || (n == 0 && !quiet && !st->optional)) {
		if (st->optional)
			return 0;
		if (n == 0)
			snprintf(err, sizeof(err), "no label matches \"%s\" in function \"%s\" "
				 "of %s", pattern, uf->name, uf->path);
		sema_point_unresolved(c, p->comps[2].arg->span, err);
		return -1;
	}
	for (i = 0; i < n; i++)
		point_emit_stmt(c, st, &v[i], v[i].label, arena_printf(c->arena,
				"process(\"%s\").function(\"%s\").label(\"%s\")",
				v[i].path, uf->name, v[i].label));
	return 0;
}

/*
 * .label("L") of a function only inlined (its @n copies @v): the labels
 * in each copy, as stap finds them there (a copy's DW_TAG_label names
 * its label through the abstract origin).  Another function of a
 * wildcard may have none (@quiet).  1, or -1 after an error.
 */
static int point_inline_labels(struct sema_ctx *c, struct point_state *st,
			       const struct ast_ppoint *p, struct fetch_site *v, int n, bool quiet)
{
	unsigned before = c->prog->nprobes;
	int i;

	for (i = 0; i < n; i++)
		if (point_labels(c, st, p, &v[i], true) < 0)
			return -1;
	if (c->prog->nprobes == before && !quiet && !st->optional) {
		diag_error(c->diag, p->span, "no label matches \"%s\" in the %d inlined "
			   "cop%s of function \"%s\" of %s (it has no copy of its own)",
			   point_str_arg(c, p, 2), n, n == 1 ? "y" : "ies", v[0].name, v[0].path);
		return -1;
	}
	return 1;
}

/*
 * The inlined copies of function @name in @file, as stap probes them:
 * .function("NAME") is the function's own entry and each copy's (a
 * statement probe at its DW_AT_entry_pc), .inline the copies only,
 * .call the own entry only.  A .return, .call or .label of a function
 * with copies and no entry of its own (@own false) is one error saying
 * why; its .label, the copies' labels.  1 when copies were probed (or stand for the function), 0 when
 * there are none to probe, -1 after an error.
 */
static int point_inlines(struct sema_ctx *c, struct point_state *st, const struct ast_ppoint *p,
			 const char *file, const char *name, int sfx, bool own, bool quiet)
{
	struct fetch_site *v;
	char err[512];
	int n = strchr(name, '@') ? 0 :	/* NAME@FILE: the own copy only */
		rsym_inlines(c->in->up, c->arena, file, name, &v, err, sizeof(err));
	int i;

	if (n <= 0) {
		if (sfx != 4 || st->optional)
			return 0;
		diag_error(c->diag, p->span, "function \"%s\" has no inlined copies in %s%s",
			   name, file, n < 0 ? "" : " (its DWARF has no DW_TAG_inlined_subroutine of it)");
		return -1;
	}
	if (sfx == 3 && !own)
		return point_inline_labels(c, st, p, v, n, quiet);
	if (sfx != 0 && sfx != 4) {
		if (own)
			return 0;
		if (!st->optional)
			diag_error(c->diag, p->span, "function \"%s\" of %s has no copy of its own: "
				   "each of its %d calls is inlined, and %s (.function(\"%s\") "
				   "probes the copies' entries)", name, v[0].path, n,
				   sfx == 2 ? "an inlined copy has no return to probe" :
				   ".call probes the function's own entry only", name);
		return st->optional ? 1 : -1;
	}
	for (i = 0; i < n; i++)
		point_emit_stmt(c, st, &v[i], name, arena_printf(c->arena,
				"process(\"%s\").function(\"%s\")%s", v[i].path, name,
				sfx == 4 ? ".inline" : ""));
	return 1;
}

/*
 * process("PATH").function("NAME")[.call|.return|.inline|.label("L")]:
 * uprobes at the function's entry (or return, or labels) and its inlined
 * copies' (point_inlines()), parameters from DWARF.
 */
static int point_process(struct sema_ctx *c, struct point_state *st,
		      const struct ast_ppoint *p)
{
	const struct ast_expr *path, *fn;
	const char **names, *file;
	unsigned i, n;
	char err[512];
	int64_t maxactive = 0;
	int sfx;

	if (p->n < 2 || !sema_point_is(p, 0, "process") || !sema_point_is(p, 1, "function"))
		return 0;
	if (p->n == 3 && sema_point_is(p, 2, "label"))
		sfx = 3;
	else if (p->n == 3 && sema_point_is(p, 2, "inline"))
		sfx = 4;
	else if ((sfx = point_fn_suffix(p, 2, &maxactive)) < 0)
		return 0;
	if (maxactive) {
		diag_error(c->diag, p->span, ".maxactive() is for kernel return probes");
		return -1;
	}
	path = p->comps[0].arg;
	fn = p->comps[1].arg;
	if (!path || path->kind != AST_STR || !fn || fn->kind != AST_STR) {
		diag_error(c->diag, p->span,
			   "expected process(\"PATH\").function(\"NAME\") with string arguments");
		return -1;
	}
	if (!c->in->up) {
		diag_error(c->diag, p->span, "process() probes are not available here");
		return -1;
	}
	file = arena_strndup(c->arena, path->str, path->len);
	n = point_functions(c, st, fn, file, NULL, &names);
	for (i = 0; i < n; i++) {
		struct fetch_site *uf = arena_alloc(c->arena, sizeof(*uf));
		bool own = rsym_find(c->in->up, c->arena, file, names[i], uf, err,
				     sizeof(err)) == 0;
		int r = point_inlines(c, st, p, file, names[i], sfx, own, n > 1);

		if (r < 0)
			return -1;
		if (!own && !r) {
			if (!st->optional)
				sema_point_unresolved(c, p->span, err);
			return st->optional ? 1 : -1;
		}
		if (!own || sfx == 4)
			continue;
		if (sfx == 3) {
			if (point_labels(c, st, p, uf, n > 1) < 0)
				return -1;
			continue;
		}
		point_emit_dyn(c, st, uf, file, sfx == 2,
			    arena_printf(c->arena, "process(\"%s\").function(\"%s\")%s",
					 uf->path, uf->name, sfx == 2 ? ".return" :
					 sfx == 1 ? ".call" : ""));
	}
	return n || st->optional ? 1 : -1;
}

/* process("PATH").plt("NAME")[.return]: a uprobe on each PLT stub (sema_plt.c). */
static int point_plt(struct sema_ctx *c, struct point_state *st, const struct ast_ppoint *p)
{
	struct fetch_site **sites = NULL;
	unsigned i, n = 0;
	bool ret = false;
	int r = sema_plt_point(c, p, st->optional, &sites, &n, &ret);

	if (r < 0 && st->optional)
		return 1;
	for (i = 0; r > 0 && i < n; i++)
		point_emit_dyn(c, st, sites[i], sites[i]->path, ret,
			    arena_printf(c->arena, "process(\"%s\").plt(\"%s\")%s",
					 sites[i]->path, sites[i]->name, ret ? ".return" : ""));
	return r;
}

/*
 * process("GLOB")...: a process path with wildcards (*, ?, [...]), as
 * stap's examples write the C library's, is every ELF file it matches,
 * each a point of its own, in sorted order.  Nothing matching is an
 * error, as a missing file is (nothing, for an optional point).
 */
static int point_process_glob(struct sema_ctx *c, const struct point_state *st,
			      const struct ast_ppoint *p, struct point_expansion *x)
{
	const struct ast_expr *arg = p->n > 1 ? p->comps[0].arg : NULL;
	struct ast_ppoint *q;
	const char **paths;
	unsigned k, i, n;

	if (!sema_point_is(p, 0, "process") || !arg || arg->kind != AST_STR ||
	    !strchr(arg->str, '/') || !strpbrk(arg->str, "*?["))
		return 0;
	n = relf_glob(c->arena, arg->str, &paths);
	x->v = arena_alloc(c->arena, (n + 1) * sizeof(*x->v));
	for (i = 0; i < n; i++) {
		q = arena_alloc(c->arena, sizeof(*q));
		*q = *p;
		q->comps = arena_alloc(c->arena, p->n * sizeof(*q->comps));
		for (k = 0; k < p->n; k++)
			q->comps[k] = p->comps[k];
		q->comps[0].arg = ast_str(c->arena, paths[i], strlen(paths[i]), arg->span);
		x->v[x->n++] = q;
	}
	if (!n && !st->optional)
		diag_error(c->diag, arg->span, "no file matches \"%s\"", arg->str);
	return 1;
}

/* Does library path @lib match stap's .library() pattern @pattern: the
   whole path when the pattern has a '/', else the file name? */
static bool point_lib_matches(const char *pattern, const char *lib)
{
	const char *base = strrchr(lib, '/');

	return fnmatch(pattern, strchr(pattern, '/') || !base ? lib : base + 1, 0) == 0;
}

/*
 * process("EXE").library("LIB").REST (.function, .mark, .plt ...): REST
 * in each shared library EXE loads (relf_needed(): its DT_NEEDED,
 * transitively, found as the dynamic linker finds them) whose file name,
 * or path when LIB has a '/', matches glob LIB; LIB itself when it is the
 * path of a file EXE does not name (one it dlopen()s).  The uprobes are
 * on the library, which every process mapping it runs: the probes take
 * the condition execname() == EXE's name (what the kernel keeps of it,
 * 15 characters), stap's restriction to EXE's processes as near as
 * tracefs can say it.
 */
static int point_process_library(struct sema_ctx *c, const struct point_state *st,
				 const struct ast_ppoint *p, struct point_expansion *x)
{
	const char *exe = point_str_arg(c, p, 0), *pattern, **libs, *base;
	struct ast_expr *cond;
	unsigned n, i, k;
	char err[512] = "";

	if (p->n < 3 || !sema_point_is(p, 0, "process") || !exe || !sema_point_is(p, 1, "library"))
		return 0;
	if (!(pattern = point_str_arg(c, p, 1))) {
		diag_error(c->diag, p->span, "expected .library(\"NAME\") with a string argument");
		return -1;
	}
	if (!c->in->up) {
		diag_error(c->diag, p->span, "process() probes are not available here");
		return -1;
	}
	n = relf_needed(c->in->up, c->arena, exe, &libs, err, sizeof(err));
	if (*err) {
		sema_point_unresolved(c, p->comps[0].arg->span, err);
		return -1;
	}
	base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	cond = ast_named(c->arena, AST_CALL, "execname", p->span);
	cond->op_span = p->span;
	cond = ast_binary(c->arena, AST_BINARY, AST_OP_EQ, cond,
			  ast_str(c->arena, base, strnlen(base, 15), p->span), p->span);
	x->st.cond = point_and(c, st->cond, cond);
	if (pattern[0] == '/' && !strpbrk(pattern, "*?[")) {	/* a path: as it is */
		libs = &pattern;
		n = 1;
	}
	/* a glob's libraries need not all have REST: one will do */
	x->st.optional = st->optional || strpbrk(pattern, "*?[") != NULL;
	x->v = arena_alloc(c->arena, (n + 1) * sizeof(*x->v));
	for (i = 0; i < n; i++) {
		struct ast_ppoint *q;

		if (!point_lib_matches(pattern, libs[i]))
			continue;
		q = arena_alloc(c->arena, sizeof(*q));
		*q = *p;
		q->n = p->n - 1;
		q->comps = arena_alloc(c->arena, q->n * sizeof(*q->comps));
		q->comps[0] = p->comps[0];
		q->comps[0].arg = ast_str(c->arena, libs[i], strlen(libs[i]), p->comps[1].span);
		for (k = 2; k < p->n; k++)
			q->comps[k - 1] = p->comps[k];
		x->v[x->n++] = q;
	}
	if (!x->n && !st->optional)
		diag_error(c->diag, p->comps[1].arg->span, "no library of %s matches \"%s\" "
			   "(it loads %u: give the library's path for one it dlopen()s)",
			   exe, pattern, n);
	else if (!st->optional)
		x->none = arena_printf(c->arena, "no match for probe point '%s' in the %u "
				       "librar%s of %s matching \"%s\"", sema_point_text(c, p),
				       x->n, x->n == 1 ? "y" : "ies", exe, pattern);
	return 1;
}

int point_process_paths(struct sema_ctx *c, const struct point_state *st,
			const struct ast_ppoint *p, struct point_expansion *x)
{
	int r;

	memset(x, 0, sizeof(*x));
	x->st = *st;
	x->at = p->span;
	if ((r = point_process_glob(c, st, p, x)) != 0)
		return r;
	return point_process_library(c, st, p, x);
}

int point_process_points(struct sema_ctx *c, struct point_state *st, const struct ast_ppoint *p)
{
	int r;

	if ((r = point_process(c, st, p)) != 0 || (r = point_process_statement(c, st, p)) != 0 ||
	    (r = point_process_mark(c, st, p)) != 0)
		return r;
	return point_plt(c, st, p);
}
