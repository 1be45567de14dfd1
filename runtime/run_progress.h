/*
 * run_progress.h - -v's progress line, once a second on stderr while a
 * session runs: events handled per second, events lost so far, and the
 * number of entries of each of the script's arrays in user space.
 */
#ifndef KTAP_RUN_PROGRESS_H
#define KTAP_RUN_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ir_prog;
struct rt_store;
struct rdr;

#define RUN_PROGRESS_NS UINT64_C(1000000000)	/* one line a second */

struct run_progress {
	bool on;
	uint64_t start, next;		/* CLOCK_MONOTONIC ns */
	uint64_t last_at, last_events;	/* the previous line's */
};

/* Start counting at @now; lines only when @on (-v). */
void run_progress_init(struct run_progress *p, bool on, uint64_t now);

/* @timeout_ms (-1: none) shortened to the next line's time. */
int run_progress_timeout(const struct run_progress *p, uint64_t now, int timeout_ms);

/*
 * When a line is due at @now: write it to @out from @nevents (records
 * handled so far), the reader's statistics (@rdr may be NULL) and
 * @store's arrays.  Cheap when no line is due.
 */
void run_progress_tick(struct run_progress *p, uint64_t now, uint64_t nevents,
		       struct rdr *rdr, const struct ir_prog *prog,
		       struct rt_store *store, FILE *out);

#endif
