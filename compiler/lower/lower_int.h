/*
 * lower_int.h - what the files of pass 3 (compiler/lower/) share: the
 * lowering context and the lw_ functions one file calls in another.
 * Not for use outside compiler/lower/ (lower.h is the pass's interface).
 *
 *   lower.c         probes, functions, globals; lower_run()
 *   lower_code.c    expressions and statements -> bytecode
 *   lower_plan.c    guards, events, dynamic events -> kernel plan objects
 *   lower_filter.c  guard expressions -> kernel filter text
 *   lower_track.c   the process-tracking events
 *   lower_format.c  printf formats checked against their arguments
 */
#ifndef KTAP_LOWER_INT_H
#define KTAP_LOWER_INT_H

#include "lower.h"
#include "source.h"

#define LOWER_MAX_LOOPS 64

/* A guard conjunct of a tracepoint probe and whether the kernel has it. */
struct lw_guard {
	const struct ast_expr *expr;
	const struct ast_expr *written;	/* what the user wrote it from */
	bool negated;			/* from "if (C) next": holds when C is false */
	const char *filter;		/* kernel text, or NULL */
	const char *why;		/* why not in the kernel (filter NULL) */
	/* the "if (C) next" or the handler's single "if (C) S", or NULL (cond) */
	const struct ast_stmt *origin;
};

struct lw_probe_guards {
	struct lw_guard *v;
	unsigned n;
	size_t cap;
	bool removable;			/* kernel conjuncts need no user check */
	/* The handler is "if (C) S" without else (after "if (C) next"s): its
	   conjuncts are guards with this origin, S runs when they hold. */
	const struct ast_stmt *wrap;
	bool only_exit;			/* the handler then only calls exit() */
	const char *shared_why;		/* why the guards are checked in user space too */
};

struct lw_loop {
	unsigned *breaks, nbreaks;
	size_t bcap;
	unsigned cont;			/* continue target (patched later if ~0u) */
	unsigned *conts, nconts;
	size_t ccap;
};

struct lw_ctx {
	struct arena *arena;
	struct diag_sink *diag;
	const struct src_map *src;
	const struct sem_prog *sp;
	struct ir_prog *ir;
	struct ir_code *code;
	const struct sem_probe *probe;
	const struct tpf_event *event;	/* whose fields FIELD reads */
	struct ir_probe *irp;
	const struct sem_func *func;
	unsigned nslots;		/* frame size so far */
	struct lw_loop loops[LOWER_MAX_LOOPS];
	unsigned nloops;
	struct lw_probe_guards *guards;	/* per probe */
	struct src_span at;		/* location of what is being emitted */
	const char *near;
	unsigned kretactive;		/* lower_options.kretactive */
};

/* ---- lower_code.c: bytecode ---- */

/* The ir_prog.locs index of what is being emitted (lw_ctx.at, .near). */
uint32_t lw_loc(struct lw_ctx *c);
/* Append an instruction to the current code; its index. */
unsigned lw_emit(struct lw_ctx *c, enum ir_op op, unsigned n,
		 unsigned a, int32_t b);
/* Make jump @at go to @target. */
void lw_patch(struct lw_ctx *c, unsigned at, unsigned target);
/* The index of the next instruction. */
unsigned lw_here(struct lw_ctx *c);
/* The runtime type of sema type @t. */
enum rt_type lw_rt(int t);
/* Code leaving @e's value on the stack. */
void lw_expr(struct lw_ctx *c, const struct ast_expr *e);
/* Code for @s (leaves the stack as it was). */
void lw_stmt(struct lw_ctx *c, const struct ast_stmt *s);

/* ---- lower_plan.c: the kernel plan ---- */

/* The index of @ev in the plan's events, adding it (and its dynamic
   event) when new. */
unsigned lw_event(struct lw_ctx *c, const struct tpf_event *ev);
/* Every tracepoint probe's guards, events, filters and enables. */
void lw_plan_events(struct lw_ctx *c, const struct lower_options *opt);

/*
 * lw_probe_kernel_filter - the filter text for a trigger that must fire
 * exactly when event probe @probe's handler runs (a hist or stacktrace
 * trigger's "if"; triggers do not see the event's own filter): the
 * probe's kernel conjuncts and the clause that leaves ktap out
 * (lower_plan.c's lw_own_pid()).  *@complete (may be NULL) is true when
 * nothing of the probe's guard stays in user space, i.e. the trigger
 * fires for exactly the records the handler runs for.  Valid after
 * lw_plan_events().
 */
const char *lw_probe_kernel_filter(const struct lw_ctx *c, unsigned probe, bool *complete);

/* Code for the handler's single "if (C) S" (lw_probe_guards.wrap): the
   user-space conjuncts of C, each leaving the handler when false, then S. */
void lw_wrap_if(struct lw_ctx *c, const struct ast_stmt *s);

/* ---- lower_format.c ---- */

/* printf/sprintf's format, checked and compiled: its index in ir->formats. */
int lower_format(struct lw_ctx *c, const struct ast_expr *call);
/* The type sema gave @e, or its variable's when the walk left it open. */
int lw_arg_type(const struct ast_expr *e);

#endif
