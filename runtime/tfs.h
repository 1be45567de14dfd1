/*
 * tfs.h - pass 5, kernel side: ktap's private tracefs instance.
 *
 * ktap never changes the top-level buffer, current_tracer, the top-level
 * tracing_on or another tool's instance.  Everything it does to the
 * kernel happens in one instance, instances/ktap_<pid>_<tag> (a session
 * name: the tag is random, so names never repeat, in any PID namespace),
 * that this module creates, writes the plan into (event enable, filter
 * and trigger files) and removes again on every exit path; its dynamic
 * events are in the group of the same name.
 *
 * Ownership: the owner holds flock(LOCK_EX) on the instance directory
 * for the session's whole life (ktap, then its guardian, tfs_guard.h),
 * so a free lock proves the owner dead in every PID namespace.  At
 * start-up tfs_cleanup_stale() removes only what such dead owners left,
 * and reports leftovers it cannot prove dead instead of removing them.
 *
 * Errors: every function that can fail returns -1 (or NULL) and leaves a
 * message that names the tracefs file, the text written and the kernel's
 * own explanation from error_log, for example
 *   events/syscalls/sys_enter_getppid/filter: Field not found
 *     common_pidd == 1
 *     ^
 * The first line is always "PATH: MESSAGE"; further lines (the text, a
 * caret under the offending column when error_log gives one) follow.
 *
 * Order of teardown the caller must keep: close every file of the
 * instance (rdr_close()) before tfs_destroy(), or rmdir fails with EBUSY.
 */
#ifndef KTAP_RT_TFS_H
#define KTAP_RT_TFS_H

#include <stdbool.h>
#include <stddef.h>

/* Room for one error message (callers may use any size). */
#define TFS_ERRLEN 1024

struct tfs;

/* How to set the instance up; zero-initialised means "defaults". */
struct tfs_options {
	const char *root;		/* tracing dir; NULL: tracefs_tracing_dir() */
	unsigned buffer_size_kb;	/* per CPU; 0: the kernel's default */
	const char *clock;		/* trace_clock; NULL: "mono" */
	/*
	 * buffer_percent: how full a CPU buffer must be before poll() on its
	 * trace_pipe_raw reports data.  The kernel's default is 50; ktap
	 * streams, so the default here is 0 ("any data").  -1 leaves it.
	 */
	int buffer_percent;
};

/* Length of the random tag in a session name. */
#define TFS_TAG_LEN 8

/*
 * tfs_unique_name - write a new session name, "ktap_<getpid()>_<8 random
 * hex digits>", into @buf (@len bytes, 32 are enough).
 */
void tfs_unique_name(char *buf, size_t len);

/*
 * tfs_create - create instances/@name and configure it from @opt (NULL
 * for defaults): trace_clock (default mono, so record timestamps are
 * CLOCK_MONOTONIC nanoseconds), buffer_size_kb, buffer_percent; then
 * tracing_on=1 in the instance (no event is enabled yet).
 *
 * @name must be a session name of this process (tfs_unique_name()); any
 * other name is refused (EINVAL) so a bug cannot touch another tool's
 * instance.  The instance is made and locked (tfs_lock_fd()) while the
 * instances directory is share-locked, so a sweep never sees it
 * unlocked; an existing instance of that name is an error (EEXIST).
 * Returns the handle, freed by tfs_destroy(), or NULL with a message in
 * @err (@errlen bytes) and errno set.  On failure nothing is left in
 * tracefs: a half-configured instance is removed before returning.
 * Cost on this machine: ~30 ms, nearly all of it the kernel's RCU grace
 * period when trace_clock is written.
 */
struct tfs *tfs_create(const char *name, const struct tfs_options *opt,
		       char *err, size_t errlen);

/*
 * tfs_write - write @text, in one write(2), to @path relative to the
 * instance directory, or to the tracing root when @global.
 *
 * The file is opened O_WRONLY|O_APPEND, never O_TRUNC: truncating opens
 * of trigger files and dynamic_events delete existing entries.  Writes to
 * events/SYS/EVENT/{enable,filter,trigger} are remembered so that
 * tfs_destroy() undoes them.  Returns 0, or -1 with tfs_error() set to
 * "PATH: kernel message" plus the text and a caret when known.
 */
int tfs_write(struct tfs *t, const char *path, const char *text, bool global);

