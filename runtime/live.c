/*
 * live.c - the live and replay record sources of pass 5 (see live.h).
 *
 * Live: remove what dead ktap sessions left behind, create the private
 * instance ktap_<pid>_<tag>, start its guardian (tfs_guard.h), perform
 * the plan's writes in order (with $TARGET replaced by target()), then
 * open the reader on the instance.  Any failure undoes everything before
 * returning, so the kernel is left as it was found on every path; a
 * death that undoes nothing (SIGKILL) is the guardian's to clean up.
 */
#define _GNU_SOURCE
#include "live.h"
#include "fileio.h"
#include "reader.h"
#include "tfs.h"
#include "tfs_guard.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "system/event" of every event of @p, in index order, for session
   @session (NULL: a replay); free with names_free(). */
static char **names_new(const struct ir_prog *p, const char *session)
{
	char **names = calloc(p->nevents + 1, sizeof(*names));
	unsigned i;

	char *raw;

	for (i = 0; names && i < p->nevents; i++) {
		names[i] = NULL;
		if (asprintf(&raw, "%s/%s", p->events[i].system, p->events[i].name) >= 0) {
			names[i] = live_expand(raw, 0, session);
			free(raw);
		}
	}
	return names;
}

static void names_free(const struct ir_prog *p, char **names)
{
	unsigned i;

	for (i = 0; names && i < p->nevents; i++)
		free(names[i]);
	free(names);
}

struct live {
	struct live_options opt;
	struct tfs *tfs;
	struct rdr *rdr;
	int guard;			/* pipe to the guardian, -1: none */
};

struct live *live_new(const struct live_options *opt)
{
	struct live *l = calloc(1, sizeof(*l));

	if (l && opt)
		l->opt = *opt;
	if (l)
		l->guard = -1;
	return l;
}

void live_free(struct live *l)
{
	free(l);
}

/*
 * @text with the plan's placeholders replaced: $TARGET by target(),
 * $KTAP by ktap's own pid (filters), $PID by what follows "ktap_" in
 * @session (the plan names the instance and dynamic-event group
 * ktap_$PID), or by the pid when @session is NULL.  Returns a malloc'd
 * string (NULL: out of memory).
 */
char *live_expand(const char *text, int target, const char *session)
{
	size_t len = strlen(text) + 1, n = 0;
	char *out = malloc(len + 64), *grown;
	int k;

	while (out && *text) {
		if (n + 48 > len + 64) {
			len *= 2;
			grown = realloc(out, len + 64);
			if (!grown) {
				free(out);
				return NULL;
			}
			out = grown;
		}
		k = !strncmp(text, "$TARGET", 7) ? 7 : !strncmp(text, "$KTAP", 5) ? 5 :
		    !strncmp(text, "$PID", 4) ? 4 : 0;
		if (!k) {
			out[n++] = *text++;
			continue;
		}
		if (k == 4 && session && strlen(session) < 40)
			n += (size_t)sprintf(out + n, "%s", session + 5);
		else
			n += (size_t)sprintf(out + n, "%d", k == 7 ? target : (int)getpid());
		text += k;
	}
	if (out)
		out[n] = '\0';
	return out;
}

/*
 * The kernel refused write @w: say which probe it was for and, when the
 * kernel lacks the feature altogether, which one.
 */
static void live_refused(struct live *l, const struct ir_write *w)
{
	const char *why = "";

	if (w->global && errno == ENOENT && !strcmp(w->path, "kprobe_events"))
		why = " (this kernel has no kprobe events: CONFIG_KPROBE_EVENTS)";
	else if (w->global && errno == ENOENT && !strcmp(w->path, "uprobe_events"))
		why = " (this kernel has no uprobe events: CONFIG_UPROBE_EVENTS)";
	if (w->origin)
		fprintf(stderr, "ERROR: %s: the kernel refused the probe%s\n", w->origin, why);
	fprintf(stderr, "ERROR: %s\n", tfs_error(l->tfs));
}

static int live_arm(struct live *l, const struct ir_prog *p, int target)
{
	char err[TFS_ERRLEN], name[64];
	struct tfs_options to = { .root = l->opt.root };
	struct tfs_stale stale;
	unsigned i;

	if (tfs_cleanup_stale(l->opt.root, &stale, err, sizeof(err)) != 0)
		fprintf(stderr, "WARNING: %s\n", err);
	if (l->opt.verbose && (stale.instances || stale.dynevents))
		fprintf(stderr, "Removed %u stale instances and %u dynamic events\n",
			stale.instances, stale.dynevents);
	tfs_unique_name(name, sizeof(name));
	l->tfs = tfs_create(name, &to, err, sizeof(err));
	if (!l->tfs) {
		fprintf(stderr, "ERROR: %s\n", err);
		return -1;
	}
	l->guard = tfs_guard_start(l->tfs);
	if (l->guard < 0) {
		fprintf(stderr, "ERROR: cannot start the session's guardian: %s\n",
			strerror(errno));
		return -1;
	}
	for (i = 0; i < p->nwrites; i++) {
		const struct ir_write *w = &p->writes[i];
		char *path = live_expand(w->path, target, name);
		char *text = live_expand(w->text, target, name);
		int rc = path && text ? tfs_write(l->tfs, path, text, w->global) : -1;

		free(path);
		free(text);
		if (rc != 0) {
			live_refused(l, w);
			return -1;
		}
	}
	return 0;
}

