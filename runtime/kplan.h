/*
 * kplan.h - the kernel half of the plan: every tracefs object ktap
 * creates, as typed values.
 *
 * Pass 3 (compiler/lower/) builds a struct kp_plan, an ordered list of
 * objects; -p3 prints it (ir_dump.c) and pass 5 applies it to ktap's
 * instance and undoes it (kplan_apply.c).  kp_render() is the one place
 * where an object becomes tracefs text: the file it is written to, the
 * line written, and the line that removes it again.  Everything else
 * (printing, applying, undoing) goes through it, so the text of an
 * object cannot differ between -p3 and a run.
 *
 * Why ktap's own model and not libtracefs's (struct tracefs_dynevent,
 * tracefs_hist, tracefs_synth): tracefs_hist_alloc() and
 * tracefs_synth_alloc() need a tep handle holding the events' formats
 * (they fail without one, and crash on a NULL tep), and their echo_cmd
 * renderers need a tracefs directory, so they cannot render a plan for
 * another machine (-p3 --target DIR); tracefs_dynevent has no text
 * renderer at all and writes to the system's tracing directory without
 * the kernel's error_log explanation that tfs_write() gives.  The
 * objects below follow libtracefs's vocabulary where there is one
 * (key modifiers, handlers, actions); see doc/design.md.
 *
 * Ownership: a plan and everything it points to belong to whoever built
 * it (the compiler's arena); the runtime only reads them.  Strings may
 * hold the placeholders $PID, $KTAP, $TARGET and $WALL%D, replaced at
 * apply time (kp_expand()).
 */
#ifndef KTAP_RT_KPLAN_H
#define KTAP_RT_KPLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- dynamic events (kprobe_events, uprobe_events) ---- */

/* KP_EPROBE: an event probe (e:, Linux 5.15+) on a tracepoint, whose fetch
   arguments read its record's fields ($name) and memory through them;
   KP_TPROBE: a tracepoint probe event (t:, Linux 6.10+, fprobe events),
   whose fetch arguments read the tracepoint's arguments ($argN) */
enum kp_probe { KP_KPROBE, KP_KRETPROBE, KP_UPROBE, KP_URETPROBE, KP_EPROBE, KP_TPROBE };

/*
 * One fetch argument: NAME=FETCH[:TYPE].  @fetch is the location
 * ("%di", "+8(%si)", "@+0x1040", "$retval"), @type the kernel's fetch
 * type ("u64", "s32", "string", "b3@4/32"), NULL for the kernel's
 * default.
 */
struct kp_arg {
	const char *name, *fetch, *type;
};

struct kp_dynevent {
	enum kp_probe kind;
	const char *group, *name;	/* "ktap_$PID", "do_sys_open_3" */
	/* what is probed: "SYM", "MOD:SYM", "SYM+0xOFF" (kprobes),
	   "PATH:0xOFF" (uprobes), "SYSTEM.EVENT" (eprobes), "EVENT"
	   (tprobes: the tracepoint's name) */
	const char *target;
	unsigned maxactive;	/* kretprobe instances ("rN:"); 0: kernel default */
	/* uprobes: the file offset of a reference counter (an SDT marker's
	   semaphore) the kernel increments while the probe is attached,
	   "PATH:0xOFF(0xREF)"; 0: none */
	unsigned long long ref_ctr_offset;
	struct kp_arg *args;
	unsigned nargs;
	size_t acap;		/* for the builder's growing array */
	const char *origin;	/* the probe point ("FILE:L:C: POINT"), for errors */
};

/* ---- triggers (events/SYS/EVENT/trigger) ---- */

enum kp_trig {
	KP_T_STACKTRACE, KP_T_TRACEON, KP_T_TRACEOFF, KP_T_SNAPSHOT,
	KP_T_ENABLE_EVENT, KP_T_DISABLE_EVENT, KP_T_HIST,
};

/* Key modifiers (libtracefs's enum tracefs_hist_key_type). */
enum kp_key_mod {
	KP_KEY_NORMAL, KP_KEY_HEX, KP_KEY_SYM, KP_KEY_SYM_OFFSET, KP_KEY_SYSCALL,
	KP_KEY_EXECNAME, KP_KEY_LOG2, KP_KEY_USECS, KP_KEY_BUCKETS,
};

struct kp_hist_key {
	const char *field;	/* event field, "$var", "common_pid", "stacktrace" */
	enum kp_key_mod mod;
	unsigned buckets;	/* KP_KEY_BUCKETS: ".buckets=N" */
};

