/*
 * store.c - the script's globals (see store.h), kept as stap 4.8 keeps
 * them on one CPU.
 *
 * Scalars are one value each.  A statistic is what stap's runtime keeps
 * per CPU (runtime/stat-common.c): count, sum, min, max, the integer
 * Welford state behind @variance, and the histogram counters.
 *
 * An array is a doubly linked list of entries in stap's map order plus
 * a chained hash index over it.  The order is insertion order until a
 * sorted foreach sorts the list in place, as stap's _stp_map_sort()
 * does: later unsorted foreach loops, the ties of later sorts and the
 * entry a '%' array evicts (always the first one) all follow that order.
 * Statistics arrays are aggregated into a fresh map on every read in
 * stap, so their sorts do not stick; here their order stays insertion
 * order (stap's own is hash order, which no script can rely on).
 *
 * Ownership: every string stored here is an owned copy cut at
 * MAXSTRINGLEN.  A foreach iterator holds pointers to live entries, not
 * copies; entries deleted while an iterator holds them are unlinked at
 * once but freed when the array's last iterator is freed, so the keys
 * an iterator handed out stay readable until the element is deleted.
 * Running out of memory aborts, as buf.c does.  A statistic's arithmetic
 * is store_stat.c's, sorting and foreach store_iter.c's, and the text
 * stap prints for histograms and for globals at exit store_print.c's.
 */
#include "store.h"
#include "store_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ST_MIN_INDEX 16		/* first size of a hash index */

/* ---- memory and values ---- */

static void st_slot_free(struct st_slot *sl)
{
	free(sl->buf);
	sl->buf = NULL;
	sl->cap = 0;
}

/*
 * Store @v in @sl, cut at @max bytes.  @v may point into @sl's own
 * buffer (a[k] = substr(a[k], ...)), so the bytes move with memmove
 * and the old buffer is freed only after the copy.
 */
static void st_slot_set(struct st_slot *sl, struct rt_value v, unsigned max)
{
	uint32_t len = v.len > max ? max : v.len;
	char *p;

	if (v.type != RT_STRING) {
		sl->v = v;
		return;
	}
	if (len == 0) {
		sl->v = rt_str("", 0);
		return;
	}
	if (len < sl->cap) {
		memmove(sl->buf, v.s, len);
	} else {
		p = st_alloc((len | 15u) + 1);
		memcpy(p, v.s, len);
		free(sl->buf);
		sl->buf = p;
		sl->cap = (len | 15u) + 1;
	}
	sl->buf[len] = '\0';
	sl->v = rt_str(sl->buf, len);
}

static struct rt_value st_zero(enum rt_type t)
{
	return t == RT_STRING ? rt_str("", 0) : rt_long(0);
}

/* stap's comparison: longs numerically, strings as strcmp(). */
int st_cmp(struct rt_value a, struct rt_value b)
{
	size_t n;
	int c;

	if (a.type != RT_STRING || b.type != RT_STRING)
		return (a.l > b.l) - (a.l < b.l);
	n = a.len < b.len ? a.len : b.len;
	c = n ? memcmp(a.s, b.s, n) : 0;
	return c ? c : (a.len > b.len) - (a.len < b.len);
}

static bool st_val_eq(struct rt_value a, struct rt_value b)
{
	if (a.type != b.type)
		return false;
	if (a.type != RT_STRING)
		return a.l == b.l;
	return a.len == b.len && (a.len == 0 || memcmp(a.s, b.s, a.len) == 0);
}

/* Do the keys match, ignoring positions in @star (bit k: key k is '*')? */
bool st_keys_match(const struct rt_value *a, const struct rt_value *b,
			  unsigned n, uint32_t star)
{
	unsigned k;

	for (k = 0; k < n; k++)
		if (!(star & (1u << k)) && !st_val_eq(a[k], b[k]))
			return false;
	return true;
}

/* ---- hashing ---- */

static uint64_t st_mix(uint64_t h, uint64_t x)
{
	h = (h ^ x) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 31);
}

