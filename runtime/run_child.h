/*
 * run_child.h - pass 5: the -c command.
 *
 * The child is forked before the plan is armed (target() must be known
 * for it) and stops itself (SIGSTOP) until the begin probes have run;
 * only then does it exec.  Stopped, it is in no system call: were it
 * blocked in one (a read of a pipe), the return of that call would be
 * the first thing a trace of the target showed, a return whose entry
 * came before the probes (stap's -c shows none of its own machinery).  Its end stops the run; at the end of the run it is
 * asked to go (SIGTERM) and, if it ignores that for the grace period,
 * killed (SIGKILL), so that -T bounds every run.
 */
#ifndef KTAP_RT_RUN_CHILD_H
#define KTAP_RT_RUN_CHILD_H

#include <stdbool.h>
#include <sys/types.h>

/* How long a -c command may ignore SIGTERM at the end of the run. */
#define RUN_CHILD_GRACE_MS 1000

struct run_child {
	pid_t pid;		/* 0: none or reaped */
	bool held;		/* stopped, waiting for run_child_release() */
	int status;		/* exec's outcome: read end, -1 once known */
	/*
	 * Set before run_child_release(): hold the child at its exit while
	 * its memory map is still there (ptrace's PTRACE_O_TRACEEXIT; ktap
	 * reads /proc/PID/maps then, for its user symbols, which a short
	 * program's events are decoded after it has gone).  @traced: it is.
	 */
	bool hold_exit, traced;
};

/*
 * run_child_spawn - fork the -c child for @cmd (split as stap does; see
 * run_child.c), held stopped, with "NAME=VALUE" @env (or NULL) added
 * to its environment.  @c is filled.  Returns 0, or -1 with errno set
 * (nothing left running).
 */
int run_child_spawn(struct run_child *c, const char *cmd, const char *env);

/*
 * run_child_release - let the child exec, and wait until it did.
 * Returns 0, or -1 with "cannot run 'CMD': REASON" in @why (@n bytes)
 * when the exec failed (the child has then exited with 127); the caller
 * reports it, in the run's output format.
 */
int run_child_release(struct run_child *c, char *why, size_t n);

/*
 * run_child_stop - a wait status of the child that is a stop of a traced
 * child: true, and the child goes on (a signal it was to receive is
 * delivered) unless the stop is at its exit (then *@at_exit is set and
 * the caller reads what it needs before run_child_go()).  False: not a
 * stop (an exit, or an untraced child).
 */
bool run_child_stop(struct run_child *c, int status, bool *at_exit);

/* run_child_go - let a child held at its exit (run_child_stop()) end. */
void run_child_go(struct run_child *c);

/*
 * run_child_end - at the end of the run: SIGTERM to a child still
 * running, SIGKILL after RUN_CHILD_GRACE_MS, and reap it.  Closes the
 * pipe.  No-op for a zeroed @c with pid 0 and status -1.
 */
void run_child_end(struct run_child *c);

#endif
