/*
 * run_trigger.h - pass 5: the records of begin and end probes that read
 * the running task (ir_probe.trigger, compiler/resolve/sema_trigger.c).
 *
 * Each such probe has a kprobe of its own on getppid(2), filtered to
 * ktap's pid.  Just before the begin (or the end) probes run, ktap calls
 * getppid(2) and reads records until each of those probes' events has
 * brought its record; the probe then runs on it, as an event's probe
 * on its record.  No probe runs on these events otherwise.
 */
#ifndef KTAP_RT_RUN_TRIGGER_H
#define KTAP_RT_RUN_TRIGGER_H

#include <stdbool.h>

#include "ir.h"
#include "reader.h"

/* Zero-initialised is empty; free with run_trigger_free(). */
struct run_trigger {
	struct rdr_record *rec;	/* per event: the last one kept; data NULL: none */
	unsigned nevents;
	bool wait;		/* run_trigger_fire() is waiting */
};

/* For a plan with trigger events: 0, or -1 (out of memory). */
int run_trigger_init(struct run_trigger *t, const struct ir_prog *p);
/* Is @rec a trigger event's?  Then it is kept when it is ktap's own
   and run_trigger_fire() waits for it; no probe runs on it. */
bool run_trigger_keep(struct run_trigger *t, const struct ir_prog *p,
		      const struct rdr_record *rec);
/* The records of @kind's trigger probes, if it has any: getppid(2), then
   @rdr's records to @handle until all came (at most a second). */
void run_trigger_fire(struct run_trigger *t, const struct ir_prog *p, struct rdr *rdr,
		      enum ir_probe_kind kind,
		      void (*handle)(void *arg, const struct rdr_record *rec), void *arg);
/* The record trigger probe @probe runs on, or NULL when none came. */
const struct rdr_record *run_trigger_record(const struct run_trigger *t,
					    const struct ir_prog *p, unsigned probe);
void run_trigger_free(struct run_trigger *t);

#endif
