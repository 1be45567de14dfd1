/*
 * sema.h - pass 2: elaboration.
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

struct arena;
struct diag_sink;
struct tpf_event;
struct ktap_target;

#define SEM_MAX_KEYS 9

enum sem_type { SEM_UNKNOWN, SEM_LONG, SEM_STRING, SEM_STATS };

enum sem_sym_kind { SEM_GLOBAL, SEM_LOCAL, SEM_PARAM };

struct sem_sym {
	const char *name;
	enum sem_sym_kind kind;
	enum sem_type type;		/* scalar type, or the arrays' values */
	bool is_array;
	unsigned nkeys;
	enum sem_type keys[SEM_MAX_KEYS];
	unsigned slot;			/* global index, or local slot */
	struct src_span span;		/* declaration or first use */
	bool read, written;
	const struct ast_global *decl;	/* globals */
	/* Histograms printed from this statistic: for the runtime's buckets. */
	bool hist_log;
	bool hist_linear;
	int64_t lin_start, lin_stop, lin_step;
};

enum sem_probe_kind {
	SEM_P_BEGIN,
	SEM_P_END,
	SEM_P_ERROR,
	SEM_P_TRACE,			/* a tracepoint (event) */
	SEM_P_TIMER,
};

struct sem_probe {
	enum sem_probe_kind kind;
	const char *pp;			/* what pp() returns */
	const struct ast_ppoint *point;	/* the point as the user wrote it */
	struct tpf_event *event;	/* SEM_P_TRACE */
	int64_t period_ns;		/* SEM_P_TIMER */
	int64_t randomize_ns;
	int64_t priority;		/* begin(N), end(N) */
	struct ast_stmt *body;		/* aliases' bodies folded in */
	struct ast_expr *cond;		/* if (cond) of the point, or NULL */
	struct sem_sym **locals;
	unsigned nlocals;
	size_t lcap;
	/* .return probes: the operands of the body's @entry(), in slot order
	   (AST_ENTRY's ref); pass 3 compiles them into an entry probe. */
	struct ast_expr **entries;
	unsigned nentries;
	size_t ecap;
	unsigned index;			/* in declaration order */
	struct src_span span;
	struct src_span decl;		/* the user's whole probe ('probe' on), for -t */
	/* Resolved through syscall.NAME: a tracepoint whose user-memory
	   arguments are fetched by a kprobe when the body reads them. */
	bool syscall;
	/* The alias the user's point expanded through, for -l/-L:
	   "syscall.NAME[.return]", "scheduler.ctxswitch". */
	const char *family;
	const char *alias_vars;		/* -L: " name:type ..." its body sets */
};

struct sem_func {
	const struct ast_func *ast;
	const char *name;
	enum sem_type ret;
	struct sem_sym **locals;	/* parameters first */
	unsigned nlocals, nparams;
	size_t lcap;
	bool used;
	bool typing;			/* on the inference stack (recursion) */
	unsigned index;
	/* A copy of a function for one call site (sema_spec.c): its address
	   parameters replaced by the caller's target expressions, so that
	   its memory reads are fetch arguments of @site's event. */
	struct sem_probe *site;
	bool at_entry;		/* called inside @entry(): reads @site's entry event */
};

struct sem_prog {
	struct sem_sym **globals;
	unsigned nglobals;
	size_t gcap;
	struct sem_func **funcs;
	unsigned nfuncs;
	size_t fcap;
	struct sem_probe **probes;
	unsigned nprobes;
	size_t pcap;
};

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
};

/*
 * Elaborate @in into a program allocated in @a.  Returns NULL when errors
 * were reported (see d->errors).
 */
struct sem_prog *sema_run(struct arena *a, struct diag_sink *d,
			  const struct sema_input *in);

/* -p2: print the resolved program. */
void sema_print(FILE *out, const struct sem_prog *p);

const char *sem_type_name(enum sem_type t);

/* -l / -L (@vars): the resolved probe points, sorted (sema_list.c). */
void sema_list(FILE *out, struct arena *a, const struct sem_prog *p, bool vars);
/* -v: the type source (DWARF, BTF, none) of each kprobe/uprobe. */
void sema_type_sources(FILE *out, const struct sem_prog *p);

/* ---- shared by the sema_*.c files ---- */

struct sema_ctx;
struct sem_probe *sema_new_probe(struct sema_ctx *c);
void sema_resolve_probe(struct sema_ctx *c, const struct ast_probe *probe);
void sema_types(struct sema_ctx *c);

#endif
