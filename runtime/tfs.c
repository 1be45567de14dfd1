/*
 * tfs.c - pass 5, kernel side: ktap's private tracefs instance (see tfs.h).
 *
 * In: an instance name and the plan's (path, text) writes.  Out: an
 * instance that exists exactly as long as the run, plus readable errors
 * that quote the kernel's error_log.
 *
 * Only plain syscalls on tracefs files are used (open/write/read/mkdir/
 * rmdir).  libtracefs is used for one thing, finding the tracing dir:
 * its instance helpers (tracefs_instance_create & co.) would do the same
 * system calls but hide errno and error_log details we want to report.
 */
#define _GNU_SOURCE
#include "tfs.h"
#include "fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

/* Passes over a trigger file: triggers may depend on one another. */
#define TFS_TRIGGER_PASSES 8

struct tfs {
	char *root;		/* tracing dir */
	char *name;		/* ktap_<pid> */
	char *dir;		/* root/instances/name */
	int lockfd;		/* the instance directory, flock()ed: ours */
	char **touched;		/* "events/SYS/EVENT" written by tfs_write */
	unsigned ntouched, tcap;
	char err[TFS_ERRLEN];
};

/* A sink for the first error of a multi-step operation. */
struct tfs_sink {
	char *buf;
	size_t len;
	bool set;
};

/* ---- small helpers ---- */

