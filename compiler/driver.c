/*
 * driver.c - the ktap command line: options as stap spells them, the
 * passes in order, and the exit status (0 ok, 1 error).
 */
#include "driver.h"
#include "arena.h"
#include "resolve_btf.h"
#include "lower.h"
#include "pp.h"
#include "sema.h"
#include "session.h"

#include "../runtime/run_prom.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/*
 * The --help text.  doc/ktap.1 is generated from it (make man, with
 * scripts/help2man.sh) and tests/harness/cli.sh checks they agree:
 * sections are "Word:" lines; an option is "  -X ARG  text" with its
 * continuation lines indented further.
 */
static const char drv_help[] =
	"Usage: ktap [options] SCRIPT [ARGUMENTS]\n"
	"       ktap [options] -e 'SCRIPT' [ARGUMENTS]\n"
	"\n"
	"Runs a SystemTap-language script on the live kernel through tracefs.\n"
	"\n"
	"Options:\n"
	"  -e SCRIPT      run SCRIPT given on the command line\n"
	"  -p NUM         stop after pass NUM: 1 parse, 2 elaborate, 3 lower, 5 run\n"
	"  -l PATTERN     list the probe points PATTERN matches\n"
	"  -L PATTERN     ... with their target variables and types\n"
	"  -g             guru mode: accept embedded C in the parser (never run)\n"
	"  -u             unoptimized: do not elide unused code\n"
	"  --skip-badvars a target variable ktap cannot read ($var, @cast(),\n"
	"                 a memory read through one) is 0, or \"\" where a\n"
	"                 string is read, without an error, as stap's\n"
	"  -I DIR         look for tapset files in DIR too\n"
	"  -D NAME=VALUE  set a runtime limit (MAXMAPENTRIES, MAXACTION, ...)\n"
	"  -o FILE        write the script's output to FILE\n"
	"  --format FMT   text (the default) or json: the output as JSON Lines,\n"
	"                 one object a line with a \"type\": printf (one print\n"
	"                 or printf call's text), scalar, stat, array, hist,\n"
	"                 warning, error, lost; run-time warnings and errors\n"
	"                 go there too (doc/json.md)\n"
	"  --prometheus [ADDR:]PORT\n"
	"                 serve the prometheus probes' metrics over HTTP at\n"
	"                 http://ADDR:PORT/metrics (ADDR 127.0.0.1 unless\n"
	"                 given: 0.0.0.0 or [::] for every address; PORT 0:\n"
	"                 any free port, said on stderr); each scrape runs the\n"
	"                 prometheus probes between two events\n"
	"                 (doc/prometheus.md)\n"
	"  -s MB          per-CPU trace buffer size\n"
	"  -T SECONDS     stop after SECONDS\n"
	"  -c CMD         run CMD and stop when it exits; target() is its pid\n"
	"  -x PID         set target() to PID\n"
	"  -i FILE        run the script over trace-cmd recording FILE (a\n"
	"                 trace.dat) instead of the live kernel: its event\n"
	"                 formats, CPUs, timestamps and command lines; timers\n"
	"                 and -T run on its clock (doc/trace-cmd.md)\n"
	"  --record FILE  also write the events the script reads to FILE,\n"
	"                 a trace.dat for trace-cmd report, KernelShark and -i\n"
	"  -r RELEASE     kernel release for %( kernel_v ... %) conditions\n"
	"                 (and /boot/config-RELEASE for %( CONFIG_X ... %))\n"
	"  -a ARCH        architecture for %( arch ... %) conditions\n"
	"  -v             more verbose (per-pass timing, what runs in the kernel, a\n"
	"                 progress line a second while running); repeat for more\n"
	"  -w             suppress warnings\n"
	"  -W             treat warnings as errors\n"
	"  -t             report each probe's hits and handler time at the end\n"
	"  -G NAME=VALUE  set the global NAME to VALUE before begin: a number\n"
	"                 or a string, as the global's type is\n"
	"  --suppress-time-limits\n"
	"                 with -g: no MAXACTION limit on a handler's statements\n"
	"  --runtime=MODE\n"
	"                 kernel or bpf (--bpf): ktap's tracefs runtime either way\n"
	"  -E SCRIPT      run SCRIPT too, beside the main script (repeatable)\n"
	"  --suppress-handler-errors\n"
	"                 a handler's error ends that handler quietly\n"
	"  --no-global-var-display\n"
	"                 do not print the globals no end probe printed\n"
	"  --vp ABCDE     verbosity per pass; ktap adds the largest digit to -v\n"
	"  --rlimit-as|cpu|nproc|stack|fsize=NUM\n"
	"                 resource limits while compiling (passes 1-3)\n"
	"  --example NAME run NAME from stap's examples directory\n"
	"  --target DIR   compile for the machine saved in DIR (-p1 to -p3,\n"
	"                 no root needed): its kernel release, architecture,\n"
	"                 tracefs features, event formats, BTF and config\n"
	"  --save-target DIR\n"
	"                 save this machine's description to DIR for --target\n"
	"                 (needs read access to tracefs: root)\n"
	"  --no-lower     keep every aggregation in user space (no hist triggers)\n"
	"  --dump-functions\n"
	"                 list the tapset's functions and the builtins\n"
	"                 with their parameter types, and exit\n"
	"  --dump-probe-aliases\n"
	"                 list the tapset's probe aliases and exit\n"
	"  --diag-codes   show each compiler message's stable code,\n"
	"                 error[E0123] (doc/diagnostics.md)\n"
	"  --all-errors   say every error: also the further ones of a kind\n"
	"                 said once (what the kernel or ktap lacks)\n"
	"  --color=WHEN   colour diagnostics as gcc does: auto (the default:\n"
	"                 when stderr is a terminal and NO_COLOR is unset),\n"
	"                 always or never\n"
	"  -h, --help     show this help\n"
	"  -V, --version  show the version and the SystemTap language level\n"
	"\n"
	"SystemTap options:\n"
	"  Accepted with no effect, since ktap builds no kernel module and reads\n"
	"  symbols from the running system: -d MODULE, --ldd, --all-modules,\n"
	"  -B NAME=VALUE, -k, -P, -R DIR, --prologue-searching, --modinfo,\n"
	"  --compatible, --check-version, --clean-cache (exits), the cache and\n"
	"  signing options, --download-debuginfo, --save-uprobes and\n"
	"  --privilege=stapdev.  Refused with the reason, exit status 1: -m, -F,\n"
	"  -S, -b, -K, --remote, --use-server, --list-servers, --runtime=dyninst,\n"
	"  --privilege=stapusr|stapsys, --unprivileged, --sysroot, --sysenv,\n"
	"  --target-namespaces, --monitor and --interactive.  See\n"
	"  doc/stap-options.md.\n"
	"\n"
	"Environment:\n"
	"  KTAP_TAPSET    the tapset directory (default: beside an uninstalled\n"
	"                 ktap's source, else PREFIX/share/ktap/tapset)\n"
	"  KTAP_TRACEFS   read event formats and available_events from this\n"
	"                 directory instead of the mounted tracefs\n"
	"  KTAP_BTF       the kernel's BTF file (default /sys/kernel/btf/vmlinux)\n"
	"  KTAP_DEBUGINFO_PATH\n"
	"                 ':'-separated directories searched for kernel and\n"
	"                 module debuginfo (vmlinux, NAME.ko with DWARF)\n"
	"  KTAP_KCONFIG   the kernel configuration for %( CONFIG_X ... %)\n"
	"                 (default /proc/config.gz, /boot/config-RELEASE)\n"
	"  KTAP_TAPSET_EAGER\n"
	"                 1: parse the whole tapset, not only what is used\n"
	"  KTAP_STAP_EXAMPLES\n"
	"                 --example's directory (default\n"
	"                 /usr/share/systemtap/examples)\n"
	"  KTAP_PROCFS_DIR\n"
	"                 where procfs(\"NAME\") probes make their files\n"
	"                 (default /run/ktap/ktap_PID, /tmp/ktap_PID as non-root)\n"
	"  PATH           where process(\"NAME\") finds the program NAME\n"
	"  TMPDIR         where -i copies the recording's event formats while\n"
	"                 it runs (default /tmp)\n"
	"  NO_COLOR       when set and not empty, --color=auto means never\n"
	"\n"
	"Privileges:\n"
	"  Running a script with kernel probes (tracepoints, kprobes, uprobes)\n"
	"  needs root, or CAP_SYS_ADMIN/CAP_PERFMON and write access to tracefs;\n"
	"  begin, end and timer probes run as any user.  -p2/-p3 of scripts\n"
	"  with kernel probes read event formats from tracefs (root), or from a\n"
	"  --target directory saved by root.\n"
	"\n"
	"Exit status:\n"
	"  0              success: the script ended by exit(), -T, the end of\n"
	"                 -c's command, SIGINT or SIGTERM (end probes run)\n"
	"  1              an error: a command-line mistake, a compile error, a\n"
	"                 run-time error (error(), division by zero, a limit)\n"
	"                 or a kernel object ktap could not create\n";

