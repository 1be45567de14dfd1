/*
 * lower_int.h - what the files of pass 3 (compiler/lower/) share: the
 * lowering context and the lw_ functions one file calls in another.
 * Not for use outside compiler/lower/ (lower.h is the pass's interface).
 *
 *   lower.c         probes, functions, globals; lower_run()
 *   lower_code.c    expressions and statements -> bytecode
 *   lower_plan.c    events, dynamic events, filters -> kernel plan objects
 *   lower_guard.c   a probe's guard: what the kernel filters, what stays
 *   lower_bind.c    locals a probe's prologue binds, read through by guards
 *   lower_fold.c    guard conditions known at compile time, syscall_name() sets
 *   lower_target.c  the -c/-x target as a set_event_pid pre-filter
 *   lower_kobj.c    appending kernel objects to the plan (no callbacks)
 *   lower_filter.c  guard expressions -> kernel filter text
 *   lower_track.c   the process-tracking events
 *   lower_hist.c    which aggregations the kernel keeps (lower_hist.h)
 *   lower_hist_trigger.c  the hist trigger of one update, the value hop
 *   lower_latency.c, lower_latency_shape.c  latency pairs (lower_latency.h)
 *   lower_synth.c   what a synthetic event carries: keys, value expressions
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
	/* @expr with the prologue's locals read through, when that differs
	   (what the filter was made from), else NULL */
	const struct ast_expr *via;
	/* the "if (C) next" or the handler's single "if (C) S", or NULL (cond) */
	const struct ast_stmt *origin;
};

/* Locals a probe's prologue bound, each to a pure expression of the
   event (NULL: assigned, value not known at compile time). */
struct lw_binds {
	const struct sem_sym **sym;
	const struct ast_expr **e;
	unsigned n;
	size_t scap, ecap;
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
	struct lw_binds binds;		/* while the guards are built */
	/* the statement that ended the guards, when guards follow it */
	const struct ast_stmt *stopped;
};

struct lw_loop {
	unsigned *breaks, nbreaks;
	size_t bcap;
	unsigned cont;			/* continue target (patched later if ~0u) */
	unsigned *conts, nconts;
	size_t ccap;
	unsigned tries;			/* try blocks open outside the loop */
};

struct lh;
struct ll_pair;

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
	unsigned tries;			/* try blocks open here (their frames) */
	struct lw_probe_guards *guards;	/* per probe */
	bool reads_matched;		/* lw_reads_matched(): no =~ in filters */
	struct src_span at;		/* location of what is being emitted */
	const char *near;
	unsigned kretactive;		/* lower_options.kretactive */
	bool empty_sum_error;		/* lower_options.empty_sum_error */
	bool old_pointers;		/* lower_options.old_pointers */
	bool *lowered;			/* per probe: runs in the kernel only */
	struct lh *hist;		/* lower_hist.c's analysis */
	struct ll_pair *lat;		/* lower_latency.c's pairs, lowered */
	unsigned nlat;
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

/* ---- lower_kobj.c: kernel objects (also lower.h's lower_kplan_add()) ---- */

/* The field of tracepoint @system:@name that names a second task, which
   may be ktap (sched_switch's next_pid), or NULL. */
const char *lw_own_field(const char *system, const char *name);
/* The filter clause that leaves out ktap itself on @system:@name. */
const char *lw_own_pid(const char *system, const char *name);
/* The same on event @ev, which may be ktap's eprobe or tprobe on a
   tracepoint (whose record has lw_own_field() when it copies it). */
const char *lw_own_pid_ev(const struct tpf_event *ev);
/* lower_event_writes() with the own-pid clause @own. */
void lw_event_writes_own(struct arena *a, struct ir_prog *ir, const char *system,
			 const char *name, const char *filter, const char *own);

/* ---- lower_synth.c: what a synthetic event carries ---- */

/* A key's synthetic field and the onmatch().trace() parameter filling it. */
struct lw_skey {
	const char *param;	/* the event's field or common_pid */
	const char *type;	/* the synthetic field's type */
	unsigned len;		/* char[len] for a string field, else 0 */
	struct ir_hkey k;	/* how the runtime reads it back */
};

/*
 * Key @e, an expression of probe @p's event passed to a synthetic event,
 * into @sk.  False when it is not an integer field of a synthetic
 * field's type, a char[N] field, tid(), pid() or execname().
 */
bool lw_synth_key(const struct sem_probe *p, const struct ast_expr *e, struct lw_skey *sk);

/* At most this many operators in a value the kernel computes (6.1: three
   subexpressions, one of them lw_synth_expr()'s "0+"). */
#define LW_SYNTH_OPS 2

/*
 * Value @e of probe @p's event as a hist variable's expression
 * ("0+bytes_alloc-bytes_req", "0+count*512"), u64 and wrapping as stap's
 * int64 arithmetic: + - * of integer fields and constants >= 0, at most
 * LW_SYNTH_OPS operators, in a shape the kernel parses as written.  NULL
 * otherwise (arena string).
 */
