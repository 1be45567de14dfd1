/*
 * run_entry.c - pass 5: the @entry values of calls in flight (see
 * run_entry.h).
 */
#include "run_entry.h"

#include <stdlib.h>
#include <string.h>

#define RUN_MAX_FRAMES 4096		/* returns never seen (longjmp, exit) */

/* A copy of @n values, strings included, in one allocation. */
static struct rt_value *run_frame_copy(const struct rt_value *v, unsigned n)
{
	size_t size = n * sizeof(*v);
	struct rt_value *copy;
	char *s;
	unsigned i;

	for (i = 0; i < n; i++)
		size += v[i].type == RT_STRING ? v[i].len : 0;
	if (!(copy = malloc(size ? size : 1)))
		return NULL;
	s = (char *)(copy + n);
	for (i = 0; i < n; i++) {
		copy[i] = v[i];
		if (v[i].type == RT_STRING) {
			memcpy(s, v[i].s, v[i].len);
			copy[i].s = s;
			s += v[i].len;
		}
	}
	return copy;
}

void run_entries_push(struct run_entries *t, int tid, unsigned probe,
		      const struct rt_value *v, unsigned n)
{
	struct run_frame *f;

	if (t->nframes == RUN_MAX_FRAMES) {	/* drop the oldest */
		free(t->frames[0].v);
		memmove(t->frames, t->frames + 1, --t->nframes * sizeof(*t->frames));
	}
	if (!t->frames && !(t->frames = calloc(RUN_MAX_FRAMES, sizeof(*t->frames))))
		return;
	f = &t->frames[t->nframes];
	*f = (struct run_frame){ tid, probe, n, run_frame_copy(v, n) };
	if (f->v)
		t->nframes++;
}

bool run_entries_pop(struct run_entries *t, int tid, unsigned probe)
{
	unsigned i = t->nframes;

	t->cur.v = NULL;
	while (i-- > 0) {
		if (t->frames[i].tid != tid || t->frames[i].probe != probe)
			continue;
		t->cur = t->frames[i];
		memmove(&t->frames[i], &t->frames[i + 1], (t->nframes - i - 1) * sizeof(*t->frames));
		t->nframes--;
		return true;
	}
	return false;
}

const struct rt_value *run_entries_get(const struct run_entries *t, unsigned idx)
{
	return t->cur.v && idx < t->cur.n ? &t->cur.v[idx] : NULL;
}

void run_entries_done(struct run_entries *t)
{
	free(t->cur.v);
	t->cur.v = NULL;
}

void run_entries_free(struct run_entries *t)
{
	unsigned i;

	for (i = 0; i < t->nframes; i++)
		free(t->frames[i].v);
	free(t->frames);
	run_entries_done(t);
	*t = (struct run_entries){ 0 };
}