/* Strings hash eight bytes at a time. */
static uint64_t st_hash_str(uint64_t h, const char *s, uint32_t len)
{
	uint64_t w;

	h = st_mix(h, len);
	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = st_mix(h, w);
	}
	if (len) {
		w = 0;
		memcpy(&w, s, len);
		h = st_mix(h, w);
	}
	return h;
}

static uint64_t st_hash(const struct rt_value *k, unsigned n)
{
	uint64_t h = 0x243f6a8885a308d3ULL;
	unsigned i;

	for (i = 0; i < n; i++) {
		if (k[i].type == RT_STRING)
			h = st_hash_str(h, k[i].s, k[i].len);
		else
			h = st_mix(h, (uint64_t)k[i].l);
	}
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 32);
}

/*
 * Keys as they are stored: strings cut at @max bytes, so that a longer
 * key finds the element it created.  Returns @keys itself when nothing
 * is cut (the usual case: the interpreter makes no longer strings),
 * else @tmp (room for 9 keys).
 */
const struct rt_value *st_clip(const struct rt_value *keys, unsigned n,
				      unsigned max, struct rt_value *tmp)
{
	unsigned k;
	bool cut = false;

	for (k = 0; k < n; k++)
		cut |= keys && keys[k].type == RT_STRING && keys[k].len > max;
	if (!cut)
		return keys;
	for (k = 0; k < n; k++) {
		tmp[k] = keys[k];
		if (tmp[k].type == RT_STRING && tmp[k].len > max)
			tmp[k].len = max;
	}
	return tmp;
}

/* ---- array entries ---- */

/* Where an entry's statistic starts: after the keys, 8-byte aligned. */
static size_t st_ent_stat_off(unsigned nkeys)
{
	return (sizeof(struct st_ent) + nkeys * sizeof(struct rt_value) + 7) & ~(size_t)7;
}

/*
 * A new entry for @keys: keys, statistic and key bytes in one block.
 * The value is 0, "" or an empty statistic.
 */
static struct st_ent *st_ent_new(const struct rt_store *s, const struct st_global *sg,
				 const struct rt_value *keys, uint64_t h)
{
	unsigned k, nk = sg->g->nkeys, max = s->strmax;
	size_t off = st_ent_stat_off(nk), size = off;
	struct st_ent *e;
	char *p;

	if (sg->stats)
		size += sizeof(struct st_stat) + sg->nbuckets * sizeof(int64_t);
	for (k = 0; k < nk; k++)
		if (keys[k].type == RT_STRING)
			size += (keys[k].len > max ? max : keys[k].len) + 1;
	e = st_alloc(size);
	p = (char *)e + off;
	if (sg->stats) {
		e->stat = (struct st_stat *)(void *)p;
		e->stat->hist = sg->nbuckets ? (int64_t *)(void *)(e->stat + 1) : NULL;
		p += sizeof(struct st_stat) + sg->nbuckets * sizeof(int64_t);
	}
	for (k = 0; k < nk; k++) {
		e->keys[k] = keys[k];
		if (keys[k].type != RT_STRING)
			continue;
		e->keys[k].len = keys[k].len > max ? max : keys[k].len;
		memcpy(p, keys[k].s, e->keys[k].len);
		e->keys[k].s = p;
		p += e->keys[k].len + 1;
	}
	e->hash = h;
	e->val.v = st_zero(sg->g->type);
	return e;
}

void st_ent_free(struct st_ent *e)
{
	if (!e)
		return;
	st_slot_free(&e->val);
	free(e);
}

/* ---- arrays: index and order ---- */

static void st_index_put(struct st_array *a, struct st_ent *e)
{
	size_t i = e->hash & (a->nindex - 1);

	e->hnext = a->index[i];
	a->index[i] = e;
}

/* Double the index (or make the first one) when it is full. */
static void st_index_grow(struct st_array *a)
{
	struct st_ent *e;

	if (a->n < a->nindex)
		return;
	free(a->index);
	a->nindex = a->nindex ? a->nindex * 2 : ST_MIN_INDEX;
	a->index = st_alloc(a->nindex * sizeof(*a->index));
	for (e = a->first; e; e = e->next)
		st_index_put(a, e);
}