/* A hist variable: NAME=EXPR ("ts0=common_timestamp.usecs"). */
struct kp_hist_var {
	const char *name, *expr;
};

struct kp_hist_sort {
	const char *field;	/* a key or a value, "hitcount" */
	bool descending;
};

enum kp_handler { KP_ON_MATCH, KP_ON_MAX, KP_ON_CHANGE };
enum kp_action { KP_ACT_TRACE, KP_ACT_SAVE, KP_ACT_SNAPSHOT };

/*
 * HANDLER(ARG).ACTION(PARAMS): onmatch(sys.event).trace(synth,$a,b),
 * onmax($lat).save(f1,f2), onchange($v).snapshot().
 */
struct kp_hist_action {
	enum kp_handler handler;
	const char *arg;	/* "sched.sched_waking" or "$lat" */
	enum kp_action action;
	const char *synth;	/* KP_ACT_TRACE: the synthetic event */
	const char *const *params;
	unsigned nparams;
};

struct kp_hist {
	const struct kp_hist_key *keys;	/* 1..3 */
	unsigned nkeys;
	const struct kp_hist_var *vars;
	unsigned nvars;
	const char *const *vals;	/* "bytes", "$lat"; hitcount is implicit */
	unsigned nvals;
	const struct kp_hist_sort *sort;	/* at most 2 */
	unsigned nsort;
	unsigned size;		/* map entries, 0: the kernel's 2048 */
	const char *name;	/* a named (shared) hist, or NULL */
	const struct kp_hist_action *actions;
	unsigned nactions;
	bool paused;		/* created paused (":pause") */
	bool nohitcount;	/* no hitcount column (kernels >= 6.2; needs a value) */
	/* The instance's trace clock, for a hist using common_timestamp
	   (the kernel switches the instance to "global" otherwise), or NULL. */
	const char *clock;
};

/* Commands to an existing hist trigger (histogram.rst §2). */
enum kp_hist_cmd { KP_HIST_PAUSE, KP_HIST_CONT, KP_HIST_CLEAR };

struct kp_trigger {
	const char *system, *event;
	enum kp_trig kind;
	unsigned count;		/* ":N": fire N times; 0: always */
	/* KP_T_ENABLE_EVENT / KP_T_DISABLE_EVENT: the event switched */
	const char *other_system, *other_event;
	struct kp_hist hist;	/* KP_T_HIST */
	const char *filter;	/* " if FILTER", or NULL */
};

/* ---- the rest ---- */

/* An event's "enable" (1 in the instance). */
struct kp_enable {
	const char *system, *event;
};

/* An event's "filter". */
struct kp_filter {
	const char *system, *event, *expr;
};

/*
 * A synthetic event: NAME TYPE FIELD; TYPE FIELD; ...  Synthetic events
 * have no group of their own (all are "synthetic"), so ktap's names
 * should start with "ktap_$PID_" for a sweep to tell whose they are.
 */
struct kp_synth_field {
	const char *type, *name;	/* "u64" "lat"; arrays "char" "comm[16]" */
};

struct kp_synth {
	const char *name;
	const struct kp_synth_field *fields;
	unsigned nfields;
};

enum kp_opt {
	KP_OPT_FLAG,		/* options/NAME: "1" or "0", undone by the opposite */
	KP_OPT_BUFFER_KB,	/* buffer_size_kb: goes with the instance */
	/* set_event_pid: the -c/-x target's threads ($TARGET's, listed at
	   apply time; with options/event-fork, those it creates later), a
	   pre-filter for probes that check pid() == target() themselves;
	   goes with the instance */
	KP_OPT_EVENT_PID,
};

struct kp_option {
	enum kp_opt kind;
	const char *name;	/* KP_OPT_FLAG: "userstacktrace", "stacktrace" */
	bool on;		/* KP_OPT_FLAG */
	unsigned kb;		/* KP_OPT_BUFFER_KB: per CPU */
};

/*
 * A perf tracepoint event, disabled, that ktap holds open for the run
 * (live.c, kplan_perf.c; not a tracefs write: kplan_apply() skips it).
 * It adds a callback to the tracepoint, which then calls its callbacks
 * through its iterator (__traceiter_X) rather than a static call to the
 * only one: the hist stacktrace key skips a fixed number of frames
 * (HIST_STACKTRACE_SKIP) that counts the iterator, so only then does the
 * key start at the probe point.
 */
struct kp_perf {
	const char *system, *event;
};

/* ---- the plan ---- */

