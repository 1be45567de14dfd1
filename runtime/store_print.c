/*
 * store_print.c - the text stap prints from the store: histograms
 * (@hist_log/@hist_linear, as runtime/stat-common.c's
 * _stp_stat_print_histogram_buf) and the globals a script wrote but
 * never read, at exit (elaborate.cxx's add_global_var_display).  Reads
 * the store through store_int.h; changes nothing in it.
 */
#include "store.h"
#include "store_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define ST_HIST_WIDTH 50	/* stap's HIST_WIDTH: bar columns */

/* ---- histogram text (_stp_stat_print_histogram_buf) ---- */

struct st_hist {
	const struct st_global *sg;
	const int64_t *h;
	unsigned n;			/* buckets */
	unsigned lo, hi;		/* rows printed */
	bool under, over;		/* linear: the end rows are printed */
	int64_t valmax, scale;
	int vspace, cspace;		/* value and count column widths */
	int elision;			/* HIST_ELISION (st_set_hist_elision) */
};

/* stap's needed_space(): characters of @v in decimal. */
static int st_space(int64_t v)
{
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	int n = v < 0 ? 1 : 0;

	if (v == 0)
		return 1;
	for (; u; u /= 10)
		n++;
	return n;
}

static void st_pad(struct rt_buf *out, int64_t n, char c)
{
	for (; n > 0; n--)
		buf_addc(out, c);
}

/*
 * The rows: the data's range, widened by up to two buckets on each side
 * (a log histogram does not widen below 0 unless it has negative data),
 * without empty under/overflow rows.  False for an empty histogram.
 */
static bool st_hist_rows(struct st_hist *t)
{
	bool lin = !t->sg->g->hist_log, any = false;
	unsigned i;

	for (i = 0; i < t->n; i++) {
		if (t->h[i] > 0) {
			t->lo = any ? t->lo : i;
			t->hi = i;
			any = true;
		}
		if (t->h[i] > t->valmax)
			t->valmax = t->h[i];
	}
	for (i = 0; any && i < 2; i++) {
		if (t->lo > 0 && (lin || t->lo != ST_LOG_BUCKET0))
			t->lo--;
		if (t->hi < t->n - 1)
			t->hi++;
	}
	if (lin && t->lo == 0 && t->h[0] == 0)
		t->lo++;
	if (lin && t->hi == t->n - 1 && t->h[t->hi] == 0)
		t->hi--;
	t->under = lin && t->lo == 0;
	t->over = lin && t->hi == t->n - 1;
	return any;
}

/*
 * Column widths.  The value column of a linear histogram is sized for
 * start + step * hi, one step more than the last label (as stap does),
 * and never narrower than "value".
 */
static void st_hist_widths(struct st_hist *t)
{
	const struct ir_global *g = t->sg->g;
	int a, b;

	t->scale = t->valmax <= ST_HIST_WIDTH ? 1 :
		(t->valmax + ST_HIST_WIDTH - 1) / ST_HIST_WIDTH;
	t->cspace = st_space(t->valmax);
	if (g->hist_log) {
		a = st_space(st_log_value(t->hi));
		b = st_space(st_log_value(t->lo));
	} else {
		a = st_space(g->lin_start) + t->under;
		b = st_space(st_wadd(g->lin_start, st_wmul(g->lin_step, t->hi))) + t->over;
	}
	t->vspace = a > b ? a : b;
	if (t->vspace < 5)
		t->vspace = 5;
}

/* Row @i is left out when it and its neighbours within HIST_ELISION
   rows (inside the printed range) are all zero; a negative HIST_ELISION
   leaves out nothing.  (The range itself is two rows past the used
   ones whatever HIST_ELISION is, as stap's.) */
static bool st_hist_elided(const struct st_hist *t, unsigned i)
{
	unsigned e = t->elision < 0 ? 0 : (unsigned)t->elision;
	unsigned a = i > t->lo + e ? i - e : t->lo;
	unsigned b = i + e < t->hi ? i + e : t->hi;

	if (t->elision < 0)
		return false;

	for (; a <= b; a++)
		if (t->h[a] != 0)
			return false;
	return true;
}

/* Row @i's label: its value, and "<" or ">" for the linear end rows. */
static int64_t st_hist_label(const struct st_hist *t, unsigned i, const char **prefix)
{
	const struct ir_global *g = t->sg->g;

	*prefix = "";
	if (g->hist_log)
		return st_log_value(i);
	if (i == 0) {
		*prefix = "<";
		return g->lin_start;
	}
	if (i == t->n - 1) {
		*prefix = ">";
		i--;
	}
	return st_wadd(g->lin_start, st_wmul((int64_t)i - 1, g->lin_step));
}

/* "  value |@@@@     count": the prefix right-aligned in what the
   number leaves of the value column, a bar, the count after it. */
