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
#include <sys/resource.h>

/* stap's long options handled here; the values are driver.h's. */
const struct option drv_stap_longopts[] = {
	{ "ldd", no_argument, NULL, DRV_OPT_LDD },
	{ "all-modules", no_argument, NULL, DRV_OPT_ALL_MODULES },
	{ "skip-badvars", no_argument, NULL, DRV_OPT_SKIP_BADVARS },
	{ "suppress-time-limits", no_argument, NULL, DRV_OPT_SUPPRESS_TIME_LIMITS },
	{ "runtime", required_argument, NULL, DRV_OPT_RUNTIME },
	{ "dyninst", no_argument, NULL, DRV_OPT_DYNINST },
	{ "bpf", no_argument, NULL, DRV_OPT_BPF },
	{ "remote", required_argument, NULL, DRV_OPT_REMOTE },
	{ "remote-prefix", no_argument, NULL, DRV_OPT_REMOTE },
	{ "use-server", optional_argument, NULL, DRV_OPT_USE_SERVER },
	{ "list-servers", optional_argument, NULL, DRV_OPT_SERVERS },
	{ "trust-servers", optional_argument, NULL, DRV_OPT_SERVERS },
	{ "vp", required_argument, NULL, DRV_OPT_VP },
	/* About building, caching, signing and finding a module, or about
	   the translator: nothing to do for ktap (doc/stap-options.md). */
	{ "prologue-searching", optional_argument, NULL, DRV_OPT_NOOP_ARG },
	{ "modinfo", required_argument, NULL, DRV_OPT_NOOP_ARG },
	{ "compatible", required_argument, NULL, DRV_OPT_COMPATIBLE },
	{ "check-version", no_argument, NULL, DRV_OPT_NOOP },
	{ "disable-cache", no_argument, NULL, DRV_OPT_NOOP },
	{ "poison-cache", no_argument, NULL, DRV_OPT_NOOP },
	{ "use-server-on-error", optional_argument, NULL, DRV_OPT_NOOP_ARG },
	{ "sign-module", optional_argument, NULL, DRV_OPT_NOOP_ARG },
	{ "download-debuginfo", optional_argument, NULL, DRV_OPT_NOOP_ARG },
	{ "save-uprobes", no_argument, NULL, DRV_OPT_NOOP },
	/* where stap takes the kernel's symbols and types from (its
	   testsuite's nodwf*.stp): ktap reads kallsyms and BTF */
	{ "ignore-vmlinux", no_argument, NULL, DRV_OPT_NOOP },
	{ "ignore-dwarf", no_argument, NULL, DRV_OPT_NOOP },
	{ "kelf", no_argument, NULL, DRV_OPT_NOOP },
	{ "kmap", optional_argument, NULL, DRV_OPT_NOOP_ARG },
	{ "clean-cache", no_argument, NULL, DRV_OPT_CLEAN_CACHE },
	{ "suppress-handler-errors", no_argument, NULL, DRV_OPT_SUPPRESS_HANDLER_ERRORS },
	{ "privilege", optional_argument, NULL, DRV_OPT_PRIVILEGE },
	{ "unprivileged", no_argument, NULL, DRV_OPT_UNPRIVILEGED },
	{ "rlimit-as", required_argument, NULL, DRV_OPT_RLIMIT_AS },
	{ "rlimit-cpu", required_argument, NULL, DRV_OPT_RLIMIT_CPU },
	{ "rlimit-nproc", required_argument, NULL, DRV_OPT_RLIMIT_NPROC },
	{ "rlimit-stack", required_argument, NULL, DRV_OPT_RLIMIT_STACK },
	{ "rlimit-fsize", required_argument, NULL, DRV_OPT_RLIMIT_FSIZE },
	{ "sysroot", required_argument, NULL, DRV_OPT_SYSROOT },
	{ "sysenv", required_argument, NULL, DRV_OPT_SYSROOT },
	{ "target-namespaces", required_argument, NULL, DRV_OPT_TARGET_NS },
	{ "monitor", optional_argument, NULL, DRV_OPT_MONITOR },
	{ "example", no_argument, NULL, DRV_OPT_EXAMPLE },
	{ "no-global-var-display", no_argument, NULL, DRV_OPT_NO_GLOBAL_DISPLAY },
	{ "interactive", no_argument, NULL, DRV_OPT_INTERACTIVE },
	{ NULL, 0, NULL, 0 },
};

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

