/*
 * store.c - the script's globals (see store.h).
 *
 * A scalar global is one value; a statistic is a struct st_stat; an
 * array is a table of entries kept in insertion order (a vector, which
 * is also the unsorted foreach order and the eviction order of a '%'
 * array) with an open-addressing index over it.  Deleted entries leave
 * a hole in the vector and a tombstone in the index until a rebuild.
 * Strings (keys and values) are owned copies, cut at MAXSTRINGLEN.
 */
#include "store.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define ST_TOMB UINT32_MAX
#define ST_HIST_WIDTH 50	/* bar width of a printed histogram */
#define ST_HIST_ELISION 2	/* zero rows around data before "~" */
#define ST_LOG_BUCKETS 128
#define ST_LOG_BUCKET0 64

struct st_stat {
	int64_t count, sum, min, max;
	int64_t avg_s, m2, variance;	/* Welford, as stap computes it */
	int64_t *hist;			/* nbuckets counters, or NULL */
};

struct st_ent {
	uint64_t hash;
	struct rt_value v;		/* long or owned string */
	struct st_stat *stat;		/* value of a statistics array */
	struct rt_value keys[];		/* the array's nkeys */
};

struct st_array {
	struct st_ent **ents;		/* insertion order; NULL: deleted */
	size_t n, cap, live, first;	/* first: oldest possibly live */
	uint32_t *slots;		/* index into ents + 1; 0 empty */
	size_t nslots, used;		/* used: live + tombstones */
};

struct st_global {
	const struct ir_global *g;
	struct rt_value v;		/* scalar */
	struct st_stat stat;		/* scalar statistic */
	struct st_array a;
	size_t maxent;
	unsigned nbuckets;		/* histogram buckets, 0: none */
};

struct rt_store {
	const struct ir_prog *prog;
	struct st_global *gl;
	unsigned maxstringlen;
};

struct st_iter {
	struct st_ent **v;		/* snapshot copies */
	size_t n, i, nkeys;
	bool stats;
	enum ir_stat op;
	int64_t *hist;			/* histogram iteration: counts */
	unsigned nbuckets, bucket;
	int64_t *order;			/* histogram iteration: bucket order */
};

/* ---- values ---- */

static struct rt_value st_copy(struct rt_value v, unsigned max)
{
	char *p;
	uint32_t len;

	if (v.type != RT_STRING)
		return v;
	len = v.len > max ? max : v.len;
	p = malloc((size_t)len + 1);
	if (!p)
		return rt_str("", 0);
	memcpy(p, v.s, len);
	p[len] = '\0';
	return rt_str(p, len);
}

static void st_drop(struct rt_value *v)
{
	if (v->type == RT_STRING && v->len)
		free((char *)v->s);
	v->len = 0;
}

static struct rt_value st_zero(enum rt_type t)
{
	return t == RT_STRING ? rt_str("", 0) : rt_long(0);
}

static int st_cmp(struct rt_value a, struct rt_value b)
{
	size_t n;
	int c;

	if (a.type != RT_STRING || b.type != RT_STRING)
		return a.l < b.l ? -1 : a.l > b.l;
	n = a.len < b.len ? a.len : b.len;
	c = n ? memcmp(a.s, b.s, n) : 0;
	return c ? c : (a.len > b.len) - (a.len < b.len);
}

static uint64_t st_hash(const struct rt_value *k, unsigned n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	unsigned i;
	uint32_t j;

	for (i = 0; i < n; i++) {
		if (k[i].type == RT_STRING) {
			for (j = 0; j < k[i].len; j++)
				h = (h ^ (uint8_t)k[i].s[j]) * 0x100000001b3ULL;
		} else {
			h = (h ^ (uint64_t)k[i].l) * 0x100000001b3ULL;
			h ^= h >> 29;
		}
		h = (h ^ 0xff) * 0x100000001b3ULL;
	}
	return h ? h : 1;
}

static bool st_keys_eq(const struct rt_value *a, const struct rt_value *b, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (st_cmp(a[i], b[i]) != 0)
			return false;
	return true;
}

/* ---- statistics ---- */

