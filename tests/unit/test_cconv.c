/*
 * test_cconv.c - compiler/resolve/resolve_cconv.c: the calling-convention table per
 * machine (argument registers, stack slots past them, the return
 * register, DWARF register numbers as fetch-argument register names).
 */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "arena.h"
#include "resolve_cconv.h"

static void test_x86_64(void **state)
{
	const struct cc_machine *m = cc_for_elf(EM_X86_64);
	struct arena *a = arena_new();
	static const char *const args[] = { "%di", "%si", "%dx", "%cx", "%r8", "%r9" };
	static const char *const dw[] = { "%ax", "%dx", "%cx", "%bx", "%si", "%di", "%bp",
					  "%sp", "%r8", "%r9", "%r10", "%r11", "%r12",
					  "%r13", "%r14", "%r15" };
	unsigned i;

	(void)state;
	assert_non_null(m);
	assert_string_equal(m->ret, "%ax");
	assert_string_equal(m->sp, "%sp");
	assert_int_equal(cc_nregs(m), 6);
	for (i = 0; i < 6; i++)
		assert_string_equal(cc_arg(a, m, i), args[i]);
	/* The return address is at 0(%sp): the 7th argument at +8. */
	assert_string_equal(cc_arg(a, m, 6), "+8(%sp)");
	assert_string_equal(cc_arg(a, m, 7), "+16(%sp)");
	for (i = 0; i < 16; i++)
		assert_string_equal(cc_dwreg(m, i), dw[i]);
	assert_null(cc_dwreg(m, 17));	/* %xmm0: no fetch-argument name */
	arena_free(a);
}

static void test_aarch64(void **state)
{
	const struct cc_machine *m = cc_for_elf(EM_AARCH64);
	struct arena *a = arena_new();
	char want[8];
	unsigned i;

	(void)state;
	assert_non_null(m);
	assert_string_equal(m->ret, "%x0");
	assert_int_equal(cc_nregs(m), 8);
	for (i = 0; i < 8; i++) {
		snprintf(want, sizeof(want), "%%x%u", i);
		assert_string_equal(cc_arg(a, m, i), want);
	}
	assert_string_equal(cc_arg(a, m, 8), "+0(%sp)");
	assert_string_equal(cc_arg(a, m, 9), "+8(%sp)");
	for (i = 0; i < 30; i++) {
		snprintf(want, sizeof(want), "%%x%u", i);
		assert_string_equal(cc_dwreg(m, i), want);
	}
	assert_string_equal(cc_dwreg(m, 30), "%lr");
	assert_string_equal(cc_dwreg(m, 31), "%sp");
	assert_null(cc_dwreg(m, 64));	/* v0 */
	arena_free(a);
}

static void test_unknown(void **state)
{
	(void)state;
	assert_null(cc_for_elf(EM_386));
	assert_null(cc_for_elf(EM_RISCV));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_64),
		cmocka_unit_test(test_aarch64),
		cmocka_unit_test(test_unknown),
	};

	return cmocka_run_group_tests_name("calling conventions", tests, NULL, NULL);
}
