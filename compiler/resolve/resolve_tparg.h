/*
 * resolve_tparg.h - the arguments of the kernel's tracepoints and the
 * record fields that hold them (resolve_tparg.c, from resolve_tparg.def, which
 * scripts/gen-tparg.py generates from the kernel's TRACE_EVENT
 * definitions).
 *
 * SystemTap's kernel.trace() probes see a tracepoint's arguments
 * (TP_PROTO: $prev, $next ...); tracefs delivers the record the event's
 * TP_fast_assign filled.  Where a record field is an exact copy of an
 * argument expression (sched_switch's prev_pid is prev->pid), ktap reads
 * that expression from the field.
 */
#ifndef KTAP_RESOLVE_TPARG_H
#define KTAP_RESOLVE_TPARG_H

#include <stdbool.h>

struct arena;

/* One tracepoint event as the kernel source defines it. */
struct rtparg_event {
	const char *system, *name;
	const char *cls;	/* its event class (__bpf_trace_<cls> in BTF) */
	const char *proto;	/* TP_PROTO as written, without "TP_PROTO(" */
};

/* The tracepoint @system:@name, or NULL when the table does not know it. */
const struct rtparg_event *rtparg_event(const char *system, const char *name);

/*
 * The record field of @ev holding exactly @expr ("prev->pid", "comm"),
 * members written with "->"; NULL when none does.  *is_string: the field
 * is a copy of the string at @expr (a char array or __string).
 */
const char *rtparg_field(const struct rtparg_event *ev, const char *expr, bool *is_string);

/*
 * Every argument expression of @ev a record field holds, in the table's
 * order: *@exprs ("prev->pid") and *@fields ("prev_pid"), arrays in @a;
 * the count.
 */
unsigned rtparg_maps(struct arena *a, const struct rtparg_event *ev, const char ***exprs,
		     const char ***fields);

/*
 * The C type of argument @name as the prototype writes it ("struct
 * task_struct *"), in @a; NULL when @name is not an argument of @ev.
 */
const char *rtparg_arg_type(struct arena *a, const struct rtparg_event *ev, const char *name);

/* "$preempt, $prev, $next, $prev_state": @ev's arguments as the prototype names them, in @a. */
const char *rtparg_arg_list(struct arena *a, const struct rtparg_event *ev);

#endif
