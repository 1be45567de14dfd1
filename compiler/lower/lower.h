/*
 * lower.h - pass 3: the elaborated program to a run plan (runtime/ir.h).
 *
 * Kernel side: which events to enable in ktap's instance and the event
 * filters that evaluate a probe's guard in the kernel when the kernel
 * can do so exactly (comparisons of event fields, tid(), cpu(),
 * execname() and target() with constants).  User side: bytecode for
 * every probe and used function.
 */
#ifndef KTAP_LOWER_H
#define KTAP_LOWER_H

#include "../runtime/ir.h"
#include "sem.h"
#include <stdio.h>

struct arena;
struct diag_sink;
struct src_map;

struct lower_options {
	unsigned buffer_kb;	/* -s, 0 for the kernel's default */
	unsigned kretactive;	/* maxactive of kretprobes without .maxactive(N); 0: kernel's */
	const char *tracefs;	/* the target's event formats (target.h) */
	FILE *explain;		/* -v: per probe, what went into the kernel filter; or NULL */
	bool hist;		/* lower aggregations to hist triggers */
	bool hist_why;		/* the target has hist triggers (for -v's reasons) */
	bool synth;		/* the target has synthetic events (latency pairs) */
	bool target_zero;	/* no -c, no -x: target() is 0 all run */
	unsigned maxmapentries;	/* -D MAXMAPENTRIES (0: stap's 2048) */
	bool empty_sum_error;	/* --compatible before 1.5: @sum of an empty
				   aggregate is an error, as @min's is */
	bool old_pointers;	/* --compatible before 1.3: stap 1.2's %p */
	const char *hist_stack;	/* the hist's stack key: "stacktrace" (6.1) or
				   "common_stacktrace" */
	int verbose;		/* -v: say what was lowered and why not */
	bool recording;		/* -i: the events come from a recording, not
				   the kernel: no event filters (every guard
				   is checked in user space) */
	/* Can hists key on common_comm (execname())?  Asked only when a
	   hist would key on execname(); NULL: no. */
	bool (*comm_key)(void *ctx);
	void *comm_ctx;
};

/* Lower @p.  Returns NULL after reporting errors. */
struct ir_prog *lower_run(struct arena *a, struct diag_sink *d,
			  const struct src_map *src, const struct sem_prog *p,
			  const struct lower_options *opt);

/*
 * Add the fork/exec/rename events the runtime needs to name processes
 * exactly, when an event handler uses execname(), pid() and the like
 * (lower_track.c).  Called by lower_run().
 */
void lower_track(struct arena *a, struct ir_prog *ir, const char *tracefs);

/*
 * The stacktrace triggers, the userstacktrace option and the stack
 * records for the handlers that read stacks (lower_stack.c).  Called by
 * lower_run() after lower_track().  With @explain (-v), one line per
 * event that records a stack, saying how.
 */
void lower_stack(struct arena *a, struct ir_prog *ir, FILE *explain);

struct tpf_event;
/* What lower_stack() needs to know of event @ev (@e is its ir_event):
   a uprobe at a function's entry (lower_stack.c).  Called by lw_event(). */
void lower_stack_event(struct arena *a, struct ir_event *e, const struct tpf_event *ev);

/*
 * Append the kernel objects that arm event @system:@name (its filter,
 * then enable) with kernel filter @filter (NULL: none); ktap's own
 * threads are always filtered out (lower_kobj.c).
 */
void lower_event_writes(struct arena *a, struct ir_prog *ir, const char *system,
			const char *name, const char *filter);

/* Append kernel object @o (copied) to @ir's plan. */
void lower_kplan_add(struct arena *a, struct ir_prog *ir, const struct kp_obj *o);
/* The same, at index @at of the plan (what was there and after moves up). */
void lower_kplan_insert(struct arena *a, struct ir_prog *ir, unsigned at,
			const struct kp_obj *o);

/*
 * A fetch argument from pass 2's "FETCH:TYPE" text (the DWARF and BTF
 * back ends produce it as text): @name=FETCH, typed.
 */
struct kp_arg lower_fetch_arg(struct arena *a, const char *name, const char *fetch);

/*
 * The kernel filter for one guard expression, or NULL when the kernel
 * cannot evaluate it exactly (exposed for unit tests).
 */
const char *lower_filter_text(struct arena *a, const struct ast_expr *e,
			      const struct sem_probe *probe);

/* The script reads matched(): a regular expression must run in user
   space, where it records the match. */
#define LOWER_FILTER_NO_REGEX 1u

/* The same, and when NULL, why in *@why (a static string); @flags are
   LOWER_FILTER_*.  "" is a condition true for every event. */
const char *lower_filter_explain(struct arena *a, const struct ast_expr *e,
				 const struct sem_probe *probe, unsigned flags,
				 const char **why);

/* Is @system:@name an event ktap's process tracking may read (it reads
   all of its records, so no probe's filter may go on it)? */
bool lower_track_event(const char *system, const char *name);

#endif