static void st_hist_row(const struct st_hist *t, unsigned i, struct rt_buf *out)
{
	const char *prefix;
	int64_t val = st_hist_label(t, i, &prefix), bar = t->h[i] / t->scale;

	st_pad(out, t->vspace - st_space(val) - (int)strlen(prefix), ' ');
	buf_printf(out, "%s%" PRId64 " |", prefix, val);
	st_pad(out, bar, '@');
	st_pad(out, ST_HIST_WIDTH - bar + 1 + t->cspace - st_space(t->h[i]), ' ');
	buf_printf(out, "%" PRId64 "\n", t->h[i]);
}

/*
 * The walk both renderers share: @row for each printed row @i of the
 * range, elided rows left out; @gap is true when rows were left out
 * just before @i.  False (and no call) for an empty histogram.
 */
typedef void st_row_fn(const struct st_hist *t, unsigned i, bool gap, void *arg);

static bool st_hist_walk(struct st_hist *t, st_row_fn *row, void *arg)
{
	bool eliding = false;
	unsigned i;

	if (!t->n || !st_hist_rows(t))
		return false;
	st_hist_widths(t);
	for (i = t->lo; i <= t->hi; i++) {
		if (st_hist_elided(t, i)) {
			eliding = true;
			continue;
		}
		row(t, i, eliding, arg);
		eliding = false;
	}
	return true;
}

struct st_text {
	struct rt_buf *out;
	bool started;		/* the header is out */
};

static void st_hist_text_row(const struct st_hist *t, unsigned i, bool gap, void *arg)
{
	struct st_text *x = arg;
	struct rt_buf *out = x->out;

	if (!x->started) {
		x->started = true;
		st_pad(out, t->vspace - 5, ' ');
		buf_adds(out, "value |");
		st_pad(out, ST_HIST_WIDTH, '-');
		buf_adds(out, " count\n");
	}
	if (gap) {
		st_pad(out, t->vspace, ' ');
		buf_adds(out, " ~\n");
	}
	st_hist_row(t, i, out);
}

static void st_hist_render(const struct rt_store *s, const struct st_global *sg,
			   const int64_t *h, struct rt_buf *out)
{
	struct st_hist t = { .sg = sg, .h = h, .n = sg->nbuckets, .elision = s->hist_elision };
	struct st_text x = { out, false };

	if (st_hist_walk(&t, st_hist_text_row, &x))
		buf_addc(out, '\n');
}

/*
 * An empty statistic (or a missing element) prints nothing here: stap
 * raises "empty aggregate" instead of printing, which the caller can
 * tell from st_stat_get(..., IR_STAT_COUNT) being 0.
 */
void st_hist_text(struct rt_store *s, unsigned g, const struct rt_value *keys,
		  enum ir_hist kind, struct rt_buf *out)
{
	struct st_stat *st;

	(void)kind;	/* a global has one histogram kind; sema checks it */
	st_stat_of(s, g, keys, false, &st);
	if (st && st->count && st->hist)
		st_hist_render(s, &s->gl[g], st->hist, out);
}

/* Row @i's values: log buckets hold [2^k, 2^(k+1)) and the negative
   mirror; linear ones [start + (i-1) step, + step), the end rows open. */
static struct st_bucket st_bucket_of(const struct st_hist *t, unsigned i)
{
	const struct ir_global *g = t->sg->g;
	struct st_bucket b = { .count = t->h[i], .has_min = true, .has_max = true };
	int64_t v;

	if (g->hist_log) {
		v = st_log_value(i);
		b.min = b.max = v;
		if (v > 0)
			b.max = st_wsub(st_wmul(v, 2), 1);
		else if (v < 0)
			b.min = i == 0 ? INT64_MIN : st_wadd(st_wmul(v, 2), 1);
		return b;
	}
	b.has_min = i > 0;
	b.has_max = i < t->n - 1;
	b.min = st_wadd(g->lin_start, st_wmul((int64_t)i - 1, g->lin_step));
	b.max = i == 0 ? st_wsub(g->lin_start, 1) : st_wsub(st_wadd(b.min, g->lin_step), 1);
	return b;
}

struct st_each {
	void (*fn)(void *arg, const struct st_bucket *b);
	void *arg;
};

static void st_hist_each_row(const struct st_hist *t, unsigned i, bool gap, void *arg)
{
	const struct st_each *e = arg;
	struct st_bucket b = st_bucket_of(t, i);

	(void)gap;
	e->fn(e->arg, &b);
}

