/*
 * test_store.c - runtime/store.c on hand-made programs: arrays with
 * mixed keys, MAXMAPENTRIES, '%' wrapping, '*' slices, statistics,
 * histogram text, foreach order and the exit printout.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../runtime/store.h"

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

static struct ir_global scalar(const char *name, enum rt_type t, bool hist_log)
{
	struct ir_global g;

	memset(&g, 0, sizeof(g));
	g.name = name;
	g.type = t;
	g.hist_log = hist_log;
	return g;
}

static void assert_text(struct rt_buf *b, const char *want)
{
	assert_string_equal(buf_cstr(b), want);
	buf_reset(b);
}

static void test_mixed_keys(void **state)
{
	struct ir_global g = array("a", RT_LONG, 2, RT_STRING, RT_LONG);
	struct ir_prog p = prog_of(&g, 1);
	struct rt_store *s = st_new(&p, 2048, 512);
	struct rt_value k1[2] = { rt_cstr("x"), rt_long(1) };
	struct rt_value k2[2] = { rt_cstr("x"), rt_long(2) };
	struct rt_value cur;

	(void)state;
	assert_int_equal(st_aset(s, 0, k1, rt_long(10)), ST_OK);
	assert_int_equal(st_aget(s, 0, k1).l, 10);
	assert_int_equal(st_aget(s, 0, k2).l, 0);
	assert_false(st_ain(s, 0, k2, 0));	/* reading does not create */
	assert_int_equal(st_aref(s, 0, k2, &cur), ST_OK);
	assert_int_equal(cur.l, 0);
	assert_true(st_ain(s, 0, k2, 0));	/* aref does */
	assert_true(st_ain(s, 0, (struct rt_value[]){ rt_cstr("y"), rt_long(1) }, 1));
	assert_false(st_ain(s, 0, (struct rt_value[]){ rt_cstr("y"), rt_long(1) }, 0));
	st_free(s);
}

static void test_full_and_wrap(void **state)
{
	struct ir_global g[2] = { array("full", RT_LONG, 1, RT_LONG, 0),
				  array("ring", RT_LONG, 1, RT_LONG, 0) };
	struct ir_prog p;
	struct rt_store *s;
	int64_t i;

	(void)state;
	g[1].maxentries = 3;
	g[1].wrap = true;
	p = prog_of(g, 2);
	s = st_new(&p, 100, 512);
	for (i = 0; i < 100; i++)
		assert_int_equal(st_aset(s, 0, (struct rt_value[]){ rt_long(i) }, rt_long(i)), ST_OK);
	assert_int_equal(st_aset(s, 0, (struct rt_value[]){ rt_long(100) }, rt_long(1)), ST_FULL);
	/* Overwriting an existing element of a full array is fine. */
	assert_int_equal(st_aset(s, 0, (struct rt_value[]){ rt_long(5) }, rt_long(1)), ST_OK);
	for (i = 0; i < 5; i++)
		assert_int_equal(st_aset(s, 1, (struct rt_value[]){ rt_long(i) }, rt_long(i)), ST_OK);
	/* 0 and 1, the oldest, were dropped to make room. */
	assert_false(st_ain(s, 1, (struct rt_value[]){ rt_long(1) }, 0));
	assert_true(st_ain(s, 1, (struct rt_value[]){ rt_long(2) }, 0));
	assert_true(st_ain(s, 1, (struct rt_value[]){ rt_long(4) }, 0));
	st_free(s);
}