struct drv_timer {
	struct timespec real;
	struct rusage ru;
};

static void drv_timer_start(struct drv_timer *t)
{
	clock_gettime(CLOCK_MONOTONIC, &t->real);
	getrusage(RUSAGE_SELF, &t->ru);
}

static long drv_ms(const struct timeval *a, const struct timeval *b)
{
	return (b->tv_sec - a->tv_sec) * 1000 + (b->tv_usec - a->tv_usec) / 1000;
}

/* stap-style "in Xusr/Ysys/Zreal ms." since @t started. */
static void drv_timer_print(const struct drv_timer *t, FILE *out)
{
	struct drv_timer now;
	long real;

	drv_timer_start(&now);
	real = (now.real.tv_sec - t->real.tv_sec) * 1000 +
	       (now.real.tv_nsec - t->real.tv_nsec) / 1000000;
	fprintf(out, "in %ldusr/%ldsys/%ldreal ms.\n",
		drv_ms(&t->ru.ru_utime, &now.ru.ru_utime),
		drv_ms(&t->ru.ru_stime, &now.ru.ru_stime), real);
}

static int drv_usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

/* A command-line mistake: say what, point at --help, exit status 1. */
static int drv_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ktap: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'ktap --help' for more information.\n");
	return 1;
}

/* A non-negative decimal option value, or -1. */
static long drv_number(const char *s)
{
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	v = strtol(s, &end, 10);
	return *end || v < 0 ? -1 : v;
}