/* --vp ABCDE: stap's verbosity per pass; ktap's -v is one level for all. */
static int drv_vp(struct ktap_session *s, const char *arg)
{
	int most = 0;
	const char *p;

	for (p = arg; *p; p++) {
		if (!isdigit((unsigned char)*p) || p - arg >= 5) {
			fprintf(stderr, "ktap: error: --vp expects up to 5 digits, one per pass "
				"(as stap), got '%s'\n", arg);
			return 1;
		}
		if (*p - '0' > most)
			most = *p - '0';
	}
	s->opt.verbose += most;
	return 0;
}

/* --rlimit-NAME=NUM: kept for drv_rlimits_apply(). */
static int drv_rlimit(struct ktap_session *s, int c, const char *arg)
{
	static const int res[] = { RLIMIT_AS, RLIMIT_CPU, RLIMIT_NPROC, RLIMIT_STACK,
				   RLIMIT_FSIZE };
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (!isdigit((unsigned char)*arg) || *end || errno) {
		fprintf(stderr, "ktap: error: --rlimit-*: expects a number, got '%s'\n", arg);
		return 1;
	}
	if (s->opt.nrlimits < sizeof(s->opt.rlimits) / sizeof(s->opt.rlimits[0])) {
		s->opt.rlimits[s->opt.nrlimits].resource = res[c - DRV_OPT_RLIMIT_AS];
		s->opt.rlimits[s->opt.nrlimits++].value = v;
	}
	return 0;
}

int drv_rlimits_apply(struct ktap_session *s)
{
	struct rlimit rl;
	unsigned i;

	for (i = 0; i < s->opt.nrlimits; i++) {
		if (getrlimit(s->opt.rlimits[i].resource, &rl) != 0)
			continue;
		s->opt.rlimits[i].saved = rl.rlim_cur;
		rl.rlim_cur = s->opt.rlimits[i].value;
		if (rl.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl.rlim_max)
			rl.rlim_cur = rl.rlim_max;
		if (setrlimit(s->opt.rlimits[i].resource, &rl) != 0) {
			fprintf(stderr, "ktap: error: --rlimit-*=%llu: %s\n",
				s->opt.rlimits[i].value, strerror(errno));
			return 1;
		}
		s->opt.rlimits[i].set = true;
	}
	return 0;
}

void drv_rlimits_restore(struct ktap_session *s)
{
	struct rlimit rl;
	unsigned i;

	/* The run is not the translator: stap limits only passes 1-4. */
	for (i = 0; i < s->opt.nrlimits; i++) {
		if (!s->opt.rlimits[i].set || getrlimit(s->opt.rlimits[i].resource, &rl) != 0)
			continue;
		rl.rlim_cur = s->opt.rlimits[i].saved;
		setrlimit(s->opt.rlimits[i].resource, &rl);
		s->opt.rlimits[i].set = false;
	}
}

/* --privilege=LEVEL and --unprivileged. */
static int drv_privilege(const char *opt, const char *level)
{
	if (!level || !strcmp(level, "stapdev"))
		return 0;	/* full privilege: what ktap has as root */
	if (!strcmp(level, "stapusr") || !strcmp(level, "stapsys"))
		return drv_refuse(opt, "ktap has no restricted mode for unprivileged users: its probes "
				  "are tracefs events, which only root (or a tracefs owner) "
				  "creates; run it as root");
	fprintf(stderr, "ktap: error: --privilege=%s: not a stap privilege level "
		"(stapusr, stapsys or stapdev)\n", level);
	return 1;
}

