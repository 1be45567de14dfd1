/*
 * store_iter.c - foreach over the script's arrays and histograms (see
 * store.h): sorting as stap's _stp_map_sort() and _stp_map_sortn() do,
 * limits and slices as stap's generated loops apply them, and iterators
 * that pin the entries they will visit (store.c frees entries deleted
 * under an iterator when the array's last iterator is freed here).
 */
#include "store.h"
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

#define ST_SORTN_MAX 30		/* limits above this sort everything */

/* How foreach orders entries: stap's _stp_cmp() inputs. */
struct st_order {
	int key;			/* 0: the value, k: key k (1-based) */
	bool desc;
	enum ir_stat stat;		/* statistics arrays sorted by value */
};

struct st_iter {
	struct st_global *sg;		/* NULL: histogram iteration */
	struct st_ent **v;		/* entries to visit, pinned */
	size_t n, i;
	enum ir_stat op;		/* value given for statistics entries */
	int64_t *hist;			/* histogram iteration: a copy */
};

/* ---- sorting, as _stp_map_sort() and _stp_map_sortn() ---- */

/* The number an entry sorts by, for statistics arrays. */
static int64_t st_ent_stat(const struct st_ent *e, enum ir_stat op)
{
	int64_t v;

	st_stat_value(e->stat, true, op, &v);
	return v;
}

/* _stp_cmp(): must @x come after @y?  Equal entries keep their order. */
static bool st_after(const struct st_ent *x, const struct st_ent *y,
		     const struct st_order *o)
{
	int c;

	if (o->key > 0)
		c = st_cmp(x->keys[o->key - 1], y->keys[o->key - 1]);
	else if (x->stat)
		c = st_cmp(rt_long(st_ent_stat(x, o->stat)), rt_long(st_ent_stat(y, o->stat)));
	else
		c = st_cmp(x->val.v, y->val.v);
	return o->desc ? c < 0 : c > 0;
}

