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

struct arena;

struct ktap_define {
	const char *name;
	const char *value;
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
	int list;			/* -l 1, -L 2: list probe points */
	int dump;			/* --dump-functions 1, --dump-probe-aliases 2 */
};

struct ktap_session {
	struct ktap_options opt;
	struct arena *arena;
	struct src_map src;
	struct diag_sink diag;
	struct pp_facts facts;
	struct pp_macros macros;
	const char *tapset_dir;		/* the library in use, or NULL */
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

/* Set up @s with default options, diagnostics to @err. */
void session_init(struct ktap_session *s, FILE *err);

/* Release everything @s owns (not @s itself). */
void session_free(struct ktap_session *s);

/* Fill s->facts from uname(2), -r/-a and the script arguments. */
void session_facts(struct ktap_session *s);

/*
 * Pass 1: parse the script and the tapset files it needs (tapset.h;
 * all of them at -p1, for the dumps and with $KTAP_TAPSET_EAGER set).
 * Returns 0, or -1 when errors were reported.
 */
int session_parse(struct ktap_session *s);

/* Where the tapset is: $KTAP_TAPSET, next to the build tree, or installed. */
const char *session_tapset_dir(void);

#endif