static void drv_add_include(struct ktap_session *s, const char *dir)
{
	s->opt.include = xrealloc(s->opt.include,
				  (s->opt.ninclude + 1) * sizeof(char *));
	s->opt.include[s->opt.ninclude++] = dir;
}

static int drv_add_define(struct ktap_session *s, const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct ktap_define *d;

	/* stap passes -D to its C compiler, so NAME alone is fine too. */
	if (!eq)
		eq = arg + strlen(arg);
	if (eq == arg)
		return drv_usage_error("-D expects NAME or NAME=VALUE, got '%s'", arg);
	s->opt.defines = xrealloc(s->opt.defines,
				  (s->opt.ndefines + 1) * sizeof(*d));
	d = &s->opt.defines[s->opt.ndefines++];
	d->name = arena_strndup(s->arena, arg, (size_t)(eq - arg));
	d->value = *eq ? eq + 1 : eq;
	return 0;
}

/*
 * --prometheus [ADDR:]PORT, checked now (pass 5 listens): a mistake is
 * one line, as a port in use is when ktap cannot listen on it.
 */
static int drv_prometheus(struct ktap_options *o, const char *arg)
{
	struct sockaddr_storage sa;
	socklen_t len;
	char err[256];

	if (run_prom_parse(arg, &sa, &len, err, sizeof(err)) != 0) {
		fprintf(stderr, "ktap: error: %s\n", err);
		return 1;
	}
	o->prometheus = arg;
	return 0;
}

