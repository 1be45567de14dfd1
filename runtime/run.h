/*
 * run.h - pass 5: one run of a plan, live or replayed.
 */
#ifndef KTAP_RT_RUN_H
#define KTAP_RT_RUN_H

#include <stdio.h>

#include "interp.h"
#include "ir.h"

struct rdr;
struct ksym_table;
struct run_prom;

/*
 * Where records come from.  open() arms the kernel side with @env's
 * values for the plan's placeholders (the -c/-x target's pid, 0: none;
 * ktap's wall-clock offset) and returns a reader over the plan's events in
 * ir_prog.events order, or NULL after printing "ERROR: ..." (with
 * nothing left behind in the kernel).  stop() ends recording before the
 * final drain (NULL when there is nothing to stop, as in a replay).
 * close() closes the reader and undoes the kernel side; it runs on every
 * path once open() was called, even if open() failed.
 */
struct run_source {
	struct rdr *(*open)(void *ctx, const struct ir_prog *p, const struct kp_env *env);
	void (*stop)(void *ctx);
	void (*close)(void *ctx);
	/*
	 * The kernel's count of missed hits of each kprobe event ktap made
	 * (ir_event.kprobe_pp): @missed[i] for event i, -1 when unknown.
	 * NULL when there are no kprobes (a replay).
	 */
	void (*missed)(void *ctx, const struct ir_prog *p, int64_t *missed);
	/*
	 * The text of @system:@event's hist file in ktap's instance
	 * (malloc'd, *@len bytes), NULL when it cannot be read or the
	 * source has none (a replay).
	 */
	char *(*read_hist)(void *ctx, const char *system, const char *event, size_t *len);
	/* Write @line (placeholders expanded) to @o's trigger file. */
	int (*hist_cmd)(void *ctx, const struct kp_obj *o, const char *line);
	/*
	 * A recording (-i) rather than a kernel: the time it has been read up
	 * to (rdr_now()), which timers, -T and exit() then run on instead of
	 * CLOCK_MONOTONIC, and the run ends with the recording.  NULL: live.
	 */
	uint64_t (*now)(void *ctx);
	/*
	 * The name of thread @tid as the recording saved it, which the
	 * process table then uses instead of /proc (NULL: /proc).
	 */
	const char *(*comm)(void *ctx, int tid);
	/*
	 * At the end of the run, before close(): each thread of the process
	 * table with the name it had last (--record saves them); NULL: not
	 * wanted.
	 */
	void (*thread_name)(void *ctx, int tid, const char *comm);
	void *ctx;
};

struct run_options {
	unsigned timeout_s;		/* -T, 0 for none */
	const char *command;		/* -c CMD */
	int target_pid;			/* -x PID, or 0 */
	FILE *out;			/* -o FILE or stdout */
	const char *out_name;		/* its name in messages; NULL: "stdout" */
	bool json;			/* --format json (doc/json.md) */
	struct rt_limits limits;	/* -D */
	unsigned verbose;
	struct run_source source;
	/* Symbols (rt_stack.c): the session's kallsyms table (NULL: addresses
	   print as hex) and libdwfl's debuginfo path for user symbols. */
	const struct ksym_table *ksym;
	const char *debuginfo_path;
	/* --prometheus: the HTTP server whose scrapes run the prometheus
	   probes (run_prom.h), or NULL. */
	struct run_prom *prom;
	/* procfs("NAME").read probes: the directory of their FIFOs (made
	   when missing, removed at the end if made) */
	const char *procfs_dir;
};

/*
 * Run @p: begin probes, events and timers until exit(), a signal, -T or
 * the -c command's end, then end (or error) probes and the globals'
 * printout.  Returns the exit status (0 ok, 1 errors, including a write
 * error on @opt->out, reported once, which ends the run, and a -c command
 * that could not be run).
 */
int run_plan(const struct ir_prog *p, const struct run_options *opt);

/*
 * run_hist.c: read every global kept in kernel hists (ir_prog.hreads)
 * into the store, replacing what it held; @final warns about dropped
 * entries and renamed processes.
 */
struct rt_ctx;
void run_hist_load(const struct ir_prog *p, struct rt_ctx *ctx,
		   const struct run_source *src, bool final);
/* 'delete g': ':clear' every hist trigger that holds global @g. */
void run_hist_clear(const struct ir_prog *p, const struct run_source *src, unsigned g);
/* 0, or -1 (said on stderr) when a hist keyed by kernel stacks cannot be
   read back: no kallsyms, or its addresses hidden (kptr_restrict). */
struct ksym_table;
int run_hist_stacks(const struct ir_prog *p, const struct ksym_table *ksym);

/* stap's defaults for -D limits. */
void run_default_limits(struct rt_limits *lim);

#endif
