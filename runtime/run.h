/*
 * run.h - pass 5: one run of a plan, live or replayed.
 */
#ifndef KTAP_RT_RUN_H
#define KTAP_RT_RUN_H

#include <stdio.h>

#include "interp.h"
#include "ir.h"

struct rdr;

/*
 * Where records come from.  open() arms the kernel side for target pid
 * @target (0: none) and returns a reader over the plan's events in
 * ir_prog.events order, or NULL after printing "ERROR: ..." (with
 * nothing left behind in the kernel).  stop() ends recording before the
 * final drain (NULL when there is nothing to stop, as in a replay).
 * close() closes the reader and undoes the kernel side; it runs on every
 * path once open() was called, even if open() failed.
 */
struct run_source {
	struct rdr *(*open)(void *ctx, const struct ir_prog *p, int target);
	void (*stop)(void *ctx);
	void (*close)(void *ctx);
	/*
	 * The kernel's count of missed hits of each kprobe event ktap made
	 * (ir_event.kprobe_pp): @missed[i] for event i, -1 when unknown.
	 * NULL when there are no kprobes (a replay).
	 */
	void (*missed)(void *ctx, const struct ir_prog *p, int64_t *missed);
	void *ctx;
};

struct run_options {
	unsigned timeout_s;		/* -T, 0 for none */
	const char *command;		/* -c CMD */
	int target_pid;			/* -x PID, or 0 */
	FILE *out;			/* -o FILE or stdout */
	const char *out_name;		/* its name in messages; NULL: "stdout" */
	struct rt_limits limits;	/* -D */
	unsigned verbose;
	struct run_source source;
};

/*
 * Run @p: begin probes, events and timers until exit(), a signal, -T or
 * the -c command's end, then end (or error) probes and the globals'
 * printout.  Returns the exit status (0 ok, 1 errors, including a write
 * error on @opt->out, reported once, which ends the run, and a -c command
 * that could not be run).
 */
int run_plan(const struct ir_prog *p, const struct run_options *opt);

/* stap's defaults for -D limits. */
void run_default_limits(struct rt_limits *lim);

#endif