/* One short option; returns 0, 1 for an error, or -1 for "exit 0 now". */
static int drv_option(struct ktap_session *s, int c, const char *arg)
{
	struct ktap_options *o = &s->opt;
	long v;
	int r;

	switch (c) {
	case 'p':
		if ((v = drv_number(arg)) < 1 || v > 5)
			return drv_usage_error("-p expects a pass number from 1 to 5, got '%s'", arg);
		o->last_pass = (int)v;
		return 0;
	case 'e': o->script_text = arg; return 0;
	case 'l': case 'L':
		/* stap: -l 'kernel.function("vfs_*")' lists what that resolves to. */
		o->script_text = arena_printf(s->arena, "probe %s {}", arg);
		o->list = c == 'l' ? 1 : 2;
		o->last_pass = 2;
		return 0;
	case 'g': o->guru = true; return 0;
	case 'u': o->unoptimized = true; return 0;
	case 'W': o->warnings_fatal = true; return 0;
	case DRV_OPT_TARGET: o->target_dir = arg; return 0;
	case DRV_OPT_NO_LOWER: o->no_lower = true; return 0;
	case DRV_OPT_FORMAT:
		if (strcmp(arg, "text") && strcmp(arg, "json"))
			return drv_usage_error("--format expects text or json, got '%s'", arg);
		o->json = !strcmp(arg, "json");
		return 0;
	case DRV_OPT_PROMETHEUS:
		return drv_prometheus(o, arg);
	case DRV_OPT_SAVE_TARGET:
		o->save_target = arg;
		o->script_text = "probe never {}";
		return 0;
	case 'v': o->verbose++; return 0;
	case 'w': o->no_warnings = true; return 0;
	case 't': return drv_add_define(s, "STP_TIMING");
	case 'I': drv_add_include(s, arg); return 0;
	case 'D': return drv_add_define(s, arg);
	case 'o': o->output = arg; return 0;
	case 'c': o->command = arg; return 0;
	case 'r': o->release = arg; return 0;
	case 'a': o->arch = arg; return 0;
	case 's':
		if ((v = drv_number(arg)) < 1 || v > 4096)
			return drv_usage_error("-s expects a buffer size in MB (1-4096), got '%s'", arg);
		o->buffer_mb = (unsigned)v;
		return 0;
	case 'T':
		if ((v = drv_number(arg)) < 1)
			return drv_usage_error("-T expects a number of seconds, got '%s'", arg);
		o->timeout_s = (unsigned)v;
		return 0;
	case 'x':
		if ((v = drv_number(arg)) < 1)
			return drv_usage_error("-x expects a process id, got '%s'", arg);
		o->target_pid = (int)v;
		return 0;
	case 'h': fputs(drv_help, stdout); return -1;
	case 'V':
		printf("ktap %s, a compiler and runtime of the SystemTap %s script\n"
		       "language for tracefs (no kernel module)\n", PACKAGE_VERSION,
		       KTAP_SYSTEMTAP_V);
		return -1;
	case DRV_OPT_DUMP_FUNCTIONS: case DRV_OPT_DUMP_ALIASES:
		/* stap: the library's functions or aliases; no script. */
		o->dump = c == DRV_OPT_DUMP_FUNCTIONS ? 1 : 2;
		o->script_text = "probe never {}";
		o->last_pass = 1;
		return 0;
	case DRV_OPT_DIAG_CODES: s->diag.show_codes = true; return 0;
	case DRV_OPT_ALL_ERRORS: s->diag.all_errors = true; return 0;
	case DRV_OPT_COLOR:
		if (!strcmp(arg, "auto")) o->color = KTAP_COLOR_AUTO;
		else if (!strcmp(arg, "never")) o->color = KTAP_COLOR_NEVER;
		else if (!strcmp(arg, "always")) o->color = KTAP_COLOR_ALWAYS;
		else return drv_usage_error("--color expects auto, always or never, got '%s'", arg);
		return 0;
	case 'i': o->input_file = arg; return 0;
	case DRV_OPT_RECORD: o->record_file = arg; return 0;
	case DRV_OPT_REPLAY:
		/* The recording's formats stand in for tracefs in pass 2 too
		   (session_target). */
		o->replay_dir = arg;
		return 0;
	default:
		r = drv_stap_option(s, c, arg);
		return r == -2 ? drv_usage_error("%s", "unknown option") : r;
	}
}

