/*
 * test_store.c - runtime/store.c on hand-made programs: arrays with
 * mixed keys, MAXMAPENTRIES, '%' wrapping, '*' slices, statistics,
 * histogram text, foreach order, limit and slices, and the exit
 * printout.
 *
 * The expected texts are stap 4.8's: histograms and statistics were
 * produced by stap's own runtime/stat-common.c and stat.c (compiled in
 * user space around the same data), the rest follows the C that
 * `stap -p3` generates for the same script (sort calls, loop shapes,
 * printf formats of the exit printout).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../runtime/store.h"

/* ---- building programs by hand ---- */

/* A program with the globals @g (the store only reads ir_prog.globals). */
static struct ir_prog prog_of(struct ir_global *g, unsigned n)
{
	struct ir_prog p;

	memset(&p, 0, sizeof(p));
	p.globals = g;
	p.nglobals = n;
	return p;
}

static struct ir_global array(const char *name, enum rt_type vt, unsigned nkeys,
			      enum rt_type k0, enum rt_type k1)
{
	struct ir_global g;

	memset(&g, 0, sizeof(g));
	g.name = name;
	g.type = vt;
	g.is_array = true;
	g.nkeys = nkeys;
	g.keys[0] = k0;
	g.keys[1] = k1;
	return g;
}

static struct ir_global scalar(const char *name, enum rt_type t)
{
	struct ir_global g;

	memset(&g, 0, sizeof(g));
	g.name = name;
	g.type = t;
	return g;
}

static struct ir_global hist_log(const char *name)
{
	struct ir_global g = scalar(name, RT_STATS);

	g.hist_log = true;
	return g;
}

static struct ir_global hist_linear(const char *name, int64_t start, int64_t stop,
				    int64_t step)
{
	struct ir_global g = scalar(name, RT_STATS);

	g.hist_linear = true;
	g.lin_start = start;
	g.lin_stop = stop;
	g.lin_step = step;
	return g;
}

/* One store over one global, for the tests that need no more. */
struct one {
	struct ir_global g;
	struct ir_prog p;
	struct rt_store *s;
	struct rt_buf b;
};

static struct one *one_new(struct ir_global g)
{
	struct one *o = calloc(1, sizeof(*o));

	o->g = g;
	o->p = prog_of(&o->g, 1);
	o->s = st_new(&o->p, 2048, 512);
	return o;
}

static void one_free(struct one *o)
{
	st_free(o->s);
	buf_free(&o->b);
	free(o);
}

static void assert_text(struct rt_buf *b, const char *want)
{
	assert_string_equal(buf_cstr(b), want);
	buf_reset(b);
}

/* Add @n times @v to scalar statistic 0. */
static void add_n(struct rt_store *s, int64_t v, int n)
{
	while (n-- > 0)
		assert_int_equal(st_stat_add(s, 0, NULL, v), ST_OK);
}

static int64_t stat_of(struct rt_store *s, const struct rt_value *keys, enum ir_stat op)
{
	int64_t v = -12345;

	assert_int_equal(st_stat_get(s, 0, keys, op, &v), ST_OK);
	return v;
}

static struct rt_value *key1(struct rt_value *k, struct rt_value v)
{
	k[0] = v;
	return k;
}

static struct rt_value *key2(struct rt_value *k, struct rt_value a, struct rt_value b)
{
	k[0] = a;
	k[1] = b;
	return k;
}

/*
 * Run a foreach over global @g and append "k1,k2=v " per entry to @out
 * (strings bare, longs in decimal).
 */
static void walk(struct rt_store *s, const struct ir_foreach *fe,
		 const struct rt_value *slice, int64_t limit, struct rt_buf *out)
{
	struct st_iter *it = st_iter_new(s, fe, slice, limit, NULL);
	struct rt_value k[9], v;
	unsigned i;

	while (st_iter_next(it, k, &v)) {
		for (i = 0; i < fe->nkeys; i++) {
			if (i)
				buf_addc(out, ',');
			if (k[i].type == RT_STRING)
				buf_add(out, k[i].s, k[i].len);
			else
				buf_printf(out, "%lld", (long long)k[i].l);
		}
		if (v.type == RT_STRING)
			buf_printf(out, "=%.*s ", (int)v.len, v.s);
		else
			buf_printf(out, "=%lld ", (long long)v.l);
	}
	st_iter_free(it);
}

static struct ir_foreach fe_of(unsigned nkeys, int sort_key, int sort_dir)
{
	struct ir_foreach fe;

	memset(&fe, 0, sizeof(fe));
	fe.nkeys = nkeys;
	fe.sort_key = sort_key;
	fe.sort_dir = sort_dir;
	fe.want_value = true;
	return fe;
}

/* ---- arrays ---- */

static void test_mixed_keys(void **state)
{
	struct one *o = one_new(array("a", RT_LONG, 2, RT_STRING, RT_LONG));
	struct rt_value k[2], cur;

	(void)state;
	assert_int_equal(st_aset(o->s, 0, key2(k, rt_cstr("x"), rt_long(1)), rt_long(10)), ST_OK);
	assert_int_equal(st_aget(o->s, 0, key2(k, rt_cstr("x"), rt_long(1))).l, 10);
	/* Same bytes, other key: "x",2 and "x1",... are different elements. */
	assert_int_equal(st_aget(o->s, 0, key2(k, rt_cstr("x"), rt_long(2))).l, 0);
	assert_int_equal(st_aget(o->s, 0, key2(k, rt_cstr("x1"), rt_long(1))).l, 0);
	assert_false(st_ain(o->s, 0, key2(k, rt_cstr("x"), rt_long(2)), 0));	/* aget made nothing */
	assert_int_equal(st_aref(o->s, 0, key2(k, rt_cstr("x"), rt_long(2)), &cur), ST_OK);
	assert_int_equal(cur.type, RT_LONG);
	assert_int_equal(cur.l, 0);
	assert_true(st_ain(o->s, 0, k, 0));					/* aref did */
	assert_int_equal(st_aset(o->s, 0, key2(k, rt_cstr(""), rt_long(-1)), rt_long(7)), ST_OK);
	assert_int_equal(st_aget(o->s, 0, key2(k, rt_cstr(""), rt_long(-1))).l, 7);
	assert_true(st_ain(o->s, 0, key2(k, rt_cstr("zz"), rt_long(1)), 1));	/* [*, 1] */
	assert_false(st_ain(o->s, 0, key2(k, rt_cstr("zz"), rt_long(3)), 1));	/* [*, 3] */
	assert_true(st_ain(o->s, 0, k, 3));					/* [*, *] */
	one_free(o);
}

