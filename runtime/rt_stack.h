/*
 * rt_stack.h - pass 5: the stack and symbol builtins of builtins.def
 * (backtrace(), print_ubacktrace(), symdata() ...), on the shared
 * context of rt_ctx.h.  rt_builtins.c dispatches to it.
 */
#ifndef KTAP_RT_STACK_H
#define KTAP_RT_STACK_H

#include "rt_ctx.h"

/* Is builtin @id one of this file's? */
bool rt_stack_is_builtin(unsigned id);

/* Run stack builtin @id on its @n @args into *ret. */
enum rt_status rt_stack_builtin(struct rt_ctx *c, unsigned id, struct rt_value *args,
				unsigned n, struct rt_value *ret);

/*
 * A tracepoint's kernel stack as the stacktrace trigger records it starts
 * in the event's own trace function (trace_event_raw_event_X,
 * ftrace_syscall_enter) and, when the tracepoint has more than one
 * callback, its iterator (__traceiter_X): drop those frames of @ev, so
 * the stack starts at the probe point, the function that hit the
 * tracepoint, as the hist stacktrace key does (run_hist.c).
 */
void rt_stack_from_probe_point(const struct rt_ctx *c, struct rt_event *ev);

#endif