/* Parse the command line into s->opt; same return convention. */
static int drv_options(struct ktap_session *s, int argc, char **argv)
{
	static const struct option own[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		/* Tests: run on a recorded directory instead of the kernel. */
		{ "replay", required_argument, NULL, DRV_OPT_REPLAY },
		{ "dump-functions", no_argument, NULL, DRV_OPT_DUMP_FUNCTIONS },
		{ "dump-probe-aliases", no_argument, NULL, DRV_OPT_DUMP_ALIASES },
		{ "diag-codes", no_argument, NULL, DRV_OPT_DIAG_CODES },
		{ "all-errors", no_argument, NULL, DRV_OPT_ALL_ERRORS },
		{ "color", required_argument, NULL, DRV_OPT_COLOR },
		{ "colour", required_argument, NULL, DRV_OPT_COLOR },
		{ "target", required_argument, NULL, DRV_OPT_TARGET },
		{ "save-target", required_argument, NULL, DRV_OPT_SAVE_TARGET },
		{ "no-lower", no_argument, NULL, DRV_OPT_NO_LOWER },
		{ "format", required_argument, NULL, DRV_OPT_FORMAT },
		{ "record", required_argument, NULL, DRV_OPT_RECORD },
		{ "prometheus", required_argument, NULL, DRV_OPT_PROMETHEUS },
		{ NULL, 0, NULL, 0 },
	};
	struct option longopts[sizeof(own) / sizeof(own[0]) + 64];
	size_t n = 0, k;
	int c, r;

	/* ktap's own, then stap's (driver_stap.c), then the end. */
	for (k = 0; own[k].name; k++)
		longopts[n++] = own[k];
	for (k = 0; drv_stap_longopts[k].name && n + 1 < sizeof(longopts) / sizeof(longopts[0]); k++)
		longopts[n++] = drv_stap_longopts[k];
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };	/* the end */

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "p:e:E:l:L:guvwWtI:D:o:c:r:a:s:T:x:i:hVG:d:B:km:FS:bKPR:",
				longopts, NULL)) != -1) {
		if (c == '?' || c == ':') {
			if (optopt && strchr("peElLIDocrasTxiGdBmSR", optopt))
				return drv_usage_error("option -%c needs a value",
						       (char)optopt);
			if (optopt == DRV_OPT_TARGET || optopt == DRV_OPT_SAVE_TARGET)
				return drv_usage_error("option %s needs a directory",
						       argv[optind - 1]);
			if (optopt >= DRV_OPT_TARGET)	/* a long option's missing value */
				return drv_usage_error("option %s needs a value",
						       argv[optind - 1]);
			/* in "-up1", argv[optind - 1] is the whole group */
			if (optopt)
				return drv_usage_error("unknown option '-%c'", (char)optopt);
			return drv_usage_error("unknown option '%s'", argv[optind - 1]);
		}
		if ((r = drv_option(s, c, optarg)) != 0)
			return r;
	}
	if (drv_stap_options_done(s) != 0)
		return 1;
	if (!s->opt.script_text) {
		if (optind >= argc)
			return drv_usage_error("%s", "no script given (a file, '-' or -e 'SCRIPT')");
		s->opt.script_file = argv[optind++];
	}
	s->opt.args = argv + optind;
	s->opt.nargs = argc - optind;
	return 0;
}

/*
 * -W: the warnings of pass @pass end the run as errors would (after
 * they are printed, as stap does).
 */
static bool drv_warnings_fatal(struct ktap_session *s, int pass)
{
	if (!s->opt.warnings_fatal || !s->diag.warnings)
		return false;
	fprintf(stderr, "ktap: error: pass %d: %u warning%s treated as error%s (-W)\n",
		pass, s->diag.warnings, s->diag.warnings == 1 ? "" : "s",
		s->diag.warnings == 1 ? "" : "s");
	return true;
}