static void test_string_values(void **state)
{
	struct one *o = one_new(array("s", RT_STRING, 1, RT_LONG, 0));
	struct rt_value k[1], v;
	char big[100];

	(void)state;
	v = st_aget(o->s, 0, key1(k, rt_long(1)));
	assert_int_equal(v.type, RT_STRING);
	assert_int_equal(v.len, 0);
	st_aset(o->s, 0, k, rt_cstr("hello world"));
	/* a[1] = substr(a[1], 6): the value may point into the store. */
	v = st_aget(o->s, 0, k);
	st_aset(o->s, 0, k, rt_str(v.s + 6, 5));
	v = st_aget(o->s, 0, k);
	assert_int_equal(v.len, 5);
	assert_string_equal(v.s, "world");
	memset(big, 'q', sizeof(big));
	st_aset(o->s, 0, k, rt_str(big, sizeof(big)));	/* grows the buffer */
	assert_int_equal(st_aget(o->s, 0, k).len, 100);
	st_aset(o->s, 0, k, rt_cstr(""));
	assert_int_equal(st_aget(o->s, 0, k).len, 0);
	assert_true(st_ain(o->s, 0, k, 0));	/* "" is a value, not a delete */
	one_free(o);
}

static void test_full(void **state)
{
	struct ir_global g[2] = { array("a", RT_LONG, 1, RT_LONG, 0),
				  array("sized", RT_LONG, 1, RT_STRING, 0) };
	struct ir_prog p;
	struct rt_store *s;
	struct rt_value k[1], cur;
	int64_t i;

	(void)state;
	g[1].maxentries = 2;	/* global sized[2]: wins over MAXMAPENTRIES */
	p = prog_of(g, 2);
	s = st_new(&p, 100, 512);
	for (i = 0; i < 100; i++)
		assert_int_equal(st_aset(s, 0, key1(k, rt_long(i)), rt_long(i)), ST_OK);
	assert_int_equal(st_aset(s, 0, key1(k, rt_long(100)), rt_long(1)), ST_FULL);
	assert_int_equal(st_aref(s, 0, k, &cur), ST_FULL);	/* a[100]++ */
	assert_int_equal(cur.l, 0);
	assert_false(st_ain(s, 0, k, 0));
	/* Existing elements can still be written; a delete makes room. */
	assert_int_equal(st_aset(s, 0, key1(k, rt_long(5)), rt_long(-5)), ST_OK);
	assert_int_equal(st_aget(s, 0, k).l, -5);
	assert_int_equal(st_adel(s, 0, key1(k, rt_long(7)), 0), ST_OK);
	assert_int_equal(st_aset(s, 0, key1(k, rt_long(100)), rt_long(1)), ST_OK);
	assert_int_equal(st_aset(s, 1, key1(k, rt_cstr("a")), rt_long(1)), ST_OK);
	assert_int_equal(st_aset(s, 1, key1(k, rt_cstr("b")), rt_long(1)), ST_OK);
	assert_int_equal(st_aset(s, 1, key1(k, rt_cstr("c")), rt_long(1)), ST_FULL);
	st_free(s);
}

/* global ring[3]%: the first entry in map order gives way. */
static void test_wrap(void **state)
{
	struct one *o;
	struct ir_global g = array("ring", RT_LONG, 1, RT_LONG, 0);
	struct ir_foreach fe = fe_of(1, 0, 0);
	struct rt_value k[1];
	int64_t i;

	(void)state;
	g.maxentries = 3;
	g.wrap = true;
	o = one_new(g);
	for (i = 0; i < 5; i++)
		assert_int_equal(st_aset(o->s, 0, key1(k, rt_long(i)), rt_long(10 - i)), ST_OK);
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "2=8 3=7 4=6 ");
	/* Updating an element does not make it younger. */
	st_aset(o->s, 0, key1(k, rt_long(2)), rt_long(1));
	st_aset(o->s, 0, key1(k, rt_long(5)), rt_long(5));
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "3=7 4=6 5=5 ");
	/* A sorted foreach sorts the map itself: now 5 is first, and goes. */
	fe.sort_key = -1;
	fe.sort_dir = 1;
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "5=5 4=6 3=7 ");
	st_aset(o->s, 0, key1(k, rt_long(6)), rt_long(0));
	fe.sort_key = 0;
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "4=6 3=7 6=0 ");
	one_free(o);
}

static void test_delete_stars(void **state)
{
	struct one *o = one_new(array("b", RT_STRING, 2, RT_LONG, RT_STRING));
	struct ir_foreach fe = fe_of(2, 0, 0);
	struct rt_value k[2];
	int64_t i;

	(void)state;
	for (i = 0; i < 6; i++)
		st_aset(o->s, 0, key2(k, rt_long(i % 3), rt_cstr(i % 2 ? "odd" : "even")),
			rt_cstr("v"));
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "0,even=v 1,odd=v 2,even=v 0,odd=v 1,even=v 2,odd=v ");
	assert_int_equal(st_adel(o->s, 0, key2(k, rt_long(1), rt_cstr("")), 2), ST_OK);
	assert_false(st_ain(o->s, 0, k, 2));				/* [1, *] */
	assert_true(st_ain(o->s, 0, key2(k, rt_long(0), rt_cstr("odd")), 1));	/* [*, "odd"] */
	assert_int_equal(st_adel(o->s, 0, k, 1), ST_OK);		/* delete b[*, "odd"] */
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "0,even=v 2,even=v ");
	assert_int_equal(st_adel(o->s, 0, key2(k, rt_long(9), rt_cstr("x")), 0), ST_OK);
	assert_int_equal(st_adel(o->s, 0, key2(k, rt_long(2), rt_cstr("even")), 0), ST_OK);
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "0,even=v ");
	assert_int_equal(st_aclear(o->s, 0), ST_OK);
	assert_false(st_ain(o->s, 0, k, 3));
	/* Elements come back after a delete, at the end of the order. */
	st_aset(o->s, 0, key2(k, rt_long(1), rt_cstr("a")), rt_cstr("x"));
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "1,a=x ");
	one_free(o);
}

/* A larger array: the index grows, deletes and lookups stay right. */
static void test_many(void **state)
{
	struct one *o = one_new(array("m", RT_LONG, 2, RT_STRING, RT_LONG));
	struct rt_value k[2];
	char name[32];
	int64_t i, sum = 0;
	struct ir_foreach fe = fe_of(2, 0, 0);
	struct st_iter *it;
	struct rt_value kk[9], v;

	(void)state;
	for (i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "proc-%lld", (long long)(i % 500));
		assert_int_equal(st_aset(o->s, 0, key2(k, rt_cstr(name), rt_long(i / 500)),
					 rt_long(i)), ST_OK);
	}
	for (i = 0; i < 2000; i += 2) {
		snprintf(name, sizeof(name), "proc-%lld", (long long)(i % 500));
		st_adel(o->s, 0, key2(k, rt_cstr(name), rt_long(i / 500)), 0);
	}
	for (i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "proc-%lld", (long long)(i % 500));
		assert_int_equal(st_ain(o->s, 0, key2(k, rt_cstr(name), rt_long(i / 500)), 0),
				 i % 2 == 1);
	}
	it = st_iter_new(o->s, &fe, NULL, -1, NULL);
	for (i = 0; st_iter_next(it, kk, &v); i++)
		sum += v.l;
	st_iter_free(it);
	assert_int_equal(i, 1000);
	assert_int_equal(sum, 1000 * 1000);	/* 1 + 3 + ... + 1999 */
	one_free(o);
}

