/*
 * tracedat.c - the -i record source (see tracedat.h).
 */
#define _GNU_SOURCE
#include "tracedat.h"
#include "live.h"
#include "reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

struct tracedat {
	char *file;
	struct rdr *rdr;
};

struct tracedat *tracedat_new(const char *file)
{
	struct tracedat *t = calloc(1, sizeof(*t));

	if (t && !(t->file = strdup(file))) {
		free(t);
		return NULL;
	}
	return t;
}

void tracedat_free(struct tracedat *t)
{
	if (t)
		free(t->file);
	free(t);
}

static struct rdr *tracedat_open(void *ctx, const struct ir_prog *p, int target)
{
	struct tracedat *t = ctx;
	char **names = names_new(p, NULL), err[1024];

	(void)target;
	if (!names)
		return NULL;
	t->rdr = rdr_open_tracedat(t->file, (const char *const *)names, p->nevents,
				   NULL, err, sizeof(err));
	if (!t->rdr)
		fprintf(stderr, "ERROR: %s\n", err);
	names_free(p, names);
	return t->rdr;
}

static void tracedat_close(void *ctx)
{
	struct tracedat *t = ctx;

	rdr_close(t->rdr);
	t->rdr = NULL;
}

/* The recording's time line (run_source.now). */
static uint64_t tracedat_now(void *ctx)
{
	struct tracedat *t = ctx;

	return t->rdr ? rdr_now(t->rdr) : 0;
}

/* The recording's saved command line of @tid (run_source.comm); "<...>"
   when it saved none, as trace-cmd report prints it. */
static const char *tracedat_comm(void *ctx, int tid)
{
	struct tracedat *t = ctx;

	return t->rdr ? tep_data_comm_from_pid(rdr_tep(t->rdr), tid) : NULL;
}

void tracedat_source(struct tracedat *t, struct run_source *src)
{
	*src = (struct run_source){ .open = tracedat_open, .close = tracedat_close,
				    .now = tracedat_now, .comm = tracedat_comm, .ctx = t };
}
