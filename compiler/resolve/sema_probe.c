/*
 * sema_probe.c - pass 2: probe points to concrete probes.
 *
 * A probe point either names a probe alias (script or tapset), which is
 * expanded recursively with its body folded into the probe's (a '='
 * alias's body runs before, a '+=' alias's after), or one of the built-in
 * families: begin, end, error, never, kernel.trace("sys:event"), timer.*.
 * Optional points ('?') that resolve to nothing are dropped silently.
 */
#include "sema_int.h"
#include "arena.h"
#include "diag.h"
#include "resolve_tpfmt.h"
#include "resolve_elf.h"
#include "resolve_sdt.h"
#include "resolve_sym.h"

#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEMA_MAX_ALIAS_DEPTH 32

/* What the resolution of one user point carries down the alias chain. */
struct point_state {
	const struct ast_probe *user;	/* the user's probe */
	const struct ast_ppoint *written; /* the point as the user wrote it */
	struct ast_stmt *body;		/* the body so far */
	struct ast_expr *cond;		/* conditions so far, and-ed */
	bool optional;
};

static void point_resolve(struct sema_ctx *c, struct point_state *st, const struct ast_ppoint *p);

/* A block running @first then @second (either may be NULL). */
static struct ast_stmt *point_seq(struct sema_ctx *c, struct ast_stmt *first,
			       struct ast_stmt *second, struct src_span span)
{
	struct ast_stmt *b;

	if (!first)
		return second;
	if (!second)
		return first;
	b = ast_stmt_new(c->arena, AST_S_BLOCK, span);
	ast_stmt_push(c->arena, &b->body, first);
	ast_stmt_push(c->arena, &b->body, second);
	return b;
}

static struct ast_expr *point_and(struct sema_ctx *c, struct ast_expr *a,
			       struct ast_expr *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return ast_binary(c->arena, AST_BINARY, AST_OP_LAND, a, b, b->span);
}

static struct sem_probe *point_emit(struct sema_ctx *c, struct point_state *st,
				 enum sem_probe_kind kind, const char *pp)
{
	struct sem_probe *sp = sema_new_probe(c);

	sp->kind = kind;
	sp->pp = pp;
	sp->point = st->written;
	sp->body = ast_clone_stmt(c->arena, st->body);
	sp->cond = ast_clone_expr(c->arena, st->cond);
	sp->span = st->written->span;
	sp->decl = st->user->span;
	sema_context_rewrite(c, sp);
	return sp;
}

/* The argument of component @k of @p as a number; false if absent. */
static bool point_num_arg(const struct ast_ppoint *p, unsigned k, int64_t *v)
{
	if (k >= p->n || !p->comps[k].arg || p->comps[k].arg->kind != AST_NUM)
		return false;
	*v = p->comps[k].arg->num;
	return true;
}

/* begin, begin(N), end, end(N), error, error(N), never */
static int point_simple(struct sema_ctx *c, struct point_state *st,
		     const struct ast_ppoint *p)
{
	static const struct { const char *name; int kind; } simple[] = {
		{ "begin", SEM_P_BEGIN }, { "end", SEM_P_END },
		{ "error", SEM_P_ERROR }, { "never", -1 },
	};
	unsigned i;
	int64_t prio = 0;

	if (p->n != 1)
		return 0;
	for (i = 0; i < sizeof(simple) / sizeof(simple[0]); i++) {
		if (strcmp(p->comps[0].name, simple[i].name) != 0)
			continue;
		if (p->comps[0].arg && !point_num_arg(p, 0, &prio)) {
			diag_error(c->diag, p->comps[0].arg->span,
				   "the priority of '%s' must be a number", simple[i].name);
			return -1;
		}
		if (simple[i].kind >= 0)
			point_emit(c, st, (enum sem_probe_kind)simple[i].kind,
				sema_point_text(c, p))->priority = prio;
		else
		{
			c->saw_never = c->prog->has_never = true;
			c->nevers++;
		}
		return 1;
	}
	return 0;
}

/*
 * __ktap_input.char and __ktap_input.line: ktap's standard input, a byte
 * or a line at a time (runtime/run_input.c); tapset/input.stp's
 * input.char and input.line give them stap's variables.
 */
static int point_input(struct sema_ctx *c, struct point_state *st, const struct ast_ppoint *p)
{
	bool line;

	if (p->n != 2 || !sema_point_is(p, 0, "__ktap_input") || p->comps[0].arg || p->comps[1].arg ||
	    !(sema_point_is(p, 1, "char") || sema_point_is(p, 1, "line")))
		return 0;
	line = sema_point_is(p, 1, "line");
	point_emit(c, st, line ? SEM_P_INPUT_LINE : SEM_P_INPUT_CHAR, sema_point_text(c, p));
	return 1;
}