static void st_stat_reset(struct st_stat *s, unsigned nbuckets)
{
	int64_t *h = s->hist;

	memset(s, 0, sizeof(*s));
	s->hist = h;
	if (h)
		memset(h, 0, nbuckets * sizeof(*h));
}

static int st_log_bucket(int64_t v)
{
	uint64_t u;
	int b = 0;

	if (v == 0)
		return ST_LOG_BUCKET0;
	u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	while (u) {
		b++;
		u >>= 1;
	}
	return v < 0 ? ST_LOG_BUCKET0 - b : ST_LOG_BUCKET0 + b;
}

static int64_t st_log_value(int b)
{
	if (b == ST_LOG_BUCKET0)
		return 0;
	if (b < ST_LOG_BUCKET0)
		return -((int64_t)1 << (ST_LOG_BUCKET0 - b - 1));
	return (int64_t)1 << (b - ST_LOG_BUCKET0 - 1);
}

static unsigned st_lin_bucket(const struct ir_global *g, unsigned nb, int64_t v)
{
	int64_t b;

	if (v < g->lin_start)
		return 0;
	b = (v - g->lin_start) / g->lin_step + 1;
	return b >= (int64_t)nb - 1 ? nb - 1 : (unsigned)b;
}

static void st_stat_update(const struct st_global *sg, struct st_stat *s, int64_t v)
{
	int64_t delta;

	if (s->count == 0) {
		s->count = 1;
		s->sum = s->min = s->max = s->avg_s = v;
		s->m2 = s->variance = 0;
	} else {
		s->count++;
		s->sum += v;
		if (v > s->max)
			s->max = v;
		if (v < s->min)
			s->min = v;
		/* Welford's algorithm in integers, as stap's runtime does. */
		delta = v - s->avg_s;
		s->avg_s += delta / s->count;
		s->m2 += delta * (v - s->avg_s);
		s->variance = s->m2 / (s->count - 1);
	}
	if (s->hist)
		s->hist[sg->g->hist_log ? (unsigned)st_log_bucket(v) :
			st_lin_bucket(sg->g, sg->nbuckets, v)]++;
}

static int st_stat_init(const struct st_global *sg, struct st_stat *s)
{
	memset(s, 0, sizeof(*s));
	if (sg->nbuckets && !(s->hist = calloc(sg->nbuckets, sizeof(*s->hist))))
		return -1;
	return 0;
}

static enum st_err st_stat_value(const struct st_stat *s, enum ir_stat op, int64_t *out)
{
	*out = 0;
	switch (op) {
	case IR_STAT_COUNT: *out = s ? s->count : 0; return ST_OK;
	case IR_STAT_SUM: *out = s ? s->sum : 0; return ST_OK;
	default: break;
	}
	if (!s || s->count == 0)
		return ST_EMPTY;
	switch (op) {
	case IR_STAT_MIN: *out = s->min; break;
	case IR_STAT_MAX: *out = s->max; break;
	case IR_STAT_AVG: *out = s->sum / s->count; break;
	default: *out = s->variance; break;
	}
	return ST_OK;
}

/* ---- arrays ---- */

static struct st_ent *st_find(struct st_global *sg, const struct rt_value *keys,
			      uint64_t h, size_t *slot)
{
	struct st_array *a = &sg->a;
	size_t i, mask = a->nslots - 1, tomb = SIZE_MAX;
	uint32_t s;

	if (!a->nslots) {
		*slot = SIZE_MAX;
		return NULL;
	}
	for (i = h & mask;; i = (i + 1) & mask) {
		s = a->slots[i];
		if (s == 0)
			break;
		if (s == ST_TOMB) {
			if (tomb == SIZE_MAX)
				tomb = i;
			continue;
		}
		if (a->ents[s - 1]->hash == h &&
		    st_keys_eq(a->ents[s - 1]->keys, keys, sg->g->nkeys)) {
			*slot = i;
			return a->ents[s - 1];
		}
	}
	*slot = tomb != SIZE_MAX ? tomb : i;
	return NULL;
}

static void st_ent_free(const struct st_global *sg, struct st_ent *e)
{
	unsigned k;

	if (!e)
		return;
	for (k = 0; k < sg->g->nkeys; k++)
		st_drop(&e->keys[k]);
	st_drop(&e->v);
	if (e->stat)
		free(e->stat->hist);
	free(e->stat);
	free(e);
}

