/*
 * sema.h - pass 2: elaboration (the pass's driver; its result types are
 * in sem.h).
 *
 * Input: the AST of the script and of the tapset library (pass 1).
 * Output: a sem_prog: every probe resolved to a concrete kind of event
 * (begin/end/error, a tracepoint with its fields, a timer), probe aliases
 * expanded into their bodies, every name bound to a symbol, every
 * expression typed (long, string or statistics), and only the functions
 * and globals the probes reach.  Problems are reported as located
 * diagnostics; the pass goes on to find as many as it can.
 */
#ifndef KTAP_SEMA_H
#define KTAP_SEMA_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ast.h"
#include "sem.h"

struct arena;
struct diag_sink;
struct tpf_event;
struct ktap_target;

struct relf_files;

struct sema_input {
	const struct ast_file *script;
	struct ast_file *const *library;
	unsigned nlibrary;
	bool guru;
	struct relf_files *up;	/* ELF/DWARF files opened for process() probes */
	bool list_vars;		/* -L: keep what alias bodies set (sema_list_vars) */
	const struct ktap_target *target;	/* what ktap compiles for */
	bool unoptimized;	/* -u: keep unused alias locals */
	bool skip_badvars;	/* --skip-badvars: unreadable targets are 0 or "" */
	/* The target's executable, for process.function() without a path
	   (stap's: -c CMD's first word, -x PID's /proc/PID/exe); NULL */
	const char *target_exe;
};

/*
 * Elaborate @in into a program allocated in @a.  Returns NULL when errors
 * were reported (see d->errors).
 */
struct sem_prog *sema_run(struct arena *a, struct diag_sink *d,
			  const struct sema_input *in);

/* -p2: print the resolved program. */
void sema_print(FILE *out, const struct sem_prog *p);

/* -l / -L (@vars): the resolved probe points, sorted (sema_list.c). */
void sema_list(FILE *out, struct arena *a, const struct sem_prog *p, bool vars);
/* -v: the type source (DWARF, BTF, none) of each kprobe/uprobe. */
void sema_type_sources(FILE *out, const struct sem_prog *p);

#endif
