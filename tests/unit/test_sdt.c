/*
 * test_sdt.c - compiler/resolve/resolve_sdt.c: SDT operand strings as
 * <sys/sdt.h> writes them on x86_64 (registers of every width, memory
 * at an offset from a register, constants, size prefixes) turned into
 * uprobe fetch arguments, and the operands ktap refuses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "arena.h"
#include "resolve_sdt.h"

/* @op as @loc and @type, or (@loc NULL) refused with @op in the message. */
static void expect_op(const char *op, const char *loc, const char *type)
{
	struct arena *a = arena_new();
	struct rsdt_mark m = { .provider = "p", .name = "n" };
	const char *l = NULL, *t = NULL;
	char err[256] = "";
	int r = rsdt_operand(a, NULL, &m, op, &l, &t, err, sizeof(err));

	if (!loc) {
		assert_int_equal(r, -1);
		assert_non_null(strstr(err, op));
	} else {
		if (r != 0)
			fail_msg("%s: %s", op, err);
		assert_string_equal(l, loc);
		assert_string_equal(t, type);
	}
	arena_free(a);
}

static void expect_refused(const char *op)
{
	expect_op(op, NULL, NULL);
}

static void test_registers(void **state)
{
	(void)state;
	expect_op("-4@%edi", "%di", "s32");
	expect_op("8@%rdi", "%di", "u64");
	expect_op("-8@%rax", "%ax", "s64");
	expect_op("1@%al", "%ax", "u8");
	expect_op("-1@%sil", "%si", "s8");
	expect_op("2@%bx", "%bx", "u16");
	expect_op("4@%ecx", "%cx", "u32");
	expect_op("-4@%r8d", "%r8", "s32");
	expect_op("-2@%r15w", "%r15", "s16");
	expect_op("1@%r12b", "%r12", "u8");
	expect_op("8@%rbp", "%bp", "u64");
	expect_op("%rdx", "%dx", "s64");	/* no size: stap's long */
	/* no size: the register's own width (hand-written asm operands,
	   stap's sdt_asm.exp), not the whole register */
	expect_op("%sil", "%si", "s8");
	expect_op("%si", "%si", "s16");
	expect_op("%edi", "%di", "s32");
	expect_op("%r9b", "%r9", "s8");
	expect_op("%r10w", "%r10", "s16");
	expect_op("%r11d", "%r11", "s32");
	/* %ah..%dh: bits 8-15 of rax..rdx */
	expect_op("%ah", "%ax", "b8@8/64");
	expect_op("1@%dh", "%dx", "b8@8/64");
}

static void test_memory_and_constants(void **state)
{
	(void)state;
	expect_op("8@-16(%rbp)", "-16(%bp)", "u64");
	expect_op("-4@112(%rsp)", "+112(%sp)", "s32");
	expect_op("8@(%rax)", "+0(%ax)", "u64");
	expect_op("-2@0x10(%r13)", "+16(%r13)", "s16");
	expect_op("-4@$42", "\\42", "s32");
	expect_op("-2@$-3", "\\-3", "s16");
}

static void test_refused(void **state)
{
	(void)state;
	expect_refused("8@(%rax,%rbx,8)");
	expect_refused("8@%xmm0");
	expect_refused("8@sym(%rbx)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registers),
		cmocka_unit_test(test_memory_and_constants),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests_name("SDT operands", tests, NULL, NULL);
}