static void tfs_sink_put(struct tfs_sink *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Record an error unless an earlier one is already there. */
static void tfs_sink_put(struct tfs_sink *s, const char *fmt, ...)
{
	va_list ap;

	if (s->set || !s->buf || !s->len) {
		s->set = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(s->buf, s->len, fmt, ap);
	va_end(ap);
	s->set = true;
}

/* "a/b" in a new string, or NULL (ENOMEM). */
static char *tfs_join(const char *a, const char *b)
{
	char *p;

	if (asprintf(&p, "%s/%s", a, b) < 0)
		return NULL;
	return p;
}

/* A whole tracefs file: NUL-terminated, malloc'd, or NULL/errno. */
static char *tfs_slurp(const char *path)
{
	return fio_read(path, NULL);
}

/* One write(2) of @text to @path (append, no truncation).  0 or -1/errno. */
static int tfs_put(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, e;

	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -1;
	do
		n = write(fd, text, len);
	while (n < 0 && errno == EINTR);
	e = errno;
	close(fd);
	if (n < 0) {
		errno = e;
		return -1;
	}
	if ((size_t)n != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/* tfs_put() on "@dir/@rel". */
static int tfs_put_at(const char *dir, const char *rel, const char *text)
{
	char *path = tfs_join(dir, rel);
	int rc, e;

	if (!path)
		return -1;
	rc = tfs_put(path, text);
	e = errno;
	free(path);
	errno = e;
	return rc;
}

/* tfs_slurp() of "@dir/@rel". */
static char *tfs_slurp_at(const char *dir, const char *rel)
{
	char *path = tfs_join(dir, rel), *s;
	int e;

	if (!path)
		return NULL;
	s = tfs_slurp(path);
	e = errno;
	free(path);
	errno = e;
	return s;
}

/* What a name in instances/ or a dynamic-event group is to ktap. */
enum tfs_kind {
	TFS_FOREIGN,	/* not ktap's */
	TFS_OLD,	/* "ktap_<pid>": an older ktap's, no ownership lock */
	TFS_SESSION,	/* "ktap_<pid>_<8 hex digits>": a session's, locked */
};

/* Classify @s (@len bytes); the pid in the name goes to *@pid. */
static enum tfs_kind tfs_parse_name(const char *s, size_t len, long *pid)
{
	size_t i = 5, digits;

	if (len <= 5 || strncmp(s, "ktap_", 5) != 0)
		return TFS_FOREIGN;
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	digits = i - 5;
	if (digits == 0 || digits > 10)
		return TFS_FOREIGN;
	*pid = strtol(s + 5, NULL, 10);
	if (*pid <= 0)
		return TFS_FOREIGN;
	if (i == len)
		return TFS_OLD;
	if (s[i] != '_' || len - i - 1 != TFS_TAG_LEN)
		return TFS_FOREIGN;
	for (i++; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return TFS_FOREIGN;
	return TFS_SESSION;
}

/* A pid is dead when signalling it fails with ESRCH. */
static bool tfs_pid_dead(long pid)
{
	return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

static const char *tfs_find_root(const char *root)
{
	return root ? root : tracefs_tracing_dir();
}

/* ---- error_log ---- */

/* The last entry of @dir/error_log (malloc'd), or NULL when empty. */
static char *tfs_log_last(const char *dir)
{
	char *log = tfs_slurp_at(dir, "error_log"), *p, *last = NULL, *r;

	if (!log)
		return NULL;
	for (p = log; *p; ) {
		if (*p == '[')
			last = p;
		p = strchrnul(p, '\n');
		if (*p)
			p++;
	}
	r = last ? strdup(last) : NULL;
	free(log);
	return r;
}

/* Start of the line that @p is in; @base is the string's start. */
static const char *tfs_line_start(const char *base, const char *p)
{
	while (p > base && p[-1] != '\n')
		p--;
	return p;
}

/*
 * From an error_log entry
 *   "[ 12.3] event filter parse error: error: Field not found\n"
 *   "  Command: common_pidd == 1\n"
 *   "                       ^\n"
 * extract the message ("Field not found") into @msg and the offset of
 * the caret in @text (-1 if none).  The command the kernel quotes may be
 * part of what was written (a trigger's filter), so it is looked up.
 */
static void tfs_log_parse(const char *entry, const char *text, char *msg,
			  size_t mlen, int *caret)
{
	const char *p = strstr(entry, ": error: "), *eol, *cmd, *c, *at;
	char quoted[512];
	long col;

	*caret = -1;
	if (p)
		p += 9;
	else if ((p = strstr(entry, "] ")) != NULL)
		p += 2;
	else
		p = entry;
	eol = strchrnul(p, '\n');
	snprintf(msg, mlen, "%.*s", (int)(eol - p), p);
	cmd = strstr(entry, "Command: ");
	if (!cmd || !(eol = strchr(cmd, '\n')))
		return;
	c = strchr(eol + 1, '^');
	if (!c || memchr(eol + 1, '\n', (size_t)(c - eol - 1)))
		return;
	col = (long)(c - (eol + 1)) - (long)(cmd + 9 - tfs_line_start(entry, cmd));
	snprintf(quoted, sizeof(quoted), "%.*s", (int)(eol - cmd - 9), cmd + 9);
	at = *quoted ? strstr(text, quoted) : text;
	if (col >= 0 && at)
		*caret = (int)(col + (at - text));
}

/*
 * Format "PATH: MESSAGE\n  TEXT\n  ^" for a write of @text to @path that
 * failed with @errnum.  @before is the last error_log entry of @logdir
 * from before the write: a different last entry now is the kernel's
 * explanation; without one, strerror(@errnum) is.
 */
static void tfs_format_error(char *buf, size_t len, const char *path,
			     const char *text, int errnum, const char *logdir,
			     const char *before)
{
	char msg[512], *after = tfs_log_last(logdir);
	int caret = -1, tl, n;

	if (after && (!before || strcmp(after, before) != 0))
		tfs_log_parse(after, text, msg, sizeof(msg), &caret);
	else
		snprintf(msg, sizeof(msg), "%s", strerror(errnum));
	free(after);
	tl = (int)strcspn(text, "\n");
	n = snprintf(buf, len, "%s: %s\n  %.*s", path, msg, tl, text);
	if (caret >= 0 && caret <= tl && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "\n  %*s^", caret, "");
}

/*
 * Write @text to @rel under @dir, explaining a failure in @buf with the
 * error_log of @logdir.  @shown is the path as the message shows it.
 */
static int tfs_write_explained(const char *dir, const char *rel, const char *text,
			       const char *logdir, const char *shown,
			       char *buf, size_t len)
{
	char *before = tfs_log_last(logdir);
	int rc, e;

	rc = tfs_put_at(dir, rel, text);
	e = errno;
	if (rc != 0)
		tfs_format_error(buf, len, shown, text, e, logdir, before);
	free(before);
	errno = e;
	return rc;
}

/* ---- clearing triggers and filters of one event ---- */

/* The next trigger line of @p (NUL-terminated in place), or NULL. */
static char *tfs_next_trigger(char **p)
{
	char *line, *end;

	while (**p) {
		line = *p;
		end = strchrnul(line, '\n');
		*p = *end ? end + 1 : end;
		*end = '\0';
		if (*line && *line != '#')
			return line;
	}
	return NULL;
}

/*
 * "!" + @line: the removal command of a trigger as the trigger file shows
 * it.  The kernel ignores the count and the filter when removing; hist
 * triggers show a " [active]"/" [paused]" state that must go.
 */
static char *tfs_removal(const char *line)
{
	size_t n = strlen(line);
	char *r;

	if (n > 9 && strcmp(line + n - 9, " [active]") == 0)
		n -= 9;
	else if (n > 9 && strcmp(line + n - 9, " [paused]") == 0)
		n -= 9;
	if (asprintf(&r, "!%.*s\n", (int)n, line) < 0)
		return NULL;
	return r;
}

/* One pass over @evdir/trigger: remove what is there.  Returns how many
   lines were left (0: done), removed in *@progress. */
static int tfs_trigger_pass(const char *evdir, const char *logdir, const char *shown,
			    unsigned *progress, struct tfs_sink *sink)
{
	char *text = tfs_slurp_at(evdir, "trigger"), *p, *line, *cmd;
	int left = 0;
	char msg[TFS_ERRLEN];

	if (!text)
		return errno == ENOENT ? 0 : -1;
	p = text;
	while ((line = tfs_next_trigger(&p)) != NULL) {
		left++;
		cmd = tfs_removal(line);
		if (cmd && tfs_write_explained(evdir, "trigger", cmd, logdir, shown,
					       msg, sizeof(msg)) == 0)
			(*progress)++;
		else if (cmd)
			tfs_sink_put(sink, "%s", msg);
		free(cmd);
	}
	free(text);
	return left;
}

/*
 * Remove every trigger of the event in @evdir, passing again while
 * passes make progress (a trigger another one depends on goes last).
 */
static int tfs_clear_triggers(const char *evdir, const char *logdir,
			      const char *shown, struct tfs_sink *sink)
{
	struct tfs_sink quiet = { NULL, 0, false };
	unsigned pass, progress;
	int left = 0;

	for (pass = 0; pass < TFS_TRIGGER_PASSES; pass++) {
		progress = 0;
		left = tfs_trigger_pass(evdir, logdir, shown, &progress,
					pass + 1 < TFS_TRIGGER_PASSES ? &quiet : sink);
		if (left <= 0 || !progress)
			break;
	}
	if (left < 0) {
		tfs_sink_put(sink, "%s: %s", shown, strerror(errno));
		return -1;
	}
	if (left > 0 && !sink->set) {
		/* The last pass made no progress: say why, once. */
		progress = 0;
		tfs_trigger_pass(evdir, logdir, shown, &progress, sink);
	}
	return left == 0 ? 0 : -1;
}

/* Reset the filter of the event in @evdir if one is set. */
static int tfs_clear_filter(const char *evdir, const char *logdir,
			    const char *shown, struct tfs_sink *sink)
{
	char *f = tfs_slurp_at(evdir, "filter"), msg[TFS_ERRLEN];
	bool set = f && strncmp(f, "none", 4) != 0;

	free(f);
	if (!set)
		return 0;
	if (tfs_write_explained(evdir, "filter", "0", logdir, shown, msg,
				sizeof(msg)) == 0)
		return 0;
	tfs_sink_put(sink, "%s", msg);
	return -1;
}

/* Clear triggers, then the filter, of events/SYS/EVENT (@rel) in @dir. */
static void tfs_clear_event(const char *dir, const char *rel, struct tfs_sink *sink)
{
	char *evdir = tfs_join(dir, rel), *tshown = NULL, *fshown = NULL;

	if (!evdir || asprintf(&tshown, "%s/trigger", rel) < 0 ||
	    asprintf(&fshown, "%s/filter", rel) < 0) {
		tfs_sink_put(sink, "%s: out of memory", rel);
		goto out;
	}
	tfs_clear_triggers(evdir, dir, tshown, sink);
	tfs_clear_filter(evdir, dir, fshown, sink);
out:
	free(evdir);
	free(tshown);
	free(fshown);
}

/* Is @name a subdirectory entry (not ".", not ".." and not a file)? */
static bool tfs_is_subdir(const struct dirent *d)
{
	if (d->d_name[0] == '.')
		return false;
	return d->d_type == DT_DIR || d->d_type == DT_UNKNOWN;
}

/* Clear every event of system @sys in @dir (a sweep, see below). */
static void tfs_sweep_system(const char *dir, const char *sys, struct tfs_sink *sink)
{
	char *sysdir = NULL, *rel;
	struct dirent *d;
	DIR *dp;

	if (asprintf(&sysdir, "%s/events/%s", dir, sys) < 0)
		return;
	dp = opendir(sysdir);
	free(sysdir);
	if (!dp)
		return;
	while ((d = readdir(dp)) != NULL) {
		if (!tfs_is_subdir(d))
			continue;
		if (asprintf(&rel, "events/%s/%s", sys, d->d_name) < 0)
			break;
		tfs_clear_event(dir, rel, sink);
		free(rel);
	}
	closedir(dp);
}

/*
 * Sweep an instance we have no record of (a dead process's, or ours
 * when rmdir failed): disable everything, then clear the trigger and
 * filter of every event.  ~2,500 events, some 50 ms.
 */
static void tfs_sweep(const char *dir, struct tfs_sink *sink)
{
	char *evroot = tfs_join(dir, "events");
	struct dirent *d;
	DIR *dp;

	tfs_put_at(dir, "tracing_on", "0");
	tfs_put_at(dir, "events/enable", "0");
	dp = evroot ? opendir(evroot) : NULL;
	free(evroot);
	if (!dp)
		return;
	while ((d = readdir(dp)) != NULL)
		if (tfs_is_subdir(d))
			tfs_sweep_system(dir, d->d_name, sink);
	closedir(dp);
}

/* rmdir @dir; on failure sweep it and try once more.  @shown names it. */
static int tfs_remove_dir(const char *dir, const char *shown, struct tfs_sink *sink)
{
	int e;

	if (rmdir(dir) == 0 || errno == ENOENT)
		return 0;
	tfs_sweep(dir, sink);
	if (rmdir(dir) == 0 || errno == ENOENT)
		return 0;
	e = errno;
	tfs_sink_put(sink, "%s: rmdir: %s%s", shown, strerror(e),
		     e == EBUSY ? " (a file of the instance is still open?)" : "");
	errno = e;
	return -1;
}

/* ---- the instance ---- */

void tfs_unique_name(char *buf, size_t len)
{
	uint32_t tag = 0;

	/* Unique, not secret: a failed getrandom() still has the time. */
	if (getrandom(&tag, sizeof(tag), GRND_NONBLOCK) != sizeof(tag)) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		tag = (uint32_t)ts.tv_nsec ^ (uint32_t)ts.tv_sec;
	}
	snprintf(buf, len, "ktap_%ld_%08x", (long)getpid(), tag);
}

/* Remember events/SYS/EVENT of a write to its enable/filter/trigger. */
static int tfs_touch(struct tfs *t, const char *path)
{
	const char *s1, *s2, *s3, *file;
	char **nt;
	unsigned i;
	size_t n;

	if (strncmp(path, "events/", 7) != 0)
		return 0;
	s1 = path + 7;
	s2 = strchr(s1, '/');
	s3 = s2 ? strchr(s2 + 1, '/') : NULL;
	if (!s3 || strchr(s3 + 1, '/'))
		return 0;
	file = s3 + 1;
	if (strcmp(file, "enable") && strcmp(file, "filter") && strcmp(file, "trigger"))
		return 0;
	n = (size_t)(s3 - path);
	for (i = 0; i < t->ntouched; i++)
		if (strlen(t->touched[i]) == n && !strncmp(t->touched[i], path, n))
			return 0;
	if (t->ntouched == t->tcap) {
		t->tcap = t->tcap ? t->tcap * 2 : 16;
		nt = realloc(t->touched, t->tcap * sizeof(*nt));
		if (!nt)
			return -1;
		t->touched = nt;
	}
	t->touched[t->ntouched] = strndup(path, n);
	if (!t->touched[t->ntouched])
		return -1;
	t->ntouched++;
	return 0;
}

/* Paths must stay below their directory. */
static bool tfs_path_ok(const char *path)
{
	const char *p = path;

	if (!*path || *path == '/')
		return false;
	while (p) {
		if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || !p[2]))
			return false;
		p = strchr(p, '/');
		p = p ? p + 1 : NULL;
	}
	return true;
}

int tfs_write(struct tfs *t, const char *path, const char *text, bool global)
{
	const char *dir = global ? t->root : t->dir;

	t->err[0] = '\0';
	if (!tfs_path_ok(path)) {
		snprintf(t->err, sizeof(t->err), "%s: path outside the %s directory",
			 path, global ? "tracing" : "instance");
		errno = EINVAL;
		return -1;
	}
	/* Before the write: a failed write may still have had an effect. */
	if (!global && tfs_touch(t, path) != 0) {
		snprintf(t->err, sizeof(t->err), "%s: out of memory", path);
		errno = ENOMEM;
		return -1;
	}
	return tfs_write_explained(dir, path, text, dir, path, t->err, sizeof(t->err));
}

int tfs_tracing_on(struct tfs *t, bool on)
{
	return tfs_write(t, "tracing_on", on ? "1" : "0", false);
}

const char *tfs_instance_dir(const struct tfs *t)
{
	return t->dir;
}

const char *tfs_root(const struct tfs *t)
{
	return t->root;
}

const char *tfs_name(const struct tfs *t)
{
	return t->name;
}

const char *tfs_error(const struct tfs *t)
{
	return t->err;
}

static void tfs_free(struct tfs *t)
{
	unsigned i;

	for (i = 0; i < t->ntouched; i++)
		free(t->touched[i]);
	free(t->touched);
	if (t->lockfd >= 0)
		close(t->lockfd);
	free(t->root);
	free(t->name);
	free(t->dir);
	free(t);
}

/* Allocate @t for instance @name under @root (nothing created yet). */
static struct tfs *tfs_alloc(const char *root, const char *name)
{
	struct tfs *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->lockfd = -1;
	t->root = strdup(root);
	t->name = strdup(name);
	if (t->root && t->name && asprintf(&t->dir, "%s/instances/%s", root, name) >= 0)
		return t;
	t->dir = NULL;
	tfs_free(t);
	return NULL;
}

/* Is @name a session name with our pid, "ktap_<our pid>_<tag>"? */
static bool tfs_name_ours(const char *name)
{
	long pid;

	return tfs_parse_name(name, strlen(name), &pid) == TFS_SESSION &&
	       pid == (long)getpid();
}

/*
 * The instances directory, flock()ed with @how (LOCK_SH or LOCK_EX), or
 * -1/errno.  Creating an instance and taking its lock happen under
 * LOCK_SH, a sweep under LOCK_EX, so a sweep never sees an instance
 * that exists but is not locked yet.
 */
static int tfs_lock_instances(const char *root, int how)
{
	char *dir = tfs_join(root, "instances");
	int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1, e;

	free(dir);
	if (fd >= 0 && flock(fd, how) != 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/*
 * mkdir the instance and lock it (LOCK_EX on the directory itself, held
 * until ktap and its guardian are gone).  The name is new (random tag),
 * so an existing directory is a collision, not something to remove.
 */
static int tfs_mkdir(struct tfs *t, struct tfs_sink *sink)
{
	char shown[300];
	int ifd = tfs_lock_instances(t->root, LOCK_SH), e = 0;
	bool made = false;

	snprintf(shown, sizeof(shown), "instances/%s", t->name);
	if (ifd < 0 || mkdir(t->dir, 0750) != 0) {
		e = errno;
	} else {
		made = true;
		t->lockfd = open(t->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (t->lockfd < 0 || flock(t->lockfd, LOCK_EX | LOCK_NB) != 0)
			e = errno;
	}
	if (ifd >= 0)
		close(ifd);
	if (!e)
		return 0;
	if (made)
		rmdir(t->dir);
	if (e == ENOENT)
		tfs_sink_put(sink, "%s: tracefs has no instances directory "
			     "(is %s a tracefs mount?)", shown, t->root);
	else
		tfs_sink_put(sink, "%s: mkdir: %s", shown, strerror(e));
	errno = e;
	return -1;
}

/* trace_clock, buffer_size_kb, buffer_percent, tracing_on from @opt. */
static int tfs_configure(struct tfs *t, const struct tfs_options *opt)
{
	char num[32];

	if (tfs_write(t, "trace_clock", opt->clock ? opt->clock : "mono", false))
		return -1;
	if (opt->buffer_size_kb) {
		snprintf(num, sizeof(num), "%u", opt->buffer_size_kb);
		if (tfs_write(t, "buffer_size_kb", num, false))
			return -1;
	}
	if (opt->buffer_percent >= 0) {
		snprintf(num, sizeof(num), "%d", opt->buffer_percent);
		if (tfs_write(t, "buffer_percent", num, false))
			return -1;
	}
	return tfs_tracing_on(t, true);
}

struct tfs *tfs_create(const char *name, const struct tfs_options *opt,
		       char *err, size_t errlen)
{
	static const struct tfs_options defaults;
	struct tfs_sink sink = { err, errlen, false };
	const char *root;
	struct tfs *t;

	if (!opt)
		opt = &defaults;
	if (!tfs_name_ours(name)) {
		tfs_sink_put(&sink, "instances/%s: not ktap_<pid>_<tag> of this process", name);
		errno = EINVAL;
		return NULL;
	}
	root = tfs_find_root(opt->root);
	if (!root) {
		tfs_sink_put(&sink, "tracefs is not mounted "
			     "(mount -t tracefs nodev /sys/kernel/tracing)");
		errno = ENOENT;
		return NULL;
	}
	t = tfs_alloc(root, name);
	if (!t) {
		tfs_sink_put(&sink, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	if (tfs_mkdir(t, &sink) != 0) {
		tfs_free(t);
		return NULL;
	}
	if (tfs_configure(t, opt) != 0) {
		tfs_sink_put(&sink, "%s", t->err);
		tfs_destroy(t, NULL, 0);
		errno = EINVAL;
		return NULL;
	}
	return t;
}

/*
 * From a dynamic_events line "p:ktap_123_0a1b2c3d/name sym args" (any
 * kind letter, optional maxactive digits) take "GROUP/name" into @ge;
 * false for lines of groups that are not ktap's.  The group is the part
 * of @ge before the '/'.
 */
static bool tfs_dynevent_group(const char *line, char *ge, size_t len)
{
	const char *colon = strchr(line, ':'), *slash, *end;
	long pid;

	end = strchrnul(line, ' ');
	if (!colon || colon > end)
		return false;
	slash = memchr(colon, '/', (size_t)(end - colon));
	if (!slash || tfs_parse_name(colon + 1, (size_t)(slash - colon - 1), &pid) == TFS_FOREIGN)
		return false;
	snprintf(ge, len, "%.*s", (int)(end - colon - 1), colon + 1);
	return true;
}

/*
 * Remove the dynamic events of every ktap group for which @doomed(group,
 * ctx) is true; counts into @removed/@failed, messages into @sink.  An
 * event that is gone already (ENOENT: its owner or a sweep removed it
 * meanwhile) is not a failure.
 */
static void tfs_remove_dynevents(const char *root, bool (*doomed)(const char *group, void *ctx),
				 void *ctx, unsigned *removed, unsigned *failed,
				 struct tfs_sink *sink)
{
	char *text, *p, *line, ge[256], cmd[300], msg[TFS_ERRLEN];

	text = root ? tfs_slurp_at(root, "dynamic_events") : NULL;
	if (!text)	/* no dynamic events support: nothing to remove */
		return;
	for (p = text; *p; ) {
		line = p;
		p = strchrnul(p, '\n');
		if (*p)
			*p++ = '\0';
		if (!tfs_dynevent_group(line, ge, sizeof(ge)))
			continue;
		*strchr(ge, '/') = '\0';
		if (!doomed(ge, ctx))
			continue;
		ge[strlen(ge)] = '/';
		snprintf(cmd, sizeof(cmd), "-:%s\n", ge);
		if (tfs_write_explained(root, "dynamic_events", cmd, root,
					"dynamic_events", msg, sizeof(msg)) == 0) {
			(*removed)++;
		} else if (errno != ENOENT) {
			(*failed)++;
			tfs_sink_put(sink, "%s", msg);
		}
	}
	free(text);
}

static bool tfs_doomed_named(const char *group, void *ctx)
{
	return strcmp(group, ctx) == 0;
}

int tfs_destroy(struct tfs *t, char *err, size_t errlen)
{
	struct tfs_sink sink = { err, errlen, false };
	unsigned i, removed = 0, failed = 0;
	char shown[300];

	if (!t)
		return 0;
	if (tfs_put_at(t->dir, "tracing_on", "0") != 0 && errno != ENOENT)
		tfs_sink_put(&sink, "tracing_on: %s", strerror(errno));
	if (tfs_put_at(t->dir, "events/enable", "0") != 0 && errno != ENOENT)
		tfs_sink_put(&sink, "events/enable: %s", strerror(errno));
	for (i = 0; i < t->ntouched; i++)
		tfs_clear_event(t->dir, t->touched[i], &sink);
	snprintf(shown, sizeof(shown), "instances/%s", t->name);
	tfs_remove_dir(t->dir, shown, &sink);
	/* Our kprobe/uprobe events (group = our instance's name), once no
	   instance has them enabled any more. */
	tfs_remove_dynevents(t->root, tfs_doomed_named, t->name, &removed, &failed, &sink);
	tfs_free(t);	/* the lock goes last */
	return sink.set ? -1 : 0;
}

int tfs_lock_fd(const struct tfs *t)
{
	return t->lockfd;
}

/* ---- ownership and stale objects ---- */

/*
 * Whether the session @name (@len bytes) is alive.  A session's owner
 * (ktap, then its guardian) holds LOCK_EX on instances/NAME from before
 * the name is used until nothing of it is left, so a free lock proves
 * the owner dead whatever PID namespace it ran in: the lock lives in
 * tracefs, seen by every mount of it.  A session name without its
 * instance is dead too (an owner creates the instance first and removes
 * it first).  An older ktap's "ktap_<pid>" has no lock: its owner may be
 * alive in another PID namespace, so it is never proven dead.
 */
enum tfs_owner tfs_owner_of(const char *root, const char *name, size_t len)
{
	char *dir = NULL;
	long pid;
	int fd, e;

	switch (tfs_parse_name(name, len, &pid)) {
	case TFS_FOREIGN:
		return TFS_OWNER_NONE;
	case TFS_OLD:
		return tfs_pid_dead(pid) ? TFS_OWNER_UNKNOWN : TFS_OWNER_LIVE;
	case TFS_SESSION:
		break;
	}
	root = tfs_find_root(root);
	if (!root || asprintf(&dir, "%s/instances/%.*s", root, (int)len, name) < 0)
		return TFS_OWNER_UNKNOWN;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	e = errno;
	free(dir);
	if (fd < 0)
		return e == ENOENT ? TFS_OWNER_DEAD : TFS_OWNER_UNKNOWN;
	e = flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : errno;
	close(fd);	/* drops our lock, if we got it */
	return !e ? TFS_OWNER_DEAD : e == EWOULDBLOCK ? TFS_OWNER_LIVE : TFS_OWNER_UNKNOWN;
}

/* Remove the whole instances/@name (sweep, rmdir).  0 or -1 (@sink). */
static int tfs_remove_instance(const char *root, const char *name, struct tfs_sink *sink)
{
	char *dir = NULL, shown[300];
	int rc;

	if (asprintf(&dir, "%s/instances/%s", root, name) < 0)
		return -1;
	snprintf(shown, sizeof(shown), "instances/%s", name);
	/* Gone already (the usual case for a guardian): every step fails
	   with ENOENT, and rmdir's ENOENT is success. */
	tfs_sweep(dir, sink);
	rc = tfs_remove_dir(dir, shown, sink);
	free(dir);
	return rc;
}

int tfs_remove_session(const char *root, const char *name, char *err, size_t errlen)
{
	struct tfs_sink sink = { err, errlen, false };
	unsigned removed = 0, failed = 0;

	root = tfs_find_root(root);
	if (!root) {
		tfs_sink_put(&sink, "tracefs is not mounted");
		return -1;
	}
	tfs_remove_instance(root, name, &sink);
	tfs_remove_dynevents(root, tfs_doomed_named, (void *)name, &removed, &failed, &sink);
	return sink.set ? -1 : 0;
}

/* Note @name as a leftover whose owner cannot be proven dead. */
static void tfs_stale_unproven(struct tfs_stale *out, const char *name, size_t len)
{
	if (!out->unproven++)
		snprintf(out->first_unproven, sizeof(out->first_unproven), "%.*s",
			 (int)len, name);
}

/* Sweep instances/@name when its owner is proven dead. */
static void tfs_stale_instance(const char *root, const char *name, struct tfs_stale *out,
			       struct tfs_sink *sink)
{
	switch (tfs_owner_of(root, name, strlen(name))) {
	case TFS_OWNER_DEAD:
		if (tfs_remove_instance(root, name, sink) == 0)
			out->instances++;
		else
			out->failed++;
		break;
	case TFS_OWNER_UNKNOWN:
		tfs_stale_unproven(out, name, strlen(name));
		break;
	default:
		break;
	}
}

/* Context of the dynamic-event half of a sweep. */
struct tfs_dyn_sweep {
	const char *root;
	struct tfs_stale *out;
};

static bool tfs_doomed_dead(const char *group, void *ctx)
{
	struct tfs_dyn_sweep *ds = ctx;

	switch (tfs_owner_of(ds->root, group, strlen(group))) {
	case TFS_OWNER_DEAD:
		return true;
	case TFS_OWNER_UNKNOWN:
		tfs_stale_unproven(ds->out, group, strlen(group));
		return false;
	default:
		return false;
	}
}

/* The dynamic-event half of a sweep (under the instances lock). */
static void tfs_stale_dynevents(const char *root, struct tfs_stale *out,
				struct tfs_sink *sink)
{
	struct tfs_dyn_sweep ds = { root, out };

	tfs_remove_dynevents(root, tfs_doomed_dead, &ds, &out->dynevents, &out->failed, sink);
}

int tfs_cleanup_stale(const char *root, struct tfs_stale *out,
		      char *err, size_t errlen)
{
	struct tfs_sink sink = { err, errlen, false };
	char *insts;
	struct dirent *d;
	DIR *dp;
	int lock;

	memset(out, 0, sizeof(*out));
	root = tfs_find_root(root);
	if (!root) {
		tfs_sink_put(&sink, "tracefs is not mounted");
		return -1;
	}
	lock = tfs_lock_instances(root, LOCK_EX);
	insts = tfs_join(root, "instances");
	dp = insts && lock >= 0 ? opendir(insts) : NULL;
	free(insts);
	if (!dp) {
		tfs_sink_put(&sink, "instances: %s", strerror(errno));
		if (lock >= 0)
			close(lock);
		return -1;
	}
	while ((d = readdir(dp)) != NULL)
		tfs_stale_instance(root, d->d_name, out, &sink);
	closedir(dp);
	tfs_stale_dynevents(root, out, &sink);
	close(lock);
	if (out->failed)
		return -1;
	if (out->unproven) {
		char more[32] = "";

		if (out->unproven > 1)
			snprintf(more, sizeof(more), " (and %u more)", out->unproven - 1);
		tfs_sink_put(&sink, "%s%s: left by a ktap that may still run (in another "
			     "PID namespace, or an older ktap without ownership locks); "
			     "not removed", out->first_unproven, more);
	}
	return out->unproven ? 1 : 0;
}