const char *lw_synth_expr(struct lw_ctx *c, const struct sem_probe *p, const struct ast_expr *e);

/* ---- lower_bind.c: the prologue's locals ---- */

/* Can evaluating @e change anything, or fail (which runs error probes)?
   Conservative: constants, variables, fields, operators without a
   failure mode and a few builtins are known not to. */
bool lw_pure(const struct ast_expr *e);
/* @s as "local = PURE": the local's symbol, else NULL. */
const struct sem_sym *lw_local_set(const struct ast_stmt *s);
/* Statement @s of a prologue: when it only assigns pure values to
   locals, record what they are bound to in @b and return true. */
bool lw_bind_stmt(struct lw_ctx *c, struct lw_binds *b, const struct ast_stmt *s);
/* @e with the locals bound in @b replaced (@e itself when none is). */
const struct ast_expr *lw_bind_subst(struct lw_ctx *c, const struct lw_binds *b,
				     const struct ast_expr *e);

/* ---- lower_target.c: the -c/-x target's pre-filter ---- */

/* When every event probe checks pid() == target(): set_event_pid and
   options/event-fork first in the plan (-v says why not). */
void lw_target_prefilter(struct lw_ctx *c, const struct lower_options *opt);

/* ---- lower_fold.c: conditions known at compile time ---- */

/* The value of guard condition @e (pure) if it is the same for every
   event: 1 or 0, else -1. */
int lw_fold_cond(const struct ast_expr *e);
/* @e as "syscall_name(X) OP "K"" (OP ==, !=, =~, !~): 0, X in *@arg,
   *@rest the test's value for the numbers not in the list, and the
   numbers of the table's calls where it differs in @nrs (the first
   @max of them; their count in *@n).  -1 for any other expression. */
int lw_sc_set(const struct ast_expr *e, const struct ast_expr **arg, int64_t *nrs,
	      unsigned max, unsigned *n, bool *rest);

/* ---- lower_guard.c: a probe's guard ---- */

/* Probe @p's guard into @g: its point condition and leading guards,
   each conjunct with its kernel filter text or why it has none. */
void lw_guard_build(struct lw_ctx *c, struct lw_probe_guards *g, const struct sem_probe *p);
/* Does any probe or function of @sp call matched()?  (The last match
   of =~ is state a kernel filter would not set.) */
bool lw_reads_matched(const struct sem_prog *sp);
/* The kernel conjuncts of @g as one filter (NULL: none). */
const char *lw_guard_filter(struct lw_ctx *c, const struct lw_probe_guards *g);
/* Does every conjunct of @g go to the kernel? */
bool lw_guard_all_kernel(const struct lw_probe_guards *g);
/* ktap's process tracking reads every record of its events: no filter. */
void lw_guard_untracked(struct lw_probe_guards *g);
/* -v: what of probe @p's guard @g went into the kernel, and why not the rest. */
void lw_guard_explain(struct lw_ctx *c, FILE *out, const struct sem_probe *p,
		      const struct lw_probe_guards *g, bool filtered, bool traceoff);

/* ---- lower_hist.c: aggregations to hist triggers ---- */

/* Which probes run in the kernel only (lw_ctx.lowered); needs the
   guards.  -v: what was lowered and why not. */
void lw_hist_decide(struct lw_ctx *c, const struct lower_options *opt);
/* Their hist triggers (after the events' own objects) and ir->hreads. */
void lw_hist_emit(struct lw_ctx *c);
/* -v: which globals and probes run in the kernel, and why not (after
   lw_lat_decide(), whose pairs' globals it leaves to that). */
void lw_hist_verbose(struct lw_ctx *c);

/* ---- lower_latency.c: latency pairs to synthetic events ---- */

/* Which latency pairs run in the kernel (after lw_hist_decide: more
   lw_ctx.lowered); -v says why not. */
void lw_lat_decide(struct lw_ctx *c, const struct lower_options *opt);
/* Their synthetic events, hist triggers and ir->hreads. */
void lw_lat_emit(struct lw_ctx *c);
/* Is global @g the timestamp store or statistic of a lowered pair? */
bool lw_lat_global(const struct lw_ctx *c, unsigned g);

/*
 * lw_probe_kernel_filter - the filter text for a trigger that must fire
 * exactly when event probe @probe's handler runs (a hist or stacktrace
 * trigger's "if"; triggers do not see the event's own filter): the
 * probe's kernel conjuncts and the clause that leaves ktap out
 * (lower_kobj.c's lw_own_pid()).  *@complete (may be NULL) is true when
 * nothing of the probe's guard stays in user space, i.e. the trigger
 * fires for exactly the records the handler runs for.  Valid after
 * lw_plan_events().
 */
const char *lw_probe_kernel_filter(const struct lw_ctx *c, unsigned probe, bool *complete);

/* lower_code.c: code for the handler's single "if (C) S"
   (lw_probe_guards.wrap): the user-space conjuncts of C, each leaving the
   handler when false, then S. */
void lw_wrap_if(struct lw_ctx *c, const struct ast_stmt *s);

#endif