/* Rebuild the index and squeeze the holes out of the vector. */
static int st_rehash(struct st_global *sg, size_t nslots)
{
	struct st_array *a = &sg->a;
	uint32_t *slots = calloc(nslots, sizeof(*slots));
	size_t i, j = 0, s;

	if (!slots)
		return -1;
	for (i = a->first; i < a->n; i++) {
		if (!a->ents[i])
			continue;
		a->ents[j] = a->ents[i];
		for (s = a->ents[j]->hash & (nslots - 1); slots[s];
		     s = (s + 1) & (nslots - 1))
			;
		slots[s] = (uint32_t)(j + 1);
		j++;
	}
	free(a->slots);
	a->slots = slots;
	a->nslots = nslots;
	a->n = j;
	a->first = 0;
	a->used = j;
	return 0;
}

static int st_grow(struct st_global *sg)
{
	struct st_array *a = &sg->a;
	struct st_ent **v;
	size_t want = a->nslots ? a->nslots : 64;

	while ((a->live + 1) * 2 > want)
		want *= 2;
	if ((a->used + 1) * 4 > a->nslots * 3 || want > a->nslots)
		if (st_rehash(sg, want) != 0)
			return -1;
	if (a->n == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;

		if (!(v = realloc(a->ents, cap * sizeof(*v))))
			return -1;
		a->ents = v;
		a->cap = cap;
	}
	return 0;
}

static void st_unlink(struct st_global *sg, size_t slot)
{
	struct st_array *a = &sg->a;
	uint32_t i = a->slots[slot] - 1;

	st_ent_free(sg, a->ents[i]);
	a->ents[i] = NULL;
	a->slots[slot] = ST_TOMB;
	a->live--;
	while (a->first < a->n && !a->ents[a->first])
		a->first++;
}

/* '%' arrays: make room by dropping the oldest entry. */
static void st_evict_oldest(struct st_global *sg)
{
	struct st_array *a = &sg->a;
	struct st_ent *e;
	size_t slot;

	while (a->first < a->n && !a->ents[a->first])
		a->first++;
	if (a->first == a->n)
		return;
	e = a->ents[a->first];
	if (st_find(sg, e->keys, e->hash, &slot) == e)
		st_unlink(sg, slot);
}

static enum st_err st_insert(struct rt_store *s, struct st_global *sg,
			     const struct rt_value *keys, uint64_t h, struct st_ent **out)
{
	struct st_array *a = &sg->a;
	unsigned k, nk = sg->g->nkeys;
	struct st_ent *e;
	size_t slot;

	if (a->live >= sg->maxent) {
		if (!sg->g->wrap)
			return ST_FULL;
		st_evict_oldest(sg);
	}
	if (st_grow(sg) != 0 || !(e = calloc(1, sizeof(*e) + nk * sizeof(e->keys[0]))))
		return ST_FULL;
	e->hash = h;
	for (k = 0; k < nk; k++)
		e->keys[k] = st_copy(keys[k], s->maxstringlen);
	e->v = st_zero(sg->g->type);
	if (sg->g->type == RT_STATS) {
		e->stat = malloc(sizeof(*e->stat));
		if (!e->stat || st_stat_init(sg, e->stat) != 0) {
			st_ent_free(sg, e);
			return ST_FULL;
		}
	}
	st_find(sg, keys, h, &slot);
	if (a->slots[slot] == 0)
		a->used++;
	a->ents[a->n] = e;
	a->slots[slot] = (uint32_t)(++a->n);
	a->live++;
	*out = e;
	return ST_OK;
}

/* The entry for @keys, created when @create; NULL if absent (or full). */
static enum st_err st_lookup(struct rt_store *s, unsigned g, const struct rt_value *keys,
			     bool create, struct st_ent **out)
{
	struct st_global *sg = &s->gl[g];
	uint64_t h = st_hash(keys, sg->g->nkeys);
	size_t slot;

	*out = st_find(sg, keys, h, &slot);
	if (*out || !create)
		return ST_OK;
	return st_insert(s, sg, keys, h, out);
}

