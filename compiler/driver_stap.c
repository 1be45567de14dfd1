/*
 * driver_stap.c - stap's options that ktap takes from a stap command
 * line: -G (a global's value before begin), the options about building
 * and keeping a kernel module, which ktap accepts and ignores since it
 * builds none, and the ones it refuses because their meaning cannot
 * hold for a tracefs runtime (doc/stap-options.md lists them all).
 */
#include "driver.h"
#include "arena.h"
#include "session.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * stap's check of a -G argument (session.cxx, case-insensitive): a name,
 * '=', and a value of letters, digits, '_', '.' and '-', so that it can
 * go on staprun's command line as a module parameter.
 */
static bool drv_global_arg_ok(const char *arg)
{
	const char *p = arg;

	if (!isalpha((unsigned char)*p) && *p != '_')
		return false;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	if (*p++ != '=' || !*p)
		return false;
	for (; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_.-", *p))
			return false;
	return true;
}

/* -G NAME=VALUE: kept for drv_globals_check() and drv_globals_apply(). */
static int drv_add_global(struct ktap_session *s, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct ktap_define *g;

	if (!drv_global_arg_ok(arg)) {
		fprintf(stderr, "ktap: error: -G expects NAME=VALUE, the value of letters, "
			"digits, '_', '.' and '-' (as stap), got '%s'\n", arg);
		return 1;
	}
	s->opt.globals = xrealloc(s->opt.globals, (s->opt.nglobals + 1) * sizeof(*g));
	g = &s->opt.globals[s->opt.nglobals++];
	g->name = arena_strndup(s->arena, arg, (size_t)(eq - arg));
	g->value = eq + 1;
	return 0;
}

/* An option whose meaning cannot hold in ktap: one line, exit status 1. */
static int drv_refuse(const char *opt, const char *why)
{
	fprintf(stderr, "ktap: error: %s: %s\n", opt, why);
	return 1;
}

/* --runtime=MODE (and --dyninst, --bpf): stap's pass-5 back ends. */
static int drv_runtime(const char *mode)
{
	/* Both probe the kernel; ktap's tracefs runtime stands in for
	   either, as it does for a plain stap command line. */
	if (!strcmp(mode, "kernel") || !strcmp(mode, "bpf"))
		return 0;
	if (!strcmp(mode, "dyninst"))
		return drv_refuse("--runtime=dyninst", "ktap has no Dyninst runtime, which "
				  "instruments only the user's own processes without "
				  "the kernel; ktap's probes are tracefs events (root)");
	fprintf(stderr, "ktap: error: --runtime=%s: not a stap runtime "
		"(kernel, bpf or dyninst)\n", mode);
	return 1;
}

int drv_stap_option(struct ktap_session *s, int c, const char *arg)
{
	switch (c) {
	case 'G':
		return drv_add_global(s, arg);
	case 'd': case 'B': case 'k':
	case DRV_OPT_LDD: case DRV_OPT_ALL_MODULES:
		/* Symbols come from the running system when the run needs
		   them (kallsyms, the probed programs' ELF files); there is
		   no module to build, embed data in or keep.  No-ops. */
		return 0;
	case DRV_OPT_SKIP_BADVARS:
		s->opt.skip_badvars = true;	/* sema_type.c */
		return 0;
	case DRV_OPT_SUPPRESS_TIME_LIMITS:
		s->opt.no_time_limits = true;	/* with -g: drv_stap_options_done() */
		return 0;
	case DRV_OPT_RUNTIME: return drv_runtime(arg);
	case DRV_OPT_DYNINST: return drv_runtime("dyninst");
	case DRV_OPT_BPF: return drv_runtime("bpf");
	case 'm':
		return drv_refuse("-m", "ktap builds no kernel module to name; its probes "
				  "live in a tracefs instance while ktap runs");
	case 'F':
		return drv_refuse("-F", "ktap cannot detach and leave its probes running: "
				  "they are removed when ktap exits (run it in the "
				  "background with -o FILE instead)");
	case 'S':
		return drv_refuse("-S", "ktap writes one output file (-o FILE), it does "
				  "not switch files by size");
	case 'b':
		return drv_refuse("-b", "ktap merges the CPUs' buffers itself: there are no "
				  "per-CPU output files for stap-merge");
	case 'K':
		return drv_refuse("-K", "not a stap option (stap rejects it too); -k, keep "
				  "the temporary directory, is accepted and does nothing");
	case DRV_OPT_REMOTE:
		return drv_refuse("--remote", "ktap runs scripts on this machine only; run "
				  "ktap on that host (--target compiles for a machine "
				  "saved with --save-target)");
	case DRV_OPT_USE_SERVER:
		return drv_refuse("--use-server", "compile servers build kernel modules; "
				  "ktap builds none");
	default:
		return -2;
	}
}

int drv_stap_options_done(const struct ktap_session *s)
{
	if (s->opt.no_time_limits && !s->opt.guru)
		return drv_refuse("--suppress-time-limits", "requires guru mode (-g), as in stap");
	return 0;
}

/* -G's text, as a source of its own, for a diagnostic to point into. */
static struct src_span drv_global_span(struct ktap_session *s, const struct ktap_define *g)
{
	const char *text = arena_printf(s->arena, "-G %s=%s", g->name, g->value);
	struct src_span at = { 0, 3, 3 + (uint32_t)strlen(g->name), 0 };

	at.file = src_add(&s->src, "<command line>", text, strlen(text));
	return at;
}

/* The pass-2 global named @name, or NULL (elided or undeclared). */
static const struct sem_sym *drv_find_global(const struct sem_prog *p, const char *name)
{
	unsigned i;

	for (i = 0; i < p->nglobals; i++)
		if (!strcmp(p->globals[i]->name, name))
			return p->globals[i];
	return NULL;
}

/* Whether the script or a parsed tapset file declares global @name. */
static bool drv_declared(const struct ktap_session *s, const char *name)
{
	const struct ast_file *f;
	unsigned i, k;

	for (i = 0; i <= s->nlibrary; i++) {
		f = i < s->nlibrary ? s->library[i] : s->script;
		for (k = 0; f && k < f->n; k++)
			if (f->decls[k]->kind == AST_D_GLOBAL &&
			    !strcmp(f->decls[k]->global->name, name))
				return true;
	}
	return false;
}

/*
 * The number of a -G value, as stap's module parameter reads one (an
 * optional '-', then decimal, 0x hex or 0 octal); unlike the kernel's
 * reader, which stops at the first other character, the whole value
 * must be the number.  0, or -1.
 */
static int drv_global_number(const char *v, int64_t *out)
{
	bool neg = *v == '-';
	unsigned long long u;
	char *end;

	errno = 0;
	u = strtoull(v + neg, &end, 0);
	if (end == v + neg || *end || errno || !isdigit((unsigned char)v[neg]) ||
	    u > (unsigned long long)INT64_MAX + neg)
		return -1;
	*out = neg ? (int64_t)(0 - u) : (int64_t)u;
	return 0;
}

/* One -G against the program; reports and returns -1 when it cannot apply. */
static int drv_global_check(struct ktap_session *s, const struct ktap_define *g)
{
	const struct sem_sym *sym = drv_find_global(s->prog, g->name);
	int64_t v;

	if ((sym && !sym->read && !sym->written) || (!sym && drv_declared(s, g->name))) {
		diag_warning(&s->diag, drv_global_span(s, g),
			     "global '%s' is not used by any probe: -G sets nothing",
			     g->name);
		return 0;
	}
	if (!sym) {
		diag_error(&s->diag, drv_global_span(s, g),
			   "no global '%s' in the script or the tapset it uses", g->name);
		return -1;
	}
	if (sym->is_array || sym->type == SEM_STATS) {
		diag_error(&s->diag, drv_global_span(s, g),
			   "'%s' is %s: -G sets a number or a string global", g->name,
			   sym->is_array ? "an array" : "a statistic");
		return -1;
	}
	if (sym->type == SEM_LONG && drv_global_number(g->value, &v) != 0) {
		diag_error(&s->diag, drv_global_span(s, g),
			   "'%s' is a number, and '%s' is not one (decimal, 0x hex, 0 octal)",
			   g->name, g->value);
		return -1;
	}
	return 0;
}

int drv_globals_check(struct ktap_session *s)
{
	unsigned i;
	int r = 0;

	for (i = 0; i < s->opt.nglobals; i++)
		if (drv_global_check(s, &s->opt.globals[i]) != 0)
			r = -1;
	return r;
}

void drv_globals_apply(struct ktap_session *s)
{
	const struct ktap_define *g;
	struct ir_global *ig;
	unsigned i, k;
	int64_t v;

	for (i = 0; i < s->opt.nglobals; i++) {
		g = &s->opt.globals[i];
		for (k = 0; k < s->ir->nglobals; k++) {
			ig = &s->ir->globals[k];
			if (strcmp(ig->name, g->name) != 0 || ig->is_array)
				continue;
			/* Over the declaration's initializer, as stap's
			   module parameter is set after the static one. */
			if (ig->type == RT_STRING)
				ig->init = rt_str(g->value, (uint32_t)strlen(g->value));
			else if (drv_global_number(g->value, &v) == 0)
				ig->init = rt_long(v);
		}
	}
}