/*
 * tfs_clear_pids - empty the instance's set_event_pid (its one open with
 * O_TRUNC: every other file is only appended to).  0 or -1 (tfs_error()).
 */
int tfs_clear_pids(struct tfs *t);

/*
 * tfs_tracing_on - set the instance's tracing_on (never the top-level
 * one).  Returns 0 or -1 (tfs_error()).
 */
int tfs_tracing_on(struct tfs *t, bool on);

/* The instance's absolute directory, e.g. /sys/kernel/tracing/instances/ktap_42. */
const char *tfs_instance_dir(const struct tfs *t);

/* The tracing root used, e.g. /sys/kernel/tracing. */
const char *tfs_root(const struct tfs *t);

/* The instance name, e.g. ktap_42. */
const char *tfs_name(const struct tfs *t);

/* The last error message of @t (empty string when none). */
const char *tfs_error(const struct tfs *t);

/*
 * tfs_destroy - undo everything and free @t (NULL is a no-op):
 * tracing_on=0, events/enable=0, "!<trigger>" for every line of every
 * trigger file that tfs_write() touched (repeated while it makes
 * progress, for triggers that depend on one another), filter=0 where a
 * filter is set, then rmdir.  If rmdir still fails the instance is swept
 * (every event's trigger and filter) and rmdir is tried once more.
 * Every step runs even when an earlier one failed.  Returns 0, or -1
 * with the first failure in @err (may be NULL).
 * Then the dynamic events of the instance's group (kprobe and uprobe
 * events the plan defined through tfs_write(..., global)) are removed
 * with "-:GROUP/NAME"; last the lock is closed (a guardian holding a
 * copy keeps the session owned until it exits).
 */
int tfs_destroy(struct tfs *t, char *err, size_t errlen);

/*
 * tfs_try_trigger - does the kernel take @trigger on @event ("SYS/NAME")?
 * Tried in a new instance of this process's (tfs_create()), removed at
 * once with everything in it (tfs_probe.c).  1 yes, 0 no (the kernel
 * refused the write), -1 when it could not be tried (no root, no
 * tracefs: err).
 */
int tfs_try_trigger(const char *event, const char *trigger);

/* The locked instance directory's fd (for the guardian to inherit). */
int tfs_lock_fd(const struct tfs *t);

/* Who owns a ktap object (an instance or dynamic-event group name). */
enum tfs_owner {
	TFS_OWNER_NONE,		/* not a ktap name */
	TFS_OWNER_LIVE,		/* locked, or an older ktap's pid alive here */
	TFS_OWNER_DEAD,		/* proven: its lock is free (or it is gone) */
	TFS_OWNER_UNKNOWN,	/* cannot tell: not to be touched */
};

/*
 * tfs_owner_of - the owner state of ktap object @name (@len bytes) under
 * tracing dir @root (NULL: the mounted tracefs).  Takes the object's
 * lock for a moment when it is free.
 */
enum tfs_owner tfs_owner_of(const char *root, const char *name, size_t len);

/*
 * tfs_remove_session - remove instances/@name and the dynamic events of
 * group @name, whoever made them: for an owner that knows the session
 * is over (the guardian).  Returns 0, or -1 with the first failure in
 * @err.
 */
int tfs_remove_session(const char *root, const char *name, char *err, size_t errlen);

/* What tfs_cleanup_stale() found. */
struct tfs_stale {
	unsigned instances;	/* instances of dead sessions, removed */
	unsigned dynevents;	/* dynamic events of dead sessions, removed */
	unsigned failed;	/* objects it could not remove */
	unsigned unproven;	/* ktap objects whose owner may live: kept */
	char first_unproven[64];	/* the first of those, for the message */
};

/*
 * tfs_cleanup_stale - remove what dead ktap sessions left: every
 * instances/ktap_<pid>_<tag> whose lock is free, then every dynamic
 * event of a ktap group whose session is dead or has no instance.  An
 * instance or group of an older ktap ("ktap_<pid>", no lock) whose pid
 * is not alive here is reported, never removed: its owner may run in
 * another PID namespace.  Runs under LOCK_EX of the instances directory.
 * @root: tracing dir, NULL for tracefs_tracing_dir().  Counts go to @out.
 * Returns 0; 1 with a warning in @err (objects kept, unproven); or -1
 * when something could not be removed (the first failure in @err).
 */
int tfs_cleanup_stale(const char *root, struct tfs_stale *out,
		      char *err, size_t errlen);

#endif
