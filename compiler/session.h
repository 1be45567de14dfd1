/*
 * session.h - one run of ktap: options, the facts about the target
 * kernel, and everything the passes produce.
 *
 * The session is the only place with state that outlives a function
 * call; every pass takes it (or the parts it needs) as an argument.
 */
#ifndef KTAP_SESSION_H
#define KTAP_SESSION_H

#include <stdbool.h>

#include "../runtime/ir.h"
#include "ast.h"
#include "sema.h"
#include "diag.h"
#include "pp.h"
#include "source.h"
#include "resolve_elf.h"
#include "target.h"

struct arena;

/* The language version ktap implements, for %( systemtap_v >= ... %). */
#define KTAP_SYSTEMTAP_V "5.0"

struct ktap_define {
	const char *name;
	const char *value;
};

/* --color=WHEN for diagnostics; auto is resolved by session_color(). */
enum ktap_color {
	KTAP_COLOR_AUTO,
	KTAP_COLOR_NEVER,
	KTAP_COLOR_ALWAYS,
};

struct ktap_options {
	int last_pass;			/* -p N; 5 = run */
	const char *script_text;	/* -e */
	const char *script_file;	/* or the file (- for stdin) */
	char **args;			/* script arguments */
	int nargs;
	bool guru;			/* -g */
	int verbose;			/* -v, repeatable */
	bool no_warnings;		/* -w */
	const char *output;		/* -o FILE */
	unsigned buffer_mb;		/* -s MB */
	unsigned timeout_s;		/* -T SECONDS */
	const char *command;		/* -c CMD */
	int target_pid;			/* -x PID */
	const char **include;		/* -I DIR, in order */
	unsigned ninclude;
	struct ktap_define *defines;	/* -D NAME=VALUE */
	unsigned ndefines;
	const char *release;		/* -r RELEASE */
	const char *arch;		/* -a ARCH */
	const char *replay_dir;		/* --replay DIR (tests) */
	const char *input_file;		/* -i FILE: a trace-cmd recording */
	const char *record_file;	/* --record FILE: write one */
	const char *target_dir;		/* --target DIR: compile for that machine */
	const char *save_target;	/* --save-target DIR */
	bool no_lower;			/* --no-lower: aggregations in user space */
	bool json;			/* --format json: JSON Lines (doc/json.md) */
	const char *prometheus;		/* --prometheus [ADDR:]PORT (doc/prometheus.md) */
	bool unoptimized;		/* -u: no elision of unused code */
	const char *compatible;		/* --compatible=V: systemtap_v, else KTAP_SYSTEMTAP_V */
	bool skip_badvars;		/* --skip-badvars: 0 for unreadable $vars */
	bool warnings_fatal;		/* -W: warnings are errors */
	int list;			/* -l 1, -L 2: list probe points */
	int dump;			/* --dump-functions 1, --dump-probe-aliases 2 */
	struct ktap_define *globals;	/* -G NAME=VALUE, in order */
	unsigned nglobals;
	bool no_time_limits;		/* --suppress-time-limits: no MAXACTION */
	enum ktap_color color;		/* --color=WHEN */
	const char **extra_scripts;	/* -E SCRIPT, in order */
	unsigned nextra_scripts;
	bool suppress_handler_errors;	/* --suppress-handler-errors */
	bool no_global_display;		/* --no-global-var-display */
	bool example;			/* --example: the script is one of stap's examples */
	/* --rlimit-*: resource, soft limit (passes 1-3), the limit before */
	struct { int resource; unsigned long long value; unsigned long long saved;
		 bool set; } rlimits[5];
	unsigned nrlimits;
};

struct ktap_session {
	struct ktap_options opt;
	struct arena *arena;
	struct src_map src;
	struct diag_sink diag;
	struct pp_facts facts;
	struct pp_macros macros;
	struct tgt_env env;		/* the environment variables ktap reads */
	struct ktap_target target;	/* what ktap compiles for */
	const char *tapset_dir;		/* the library in use, or NULL */
	const char *tapset_tried;	/* the places looked for it */
	bool tapset_eager;		/* KTAP_TAPSET_EAGER */
	char *kconfig;			/* kernel .config text, loaded lazily */
	bool kconfig_loaded;
	struct ast_file *script;	/* pass 1 result: the user's script */
	struct ast_file **library;	/* and the tapset's files it parsed */
	unsigned nlibrary;
	unsigned ntapset;		/* .stp files found, when lazy (else 0) */
	size_t libcap;
	struct relf_files up;		/* ELF/DWARF files pass 2 opened */
	struct sem_prog *prog;		/* pass 2 result */
	struct ir_prog *ir;		/* pass 3 result */
};

struct ksym_table;

/*
 * The kernel's symbols from /proc/kallsyms, when pass 3 says a handler
 * symbolises kernel addresses (ir_prog.stacks), else NULL; also NULL
 * after a warning when the file cannot be read (addresses then print as
 * hex).  The caller frees the table with ksym_free().
 */
struct ksym_table *session_ksyms(const struct ktap_session *s);

/* Set up @s with default options, diagnostics to @err. */
void session_init(struct ktap_session *s, FILE *err);

/* Release everything @s owns (not @s itself). */
void session_free(struct ktap_session *s);

/*
 * Read the environment (the only place ktap does) and describe the
 * target: --target's directory, or this machine with -r/-a.  Returns 0,
 * or -1 when --target is not a target directory (reported).
 */
int session_target(struct ktap_session *s);

/*
 * Whether diagnostics are coloured: --color=always, or auto (the default)
 * when the diagnostics' stream is a terminal and NO_COLOR is unset or
 * empty (no-color.org).  Sets s->diag.color.
 */
void session_color(struct ktap_session *s);

/* Fill s->facts from the target, -r/-a and the script arguments. */
void session_facts(struct ktap_session *s);

/*
 * Pass 1: parse the script and the tapset files it needs (tapset.h;
 * all of them at -p1, for the dumps and with $KTAP_TAPSET_EAGER set).
 * Returns 0, or -1 when errors were reported.
 */
int session_parse(struct ktap_session *s);

/*
 * Where the tapset is: $KTAP_TAPSET, the source tree of an uninstalled
 * ktap, ../share/ktap/tapset beside the program, or the configured
 * place; NULL when none is a directory (*@tried lists them, arena).
 */
const char *session_tapset_dir(struct ktap_session *s, const char **tried);

/*
 * The target process's executable, for process.function() without a
 * path: -c CMD's first word, -x PID's /proc/PID/exe; NULL without them.
 */
const char *session_target_exe(struct ktap_session *s);

#endif
