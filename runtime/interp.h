/*
 * interp.h - pass 5: the bytecode interpreter.
 *
 * The runner (run.c) owns the session: it sets up a struct rt_ctx
 * (rt_ctx.h), feeds it events and timer ticks, and calls rt_run_probe()
 * for each handler to run.  The interpreter knows nothing of tracefs: it
 * reads event fields through the field() callback the runner installs.
 */
#ifndef KTAP_RT_INTERP_H
#define KTAP_RT_INTERP_H

#include "rt_ctx.h"

/* Set up @c for @prog (limits default to stap's). 0 or -1 with a message. */
int rt_init(struct rt_ctx *c, const struct ir_prog *prog, FILE *outf,
	    const struct rt_limits *lim);
void rt_fini(struct rt_ctx *c);

/*
 * Run probe @idx for event @ev (NULL for begin/end/error/timer).  Errors
 * are reported stap-style on stderr; returns the number of errors so far.
 */
unsigned rt_run_probe(struct rt_ctx *c, unsigned idx, const struct rt_event *ev);

/* Print the globals that were written but never read (stap does, at exit). */
void rt_autoprint(struct rt_ctx *c);

/*
 * -t: append stap's "----- probe hit report:" to the output, one line per
 * probe that ran: hits and min/avg/max/variance of its handler's time in
 * ns.  Nothing without lim.timing.
 */
void rt_timing_report(struct rt_ctx *c);


#endif