void st_hist_each(struct rt_store *s, unsigned g, const struct rt_value *keys,
		  void (*fn)(void *arg, const struct st_bucket *b), void *arg)
{
	struct st_each e = { fn, arg };
	struct st_stat *st;
	struct st_hist t = { .sg = &s->gl[g], .n = s->gl[g].nbuckets,
			     .elision = s->hist_elision };

	st_stat_of(s, g, keys, false, &st);
	if (!st || !st->count || !st->hist)
		return;
	t.h = st->hist;
	st_hist_walk(&t, st_hist_each_row, &e);
}

/* ---- printing globals at exit (elaborate.cxx add_global_var_display) ---- */

static void st_print_value(struct rt_buf *out, struct rt_value v)
{
	if (v.type == RT_STRING)
		buf_printf(out, "\"%.*s\"", (int)v.len, v.s);
	else
		buf_printf(out, "%" PRId64, v.l);
}

/* name, or name[k1,"k2"] for an array's element. */
static void st_print_name(struct rt_buf *out, const char *name,
			  const struct rt_value *keys, unsigned nkeys)
{
	unsigned k;

	buf_adds(out, name);
	if (!keys)
		return;
	buf_addc(out, '[');
	for (k = 0; k < nkeys; k++) {
		if (k)
			buf_addc(out, ',');
		st_print_value(out, keys[k]);
	}
	buf_addc(out, ']');
}

/* A value: stap's "=%#x" for numbers (0x0, negatives as 64-bit two's
   complement), its keys are "%#d". */
static void st_text_value(void *arg, const char *name, const struct rt_value *keys,
			  unsigned nkeys, struct rt_value v)
{
	st_print_name(arg, name, keys, nkeys);
	buf_addc(arg, '=');
	if (v.type == RT_STRING)
		st_print_value(arg, v);
	else
		buf_printf(arg, "0x%" PRIx64, (uint64_t)v.l);
	buf_addc(arg, '\n');
}

/* An empty scalar statistic is "name @count=0x0": stap prints that literal. */
static void st_text_stat(void *arg, const char *name, const struct rt_value *keys,
			 unsigned nkeys, const struct st_values *sv)
{
	st_print_name(arg, name, keys, nkeys);
	if (!keys && sv->count == 0) {
		buf_adds(arg, " @count=0x0\n");
		return;
	}
	buf_printf(arg, " @count=%" PRId64 " @min=%" PRId64 " @max=%" PRId64
		   " @sum=%" PRId64 " @avg=%" PRId64 "\n", sv->count, sv->min, sv->max,
		   sv->sum, sv->avg);
}

static void st_text_array(void *arg, const char *name, bool end)
{
	(void)arg;
	(void)name;
	(void)end;
}

static struct st_values st_values_of(const struct st_stat *st)
{
	return (struct st_values){ st->count, st->sum, st->min, st->max,
				   st_div(st->sum, st->count) };
}

/* Every element, by value (statistics: @count), largest first, as
   stap's synthetic "foreach (v = [k...] in name-)". */
static void st_print_array(struct st_global *sg, unsigned g, const struct st_printer *p)
{
	struct ir_foreach fe = { .global = g, .sort_key = -1, .sort_dir = -1,
				 .sort_stat = IR_STAT_COUNT };
	struct st_ent **v = st_snapshot(sg, &fe, -1, false);
	struct st_values sv;
	size_t i;

	p->array(p->arg, sg->g->name, false);
	for (i = 0; i < sg->a.n; i++) {
		if (v[i]->stat) {
			sv = st_values_of(v[i]->stat);
			p->stat(p->arg, sg->g->name, v[i]->keys, sg->g->nkeys, &sv);
		} else {
			p->value(p->arg, sg->g->name, v[i]->keys, sg->g->nkeys, v[i]->val.v);
		}
	}
	p->array(p->arg, sg->g->name, true);
	free(v);
}

/*
 * Each global written but never read, in declaration order, to @p: a
 * scalar, an array one element at a time, a statistic's
 * @count/@min/@max/@sum/@avg.  Histograms are not drawn.
 */
void st_print_globals(struct rt_store *s, const struct st_printer *p)
{
	struct st_global *sg;
	struct st_values sv;
	unsigned i;

	for (i = 0; i < s->prog->nglobals; i++) {
		sg = &s->gl[i];
		if (!sg->g->autoprint)
			continue;
		if (sg->g->is_array) {
			st_print_array(sg, i, p);
		} else if (sg->stats) {
			sv = sg->stat.count ? st_values_of(&sg->stat) : (struct st_values){ 0 };
			p->stat(p->arg, sg->g->name, NULL, 0, &sv);
		} else {
			p->value(p->arg, sg->g->name, NULL, 0, sg->val.v);
		}
	}
}

/* The text of st_print_globals(): name=value (strings quoted, bytes as
   they are), one line per array element. */
void st_autoprint(struct rt_store *s, struct rt_buf *out)
{
	struct st_printer p = { st_text_value, st_text_stat, st_text_array, out };

	st_print_globals(s, &p);
}
