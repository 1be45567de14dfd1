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
#define ST_HIST_ELISION 2	/* stap's HIST_ELISION: zero rows kept */

/* ---- histogram text (_stp_stat_print_histogram_buf) ---- */

struct st_hist {
	const struct st_global *sg;
	const int64_t *h;
	unsigned n;			/* buckets */
	unsigned lo, hi;		/* rows printed */
	bool under, over;		/* linear: the end rows are printed */
	int64_t valmax, scale;
	int vspace, cspace;		/* value and count column widths */
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

/* Row @i is left out when it and its neighbours within two rows (inside
   the printed range) are all zero. */
static bool st_hist_elided(const struct st_hist *t, unsigned i)
{
	unsigned a = i > t->lo + ST_HIST_ELISION ? i - ST_HIST_ELISION : t->lo;
	unsigned b = i + ST_HIST_ELISION < t->hi ? i + ST_HIST_ELISION : t->hi;

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

static void st_hist_render(const struct st_global *sg, const int64_t *h, struct rt_buf *out)
{
	struct st_hist t = { .sg = sg, .h = h, .n = sg->nbuckets };
	bool eliding = false;
	unsigned i;

	if (!t.n || !st_hist_rows(&t))
		return;
	st_hist_widths(&t);
	st_pad(out, t.vspace - 5, ' ');
	buf_adds(out, "value |");
	st_pad(out, ST_HIST_WIDTH, '-');
	buf_adds(out, " count\n");
	for (i = t.lo; i <= t.hi; i++) {
		if (st_hist_elided(&t, i)) {
			eliding = true;
			continue;
		}
		if (eliding) {
			st_pad(out, t.vspace, ' ');
			buf_adds(out, " ~\n");
			eliding = false;
		}
		st_hist_row(&t, i, out);
	}
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
		st_hist_render(&s->gl[g], st->hist, out);
}

/* ---- printing globals at exit (elaborate.cxx add_global_var_display) ---- */

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
		   st->sum, st_div(st->sum, st->count));
}

/* name[k1,"k2"]=value, or name[k1,"k2"] @count=... for statistics. */
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
		return;
	}
	buf_addc(out, '=');
	st_print_value(out, e->val.v);
	buf_addc(out, '\n');
}

/* Every element, by value (statistics: @count), largest first, as
   stap's synthetic "foreach (v = [k...] in name-)". */
static void st_print_array(struct st_global *sg, unsigned g, struct rt_buf *out)
{
	struct ir_foreach fe = { .global = g, .sort_key = -1, .sort_dir = -1,
				 .sort_stat = IR_STAT_COUNT };
	struct st_ent **v = st_snapshot(sg, &fe, -1, false);
	size_t i;

	for (i = 0; i < sg->a.n; i++)
		st_print_entry(out, sg, v[i]);
	free(v);
}

/*
 * Each global written but never read, in declaration order: a scalar as
 * name=value (strings quoted, bytes as they are), an array one line per
 * element, a statistic as its @count/@min/@max/@sum/@avg line (just
 * "@count=0x0" when empty: stap prints that literal).  Histograms are not
 * drawn.
 */
void st_autoprint(struct rt_store *s, struct rt_buf *out)
{
	struct st_global *sg;
	unsigned i;

	for (i = 0; i < s->prog->nglobals; i++) {
		sg = &s->gl[i];
		if (!sg->g->autoprint)
			continue;
		if (sg->g->is_array) {
			st_print_array(sg, i, out);
		} else if (sg->stats && sg->stat.count == 0) {
			buf_printf(out, "%s @count=0x0\n", sg->g->name);
		} else if (sg->stats) {
			buf_adds(out, sg->g->name);
			st_print_stat(out, &sg->stat);
		} else {
			buf_printf(out, "%s=", sg->g->name);
			st_print_value(out, sg->val.v);
			buf_addc(out, '\n');
		}
	}
}
