/*
 * test_ksym.c - runtime/ksym.c: kallsyms table and stap's address formats.
 *
 * tests/fixtures/kallsyms/kallsyms holds real lines of a 6.18 kernel's
 * /proc/kallsyms (aliases at _stext, __pfx_ padding symbols), two absolute
 * per-CPU symbols, made-up module symbols out of order and a malformed
 * line; kallsyms-hidden is the same with every address 0, as kptr_restrict
 * shows it.  The expected strings follow stap's runtime/sym.c
 * (_stp_snprint_addr with _STP_SYM_SYMBOL, _DATA, _SIMPLE, _FULL, _NONE).
 * The last test reads this machine's /proc/kallsyms when it can.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../runtime/ksym.h"

static const char *fixture(const char *name)
{
	static char path[4096];
	const char *src = getenv("KTAP_SRCDIR");
	snprintf(path, sizeof(path), "%s/tests/fixtures/kallsyms/%s", src && *src ? src : ".", name);
	return path;
}

static struct ksym_table *load(const char *name)
{
	struct ksym_table *t = NULL;
	char err[256];
	if (ksym_load(fixture(name), &t, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	return t;
}

/* ADDR printed in FMT must be WANT. */
static void fmt_is(const struct ksym_table *t, uint64_t addr, enum ksym_fmt fmt, int inexact,
		   const char *want)
{
	char buf[512];
	int n = ksym_format(t, addr, fmt, inexact, buf, sizeof(buf));
	assert_string_equal(buf, want);
	assert_int_equal(n, strlen(want));
}

static void test_table(void **state)
{
	(void)state;
	struct ksym_table *t = load("kallsyms");
	assert_int_equal(ksym_count(t), 27);
	assert_int_equal(ksym_skipped(t), 1);
	assert_false(ksym_hidden(t));

	struct ksym_info in;
	assert_int_equal(ksym_lookup(t, 0xffffffff816d5375ull, &in), 0);
	assert_string_equal(in.name, "vfs_read");
	assert_string_equal(in.module, "kernel");
	assert_int_equal(in.addr, 0xffffffff816d5370ull);
	assert_int_equal(in.offset, 5);
	assert_int_equal(in.size, 0x3d0);
	/* Aliases: the first in the file, as the kernel picks. */
	assert_int_equal(ksym_lookup(t, 0xffffffff81000000ull, &in), 0);
	assert_string_equal(in.name, "srso_alias_untrain_ret");
	assert_int_equal(in.size, 0x6d5300);
	/* Module symbols listed out of order. */
	assert_int_equal(ksym_lookup(t, 0xffffffffc0a00104ull, &in), 0);
	assert_string_equal(in.name, "e1000_alloc_rx_buffers");
	assert_string_equal(in.module, "e1000");
	assert_int_equal(in.size, 0x300);
	/* Last of its module: size unknown, matches KSYM_LAST_SPAN bytes. */
	assert_int_equal(ksym_lookup(t, 0xffffffffc0a00410ull, &in), 0);
	assert_string_equal(in.name, "e1000_xmit_frame");
	assert_int_equal(in.size, 0);
	assert_int_equal(ksym_lookup(t, 0xffffffffc0a00400ull + KSYM_LAST_SPAN, &in), -1);
	/* Below every symbol (absolute per-CPU symbols are left out). */
	assert_int_equal(ksym_lookup(t, 0x1000, &in), -1);
	assert_int_equal(ksym_lookup(t, 0, &in), -1);
	ksym_free(t);
}