/* Does entry @e match the fixed keys of @keys (bits of @star: any)? */
static bool st_match(const struct st_ent *e, const struct rt_value *keys,
		     unsigned nkeys, uint32_t star)
{
	unsigned k;

	for (k = 0; k < nkeys; k++)
		if (!(star & (1u << k)) && st_cmp(e->keys[k], keys[k]) != 0)
			return false;
	return true;
}

/* ---- the store ---- */

static int st_global_init(struct rt_store *s, unsigned i, unsigned maxmapentries)
{
	struct st_global *sg = &s->gl[i];
	const struct ir_global *g = &s->prog->globals[i];

	sg->g = g;
	sg->maxent = g->maxentries > 0 ? (size_t)g->maxentries : maxmapentries;
	if (g->hist_log)
		sg->nbuckets = ST_LOG_BUCKETS;
	else if (g->hist_linear && g->lin_step > 0 && g->lin_stop >= g->lin_start)
		sg->nbuckets = (unsigned)((g->lin_stop - g->lin_start) / g->lin_step + 3);
	if (g->is_array)
		return 0;
	if (g->type == RT_STATS)
		return st_stat_init(sg, &sg->stat);
	sg->v = g->init.type ? st_copy(g->init, s->maxstringlen) : st_zero(g->type);
	return 0;
}

struct rt_store *st_new(const struct ir_prog *p, unsigned maxmapentries,
			unsigned maxstringlen)
{
	struct rt_store *s = calloc(1, sizeof(*s));
	unsigned i;

	if (!s)
		return NULL;
	s->prog = p;
	s->maxstringlen = maxstringlen;
	s->gl = calloc(p->nglobals + 1, sizeof(*s->gl));
	if (!s->gl) {
		free(s);
		return NULL;
	}
	for (i = 0; i < p->nglobals; i++) {
		if (st_global_init(s, i, maxmapentries) != 0) {
			st_free(s);
			return NULL;
		}
	}
	return s;
}

static void st_array_clear(struct st_global *sg)
{
	struct st_array *a = &sg->a;
	size_t i;

	for (i = 0; i < a->n; i++)
		st_ent_free(sg, a->ents[i]);
	free(a->ents);
	free(a->slots);
	memset(a, 0, sizeof(*a));
}

void st_free(struct rt_store *s)
{
	unsigned i;

	if (!s)
		return;
	for (i = 0; s->gl && i < s->prog->nglobals; i++) {
		if (!s->gl[i].g)
			continue;
		st_array_clear(&s->gl[i]);
		st_drop(&s->gl[i].v);
		free(s->gl[i].stat.hist);
	}
	free(s->gl);
	free(s);
}

struct rt_value st_get(struct rt_store *s, unsigned g)
{
	return s->gl[g].v;
}

void st_set(struct rt_store *s, unsigned g, struct rt_value v)
{
	struct rt_value old = s->gl[g].v;

	/* Copy first: @v may be the old value itself. */
	s->gl[g].v = st_copy(v, s->maxstringlen);
	st_drop(&old);
}

void st_reset(struct rt_store *s, unsigned g)
{
	struct st_global *sg = &s->gl[g];

	if (sg->g->is_array) {
		st_array_clear(sg);
	} else if (sg->g->type == RT_STATS) {
		st_stat_reset(&sg->stat, sg->nbuckets);
	} else {
		st_drop(&sg->v);
		sg->v = st_zero(sg->g->type);
	}
}

struct rt_value st_aget(struct rt_store *s, unsigned g, const struct rt_value *keys)
{
	struct st_ent *e;

	st_lookup(s, g, keys, false, &e);
	return e ? e->v : st_zero(s->gl[g].g->type);
}

enum st_err st_aset(struct rt_store *s, unsigned g, const struct rt_value *keys,
		    struct rt_value v)
{
	struct rt_value old;
	struct st_ent *e;
	enum st_err r = st_lookup(s, g, keys, true, &e);

	if (r != ST_OK)
		return r;
	old = e->v;
	e->v = st_copy(v, s->maxstringlen);
	st_drop(&old);
	return ST_OK;
}

