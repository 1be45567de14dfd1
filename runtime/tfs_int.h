/*
 * tfs_int.h - what tfs.c (a session's instance), tfs_sweep.c (explained
 * writes, clearing events and instances) and tfs_session.c (names,
 * ownership, dead sessions' leftovers) share.  Nothing else includes it.
 */
#ifndef KTAP_RT_TFS_INT_H
#define KTAP_RT_TFS_INT_H

#include <stdbool.h>
#include <stddef.h>

/* A sink for the first error of a multi-step operation. */
struct tfs_sink {
	char *buf;
	size_t len;
	bool set;
};

/* ---- tfs_sweep.c ---- */

/* Record an error unless an earlier one is already there. */
void tfs_sink_put(struct tfs_sink *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "a/b" in a new string, or NULL (ENOMEM). */
char *tfs_join(const char *a, const char *b);

/* One write(2) of @text to "@dir/@rel" (append).  0 or -1/errno. */
int tfs_put_at(const char *dir, const char *rel, const char *text);

/* The whole file "@dir/@rel": NUL-terminated, malloc'd, or NULL/errno. */
char *tfs_slurp_at(const char *dir, const char *rel);

/*
 * Write @text to @rel under @dir, explaining a failure in @buf with the
 * error_log of @logdir.  @shown is the path as the message shows it.
 */
int tfs_write_explained(const char *dir, const char *rel, const char *text,
			const char *logdir, const char *shown,
			char *buf, size_t len);

/* Clear triggers, then the filter, of events/SYS/EVENT (@rel) in @dir. */
void tfs_clear_event(const char *dir, const char *rel, struct tfs_sink *sink);

/* Disable instance @dir and clear every event's trigger and filter. */
void tfs_sweep(const char *dir, struct tfs_sink *sink);

/* rmdir @dir; on failure sweep it and try once more.  @shown names it. */
int tfs_remove_dir(const char *dir, const char *shown, struct tfs_sink *sink);

/* ---- tfs_session.c ---- */

/* What a name in instances/ or a dynamic-event group is to ktap. */
enum tfs_kind {
	TFS_FOREIGN,	/* not ktap's */
	TFS_OLD,	/* "ktap_<pid>": an older ktap's, no ownership lock */
	TFS_SESSION,	/* "ktap_<pid>_<8 hex digits>": a session's, locked */
};

/* Classify @s (@len bytes); the pid in the name goes to *@pid. */
enum tfs_kind tfs_parse_name(const char *s, size_t len, long *pid);

/* @root, or the mounted tracefs when NULL (NULL when none). */
const char *tfs_find_root(const char *root);

/* The instances directory, flock()ed with @how, or -1/errno. */
int tfs_lock_instances(const char *root, int how);

/*
 * Remove the dynamic events of every ktap group for which @doomed(group,
 * ctx) is true; counts into @removed/@failed, messages into @sink.
 */
void tfs_remove_dynevents(const char *root, bool (*doomed)(const char *group, void *ctx),
			  void *ctx, unsigned *removed, unsigned *failed,
			  struct tfs_sink *sink);

/* A @doomed for tfs_remove_dynevents(): the group named @ctx. */
bool tfs_doomed_named(const char *group, void *ctx);

#endif
