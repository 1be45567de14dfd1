/*
 * test_target.c - compiler/target.c: kernel symbols by name from a
 * target's kallsyms (target_kernel_symbols), as timer.profile looks up
 * the tick handler: the first of equal names, module lines, names the
 * kernel lacks, addresses hidden by kptr_restrict, and a saved target
 * without kallsyms.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "target.h"

/* A target whose kallsyms is @text (written to a temporary file). */
static void with_kallsyms(struct ktap_target *t, char *path, const char *text)
{
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	memset(t, 0, sizeof(*t));
	t->kallsyms = path;
}

static void test_lookup(void **state)
{
	static const char *const names[] = { "tick_sched_timer", "tick_nohz_handler", "nosuch" };
	char path[] = "/tmp/ktap-test-kallsyms.XXXXXX", err[256] = "";
	struct ktap_target t;
	uint64_t addrs[3];

	(void)state;
	with_kallsyms(&t, path,
		      "0000000000000000 A fixed_percpu_data\n"
		      "ffffffff81168830 t tick_sched_timer\n"
		      "ffffffff811688b0 t tick_nohz_handler\n"
		      "ffffffffc0001000 t tick_nohz_handler\t[somemod]\n"
		      "not a line\n"
		      "ffffffff81168900 T tick_sched_timer_dying\n");
	assert_int_equal(target_kernel_symbols(&t, names, 3, addrs, err, sizeof(err)), 0);
	assert_true(addrs[0] == 0xffffffff81168830ULL);
	assert_true(addrs[1] == 0xffffffff811688b0ULL);	/* the kernel's, not the module's */
	assert_true(addrs[2] == 0);
	unlink(path);
}

static void test_hidden(void **state)
{
	static const char *const names[] = { "tick_nohz_handler" };
	char path[] = "/tmp/ktap-test-kallsyms.XXXXXX", err[512] = "";
	struct ktap_target t;
	uint64_t addr = 1;

	(void)state;
	with_kallsyms(&t, path, "0000000000000000 T _stext\n0000000000000000 t tick_nohz_handler\n");
	assert_int_equal(target_kernel_symbols(&t, names, 1, &addr, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "kernel addresses are hidden"));
	assert_non_null(strstr(err, path));
	unlink(path);
}

static void test_missing(void **state)
{
	static const char *const names[] = { "tick_nohz_handler" };
	struct ktap_target t;
	char err[512] = "";
	uint64_t addr;

	(void)state;
	memset(&t, 0, sizeof(t));
	t.dir = "/saved/target";
	assert_int_equal(target_kernel_symbols(&t, names, 1, &addr, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "the target directory /saved/target has no kallsyms"));
	t.kallsyms = "/nonexistent/kallsyms";
	assert_int_equal(target_kernel_symbols(&t, names, 1, &addr, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "cannot read /nonexistent/kallsyms"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_hidden),
		cmocka_unit_test(test_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