enum st_err st_aref(struct rt_store *s, unsigned g, const struct rt_value *keys,
		    struct rt_value *cur)
{
	struct st_ent *e;
	enum st_err r = st_lookup(s, g, keys, true, &e);

	*cur = r == ST_OK ? e->v : st_zero(s->gl[g].g->type);
	return r;
}

bool st_ain(struct rt_store *s, unsigned g, const struct rt_value *keys,
	    uint32_t star_mask)
{
	struct st_global *sg = &s->gl[g];
	struct st_ent *e;
	size_t i;

	if (!star_mask) {
		st_lookup(s, g, keys, false, &e);
		return e != NULL;
	}
	for (i = sg->a.first; i < sg->a.n; i++)
		if (sg->a.ents[i] && st_match(sg->a.ents[i], keys, sg->g->nkeys, star_mask))
			return true;
	return false;
}

enum st_err st_adel(struct rt_store *s, unsigned g, const struct rt_value *keys,
		    uint32_t star_mask)
{
	struct st_global *sg = &s->gl[g];
	struct st_ent *e;
	size_t i, slot;

	for (i = sg->a.first; i < sg->a.n; i++) {
		e = sg->a.ents[i];
		if (!e || !st_match(e, keys, sg->g->nkeys, star_mask))
			continue;
		if (st_find(sg, e->keys, e->hash, &slot) == e)
			st_unlink(sg, slot);
		if (!star_mask)
			break;
	}
	return ST_OK;
}

enum st_err st_aclear(struct rt_store *s, unsigned g)
{
	st_array_clear(&s->gl[g]);
	return ST_OK;
}