static void test_strings_truncated(void **state)
{
	struct ir_global g[2] = { scalar("s", RT_STRING),
				  array("a", RT_LONG, 1, RT_STRING, 0) };
	struct ir_prog p = prog_of(g, 2);
	struct rt_store *s = st_new(&p, 2048, 4);
	struct rt_value k[1];
	struct ir_foreach fe = fe_of(1, 0, 0);
	struct rt_buf b = { 0 };

	(void)state;
	st_set(s, 0, rt_cstr("abcdefgh"));
	assert_int_equal(st_get(s, 0).len, 4);
	assert_string_equal(st_get(s, 0).s, "abcd");
	st_set(s, 0, st_get(s, 0));		/* self-assignment keeps the value */
	assert_string_equal(st_get(s, 0).s, "abcd");
	st_aset(s, 1, key1(k, rt_cstr("keyword")), rt_long(1));
	/* The longer key finds the element it made. */
	st_aset(s, 1, key1(k, rt_cstr("keyword")), rt_long(2));
	assert_int_equal(st_aget(s, 1, key1(k, rt_cstr("keyw"))).l, 2);
	assert_true(st_ain(s, 1, key1(k, rt_cstr("keywest")), 0));
	fe.global = 1;
	walk(s, &fe, NULL, -1, &b);
	assert_text(&b, "keyw=2 ");
	st_free(s);
	buf_free(&b);
}

/* Initial values; delete of a scalar gives 0 or "", as in stap. */
static void test_scalars(void **state)
{
	struct ir_global g[3] = { scalar("n", RT_LONG), scalar("t", RT_STRING),
				  scalar("z", RT_LONG) };
	struct ir_prog p;
	struct rt_store *s;

	(void)state;
	g[0].init = rt_long(-42);
	g[1].init = rt_cstr("init");
	p = prog_of(g, 3);
	s = st_new(&p, 2048, 512);
	assert_int_equal(st_get(s, 0).l, -42);
	assert_string_equal(st_get(s, 1).s, "init");
	assert_int_equal(st_get(s, 2).type, RT_LONG);
	assert_int_equal(st_get(s, 2).l, 0);
	st_set(s, 0, rt_long(5));
	st_set(s, 1, rt_cstr("other"));
	st_reset(s, 0);
	st_reset(s, 1);
	assert_int_equal(st_get(s, 0).l, 0);
	assert_int_equal(st_get(s, 1).len, 0);
	st_set(s, 1, rt_cstr("back"));
	assert_string_equal(st_get(s, 1).s, "back");
	st_free(s);
}

/* ---- statistics ---- */

/* A statistic outside any global (-t's timing) computes as a scalar
   statistic global does. */
static void test_stat_free_standing(void **state)
{
	struct one *o = one_new(scalar("st", RT_STATS));
	struct st_stat *t = st_stat_new();
	static const int64_t vals[] = { 4, -2, 7, 1000003, 17, 17, -900 };
	static const enum ir_stat ops[] = { IR_STAT_COUNT, IR_STAT_SUM, IR_STAT_MIN,
					    IR_STAT_MAX, IR_STAT_AVG, IR_STAT_VARIANCE };
	unsigned i, k;

	(void)state;
	assert_int_equal(st_stat_result(t, IR_STAT_COUNT), 0);
	assert_int_equal(st_stat_result(t, IR_STAT_MAX), 0);
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		add_n(o->s, vals[i], 1);
		st_stat_push(t, vals[i]);
		for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
			assert_int_equal(st_stat_result(t, ops[k]), stat_of(o->s, NULL, ops[k]));
	}
	st_stat_free(t);
	one_free(o);
}

static void test_stat_ops(void **state)
{
	struct one *o = one_new(scalar("st", RT_STATS));
	int64_t v;

	(void)state;
	assert_int_equal(stat_of(o->s, NULL, IR_STAT_COUNT), 0);
	assert_int_equal(stat_of(o->s, NULL, IR_STAT_SUM), 0);
	assert_int_equal(st_stat_get(o->s, 0, NULL, IR_STAT_MIN, &v), ST_EMPTY);
	assert_int_equal(st_stat_get(o->s, 0, NULL, IR_STAT_MAX, &v), ST_EMPTY);
	assert_int_equal(st_stat_get(o->s, 0, NULL, IR_STAT_AVG, &v), ST_EMPTY);
	assert_int_equal(st_stat_get(o->s, 0, NULL, IR_STAT_VARIANCE, &v), ST_EMPTY);
	add_n(o->s, 4, 1);
	assert_int_equal(stat_of(o->s, NULL, IR_STAT_VARIANCE), 0);	/* one value */
	add_n(o->s, -2, 1);
	add_n(o->s, 7, 1);
	assert_int_equal(stat_of(o->s, NULL, IR_STAT_COUNT), 3);
	assert_int_equal(stat_of(o->s, NULL, IR_STAT_SUM), 9);
	assert_int_equal(stat_of(o->s, NULL, IR_STAT_MIN), -2);
	assert_int_equal(stat_of(o->s, NULL, IR_STAT_MAX), 7);
	assert_int_equal(stat_of(o->s, NULL, IR_STAT_AVG), 3);
	assert_int_equal(stat_of(o->s, NULL, IR_STAT_VARIANCE), 21);
	/* @avg divides as C does: -13 / 4 is -3. */
	add_n(o->s, -22, 1);
	assert_int_equal(stat_of(o->s, NULL, IR_STAT_AVG), -3);
	st_reset(o->s, 0);
	assert_int_equal(stat_of(o->s, NULL, IR_STAT_COUNT), 0);
	assert_int_equal(st_stat_get(o->s, 0, NULL, IR_STAT_MAX, &v), ST_EMPTY);
	one_free(o);
}

/*
 * @variance as stap computes it: Welford in integers with a 32-bit
 * delta, then for a scalar the CPUs' pooled formula, which on one CPU
 * adds count * (running mean - sum/count)^2; an array element keeps the
 * per-CPU M2/(n-1).  Numbers from stap's stat-common.c and stat.c.
 */
