/*
 * test_rt_clock.c - the script's clocks (rt_builtins.c): an event's
 * gettimeofday_*() is its record's time plus the run's one wall-clock
 * offset, and outside an event (begin, end) the wall clock is read on the
 * same time line, so a begin probe never sees a later wall time than an
 * event after it.  The offset here is a fake one (the wall clock as if
 * stepped 1000 s ahead since it was taken): a begin probe reading
 * CLOCK_REALTIME itself would disagree with the events by that much (the
 * flaky "no handler before begin ended" check of syscalls.sh).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "../../runtime/rt_builtins.h"
#include "../../runtime/ir.h"

#define OFFSET_NS (1000 * INT64_C(1000000000))

static int64_t call(struct rt_ctx *c, unsigned id)
{
	struct rt_value ret;

	assert_int_equal(rt_builtin(c, id, NULL, 0, &ret), RT_OK);
	return ret.l;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void test_event_time(void **state)
{
	struct rt_ctx c;
	struct rt_event ev = { .ts = 5000000123 };

	(void)state;
	memset(&c, 0, sizeof(c));
	c.boot_offset_ns = OFFSET_NS;
	c.ev = &ev;
	assert_int_equal(call(&c, IR_BI_LOCAL_CLOCK_NS), 5000000123);
	assert_int_equal(call(&c, IR_BI_GETTIMEOFDAY_NS), 5000000123 + OFFSET_NS);
	assert_int_equal(call(&c, IR_BI_GETTIMEOFDAY_US), (5000000123 + OFFSET_NS) / 1000);
	assert_int_equal(call(&c, IR_BI_GETTIMEOFDAY_S), (5000000123 + OFFSET_NS) / 1000000000);
}

static void test_begin_same_time_line(void **state)
{
	struct rt_ctx c;
	int64_t before, wall, after;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.boot_offset_ns = OFFSET_NS;
	before = mono_ns();
	wall = call(&c, IR_BI_GETTIMEOFDAY_NS);
	after = mono_ns();
	assert_true(wall >= before + OFFSET_NS);
	assert_true(wall <= after + OFFSET_NS);
}

/* Taken by itself, the offset is the real one (to the width of a few
   clock reads, a generous 50 ms on a loaded machine). */
static void test_offset_taken(void **state)
{
	struct rt_ctx c;
	struct timespec ts;
	int64_t wall, real;

	(void)state;
	memset(&c, 0, sizeof(c));
	wall = call(&c, IR_BI_GETTIMEOFDAY_NS);
	clock_gettime(CLOCK_REALTIME, &ts);
	real = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	assert_true(c.boot_offset_ns != 0);
	assert_true(real - wall >= -50000000 && real - wall < 50000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_time),
		cmocka_unit_test(test_begin_same_time_line),
		cmocka_unit_test(test_offset_taken),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
