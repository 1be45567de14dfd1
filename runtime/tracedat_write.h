/*
 * tracedat_write.h - pass 5: ktap --record FILE, the events a live run
 * reads written as a trace-cmd recording (trace.dat, version 6 as
 * trace-cmd.dat.v6(5) describes it) that trace-cmd report, KernelShark
 * and ktap -i open.
 *
 * libtracecmd 3.1.6 has no public call that writes a file, so the file is
 * written here; what goes in is exactly what the live reader consumed:
 * every sub-buffer it read from the instance's per_cpu/cpuN/trace_pipe_raw
 * (rdr_options.tap), unchanged, per CPU in read order, with the formats of
 * the plan's events, the instance's header_page/header_event and trace
 * clock, and the names ktap's process table gave each thread as the
 * saved command lines.  ktap -i of the file therefore sees the same
 * records with the same names.
 *
 * Use: tdw_new() before the run; tdw_headers() once the instance is
 * armed; tdw_page() for each sub-buffer read; tdw_comm() for each thread
 * at the end; tdw_finish() writes the file; tdw_free().
 */
#ifndef KTAP_RT_TRACEDAT_WRITE_H
#define KTAP_RT_TRACEDAT_WRITE_H

#include <stddef.h>

#define TDW_ERRLEN 1024

struct tdw;

/*
 * tdw_new - a recording to be written to @path (created now, so that a
 * path that cannot be written fails before the run).  NULL with a
 * message in @err.
 */
struct tdw *tdw_new(const char *path, char *err, size_t errlen);

/*
 * tdw_headers - copy what describes the records from instance directory
 * @dir: events/header_page, events/header_event, trace_clock and the
 * format of each of the @n events @names ("system/event"), for @ncpus
 * CPUs whose sub-buffers are @subbuf_size bytes.  0, or -1 with a
 * message in @err.
 */
int tdw_headers(struct tdw *w, const char *dir, const char *const *names, unsigned n,
		int ncpus, int subbuf_size, char *err, size_t errlen);

/*
 * tdw_page - one sub-buffer (@size bytes) read from CPU @cpu; the
 * signature of rdr_options.tap, @ctx is the struct tdw.  A write error
 * is kept for tdw_finish().
 */
void tdw_page(void *ctx, int cpu, const void *page, size_t size);

/* tdw_comm - thread @tid is named @comm (the saved command lines). */
void tdw_comm(void *ctx, int tid, const char *comm);

/* tdw_finish - write the file.  0, or -1 with a message in @err. */
int tdw_finish(struct tdw *w, char *err, size_t errlen);

/* tdw_free - free @w (NULL is a no-op); an unfinished file is removed. */
void tdw_free(struct tdw *w);

#endif
