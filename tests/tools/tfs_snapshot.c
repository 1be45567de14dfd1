/*
 * tfs_snapshot.c - a text dump of the tracefs state that a ktap run must
 * leave unchanged (see tfs_snapshot.h).  Test code: linked into
 * tests/tools/ktap-tfs-snapshot and tests/live/test_tfs_live only.
 */
#define _GNU_SOURCE
#include "tfs_snapshot.h"
#include "../../runtime/fileio.h"
#include "../../runtime/tfs.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

/* "a/b" in a new string, or NULL (ENOMEM). */
static char *snap_join(const char *a, const char *b)
{
	char *p;

	if (asprintf(&p, "%s/%s", a, b) < 0)
		return NULL;
	return p;
}

/* The whole file "@dir/@rel", or NULL/errno. */
static char *snap_slurp_at(const char *dir, const char *rel)
{
	char *path = snap_join(dir, rel), *s;
	int e;

	if (!path)
		return NULL;
	s = fio_read(path, NULL);
	e = errno;
	free(path);
	errno = e;
	return s;
}

/* Is @name a subdirectory entry (not ".", not ".." and not a file)? */
static bool snap_is_subdir(const struct dirent *d)
{
	if (d->d_name[0] == '.')
		return false;
	return d->d_type == DT_DIR || d->d_type == DT_UNKNOWN;
}

