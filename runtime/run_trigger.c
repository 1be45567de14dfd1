/*
 * run_trigger.c - see run_trigger.h.
 */
#define _GNU_SOURCE
#include "run_trigger.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int run_trigger_init(struct run_trigger *t, const struct ir_prog *p)
{
	unsigned i;

	for (i = 0; i < p->nevents; i++)
		if (p->events[i].trigger) {
			t->rec = calloc(p->nevents, sizeof(*t->rec));
			t->nevents = p->nevents;
			return t->rec ? 0 : -1;
		}
	return 0;
}

bool run_trigger_keep(struct run_trigger *t, const struct ir_prog *p,
		      const struct rdr_record *rec)
{
	struct rdr_record *k;
	void *data;

	if (!p->events[rec->index].trigger)
		return false;
	k = &t->rec[rec->index];
	if (!t->wait || k->data || rec->pid != (int)getpid() ||
	    !(data = malloc(rec->size > 0 ? (size_t)rec->size : 1)))
		return true;
	memcpy(data, rec->data, rec->size > 0 ? (size_t)rec->size : 0);
	*k = *rec;
	k->data = data;
	k->kstack = k->ustack = NULL;
	k->nkstack = k->nustack = 0;
	return true;
}

/* Have @kind's trigger probes all got their records (@clear: forget
   them first)?  True also when there is none. */
static bool rtr_have(struct run_trigger *t, const struct ir_prog *p,
		     enum ir_probe_kind kind, bool clear)
{
	bool all = true;
	unsigned i;

	for (i = 0; i < p->nprobes; i++) {
		struct rdr_record *k = &t->rec[p->probes[i].event];

		if (p->probes[i].kind != kind || !p->probes[i].trigger)
			continue;
		if (clear) {
			free((void *)k->data);
			k->data = NULL;
		}
		all &= k->data != NULL;
	}
	return all;
}

static uint64_t rtr_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

void run_trigger_fire(struct run_trigger *t, const struct ir_prog *p, struct rdr *rdr,
		      enum ir_probe_kind kind,
		      void (*handle)(void *arg, const struct rdr_record *rec), void *arg)
{
	struct rdr_record rec;
	uint64_t give_up;
	int n;

	if (!t->rec || !rdr || rtr_have(t, p, kind, true))
		return;
	t->wait = true;
	syscall(SYS_getppid);
	give_up = rtr_now() + 1000000000ULL;
	while (!rtr_have(t, p, kind, false) && rtr_now() < give_up) {
		n = rdr_next(rdr, &rec, UINT64_MAX, 50);
		if (n == RDR_RECORD)
			handle(arg, &rec);
		else if (n == RDR_ERROR || n == RDR_END)
			break;
	}
	t->wait = false;
}

const struct rdr_record *run_trigger_record(const struct run_trigger *t,
					    const struct ir_prog *p, unsigned probe)
{
	const struct rdr_record *k = t->rec ? &t->rec[p->probes[probe].event] : NULL;

	return k && k->data ? k : NULL;
}

void run_trigger_free(struct run_trigger *t)
{
	unsigned i;

	for (i = 0; t->rec && i < t->nevents; i++)
		free((void *)t->rec[i].data);
	free(t->rec);
	memset(t, 0, sizeof(*t));
}
