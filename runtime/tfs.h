/*
 * tfs.h - pass 5, kernel side: ktap's private tracefs instance.
 *
 * ktap never changes the top-level buffer, current_tracer, the top-level
 * tracing_on or another tool's instance.  Everything it does to the
 * kernel happens in one instance, instances/ktap_<pid>, that this module
 * creates, writes the plan into (event enable, filter and trigger files)
 * and removes again on every exit path.  At start-up tfs_cleanup_stale()
 * removes what earlier ktap processes that died (SIGKILL, crash) left
 * behind: their instances and their dynamic events (group ktap_<pid>).
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

/*
 * tfs_default_name - write "ktap_<getpid()>" into @buf (@len bytes).
 */
void tfs_default_name(char *buf, size_t len);

/*
 * tfs_create - create instances/@name and configure it from @opt (NULL
 * for defaults): trace_clock (default mono, so record timestamps are
 * CLOCK_MONOTONIC nanoseconds), buffer_size_kb, buffer_percent; then
 * tracing_on=1 in the instance (no event is enabled yet).
 *
 * @name must be ktap's own, "ktap_<pid of this process>"; any other name
 * is refused (EINVAL) so a bug cannot touch another tool's instance.  An
 * existing instance of that name can only be a leftover of a dead
 * process that had our pid (common in containers, where ktap may always
 * be pid 1), so it is removed first; a process must therefore not create
 * two handles for one name.
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
 * Last, the dynamic events of group ktap_<our pid> (kprobe and uprobe
 * events the plan defined through tfs_write(..., global)) are removed
 * with "-:ktap_<pid>/NAME".
 */
int tfs_destroy(struct tfs *t, char *err, size_t errlen);

/* What tfs_cleanup_stale() removed. */
struct tfs_stale {
	unsigned instances;	/* instances/ktap_<dead pid> */
	unsigned dynevents;	/* dynamic events of group ktap_<dead pid> */
	unsigned failed;	/* objects it could not remove */
};

/*
 * tfs_cleanup_stale - remove what dead ktap processes left: every
 * instances/ktap_<pid> and every dynamic event of group ktap_<pid> whose
 * pid no longer exists (kill(pid, 0) fails with ESRCH).  Instances go
 * first, because an event enabled in an instance cannot be deleted.
 * Caveat: "dead" is judged in our pid namespace; a ktap running in
 * another pid namespace on the same tracefs would look dead.
 * @root: tracing dir, NULL for tracefs_tracing_dir().  Counts go to @out.
 * Returns 0, or -1 when something could not be removed (the first
 * failure in @err); the counts are valid either way.
 */
int tfs_cleanup_stale(const char *root, struct tfs_stale *out,
		      char *err, size_t errlen);

/*
 * tfs_cleanup_stale_dynevents - the dynamic-event half of
 * tfs_cleanup_stale(): parse dynamic_events lines such as
 * "p:ktap_123/name sym ..." or "r4:ktap_123/name ..." and write
 * "-:ktap_123/name" (appending) for each whose pid is dead.  Adds to
 * @out->dynevents / @out->failed.  Returns 0 or -1 (first failure in
 * @err).  Exposed for tests and for the later kprobe/uprobe support.
 */
int tfs_cleanup_stale_dynevents(const char *root, struct tfs_stale *out,
				char *err, size_t errlen);

/*
 * tfs_snapshot - a text dump of the tracefs state that a ktap run must
 * leave unchanged: the instance list, top-level tracing_on,
 * current_tracer, buffer_size_kb, trace_clock, set_event, every
 * top-level events/SYS/EVENT/{enable,filter,trigger} that is not in its
 * default state, and dynamic_events.  For tests: compare before and after.
 * @root: tracing dir or NULL.  Returns a malloc'd string (caller frees),
 * or NULL with errno set.  Takes ~50 ms (it reads ~7,500 files).
 */
char *tfs_snapshot(const char *root);

#endif