int drv_stap_option(struct ktap_session *s, int c, const char *arg)
{
	switch (c) {
	case 'G':
		return drv_add_global(s, arg);
	case 'E':
		s->opt.extra_scripts = xrealloc(s->opt.extra_scripts, (s->opt.nextra_scripts + 1) *
						sizeof(*s->opt.extra_scripts));
		s->opt.extra_scripts[s->opt.nextra_scripts++] = arg;
		return 0;
	case DRV_OPT_VP: return drv_vp(s, arg);
	case DRV_OPT_RLIMIT_AS: case DRV_OPT_RLIMIT_CPU: case DRV_OPT_RLIMIT_NPROC:
	case DRV_OPT_RLIMIT_STACK: case DRV_OPT_RLIMIT_FSIZE:
		return drv_rlimit(s, c, arg);
	case DRV_OPT_SUPPRESS_HANDLER_ERRORS: s->opt.suppress_handler_errors = true; return 0;
	case DRV_OPT_NO_GLOBAL_DISPLAY: s->opt.no_global_display = true; return 0;
	case DRV_OPT_EXAMPLE: s->opt.example = true; return 0;
	case DRV_OPT_CLEAN_CACHE:
		return -1;	/* stap prunes its cache and exits; ktap keeps none */
	case DRV_OPT_PRIVILEGE: return drv_privilege("--privilege", arg);
	case DRV_OPT_UNPRIVILEGED: return drv_privilege("--unprivileged", "stapusr");
	case DRV_OPT_SERVERS:
		return drv_refuse("--list-servers/--trust-servers", "compile servers build "
				  "kernel modules; ktap builds none");
	case DRV_OPT_SYSROOT:
		return drv_refuse("--sysroot/--sysenv", "ktap reads the files of the machine it "
				  "runs on; to compile for another machine, save it there with "
				  "--save-target DIR and use --target DIR here");
	case DRV_OPT_TARGET_NS:
		return drv_refuse("--target-namespaces", "ktap's pid(), tid() and the like are "
				  "the ids the kernel records, in the initial PID namespace; it "
				  "has no namespace-aware tapset functions to retarget");
	case DRV_OPT_MONITOR:
		return drv_refuse("--monitor", "stap's monitor is an interactive status window "
				  "of its kernel module; ktap -v prints a progress line a second "
				  "(events, losses, map sizes) instead");
	case DRV_OPT_INTERACTIVE:
		return drv_refuse("--interactive", "ktap has no interactive mode (its -i reads "
				  "a trace-cmd recording)");
	case 'P': case 'R': case DRV_OPT_NOOP: case DRV_OPT_NOOP_ARG:
		/* -P/--prologue-searching: ktap reads parameters at the entry
		   address, where their DWARF locations hold; -R, --modinfo,
		   the cache, signing, --download-debuginfo, --save-uprobes:
		   about a module ktap does not build; --check-version:
		   ktap has one language, stap 4.8's. */
		return 0;
	case 'd': case 'B': case 'k':
	case DRV_OPT_LDD: case DRV_OPT_ALL_MODULES:
		/* Symbols come from the running system when the run needs
		   them (kallsyms, the probed programs' ELF files); there is
		   no module to build, embed data in or keep.  No-ops. */
		return 0;
	case DRV_OPT_COMPATIBLE:
		/* The preprocessor's systemtap_v: the tapset keeps the
		   older behaviour it guards with it (ctime()'s range). */
		if (arg[strspn(arg, "0123456789.")] || !isdigit((unsigned char)arg[0])) {
			fprintf(stderr, "ktap: error: --compatible expects a version such as "
				"2.2, got '%s'\n", arg);
			return 1;
		}
		s->opt.compatible = arg;
		return 0;
	case DRV_OPT_SKIP_BADVARS:
		s->opt.skip_badvars = true;	/* sema_badvars.c */
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

	if (sym && !sym->read && !sym->written)
		return 0;	/* pass 2 said "eliding unused variable" */
	if (!sym && drv_declared(s, g->name)) {
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