/* -vv: what ktap compiles for (target.h), as the session found it. */
static void drv_print_target(const struct ktap_target *t, FILE *out)
{
	char feat[256];

	fprintf(out, "Target: kernel %s %s, tracefs %s (%s), config %s, BTF %s\n",
		t->release, t->arch, *t->tracefs ? t->tracefs : "none",
		target_feature_names(t->features, feat, sizeof(feat)),
		t->kconfig_path ? t->kconfig_path : "none", t->btf ? t->btf : "none");
}

static int drv_pass1(struct ktap_session *s)
{
	struct drv_timer t;
	unsigned i;
	int r;

	if (s->opt.verbose > 1)
		drv_print_target(&s->target, stderr);
	drv_timer_start(&t);
	r = session_parse(s);
	if (s->opt.verbose) {
		fprintf(stderr, "Pass 1: parsed user script and %u library scripts ",
			s->nlibrary);
		if (s->ntapset)		/* loaded lazily: of how many */
			fprintf(stderr, "(of %u) ", s->ntapset);
		drv_timer_print(&t, stderr);
	}
	for (i = 0; s->opt.verbose > 1 && i < s->nlibrary; i++)
		fprintf(stderr, "Pass 1: library script %s\n", s->library[i]->name);
	if (r == 0 && drv_warnings_fatal(s, 1))
		return -1;
	if (r == 0 && s->opt.dump)
		return drv_dump(s, stdout);
	if (r == 0 && s->opt.last_pass == 1)
		ast_print_file(stdout, s->script);
	return r;
}

static int drv_pass2(struct ktap_session *s)
{
	struct sema_input in = { s->script, s->library, s->nlibrary, s->opt.guru, &s->up,
				 s->opt.list == 2, .target = &s->target,
				 .unoptimized = s->opt.unoptimized,
				 .skip_badvars = s->opt.skip_badvars,
				 .target_exe = session_target_exe(s) };
	struct drv_timer t;

	drv_timer_start(&t);
	s->prog = sema_run(s->arena, &s->diag, &in);
	if (s->opt.verbose) {
		fprintf(stderr, "Pass 2: analyzed script: %u probes, %u functions, %u globals ",
			s->prog ? s->prog->nprobes : 0, s->prog ? s->prog->nfuncs : 0,
			s->prog ? s->prog->nglobals : 0);
		drv_timer_print(&t, stderr);
		if (s->prog)
			sema_type_sources(stderr, s->prog);
	}
	if (!s->prog || drv_globals_check(s) != 0 || drv_warnings_fatal(s, 2))
		return -1;
	if (s->opt.list)
		sema_list(stdout, s->arena, s->prog, s->opt.list == 2);
	else if (s->opt.last_pass == 2)
		sema_print(stdout, s->prog);
	return 0;
}

/*
 * -D KRETACTIVE=N (stap's name) sets the maxactive of kernel return
 * probes without .maxactive(N); else stap's default from the CPU count.
 */
static int drv_kretactive(const struct ktap_session *s, unsigned *out)
{
	unsigned i;
	char *end;
	long v;

	*out = rbtf_kretactive(s->target.cpus);
	for (i = 0; i < s->opt.ndefines; i++) {
		if (strcmp(s->opt.defines[i].name, "KRETACTIVE") != 0)
			continue;
		v = strtol(s->opt.defines[i].value, &end, 0);
		if (*end || !*s->opt.defines[i].value || v < 1 || v > RBTF_MAXACTIVE_MAX) {
			fprintf(stderr, "ktap: error: -D KRETACTIVE expects a number from 1 to %d "
				"(the kernel's limit), got '%s'\n", RBTF_MAXACTIVE_MAX,
				s->opt.defines[i].value);
			return -1;
		}
		*out = (unsigned)v;
	}
	return 0;
}

/* lower_options.comm_key: the target's answer, the kernel asked once. */
static bool drv_comm_key(void *target)
{
	return target_hist_comm(target);
}

