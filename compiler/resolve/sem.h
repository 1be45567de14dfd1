/*
 * sem.h - the result of pass 2, as its readers see it.
 *
 * Pass 2 (sema.h, sema_*.c) turns the AST into a sem_prog: every probe
 * resolved to a concrete kind of event with its folded body and
 * condition, every name bound to a sem_sym, every expression typed, and
 * only the functions and globals the probes reach.  Pass 3 (lower/), the
 * -p2 printer and the -l/-L listing read it through this header alone,
 * as the runtime reads pass 3's result through runtime/ir.h; none of
 * them needs the pass's driver or its working state (sema_int.h).
 */
#ifndef KTAP_SEM_H
#define KTAP_SEM_H

#include <stdbool.h>
#include <stdint.h>

#include "ast.h"

struct tpf_event;

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
	bool library;			/* a global of the tapset */
	/* Histograms printed from this statistic: for the runtime's buckets. */
	bool hist_log;
	bool hist_linear;
	int64_t lin_start, lin_stop, lin_step;
	/* @variance(x, N): stap's bit-shift N, which scales every value the
	   statistic's running variance takes in (0 without one). */
	int variance_shift;
	const struct ast_expr *variance_at;	/* the first @variance(x, N), or NULL */
	/* Pass 2, before elision (sema_elide.c): how the program uses a
	   global, 1 as a scalar, 2 as an array (3: both, which typing
	   reports, so nothing using it is elided). */
	unsigned char shape_use;
};

enum sem_probe_kind {
	SEM_P_BEGIN,
	SEM_P_END,
	SEM_P_ERROR,
	SEM_P_TRACE,			/* a tracepoint (event) */
	SEM_P_TIMER,
	SEM_P_INPUT_CHAR,	/* input.char: each byte of ktap's stdin */
	SEM_P_INPUT_LINE,	/* input.line: each line */
	SEM_P_PROMETHEUS,	/* prometheus: each scrape of --prometheus */
	SEM_P_PROCFS_READ,	/* procfs("NAME").read: a reader opened the file */
	SEM_P_PROCFS_WRITE,	/* procfs("NAME").write: a writer wrote to it */
};

struct sem_probe {
	enum sem_probe_kind kind;
	const char *pp;			/* what pp() returns */
	const struct ast_ppoint *point;	/* the point as the user wrote it */
	struct tpf_event *event;	/* SEM_P_TRACE */
	int64_t period_ns;		/* SEM_P_TIMER */
	int64_t randomize_ns;
	int64_t priority;		/* begin(N), end(N) */
	const char *procfs_file;	/* SEM_P_PROCFS_READ/_WRITE: NAME */
	int64_t procfs_max;		/* its .maxsize(N), or 0 */
	int64_t procfs_umask;		/* its .umask(N), or -1: stap's default */
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
	/* ... and made a kprobe on the wrapper __x64_sys_NAME(regs): the
	   pt_regs member each argument came in (int_arg(N) reads regs->di,
	   not %di); NULL otherwise. */
	const char *const *syscall_regs;
	/* ... of the wrapper's parameter, "$regs" ("$__unused" where the
	   BTF names the call's COND_SYSCALL stub first, as 6.1's does) */
	const char *syscall_regs_var;
	/* The alias the user's point expanded through, for -l/-L:
	   "syscall.NAME[.return]", "scheduler.ctxswitch". */
	const char *family;
	const char *alias_vars;		/* -L: " name:type ..." its body sets */
	/* Its context is a task the record names (scheduler.cpu_on: the
	   one switched in), not the recording task (sema_context.c). */
	bool other_task;
	/* A begin or end probe on @event, a kprobe ktap fires itself
	   before it runs the probe (sema_trigger.c). */
	bool self_trigger;
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
	/* The first call the copy was made for: where errors about what
	   the copy reads are reported (sema_tparg.c). */
	struct src_span call;
	bool has_call;
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
	bool has_never;		/* a 'never' point: no probe, but -l lists it */
	/* Each 'never' point met (the point written, the body it would
	   run, unelaborated): -p2 prints them as stap does. */
	struct sem_never {
		const struct ast_ppoint *written;
		const struct ast_stmt *body;
	} *nevers;
	unsigned nnevers;
	size_t nevcap;
};

/* "long", "string", "stats" or "unknown", for messages and -p2. */
const char *sem_type_name(enum sem_type t);

/* The type (enum sem_type) pass 2 gave @e, or its variable's when the
   walk left the expression's own open (sema_format.c). */
int sem_final_type(const struct ast_expr *e);

#endif
