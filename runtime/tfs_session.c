/*
 * tfs_session.c - pass 5, kernel side: who owns a ktap object in tracefs,
 * and the removal of what dead sessions left (see tfs.h, tfs_int.h).
 *
 * In: instance and dynamic-event group names under instances/ and in
 * dynamic_events.  Out: an owner state per name (proven by the session's
 * flock on its instance directory), the removal of a finished or dead
 * session's instance and dynamic events, and the start-up sweep of
 * stale ones (tfs_cleanup_stale()).
 */
#define _GNU_SOURCE
#include "tfs.h"
#include "tfs_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <tracefs.h>

/* ---- session names ---- */

/* Classify @s (@len bytes); the pid in the name goes to *@pid. */
enum tfs_kind tfs_parse_name(const char *s, size_t len, long *pid)
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

const char *tfs_find_root(const char *root)
{
	return root ? root : tracefs_tracing_dir();
}

/*
 * The instances directory, flock()ed with @how (LOCK_SH or LOCK_EX), or
 * -1/errno.  Creating an instance and taking its lock happen under
 * LOCK_SH, a sweep under LOCK_EX, so a sweep never sees an instance
 * that exists but is not locked yet.
 */
int tfs_lock_instances(const char *root, int how)
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


/* ---- dynamic events ---- */

/*
 * The session that owns synthetic event @name, "ktap_<pid>_<tag>_...":
 * its length, or 0 when @name is not a session's (lower_latency.c names
 * them so; synthetic events all share the group "synthetic").
 */
static size_t tfs_synth_owner(const char *name, size_t len)
{
	const char *u;
	size_t n;
	long pid;

	if (len <= 5 || strncmp(name, "ktap_", 5) != 0 ||
	    !(u = memchr(name + 5, '_', len - 5)))
		return 0;
	n = (size_t)(u - name) + 1 + TFS_TAG_LEN;
	if (n >= len || name[n] != '_' || tfs_parse_name(name, n, &pid) != TFS_SESSION)
		return 0;
	return n;
}

/*
 * From a dynamic_events line "p:ktap_123_0a1b2c3d/name sym args" (any
 * kind letter, optional maxactive digits) take "GROUP/name" into @ge and
 * the owning session into @owner; false for lines that are not ktap's.
 * A synthetic event, "s:synthetic/ktap_123_0a1b2c3d_lat0 u64 lat", is
 * owned by the session its name starts with.
 */
static bool tfs_dynevent_group(const char *line, char *ge, size_t len,
			       char *owner, size_t olen)
{
	const char *colon = strchr(line, ':'), *slash, *end;
	size_t n;
	long pid;

	end = strchrnul(line, ' ');
	if (!colon || colon > end)
		return false;
	slash = memchr(colon, '/', (size_t)(end - colon));
	if (!slash)
		return false;
	if (line[0] == 's' && (size_t)(slash - colon - 1) == 9 &&
	    !strncmp(colon + 1, "synthetic", 9)) {
		n = tfs_synth_owner(slash + 1, (size_t)(end - slash - 1));
		if (!n)
			return false;
		snprintf(owner, olen, "%.*s", (int)n, slash + 1);
	} else if (tfs_parse_name(colon + 1, (size_t)(slash - colon - 1), &pid) == TFS_FOREIGN) {
		return false;
	} else {
		snprintf(owner, olen, "%.*s", (int)(slash - colon - 1), colon + 1);
	}
	snprintf(ge, len, "%.*s", (int)(end - colon - 1), colon + 1);
	return true;
}

/*
 * Remove the dynamic events of every ktap group for which @doomed(group,
 * ctx) is true; counts into @removed/@failed, messages into @sink.  An
 * event that is gone already (ENOENT: its owner or a sweep removed it
 * meanwhile) is not a failure.
 */
void tfs_remove_dynevents(const char *root, bool (*doomed)(const char *group, void *ctx),
				 void *ctx, unsigned *removed, unsigned *failed,
				 struct tfs_sink *sink)
{
	char *text, *p, *line, ge[256], owner[256], cmd[300], msg[TFS_ERRLEN];

	text = root ? tfs_slurp_at(root, "dynamic_events") : NULL;
	if (!text)	/* no dynamic events support: nothing to remove */
		return;
	for (p = text; *p; ) {
		line = p;
		p = strchrnul(p, '\n');
		if (*p)
			*p++ = '\0';
		if (!tfs_dynevent_group(line, ge, sizeof(ge), owner, sizeof(owner)) ||
		    !doomed(owner, ctx))
			continue;
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

bool tfs_doomed_named(const char *group, void *ctx)
{
	return strcmp(group, ctx) == 0;
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