static int drv_pass3(struct ktap_session *s)
{
	struct lower_options lo = { .buffer_kb = s->opt.buffer_mb * 1024,
				    .tracefs = s->target.tracefs,
				    .explain = s->opt.verbose ? stderr : NULL };
	struct drv_timer t;
	unsigned i;

	lo.hist_why = target_has(&s->target, TGT_HIST);
	/* --record: every record the script reads must reach the file */
	lo.hist = lo.hist_why && !s->opt.no_lower && !s->opt.record_file;
	lo.synth = target_has(&s->target, TGT_SYNTH);
	lo.target_zero = !s->opt.command && s->opt.target_pid < 0;
	lo.hist_stack = target_has(&s->target, TGT_HIST_COMMON_STACK) ? "common_stacktrace" :
			"stacktrace";
	lo.comm_key = drv_comm_key;
	lo.comm_ctx = &s->target;
	for (i = 0; i < s->opt.ndefines; i++)	/* -t counts each probe's hits */
		if (!strcmp(s->opt.defines[i].name, "STP_TIMING"))
			lo.hist = false;
	lo.verbose = s->opt.verbose;
	lo.recording = s->target.recording != NULL;
	lo.empty_sum_error = s->opt.compatible && pp_vercmp(s->opt.compatible, "1.5") < 0;
	lo.old_pointers = s->opt.compatible && pp_vercmp(s->opt.compatible, "1.3") < 0;
	for (i = 0; i < s->opt.ndefines; i++)	/* the hists' size (run-time: driver_run.c) */
		if (!strcmp(s->opt.defines[i].name, "MAXMAPENTRIES") && s->opt.defines[i].value)
			lo.maxmapentries = (unsigned)strtoul(s->opt.defines[i].value, NULL, 0);

	if (drv_kretactive(s, &lo.kretactive) != 0)
		return -1;
	drv_timer_start(&t);
	s->ir = lower_run(s->arena, &s->diag, &s->src, s->prog, &lo);
	if (s->opt.verbose) {
		fprintf(stderr, "Pass 3: lowered to %u events and %u tracefs writes ",
			s->ir ? s->ir->nevents : 0, s->ir ? s->ir->kplan.n : 0);
		drv_timer_print(&t, stderr);
	}
	if (!s->ir || drv_warnings_fatal(s, 3) || drv_tracedat_plan(s) != 0)
		return -1;
	drv_globals_apply(s);
	if (s->opt.last_pass == 3 && s->target.recording) {
		drv_tracedat_dump(s, stdout);
		ir_dump_user(stdout, s->ir);
	} else if (s->opt.last_pass == 3) {
		ir_dump(stdout, s->ir);
	}
	return 0;
}

/*
 * A plan that writes to tracefs cannot run without it: say what is
 * missing before the runtime fails at its first mkdir.
 */
static int drv_can_run(const struct ktap_session *s)
{
	if (!s->ir->kplan.n || *s->target.tracefs || s->target.recording)
		return 0;
	if (s->target.tracefs_denied)
		fprintf(stderr, "ktap: error: ktap needs root (or CAP_SYS_ADMIN/CAP_PERFMON "
			"and read access to tracefs) to run this script: it creates tracefs "
			"events, and tracefs (/sys/kernel/tracing) is not readable by this "
			"user (-p3 shows the plan without running it)\n");
	else
		fprintf(stderr, "ktap: error: cannot run this script: %s\n",
			s->target.tracefs_problem);
	return 1;
}

/* Pass 5, with stap's -v lines around it. */
static int drv_run(struct ktap_session *s)
{
	struct drv_timer t;
	int r;

	if (drv_can_run(s) != 0)
		return 1;

	fflush(stdout);
	if (s->opt.verbose)
		fprintf(stderr, "Pass 5: starting run.\n");
	drv_timer_start(&t);
	r = drv_pass5(s);
	if (s->opt.verbose) {
		fprintf(stderr, "Pass 5: run %s ", r ? "failed" : "completed");
		drv_timer_print(&t, stderr);
	}
	return r;
}

/*
 * A script that failed without a tapset most likely failed for it
 * ("unknown function 'ctime'"): say once where ktap looked.
 */