static void st_list_append(struct st_array *a, struct st_ent *e)
{
	e->prev = a->last;
	e->next = NULL;
	if (a->last)
		a->last->next = e;
	else
		a->first = e;
	a->last = e;
}

/* Make @v (all n entries) the array's order. */
void st_list_relink(struct st_array *a, struct st_ent **v, size_t n)
{
	size_t i;

	a->first = a->last = NULL;
	for (i = 0; i < n; i++)
		st_list_append(a, v[i]);
}

static struct st_ent *st_find(struct st_array *a, const struct rt_value *keys,
			      unsigned nkeys, uint64_t h)
{
	struct st_ent *e;

	if (!a->nindex)
		return NULL;
	for (e = a->index[h & (a->nindex - 1)]; e; e = e->hnext)
		if (e->hash == h && st_keys_match(e->keys, keys, nkeys, 0))
			return e;
	return NULL;
}

/* Free an unlinked entry, or keep it for the iterators that hold it. */
static void st_bury(struct st_array *a, struct st_ent *e)
{
	if (!a->iters) {
		st_ent_free(e);
		return;
	}
	e->dead = true;
	e->hnext = a->graveyard;
	a->graveyard = e;
}

/* Remove @e from the index and the order, then bury it. */
static void st_unlink(struct st_array *a, struct st_ent *e)
{
	struct st_ent **pp = &a->index[e->hash & (a->nindex - 1)];

	while (*pp != e)
		pp = &(*pp)->hnext;
	*pp = e->hnext;
	if (e->prev)
		e->prev->next = e->next;
	else
		a->first = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		a->last = e->prev;
	if (a->cache == e)
		a->cache = NULL;
	a->n--;
	st_bury(a, e);
}

static void st_array_clear(struct st_array *a)
{
	struct st_ent *e, *next;

	for (e = a->first; e; e = next) {
		next = e->next;
		st_bury(a, e);
	}
	free(a->index);
	a->index = NULL;
	a->nindex = a->n = 0;
	a->first = a->last = a->cache = NULL;
}

static void st_array_free(struct st_array *a)
{
	struct st_ent *e, *next;

	a->iters = 0;
	st_array_clear(a);
	for (e = a->graveyard; e; e = next) {
		next = e->hnext;
		st_ent_free(e);
	}
	a->graveyard = NULL;
}

/*
 * Insert a new entry.  A full array is stap's "Array overflow" unless
 * declared with '%': then the first entry in map order gives way, as
 * _new_map_create() reuses the head of the list.
 */
static enum st_err st_insert(struct rt_store *s, struct st_global *sg,
			     const struct rt_value *keys, uint64_t h, struct st_ent **out)
{
	struct st_array *a = &sg->a;
	struct st_ent *e;

	if (a->n >= sg->maxent) {
		if (!sg->g->wrap || !a->first)
			return ST_FULL;
		st_unlink(a, a->first);
	}
	e = st_ent_new(s, sg, keys, h);
	a->n++;
	st_index_grow(a);
	st_index_put(a, e);
	st_list_append(a, e);
	*out = a->cache = e;
	return ST_OK;
}

/* The entry for @keys (NULL if absent), created when @create. */
static enum st_err st_lookup(struct rt_store *s, unsigned g, const struct rt_value *keys,
			     bool create, struct st_ent **out)
{
	struct st_global *sg = &s->gl[g];
	unsigned nk = sg->g->nkeys;
	struct rt_value tmp[9];
	uint64_t h;

	keys = st_clip(keys, nk, s->strmax, tmp);
	*out = sg->a.cache;
	if (*out && st_keys_match((*out)->keys, keys, nk, 0))
		return ST_OK;
	h = st_hash(keys, nk);
	*out = st_find(&sg->a, keys, nk, h);
	if (*out) {
		sg->a.cache = *out;
		return ST_OK;
	}
	return create ? st_insert(s, sg, keys, h, out) : ST_OK;
}

/* ---- the store ---- */

/* Histogram counters of @g: 128 for @hist_log, (stop-start)/step + 3
   for @hist_linear (underflow, regular buckets, overflow); pass 2
   checked the range as stap does. */