static void test_variance_exact(void **state)
{
	struct ir_global g[2] = { scalar("sc", RT_STATS),
				  array("ar", RT_STATS, 1, RT_LONG, 0) };
	static const int64_t sizes[] = { 3, 5, 7, 20, 25, 35, 35, 35, 99, 150, -5 };
	struct ir_prog p = prog_of(g, 2);
	struct rt_store *s;
	struct rt_value k[1] = { rt_long(1) };
	int64_t v;
	size_t i;
	int n;

	(void)state;
	s = st_new(&p, 2048, 512);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		st_stat_add(s, 0, NULL, sizes[i]);
		st_stat_add(s, 1, k, sizes[i]);
	}
	st_stat_get(s, 0, NULL, IR_STAT_VARIANCE, &v);
	assert_int_equal(v, 2276);
	st_stat_get(s, 1, k, IR_STAT_VARIANCE, &v);
	assert_int_equal(v, 2272);
	st_reset(s, 0);
	st_aclear(s, 1);
	for (n = 0; n < 121; n++) {
		st_stat_add(s, 0, NULL, n ? 64 : 3);
		st_stat_add(s, 1, k, n ? 64 : 3);
	}
	st_stat_get(s, 0, NULL, IR_STAT_VARIANCE, &v);
	assert_int_equal(v, 137);
	st_stat_get(s, 1, k, IR_STAT_VARIANCE, &v);
	assert_int_equal(v, 88);
	st_stat_get(s, 1, k, IR_STAT_AVG, &v);
	assert_int_equal(v, 63);
	/* Past 2^31 stap's int delta wraps: these are stap's numbers. */
	st_reset(s, 0);
	st_aclear(s, 1);
	st_stat_add(s, 0, NULL, 0);
	st_stat_add(s, 0, NULL, 5000000000LL);
	st_stat_add(s, 0, NULL, 3);
	st_stat_add(s, 1, k, 0);
	st_stat_add(s, 1, k, 5000000000LL);
	st_stat_add(s, 1, k, 3);
	st_stat_get(s, 0, NULL, IR_STAT_VARIANCE, &v);
	assert_true(v == -4469178123168926118LL);
	st_stat_get(s, 1, k, IR_STAT_VARIANCE, &v);
	assert_true(v == 1679736573794214146LL);
	st_stat_get(s, 0, NULL, IR_STAT_AVG, &v);
	assert_int_equal(v, 1666666667);
	st_free(s);
}

/* Statistics arrays: a missing element reads as empty, not created. */
static void test_stat_array(void **state)
{
	struct one *o = one_new(array("sa", RT_STATS, 1, RT_STRING, 0));
	struct rt_value k[1];
	int64_t v;

	(void)state;
	assert_int_equal(stat_of(o->s, key1(k, rt_cstr("none")), IR_STAT_COUNT), 0);
	assert_int_equal(stat_of(o->s, k, IR_STAT_SUM), 0);
	assert_int_equal(st_stat_get(o->s, 0, k, IR_STAT_MIN, &v), ST_EMPTY);
	assert_false(st_ain(o->s, 0, k, 0));
	assert_int_equal(st_stat_add(o->s, 0, key1(k, rt_cstr("a")), 10), ST_OK);
	assert_int_equal(st_stat_add(o->s, 0, k, 20), ST_OK);
	assert_int_equal(st_stat_add(o->s, 0, key1(k, rt_cstr("b")), -1), ST_OK);
	assert_int_equal(stat_of(o->s, key1(k, rt_cstr("a")), IR_STAT_COUNT), 2);
	assert_int_equal(stat_of(o->s, k, IR_STAT_AVG), 15);
	assert_int_equal(stat_of(o->s, k, IR_STAT_VARIANCE), 50);
	assert_int_equal(stat_of(o->s, key1(k, rt_cstr("b")), IR_STAT_MIN), -1);
	assert_int_equal(stat_of(o->s, k, IR_STAT_VARIANCE), 0);
	assert_true(st_ain(o->s, 0, k, 0));
	st_adel(o->s, 0, k, 0);
	assert_int_equal(stat_of(o->s, k, IR_STAT_COUNT), 0);
	one_free(o);
}

/* ---- histograms ---- */

/* Print statistic 0's histogram into @o->b. */
static void hist_text(struct one *o)
{
	st_hist_text(o->s, 0, NULL, o->g.hist_log ? IR_HIST_LOG : IR_HIST_LINEAR, &o->b);
}

/* 120 > 50: bars scale by ceil(120 / 50) = 3. */
static void test_hist_log_scaled(void **state)
{
	struct one *o = one_new(hist_log("h"));

	(void)state;
	add_n(o->s, 3, 1);
	add_n(o->s, 64, 120);
	hist_text(o);
	assert_text(&o->b,
		"value |-------------------------------------------------- count\n"
		"    0 |                                                     0\n"
		"    1 |                                                     0\n"
		"    2 |                                                     1\n"
		"    4 |                                                     0\n"
		"    8 |                                                     0\n"
		"   16 |                                                     0\n"
		"   32 |                                                     0\n"
		"   64 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@           120\n"
		"  128 |                                                     0\n"
		"  256 |                                                     0\n"
		"\n");
	one_free(o);
}

/* Counts up to 1000: the count column is four wide, bars scale by 20. */
static void test_hist_log_large_counts(void **state)
{
	struct one *o = one_new(hist_log("h"));

	(void)state;
	add_n(o->s, 1, 1000);
	add_n(o->s, 2, 51);
	add_n(o->s, 8, 7);
	hist_text(o);
	assert_text(&o->b,
		"value |-------------------------------------------------- count\n"
		"    0 |                                                      0\n"
		"    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1000\n"
		"    2 |@@                                                   51\n"
		"    4 |                                                      0\n"
		"    8 |                                                      7\n"
		"   16 |                                                      0\n"
		"   32 |                                                      0\n"
		"\n");
	one_free(o);
}

static void test_hist_log_negative_elision(void **state)
{
	struct one *o = one_new(hist_log("h"));

	(void)state;
	add_n(o->s, -3, 1);
	add_n(o->s, 1000, 1);
	hist_text(o);
	assert_text(&o->b,
		"value |-------------------------------------------------- count\n"
		"   -8 |                                                   0\n"
		"   -4 |                                                   0\n"
		"   -2 |@                                                  1\n"
		"   -1 |                                                   0\n"
		"    0 |                                                   0\n"
		"      ~\n"
		"  128 |                                                   0\n"
		"  256 |                                                   0\n"
		"  512 |@                                                  1\n"
		" 1024 |                                                   0\n"
		" 2048 |                                                   0\n"
		"\n");
	one_free(o);
	o = one_new(hist_log("h"));
	add_n(o->s, -1, 1);
	add_n(o->s, -100, 1);
	hist_text(o);
	assert_text(&o->b,
		"value |-------------------------------------------------- count\n"
		" -256 |                                                   0\n"
		" -128 |                                                   0\n"
		"  -64 |@                                                  1\n"
		"  -32 |                                                   0\n"
		"  -16 |                                                   0\n"
		"      ~\n"
		"   -4 |                                                   0\n"
		"   -2 |                                                   0\n"
		"   -1 |@                                                  1\n"
		"    0 |                                                   0\n"
		"    1 |                                                   0\n"
		"\n");
	one_free(o);
}

