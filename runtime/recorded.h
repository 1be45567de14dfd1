/*
 * recorded.h - pass 5's record sources over recordings instead of
 * ktap's tracefs instance (live.h): nothing is created in a kernel.
 *
 *   a trace-cmd recording (ktap -i FILE, a trace.dat) read with
 *   libtracecmd (reader_tracedat.c): timers, -T and exit() run on the
 *   recording's clock (run_source.now) and execname() is its saved
 *   command line for the thread (run_source.comm); doc/trace-cmd.md
 *   says what a recording can and cannot answer;
 *
 *   a recorded directory (--replay DIR, tests: reader.h's layout,
 *   tests/tools/ktap-record), whose records are handled as they come.
 */
#ifndef KTAP_RT_RECORDED_H
#define KTAP_RT_RECORDED_H

#include <stdbool.h>

#include "run.h"

struct recorded;

/* A source over trace.dat @path (@tracedat) or recorded directory
   @path (copied); NULL: out of memory.  The recording is opened by the
   source's open(), where its errors are reported. */
struct recorded *recorded_new(const char *path, bool tracedat);

/* Fill @src with it; @rc must outlive the run. */
void recorded_source(struct recorded *rc, struct run_source *src);

/* Free @rc (NULL is a no-op). */
void recorded_free(struct recorded *rc);

#endif