static unsigned st_nbuckets(const struct ir_global *g)
{
	int64_t n;

	if (g->hist_log)
		return ST_LOG_BUCKETS;
	if (!g->hist_linear || g->lin_step == 0)
		return 0;
	n = st_wsub(g->lin_stop, g->lin_start) / g->lin_step + 3;
	return n >= 3 && n < (1 << 24) ? (unsigned)n : 0;
}

static void st_global_init(struct rt_store *s, unsigned i, unsigned maxmapentries)
{
	struct st_global *sg = &s->gl[i];
	const struct ir_global *g = &s->prog->globals[i];

	sg->g = g;
	sg->maxent = g->maxentries > 0 ? (size_t)g->maxentries : maxmapentries;
	sg->stats = g->type == RT_STATS;
	sg->nbuckets = sg->stats ? st_nbuckets(g) : 0;
	if (g->is_array)
		return;
	if (sg->stats && sg->nbuckets)
		sg->stat.hist = st_alloc(sg->nbuckets * sizeof(int64_t));
	sg->val.v = st_zero(g->type);
	if (g->init.type == RT_LONG || g->init.type == RT_STRING)
		st_slot_set(&sg->val, g->init, s->strmax);
}

void st_set_hist_elision(struct rt_store *s, int rows)
{
	s->hist_elision = rows;
}

struct rt_store *st_new(const struct ir_prog *p, unsigned maxmapentries,
			unsigned strmax)
{
	struct rt_store *s = st_alloc(sizeof(*s));
	unsigned i;

	s->prog = p;
	s->strmax = strmax;
	s->hist_elision = 2;
	s->gl = st_alloc((p->nglobals + 1) * sizeof(*s->gl));
	for (i = 0; i < p->nglobals; i++)
		st_global_init(s, i, maxmapentries);
	return s;
}

void st_free(struct rt_store *s)
{
	unsigned i;

	if (!s)
		return;
	for (i = 0; i < s->prog->nglobals; i++) {
		st_array_free(&s->gl[i].a);
		st_slot_free(&s->gl[i].val);
		free(s->gl[i].stat.hist);
	}
	free(s->gl);
	free(s);
}

struct rt_value st_get(struct rt_store *s, unsigned g)
{
	return s->gl[g].val.v;
}

void st_set(struct rt_store *s, unsigned g, struct rt_value v)
{
	st_slot_set(&s->gl[g].val, v, s->strmax);
}

/* delete of a global: arrays empty, statistics forget everything,
   scalars become 0 or "" (not their initial value, as in stap). */
void st_reset(struct rt_store *s, unsigned g)
{
	struct st_global *sg = &s->gl[g];

	if (sg->g->is_array)
		st_array_clear(&sg->a);
	else if (sg->stats)
		st_stat_clear(&sg->stat, sg->nbuckets);
	else
		sg->val.v = st_zero(sg->g->type);
}

size_t st_entries(const struct rt_store *s, unsigned g)
{
	return s->gl[g].g->is_array ? s->gl[g].a.n : 0;
}

/* ---- arrays ---- */

struct rt_value st_aget(struct rt_store *s, unsigned g, const struct rt_value *keys)
{
	struct st_ent *e;

	st_lookup(s, g, keys, false, &e);
	return e ? e->val.v : st_zero(s->gl[g].g->type);
}

enum st_err st_aset(struct rt_store *s, unsigned g, const struct rt_value *keys,
		    struct rt_value v)
{
	struct st_ent *e;
	enum st_err r = st_lookup(s, g, keys, true, &e);

	if (r == ST_OK)
		st_slot_set(&e->val, v, s->strmax);
	return r;
}

enum st_err st_aref(struct rt_store *s, unsigned g, const struct rt_value *keys,
		    struct rt_value *cur)
{
	struct st_ent *e;
	enum st_err r = st_lookup(s, g, keys, true, &e);

	*cur = r == ST_OK ? e->val.v : st_zero(s->gl[g].g->type);
	return r;
}