/*
 * __ktap_prometheus: each scrape of ktap's --prometheus HTTP server
 * (runtime/run_prom.c); tapset/prometheus.stp's alias 'prometheus' is
 * stap's, whose procfs("__prometheus").read ktap has no file for.  The
 * body's $value is the scrape's answer (sema_prom.c).
 */
static int point_prometheus(struct sema_ctx *c, struct point_state *st,
			    const struct ast_ppoint *p)
{
	if (p->n != 1 || !sema_point_is(p, 0, "__ktap_prometheus") || p->comps[0].arg)
		return 0;
	sema_prom_rewrite(c, point_emit(c, st, SEM_P_PROMETHEUS, sema_point_text(c, p)));
	return 1;
}

/* procfs probes (the point's syntax: sema_procfs_point()). */
static int point_procfs(struct sema_ctx *c, struct point_state *st, const struct ast_ppoint *p)
{
	struct sema_pfs_point pf;
	struct sem_probe *sp;
	int r = sema_procfs_point(c, p, &pf);

	if (r <= 0)
		return r;
	sp = point_emit(c, st, pf.write ? SEM_P_PROCFS_WRITE : SEM_P_PROCFS_READ,
			sema_point_text(c, p));
	sp->procfs_file = pf.name;
	sp->procfs_max = pf.max;
	sp->procfs_umask = pf.umask;
	sema_procfs_value(c, sp);
	return 1;
}

/* kernel.trace("system:event") with globs; "event" alone matches any system. */
static int point_trace(struct sema_ctx *c, struct point_state *st,
		    const struct ast_ppoint *p)
{
	const struct ast_expr *arg;
	char *spec, *colon, **names;
	unsigned n, i;

	if (p->n != 2 || !sema_point_is(p, 0, "kernel") || !sema_point_is(p, 1, "trace"))
		return 0;
	arg = p->comps[1].arg;
	if (!arg || arg->kind != AST_STR) {
		diag_error(c->diag, p->span,
			   "kernel.trace needs a string: kernel.trace(\"system:event\")");
		return -1;
	}
	spec = arena_strndup(c->arena, arg->str, arg->len);
	colon = strchr(spec, ':');
	if (colon)
		*colon = '\0';
	n = tpf_match(c->arena, c->in->target->tracefs, colon ? spec : NULL,
		      colon ? colon + 1 : spec, &names);
	/* No tracefs to look in: not even an optional point can be decided. */
	if (n == 0 && (!st->optional || !*c->in->target->tracefs)) {
		if (sema_tracefs_said(c))
			return -1;
		diag_error(c->diag, arg->span,
			   "no tracepoint matches \"%.*s\"%s%s%s", (int)arg->len, arg->str,
			   SEMA_NO_TRACEFS(c));
		return -1;
	}
	for (i = 0; i < n; i++) {
		char *ev = strchr(names[i], ':');
		struct tpf_event *e;
		struct sem_probe *sp;

		*ev++ = '\0';
		e = tpf_load(c->arena, c->in->target->tracefs, names[i], ev);
		if (!e) {
			diag_error(c->diag, arg->span, "cannot read the format of %s:%s",
				   names[i], ev);
			return -1;
		}
		sp = point_emit(c, st, SEM_P_TRACE,
			     arena_printf(c->arena, "kernel.trace(\"%s:%s\")",
					  names[i], ev));
		sp->event = e;
	}
	return 1;
}

/* timer.UNIT(N)[.randomize(M)] and timer.profile[.tick] (sema_timer.c). */
static int point_timer(struct sema_ctx *c, struct point_state *st,
		    const struct ast_ppoint *p)
{
	struct point_state inner = *st;
	struct sema_timer t;
	struct sem_probe *sp;
	int r = sema_timer_point(c, p, st->optional, &t);

	if (r <= 0 || t.none)
		return r;
	inner.cond = point_and(c, st->cond, t.cond);
	sp = point_emit(c, &inner, t.kind, t.pp);
	sp->event = t.event;
	sp->period_ns = t.period_ns;
	sp->randomize_ns = t.randomize_ns;
	if (t.family && c->alias_depth == 0)
		sp->family = t.family;
	return 1;
}

/* An event name from function @name: [A-Za-z0-9_], then _N. */
static const char *point_event_name(struct sema_ctx *c, const char *name)
{
	char *s = arena_printf(c->arena, "%.40s_%u", name, c->prog->nprobes);

	sema_point_ident(s);
	return s;
}

/*
 * One probe on resolved function @uf: a uprobe (@path set) or a kprobe,
 * on its entry or (@ret) its return.
 */