/* The statistic of global @g (an element of it when @keys). */
static enum st_err st_stat_of(struct rt_store *s, unsigned g, const struct rt_value *keys,
			      bool create, struct st_stat **out)
{
	struct st_ent *e;
	enum st_err r;

	if (!keys) {
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

enum st_err st_stat_get(struct rt_store *s, unsigned g, const struct rt_value *keys,
			enum ir_stat op, int64_t *out)
{
	struct st_stat *st;

	st_stat_of(s, g, keys, false, &st);
	return st_stat_value(st, op, out);
}

/* ---- histograms ---- */

static int st_space(int64_t v)
{
	int n = v <= 0 ? 1 : 0;

	while (v) {
		v /= 10;
		n++;
	}
	return n;
}

static void st_pad(struct rt_buf *out, int n, char c)
{
	while (n-- > 0)
		buf_addc(out, c);
}

/* Row @i's label: "<start", ">last" (linear ends) or the bucket value. */
static int st_label(const struct st_global *sg, unsigned i, char *buf, size_t len)
{
	const struct ir_global *g = sg->g;

	if (g->hist_log)
		return snprintf(buf, len, "%" PRId64, st_log_value((int)i));
	if (i == 0)
		return snprintf(buf, len, "<%" PRId64, g->lin_start);
	if (i == sg->nbuckets - 1)
		return snprintf(buf, len, ">%" PRId64,
				g->lin_start + (int64_t)(i - 2) * g->lin_step);
	return snprintf(buf, len, "%" PRId64, g->lin_start + (int64_t)(i - 1) * g->lin_step);
}

/* The rows to print: the data's range, two zero rows either side. */
static bool st_hist_range(const struct st_global *sg, const int64_t *h, unsigned *lo,
			  unsigned *hi, int64_t *max)
{
	unsigned i, n = sg->nbuckets;
	bool any = false;

	*max = 0;
	*lo = *hi = 0;
	for (i = 0; i < n; i++) {
		if (h[i] > 0 && !any) {
			*lo = i;
			any = true;
		}
		if (h[i] > 0)
			*hi = i;
		if (h[i] > *max)
			*max = h[i];
	}
	if (!any)
		return false;
	for (i = 0; i < 2; i++) {
		if (sg->g->hist_log ? *lo > 0 && *lo != ST_LOG_BUCKET0 : *lo > 0)
			(*lo)--;
		if (*hi < n - 1)
			(*hi)++;
	}
	if (sg->g->hist_linear) {
		/* The under- and overflow rows only when they count something. */
		if (*lo == 0 && h[0] == 0)
			(*lo)++;
		if (*hi == n - 1 && h[*hi] == 0)
			(*hi)--;
	}
	return true;
}

/* Is row @i in a run of zero rows that stap elides? */
static bool st_elide(const int64_t *h, unsigned lo, unsigned hi, unsigned i)
{
	unsigned a = i > lo + ST_HIST_ELISION ? i - ST_HIST_ELISION : lo;
	unsigned b = i + ST_HIST_ELISION < hi ? i + ST_HIST_ELISION : hi;

	for (; a <= b; a++)
		if (h[a] != 0)
			return false;
	return true;
}

static void st_hist_render(const struct st_global *sg, const int64_t *h, struct rt_buf *out)
{
	unsigned lo, hi, i;
	int64_t max, scale, bar;
	int vspace = 5, cspace, n;
	bool eliding = false;
	char label[32];

	if (!st_hist_range(sg, h, &lo, &hi, &max)) {
		buf_adds(out, "value |-------------------------------------------------- count\n\n");
		return;
	}
	scale = max <= ST_HIST_WIDTH ? 1 : (max + ST_HIST_WIDTH - 1) / ST_HIST_WIDTH;
	cspace = st_space(max);
	for (i = lo; i <= hi; i++)
		if ((n = st_label(sg, i, label, sizeof(label))) > vspace)
			vspace = n;
	st_pad(out, vspace - 5, ' ');
	buf_adds(out, "value |");
	st_pad(out, ST_HIST_WIDTH, '-');
	buf_adds(out, " count\n");
	for (i = lo; i <= hi; i++) {
		if (st_elide(h, lo, hi, i)) {
			eliding = true;
			continue;
		}
		if (eliding) {
			st_pad(out, vspace, ' ');
			buf_adds(out, " ~\n");
			eliding = false;
		}
		n = st_label(sg, i, label, sizeof(label));
		st_pad(out, vspace - n, ' ');
		buf_printf(out, "%s |", label);
		bar = h[i] / scale;
		st_pad(out, (int)bar, '@');
		st_pad(out, ST_HIST_WIDTH - (int)bar + 1 + cspace - st_space(h[i]), ' ');
		buf_printf(out, "%" PRId64 "\n", h[i]);
	}
	buf_addc(out, '\n');
}

void st_hist_text(struct rt_store *s, unsigned g, const struct rt_value *keys,
		  enum ir_hist kind, struct rt_buf *out)
{
	struct st_global *sg = &s->gl[g];
	struct st_stat *st;
	int64_t *zero;

	(void)kind;
	st_stat_of(s, g, keys, false, &st);
	if (st && st->hist) {
		st_hist_render(sg, st->hist, out);
		return;
	}
	zero = calloc(sg->nbuckets + 1, sizeof(*zero));
	if (zero)
		st_hist_render(sg, zero, out);
	free(zero);
}

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

/* ---- foreach ---- */

struct st_sort {
	const struct ir_foreach *fe;
	unsigned nkeys;
};

static int64_t st_ent_stat(const struct st_ent *e, enum ir_stat op)
{
	int64_t v;

	st_stat_value(e->stat, op, &v);
	return v;
}

static int st_ent_cmp(const struct st_ent *a, const struct st_ent *b,
		      const struct st_sort *how)
{
	const struct ir_foreach *fe = how->fe;
	unsigned k;
	int c = 0;

	if (fe->sort_key > 0) {
		c = st_cmp(a->keys[fe->sort_key - 1], b->keys[fe->sort_key - 1]);
	} else if (fe->sort_key < 0) {
		if (a->stat)
			c = st_cmp(rt_long(st_ent_stat(a, fe->sort_stat)),
				   rt_long(st_ent_stat(b, fe->sort_stat)));
		else
			c = st_cmp(a->v, b->v);
	}
	if (c)
		return fe->sort_dir < 0 ? -c : c;
	/* Ties: by the keys, in order, so output never depends on hashing. */
	for (k = 0; k < how->nkeys && !c; k++)
		c = st_cmp(a->keys[k], b->keys[k]);
	return c;
}

/* A stable merge sort (qsort has no context argument in C11). */
static void st_sort(struct st_ent **v, struct st_ent **tmp, size_t n,
		    const struct st_sort *how)
{
	size_t m = n / 2, i = 0, j = m, k = 0;

	if (n < 2)
		return;
	st_sort(v, tmp, m, how);
	st_sort(v + m, tmp, n - m, how);
	while (i < m && j < n)
		tmp[k++] = st_ent_cmp(v[j], v[i], how) < 0 ? v[j++] : v[i++];
	while (i < m)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, n * sizeof(*v));
}

static struct st_iter *st_iter_hist(struct rt_store *s, const struct ir_foreach *fe,
				    const struct rt_value *hist_keys, int64_t limit)
{
	struct st_global *sg = &s->gl[fe->global];
	struct st_iter *it = calloc(1, sizeof(*it));
	struct st_stat *st;
	unsigned i;

	if (!it)
		return NULL;
	st_stat_of(s, fe->global, sg->g->is_array ? hist_keys : NULL, false, &st);
	it->nbuckets = sg->nbuckets;
	it->hist = calloc(sg->nbuckets + 1, sizeof(*it->hist));
	it->order = calloc(sg->nbuckets + 1, sizeof(*it->order));
	if (!it->hist || !it->order) {
		st_iter_free(it);
		return NULL;
	}
	if (st && st->hist)
		memcpy(it->hist, st->hist, sg->nbuckets * sizeof(*it->hist));
	/* Buckets that count something, in bucket order (or sorted). */
	for (i = 0; i < sg->nbuckets; i++)
		if (it->hist[i])
			it->order[it->n++] = i;
	if (fe->sort_key != 0 && it->n > 1) {
		size_t a, b;

		for (a = 1; a < it->n; a++)
			for (b = a; b > 0; b--) {
				int64_t x = it->order[b - 1], y = it->order[b];
				int64_t kx = fe->sort_key > 0 ? x : it->hist[x];
				int64_t ky = fe->sort_key > 0 ? y : it->hist[y];
				bool swap = fe->sort_dir < 0 ? kx < ky : kx > ky;

				if (!swap)
					break;
				it->order[b - 1] = y;
				it->order[b] = x;
			}
	}
	if (limit >= 0 && (size_t)limit < it->n)
		it->n = (size_t)limit;
	return it;
}

static struct st_ent *st_ent_dup(struct rt_store *s, const struct st_ent *e,
				 unsigned nkeys, enum ir_stat op)
{
	struct st_ent *d = calloc(1, sizeof(*d) + nkeys * sizeof(d->keys[0]));
	unsigned k;

	if (!d)
		return NULL;
	for (k = 0; k < nkeys; k++)
		d->keys[k] = st_copy(e->keys[k], s->maxstringlen);
	d->v = e->stat ? rt_long(st_ent_stat(e, op)) : st_copy(e->v, s->maxstringlen);
	return d;
}

struct st_iter *st_iter_new(struct rt_store *s, const struct ir_foreach *fe,
			    const struct rt_value *slice, int64_t limit,
			    const struct rt_value *hist_keys)
{
	struct st_global *sg = &s->gl[fe->global];
	struct st_sort how = { fe, sg->g->nkeys };
	struct st_ent **tmp;
	struct st_iter *it;
	uint32_t star = fe->has_slice ? fe->slice_mask : ~0u;
	size_t i;

	if (fe->hist)
		return st_iter_hist(s, fe, hist_keys, limit);
	it = calloc(1, sizeof(*it));
	if (!it)
		return NULL;
	it->nkeys = sg->g->nkeys;
	it->v = calloc(sg->a.live + 1, sizeof(*it->v));
	tmp = calloc(sg->a.live + 1, sizeof(*tmp));
	if (!it->v || !tmp) {
		free(tmp);
		st_iter_free(it);
		return NULL;
	}
	for (i = sg->a.first; i < sg->a.n; i++)
		if (sg->a.ents[i] && (!fe->has_slice ||
				      st_match(sg->a.ents[i], slice, sg->g->nkeys, star)))
			tmp[it->n++] = sg->a.ents[i];
	if (fe->sort_key != 0)
		st_sort(tmp, it->v, it->n, &how);
	if (limit >= 0 && (size_t)limit < it->n)
		it->n = (size_t)limit;
	for (i = 0; i < it->n; i++)
		it->v[i] = st_ent_dup(s, tmp[i], sg->g->nkeys, fe->sort_stat);
	free(tmp);
	return it;
}

bool st_iter_next(struct st_iter *it, struct rt_value *keys, struct rt_value *value)
{
	unsigned k;

	if (it->i >= it->n)
		return false;
	if (it->hist) {
		int64_t b = it->order[it->i++];

		keys[0] = rt_long(b);
		*value = rt_long(it->hist[b]);
		return true;
	}
	if (!it->v[it->i]) {
		it->i++;
		return st_iter_next(it, keys, value);
	}
	for (k = 0; k < it->nkeys; k++)
		keys[k] = it->v[it->i]->keys[k];
	*value = it->v[it->i]->v;
	it->i++;
	return true;
}

void st_iter_free(struct st_iter *it)
{
	size_t i;
	unsigned k;

	if (!it)
		return;
	for (i = 0; it->v && i < it->n; i++) {
		if (!it->v[i])
			continue;
		for (k = 0; k < it->nkeys; k++)
			st_drop(&it->v[i]->keys[k]);
		st_drop(&it->v[i]->v);
		free(it->v[i]);
	}
	free(it->v);
	free(it->hist);
	free(it->order);
	free(it);
}

/* ---- printing globals at exit ---- */

static void st_print_value(struct rt_buf *out, struct rt_value v)
{
	if (v.type == RT_STRING)
		buf_printf(out, "\"%.*s\"", (int)v.len, v.s);
	else
		buf_printf(out, "%" PRId64, v.l);
}

static void st_print_stat(struct rt_buf *out, const struct st_stat *st)
{
	buf_printf(out, " @count=%" PRId64 " @min=%" PRId64 " @max=%" PRId64
		   " @sum=%" PRId64 " @avg=%" PRId64 "\n", st->count, st->min, st->max,
		   st->sum, st->count ? st->sum / st->count : 0);
}

static void st_print_entry(struct rt_buf *out, const struct st_global *sg,
			   const struct st_ent *e)
{
	unsigned k;

	buf_printf(out, "%s[", sg->g->name);
	for (k = 0; k < sg->g->nkeys; k++) {
		if (k)
			buf_addc(out, ',');
		st_print_value(out, e->keys[k]);
	}
	buf_addc(out, ']');
	if (e->stat) {
		st_print_stat(out, e->stat);
	} else {
		buf_addc(out, '=');
		st_print_value(out, e->v);
		buf_addc(out, '\n');
	}
}

/* An array, sorted by value, largest first (stap: foreach (... in a-)). */
static void st_print_array(struct rt_store *s, unsigned g, struct rt_buf *out)
{
	struct st_global *sg = &s->gl[g];
	struct ir_foreach fe = { .global = g, .nkeys = sg->g->nkeys, .sort_key = -1,
				 .sort_dir = -1, .sort_stat = IR_STAT_COUNT };
	struct st_sort how = { &fe, sg->g->nkeys };
	struct st_ent **v = calloc(sg->a.live + 1, sizeof(*v));
	struct st_ent **tmp = calloc(sg->a.live + 1, sizeof(*tmp));
	size_t i, n = 0;

	if (v && tmp) {
		for (i = sg->a.first; i < sg->a.n; i++)
			if (sg->a.ents[i])
				v[n++] = sg->a.ents[i];
		st_sort(v, tmp, n, &how);
		for (i = 0; i < n; i++)
			st_print_entry(out, sg, v[i]);
	}
	free(v);
	free(tmp);
}

void st_autoprint(struct rt_store *s, struct rt_buf *out)
{
	unsigned i;

	for (i = 0; i < s->prog->nglobals; i++) {
		struct st_global *sg = &s->gl[i];

		if (!sg->g->autoprint)
			continue;
		if (sg->g->is_array) {
			st_print_array(s, i, out);
		} else if (sg->g->type == RT_STATS) {
			if (sg->stat.count) {
				buf_adds(out, sg->g->name);
				st_print_stat(out, &sg->stat);
			}
		} else {
			buf_printf(out, "%s=", sg->g->name);
			st_print_value(out, sg->v);
			buf_addc(out, '\n');
		}
	}
}