/* Zeros: the 0 row is the lowest one without negative data. */
static void test_hist_log_zeros_single(void **state)
{
	struct one *o = one_new(hist_log("h"));

	(void)state;
	add_n(o->s, 0, 3);
	add_n(o->s, 1, 1);
	add_n(o->s, 2, 1);
	hist_text(o);
	assert_text(&o->b,
		"value |-------------------------------------------------- count\n"
		"    0 |@@@                                                3\n"
		"    1 |@                                                  1\n"
		"    2 |@                                                  1\n"
		"    4 |                                                   0\n"
		"    8 |                                                   0\n"
		"\n");
	one_free(o);
	o = one_new(hist_log("h"));
	add_n(o->s, 5, 1);
	hist_text(o);
	assert_text(&o->b,
		"value |-------------------------------------------------- count\n"
		"    1 |                                                   0\n"
		"    2 |                                                   0\n"
		"    4 |@                                                  1\n"
		"    8 |                                                   0\n"
		"   16 |                                                   0\n"
		"\n");
	one_free(o);
}

/* The value column widens for the widest label, the minimum of 64 bits
   included. */
static void test_hist_log_wide(void **state)
{
	struct one *o = one_new(hist_log("h"));

	(void)state;
	add_n(o->s, 1, 1);
	add_n(o->s, 1048576, 1);
	hist_text(o);
	assert_text(&o->b,
		"  value |-------------------------------------------------- count\n"
		"      0 |                                                   0\n"
		"      1 |@                                                  1\n"
		"      2 |                                                   0\n"
		"      4 |                                                   0\n"
		"        ~\n"
		" 262144 |                                                   0\n"
		" 524288 |                                                   0\n"
		"1048576 |@                                                  1\n"
		"2097152 |                                                   0\n"
		"4194304 |                                                   0\n"
		"\n");
	one_free(o);
	o = one_new(hist_log("h"));
	add_n(o->s, INT64_MIN, 1);
	add_n(o->s, INT64_MAX, 1);
	hist_text(o);
	assert_text(&o->b,
		"               value |-------------------------------------------------- count\n"
		"-9223372036854775808 |@                                                  1\n"
		"-4611686018427387904 |                                                   0\n"
		"-2305843009213693952 |                                                   0\n"
		"                     ~\n"
		" 1152921504606846976 |                                                   0\n"
		" 2305843009213693952 |                                                   0\n"
		" 4611686018427387904 |@                                                  1\n"
		"\n");
	one_free(o);
}

/* tests/golden/run/hist.stp's data: under- and overflow, elision. */
static void test_hist_linear(void **state)
{
	static const int64_t sizes[] = { 3, 5, 7, 20, 25, 35, 35, 35, 99, 150, -5 };
	struct one *o = one_new(hist_linear("h", 0, 100, 10));
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		add_n(o->s, sizes[i], 1);
	hist_text(o);
	assert_text(&o->b,
		"value |-------------------------------------------------- count\n"
		"   <0 |@                                                  1\n"
		"    0 |@@@                                                3\n"
		"   10 |                                                   0\n"
		"   20 |@@                                                 2\n"
		"   30 |@@@                                                3\n"
		"   40 |                                                   0\n"
		"   50 |                                                   0\n"
		"      ~\n"
		"   70 |                                                   0\n"
		"   80 |                                                   0\n"
		"   90 |@                                                  1\n"
		"  100 |                                                   0\n"
		" >100 |@                                                  1\n"
		"\n");
	one_free(o);
}

static void test_hist_linear_ends(void **state)
{
	struct one *o = one_new(hist_linear("h", 0, 100, 10));

	(void)state;
	add_n(o->s, 42, 1);	/* one value, far from both ends */
	hist_text(o);
	assert_text(&o->b,
		"value |-------------------------------------------------- count\n"
		"   20 |                                                   0\n"
		"   30 |                                                   0\n"
		"   40 |@                                                  1\n"
		"   50 |                                                   0\n"
		"   60 |                                                   0\n"
		"\n");
	st_reset(o->s, 0);
	add_n(o->s, -1, 1);	/* underflow only */
	add_n(o->s, -2, 1);
	hist_text(o);
	assert_text(&o->b,
		"value |-------------------------------------------------- count\n"
		"   <0 |@@                                                 2\n"
		"    0 |                                                   0\n"
		"   10 |                                                   0\n"
		"\n");
	st_reset(o->s, 0);
	add_n(o->s, 95, 1);	/* 100 is a bucket of its own, no overflow */
	add_n(o->s, 100, 1);
	hist_text(o);
	assert_text(&o->b,
		"value |-------------------------------------------------- count\n"
		"   70 |                                                   0\n"
		"   80 |                                                   0\n"
		"   90 |@                                                  1\n"
		"  100 |@                                                  1\n"
		"\n");
	st_reset(o->s, 0);
	add_n(o->s, 150, 1);	/* overflow only */
	hist_text(o);
	assert_text(&o->b,
		"value |-------------------------------------------------- count\n"
		"   90 |                                                   0\n"
		"  100 |                                                   0\n"
		" >100 |@                                                  1\n"
		"\n");
	one_free(o);
}

static void test_hist_linear_negative_start(void **state)
{
	struct one *o = one_new(hist_linear("h", -50, 50, 25));

	(void)state;
	add_n(o->s, -100, 1);
	add_n(o->s, 0, 1);
	add_n(o->s, 49, 1);
	add_n(o->s, 51, 1);
	hist_text(o);
	assert_text(&o->b,
		"value |-------------------------------------------------- count\n"
		" <-50 |@                                                  1\n"
		"  -50 |                                                   0\n"
		"  -25 |                                                   0\n"
		"    0 |@                                                  1\n"
		"   25 |@                                                  1\n"
		"   50 |@                                                  1\n"
		"\n");
	one_free(o);
	o = one_new(hist_linear("h", 10, 20, 5));
	add_n(o->s, 10, 1);
	add_n(o->s, 14, 1);
	add_n(o->s, 15, 1);
	add_n(o->s, 20, 1);
	add_n(o->s, 21, 1);
	hist_text(o);
	assert_text(&o->b,
		"value |-------------------------------------------------- count\n"
		"   10 |@@                                                 2\n"
		"   15 |@                                                  1\n"
		"   20 |@@                                                 2\n"
		"\n");
	one_free(o);
}