static struct rdr *live_open(void *ctx, const struct ir_prog *p, int target)
{
	struct live *l = ctx;
	char **names, err[TFS_ERRLEN];

	if (live_arm(l, p, target) != 0 || !(names = names_new(p, tfs_name(l->tfs))))
		return NULL;
	l->rdr = rdr_open_live(tfs_instance_dir(l->tfs), (const char *const *)names,
			       p->nevents, NULL, err, sizeof(err));
	if (!l->rdr)
		fprintf(stderr, "ERROR: %s\n", err);
	names_free(p, names);
	return l->rdr;
}

static void live_stop(void *ctx)
{
	struct live *l = ctx;

	if (l->tfs && tfs_tracing_on(l->tfs, false) != 0)
		fprintf(stderr, "WARNING: %s\n", tfs_error(l->tfs));
}

static void live_close(void *ctx)
{
	struct live *l = ctx;
	char err[TFS_ERRLEN];

	rdr_close(l->rdr);
	l->rdr = NULL;
	if (l->tfs && tfs_destroy(l->tfs, err, sizeof(err)) != 0)
		fprintf(stderr, "WARNING: %s\n", err);
	l->tfs = NULL;
	/* Nothing is left for the guardian: it sees EOF and exits. */
	if (l->guard >= 0)
		close(l->guard);
	l->guard = -1;
}

/* Missed hits of @name in kprobe_profile ("  NAME HITS MISSED"); -1 if
   absent or ambiguous (the file names events without their group). */
static int64_t live_profile_missed(const char *profile, const char *name)
{
	const char *line = profile;
	int64_t missed = -1;
	unsigned long long hits, m;
	char ev[256];

	while (line && *line) {
		if (sscanf(line, "%255s %llu %llu", ev, &hits, &m) == 3 && !strcmp(ev, name)) {
			if (missed >= 0)
				return -1;
			missed = (int64_t)m;
		}
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return missed;
}

/* Read kprobe_profile once for every kprobe event of the plan. */
static void live_missed(void *ctx, const struct ir_prog *p, int64_t *missed)
{
	struct live *l = ctx;
	char *path = NULL, *profile = NULL, *name;
	unsigned i;

	for (i = 0; i < p->nevents; i++)
		missed[i] = -1;
	if (!l->tfs || asprintf(&path, "%s/kprobe_profile", tfs_root(l->tfs)) < 0)
		return;
	profile = fio_read(path, NULL);
	free(path);
	for (i = 0; profile && i < p->nevents; i++) {
		if (!p->events[i].kprobe_pp ||
		    !(name = live_expand(p->events[i].name, 0, tfs_name(l->tfs))))
			continue;
		missed[i] = live_profile_missed(profile, name);
		free(name);
	}
	free(profile);
}

void live_source(struct live *l, struct run_source *src)
{
	*src = (struct run_source){ .open = live_open, .stop = live_stop,
				    .close = live_close, .missed = live_missed, .ctx = l };
}

/* ---- replay ---- */

struct replay {
	char *dir;
	struct rdr *rdr;
};

struct replay *replay_new(const char *dir)
{
	struct replay *rp = calloc(1, sizeof(*rp));

	if (rp && !(rp->dir = strdup(dir))) {
		free(rp);
		return NULL;
	}
	return rp;
}

void replay_free(struct replay *rp)
{
	if (rp)
		free(rp->dir);
	free(rp);
}

static struct rdr *replay_open(void *ctx, const struct ir_prog *p, int target)
{
	struct replay *rp = ctx;
	char **names = names_new(p, NULL), err[1024];

	(void)target;
	if (!names)
		return NULL;
	rp->rdr = rdr_open_replay(rp->dir, (const char *const *)names, p->nevents,
				  NULL, err, sizeof(err));
	if (!rp->rdr)
		fprintf(stderr, "ERROR: %s\n", err);
	names_free(p, names);
	return rp->rdr;
}

static void replay_close(void *ctx)
{
	struct replay *rp = ctx;

	rdr_close(rp->rdr);
	rp->rdr = NULL;
}

void replay_source(struct replay *rp, struct run_source *src)
{
	*src = (struct run_source){ .open = replay_open, .close = replay_close, .ctx = rp };
}