static void test_formats(void **state)
{
	(void)state;
	struct ksym_table *t = load("kallsyms");
	const uint64_t a = 0xffffffff816d5375ull;
	fmt_is(t, a, KSYM_FMT_SYMBOL, 0, "vfs_read");
	fmt_is(t, a, KSYM_FMT_DATA, 0, "vfs_read+0x5/0x3d0 [kernel]");
	fmt_is(t, a, KSYM_FMT_FULL, 0, " 0xffffffff816d5375 : vfs_read+0x5/0x3d0 [kernel]\n");
	fmt_is(t, a, KSYM_FMT_FULL, 1,
	       " 0xffffffff816d5375 : vfs_read+0x5/0x3d0 [kernel] (inexact)\n");
	fmt_is(t, a, KSYM_FMT_SIMPLE, 0, "vfs_read+0x5 [kernel]\n");
	fmt_is(t, a, KSYM_FMT_BRIEF, 0, "vfs_read+0x5\n");
	fmt_is(t, a, KSYM_FMT_HEX, 1, "0xffffffff816d5375 ");
	/* Offset 0 is "0x0", as stap's vsprintf prints it (not glibc's "0"). */
	fmt_is(t, 0xffffffff82259c50ull, KSYM_FMT_DATA, 0, "do_syscall_64+0x0/0x280 [kernel]");
	fmt_is(t, 0xffffffffc0b10804ull, KSYM_FMT_FULL, 0,
	       " 0xffffffffc0b10804 : p9_client_walk+0x4/0x0 [9pnet]\n");
	/* Unknown addresses: the hex string. */
	fmt_is(t, 0x1000, KSYM_FMT_SYMBOL, 0, "0x1000");
	fmt_is(t, 0x1000, KSYM_FMT_DATA, 0, "0x1000");
	fmt_is(t, 0, KSYM_FMT_FULL, 0, " 0x0\n");
	fmt_is(t, 0, KSYM_FMT_FULL, 1, " 0x0 (inexact)\n");
	fmt_is(t, 0x1000, KSYM_FMT_SIMPLE, 0, "0x1000\n");
	/* snprintf's contract: truncated, NUL-terminated, full length back. */
	char small[8];
	assert_int_equal(ksym_format(t, a, KSYM_FMT_DATA, 0, small, sizeof(small)), 27);
	assert_string_equal(small, "vfs_rea");
	ksym_free(t);
}

static void test_hidden(void **state)
{
	(void)state;
	struct ksym_table *t = load("kallsyms-hidden");
	assert_true(ksym_hidden(t));
	struct ksym_info in;
	assert_int_equal(ksym_lookup(t, 0, &in), -1);
	fmt_is(t, 0xffffffff816d5375ull, KSYM_FMT_DATA, 0, "0xffffffff816d5375");
	assert_non_null(strstr(ksym_hidden_message(), "kptr_restrict"));
	ksym_free(t);
}

static void test_errors(void **state)
{
	(void)state;
	struct ksym_table *t = (struct ksym_table *)1;
	char err[256];
	assert_int_equal(ksym_load("/nonexistent/kallsyms", &t, err, sizeof(err)), -1);
	assert_null(t);
	assert_non_null(strstr(err, "cannot open /nonexistent/kallsyms"));
	assert_int_equal(ksym_parse("hello\nworld", 11, &t, err, sizeof(err)), -1);
	assert_string_equal(err, "no symbol in the kallsyms text");
	/* Garbage around good lines; a NUL byte; a line without newline. */
	static const char text[] = "zz T x\n\nffffffff81000000 T a\nffffffff81000010 T b\0c\n"
				   "ffffffff81000020 t c\t[m\nffffffff81000030 T d";
	assert_int_equal(ksym_parse(text, sizeof(text) - 1, &t, err, sizeof(err)), 0);
	assert_int_equal(ksym_count(t), 2);
	assert_int_equal(ksym_skipped(t), 3);
	fmt_is(t, 0xffffffff81000031ull, KSYM_FMT_DATA, 0, "d+0x1/0x0 [kernel]");
	fmt_is(t, 0xffffffff81000011ull, KSYM_FMT_DATA, 0, "a+0x11/0x30 [kernel]");
	ksym_free(t);
}