/* stap sizes the value column for start + step * (last row), one step
   past the last label: here 100000 for a last label of 99000. */
static void test_hist_linear_value_width(void **state)
{
	struct one *o = one_new(hist_linear("h", 0, 99000, 1000));

	(void)state;
	add_n(o->s, 98500, 1);
	hist_text(o);
	assert_text(&o->b,
		" value |-------------------------------------------------- count\n"
		" 96000 |                                                   0\n"
		" 97000 |                                                   0\n"
		" 98000 |@                                                  1\n"
		" 99000 |                                                   0\n"
		"\n");
	one_free(o);
}

/* stap raises "empty aggregate" instead of printing: nothing here. */
static void test_hist_empty_and_buckets(void **state)
{
	struct ir_global g[2] = { hist_log("h"), array("ha", RT_STATS, 1, RT_STRING, 0) };
	struct ir_prog p;
	struct rt_store *s;
	struct rt_value k[1];
	struct rt_buf b = { 0 };

	(void)state;
	g[1].hist_linear = true;
	g[1].lin_start = 0;
	g[1].lin_stop = 100;
	g[1].lin_step = 10;
	p = prog_of(g, 2);
	s = st_new(&p, 2048, 512);
	st_hist_text(s, 0, NULL, IR_HIST_LOG, &b);
	st_hist_text(s, 1, key1(k, rt_cstr("none")), IR_HIST_LINEAR, &b);
	assert_text(&b, "");
	assert_false(st_ain(s, 1, k, 0));
	st_stat_add(s, 0, NULL, 0);
	st_stat_add(s, 0, NULL, -1);
	st_stat_add(s, 0, NULL, 5);
	st_stat_add(s, 0, NULL, 7);
	/* Raw bucket numbers: 64 holds 0, 63 holds -1, 67 holds 4..7. */
	assert_int_equal(st_hist_bucket(s, 0, NULL, IR_HIST_LOG, 64), 1);
	assert_int_equal(st_hist_bucket(s, 0, NULL, IR_HIST_LOG, 63), 1);
	assert_int_equal(st_hist_bucket(s, 0, NULL, IR_HIST_LOG, 67), 2);
	assert_int_equal(st_hist_bucket(s, 0, NULL, IR_HIST_LOG, 4), 0);
	assert_int_equal(st_hist_bucket(s, 0, NULL, IR_HIST_LOG, 128), 0);
	assert_int_equal(st_hist_bucket(s, 0, NULL, IR_HIST_LOG, -1), 0);
	/* A linear histogram of an array element: 0 is the underflow. */
	st_stat_add(s, 1, key1(k, rt_cstr("x")), -3);
	st_stat_add(s, 1, k, 10);
	st_stat_add(s, 1, k, 500);
	assert_int_equal(st_hist_bucket(s, 1, k, IR_HIST_LINEAR, 0), 1);
	assert_int_equal(st_hist_bucket(s, 1, k, IR_HIST_LINEAR, 2), 1);
	assert_int_equal(st_hist_bucket(s, 1, k, IR_HIST_LINEAR, 12), 1);
	assert_int_equal(st_hist_bucket(s, 1, k, IR_HIST_LINEAR, 13), 0);
	assert_int_equal(st_hist_bucket(s, 1, key1(k, rt_cstr("none")), IR_HIST_LINEAR, 0), 0);
	st_hist_text(s, 1, key1(k, rt_cstr("x")), IR_HIST_LINEAR, &b);
	assert_text(&b,
		"value |-------------------------------------------------- count\n"
		"   <0 |@                                                  1\n"
		"    0 |                                                   0\n"
		"   10 |@                                                  1\n"
		"   20 |                                                   0\n"
		"   30 |                                                   0\n"
		"      ~\n"
		"   90 |                                                   0\n"
		"  100 |                                                   0\n"
		" >100 |@                                                  1\n"
		"\n");
	st_free(s);
	buf_free(&b);
}

/* ---- foreach ---- */

/* The array of tests/golden/run/foreach.stp, in insertion order. */
static struct one *names(void)
{
	static const char *const k[] = { "one", "three", "two", "ten", "zero" };
	static const int64_t v[] = { 1, 3, 2, 10, 0 };
	struct one *o = one_new(array("a", RT_LONG, 1, RT_STRING, 0));
	struct rt_value key[1];
	unsigned i;

	for (i = 0; i < 5; i++)
		st_aset(o->s, 0, key1(key, rt_cstr(k[i])), rt_long(v[i]));
	return o;
}

static void test_foreach_orders(void **state)
{
	struct one *o = names();
	struct ir_foreach fe = fe_of(1, 0, 0);

	(void)state;
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "one=1 three=3 two=2 ten=10 zero=0 ");
	fe = fe_of(1, 1, 1);
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "one=1 ten=10 three=3 two=2 zero=0 ");
	fe = fe_of(1, 1, -1);
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "zero=0 two=2 three=3 ten=10 one=1 ");
	fe = fe_of(1, -1, 1);
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "zero=0 one=1 two=2 three=3 ten=10 ");
	fe = fe_of(1, -1, -1);
	fe.has_limit = true;
	walk(o->s, &fe, NULL, 3, &o->b);
	assert_text(&o->b, "ten=10 three=3 two=2 ");
	fe.has_limit = false;
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "ten=10 three=3 two=2 one=1 zero=0 ");
	one_free(o);
}

/*
 * Equal sort values keep the map's order (stap's sort is a stable merge
 * sort of the map list), and that order is whatever the last sort left.
 */
static void test_foreach_ties(void **state)
{
	struct one *o = one_new(array("b", RT_LONG, 2, RT_LONG, RT_STRING));
	struct ir_foreach fe;
	struct rt_value k[2];

	(void)state;
	st_aset(o->s, 0, key2(k, rt_long(2), rt_cstr("x")), rt_long(20));
	st_aset(o->s, 0, key2(k, rt_long(1), rt_cstr("y")), rt_long(10));
	st_aset(o->s, 0, key2(k, rt_long(1), rt_cstr("x")), rt_long(10));
	st_aset(o->s, 0, key2(k, rt_long(3), rt_cstr("z")), rt_long(5));
	fe = fe_of(2, 2, 1);				/* [n, s+] */
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "2,x=20 1,x=10 1,y=10 3,z=5 ");
	/* The tie 1,x/1,y now follows that order, not the insertion order. */
	fe = fe_of(2, -1, 1);
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "3,z=5 1,x=10 1,y=10 2,x=20 ");
	fe = fe_of(2, 1, 1);				/* [n+, s] */
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "1,x=10 1,y=10 2,x=20 3,z=5 ");
	fe = fe_of(2, 1, -1);				/* [n-, s] */
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "3,z=5 2,x=20 1,x=10 1,y=10 ");
	fe = fe_of(2, 0, 0);				/* the map keeps that order */
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "3,z=5 2,x=20 1,x=10 1,y=10 ");
	one_free(o);
}

