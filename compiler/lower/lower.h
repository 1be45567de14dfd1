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

struct arena;
struct diag_sink;
struct src_map;

struct lower_options {
	unsigned buffer_kb;	/* -s, 0 for the kernel's default */
	unsigned kretactive;	/* maxactive of kretprobes without .maxactive(N); 0: kernel's */
	const char *tracefs;	/* the target's event formats (target.h) */
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
 * Append the writes that arm event @system:@name with kernel filter
 * @filter (NULL: none); ktap's own threads are always filtered out.
 */
void lower_event_writes(struct arena *a, struct ir_prog *ir, const char *system,
			const char *name, const char *filter);

/*
 * The kernel filter for one guard expression, or NULL when the kernel
 * cannot evaluate it exactly (exposed for unit tests).
 */
const char *lower_filter_text(struct arena *a, const struct ast_expr *e,
			      const struct sem_probe *probe);

#endif