bool st_ain(struct rt_store *s, unsigned g, const struct rt_value *keys,
	    uint32_t star_mask)
{
	struct st_global *sg = &s->gl[g];
	struct rt_value tmp[9];
	struct st_ent *e;

	if (!star_mask) {
		st_lookup(s, g, keys, false, &e);
		return e != NULL;
	}
	keys = st_clip(keys, sg->g->nkeys, s->strmax, tmp);
	for (e = sg->a.first; e; e = e->next)
		if (st_keys_match(e->keys, keys, sg->g->nkeys, star_mask))
			return true;
	return false;
}

enum st_err st_adel(struct rt_store *s, unsigned g, const struct rt_value *keys,
		    uint32_t star_mask)
{
	struct st_global *sg = &s->gl[g];
	struct rt_value tmp[9];
	struct st_ent *e, *next;

	if (!star_mask) {
		st_lookup(s, g, keys, false, &e);
		if (e)
			st_unlink(&sg->a, e);
		return ST_OK;
	}
	keys = st_clip(keys, sg->g->nkeys, s->strmax, tmp);
	for (e = sg->a.first; e; e = next) {
		next = e->next;
		if (st_keys_match(e->keys, keys, sg->g->nkeys, star_mask))
			st_unlink(&sg->a, e);
	}
	return ST_OK;
}

enum st_err st_aclear(struct rt_store *s, unsigned g)
{
	st_array_clear(&s->gl[g].a);
	return ST_OK;
}

/* ---- statistics ---- */

/* The statistic of global @g, or of its element @keys; NULL when the
   element does not exist (and @create is false). */
enum st_err st_stat_of(struct rt_store *s, unsigned g, const struct rt_value *keys,
		       bool create, struct st_stat **out)
{
	struct st_ent *e;
	enum st_err r;

	if (!s->gl[g].g->is_array) {
		*out = &s->gl[g].stat;
		return ST_OK;
	}
	r = st_lookup(s, g, keys, create, &e);
	*out = e ? e->stat : NULL;
	return r;
}

enum st_err st_stat_add(struct rt_store *s, unsigned g, const struct rt_value *keys,
			int64_t v)
{
	struct st_stat *st;
	enum st_err r = st_stat_of(s, g, keys, true, &st);

	if (r == ST_OK && st)
		st_stat_update(&s->gl[g], st, v);
	return r;
}

enum st_err st_stat_bulk(struct rt_store *s, unsigned g, const struct rt_value *keys,
			 int64_t v, int64_t n, bool exact)
{
	struct st_global *sg = &s->gl[g];
	struct st_stat *st;
	enum st_err r = st_stat_of(s, g, keys, true, &st);

	if (r != ST_OK || !st || n <= 0)
		return r;
	if (exact && (st->count == 0 || v < st->min))
		st->min = v;
	if (exact && (st->count == 0 || v > st->max))
		st->max = v;
	st->count += n;
	st->sum = st_wadd(st->sum, exact ? st_wmul(v, n) : v);
	/* The running variance needs the values in order: not kept here
	   (pass 3 keeps a statistic read with @variance in user space). */
	st->avg_s = st_div(st->sum, st->count);
	st->m2 = st->variance_s = 0;
	if (exact && st->hist)
		st->hist[sg->g->hist_log ? st_log_bucket(v) : st_lin_bucket(sg, v)] += n;
	return ST_OK;
}

enum st_err st_stat_get(struct rt_store *s, unsigned g, const struct rt_value *keys,
			enum ir_stat op, int64_t *out)
{
	struct st_stat *st;

	st_stat_of(s, g, keys, false, &st);
	return st_stat_value(st, s->gl[g].g->is_array, op, out);
}

/*
 * @hist_log(x)[i]: the count of raw bucket @i (0..127 for log, 64 being
 * the bucket of 0; 0 is the underflow of a linear one).  stap raises
 * "histogram index out of range" and "empty aggregate" where this
 * returns 0.
 */
int64_t st_hist_bucket(struct rt_store *s, unsigned g, const struct rt_value *keys,
		       enum ir_hist kind, int64_t bucket)
{
	struct st_stat *st;

	(void)kind;
	st_stat_of(s, g, keys, false, &st);
	if (!st || !st->hist || bucket < 0 || bucket >= s->gl[g].nbuckets)
		return 0;
	return st->hist[bucket];
}