/*
 * "limit N" with N <= 30 uses _stp_map_sortn(): the first N come out
 * sorted, the rest stays as that algorithm leaves it (entries pushed out
 * of the window, latest first, then the untouched ones in order).
 */
static void test_foreach_limit_sortn(void **state)
{
	static const int64_t v[] = { 5, 1, 3, 5, 0, 4, 1, 6, 3, 3 };
	struct one *o = one_new(array("a", RT_LONG, 1, RT_LONG, 0));
	struct ir_foreach fe = fe_of(1, -1, -1);
	struct rt_value k[1];
	int64_t i;

	(void)state;
	for (i = 0; i < 10; i++)
		st_aset(o->s, 0, key1(k, rt_long(i)), rt_long(v[i]));
	fe.has_limit = true;
	walk(o->s, &fe, NULL, 2, &o->b);
	assert_text(&o->b, "7=6 0=5 ");
	fe = fe_of(1, 0, 0);
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "7=6 0=5 3=5 2=3 1=1 4=0 5=4 6=1 8=3 9=3 ");
	/* limit 0 visits nothing (but sorts all); a limit past the size
	   visits everything. */
	fe = fe_of(1, -1, 1);
	fe.has_limit = true;
	walk(o->s, &fe, NULL, 0, &o->b);
	assert_text(&o->b, "");
	fe = fe_of(1, 0, 0);
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "4=0 1=1 6=1 2=3 8=3 9=3 5=4 0=5 3=5 7=6 ");
	fe.has_limit = true;
	walk(o->s, &fe, NULL, 40, &o->b);
	assert_text(&o->b, "4=0 1=1 6=1 2=3 8=3 9=3 5=4 0=5 3=5 7=6 ");
	one_free(o);
}

/*
 * Slices: only entries equal to the slice outside its '*' positions.  As
 * in stap's generated loop, the limit counts entries looked at before
 * the slice test.
 */
static void test_foreach_slices(void **state)
{
	struct one *o = one_new(array("b", RT_LONG, 2, RT_LONG, RT_STRING));
	struct ir_foreach fe = fe_of(2, 0, 0);
	struct rt_value k[2], slice[2] = { rt_long(1), rt_cstr("") };

	(void)state;
	st_aset(o->s, 0, key2(k, rt_long(2), rt_cstr("x")), rt_long(20));
	st_aset(o->s, 0, key2(k, rt_long(1), rt_cstr("y")), rt_long(10));
	st_aset(o->s, 0, key2(k, rt_long(1), rt_cstr("x")), rt_long(11));
	st_aset(o->s, 0, key2(k, rt_long(3), rt_cstr("z")), rt_long(5));
	fe.has_slice = true;
	fe.slice_mask = 2;			/* b[1, *] */
	walk(o->s, &fe, slice, -1, &o->b);
	assert_text(&o->b, "1,y=10 1,x=11 ");
	fe.has_limit = true;
	walk(o->s, &fe, slice, 2, &o->b);	/* looks at 2,x and 1,y */
	assert_text(&o->b, "1,y=10 ");
	fe.has_limit = false;
	fe.slice_mask = 1;			/* b[*, "x"] */
	slice[1] = rt_cstr("x");
	fe.sort_key = -1;
	fe.sort_dir = 1;
	walk(o->s, &fe, slice, -1, &o->b);
	assert_text(&o->b, "1,x=11 2,x=20 ");
	fe.slice_mask = 0;			/* b[1, "x"] */
	walk(o->s, &fe, slice, -1, &o->b);
	assert_text(&o->b, "1,x=11 ");
	one_free(o);
}

/* Statistics arrays sort by an aggregate (@count unless another one is
   named) and give that aggregate as the value; their order never sticks. */
static void test_foreach_stats(void **state)
{
	struct one *o = one_new(array("sa", RT_STATS, 1, RT_STRING, 0));
	struct ir_foreach fe = fe_of(1, -1, -1);
	struct rt_value k[1];

	(void)state;
	st_stat_add(o->s, 0, key1(k, rt_cstr("a")), 100);
	st_stat_add(o->s, 0, key1(k, rt_cstr("b")), 1);
	st_stat_add(o->s, 0, k, 2);
	st_stat_add(o->s, 0, key1(k, rt_cstr("c")), 50);
	st_stat_add(o->s, 0, k, 60);
	st_stat_add(o->s, 0, k, -200);
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "c=3 b=2 a=1 ");
	fe.sort_stat = IR_STAT_SUM;
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "a=100 b=3 c=-90 ");
	fe.sort_stat = IR_STAT_AVG;
	fe.sort_dir = 1;
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "c=-30 b=1 a=100 ");
	fe.sort_stat = IR_STAT_MAX;
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "b=2 c=60 a=100 ");
	fe = fe_of(1, 0, 0);
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "a=1 b=2 c=3 ");
	one_free(o);
}

/* foreach (b in @hist_log(h)): every bucket by number, the count as the
   value; stap ignores a sort there, the limit counts buckets. */
static void test_foreach_hist(void **state)
{
	struct ir_global g[2] = { hist_linear("h", 0, 30, 10),
				  array("ha", RT_STATS, 1, RT_STRING, 0) };
	struct ir_foreach fe = fe_of(1, 0, 0);
	struct ir_prog p;
	struct rt_store *s;
	struct rt_value k[1];
	struct rt_buf b = { 0 };
	struct st_iter *it;
	struct rt_value kk[1], v;
	int n;

	(void)state;
	g[1].hist_log = true;
	p = prog_of(g, 2);
	s = st_new(&p, 2048, 512);
	fe.hist = true;
	fe.hist_kind = IR_HIST_LINEAR;
	walk(s, &fe, NULL, -1, &b);
	assert_text(&b, "0=0 1=0 2=0 3=0 4=0 5=0 ");	/* <0 0 10 20 30 >30 */
	st_stat_add(s, 0, NULL, -1);
	st_stat_add(s, 0, NULL, 15);
	st_stat_add(s, 0, NULL, 16);
	st_stat_add(s, 0, NULL, 99);
	fe.sort_key = -1;
	fe.sort_dir = -1;
	walk(s, &fe, NULL, -1, &b);
	assert_text(&b, "0=1 1=0 2=2 3=0 4=0 5=1 ");
	fe.has_limit = true;
	walk(s, &fe, NULL, 3, &b);
	assert_text(&b, "0=1 1=0 2=2 ");
	/* The histogram of an array element: 128 log buckets. */
	st_stat_add(s, 1, key1(k, rt_cstr("x")), 3);
	fe = fe_of(1, 0, 0);
	fe.global = 1;
	fe.hist = true;
	it = st_iter_new(s, &fe, NULL, -1, k);
	for (n = 0; st_iter_next(it, kk, &v); n++)
		if (v.l)
			buf_printf(&b, "%lld=%lld ", (long long)kk[0].l, (long long)v.l);
	st_iter_free(it);
	assert_int_equal(n, 128);
	assert_text(&b, "66=1 ");
	st_free(s);
	buf_free(&b);
}