static void test_delete_slices(void **state)
{
	struct ir_global g = array("b", RT_STRING, 2, RT_LONG, RT_STRING);
	struct ir_prog p = prog_of(&g, 1);
	struct rt_store *s = st_new(&p, 2048, 512);
	struct rt_value k[2];
	int64_t i;

	(void)state;
	for (i = 0; i < 1000; i++) {
		k[0] = rt_long(i % 3);
		k[1] = rt_cstr(i % 2 ? "odd" : "even");
		st_aset(s, 0, k, rt_cstr("v"));
	}
	k[0] = rt_long(1);
	assert_int_equal(st_adel(s, 0, k, 2), ST_OK);	/* delete b[1, *] */
	assert_false(st_ain(s, 0, k, 2));
	k[0] = rt_long(0);
	k[1] = rt_cstr("odd");
	assert_true(st_ain(s, 0, k, 0));
	assert_string_equal(st_aget(s, 0, k).s, "v");
	st_aclear(s, 0);
	assert_false(st_ain(s, 0, k, 3));
	st_free(s);
}

static void test_strings_truncated(void **state)
{
	struct ir_global g;
	struct ir_prog p;
	struct rt_store *s;

	(void)state;
	g = scalar("s", RT_STRING, false);
	p = prog_of(&g, 1);
	s = st_new(&p, 2048, 4);
	st_set(s, 0, rt_cstr("abcdefgh"));
	assert_int_equal(st_get(s, 0).len, 4);
	assert_memory_equal(st_get(s, 0).s, "abcd", 4);
	st_set(s, 0, st_get(s, 0));	/* self-assignment keeps the value */
	assert_memory_equal(st_get(s, 0).s, "abcd", 4);
	st_free(s);
}

static void test_stats(void **state)
{
	struct ir_global g;
	struct ir_prog p;
	struct rt_store *s;
	int64_t v;

	(void)state;
	g = scalar("st", RT_STATS, false);
	p = prog_of(&g, 1);
	s = st_new(&p, 2048, 512);
	assert_int_equal(st_stat_get(s, 0, NULL, IR_STAT_COUNT, &v), ST_OK);
	assert_int_equal(v, 0);
	assert_int_equal(st_stat_get(s, 0, NULL, IR_STAT_MIN, &v), ST_EMPTY);
	assert_int_equal(st_stat_get(s, 0, NULL, IR_STAT_AVG, &v), ST_EMPTY);
	st_stat_add(s, 0, NULL, 4);
	st_stat_add(s, 0, NULL, -2);
	st_stat_add(s, 0, NULL, 7);
	st_stat_get(s, 0, NULL, IR_STAT_COUNT, &v);
	assert_int_equal(v, 3);
	st_stat_get(s, 0, NULL, IR_STAT_SUM, &v);
	assert_int_equal(v, 9);
	st_stat_get(s, 0, NULL, IR_STAT_MIN, &v);
	assert_int_equal(v, -2);
	st_stat_get(s, 0, NULL, IR_STAT_MAX, &v);
	assert_int_equal(v, 7);
	st_stat_get(s, 0, NULL, IR_STAT_AVG, &v);
	assert_int_equal(v, 3);
	/* Welford in integers: 4; 4+(-6/2)=1, m2=-6*-3=18; 1+6/3=3, m2+=6*4=42 */
	st_stat_get(s, 0, NULL, IR_STAT_VARIANCE, &v);
	assert_int_equal(v, 21);
	st_reset(s, 0);
	assert_int_equal(st_stat_get(s, 0, NULL, IR_STAT_MAX, &v), ST_EMPTY);
	st_free(s);
}

