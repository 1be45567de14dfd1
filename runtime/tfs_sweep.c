/*
 * tfs_sweep.c - pass 5, kernel side: writing tracefs files and clearing
 * what a session put there (see tfs_int.h).
 *
 * In: tracefs paths and texts.  Out: writes whose failures quote the
 * kernel's error_log ("PATH: MESSAGE", the text, a caret), and the
 * removal of an event's triggers and filter, of every event of an
 * instance (a sweep) and of the instance directory.  tfs.c (a session's
 * own instance) and tfs_session.c (dead sessions' leftovers) share them.
 */
#define _GNU_SOURCE
#include "tfs.h"
#include "tfs_int.h"
#include "fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Passes over a trigger file: triggers may depend on one another. */
#define TFS_TRIGGER_PASSES 8

/* ---- small helpers ---- */

/* Record an error unless an earlier one is already there. */
void tfs_sink_put(struct tfs_sink *s, const char *fmt, ...)
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
char *tfs_join(const char *a, const char *b)
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
int tfs_put_at(const char *dir, const char *rel, const char *text)
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
char *tfs_slurp_at(const char *dir, const char *rel)
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
int tfs_write_explained(const char *dir, const char *rel, const char *text,
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
void tfs_clear_event(const char *dir, const char *rel, struct tfs_sink *sink)
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
void tfs_sweep(const char *dir, struct tfs_sink *sink)
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
int tfs_remove_dir(const char *dir, const char *shown, struct tfs_sink *sink)
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
