/*
 * store.h - the script's globals: scalars, statistics and arrays.
 *
 * The interpreter's view of global storage.  Strings stored here are
 * copied (and truncated to MAXSTRINGLEN); values read from here stay
 * valid until the next write to the same place or the end of the
 * handler, whichever comes first.
 */
#ifndef KTAP_RT_STORE_H
#define KTAP_RT_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "ir.h"
#include "value.h"

struct rt_store;
struct st_iter;

enum st_err {
	ST_OK,
	ST_FULL,		/* array full (MAXMAPENTRIES) */
	ST_EMPTY,		/* @min/@max/@avg/@variance of nothing */
	ST_BUSY,		/* the array is being iterated */
};

/* Strings stored are cut to @strmax bytes (rt_strmax(MAXSTRINGLEN)). */
/* stap's HIST_ELISION: the zero rows kept around used ones in printed
   histograms (2; negative: every row of the range). */
void st_set_hist_elision(struct rt_store *s, int rows);
struct rt_store *st_new(const struct ir_prog *p, unsigned maxmapentries,
			unsigned strmax);
void st_free(struct rt_store *s);

/* Scalars. */
struct rt_value st_get(struct rt_store *s, unsigned g);
void st_set(struct rt_store *s, unsigned g, struct rt_value v);
void st_reset(struct rt_store *s, unsigned g);
/* The live entries of array @g (0 for a scalar): -v's progress line. */
size_t st_entries(const struct rt_store *s, unsigned g);

/* Arrays: @keys has the array's number of keys. */
struct rt_value st_aget(struct rt_store *s, unsigned g, const struct rt_value *keys);
enum st_err st_aset(struct rt_store *s, unsigned g, const struct rt_value *keys,
		    struct rt_value v);
/* The element's current value, created as 0/"" if absent. */
enum st_err st_aref(struct rt_store *s, unsigned g, const struct rt_value *keys,
		    struct rt_value *cur);
bool st_ain(struct rt_store *s, unsigned g, const struct rt_value *keys,
	    uint32_t star_mask);
enum st_err st_adel(struct rt_store *s, unsigned g, const struct rt_value *keys,
		    uint32_t star_mask);
enum st_err st_aclear(struct rt_store *s, unsigned g);

/* Statistics: @keys NULL for a scalar statistic. */
enum st_err st_stat_add(struct rt_store *s, unsigned g, const struct rt_value *keys,
			int64_t v);
/*
 * @n values @v at once (a kernel hist's entry, run_hist.c): @exact, @v
 * is one value seen @n times; else @v is the sum of @n values (only
 * @count, @sum and @avg are then right).  @variance is not kept.
 */
enum st_err st_stat_bulk(struct rt_store *s, unsigned g, const struct rt_value *keys,
			 int64_t v, int64_t n, bool exact);
enum st_err st_stat_get(struct rt_store *s, unsigned g, const struct rt_value *keys,
			enum ir_stat op, int64_t *out);
/*
 * A statistic of its own, outside any global (stap's Stat, as -t's
 * per-probe timing uses one): st_stat_result() gives @op of what was
 * pushed as a scalar statistic's @count ... @variance would (0 when
 * empty).  Zeroed by st_stat_new(), aborts on OOM.
 */
struct st_stat;
struct st_stat *st_stat_new(void);
void st_stat_free(struct st_stat *st);
void st_stat_push(struct st_stat *st, int64_t v);
int64_t st_stat_result(const struct st_stat *st, enum ir_stat op);

/* Append the histogram's text, as stap prints it, to @out. */
void st_hist_text(struct rt_store *s, unsigned g, const struct rt_value *keys,
		  enum ir_hist kind, struct rt_buf *out);
int64_t st_hist_bucket(struct rt_store *s, unsigned g, const struct rt_value *keys,
		       enum ir_hist kind, int64_t bucket);

/*
 * Iteration for foreach: a snapshot of the matching entries in the
 * requested order.  @slice holds the fixed keys when fe->has_slice.
 */
struct st_iter *st_iter_new(struct rt_store *s, const struct ir_foreach *fe,
			    const struct rt_value *slice, int64_t limit,
			    const struct rt_value *hist_keys);
/* Next entry: its keys (fe->nkeys of them) and value; false at the end. */
bool st_iter_next(struct st_iter *it, struct rt_value *keys, struct rt_value *value);
void st_iter_free(struct st_iter *it);

/* Print every global marked autoprint, as stap does at exit. */
void st_autoprint(struct rt_store *s, struct rt_buf *out);

/*
 * The same walk for another rendering (--format json): @value for a
 * scalar or an array element (@keys NULL for a scalar), @stat for a
 * statistic (count 0: an empty scalar one), @array around an array's
 * elements (@end false before them, true after).
 */
struct st_values { int64_t count, sum, min, max, avg; };
struct st_printer {
	void (*value)(void *arg, const char *name, const struct rt_value *keys,
		      unsigned nkeys, struct rt_value v);
	void (*stat)(void *arg, const char *name, const struct rt_value *keys,
		     unsigned nkeys, const struct st_values *sv);
	void (*array)(void *arg, const char *name, bool end);
	void *arg;
};
void st_print_globals(struct rt_store *s, const struct st_printer *p);

/*
 * A histogram's rows as its text shows them (elided rows left out):
 * the values a row counts, [min, max]; a linear histogram's underflow
 * row has no min, its overflow row no max.  Nothing for an empty one.
 */
struct st_bucket {
	int64_t min, max, count;
	bool has_min, has_max;
};
void st_hist_each(struct rt_store *s, unsigned g, const struct rt_value *keys,
		  void (*fn)(void *arg, const struct st_bucket *b), void *arg);

#endif