/*
 * Changing the array inside the loop: the iterator visits what it found
 * (not what was added), skips what was deleted, reads values when it
 * gets to them, and keys it handed out stay readable (valgrind).
 */
static void test_foreach_modify(void **state)
{
	struct one *o = names();
	struct ir_foreach fe = fe_of(1, 0, 0);
	struct st_iter *it = st_iter_new(o->s, &fe, NULL, -1, NULL), *it2;
	struct rt_value k[1], first, v;

	(void)state;
	assert_true(st_iter_next(it, &first, &v));
	assert_string_equal(first.s, "one");
	st_adel(o->s, 0, &first, 0);				/* delete a[k] */
	st_adel(o->s, 0, key1(k, rt_cstr("two")), 0);
	st_aset(o->s, 0, key1(k, rt_cstr("new")), rt_long(9));
	st_aset(o->s, 0, key1(k, rt_cstr("ten")), rt_long(11));
	it2 = st_iter_new(o->s, &fe, NULL, -1, NULL);		/* nested loop */
	while (st_iter_next(it, k, &v))
		buf_printf(&o->b, "%.*s=%lld ", (int)k[0].len, k[0].s, (long long)v.l);
	assert_text(&o->b, "three=3 ten=11 zero=0 ");
	st_aclear(o->s, 0);
	assert_false(st_iter_next(it2, k, &v));
	assert_string_equal(first.s, "one");			/* still readable */
	st_iter_free(it);
	st_iter_free(it2);
	fe.sort_key = 1;
	walk(o->s, &fe, NULL, -1, &o->b);
	assert_text(&o->b, "");
	one_free(o);
}

/* ---- printing globals at exit ---- */

static void test_autoprint(void **state)
{
	struct ir_global g[9];
	struct ir_prog p;
	struct rt_store *s;
	struct rt_buf b = { 0 };
	struct rt_value k[2];
	unsigned i;

	(void)state;
	g[0] = scalar("count", RT_LONG);
	g[1] = scalar("name", RT_STRING);
	g[2] = array("byname", RT_LONG, 1, RT_STRING, 0);
	g[3] = array("bykeys", RT_STRING, 2, RT_LONG, RT_STRING);
	g[4] = scalar("st", RT_STATS);
	g[5] = scalar("nothing", RT_STATS);
	g[6] = array("sa", RT_STATS, 1, RT_LONG, 0);
	g[7] = array("empty", RT_LONG, 1, RT_LONG, 0);
	g[8] = scalar("quiet", RT_LONG);
	for (i = 0; i < 8; i++)
		g[i].autoprint = true;
	g[6].hist_log = true;	/* histograms are not drawn */
	p = prog_of(g, 9);
	s = st_new(&p, 2048, 512);
	st_set(s, 0, rt_long(-42));
	st_set(s, 1, rt_cstr("ktap"));
	st_aset(s, 2, key1(k, rt_cstr("b")), rt_long(2));
	st_aset(s, 2, key1(k, rt_cstr("a")), rt_long(3));
	st_aset(s, 2, key1(k, rt_cstr("c")), rt_long(3));
	st_aset(s, 2, key1(k, rt_cstr("d")), rt_long(-1));
	st_aset(s, 3, key2(k, rt_long(1), rt_cstr("x")), rt_cstr("apple"));
	st_aset(s, 3, key2(k, rt_long(2), rt_cstr("y")), rt_cstr("pear"));
	st_stat_add(s, 4, NULL, 1);
	st_stat_add(s, 4, NULL, 2);
	st_stat_add(s, 4, NULL, 6);
	st_stat_add(s, 6, key1(k, rt_long(7)), 5);
	st_stat_add(s, 6, key1(k, rt_long(8)), -5);
	st_stat_add(s, 6, k, -6);
	st_set(s, 8, rt_long(1));
	st_autoprint(s, &b);
	assert_text(&b,
		"count=0xffffffffffffffd6\n"
		"name=\"ktap\"\n"
		"byname[\"a\"]=0x3\n"
		"byname[\"c\"]=0x3\n"
		"byname[\"b\"]=0x2\n"
		"byname[\"d\"]=0xffffffffffffffff\n"
		"bykeys[2,\"y\"]=\"pear\"\n"
		"bykeys[1,\"x\"]=\"apple\"\n"
		"st @count=3 @min=1 @max=6 @sum=9 @avg=3\n"
		"nothing @count=0x0\n"
		"sa[8] @count=2 @min=-6 @max=-5 @sum=-11 @avg=-5\n"
		"sa[7] @count=1 @min=5 @max=5 @sum=5 @avg=5\n");
	st_free(s);
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mixed_keys),
		cmocka_unit_test(test_string_values),
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_delete_stars),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_strings_truncated),
		cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_stat_free_standing),
		cmocka_unit_test(test_stat_ops),
		cmocka_unit_test(test_variance_exact),
		cmocka_unit_test(test_stat_array),
		cmocka_unit_test(test_hist_log_scaled),
		cmocka_unit_test(test_hist_log_large_counts),
		cmocka_unit_test(test_hist_log_negative_elision),
		cmocka_unit_test(test_hist_log_zeros_single),
		cmocka_unit_test(test_hist_log_wide),
		cmocka_unit_test(test_hist_linear),
		cmocka_unit_test(test_hist_linear_ends),
		cmocka_unit_test(test_hist_linear_negative_start),
		cmocka_unit_test(test_hist_linear_value_width),
		cmocka_unit_test(test_hist_empty_and_buckets),
		cmocka_unit_test(test_foreach_orders),
		cmocka_unit_test(test_foreach_ties),
		cmocka_unit_test(test_foreach_limit_sortn),
		cmocka_unit_test(test_foreach_slices),
		cmocka_unit_test(test_foreach_stats),
		cmocka_unit_test(test_foreach_hist),
		cmocka_unit_test(test_foreach_modify),
		cmocka_unit_test(test_autoprint),
	};

	return cmocka_run_group_tests_name("store", tests, NULL, NULL);
}
