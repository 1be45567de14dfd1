/*
 * lower_track.c - pass 3: the events that keep the runtime's view of
 * processes exact.
 *
 * Records carry only the thread id (common_pid).  execname(), pid(),
 * ppid() and friends look the thread up in /proc, which fails for a
 * process that exited before ktap read its records (a short command
 * traced with -c is usually gone 10 ms later) and gives the wrong name
 * for records from before an exec.  So when an event handler uses one of
 * these builtins, the plan also enables task creation, exec and rename
 * tracepoints (rare events, cheap to record), and the runtime applies
 * them in timestamp order: the name it gives is the one the thread had
 * when the record was written.
 */
#include "lower.h"
#include "arena.h"
#include "resolve_tpfmt.h"

#include <string.h>

static const struct {
	const char *system, *name;
	unsigned track;
} lt_events[] = {
	{ "task", "task_newtask", IR_TRACK_FORK },
	{ "sched", "sched_process_exec", IR_TRACK_EXEC },
	{ "task", "task_rename", IR_TRACK_RENAME },
};

bool lower_track_event(const char *system, const char *name)
{
	unsigned i;

	for (i = 0; i < sizeof(lt_events) / sizeof(lt_events[0]); i++)
		if (!strcmp(lt_events[i].system, system) && !strcmp(lt_events[i].name, name))
			return true;
	return false;
}

static bool lt_is_process_builtin(unsigned id)
{
	switch (id) {
	case IR_BI_PID: case IR_BI_PPID: case IR_BI_EXECNAME: case IR_BI_PEXECNAME:
	case IR_BI_UID: case IR_BI_EUID: case IR_BI_GID: case IR_BI_EGID:
	case IR_BI_TARGET_SET_PID:
	/* user symbols: the maps are re-read at exec */
	case IR_BI_UBACKTRACE: case IR_BI_PRINT_UBACKTRACE: case IR_BI_SPRINT_UBACKTRACE:
	case IR_BI_USYMNAME: case IR_BI_USYMDATA:
	case IR_BI_USYMFILELINE: case IR_BI_USYMFILE: case IR_BI_USYMLINE:
		return true;
	default:
		return false;
	}
}

static bool lt_code_uses(const struct ir_code *code)
{
	unsigned i;

	for (i = 0; i < code->n; i++)
		if (code->insns[i].op == IR_BI && lt_is_process_builtin(code->insns[i].a))
			return true;
	return false;
}

/* Does any event handler (or a function, which one may call) need it? */
static bool lt_needed(const struct ir_prog *ir)
{
	unsigned i;

	if (ir->hist_track)	/* pid() / execname() keys read when the hist is */
		return true;
	for (i = 0; i < ir->nprobes; i++)
		if (ir->probes[i].kind == IR_P_EVENT && lt_code_uses(&ir->probes[i].code))
			return true;
	for (i = 0; i < ir->nfuncs; i++)
		if (lt_code_uses(&ir->funcs[i].code))
			return true;
	return false;
}

/* Mark event @system:@name as tracked, adding it when the plan lacks it. */
static void lt_add(struct arena *a, struct ir_prog *ir, const char *system,
		   const char *name, unsigned track)
{
	unsigned i;

	for (i = 0; i < ir->nevents; i++) {
		if (!strcmp(ir->events[i].system, system) && !strcmp(ir->events[i].name, name)) {
			ir->events[i].track |= track;
			if (ir->events[i].hist_only) {	/* its records are needed now */
				ir->events[i].hist_only = false;
				lower_event_writes(a, ir, system, name, NULL);
			}
			return;
		}
	}
	ir->events = arena_grow(a, ir->events, ir->nevents, &ir->ecap, sizeof(*ir->events));
	memset(&ir->events[ir->nevents], 0, sizeof(ir->events[0]));
	ir->events[ir->nevents].system = system;
	ir->events[ir->nevents].name = name;
	ir->events[ir->nevents].track = track;
	ir->nevents++;
	lower_event_writes(a, ir, system, name, NULL);
}

void lower_track(struct arena *a, struct ir_prog *ir, const char *tracefs)
{
	unsigned i;

	if (!lt_needed(ir))
		return;
	for (i = 0; i < sizeof(lt_events) / sizeof(lt_events[0]); i++) {
		/* A kernel without the tracepoint: /proc lookups only. */
		if (tpf_load(a, tracefs, lt_events[i].system, lt_events[i].name))
			lt_add(a, ir, lt_events[i].system, lt_events[i].name,
			       lt_events[i].track);
	}
}
