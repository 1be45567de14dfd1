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
 *
 * This file makes, writes and destroys a session's own instance; the
 * explained writes and the clearing of events are in tfs_sweep.c, names,
 * ownership and dead sessions' leftovers in tfs_session.c.
 */
#define _GNU_SOURCE
#include "tfs.h"
#include "tfs_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct tfs {
	char *root;		/* tracing dir */
	char *name;		/* ktap_<pid> */
	char *dir;		/* root/instances/name */
	int lockfd;		/* the instance directory, flock()ed: ours */
	char **touched;		/* "events/SYS/EVENT" written by tfs_write */
	unsigned ntouched, tcap;
	char err[TFS_ERRLEN];
};


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

int tfs_clear_pids(struct tfs *t)
{
	char *path = tfs_join(t->dir, "set_event_pid");
	int fd = path ? open(path, O_WRONLY | O_TRUNC | O_CLOEXEC) : -1;

	free(path);
	if (fd < 0 || close(fd) != 0) {
		snprintf(t->err, sizeof(t->err), "set_event_pid: %s", strerror(errno));
		return -1;
	}
	return 0;
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
