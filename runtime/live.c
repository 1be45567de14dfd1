/*
 * live.c - the live record source of pass 5 (see live.h).
 *
 * Live: remove what dead ktap sessions left behind, create the private
 * instance ktap_<pid>_<tag>, start its guardian (tfs_guard.h), apply the
 * plan's kernel objects in order (with $TARGET replaced by target();
 * kplan_apply.c), then open the reader on the instance.  Closing undoes
 * each object, then removes the instance.  Any failure undoes everything
 * before returning, so the kernel is left as it was found on every path;
 * a death that undoes nothing (SIGKILL) is the guardian's to clean up.
 */
#define _GNU_SOURCE
#include "live.h"
#include "fileio.h"
#include "kplan.h"
#include "reader.h"
#include "tfs.h"
#include "tfs_guard.h"
#include "tracedat_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char **names_new(const struct ir_prog *p, const char *session)
{
	char **names = calloc(p->nevents + 1, sizeof(*names));
	unsigned i;

	char *raw;

	for (i = 0; names && i < p->nevents; i++) {
		names[i] = NULL;
		if (asprintf(&raw, "%s/%s", p->events[i].system, p->events[i].name) >= 0) {
			names[i] = kp_expand(raw, &(struct kp_env){ .session = session });
			free(raw);
		}
	}
	return names;
}

void names_free(const struct ir_prog *p, char **names)
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
	const struct kp_plan *plan;	/* what live_arm() applied: */
	unsigned applied;		/* its first objects, undone at close */
	struct kp_env env;		/* session: the instance's name */
	int guard;			/* pipe to the guardian, -1: none */
	int *perf;			/* the plan's KP_PERF fds, held for the run */
	unsigned nperf;
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

static void live_perf_release(struct live *l);

void live_free(struct live *l)
{
	if (l)
		live_perf_release(l);
	free(l);
}

/* Open the plan's perf events (KP_PERF) before anything is applied, so
   every hit of their tracepoints goes through the iterator. */
static int live_perf_hold(struct live *l, const struct kp_plan *p)
{
	char err[TFS_ERRLEN];
	unsigned i;
	int fd;

	for (i = 0; i < p->n; i++) {
		if (p->objs[i].kind != KP_PERF)
			continue;
		if (!l->perf && !(l->perf = calloc(p->n, sizeof(*l->perf))))
			return -1;
		fd = kplan_perf_hold(&p->objs[i], tfs_root(l->tfs), err, sizeof(err));
		if (fd < 0) {
			fprintf(stderr, "ERROR: %s\n", err);
			return -1;
		}
		l->perf[l->nperf++] = fd;
	}
	return 0;
}

static void live_perf_release(struct live *l)
{
	while (l->nperf > 0)
		close(l->perf[--l->nperf]);
	free(l->perf);
	l->perf = NULL;
}

static int live_arm(struct live *l, const struct ir_prog *p, const struct kp_env *env)
{
	char err[TFS_ERRLEN], name[64];
	struct tfs_options to = { .root = l->opt.root };
	struct tfs_stale stale;

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
	l->plan = &p->kplan;
	l->env = *env;
	l->env.session = tfs_name(l->tfs);
	if (live_perf_hold(l, &p->kplan) != 0)
		return -1;
	l->applied = kplan_apply(&p->kplan, l->tfs, &l->env);
	return l->applied == p->kplan.n ? 0 : -1;
}

/* --record: what describes the records, from the armed instance. */
static int live_record_headers(struct live *l, char **names, unsigned n)
{
	char err[TDW_ERRLEN];

	if (tdw_headers(l->opt.record, tfs_instance_dir(l->tfs), (const char *const *)names,
			n, rdr_ncpus(l->rdr), rdr_subbuf_size(l->rdr), err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "ERROR: %s\n", err);
	return -1;
}

static struct rdr *live_open(void *ctx, const struct ir_prog *p, const struct kp_env *env)
{
	struct live *l = ctx;
	struct rdr_options ro = { .tap = l->opt.record ? tdw_page : NULL,
				  .tap_ctx = l->opt.record };
	char **names, err[TFS_ERRLEN];

	if (live_arm(l, p, env) != 0 || !(names = names_new(p, tfs_name(l->tfs))))
		return NULL;
	l->rdr = rdr_open_live(tfs_instance_dir(l->tfs), (const char *const *)names,
			       p->nevents, &ro, err, sizeof(err));
	if (!l->rdr)
		fprintf(stderr, "ERROR: %s\n", err);
	if (l->rdr && l->opt.record && live_record_headers(l, names, p->nevents) != 0) {
		rdr_close(l->rdr);
		l->rdr = NULL;
	}
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
	if (l->tfs && l->plan &&
	    kplan_undo(l->plan, l->applied, l->tfs, &l->env, err, sizeof(err)) != 0)
		fprintf(stderr, "WARNING: %s\n", err);
	l->plan = NULL;
	live_perf_release(l);
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
		    !(name = kp_expand(p->events[i].name, &l->env)))
			continue;
		missed[i] = live_profile_missed(profile, name);
		free(name);
	}
	free(profile);
}

/* A hist file of ktap's instance (run_hist.c reads it into the store). */
static char *live_read_hist(void *ctx, const char *system, const char *event, size_t *len)
{
	struct live *l = ctx;
	char *path, *text, *sys = l->tfs ? kp_expand(system, &l->env) : NULL;
	char *ev = sys ? kp_expand(event, &l->env) : NULL;

	if (!ev || asprintf(&path, "%s/events/%s/%s/hist", tfs_instance_dir(l->tfs),
			    sys, ev) < 0) {
		free(sys);
		free(ev);
		return NULL;
	}
	text = fio_read(path, len);
	free(path);
	free(sys);
	free(ev);
	return text;
}

/* ':clear' of a hist trigger (run_hist_clear()): to its trigger file. */
static int live_hist_cmd(void *ctx, const struct kp_obj *o, const char *line)
{
	struct live *l = ctx;
	struct kp_text t;
	char *text, *path;
	int rc = -1;

	if (!l->tfs || kp_render(o, &t) != 0)
		return -1;
	text = kp_expand(line, &l->env);
	path = kp_expand(t.path, &l->env);
	if (text && path && tfs_write(l->tfs, path, text, t.global) == 0)
		rc = 0;
	else
		fprintf(stderr, "WARNING: %s\n", tfs_error(l->tfs));
	free(text);
	free(path);
	kp_text_free(&t);
	return rc;
}

/* --record: the process table's names become the saved command lines. */
static void live_thread_name(void *ctx, int tid, const char *comm)
{
	struct live *l = ctx;

	tdw_comm(l->opt.record, tid, comm);
}

void live_source(struct live *l, struct run_source *src)
{
	*src = (struct run_source){ .open = live_open, .stop = live_stop,
				    .close = live_close, .missed = live_missed,
				    .read_hist = live_read_hist, .hist_cmd = live_hist_cmd,
				    .thread_name = l->opt.record ? live_thread_name : NULL,
				    .ctx = l };
}
