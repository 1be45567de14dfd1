/*
 * run_fields.c - see run_fields.h.
 */
#include "run_fields.h"
#include "buf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

static struct rt_value rf_value(const struct rdr_field *f, const struct rdr_record *rec)
{
	const char *s;
	uint32_t len;

	if (rdr_field_type(f) != RDR_F_STR)
		return rt_long(rdr_field_num(f, rec));
	len = rdr_field_str(f, rec, &s);
	return rt_str(s, len);
}

int run_fields_resolve(struct run_fields *t, const struct ir_prog *p, struct rdr *rdr)
{
	unsigned i, k;

	t->nprobes = p->nprobes;
	t->nevents = p->nevents;
	t->v = calloc(p->nprobes + 1, sizeof(*t->v));
	t->parms = calloc(p->nevents + 1, sizeof(*t->parms));
	t->nparms = calloc(p->nevents + 1, sizeof(*t->nparms));
	if (!t->v || !t->parms || !t->nparms)
		return -1;
	for (i = 0; i < p->nprobes; i++) {
		const struct ir_probe *pr = &p->probes[i];

		if (pr->kind != IR_P_EVENT && !pr->trigger)
			continue;
		t->v[i] = calloc(pr->nfields + 1, sizeof(**t->v));
		if (!t->v[i])
			return -1;
		for (k = 0; k < pr->nfields; k++) {
			t->v[i][k] = rdr_field(rdr, pr->event, pr->fields[k].name);
			if (!t->v[i][k]) {
				fprintf(stderr, "ERROR: event %s:%s has no field '%s'\n",
					p->events[pr->event].system,
					p->events[pr->event].name, pr->fields[k].name);
				return -1;
			}
		}
	}
	return 0;
}

struct rt_value run_fields_value(const struct run_fields *t, unsigned probe, unsigned idx,
				 const struct rdr_record *rec)
{
	return rf_value(t->v[probe][idx], rec);
}

bool run_fields_faulted(const struct run_fields *t, unsigned probe, unsigned idx,
			const struct rdr_record *rec)
{
	return rdr_field_faulted(t->v[probe][idx], rec);
}

/* The non-common fields of event @ev, resolved once (see run_fields_parms). */
static int rf_parm_fields(struct run_fields *t, struct rdr *rdr, unsigned ev)
{
	struct tep_event *te = rdr_event(rdr, ev);
	struct tep_format_field *f;
	unsigned n = 0;

	if (t->parms[ev] || !te)
		return 0;
	for (f = te->format.fields; f; f = f->next)
		n++;
	t->parms[ev] = calloc(n + 1, sizeof(**t->parms));
	if (!t->parms[ev])
		return -1;
	for (f = te->format.fields, n = 0; f; f = f->next) {
		const struct rdr_field *h = rdr_field(rdr, ev, f->name);

		/* a system call event's own number is no parameter of the
		   call: stap's syscall probes' $$parms are the call's */
		if (h && strcmp(f->name, "__syscall_nr") != 0)
			t->parms[ev][n++] = (struct run_parm){ f->name, h };
	}
	t->nparms[ev] = n;
	return 0;
}

/*
 * $$parms: "name=value" for every field, space-separated, as stap gives
 * $$vars: numbers in hex with 0x (stap's %#x, "0x0" for zero), strings
 * quoted (what stap's $$parms$ gives; a tracepoint's strings are data,
 * not pointers).
 */
struct rt_value run_fields_parms(struct run_fields *t, struct rdr *rdr, struct rt_ctx *c,
				 const struct rdr_record *rec)
{
	unsigned ev = rec->index, i;
	struct rt_buf b = { 0 };
	struct rt_value v;

	if (rf_parm_fields(t, rdr, ev) != 0)
		return rt_str("", 0);
	for (i = 0; i < t->nparms[ev]; i++) {
		const struct run_parm *p = &t->parms[ev][i];

		buf_printf(&b, "%s%s=", i ? " " : "", p->name);
		v = rf_value(p->f, rec);
		if (v.type == RT_STRING)
			buf_printf(&b, "\"%.*s\"", (int)v.len, v.s);
		else
			buf_printf(&b, "0x%" PRIx64, (uint64_t)v.l);
	}
	v = rt_scratch_str(c, b.p ? b.p : "", b.len);
	buf_free(&b);
	return v;
}

void run_fields_free(struct run_fields *t)
{
	unsigned i;

	for (i = 0; t->v && i < t->nprobes; i++)
		free(t->v[i]);
	free(t->v);
	for (i = 0; t->parms && i < t->nevents; i++)
		free(t->parms[i]);
	free(t->parms);
	free(t->nparms);
	memset(t, 0, sizeof(*t));
}
