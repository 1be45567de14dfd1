/*
 * store_stat.c - a statistic's arithmetic, as stap 4.8's runtime keeps it
 * for one CPU (runtime/stat-common.c): count, sum, min, max, the integer
 * Welford state behind @variance, and the histogram buckets; plus the
 * free-standing statistics of -t's per-probe timing (store.h).
 *
 * store.c keeps statistics in globals and array entries and calls these;
 * nothing here knows arrays or the store.
 */
#include "store.h"
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

/* stap's "int delta": the low 32 bits, sign-extended. */
static int64_t st_int32(int64_t v)
{
	uint32_t u = (uint32_t)(uint64_t)v;

	return u < 0x80000000u ? (int64_t)u : (int64_t)u - 0x100000000LL;
}

/* Bucket of @v in a log histogram (_stp_val_to_bucket). */
unsigned st_log_bucket(int64_t v)
{
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	unsigned bits = 0;

	if (v == 0)
		return ST_LOG_BUCKET0;
	for (; u; u >>= 1)
		bits++;
	return v < 0 ? ST_LOG_BUCKET0 - bits : ST_LOG_BUCKET0 + bits;
}

/*
 * What stap's runtime divides by: do_div() takes a 32-bit divisor, so a
 * negative interval (stap accepts one when stop < start) divides by its
 * 32-bit two's complement.  Intervals beyond 32 bits divide as they are.
 */
static uint64_t st_lin_divisor(int64_t step)
{
	if (step < 0 && step >= INT32_MIN)
		return (uint32_t)step;
	return (uint64_t)step;
}

/* Bucket of @v in a linear histogram: 0 underflow, nb-1 overflow. */
unsigned st_lin_bucket(const struct st_global *sg, int64_t v)
{
	int64_t d = st_wsub(v, sg->g->lin_start);
	uint64_t b;

	if (d < 0)
		return 0;
	b = (uint64_t)d / st_lin_divisor(sg->g->lin_step) + 1;
	return b >= sg->nbuckets - 1 ? sg->nbuckets - 1 : (unsigned)b;
}

static void st_stat_hist(const struct st_global *sg, struct st_stat *st, int64_t v)
{
	if (!st->hist)
		return;
	st->hist[sg->g->hist_log ? st_log_bucket(v) : st_lin_bucket(sg, v)]++;
}

/* __stp_stat_add() with every operation enabled: values scaled by
   2^shift (stap's "val << shift") for the running variance. */
void st_stat_update(const struct st_global *sg, struct st_stat *st, int64_t v)
{
	int64_t delta, vs;

	st->shift = sg ? sg->g->variance_shift : 0;
	vs = st_wmul(v, (int64_t)1 << st->shift);
	if (st->count == 0) {
		st->count = 1;
		st->sum = st->min = st->max = v;
		st->avg_s = vs;
		st->m2 = 0;
	} else {
		st->count++;
		st->sum = st_wadd(st->sum, v);
		if (v > st->max)
			st->max = v;
		if (v < st->min)
			st->min = v;
		delta = st_int32(st_wsub(vs, st->avg_s));
		st->avg_s = st_wadd(st->avg_s, st_div(delta, st->count));
		st->m2 = st_wadd(st->m2, st_wmul(delta, st_wsub(vs, st->avg_s)));
		st->variance_s = st_div(st->m2, st->count - 1);
	}
	st_stat_hist(sg, st, v);
}

/*
 * @variance.  A scalar goes through _stp_stat_get(), which pools the
 * CPUs with the total-variance formula: on one CPU that still adds the
 * drift of the integer running mean from sum/count.  An array element is
 * copied into the aggregated map as is (_new_map_copy_stat()).
 */
static int64_t st_variance(const struct st_stat *st, bool element)
{
	int64_t d, s1, s2;

	/* stap's "variance = variance_s >> (2 * shift)", both ways */
	if (element)
		return st->variance_s >> (2 * st->shift);
	d = st_wsub(st->avg_s, st_div(st_wmul(st->sum, (int64_t)1 << st->shift), st->count));
	s1 = st_wmul(st_wmul(st->count, d), d);
	s2 = st_wmul(st->count - 1, st->variance_s);
	return st_div(st_wadd(s1, s2), st->count - 1) >> (2 * st->shift);
}

/* @count and @sum of nothing are 0; the others are stap's
   "empty aggregate" error. */
enum st_err st_stat_value(const struct st_stat *st, bool element,
				 enum ir_stat op, int64_t *out)
{
	*out = 0;
	if (op == IR_STAT_COUNT || op == IR_STAT_SUM) {
		if (st)
			*out = op == IR_STAT_COUNT ? st->count : st->sum;
		return ST_OK;
	}
	if (!st || st->count == 0)
		return ST_EMPTY;
	switch (op) {
	case IR_STAT_MIN: *out = st->min; break;
	case IR_STAT_MAX: *out = st->max; break;
	case IR_STAT_AVG: *out = st_div(st->sum, st->count); break;
	case IR_STAT_SUM_NONEMPTY: *out = st->sum; break;
	default: *out = st_variance(st, element); break;
	}
	return ST_OK;
}

/* ---- free-standing statistics (-t's per-probe timing) ---- */

struct st_stat *st_stat_new(void)
{
	return st_alloc(sizeof(struct st_stat));
}

void st_stat_free(struct st_stat *st)
{
	free(st);
}

void st_stat_push(struct st_stat *st, int64_t v)
{
	st_stat_update(NULL, st, v);	/* no histogram: sg is not read */
}

int64_t st_stat_result(const struct st_stat *st, enum ir_stat op)
{
	int64_t v;

	st_stat_value(st, false, op, &v);
	return v;
}

void st_stat_clear(struct st_stat *st, unsigned nbuckets)
{
	int64_t *h = st->hist;

	memset(st, 0, sizeof(*st));
	st->hist = h;
	if (h)
		memset(h, 0, nbuckets * sizeof(*h));
}