enum kp_kind { KP_DYNEVENT, KP_ENABLE, KP_FILTER, KP_TRIGGER, KP_SYNTH, KP_OPTION, KP_PERF };

struct kp_obj {
	enum kp_kind kind;
	union {
		/* by reference: pass 2 builds it and its arguments grow */
		const struct kp_dynevent *dyn;
		struct kp_enable enable;
		struct kp_filter filter;
		struct kp_trigger trigger;
		struct kp_synth synth;
		struct kp_option option;
		struct kp_perf perf;
	} u;
};

/* Objects in the order they are applied; undone in reverse. */
struct kp_plan {
	struct kp_obj *objs;
	unsigned n;
	size_t cap;
};

/*
 * An object as tracefs text.  @path is relative to ktap's instance, or to
 * the tracing directory when @global ("kprobe_events", "synthetic_events").
 * @undo is what removes the object again (written to the same file), NULL
 * when the instance's removal takes it along (buffer_size_kb).
 */
struct kp_text {
	char *path, *line, *undo;
	bool global;
};

/*
 * kp_render - the text of @o into @out (strings malloc'd, freed by
 * kp_text_free()).  Returns 0, or -1 with errno ENOMEM (nothing to free)
 * or EINVAL (an object that cannot be written, e.g. a hist without
 * keys).
 */
int kp_render(const struct kp_obj *o, struct kp_text *out);

/*
 * kp_hist_cmd_line - the line that pauses, continues or clears (zeroes)
 * the hist trigger @o, which must exist: its definition with ":pause",
 * ":cont" or ":clear" and its filter (the kernel finds the trigger by
 * both), appended to the same file as kp_render()'s path.  Malloc'd;
 * NULL with errno ENOMEM, or EINVAL when @o is not a hist trigger.
 */
char *kp_hist_cmd_line(const struct kp_obj *o, enum kp_hist_cmd cmd);

/* Free what kp_render() allocated (NULL members are fine). */
void kp_text_free(struct kp_text *t);

/* "kprobe_events" or "uprobe_events": where dynamic event @d is defined. */
const char *kp_dyn_file(const struct kp_dynevent *d);

/*
 * What the placeholders stand for in one session: the values a plan is
 * applied with (the caller's; kp_expand() only reads them).
 */
struct kp_env {
	int target;		/* $TARGET: the -c/-x target's pid, 0: none */
	/* $PID: what follows "ktap_" in the session name (the instance and
	   dynamic-event group are ktap_$PID: ktap_<pid>_<tag>, tfs.h);
	   NULL: ktap's pid (a replay, -p3) */
	const char *session;
	/* $WALL%D (D a decimal number): this offset modulo D, the part of
	   CLOCK_REALTIME - the trace clock that a division by D of a
	   wall-clock time sees (lower_latency.c's gettimeofday_us/ms/s()
	   pairs); rtb_event_ns() adds the same offset in user space */
	int64_t wall_ns;
};

/*
 * kp_expand - @text with the plan's placeholders replaced: $TARGET by
 * @env->target, $KTAP by ktap's own pid (filters), $PID by the session
 * (struct kp_env), $WALL%D by @env->wall_ns modulo D.  Returns a
 * malloc'd string (NULL: out of memory).
 */
char *kp_expand(const char *text, const struct kp_env *env);

struct tfs;

/*
 * kplan_apply - write every object of @p into @t's instance (or the
 * tracing dir), in order, with placeholders expanded by @env (its
 * session is @t's name, whatever @env->session says).  Returns the number of objects applied: @p->n on success;
 * fewer when one was refused, with the reason on stderr ("ERROR: ...",
 * naming the probe), in which case the caller undoes that many with
 * kplan_undo().
 */
unsigned kplan_apply(const struct kp_plan *p, struct tfs *t, const struct kp_env *env);

/*
 * kplan_perf_hold - open the KP_PERF object @o (a disabled perf event on
 * its tracepoint, close-on-exec) with the tracing directory @root, where
 * the event's id is read.  Returns the fd to keep open for the run, or -1
 * with the reason in @err (@errlen bytes).  Closing the fd removes it.
 */
int kplan_perf_hold(const struct kp_obj *o, const char *root, char *err, size_t errlen);

/*
 * kplan_undo - remove the first @n objects of @p again, last first, each
 * by its own undo text.  Every step runs even when one fails.  Returns
 * 0, or -1 with the first failure in @err (@errlen bytes; may be NULL).
 */
int kplan_undo(const struct kp_plan *p, unsigned n, struct tfs *t, const struct kp_env *env,
	       char *err, size_t errlen);

#endif
