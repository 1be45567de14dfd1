/*
 * tracedat.h - pass 5's record source for ktap -i FILE: a trace-cmd
 * recording (trace.dat) read with libtracecmd (reader_tracedat.c)
 * instead of ktap's tracefs instance.  Nothing is created in a kernel;
 * timers, -T and exit() run on the recording's clock (run_source.now)
 * and execname() is the recording's saved command line for the thread
 * (run_source.comm).  doc/trace-cmd.md says what a recording can and
 * cannot answer.
 */
#ifndef KTAP_RT_TRACEDAT_H
#define KTAP_RT_TRACEDAT_H

#include "run.h"

struct tracedat;

/* A source over @file (copied); NULL: out of memory.  The file is opened
   by the source's open(), where its errors are reported. */
struct tracedat *tracedat_new(const char *file);

/* Fill @src with it; @t must outlive the run. */
void tracedat_source(struct tracedat *t, struct run_source *src);

/* Free @t (NULL is a no-op). */
void tracedat_free(struct tracedat *t);

#endif