static void point_emit_dyn(struct sema_ctx *c, struct point_state *st, struct fetch_site *uf,
			const char *path, bool ret, const char *pp)
{
	struct tpf_event *ev = arena_alloc(c->arena, sizeof(*ev));
	struct sem_probe *sp;
	const char *target;

	memset(ev, 0, sizeof(*ev));
	ev->system = "ktap_$PID";
	ev->name = point_event_name(c, uf->name);
	if (path)
		target = arena_printf(c->arena, "%s:0x%llx", uf->path,
				      (unsigned long long)uf->offset);
	else if (strcmp(uf->path, "kernel") != 0)	/* a module's: "MOD:FUNC" */
		target = arena_printf(c->arena, "%s:%s", uf->path, uf->name);
	else
		target = uf->name;
	ev->dyn = sema_point_dynevent(c, ev, path ? (ret ? KP_URETPROBE : KP_UPROBE) :
				      (ret ? KP_KRETPROBE : KP_KPROBE), target,
				      sema_point_origin(c, st->written));
	ev->dyn_func = uf;
	ev->dyn_return = ret;
	sp = point_emit(c, st, SEM_P_TRACE, pp);
	sp->event = ev;
}

/* The probe just emitted is a kretprobe with @n instances: "rN:". */
static void point_set_maxactive(struct sema_ctx *c, int64_t n)
{
	c->prog->probes[c->prog->nprobes - 1]->event->dyn->maxactive = (unsigned)n;
}

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
			diag_error(c->diag, arg->span, "%s", err);
		return st->optional ? 1 : -1;
	}
	point_emit_stmt(c, st, uf, "line", arena_printf(c->arena,
			"process(\"%s\").statement(\"%s\")", uf->path, spec));
	return 1;
}

/* The string argument of component @i of @p, or NULL. */
static const char *point_str_arg(struct sema_ctx *c, const struct ast_ppoint *p, unsigned i)
{
	const struct ast_expr *a = p->comps[i].arg;

	return a && a->kind == AST_STR ? arena_strndup(c->arena, a->str, a->len) : NULL;
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
			diag_error(c->diag, p->span, "%s", err);
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
 * kernel.statement("FUNC+0xOFF"): a kprobe inside a function.  Target
 * variables are not available there (only at a function's entry do the
 * registers mean the parameters).
 */
static int point_kernel_statement(struct sema_ctx *c, struct point_state *st,
			       const struct ast_ppoint *p)
{
	const struct ast_expr *arg;
	struct tpf_event *ev;
	struct sem_probe *sp;
	const char *spec;

	if (p->n != 2 || !(sema_point_is(p, 0, "kernel") || sema_point_is(p, 0, "kprobe")) ||
	    !sema_point_is(p, 1, "statement"))
		return 0;
	arg = p->comps[1].arg;
	if (!arg || arg->kind != AST_STR || !memchr(arg->str, '+', arg->len)) {
		diag_error(c->diag, p->span, "expected kernel.statement(\"FUNCTION+0xOFFSET\") "
			   "(\"FILE:LINE\" forms need the kernel's DWARF)");
		return -1;
	}
	spec = arena_strndup(c->arena, arg->str, arg->len);
	ev = arena_alloc(c->arena, sizeof(*ev));
	memset(ev, 0, sizeof(*ev));
	ev->system = "ktap_$PID";
	ev->name = point_event_name(c, arena_strndup(c->arena, spec, strcspn(spec, "+")));
	ev->dyn = sema_point_dynevent(c, ev, KP_KPROBE, spec, sema_point_origin(c, st->written));
	sp = point_emit(c, st, SEM_P_TRACE, arena_printf(c->arena, "%s.statement(\"%s\")",
						     p->comps[0].name, spec));
	sp->event = ev;
	return 1;
}

/*
 * Every function @arg names in @path (NULL: the kernel, or its @module):
 * one name, or a wildcard expanded against the file's symbols or the
 * kernel's traceable functions ("NAME@FILE" wildcards: against DWARF).
 * Returns the count (0 after an error), names in *@names.
 */
static unsigned point_functions(struct sema_ctx *c, struct point_state *st,
			     const struct ast_expr *arg, const char *path,
			     const char *module, const char ***names)
{
	const char *pattern = arena_strndup(c->arena, arg->str, arg->len);
	char err[512] = "";
	int n;

	if (!strpbrk(pattern, "*?[")) {
		*names = arena_alloc(c->arena, sizeof(**names));
		(*names)[0] = pattern;
		return 1;
	}
	n = c->in->up ? rsym_match(c->in->up, c->arena, path, module, pattern, names, err,
				 sizeof(err)) : -1;
	if (n < 0) {
		diag_error(c->diag, arg->span, "%s", *err ? err : "cannot list functions here");
		return 0;
	}
	if (n > RSYM_MAX_MATCHES) {
		diag_error(c->diag, arg->span, "\"%s\" matches %d functions, more than %d: "
			   "narrow the pattern", pattern, n, RSYM_MAX_MATCHES);
		return 0;
	}
	if (n == 0 && !st->optional)
		diag_error(c->diag, arg->span, "no function matches \"%s\"%s%s", pattern,
			   path ? " in " : "", path ? path : "");
	return (unsigned)n;
}

/*
 * What follows .function(): 0 nothing, 1 .call, 2 .return (then
 * *@maxactive is N of .return.maxactive(N), or 0), -1 anything else.
 */
static int point_fn_suffix(const struct ast_ppoint *p, unsigned at, int64_t *maxactive)
{
	*maxactive = 0;
	if (p->n == at)
		return 0;
	if (p->n == at + 2 && sema_point_is(p, at, "return") && sema_point_is(p, at + 1, "maxactive") &&
	    point_num_arg(p, at + 1, maxactive) && *maxactive > 0 && *maxactive <= 4096)
		return 2;
	if (p->n != at + 1)
		return -1;
	return sema_point_is(p, at, "call") ? 1 : sema_point_is(p, at, "return") ? 2 : -1;
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
		diag_error(c->diag, p->comps[2].arg->span, "%s", err);
		return -1;
	}
	for (i = 0; i < n; i++)
		point_emit_stmt(c, st, &v[i], v[i].label, arena_printf(c->arena,
				"process(\"%s\").function(\"%s\").label(\"%s\")",
				v[i].path, uf->name, v[i].label));
	return 0;
}

