/*
 * test_pp.c - placeholder unit test (to be replaced by the real pp tests).
 *
 * Checks that the arena links and works, so the cmocka/TAP plumbing of
 * make check is exercised until the real tests land.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../compiler/arena.h"

static void test_arena_basics(void **state)
{
	struct arena *a = arena_new();
	unsigned char *p;
	char *s;
	size_t i;

	(void)state;
	assert_non_null(a);
	p = arena_alloc(a, 64);
	assert_non_null(p);
	for (i = 0; i < 64; i++)
		assert_int_equal(p[i], 0);
	s = arena_strdup(a, "probe begin");
	assert_string_equal(s, "probe begin");
	arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arena_basics),
	};

	return cmocka_run_group_tests_name("pp (placeholder)", tests, NULL, NULL);
}
