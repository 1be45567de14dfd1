/*
 * recorded.c - the record sources of recordings (see recorded.h).
 */
#define _GNU_SOURCE
#include "recorded.h"
#include "live.h"
#include "reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

struct recorded {
	char *path;
	bool tracedat;		/* a trace.dat, else a recorded directory */
	struct rdr *rdr;
};

struct recorded *recorded_new(const char *path, bool tracedat)
{
	struct recorded *rc = calloc(1, sizeof(*rc));

	if (rc && !(rc->path = strdup(path))) {
		free(rc);
		return NULL;
	}
	if (rc)
		rc->tracedat = tracedat;
	return rc;
}

void recorded_free(struct recorded *rc)
{
	if (rc)
		free(rc->path);
	free(rc);
}

static struct rdr *recorded_open(void *ctx, const struct ir_prog *p, const struct kp_env *env)
{
	struct recorded *rc = ctx;
	char **names = names_new(p, NULL), err[1024];
	const char *const *n = (const char *const *)names;

	(void)env;
	if (!names)
		return NULL;
	rc->rdr = rc->tracedat ?
		  rdr_open_tracedat(rc->path, n, p->nevents, NULL, err, sizeof(err)) :
		  rdr_open_replay(rc->path, n, p->nevents, NULL, err, sizeof(err));
	if (!rc->rdr)
		fprintf(stderr, "ERROR: %s\n", err);
	names_free(p, names);
	return rc->rdr;
}

static void recorded_close(void *ctx)
{
	struct recorded *rc = ctx;

	rdr_close(rc->rdr);
	rc->rdr = NULL;
}

/* The recording's time line (run_source.now). */
static uint64_t recorded_now(void *ctx)
{
	struct recorded *rc = ctx;

	return rc->rdr ? rdr_now(rc->rdr) : 0;
}

/* The recording's saved command line of @tid (run_source.comm); "<...>"
   when it saved none, as trace-cmd report prints it. */
static const char *recorded_comm(void *ctx, int tid)
{
	struct recorded *rc = ctx;

	return rc->rdr ? tep_data_comm_from_pid(rdr_tep(rc->rdr), tid) : NULL;
}

void recorded_source(struct recorded *rc, struct run_source *src)
{
	*src = (struct run_source){ .open = recorded_open, .close = recorded_close,
				    .ctx = rc };
	if (rc->tracedat) {
		src->now = recorded_now;
		src->comm = recorded_comm;
	}
}