/* A stable merge sort, as stap's list merge sort is stable. */
static void st_msort(struct st_ent **v, struct st_ent **tmp, size_t n,
		     const struct st_order *o)
{
	size_t m = n / 2, i = 0, j = m, k = 0;

	if (n < 2)
		return;
	st_msort(v, tmp, m, o);
	st_msort(v + m, tmp, n - m, o);
	while (i < m && j < n)
		tmp[k++] = st_after(v[i], v[j], o) ? v[j++] : v[i++];
	while (i < m)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

/* Insert v[i] into the sorted window v[0..w) if it belongs there: the
   window's last entry drops out.  Returns that entry, or NULL. */
static struct st_ent *st_sortn_insert(struct st_ent **v, size_t w, struct st_ent *a,
				      const struct st_order *o)
{
	struct st_ent *out;
	size_t j = w;

	while (j > 0 && st_after(v[j - 1], a, o))
		j--;
	if (j == w)
		return NULL;
	out = v[w - 1];
	memmove(&v[j + 1], &v[j], (w - 1 - j) * sizeof(*v));
	v[j] = a;
	return out;
}

/*
 * _stp_map_sortn(): the first @limit entries are sorted (bubble sort,
 * stable), then each later entry is inserted into that window if it
 * belongs there.  The entries pushed out of the window follow it, the
 * latest first, then the entries never moved, in their order.  The
 * first @limit entries come out as a full stable sort would put them;
 * the rest is the order stap leaves behind.
 */
static void st_sortn(struct st_ent **v, struct st_ent **tmp, size_t n, int64_t limit,
		     const struct st_order *o)
{
	size_t w = limit < 1 ? 1 : (size_t)limit, i, nout = 0, nkept = 0;
	struct st_ent *out;

	w = w > n ? n : w;
	st_msort(v, tmp, w, o);
	for (i = w; i < n; i++) {
		out = st_sortn_insert(v, w, v[i], o);
		if (out)
			tmp[n - 1 - nout++] = out;	/* collected from the end */
		else
			tmp[nkept++] = v[i];
	}
	/* tmp: kept entries from the front, pushed-out ones from the back */
	for (i = 0; i < nout; i++)
		v[w + i] = tmp[n - nout + i];
	memcpy(&v[w + nout], tmp, nkept * sizeof(*v));
}

/* ---- foreach ---- */

/* The array's entries in map order, sorted as @fe asks.  A plain array
   keeps the new order (stap sorts the map itself). */
struct st_ent **st_snapshot(struct st_global *sg, const struct ir_foreach *fe,
			    int64_t limit, bool limited)
{
	struct st_order o = { fe->sort_key, fe->sort_dir < 0, fe->sort_stat };
	struct st_ent **v = st_alloc((sg->a.n + 1) * sizeof(*v)), **tmp, *e;
	size_t n = 0;

	for (e = sg->a.first; e; e = e->next)
		v[n++] = e;
	if (!fe->sort_key || n < 2)
		return v;
	tmp = st_alloc(n * sizeof(*tmp));
	if (limited && limit != 0 && limit <= ST_SORTN_MAX)
		st_sortn(v, tmp, n, limit, &o);
	else
		st_msort(v, tmp, n, &o);
	free(tmp);
	if (!sg->stats)
		st_list_relink(&sg->a, v, n);
	return v;
}

/*
 * As stap's generated loop: the limit counts the entries looked at,
 * before the slice test, so "foreach ([a, b] in x[1, *] limit 2)" sees
 * the first two entries and visits those of them that match.
 */
static void st_select(struct st_iter *it, const struct ir_foreach *fe,
		      const struct rt_value *slice, int64_t limit, bool limited)
{
	size_t n = it->sg->a.n, i, kept = 0;
	unsigned nk = it->sg->g->nkeys;

	if (limited)
		n = limit <= 0 ? 0 : (uint64_t)limit < n ? (size_t)limit : n;
	for (i = 0; i < n; i++)
		if (!fe->has_slice || st_keys_match(it->v[i]->keys, slice, nk, fe->slice_mask))
			it->v[kept++] = it->v[i];
	it->n = kept;
}

/*
 * foreach over @hist_log(x) or @hist_linear(x, ...): every bucket, in
 * bucket order (stap ignores any sort there), the key being the raw
 * bucket number and the value its count; the limit counts buckets.
 */
static struct st_iter *st_iter_hist(struct rt_store *s, const struct ir_foreach *fe,
				    const struct rt_value *hist_keys, int64_t limit,
				    bool limited)
{
	struct st_global *sg = &s->gl[fe->global];
	struct st_iter *it = st_alloc(sizeof(*it));
	struct st_stat *st;

	st_stat_of(s, fe->global, hist_keys, false, &st);
	it->hist = st_alloc((sg->nbuckets + 1) * sizeof(*it->hist));
	if (st && st->hist)
		memcpy(it->hist, st->hist, sg->nbuckets * sizeof(*it->hist));
	it->n = sg->nbuckets;
	if (limited)
		it->n = limit <= 0 ? 0 : (uint64_t)limit < it->n ? (size_t)limit : it->n;
	return it;
}

/*
 * A foreach: the matching entries in order, pinned until
 * st_iter_free().  Entries added meanwhile are not visited, deleted ones
 * are skipped, values are read when visited.  @limit is ignored unless
 * fe->has_limit (or it is >= 0: the caller passes -1 for no limit).
 */
struct st_iter *st_iter_new(struct rt_store *s, const struct ir_foreach *fe,
			    const struct rt_value *slice, int64_t limit,
			    const struct rt_value *hist_keys)
{
	bool limited = fe->has_limit || limit >= 0;
	struct rt_value tmp[9];
	struct st_iter *it;

	if (fe->hist)
		return st_iter_hist(s, fe, hist_keys, limit, limited);
	slice = st_clip(slice, s->gl[fe->global].g->nkeys, s->strmax, tmp);
	it = st_alloc(sizeof(*it));
	it->sg = &s->gl[fe->global];
	it->op = fe->sort_stat;
	it->v = st_snapshot(it->sg, fe, limit, limited);
	st_select(it, fe, slice, limit, limited);
	it->sg->a.iters++;
	return it;
}

bool st_iter_next(struct st_iter *it, struct rt_value *keys, struct rt_value *value)
{
	struct st_ent *e;
	unsigned k;

	if (!it->sg) {
		if (it->i >= it->n)
			return false;
		keys[0] = rt_long((int64_t)it->i);
		*value = rt_long(it->hist[it->i++]);
		return true;
	}
	do {
		if (it->i >= it->n)
			return false;
		e = it->v[it->i++];
	} while (e->dead);
	for (k = 0; k < it->sg->g->nkeys; k++)
		keys[k] = e->keys[k];
	*value = e->stat ? rt_long(st_ent_stat(e, it->op)) : e->val.v;
	return true;
}

/* The last iterator of an array frees what was deleted under it. */
void st_iter_free(struct st_iter *it)
{
	struct st_array *a;
	struct st_ent *e, *next;

	if (!it)
		return;
	if (it->sg) {
		a = &it->sg->a;
		if (a->iters && --a->iters == 0) {
			for (e = a->graveyard; e; e = next) {
				next = e->hnext;
				st_ent_free(e);
			}
			a->graveyard = NULL;
		}
	}
	free(it->v);
	free(it->hist);
	free(it);
}
