/*
 * run_fields.h - pass 5: the record fields the probes read.
 *
 * Each probe on an event (and each trigger probe, ir_probe.trigger)
 * reads the fields its code names (FIELD a), resolved once to the
 * reader's handles; $$parms reads every field of the record's event,
 * listed at its first use.
 */
#ifndef KTAP_RT_RUN_FIELDS_H
#define KTAP_RT_RUN_FIELDS_H

#include "rt_ctx.h"
#include "ir.h"
#include "reader.h"

struct run_parm {
	const char *name;
	const struct rdr_field *f;
};

/* Zero-initialised is empty; free with run_fields_free(). */
struct run_fields {
	const struct rdr_field ***v;	/* per probe: its fields' handles */
	struct run_parm **parms;	/* per event, lazily: $$parms fields */
	unsigned *nparms;
	unsigned nprobes, nevents;
};

/* Resolve the fields of @p's probes in @rdr: 0, or -1 (said on stderr). */
int run_fields_resolve(struct run_fields *t, const struct ir_prog *p, struct rdr *rdr);
/* Field @idx of probe @probe in record @rec. */
struct rt_value run_fields_value(const struct run_fields *t, unsigned probe, unsigned idx,
				 const struct rdr_record *rec);
/* Did the kernel fail to fetch field @idx of probe @probe in @rec? */
bool run_fields_faulted(const struct run_fields *t, unsigned probe, unsigned idx,
			const struct rdr_record *rec);
/* $$parms of @rec: "name=value ..." in @c's scratch space. */
struct rt_value run_fields_parms(struct run_fields *t, struct rdr *rdr, struct rt_ctx *c,
				 const struct rdr_record *rec);
void run_fields_free(struct run_fields *t);

#endif