/*
 * The inlined copies of function @name in @file, as stap probes them:
 * .function("NAME") is the function's own entry and each copy's (a
 * statement probe at its DW_AT_entry_pc), .inline the copies only,
 * .call the own entry only.  A .return, .call or .label of a function
 * with copies and no entry of its own (@own false) is one error saying
 * why.  1 when copies were probed (or stand for the function), 0 when
 * there are none to probe, -1 after an error.
 */
static int point_inlines(struct sema_ctx *c, struct point_state *st, const struct ast_ppoint *p,
			 const char *file, const char *name, int sfx, bool own)
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
	if (sfx != 0 && sfx != 4) {
		if (own)
			return 0;
		if (!st->optional)
			diag_error(c->diag, p->span, "function \"%s\" of %s has no copy of its own: "
				   "each of its %d calls is inlined, and %s (.function(\"%s\") "
				   "probes the copies' entries)", name, v[0].path, n,
				   sfx == 2 ? "an inlined copy has no return to probe" :
				   sfx == 3 ? "ktap reads the labels of a function's own copy only" :
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
		int r = point_inlines(c, st, p, file, names[i], sfx, own);

		if (r < 0)
			return -1;
		if (!own && !r) {
			if (!st->optional)
				diag_error(c->diag, p->span, "%s", err);
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
 * kernel.function("NAME")[.call|.return] and kprobe.function("NAME")
 * [.return]: kprobes (kretprobes) on kernel functions, parameters from
 * the kernel's BTF.
 */
static int point_kernel_function(struct sema_ctx *c, struct point_state *st,
			      const struct ast_ppoint *p)
{
	const struct ast_expr *fn;
	const char **names;
	char err[512] = "";
	unsigned i, n;
	const char *module = NULL;
	int64_t maxactive;
	int sfx;

	if (p->n < 2 || !(sema_point_is(p, 0, "kernel") || sema_point_is(p, 0, "kprobe") ||
			  sema_point_is(p, 0, "module")) ||
	    !sema_point_is(p, 1, "function") || (sfx = point_fn_suffix(p, 2, &maxactive)) < 0)
		return 0;
	if (sema_point_is(p, 0, "module")) {
		const struct ast_expr *m = p->comps[0].arg;

		if (!m || m->kind != AST_STR || memchr(m->str, '*', m->len)) {
			diag_error(c->diag, p->span, "expected module(\"NAME\") (no wildcards)");
			return -1;
		}
		module = arena_strndup(c->arena, m->str, m->len);
	}
	fn = p->comps[1].arg;
	if (!fn || fn->kind != AST_STR) {
		diag_error(c->diag, p->span, "expected %s.function(\"NAME\")",
			   p->comps[0].name);
		return -1;
	}
	if (st->optional && !target_has(c->in->target, TGT_KPROBES)) {
		/* unknown without tracefs: not a kernel without kprobes */
		if (*c->in->target->tracefs) {
			c->missing = "kprobes, which this kernel does not have "
				     "(no kprobe_events in tracefs)";
			return 1;
		}
		if (sema_tracefs_said(c))
			return -1;
		diag_error(c->diag, p->span, "cannot tell whether this kernel has kprobes%s%s%s",
			   SEMA_NO_TRACEFS(c));
		return -1;
	}
	n = c->in->up ? point_functions(c, st, fn, NULL, module, &names) : 0;
	for (i = 0; i < n; i++) {
		struct fetch_site *uf = arena_alloc(c->arena, sizeof(*uf));

		/* kprobe.function() needs no types: raw registers will do. */
		if (rsym_find_kernel(c->in->up, c->arena, module, names[i], uf, err,
				   sizeof(err)) != 0 &&
		    (!sema_point_is(p, 0, "kprobe") ||
		     rsym_find_kernel_raw(c->in->up, c->arena, module, names[i], uf, err,
					  sizeof(err)) != 0)) {
			/* Traceable but not described by BTF: skipped in a wildcard. */
			if (n > 1)
				continue;
			if (!st->optional)
				diag_error(c->diag, fn->span, "%s", err);
			return st->optional ? 1 : -1;
		}
		point_emit_dyn(c, st, uf, NULL, sfx == 2,
			    arena_printf(c->arena, "%s%s%s%s.function(\"%s\")%s",
					 p->comps[0].name, module ? "(\"" : "",
					 module ? module : "", module ? "\")" : "", uf->name,
					 sfx == 2 ? ".return" : sfx == 1 ? ".call" : ""));
		if (maxactive)	/* "r64:": kretprobe instances in flight */
			point_set_maxactive(c, maxactive);
	}
	return n || st->optional ? 1 : -1;
}

/*
 * process("GLOB")...: a process path with wildcards (*, ?, [...]), as
 * stap's examples write the C library's, is every ELF file it matches,
 * each a point of its own, in sorted order.  Nothing matching is an
 * error, as a missing file is (nothing, for an optional point).
 */
static int point_process_glob(struct sema_ctx *c, struct point_state *st,
			      const struct ast_ppoint *p)
{
	const struct ast_expr *arg = p->n > 1 ? p->comps[0].arg : NULL;
	struct ast_ppoint *q;
	const char **paths;
	unsigned k, i, n;

	if (!sema_point_is(p, 0, "process") || !arg || arg->kind != AST_STR ||
	    !strchr(arg->str, '/') || !strpbrk(arg->str, "*?["))
		return 0;
	n = relf_glob(c->arena, arg->str, &paths);
	for (i = 0; i < n; i++) {
		q = arena_alloc(c->arena, sizeof(*q));
		*q = *p;
		q->comps = arena_alloc(c->arena, p->n * sizeof(*q->comps));
		for (k = 0; k < p->n; k++)
			q->comps[k] = p->comps[k];
		q->comps[0].arg = ast_str(c->arena, paths[i], strlen(paths[i]), arg->span);
		point_resolve(c, st, q);
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
static int point_process_library(struct sema_ctx *c, struct point_state *st,
				 const struct ast_ppoint *p)
{
	const char *exe = point_str_arg(c, p, 0), *pattern, **libs, *base;
	struct point_state inner = *st;
	struct ast_expr *cond;
	unsigned n, i, k, hits = 0, before = c->prog->nprobes, errors = c->diag->errors;
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
		diag_error(c->diag, p->comps[0].arg->span, "%s", err);
		return -1;
	}
	base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	cond = ast_named(c->arena, AST_CALL, "execname", p->span);
	cond->op_span = p->span;
	cond = ast_binary(c->arena, AST_BINARY, AST_OP_EQ, cond,
			  ast_str(c->arena, base, strnlen(base, 15), p->span), p->span);
	inner.cond = point_and(c, st->cond, cond);
	if (pattern[0] == '/' && !strpbrk(pattern, "*?[")) {	/* a path: as it is */
		libs = &pattern;
		n = 1;
	}
	/* a glob's libraries need not all have REST: one will do */
	inner.optional = st->optional || strpbrk(pattern, "*?[") != NULL;
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
		point_resolve(c, &inner, q);
		hits++;
	}
	if (!hits && !st->optional)
		diag_error(c->diag, p->comps[1].arg->span, "no library of %s matches \"%s\" "
			   "(it loads %u: give the library's path for one it dlopen()s)",
			   exe, pattern, n);
	else if (c->prog->nprobes == before && c->diag->errors == errors && !st->optional)
		diag_error(c->diag, p->span, "no match for probe point '%s' in the %u "
			   "librar%s of %s matching \"%s\"", sema_point_text(c, p), hits,
			   hits == 1 ? "y" : "ies", exe, pattern);
	return 1;
}

/*
 * Does alias name @name match the first components of @p, which has
 * more (stap's alias suffixes: 'miscellany.return' of an alias
 * 'miscellany = syscall.{open,close}' is syscall.open.return and
 * syscall.close.return)?  The number of components left, or 0.
 */
static unsigned point_alias_suffix(const struct ast_ppoint *name, const struct ast_ppoint *p)
{
	struct ast_ppoint head;

	if (name->n >= p->n)
		return 0;
	head = *p;
	head.n = name->n;
	return sema_glob_alias_matches(name, &head) ? p->n - name->n : 0;
}

/* Alias point @t with the last @nsfx components of the user's @p appended. */
static const struct ast_ppoint *point_with_suffix(struct sema_ctx *c, const struct ast_ppoint *t,
					       const struct ast_ppoint *p, unsigned nsfx)
{
	struct ast_ppoint *q;
	unsigned k;

	if (!nsfx)
		return t;
	q = arena_alloc(c->arena, sizeof(*q));
	*q = *t;
	q->n = t->n + nsfx;
	q->cap = q->n;
	q->comps = arena_alloc(c->arena, q->n * sizeof(*q->comps));
	for (k = 0; k < t->n; k++)
		q->comps[k] = t->comps[k];
	for (k = 0; k < nsfx; k++)
		q->comps[t->n + k] = p->comps[p->n - nsfx + k];
	return q;
}

/*
 * Expand every alias whose name matches @p, or, when none does (@suffix),
 * every alias whose name matches its beginning, with the rest appended
 * to the alias's points; returns how many did.
 */
static unsigned point_aliases(struct sema_ctx *c, struct point_state *st,
			   const struct ast_ppoint *p, bool suffix)
{
	unsigned i, j, n = 0;

	for (i = 0; i < c->naliases; i++) {
		const struct sema_alias *al = &c->aliases[i];
		struct point_state inner = *st;
		struct ast_stmt *alias_body;
		unsigned first = c->prog->nprobes, k, nsfx = 0;

		if (suffix ? !(nsfx = point_alias_suffix(al->name, p)) :
			     !sema_glob_alias_matches(al->name, p))
			continue;
		n++;
		if (c->alias_depth >= SEMA_MAX_ALIAS_DEPTH) {
			diag_error(c->diag, p->span,
				   "probe alias '%s' expands recursively", sema_point_text(c, p));
			return n;
		}
		alias_body = ast_clone_stmt(c->arena, al->decl->body);
		sema_elide_mark(alias_body);
		inner.body = al->decl->kind == AST_ALIAS ?
			point_seq(c, alias_body, st->body, st->body->span) :
			point_seq(c, st->body, alias_body, st->body->span);
		if (al->decl->epilogue) {	/* stap 4.4's "= POINTS { }, { }" */
			struct ast_stmt *epi = ast_clone_stmt(c->arena, al->decl->epilogue);

			sema_elide_mark(epi);
			inner.body = point_seq(c, inner.body, epi, st->body->span);
		}
		c->alias_depth++;
		for (j = 0; j < al->decl->points.n; j++) {
			const struct ast_ppoint *t = point_with_suffix(c, al->decl->points.v[j],
								      p, nsfx);
			unsigned before = c->prog->nprobes;

			inner.cond = point_and(c, st->cond, t->cond);
			inner.optional = st->optional || t->optional || t->sufficient;
			point_resolve(c, &inner, t);
			if (t->sufficient && c->prog->nprobes > before)
				break;
		}
		c->alias_depth--;
		/* -l lists the outermost alias's name, as stap does. */
		for (k = first; c->alias_depth == 0 && k < c->prog->nprobes; k++)
			if (!c->prog->probes[k]->family)
				c->prog->probes[k]->family = sema_point_text(c, al->name);
	}
	return n;
}

/* The concrete point syscall.NAME[.return] of the family's member @name. */
static struct ast_ppoint *point_syscall_point(struct sema_ctx *c, const struct ast_ppoint *p,
					   const char *name, bool ret)
{
	struct ast_ppoint *q = arena_alloc(c->arena, sizeof(*q));
	unsigned k;

	*q = *p;
	q->n = ret ? 3 : 2;
	q->comps = arena_alloc(c->arena, q->n * sizeof(*q->comps));
	q->cap = q->n;
	for (k = 0; k < q->n; k++)
		q->comps[k] = p->comps[k];
	q->comps[0].name = "syscall";
	q->comps[1].name = name;
	q->optional = q->sufficient = false;
	q->cond = NULL;
	return q;
}

/*
 * syscall.NAME[.return] and nd_syscall.NAME[.return] (NAME may be a
 * wildcard): every system call with a syscalls:sys_enter_NAME
 * tracepoint, or a tapset alias syscall.NAME.  A tapset alias (stap's
 * variables and argstr) wins over the generic member built from the
 * tracepoint's fields (sema_syscall.c).  nd_syscall is the same family.
 */
static int point_syscall(struct sema_ctx *c, struct point_state *st, const struct ast_ppoint *p)
{
	const char **names;
	bool ret, wild;
	unsigned i, n;

	if (p->n < 2 || p->n > 3 || !(sema_point_is(p, 0, "syscall") || sema_point_is(p, 0, "nd_syscall")) ||
	    p->comps[0].arg || p->comps[1].arg || (p->n == 3 && !sema_point_is(p, 2, "return")))
		return 0;
	ret = p->n == 3;
	wild = strpbrk(p->comps[1].name, "*?[") != NULL;
	n = sema_syscall_names(c, p->comps[1].name, ret, &names);
	if (n == 0) {
		if (st->optional)
			return 1;
		diag_error(c->diag, p->span, "no system call matches '%s'%s%s%s",
			   sema_point_text(c, p), SEMA_NO_TRACEFS(c));
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct ast_ppoint *q = point_syscall_point(c, p, names[i], ret);
		struct point_state inner = *st;
		struct tpf_event *ev;
		unsigned before = c->prog->nprobes, k;

		/* In a wildcard, a tapset alias this kernel cannot resolve is skipped. */
		inner.optional = st->optional || wild;
		if (!point_aliases(c, &inner, q, false)) {
			ev = tpf_load(c->arena, c->in->target->tracefs, "syscalls",
				      arena_printf(c->arena, "sys_%s_%s",
						   ret ? "exit" : "enter", names[i]));
			if (!ev)
				continue;	/* listed by an alias only */
			inner.body = point_seq(c, sema_syscall_prologue(c, ev, names[i], ret, p->span),
					    st->body, st->body->span);
			point_emit(c, &inner, SEM_P_TRACE, arena_printf(c->arena,
					"kernel.trace(\"syscalls:%s\")", ev->name))->event = ev;
		}
		for (k = before; k < c->prog->nprobes; k++) {
			c->prog->probes[k]->syscall = true;
			c->prog->probes[k]->family = arena_printf(c->arena, "%s.%s%s",
				p->comps[0].name, names[i], ret ? ".return" : "");
		}
	}
	return 1;
}

/*
 * process("PATH").begin/.end/.thread.begin/.thread.end/.syscall[.return]
 * and process(PID)...:
 * tapset/process.stp's alias of the same name without the argument, on
 * condition that the task runs PATH or is process PID.  A trace record
 * names no executable file, so PATH matches by the kernel's name of the
 * program (comm: the file's base name, cut to 15 characters), which a
 * process gets at exec and a child inherits, as the file does in stap.
 */
static int point_process_life(struct sema_ctx *c, struct point_state *st,
			      const struct ast_ppoint *p)
{
	const struct ast_expr *arg = p->n > 1 ? p->comps[0].arg : NULL;
	struct ast_ppoint *q;
	struct ast_expr *who, *is;
	struct point_state inner = *st;
	const char *base;
	unsigned k, first;

	if (!arg || !sema_point_is(p, 0, "process") ||
	    !((p->n == 2 && (sema_point_is(p, 1, "begin") || sema_point_is(p, 1, "end") ||
			     sema_point_is(p, 1, "syscall"))) ||
	      (p->n == 3 && sema_point_is(p, 1, "thread") &&
	       (sema_point_is(p, 2, "begin") || sema_point_is(p, 2, "end"))) ||
	      (p->n == 3 && sema_point_is(p, 1, "syscall") && sema_point_is(p, 2, "return"))))
		return 0;
	for (k = 1; k < p->n; k++)
		if (p->comps[k].arg)
			return 0;
	if (arg->kind == AST_NUM && arg->num < 2) {
		diag_error(c->diag, arg->span, "process(%lld): a process ID to probe is 2 or more",
			   (long long)arg->num);
		return -1;
	}
	if (arg->kind == AST_NUM) {
		who = ast_named(c->arena, AST_CALL, "pid", arg->span);
		is = ast_num(c->arena, arg->num, arg->span);
	} else {
		size_t len = arg->len;

		for (base = arg->str + len; base > arg->str && base[-1] != '/'; base--)
			;
		len -= (size_t)(base - arg->str);
		who = ast_named(c->arena, AST_CALL, "execname", arg->span);
		is = ast_str(c->arena, base, len > 15 ? 15 : len, arg->span);
	}
	who->op_span = arg->span;
	q = arena_alloc(c->arena, sizeof(*q));
	*q = *p;
	q->comps = arena_alloc(c->arena, p->n * sizeof(*q->comps));
	for (k = 0; k < p->n; k++)
		q->comps[k] = p->comps[k];
	q->comps[0].arg = NULL;
	q->optional = q->sufficient = false;
	q->cond = NULL;
	inner.cond = point_and(c, st->cond, ast_binary(c->arena, AST_BINARY, AST_OP_EQ, who, is,
						       arg->span));
	first = c->prog->nprobes;
	if (!point_aliases(c, &inner, q, false)) {
		diag_error(c->diag, p->span, "no tapset alias '%s' for probe point '%s'",
			   sema_point_text(c, q), sema_point_text(c, p));
		return -1;
	}
	for (k = first; c->alias_depth == 0 && k < c->prog->nprobes; k++)
		c->prog->probes[k]->family = sema_point_text(c, p);	/* -l: as written */
	return 1;
}

/*
 * A point with wildcards in its names: every alias and every built-in
 * point it matches (a built-in one that is also an alias's name, as
 * syscall.read, once).  Each is optional, as in a tapset alias; the
 * point as a whole must resolve to something.  0 when nothing matched.
 */
static unsigned point_glob(struct sema_ctx *c, struct point_state *st, const struct ast_ppoint *p)
{
	struct point_state inner = *st;
	struct ast_ppoint **v;
	unsigned n, i, before = c->prog->nprobes, errors = c->diag->errors, matched;

	matched = point_aliases(c, st, p, false);
	n = sema_glob_builtins(c, p, &v);
	inner.optional = true;
	for (i = 0; i < n; i++)
		if (!sema_glob_is_alias(c, v[i])) {
			point_resolve(c, &inner, v[i]);
			matched++;
		}
	if (matched && c->prog->nprobes == before && c->diag->errors == errors &&
	    !st->optional && !c->missing)
		diag_error(c->diag, p->span, "no match for probe point '%s'", sema_point_text(c, p));
	return matched;
}

static void point_resolve(struct sema_ctx *c, struct point_state *st,
		       const struct ast_ppoint *p)
{
	int r;

	if (!(p = sema_point_target_exe(c, p)))
		return;

	if ((r = point_syscall(c, st, p)) != 0 || (r = point_process_glob(c, st, p)) != 0 ||
	    (r = point_process_library(c, st, p)) != 0)
		return;
	if (sema_glob_has(p) ? point_glob(c, st, p) : point_aliases(c, st, p, false))
		return;
	if ((r = point_simple(c, st, p)) != 0 || (r = point_trace(c, st, p)) != 0 ||
	    (r = point_timer(c, st, p)) != 0 || (r = point_process(c, st, p)) != 0 ||
	    (r = point_process_life(c, st, p)) != 0 || (r = point_input(c, st, p)) != 0 ||
	    (r = point_prometheus(c, st, p)) != 0 ||
	    (r = point_procfs(c, st, p)) != 0 ||
	    (r = point_kernel_function(c, st, p)) != 0 ||
	    (r = point_kernel_statement(c, st, p)) != 0 ||
	    (r = point_process_statement(c, st, p)) != 0 ||
	    (r = point_process_mark(c, st, p)) != 0 || (r = point_plt(c, st, p)) != 0)
		return;
	if (point_aliases(c, st, p, true) || st->optional)
		return;
	if (sema_refused_point(c, p) == 0)
		diag_error(c->diag, p->span, "no match for probe point '%s'",
			   sema_point_text(c, p));
}

/*
 * A plain point that resolved to nothing, with no error, because every
 * point of its aliases was optional and needed what this kernel lacks
 * (vm.pagefault.return: a kretprobe): an error naming the feature, as
 * stap's.
 */
static void point_check_missing(struct sema_ctx *c, const struct ast_ppoint *p,
				unsigned before, unsigned errors)
{
	if (p->optional || p->sufficient || c->prog->nprobes > before ||
	    c->diag->errors > errors || !c->missing)
		return;
	diag_error(c->diag, p->span, "probe point '%s' matches nothing on this kernel: it needs %s",
		   sema_point_text(c, p), c->missing);
}

void sema_resolve_probe(struct sema_ctx *c, const struct ast_probe *probe)
{
	unsigned i, start = c->prog->nprobes, nevers = c->nevers;

	for (i = 0; i < probe->points.n; i++) {
		const struct ast_ppoint *p = probe->points.v[i];
		/* '!' is optional too, as in stap. */
		struct point_state st = { probe, p, probe->body, p->cond,
				       p->optional || p->sufficient };
		unsigned before = c->prog->nprobes, errors = c->diag->errors;

		c->missing = NULL;
		point_resolve(c, &st, p);
		point_check_missing(c, p, before, errors);
		if (c->missing && c->prog->nprobes == before)
			c->dropped_missing = c->missing;
		/* '!': a point that resolved makes the rest unnecessary. */
		if (p->sufficient && c->prog->nprobes > before)
			break;
	}
	if (c->prog->nprobes == start) {
		c->dropped = arena_grow(c->arena, c->dropped, c->ndropped, &c->dcap,
					sizeof(*c->dropped));
		c->dropped[c->ndropped].body = probe->body;
		c->dropped[c->ndropped++].never = c->nevers != nevers;
	}
}
