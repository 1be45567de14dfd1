/*
 * reader_tracedat.c - pass 5, the merged event stream (reader.h) of a
 * trace-cmd recording, read with libtracecmd: ktap -i FILE.
 *
 * libtracecmd reads the file (any version trace-cmd writes, compressed
 * or not) and hands out one CPU's records at a time; the reader merges
 * the CPUs as it merges live ones (reader.c's pull backend), so a
 * recording's records reach the handlers in the same (timestamp, cpu)
 * order as live records would.  The formats, the CPU count and the saved
 * command lines are the recording's: rdr_tep() is libtracecmd's handle.
 * Lost events are what the sub-buffer headers said (tep_record's
 * missed_events); a recording keeps no per-CPU stats ktap reads.
 */
#include "reader.h"
#include "reader_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trace-cmd.h>

struct rdr_td {
	struct tracecmd_input *in;
	struct tep_record **cur;	/* per CPU: the record handed out last */
	int ncpus;
};

/* Release CPU @cpu's last record: the head it was is delivered by now. */
static void rdr_td_release(struct rdr_td *td, int cpu)
{
	if (td->cur[cpu])
		tracecmd_free_record(td->cur[cpu]);
	td->cur[cpu] = NULL;
}

/* The pull backend (reader_int.h): the next listed record of @c. */
static int rdr_td_pull(struct rdr *r, struct rdr_cpu *c)
{
	struct rdr_td *td = r->backend;
	struct tep_record *rec;

	for (;;) {
		rdr_td_release(td, c->cpu);
		rec = tracecmd_read_data(td->in, c->cpu);
		if (!rec) {
			c->done = true;
			return 0;
		}
		td->cur[c->cpu] = rec;
		/* > 0: that many lost before this record; < 0: some */
		if (rec->missed_events > 0)
			c->missed += (uint64_t)rec->missed_events;
		else if (rec->missed_events < 0)
			c->missed++;
		if (rdr_listed(r, rec->data, rec->size) < 0) {
			r->st.unknown++;
			continue;
		}
		c->head = rec->data;
		c->head_size = rec->size;
		c->head_ts = rec->ts;
		c->has_head = true;
		return 1;
	}
}

/* The backend's close: its records, then the handle (and its tep). */
static void rdr_td_close(struct rdr *r)
{
	struct rdr_td *td = r->backend;
	int i;

	if (!td)
		return;
	for (i = 0; td->cur && i < td->ncpus; i++)
		rdr_td_release(td, i);
	free(td->cur);
	if (td->in) {
		tracecmd_close(td->in);
		r->tep = NULL;	/* it was the handle's */
	}
	free(td);
	r->backend = NULL;
}

static int rdr_td_setup(struct rdr *r, const char *file, const char *const *events,
			unsigned n)
{
	struct rdr_td *td = calloc(1, sizeof(*td));
	int i;

	if (!td) {
		rdr_fail(r, "out of memory");
		return -1;
	}
	r->backend = td;
	r->backend_close = rdr_td_close;
	tracecmd_set_loglevel(TEP_LOG_NONE);
	td->in = tracecmd_open(file, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!td->in) {
		rdr_fail(r, "%s: not a trace-cmd recording libtracecmd can read", file);
		return -1;
	}
	tep_free(r->tep);	/* rdr_alloc()'s: the recording has its own */
	r->tep = tracecmd_get_tep(td->in);
	r->swap = tep_is_file_bigendian(r->tep) != tep_is_local_bigendian(r->tep);
	r->first_ts = tracecmd_get_first_ts(td->in);
	td->ncpus = tep_get_cpus(r->tep);
	td->cur = calloc((size_t)(td->ncpus > 0 ? td->ncpus : 1), sizeof(*td->cur));
	if (!td->cur || rdr_load_events(r, NULL, NULL, events, n) != 0 ||
	    rdr_alloc_cpus(r, td->ncpus) != 0)
		return -1;
	r->pull = rdr_td_pull;
	for (i = 0; i < td->ncpus; i++)
		r->cpus[i].done = false;
	return 0;
}

struct rdr *rdr_open_tracedat(const char *file, const char *const *events,
			      unsigned nevents, const struct rdr_options *opt,
			      char *err, size_t errlen)
{
	struct rdr *r = rdr_alloc(file, false, false, opt);

	if (!r) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return NULL;
	}
	return rdr_opened(r, rdr_td_setup(r, file, events, nevents), err, errlen);
}
