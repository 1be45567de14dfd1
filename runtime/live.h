/*
 * live.h - pass 5, kernel side of a live run: ktap's own tracefs
 * instance armed with the plan's writes, and a reader on it.
 *
 * run.c stays free of tracefs: it asks a struct run_source for a reader
 * once it knows target() (the -c child's pid is only known after the
 * fork), tells it when to stop recording, and closes it.  This file is
 * the live implementation; recordings are recorded.h's.
 */
#ifndef KTAP_RT_LIVE_H
#define KTAP_RT_LIVE_H

#include "run.h"

struct tdw;

struct live_options {
	const char *root;		/* tracing dir, NULL: the mounted tracefs */
	unsigned verbose;
	struct tdw *record;		/* --record: every sub-buffer read goes
					   there too (tracedat_write.h); or NULL */
};

/* Fill @src with the live source; @ctx must outlive the run. */
struct live;
struct live *live_new(const struct live_options *opt);
void live_source(struct live *l, struct run_source *src);
void live_free(struct live *l);

/* "system/event" of every event of @p, in index order, for session
   @session (NULL: a recording); free with names_free(). */
char **names_new(const struct ir_prog *p, const char *session);
void names_free(const struct ir_prog *p, char **names);


#endif