static void drv_no_tapset(const struct ktap_session *s)
{
	if (!s->tapset_dir && s->tapset_tried)
		fprintf(stderr, "ktap: note: no tapset found (looked in %s): its functions "
			"and probe aliases are unknown; set KTAP_TAPSET to the tapset "
			"directory\n", s->tapset_tried);
}

/* --target describes another machine: nothing can run there from here. */
static int drv_check_target(const struct ktap_session *s)
{
	if (s->opt.target_dir && s->opt.save_target)
		return drv_usage_error("%s", "--target and --save-target do not go together");
	if (s->opt.target_dir && s->opt.last_pass > 3)
		return drv_usage_error("--target %s compiles for another machine: "
				       "use -p1, -p2 or -p3", s->opt.target_dir);
	return 0;
}

int drv_main(int argc, char **argv)
{
	struct ktap_session s;
	int r;

	session_init(&s, stderr);
	r = drv_options(&s, argc, argv);
	if (r != 0)
		goto out;
	s.diag.warnings_off = s.opt.no_warnings;
	session_color(&s);
	r = 1;
	if (drv_tracedat_check(&s) != 0 || drv_check_target(&s) != 0 ||
	    session_target(&s) != 0)
		goto out;
	if (s.opt.save_target) {
		r = target_save(&s.target, s.opt.save_target, stderr) != 0;
		goto out;
	}
	session_facts(&s);
	if (drv_rlimits_apply(&s) != 0)
		goto out;
	if (drv_pass1(&s) != 0 ||
	    (s.opt.last_pass > 1 && drv_pass2(&s) != 0)) {
		drv_no_tapset(&s);
		goto out;
	}
	if (s.opt.last_pass > 2 && drv_pass3(&s) != 0)
		goto out;
	/* -i: passes 2 and 3 were the only readers of the formats' copy */
	target_cleanup(&s.target);
	drv_rlimits_restore(&s);
	r = 0;
	/* -p4 (stap: build the module) has nothing to do in ktap. */
	if (s.opt.last_pass > 4)
		r = drv_run(&s);
out:
	diag_unsaid_note(&s.diag);
	free(s.opt.include);
	free(s.opt.defines);
	free(s.opt.globals);
	free(s.opt.extra_scripts);
	session_free(&s);
	fflush(stdout);
	return r < 0 ? 0 : r;
}

/* Passes 2 and 3 of a parsed script, their listings to @out. */
static void drv_fuzz_passes(struct ktap_session *s, FILE *out)
{
	struct sema_input in = { s->script, s->library, s->nlibrary, s->opt.guru, &s->up,
				 false, &s->target, false, false, NULL };
	/* A fixed maxactive: no CPU count read per input. */
	struct lower_options lo = { .buffer_kb = s->opt.buffer_mb * 1024, .kretactive = 1,
				    .tracefs = s->target.tracefs };

	s->prog = sema_run(s->arena, &s->diag, &in);
	if (!s->prog)
		return;
	sema_print(out, s->prog);
	s->ir = lower_run(s->arena, &s->diag, &s->src, s->prog, &lo);
	if (s->ir)
		ir_dump(out, s->ir);
}

int drv_fuzz_one(const uint8_t *data, size_t size)
{
	FILE *null = fopen("/dev/null", "w");
	int guru;

	for (guru = 0; guru < 2; guru++) {
		struct ktap_session s;
		char *text = xmalloc(size + 1);

		memcpy(text, data, size);
		text[size] = '\0';
		session_init(&s, null);
		s.diag.muted = true;
		s.opt.guru = guru;
		s.opt.script_text = text;
		/* As -p3: the tapset loads lazily (-p1 parses all of it). */
		s.opt.last_pass = 3;
		/* The target: the fixture tracefs (fuzz_frontend.c sets it). */
		if (session_target(&s) == 0) {
			session_facts(&s);
			if (session_parse(&s) == 0 && null) {
				ast_print_file(null, s.script);
				drv_fuzz_passes(&s, null);
			}
		}
		session_free(&s);
		free(text);
	}
	if (null)
		fclose(null);
	return 0;
}
