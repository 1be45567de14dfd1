/*
 * sema_probe.c - pass 2: probe points to concrete probes (process()
 * points: sema_process.c).
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
#include "tapset.h"

#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEMA_MAX_ALIAS_DEPTH 32

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
			struct sem_prog *pr = c->prog;

			c->saw_never = pr->has_never = true;
			c->nevers++;
			pr->nevers = arena_grow(c->arena, pr->nevers, pr->nnevers, &pr->nevcap,
						sizeof(*pr->nevers));
			pr->nevers[pr->nnevers++] = (struct sem_never){ st->written, st->body };
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
		if (!e && (strpbrk(spec, "*?[") || (colon && strpbrk(colon + 1, "*?["))))
			continue;	/* a dynamic event removed since the listing */
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

/* The probe just emitted is a kretprobe with @n instances: "rN:". */
static void point_set_maxactive(struct sema_ctx *c, int64_t n)
{
	c->prog->probes[c->prog->nprobes - 1]->event->dyn->maxactive = (unsigned)n;
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
		if (st->optional)	/* a FILE:LINE without DWARF: does not resolve */
			return 1;
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
 * What an optional point in module @module lacks when the module is not
 * loaded: "the module M", or, when the point's other optional members
 * lack other modules (nfs.proc.lookup: nfsv2, nfsv3 and nfsv4), "one of
 * the modules M1, M2, ...".  Another feature already said stays.
 */
/* @list ("a, b") with @item appended unless it has it; @list may be NULL. */
static const char *point_list_add(struct sema_ctx *c, const char *list, const char *item)
{
	size_t n = strlen(item);
	const char *m;

	for (m = list; m && (m = strstr(m, item)); m += n)
		if ((m == list || m[-1] == ' ') && (m[n] == ',' || !m[n]))
			return list;
	return list ? arena_printf(c->arena, "%s, %s", list, item) : item;
}

static void point_missing_module(struct sema_ctx *c, const char *module)
{
	const char *dir = c->in->target->btf_dir ? c->in->target->btf_dir :
			  "none in the target";
	const char *was = c->missing_mods;

	if (c->missing && !c->missing_mods)
		return;
	c->missing_mods = point_list_add(c, was, module);
	if (c->missing_mods == was)
		return;
	c->missing = arena_printf(c->arena, "%s %s, which %s not loaded (ktap knows a "
				  "module by its BTF: %s)", c->missing_mods == module ?
				  "the module" : "one of the modules", c->missing_mods,
				  c->missing_mods == module ? "is" : "are", dir);
}

/*
 * The kprobes (kretprobes when @sfx is 2) on the functions matching
 * @p's .function() argument, in the kernel or in @module: how many, or -1
 * after an error.  A wildcard skips the functions BTF does not describe.
 */
static int point_kernel_functions(struct sema_ctx *c, struct point_state *st,
				  const struct ast_ppoint *p, const char *module, int sfx,
				  int64_t maxactive)
{
	const struct ast_expr *fn = p->comps[1].arg;
	const char **names, **mods;
	char err[512] = "";
	unsigned i, n, emitted = 0;

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
				sema_point_unresolved(c, fn->span, err);
			else if (module && !target_modules(c->in->target, c->arena, module, &mods))
				point_missing_module(c, module);
			return st->optional ? 0 : -1;
		}
		if (n == 1 && !module && sema_point_init_text(c, names[i])) {
			if (!st->optional)
				sema_point_unresolved(c, fn->span, arena_printf(c->arena,
					"%s is in the kernel's init text, which the kernel frees "
					"after boot: it never runs again", names[i]));
			return st->optional ? 0 : -1;
		}
		point_emit_dyn(c, st, uf, NULL, sfx == 2,
			    arena_printf(c->arena, "%s%s%s%s.function(\"%s\")%s",
					 p->comps[0].name, module ? "(\"" : "",
					 module ? module : "", module ? "\")" : "", uf->name,
					 sfx == 2 ? ".return" : sfx == 1 ? ".call" : ""));
		if (maxactive)	/* "r64:": kretprobe instances in flight */
			point_set_maxactive(c, maxactive);
		emitted++;
	}
	return (int)emitted;
}

/*
 * module("GLOB").function(...): the functions in each loaded module the
 * glob matches (stap's), each module as if the point were optional; an
 * error when none has one and the point is not optional.
 */
static int point_module_glob(struct sema_ctx *c, struct point_state *st,
			     const struct ast_ppoint *p, const char *glob, int sfx,
			     int64_t maxactive)
{
	const struct ast_expr *fn = p->comps[1].arg;
	bool optional = st->optional;
	const char **mods;
	unsigned i, n = target_modules(c->in->target, c->arena, glob, &mods);
	int r, total = 0;

	st->optional = true;
	for (i = 0; i < n; i++) {
		r = point_kernel_functions(c, st, p, mods[i], sfx, maxactive);
		total += r > 0 ? r : 0;
	}
	st->optional = optional;
	if (total || optional)
		return 1;
	if (!n) {
		diag_error(c->diag, p->comps[0].arg->span, "no loaded module matches \"%s\" "
			   "(ktap knows a module by its BTF: %s)", glob,
			   c->in->target->btf_dir ? c->in->target->btf_dir : "none in the target");
		return -1;
	}
	diag_error(c->diag, fn->span, "no function matches \"%.*s\" in a loaded module matching "
		   "\"%s\" (%u with BTF)", (int)fn->len, fn->str, glob, n);
	return -1;
}