/* This machine's /proc/kallsyms: vfs_read's own address maps back to it. */
/* The hist stacktrace key's %pS frames back to addresses. */
static void test_frame_addr(void **state)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff81000000 T startup_64\n"
		"ffffffff81100000 t dup\n"
		"ffffffff81100040 t after_dup\n"
		"ffffffff81200000 t dup\n"
		"ffffffff81200080 t after_dup2\n"
		"ffffffff81300000 t dupsame\n"
		"ffffffff81300040 t x1\n"
		"ffffffff81400000 t dupsame\n"
		"ffffffff81400040 t x2\n"
		"ffffffffc0001000 t modfn\t[mymod]\n"
		"ffffffffc0001100 t modfn2\t[mymod]\n";
	struct ksym_table *t = NULL, *h = NULL;
	struct ksym_names *ns, *nh;
	char err[256];
	uint64_t a = 0;

	(void)state;
	assert_int_equal(ksym_parse(text, sizeof(text) - 1, &t, err, sizeof(err)), 0);
	ns = ksym_names_new(t);
	assert_non_null(ns);
	assert_int_equal(ksym_frame_addr(ns, "startup_64+0x10/0x100000", &a), 0);
	assert_true(a == 0xffffffff81000010ull);
	/* one name twice: the printed size tells them apart */
	assert_int_equal(ksym_frame_addr(ns, "dup+0x8/0x40", &a), 0);
	assert_true(a == 0xffffffff81100008ull);
	assert_int_equal(ksym_frame_addr(ns, "dup+0x8/0x80", &a), 0);
	assert_true(a == 0xffffffff81200008ull);
	/* ... or does not: the first, said */
	assert_int_equal(ksym_frame_addr(ns, "dupsame+0x4/0x40", &a), 1);
	assert_true(a == 0xffffffff81300004ull);
	assert_int_equal(ksym_frame_addr(ns, "dup+0x8/0x999", &a), 1);
	assert_true(a == 0xffffffff81100008ull);
	assert_int_equal(ksym_frame_addr(ns, "modfn+0x20/0x100 [mymod]", &a), 0);
	assert_true(a == 0xffffffffc0001020ull);
	assert_int_equal(ksym_frame_addr(ns, "modfn+0x20/0x100", &a), -1);
	assert_int_equal(ksym_frame_addr(ns, "modfn+0x20/0x100 [other]", &a), -1);
	assert_int_equal(ksym_frame_addr(ns, "0xffffffffc02010c8", &a), 0);
	assert_true(a == 0xffffffffc02010c8ull);
	assert_int_equal(ksym_frame_addr(ns, "nosuch+0x1/0x2", &a), -1);
	assert_int_equal(ksym_frame_addr(ns, "du+0x1/0x40", &a), -1);
	assert_int_equal(ksym_frame_addr(ns, "dup", &a), -1);
	ksym_names_free(ns);
	ksym_free(t);
	/* kptr_restrict: nothing to go back to */
	h = load("kallsyms-hidden");
	nh = ksym_names_new(h);
	assert_int_equal(ksym_frame_addr(nh, "vfs_read+0x5/0x1a0", &a), -1);
	ksym_names_free(nh);
	ksym_free(h);
}

static void test_proc_kallsyms(void **state)
{
	(void)state;
	struct ksym_table *t = NULL;
	char err[256];
	if (ksym_load("/proc/kallsyms", &t, err, sizeof(err)) != 0)
		skip();
	if (ksym_hidden(t)) {
		ksym_free(t);
		skip();
	}
	FILE *fp = fopen("/proc/kallsyms", "r");
	assert_non_null(fp);
	char line[512];
	unsigned long long addr = 0;
	while (fgets(line, sizeof(line), fp))
		if (strstr(line, " T vfs_read\n")) {
			addr = strtoull(line, NULL, 16);
			break;
		}
	fclose(fp);
	if (!addr) {
		ksym_free(t);
		skip();
	}
	char buf[256];
	ksym_format(t, addr + 1, KSYM_FMT_DATA, 0, buf, sizeof(buf));
	assert_true(strncmp(buf, "vfs_read+0x1/0x", 15) == 0);
	assert_non_null(strstr(buf, " [kernel]"));
	ksym_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_hidden),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_frame_addr),
		cmocka_unit_test(test_proc_kallsyms),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