/* Append @s to the growing string *@buf (length *@len).  -1 on ENOMEM. */
static int snap_cat(char **buf, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int snap_cat(char **buf, size_t *len, const char *fmt, ...)
{
	va_list ap;
	char *s, *nb;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	nb = realloc(*buf, *len + (size_t)n + 1);
	if (!nb) {
		free(s);
		return -1;
	}
	memcpy(nb + *len, s, (size_t)n + 1);
	*buf = nb;
	*len += (size_t)n;
	free(s);
	return 0;
}

/* A file's content (or "<errno message>") after "@label: ". */
static int snap_cat_file(char **buf, size_t *len, const char *root,
			const char *rel, const char *label)
{
	char *s = snap_slurp_at(root, rel);
	int rc;

	if (!s)
		return snap_cat(buf, len, "%s: <%s>\n", label, strerror(errno));
	rc = snap_cat(buf, len, "%s: %s%s", label, s,
		     *s && s[strlen(s) - 1] == '\n' ? "" : "\n");
	free(s);
	return rc;
}

static int snap_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted subdirectory names of @dir (NULL-terminated, malloc'd). */
static char **snap_list_dirs(const char *dir)
{
	char **v = NULL, **nv;
	size_t n = 0, cap = 0;
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return NULL;
	while ((d = readdir(dp)) != NULL) {
		if (!snap_is_subdir(d))
			continue;
		if (n + 2 > cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[n] = strdup(d->d_name);
		if (v[n])
			n++;
	}
	closedir(dp);
	if (!v)
		v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	qsort(v, n, sizeof(*v), snap_cmp_str);
	v[n] = NULL;
	return v;
}

static void snap_free_list(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* Is @s (a file's content) in its default state for @file? */
static bool snap_default_state(const char *file, const char *s)
{
	const char *p;

	if (!strcmp(file, "enable"))
		return !strcmp(s, "0\n");
	if (!strcmp(file, "filter"))
		return !strcmp(s, "none\n");
	/* A trigger file without triggers has only "# ..." help lines. */
	for (p = s; *p; ) {
		if (*p != '#' && *p != '\n')
			return false;
		p = strchrnul(p, '\n');
		if (*p)
			p++;
	}
	return true;
}

/* Non-default enable/filter/trigger of events/@sys/@ev. */
static int snap_event(char **buf, size_t *len, const char *root,
			  const char *sys, const char *ev)
{
	static const char *const files[] = { "enable", "filter", "trigger" };
	char rel[512], *s;
	unsigned i;
	int rc = 0;

	for (i = 0; i < 3 && rc == 0; i++) {
		snprintf(rel, sizeof(rel), "events/%s/%s/%s", sys, ev, files[i]);
		s = snap_slurp_at(root, rel);
		if (s && !snap_default_state(files[i], s))
			rc = snap_cat(buf, len, "%s: %s", rel, s);
		free(s);
	}
	return rc;
}

/* Every event's non-default state. */
static int snap_events(char **buf, size_t *len, const char *root)
{
	char *evroot = snap_join(root, "events"), *sysdir, **sys, **ev;
	size_t i, j;
	int rc = 0;

	sys = evroot ? snap_list_dirs(evroot) : NULL;
	for (i = 0; sys && sys[i] && rc == 0; i++) {
		sysdir = snap_join(evroot, sys[i]);
		ev = sysdir ? snap_list_dirs(sysdir) : NULL;
		for (j = 0; ev && ev[j] && rc == 0; j++)
			rc = snap_event(buf, len, root, sys[i], ev[j]);
		snap_free_list(ev);
		free(sysdir);
	}
	snap_free_list(sys);
	free(evroot);
	return rc;
}

/*
 * Objects of a ktap session that is running now (its lock is held) are
 * that run's business, not state a finished run left: the snapshot
 * leaves them out, so that tests comparing snapshots can run in parallel
 * with other ktap runs.  A session whose owner is gone shows.
 */
static bool snap_foreign_live(const char *root, const char *name, size_t len)
{
	return tfs_owner_of(root, name, len) == TFS_OWNER_LIVE;
}

/* "instances: a b c" */
static int snap_instances(char **buf, size_t *len, const char *root)
{
	char *dir = snap_join(root, "instances"), **v;
	size_t i;
	int rc;

	v = dir ? snap_list_dirs(dir) : NULL;
	free(dir);
	rc = snap_cat(buf, len, "instances:");
	for (i = 0; v && v[i] && rc == 0; i++)
		if (!snap_foreign_live(root, v[i], strlen(v[i])))
			rc = snap_cat(buf, len, " %s", v[i]);
	snap_free_list(v);
	return rc ? rc : snap_cat(buf, len, "\n");
}

/* "dynamic_events: ..." without the lines of other running ktaps. */
static int snap_dynevents(char **buf, size_t *len, const char *root)
{
	char *text = snap_slurp_at(root, "dynamic_events"), *p, *line, *group, *slash;
	int rc;

	if (!text)
		return snap_cat(buf, len, "dynamic_events: <%s>\n", strerror(errno));
	rc = snap_cat(buf, len, "dynamic_events: ");
	for (p = text; rc == 0 && (line = strsep(&p, "\n")) != NULL;) {
		if (!*line)
			continue;
		/* "p:GROUP/EVENT ..." or "r4:GROUP/EVENT ..." */
		group = strchr(line, ':');
		slash = group ? strchr(group, '/') : NULL;
		if (slash && snap_foreign_live(root, group + 1, (size_t)(slash - group - 1)))
			continue;
		rc = snap_cat(buf, len, "%s\n", line);
	}
	free(text);
	return rc ? rc : snap_cat(buf, len, "\n");
}

char *tfs_snapshot(const char *root)
{
	static const char *const top[] = {
		"tracing_on", "current_tracer", "buffer_size_kb", "trace_clock",
		"set_event",
	};
	char *buf = NULL;
	size_t len = 0, i;
	int rc;

	root = root ? root : tracefs_tracing_dir();
	if (!root) {
		errno = ENOENT;
		return NULL;
	}
	rc = snap_instances(&buf, &len, root);
	for (i = 0; i < sizeof(top) / sizeof(top[0]) && rc == 0; i++)
		rc = snap_cat_file(&buf, &len, root, top[i], top[i]);
	if (rc == 0)
		rc = snap_events(&buf, &len, root);
	if (rc == 0)
		rc = snap_dynevents(&buf, &len, root);
	if (rc != 0) {
		free(buf);
		errno = ENOMEM;
		return NULL;
	}
	return buf;
}