/*
 * kernel.function("NAME")[.call|.return], kprobe.function("NAME")
 * [.return] and module("MOD").function("NAME")[...]: kprobes (kretprobes)
 * on kernel functions, parameters from the kernel's BTF (the module's).
 */
static int point_kernel_function(struct sema_ctx *c, struct point_state *st,
			      const struct ast_ppoint *p)
{
	const struct ast_expr *fn;
	const char *module = NULL;
	int64_t maxactive;
	int sfx, n;

	if (p->n < 2 || !(sema_point_is(p, 0, "kernel") || sema_point_is(p, 0, "kprobe") ||
			  sema_point_is(p, 0, "module")) ||
	    !sema_point_is(p, 1, "function") || (sfx = point_fn_suffix(p, 2, &maxactive)) < 0)
		return 0;
	if (sema_point_is(p, 0, "module")) {
		const struct ast_expr *m = p->comps[0].arg;

		if (!m || m->kind != AST_STR) {
			diag_error(c->diag, p->span, "expected module(\"NAME\")");
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
			c->missing_mods = NULL;
			return 1;
		}
		if (sema_tracefs_said(c))
			return -1;
		diag_error(c->diag, p->span, "cannot tell whether this kernel has kprobes%s%s%s",
			   SEMA_NO_TRACEFS(c));
		return -1;
	}
	if (module && strpbrk(module, "*?["))
		return point_module_glob(c, st, p, module, sfx, maxactive);
	n = point_kernel_functions(c, st, p, module, sfx, maxactive);
	return n < 0 ? -1 : n || st->optional ? 1 : -1;
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

/* Has one of the last @nsfx components of @p a wildcard? */
static bool point_suffix_glob(const struct ast_ppoint *p, unsigned nsfx)
{
	unsigned k;

	for (k = p->n - nsfx; k < p->n; k++)
		if (strpbrk(p->comps[k].name, "*?["))
			return true;
	return false;
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
 * Is alias body @s only an error where it is used: a bare
 * __ktap_missing(POINT, WHY) statement (tapset/workqueue.stp's
 * workqueue.create, ioblock_trace.bounce on a kernel without its
 * tracepoint)?  Stap's alias on a tracepoint the kernel lacks has it
 * optional: an optional point or a wildcard resolves it to nothing.
 */
static const struct ast_expr *alias_body_missing(const struct ast_stmt *s)
{
	const struct ast_expr *m;
	size_t i;

	if (!s)
		return NULL;
	if (s->kind == AST_S_EXPR)
		return s->e && s->e->kind == AST_CALL && sema_is_missing_marker(s->e->str) ?
		       s->e : NULL;
	if (s->kind != AST_S_BLOCK)
		return NULL;
	for (i = 0; i < s->body.n; i++)
		if ((m = alias_body_missing(s->body.v[i])))
			return m;
	return NULL;
}

/*
 * Alias @al of a point this kernel cannot have (its body's marker @m,
 * "__ktap_missing(POINT, WHY)"): nothing, as stap's alias, whose points
 * are optional there ('?', '!' ... never), resolves it.  Written by
 * itself (not optional, no wildcard) it says why, once, as a warning;
 * a script left with no probe says it as its error.
 */
static void alias_missing(struct sema_ctx *c, const struct point_state *st,
			  const struct ast_ppoint *p, const struct ast_expr *m)
{
	const char *why = m->args.n == 2 && m->args.v[1]->kind == AST_STR ?
			  m->args.v[1]->str : "it is not in this kernel";

	if (!c->alias_depth || !c->dropped_why)	/* the script's own point first */
		c->dropped_why = arena_printf(c->arena, "%s: %s", sema_point_text(c, p), why);
	if (!st->optional && !st->glob && !c->alias_depth)
		diag_warning(c->diag, p->span, "probe point '%s' matches nothing on this "
			     "kernel: %s", sema_point_text(c, p), why);
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
		const struct ast_expr *missing;
		struct point_state inner = *st;
		struct ast_stmt *alias_body;
		unsigned first = c->prog->nprobes, k, nsfx = 0;

		if (suffix ? !(nsfx = point_alias_suffix(al->name, p)) :
			     !sema_glob_alias_matches(al->name, p))
			continue;
		n++;
		c->aliases[i].expanded = true;
		if ((missing = alias_body_missing(al->decl->body))) {
			alias_missing(c, st, p, missing);
			continue;
		}
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
			/* a suffix with a wildcard is whatever suffixes the
			   alias's points have: none is no error (signal.*.*) */
			inner.optional = st->optional || t->optional || t->sufficient ||
					 point_suffix_glob(p, nsfx);
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
 * tracepoint's fields (sema_syscall.c).  nd_syscall, tp_syscall and
 * stap's other back ends are the same family (tapset_syscall_family()).
 */
static int point_syscall(struct sema_ctx *c, struct point_state *st, const struct ast_ppoint *p)
{
	const char **names;
	bool ret, wild;
	unsigned i, n;

	if (p->n < 2 || p->n > 3 || !tapset_syscall_family(p->comps[0].name, false) ||
	    p->comps[0].arg || p->comps[1].arg || (p->n == 3 && !sema_point_is(p, 2, "return")))
		return 0;
	ret = p->n == 3;
	wild = strpbrk(p->comps[1].name, "*?[") != NULL;
	n = sema_syscall_names(c, p->comps[1].name, ret, &names);
	if (n == 0) {
		if (st->optional)
			return 1;
		/* As stap's alias of a call this kernel lacks: no probe. */
		if (!wild && sema_syscall_stap_known(p->comps[1].name)) {
			c->dropped_syscalls = point_list_add(c, c->dropped_syscalls,
							     p->comps[1].name);
			c->dropped_missing = arena_printf(c->arena, "the system call%s %s, which "
				"this kernel does not have",
				strchr(c->dropped_syscalls, ',') ? "s" : "", c->dropped_syscalls);
			return 1;
		}
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
 * netfilter.hook("H").pf("P") and its other spellings: the tapset alias
 * of the function holding the hook, the body's context variables its
 * locals (sema_netfilter.c).  pp() and -l give the point as written.
 */
static int point_netfilter(struct sema_ctx *c, struct point_state *st, const struct ast_ppoint *p)
{
	struct point_state inner = *st;
	const struct ast_ppoint *q;
	unsigned k, first = c->prog->nprobes;

	if (!sema_netfilter_is(p))
		return 0;
	if (!(q = sema_netfilter_point(c, p, &inner.body, &inner.cond)))
		return -1;
	if (!point_aliases(c, &inner, q, false)) {
		diag_error(c->diag, p->span, "no tapset alias '%s' for probe point '%s'",
			   sema_point_text(c, q), sema_point_text(c, p));
		return -1;
	}
	for (k = first; k < c->prog->nprobes; k++) {	/* pp(): the point, as stap's */
		c->prog->probes[k]->pp = sema_point_text(c, p);
		if (c->alias_depth == 0)
			c->prog->probes[k]->family = c->prog->probes[k]->pp;
	}
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

	inner.glob = true;
	matched = point_aliases(c, &inner, p, false);
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

/* The points a process("GLOB") or .library() point stands for. */
static void point_expand(struct sema_ctx *c, struct point_expansion *x)
{
	unsigned i, before = c->prog->nprobes, errors = c->diag->errors;

	for (i = 0; i < x->n; i++)
		point_resolve(c, &x->st, x->v[i]);
	if (x->none && c->prog->nprobes == before && c->diag->errors == errors)
		diag_error(c->diag, x->at, "%s", x->none);
}

static void point_resolve(struct sema_ctx *c, struct point_state *st,
			  const struct ast_ppoint *p)
{
	struct point_expansion x;
	int r;

	if (!(p = sema_point_target_exe(c, p)))
		return;

	if ((r = point_syscall(c, st, p)) != 0 || (r = point_netfilter(c, st, p)) != 0)
		return;
	if ((r = point_process_paths(c, st, p, &x)) != 0) {
		if (r > 0)
			point_expand(c, &x);
		return;
	}
	if (sema_glob_has(p) ? point_glob(c, st, p) : point_aliases(c, st, p, false))
		return;
	if ((r = point_simple(c, st, p)) != 0 || (r = point_trace(c, st, p)) != 0 ||
	    (r = point_timer(c, st, p)) != 0 || (r = point_process_points(c, st, p)) != 0 ||
	    (r = point_process_life(c, st, p)) != 0 || (r = point_input(c, st, p)) != 0 ||
	    (r = point_prometheus(c, st, p)) != 0 ||
	    (r = point_procfs(c, st, p)) != 0 ||
	    (r = point_kernel_function(c, st, p)) != 0 ||
	    (r = point_kernel_statement(c, st, p)) != 0)
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
				unsigned before, unsigned nevers, unsigned errors)
{
	/* an alias's 'never' resolved: a point, though it adds no probe */
	if (p->optional || p->sufficient || c->prog->nprobes > before ||
	    c->nevers > nevers || c->diag->errors > errors || !c->missing)
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
				       p->optional || p->sufficient, false };
		unsigned before = c->prog->nprobes, nev = c->nevers, errors = c->diag->errors;

		c->missing = NULL;
		c->missing_mods = NULL;
		point_resolve(c, &st, p);
		point_check_missing(c, p, before, nev, errors);
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