static void test_hist_log_text(void **state)
{
	struct ir_global g;
	struct ir_prog p;
	struct rt_store *s;
	struct rt_buf b = { 0 };
	int i;

	(void)state;
	g = scalar("h", RT_STATS, true);
	p = prog_of(&g, 1);
	s = st_new(&p, 2048, 512);
	for (i = 0; i < 120; i++)
		st_stat_add(s, 0, NULL, 64);	/* 120 > 50: bars scale by 3 */
	st_stat_add(s, 0, NULL, 3);
	st_hist_text(s, 0, NULL, IR_HIST_LOG, &b);
	assert_text(&b,
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
	assert_int_equal(st_hist_bucket(s, 0, NULL, IR_HIST_LOG, 64 + 7), 120);
	st_free(s);
	buf_free(&b);
}

static void test_hist_negative_and_elision(void **state)
{
	struct ir_global g;
	struct ir_prog p;
	struct rt_store *s;
	struct rt_buf b = { 0 };

	(void)state;
	g = scalar("h", RT_STATS, true);
	p = prog_of(&g, 1);
	s = st_new(&p, 2048, 512);
	st_stat_add(s, 0, NULL, -3);
	st_stat_add(s, 0, NULL, 1000);
	st_hist_text(s, 0, NULL, IR_HIST_LOG, &b);
	assert_text(&b,
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
	st_free(s);
	buf_free(&b);
}

static void test_foreach_sorted_limit(void **state)
{
	struct ir_global g = array("c", RT_LONG, 1, RT_STRING, 0);
	struct ir_prog p = prog_of(&g, 1);
	struct rt_store *s = st_new(&p, 2048, 512);
	struct ir_foreach fe = { .global = 0, .nkeys = 1, .sort_key = -1, .sort_dir = -1,
				 .want_value = true };
	const char *names[] = { "b", "d", "a", "c" };
	int64_t vals[] = { 2, 4, 2, 3 };
	struct rt_value k, v;
	struct st_iter *it;
	struct rt_buf b = { 0 };
	unsigned i;

	(void)state;
	for (i = 0; i < 4; i++)
		st_aset(s, 0, (struct rt_value[]){ rt_cstr(names[i]) }, rt_long(vals[i]));
	it = st_iter_new(s, &fe, NULL, 3, NULL);
	while (st_iter_next(it, &k, &v))
		buf_printf(&b, "%.*s=%d ", (int)k.len, k.s, (int)v.l);
	st_iter_free(it);
	assert_text(&b, "d=4 c=3 a=2 ");	/* ties by key: a before b */
	fe.sort_key = 0;
	it = st_iter_new(s, &fe, NULL, -1, NULL);
	/* Deleting while iterating: the iterator has its own copy. */
	st_aclear(s, 0);
	while (st_iter_next(it, &k, &v))
		buf_printf(&b, "%.*s ", (int)k.len, k.s);
	st_iter_free(it);
	assert_text(&b, "b d a c ");
	st_free(s);
	buf_free(&b);
}

static void test_autoprint(void **state)
{
	struct ir_global g[3];
	struct ir_prog p;
	struct rt_store *s;
	struct rt_buf b = { 0 };

	(void)state;
	memset(g, 0, sizeof(g));
	g[0].name = "n";
	g[0].type = RT_LONG;
	g[0].autoprint = true;
	g[1] = array("m", RT_STRING, 2, RT_LONG, RT_STRING);
	g[1].autoprint = true;
	g[2].name = "quiet";
	g[2].type = RT_LONG;
	p = prog_of(g, 3);
	s = st_new(&p, 2048, 512);
	st_set(s, 0, rt_long(-5));
	st_aset(s, 1, (struct rt_value[]){ rt_long(1), rt_cstr("a") }, rt_cstr("x"));
	st_aset(s, 1, (struct rt_value[]){ rt_long(2), rt_cstr("b") }, rt_cstr("y"));
	st_set(s, 2, rt_long(1));
	st_autoprint(s, &b);
	assert_text(&b, "n=-5\nm[2,\"b\"]=\"y\"\nm[1,\"a\"]=\"x\"\n");
	st_free(s);
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mixed_keys),
		cmocka_unit_test(test_full_and_wrap),
		cmocka_unit_test(test_delete_slices),
		cmocka_unit_test(test_strings_truncated),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_hist_log_text),
		cmocka_unit_test(test_hist_negative_and_elision),
		cmocka_unit_test(test_foreach_sorted_limit),
		cmocka_unit_test(test_autoprint),
	};

	return cmocka_run_group_tests_name("store", tests, NULL, NULL);
}
