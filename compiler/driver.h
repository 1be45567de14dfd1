/*
 * driver.h - the ktap command: options, passes, exit status.
 */
#ifndef KTAP_DRIVER_H
#define KTAP_DRIVER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <getopt.h>

/* Run ktap with @argc/@argv; returns the process exit status. */
int drv_main(int argc, char **argv);

struct ktap_session;

/* Long options without a short one (values beyond any char). */
enum {
	DRV_OPT_TARGET = 0x100, DRV_OPT_SAVE_TARGET, DRV_OPT_DIAG_CODES, DRV_OPT_NO_LOWER,
	DRV_OPT_REPLAY, DRV_OPT_DUMP_FUNCTIONS, DRV_OPT_DUMP_ALIASES, DRV_OPT_COLOR,
	DRV_OPT_FORMAT, DRV_OPT_RECORD, DRV_OPT_PROMETHEUS, DRV_OPT_ALL_ERRORS,
	/* stap's, driver_stap.c */
	DRV_OPT_LDD, DRV_OPT_ALL_MODULES, DRV_OPT_SUPPRESS_TIME_LIMITS, DRV_OPT_RUNTIME,
	DRV_OPT_DYNINST, DRV_OPT_BPF, DRV_OPT_REMOTE, DRV_OPT_USE_SERVER,
	DRV_OPT_VP, DRV_OPT_NOOP, DRV_OPT_NOOP_ARG, DRV_OPT_SUPPRESS_HANDLER_ERRORS,
	DRV_OPT_CLEAN_CACHE, DRV_OPT_PRIVILEGE, DRV_OPT_UNPRIVILEGED, DRV_OPT_SERVERS,
	DRV_OPT_RLIMIT_AS, DRV_OPT_RLIMIT_CPU, DRV_OPT_RLIMIT_NPROC, DRV_OPT_RLIMIT_STACK,
	DRV_OPT_RLIMIT_FSIZE, DRV_OPT_SYSROOT, DRV_OPT_TARGET_NS, DRV_OPT_MONITOR,
	DRV_OPT_EXAMPLE, DRV_OPT_NO_GLOBAL_DISPLAY, DRV_OPT_INTERACTIVE, DRV_OPT_SKIP_BADVARS, DRV_OPT_COMPATIBLE,
};

/* stap's long options driver_stap.c handles, for getopt_long (NULL-ended). */
extern const struct option drv_stap_longopts[];

/*
 * --rlimit-*: the limits stap sets on its translator, here on passes
 * 1-3: set before pass 1 (soft limits, the hard ones kept) and put back
 * by drv_rlimits_restore() before the run.  0, or 1 after reporting.
 */
int drv_rlimits_apply(struct ktap_session *s);
void drv_rlimits_restore(struct ktap_session *s);

/*
 * The stap options driver.c leaves to driver_stap.c (-G, the no-ops and
 * the refused ones): 0 taken, 1 an error (reported), -2 not one of them.
 */
int drv_stap_option(struct ktap_session *s, int c, const char *arg);

/* The rules between options (--suppress-time-limits needs -g): 0 or 1. */
int drv_stap_options_done(const struct ktap_session *s);

/*
 * -G NAME=VALUE after pass 2: each NAME must be a scalar number or
 * string global of the program (one declared but unused is a warning),
 * each VALUE fit its type.  Reports at the option's text; 0 or -1.
 */
int drv_globals_check(struct ktap_session *s);

/* After pass 3: the -G values become the globals' initial values. */
void drv_globals_apply(struct ktap_session *s);

/* Pass 5: run the lowered plan (driver_run.c); returns the exit status. */
int drv_pass5(struct ktap_session *s);

/*
 * -i FILE and --record FILE (driver_tracedat.c): their rules against
 * the other options (0, or 1 after a usage error); -p3's list of the
 * recorded events that feed each probe, printed before the user-space
 * plan in place of the tracefs writes.
 */
int drv_tracedat_check(const struct ktap_session *s);
/* After pass 3 with -i: 0, or -1 (reported) when a probe needs a
   kprobe or uprobe that ktap would create: a recording cannot. */
int drv_tracedat_plan(struct ktap_session *s);
void drv_tracedat_dump(const struct ktap_session *s, FILE *out);

/*
 * --dump-functions (s->opt.dump 1) or --dump-probe-aliases (2): print
 * the tapset's public functions and the builtins, or its probe aliases,
 * to @out (driver_dump.c).  Needs pass 1 over the library; returns 0.
 */
int drv_dump(struct ktap_session *s, FILE *out);

/*
 * Fuzzing entry point: parse @data as a script (with and without guru
 * mode), run passes 2 and 3 on it (probe points resolve against
 * $KTAP_TRACEFS, which the fuzz target points at the fixture), print
 * every pass's result to nowhere and free everything.  Always returns 0.
 */
int drv_fuzz_one(const uint8_t *data, size_t size);

#endif
