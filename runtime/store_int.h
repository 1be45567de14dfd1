/*
 * store_int.h - the store's own representation, shared by store.c (the
 * globals and their operations), store_stat.c (a statistic's
 * arithmetic), store_iter.c (sorting and foreach) and store_print.c (the
 * text stap prints for histograms and at exit).  Nothing else includes it.
 */
#ifndef KTAP_RT_STORE_INT_H
#define KTAP_RT_STORE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "store.h"

#define ST_LOG_BUCKETS 128	/* HIST_LOG_BUCKETS */
#define ST_LOG_BUCKET0 64	/* HIST_LOG_BUCKET0: the bucket of 0 */

/* A stored value: a long, or a string in an owned buffer. */
struct st_slot {
	struct rt_value v;
	char *buf;		/* NUL-terminated copy, or NULL for "" */
	uint32_t cap;
};

/* One statistic, as stap's struct stat_data for one CPU. */
struct st_stat {
	int64_t count, sum, min, max;
	int64_t avg_s, m2, variance_s;	/* Welford, in stap's integers */
	int shift;			/* @variance(x, N)'s N: avg_s, m2 scaled by 2^N */
	int64_t *hist;			/* nbuckets counters, or NULL */
};

struct st_ent {
	struct st_ent *hnext;		/* hash chain; graveyard link */
	struct st_ent *prev, *next;	/* map order */
	uint64_t hash;
	bool dead;			/* deleted while iterated */
	struct st_slot val;		/* long and string arrays */
	struct st_stat *stat;		/* statistics arrays: in this block */
	struct rt_value keys[];		/* then the stat, then key bytes */
};

struct st_array {
	struct st_ent **index;		/* chains; nindex is a power of 2 */
	size_t nindex, n;		/* n: live entries */
	struct st_ent *first, *last;
	struct st_ent *cache;		/* last entry found: a[k]++ looks twice */
	struct st_ent *graveyard;	/* dead, freed with the last iterator */
	unsigned iters;			/* open iterators */
};

struct st_global {
	const struct ir_global *g;
	struct st_slot val;		/* long and string scalars */
	struct st_stat stat;		/* scalar statistics */
	struct st_array a;
	size_t maxent;			/* MAXMAPENTRIES or the declared size */
	unsigned nbuckets;		/* histogram counters, 0: none */
	bool stats;			/* statistics (scalar or array) */
};

struct rt_store {
	const struct ir_prog *prog;
	struct st_global *gl;
	unsigned strmax;			/* longest string kept */
	int hist_elision;			/* stap's HIST_ELISION, 2 */
};

/* Wrapping int64 arithmetic, as the kernel's (-fno-strict-overflow). */
static inline int64_t st_wadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline int64_t st_wsub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static inline int64_t st_wmul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

/* stap's _stp_div64(): x / 0 is 0, x / -1 is -x. */
static inline int64_t st_div(int64_t x, int64_t y)
{
	if (y == 0)
		return 0;
	if (y == -1)
		return st_wsub(0, x);
	return x / y;
}

/* The label of log bucket @b (_stp_bucket_to_val): 0, +-2^k. */
static inline int64_t st_log_value(unsigned b)
{
	if (b == ST_LOG_BUCKET0)
		return 0;
	if (b < ST_LOG_BUCKET0)
		return (int64_t)(UINT64_MAX << (63 - b));
	return (int64_t)1 << (b - ST_LOG_BUCKET0 - 1);
}

/* Zeroed memory; running out of memory aborts, as buf.c does. */
static inline void *st_alloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p) {
		fprintf(stderr, "ktap: out of memory\n");
		abort();
	}
	return p;
}

/* ---- store.c ---- */

/* stap's comparison: longs numerically, strings as strcmp(). */
int st_cmp(struct rt_value a, struct rt_value b);

/* Do the keys match, ignoring positions in @star (bit k: key k is '*')? */
bool st_keys_match(const struct rt_value *a, const struct rt_value *b,
		   unsigned n, uint32_t star);

/* @keys with strings cut at @max bytes: @keys itself, or @tmp (9 keys). */
const struct rt_value *st_clip(const struct rt_value *keys, unsigned n,
			       unsigned max, struct rt_value *tmp);

/* Make @v (all n entries) the array's order. */
void st_list_relink(struct st_array *a, struct st_ent **v, size_t n);

/* Free an entry that is no longer linked anywhere (NULL: no-op). */
void st_ent_free(struct st_ent *e);

/* The statistic of global @g, or of its element @keys; NULL when the
   element does not exist (and @create is false). */
enum st_err st_stat_of(struct rt_store *s, unsigned g, const struct rt_value *keys,
		       bool create, struct st_stat **out);

/* ---- store_stat.c ---- */

/* Bucket of @v in a log histogram (_stp_val_to_bucket). */
unsigned st_log_bucket(int64_t v);

/* Bucket of @v in @sg's linear histogram: 0 underflow, nb-1 overflow. */
unsigned st_lin_bucket(const struct st_global *sg, int64_t v);

/* Add @v to @st (__stp_stat_add()), and to its histogram, @sg's kind. */
void st_stat_update(const struct st_global *sg, struct st_stat *st, int64_t v);

/* @op of @st (NULL: nothing added); @element: of an array element, whose
   @variance stap reads without pooling.  ST_EMPTY for stap's "empty
   aggregate" error (@count and @sum of nothing are 0). */
enum st_err st_stat_value(const struct st_stat *st, bool element,
			  enum ir_stat op, int64_t *out);

/* Zero @st and its @nbuckets histogram counters, keeping the memory. */
void st_stat_clear(struct st_stat *st, unsigned nbuckets);

/* ---- store_iter.c ---- */

/* The array's entries in map order, sorted as @fe asks (a plain array
   keeps the new order); @limit applies when @limited.  Free with free(). */
struct st_ent **st_snapshot(struct st_global *sg, const struct ir_foreach *fe,
			    int64_t limit, bool limited);

#endif
