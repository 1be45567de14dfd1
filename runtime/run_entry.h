/*
 * run_entry.h - pass 5: the @entry values of calls in flight.
 *
 * An entry probe hands its @entry values over (EPUSH); they wait, per
 * thread and return probe, until the return probe of the same call
 * runs, matched last-in first-out (recursion).  A return whose entry was
 * never seen finds nothing, and its @entry probe does not run (run.c).
 */
#ifndef KTAP_RT_RUN_ENTRY_H
#define KTAP_RT_RUN_ENTRY_H

#include <stdbool.h>

#include "interp.h"

/* One call's values; @v and the strings it points to are one allocation. */
struct run_frame {
	int tid;
	unsigned probe;			/* the return probe */
	unsigned n;
	struct rt_value *v;
};

/* Zero-initialised is empty; free with run_entries_free(). */
struct run_entries {
	struct run_frame *frames;	/* pending, oldest first */
	unsigned nframes;
	struct run_frame cur;		/* the running return's (v: NULL if none) */
};

/* Keep a copy of @n values @v of thread @tid's call for return probe @probe. */
void run_entries_push(struct run_entries *t, int tid, unsigned probe,
		      const struct rt_value *v, unsigned n);
/* Make the latest frame of @tid for @probe the current one: false if none. */
bool run_entries_pop(struct run_entries *t, int tid, unsigned probe);
/* The current frame's value @idx, or NULL. */
const struct rt_value *run_entries_get(const struct run_entries *t, unsigned idx);
/* The return probe is done with the current frame. */
void run_entries_done(struct run_entries *t);
void run_entries_free(struct run_entries *t);

#endif
