/*
 * rt_builtins.h - pass 5: the functions of builtins.def and printf's
 * formatting, as the interpreter calls them (implemented in
 * rt_builtins.c on the shared context of rt_ctx.h).
 */
#ifndef KTAP_RT_BUILTINS_H
#define KTAP_RT_BUILTINS_H

#include "rt_ctx.h"

/* Run builtin @id (builtins.def's order) on its @n @args into *ret. */
enum rt_status rt_builtin(struct rt_ctx *c, unsigned id, struct rt_value *args,
			  unsigned n, struct rt_value *ret);

/*
 * printf/sprintf: render compiled format @fmt of the program with its
 * @n arguments onto @out.  The compiler checked the argument count and
 * types; a mismatch here is an internal error located at @loc.
 */
enum rt_status rt_format(struct rt_ctx *c, int fmt, struct rt_value *args,
			 unsigned n, struct rt_buf *out, uint32_t loc);

/*
 * CLOCK_REALTIME - CLOCK_MONOTONIC now, in ns (the instance's trace
 * clock is "mono"): what gettimeofday_*() add to an event's timestamp
 * (rt_ctx.boot_offset_ns, taken once per run).
 */
int64_t rt_wall_offset_ns(void);

#endif
