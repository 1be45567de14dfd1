/*
 * run_proc.h - pass 5: the process table behind execname(), pid(),
 * ppid(), uid() and friends.
 *
 * Records carry only the thread id.  A thread's entry is read from
 * /proc/TID/status the first time it is looked up, or seeded by ktap
 * itself (the -c child it forked), and kept current by the fork, exec
 * and rename records the plan enables when the script needs them
 * (compiler/lower/lower_track.c), so a thread that is gone by the time
 * its records are read still has its name and parent.
 */
#ifndef KTAP_RT_RUN_PROC_H
#define KTAP_RT_RUN_PROC_H

#include <stdbool.h>
#include <stddef.h>

#include "interp.h"
#include "reader.h"

/* Threads by tid: an open-addressing table that only grows.  Zero-
   initialised is empty; free with run_proc_free(). */
struct run_procs {
	struct rt_proc *v;
	size_t cap, n;			/* cap: power of two */
	/* A recording's names (run_source.comm): new entries come from
	   comm(comm_ctx, tid) instead of /proc, and seeding reads nothing. */
	const char *(*comm)(void *ctx, int tid);
	void *comm_ctx;
};

/* The fields each kind of tracked record is read through, per event. */
#define RUN_PROC_FIELDS 3

/*
 * run_proc_get - thread @tid's entry, read from /proc when new (@fresh:
 * not read, only tid and tgid set).  Never NULL: out of memory gives a
 * shared "<...>" entry.  Valid until the next call that adds an entry.
 */
struct rt_proc *run_proc_get(struct run_procs *t, int tid, bool fresh);

/*
 * run_proc_seed_child - the -c child @child that ktap (@parent, its pid)
 * forked itself: ppid is ktap, the name ktap's until it execs.  Seeded
 * before the child runs, so that its records read after it exited still
 * carry the right parent.
 */
void run_proc_seed_child(struct run_procs *t, int parent, int child);

/*
 * run_proc_seed_all - an entry for every thread in /proc now, for a run
 * whose plan tracks processes, seeded once the events are armed: a
 * process that was running before and ends before its records are read
 * still has its name and parent (later changes come from the tracked
 * fork/exec/rename records).
 */
void run_proc_seed_all(struct run_procs *t);

/*
 * run_proc_resolve - the fields of every tracked event of @p (in @rdr)
 * into @f (RUN_PROC_FIELDS per event, @f zeroed by the caller).
 * Returns 0, or -1 after printing "ERROR: event S:E has no field 'F'".
 */
int run_proc_resolve(const struct ir_prog *p, struct rdr *rdr,
		     const struct rdr_field **f);

/*
 * run_proc_track - apply a task_newtask, exec or rename record @rec
 * (tracking kinds @track, fields @f of its event) to @t.
 */
void run_proc_track(struct run_procs *t, const struct rdr_field **f,
		    const struct rdr_record *rec, unsigned track);

/* Call @fn(@ctx, tid, comm) for each thread of the table. */
void run_proc_each(const struct run_procs *t,
		   void (*fn)(void *ctx, int tid, const char *comm), void *ctx);

/* Free the table (the struct itself is the caller's). */
void run_proc_free(struct run_procs *t);

#endif
