/*
 * test_format.c - printf formats (runtime/format.c): exact output per
 * conversion, flag, width and precision, and compile errors.
 *
 * Every expected string is what stap 4.x prints: its translator calls
 * runtime/vsprintf.c's number(), _stp_vsprint_memory(), _stp_vsprint_char()
 * and _stp_vsprint_binary() once per directive, with at most one flag.
 * Where that differs from C's printf the case says so.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

/* ---- helpers ---- */

/* A bump allocator standing in for the compiler's arena. */
static char pool[1 << 16];
static size_t pool_used;
static unsigned pool_calls;

static void *pool_alloc(void *ctx, size_t n)
{
	void *p;

	(void)ctx;
	n = (n + 15) & ~(size_t)15;
	if (pool_used + n > sizeof(pool))
		pool_used = 0;	/* old formats are dead by then */
	p = pool + pool_used;
	pool_used += n;
	pool_calls++;
	return p;
}

static void *null_alloc(void *ctx, size_t n)
{
	(void)ctx;
	(void)n;
	return NULL;
}

#define L(x) ((struct rt_value){ .type = RT_LONG, .l = (int64_t)(x) })
#define S(x) ((struct rt_value){ .type = RT_STRING, .len = sizeof(x) - 1, .s = (x) })

/* @s as C source, for failure messages. */
static const char *shown(const char *s, size_t n)
{
	static char out[4][1024];
	static int which;
	char *o = out[which++ % 4];
	size_t i, k = 0;

	for (i = 0; i < n && k + 5 < sizeof(out[0]); i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			o[k++] = (char)c;
		else
			k += (size_t)snprintf(o + k, sizeof(out[0]) - k, "\\%03o", c);
	}
	o[k] = '\0';
	return o;
}

static struct fmt_spec *compile_ok(const char *fmt, size_t len)
{
	struct fmt_error err = { 0 };
	struct fmt_spec *f = fmt_compile(fmt, len, pool_alloc, NULL, &err);

	if (!f)
		fail_msg("\"%s\" failed to compile: %s (offset %zu)", shown(fmt, len),
			 err.msg, err.offset);
	return f;
}

/* Render @fmt with @args; it must give exactly @want (@wantlen bytes). */
static void check(const char *fmt, size_t len, const char *want, size_t wantlen,
		  const struct rt_value *args, unsigned nargs, int line)
{
	struct fmt_spec *f = compile_ok(fmt, len);
	struct rt_buf out = { 0 };

	if (fmt_nargs(f) != nargs)
		fail_msg("line %d: \"%s\" takes %u arguments, test gives %u", line,
			 shown(fmt, len), fmt_nargs(f), nargs);
	fmt_render(&out, f, args, nargs);
	if (out.len != wantlen || (wantlen && memcmp(out.p, want, wantlen) != 0))
		fail_msg("line %d: \"%s\" gave \"%s\", want \"%s\"", line, shown(fmt, len),
			 shown(out.p ? out.p : "", out.len), shown(want, wantlen));
	buf_free(&out);
}

#define LIT_LEN(s) (sizeof(s) - 1)
#define CHECK(fmt, want, ...)						\
	check(fmt, LIT_LEN(fmt), want, LIT_LEN(want),			\
	      (const struct rt_value[]){ __VA_ARGS__ },			\
	      (unsigned)(sizeof((const struct rt_value[]){ __VA_ARGS__ }) / \
			 sizeof(struct rt_value)), __LINE__)
#define CHECK0(fmt, want)						\
	check(fmt, LIT_LEN(fmt), want, LIT_LEN(want), NULL, 0, __LINE__)

/* ---- literal text ---- */

static void test_literals(void **state)
{
	(void)state;
	CHECK0("", "");
	CHECK0("hello, world\n", "hello, world\n");
	CHECK0("100%%", "100%");
	CHECK0("%%d", "%d");
	CHECK0("a%%%%b", "a%%b");
	CHECK0("%%%%", "%%");
	CHECK("[%d]", "[7]", L(7));
	CHECK("%d%d", "12", L(1), L(2));
	CHECK("x%dy%%z", "x5y%z", L(5));
	/* stap copies literal text as C strings: a segment ends at a NUL... */
	CHECK0("ab\0cd", "ab");
	CHECK("a\0b%dc\0d%s!", "a1cx!", L(1), S("x"));
	/* ... and "%%" does not start a new segment. */
	CHECK0("a\0%%b", "a");
}

/* ---- integers ---- */

static void test_signed(void **state)
{
	(void)state;
	CHECK("%d", "0", L(0));
	CHECK("%d", "42", L(42));
	CHECK("%d", "-42", L(-42));
	CHECK("%i", "-7", L(-7));
	CHECK("%ld", "12", L(12));
	CHECK("%d", "9223372036854775807", L(INT64_MAX));
	CHECK("%d", "-9223372036854775808", L(INT64_MIN));
	CHECK("%d", "4294967296", L(4294967296LL));
	/* width */
	CHECK("%5d|", "   42|", L(42));
	CHECK("%-5d|", "42   |", L(42));
	CHECK("%05d", "00042", L(42));
	CHECK("%05d", "-0042", L(-42));
	CHECK("%5d", "  -42", L(-42));
	CHECK("%-5d|", "-42  |", L(-42));
	CHECK("%2d", "12345", L(12345));
	CHECK("%0d", "3", L(3));
	CHECK("%00d", "3", L(3));		/* flag '0', width 0 */
	CHECK("%25d", "     -9223372036854775808", L(INT64_MIN));
	CHECK("%025d", "-000009223372036854775808", L(INT64_MIN));
	/* signs */
	CHECK("%+d", "+5", L(5));
	CHECK("%+d", "+0", L(0));
	CHECK("%+d", "-5", L(-5));
	CHECK("% d", " 5", L(5));
	CHECK("% d", "-5", L(-5));
	CHECK("%+5d", "   +5", L(5));
	CHECK("% 5d", "    5", L(5));
	CHECK("%+d", "+9223372036854775807", L(INT64_MAX));
	/* precision */
	CHECK("%.3d", "005", L(5));
	CHECK("%.3d", "-005", L(-5));
	CHECK("%.0d", "0", L(0));		/* C prints nothing here */
	CHECK("%.d", "0", L(0));
	CHECK("%.1d", "123", L(123));
	CHECK("%8.3d|", "     005|", L(5));
	CHECK("%-8.3d|", "005     |", L(5));
	CHECK("%+.3d", "+005", L(5));
	/* '0' pads even with a precision (C would use spaces) */
	CHECK("%08.3d", "00000005", L(5));
	CHECK("%08.3d", "-0000005", L(-5));
	/* one flag only: "%-08d" is '-' and width 8 */
	CHECK("%-08d|", "5       |", L(5));
	/* '#' means nothing in base 10 */
	CHECK("%#d", "10", L(10));
	CHECK("%#5d", "   10", L(10));
}

static void test_unsigned(void **state)
{
	(void)state;
	CHECK("%u", "0", L(0));
	CHECK("%u", "42", L(42));
	CHECK("%u", "18446744073709551615", L(-1));
	CHECK("%u", "9223372036854775808", L(INT64_MIN));
	CHECK("%u", "18446744073709551574", L(-42));
	CHECK("%6u|", "    42|", L(42));
	CHECK("%-6u|", "42    |", L(42));
	CHECK("%06u", "000042", L(42));
	CHECK("%.4u", "0042", L(42));
	/* '+' and ' ' only apply to %d and %i */
	CHECK("%+u", "5", L(5));
	CHECK("% u", "5", L(5));
	CHECK("%lu", "7", L(7));
}

static void test_hex_octal(void **state)
{
	(void)state;
	CHECK("%x", "0", L(0));
	CHECK("%x", "ff", L(255));
	CHECK("%X", "FF", L(255));
	CHECK("%x", "deadbeef", L(0xdeadbeef));
	CHECK("%X", "DEADBEEF", L(0xdeadbeef));
	CHECK("%x", "ffffffffffffffff", L(-1));
	CHECK("%X", "8000000000000000", L(INT64_MIN));
	CHECK("%x", "7fffffffffffffff", L(INT64_MAX));
	CHECK("%#x", "0xff", L(255));
	CHECK("%#X", "0XFF", L(255));
	CHECK("%#x", "0x0", L(0));		/* C prints "0" */
	CHECK("%#x", "0xffffffffffffffff", L(-1));
	CHECK("%8x|", "      ff|", L(255));
	CHECK("%-8x|", "ff      |", L(255));
	CHECK("%08x", "000000ff", L(255));
	CHECK("%08X", "0000ABCD", L(0xabcd));
	CHECK("%.4x", "00ff", L(255));
	CHECK("%#.4x", "0x00ff", L(255));
	CHECK("%#10x|", "      0xff|", L(255));
	/* one flag: "%#08x" is '#' and width 8, padded with spaces */
	CHECK("%#08x", "    0xff", L(255));
	CHECK("%+x", "5", L(5));
	CHECK("%lx", "10", L(16));
	/* octal */
	CHECK("%o", "0", L(0));
	CHECK("%o", "10", L(8));
	CHECK("%o", "777", L(511));
	CHECK("%o", "1777777777777777777777", L(-1));
	CHECK("%o", "1000000000000000000000", L(INT64_MIN));
	CHECK("%#o", "010", L(8));
	CHECK("%#o", "00", L(0));		/* C prints "0" */
	CHECK("%#.3o", "0010", L(8));		/* C prints "010" */
	CHECK("%#5o|", "  010|", L(8));
	CHECK("%5o|", "   10|", L(8));
	CHECK("%05o", "00010", L(8));
	CHECK("%-5o|", "10   |", L(8));
}

static void test_pointer(void **state)
{
	(void)state;
	/* Since stap 1.3, %p is %#x: no fixed width. */
	CHECK("%p", "0x0", L(0));
	CHECK("%p", "0x1000", L(4096));
	CHECK("%p", "0xffffffff81000000", L((int64_t)0xffffffff81000000ULL));
	CHECK("%p", "0xffffffffffffffff", L(-1));
	CHECK("%20p|", "              0x1234|", L(0x1234));
	CHECK("%-20p|", "0x1234              |", L(0x1234));
	CHECK("%020p", "0x000000000000001234", L(0x1234));
	CHECK("%.8p", "0x00001234", L(0x1234));
	CHECK("%#p", "0x1234", L(0x1234));
	CHECK("%+p", "0x1234", L(0x1234));
	CHECK("%lp", "0x1", L(1));
}

/* ---- strings ---- */

static void test_string(void **state)
{
	(void)state;
	CHECK("%s", "hi", S("hi"));
	CHECK("%s", "", S(""));
	CHECK("<%s>", "<>", S(""));
	CHECK("%5s|", "   hi|", S("hi"));
	CHECK("%-5s|", "hi   |", S("hi"));
	CHECK("%1s", "hello", S("hello"));
	CHECK("%.1s", "h", S("hello"));
	CHECK("%.0s|", "|", S("hello"));
	CHECK("%.s", "hello", S("hello"));	/* no digits: no precision */
	CHECK("%.9s", "hello", S("hello"));
	CHECK("%7.3s|", "    hel|", S("hello"));
	CHECK("%-7.3s|", "hel    |", S("hello"));
	CHECK("%3s|", "   |", S(""));
	CHECK("%ls", "x", S("x"));
	/* '+', ' ' and '#' change nothing */
	CHECK("%+s% s%#s", "abc", S("a"), S("b"), S("c"));
	/* '0' pads with spaces and NUL-terminates the field */
	CHECK("%05s|", "   hi\0|", S("hi"));
	CHECK("%0s", "\0", S(""));
	CHECK("%0.1s", "h\0", S("hello"));
	/* stap strings end at a NUL */
	CHECK("%s|", "a|", S("a\0b"));
	CHECK("%5s|", "    a|", S("a\0b"));
	CHECK("%s %s", "one two", S("one"), S("two"));
}

static void test_long_string(void **state)
{
	char s[600], want[700];
	struct rt_value v;

	(void)state;
	memset(s, 'x', sizeof(s));
	v = (struct rt_value){ .type = RT_STRING, .len = sizeof(s), .s = s };
	memset(want, ' ', 100);
	memcpy(want + 100, s, sizeof(s));
	check("%700s", 5, want, sizeof(want), &v, 1, __LINE__);
	check("%.600s", 6, want + 100, 600, &v, 1, __LINE__);
	check("%.599s", 6, want + 100, 599, &v, 1, __LINE__);
}

static void test_char(void **state)
{
	(void)state;
	CHECK("%c", "A", L(65));
	CHECK("%c%c", "ok", L('o'), L('k'));
	CHECK("%c", "A", L(0x141));		/* the low byte */
	CHECK("%c", "A", L(-191));		/* -191 & 0xff == 0x41 */
	CHECK("%c", "\0", L(0));
	CHECK("%c", "\377", L(-1));
	CHECK("%c", "\n", L('\n'));
	CHECK("%3c|", "  A|", L('A'));
	CHECK("%-3c|", "A  |", L('A'));
	CHECK("%03c|", "  A|", L('A'));	/* no zero padding, no NUL */
	CHECK("%+c% c", "AB", L('A'), L('B'));
	CHECK("%.5c", "A", L('A'));
	CHECK("%lc", "z", L('z'));
	/* '#' escapes what is not printable ASCII, C-style */
	CHECK("%#c", "A", L('A'));
	CHECK("%#c", " ", L(' '));
	CHECK("%#c", "\"", L('"'));
	CHECK("%#c", "~", L('~'));
	CHECK("%#c", "\\n", L('\n'));
	CHECK("%#c", "\\t", L('\t'));
	CHECK("%#c", "\\r", L('\r'));
	CHECK("%#c", "\\a", L('\a'));
	CHECK("%#c", "\\b", L('\b'));
	CHECK("%#c", "\\f", L('\f'));
	CHECK("%#c", "\\v", L('\v'));
	CHECK("%#c", "\\'", L('\''));
	CHECK("%#c", "\\\\", L('\\'));
	CHECK("%#c", "\\000", L(0));
	CHECK("%#c", "\\033", L(27));
	CHECK("%#c", "\\177", L(127));
	CHECK("%#c", "\\200", L(128));
	CHECK("%#c", "\\377", L(255));
	CHECK("%#5c|", "   \\n|", L('\n'));
	CHECK("%#6c|", "  \\001|", L(1));
	CHECK("%#2c|", "\\001|", L(1));
}

/* ---- binary ---- */

/* The low @n bytes of @v in host order, after @lead NULs and before @trail. */
static size_t raw(char *out, int64_t v, size_t n, size_t lead, size_t trail)
{
	int8_t b1 = (int8_t)v;
	int16_t b2 = (int16_t)v;
	int32_t b4 = (int32_t)v;
	const void *p = n == 1 ? (const void *)&b1 : n == 2 ? (const void *)&b2 :
			n == 4 ? (const void *)&b4 : (const void *)&v;

	memset(out, 0, lead + n + trail);
	memcpy(out + lead, p, n);
	return lead + n + trail;
}

static void check_bin(const char *fmt, int64_t v, size_t n, size_t lead,
		      size_t trail, int line)
{
	char want[64];
	struct rt_value a = L(v);

	check(fmt, strlen(fmt), want, raw(want, v, n, lead, trail), &a, 1, line);
}

static void test_binary(void **state)
{
	const int64_t v = 0x0102030405060708LL;
	struct rt_value args[2];
	char want[64];

	(void)state;
	check_bin("%b", v, 8, 0, 0, __LINE__);
	check_bin("%b", -1, 8, 0, 0, __LINE__);
	check_bin("%b", INT64_MIN, 8, 0, 0, __LINE__);
	/* a width of 1, 2, 4 or 8 is the size */
	check_bin("%1b", v, 1, 0, 0, __LINE__);
	check_bin("%2b", v, 2, 0, 0, __LINE__);
	check_bin("%4b", v, 4, 0, 0, __LINE__);
	check_bin("%8b", v, 8, 0, 0, __LINE__);
	/* any other width pads 8 bytes with NULs */
	check_bin("%3b", v, 8, 0, 0, __LINE__);
	check_bin("%16b", v, 8, 8, 0, __LINE__);
	check_bin("%-16b", v, 8, 0, 8, __LINE__);
	check_bin("%10b", v, 8, 2, 0, __LINE__);
	/* a precision of 1, 2, 4 or 8 is the size; width pads it */
	check_bin("%.2b", v, 2, 0, 0, __LINE__);
	check_bin("%.4b", v, 4, 0, 0, __LINE__);
	check_bin("%4.2b", v, 2, 2, 0, __LINE__);
	check_bin("%-4.2b", v, 2, 0, 2, __LINE__);
	check_bin("%1.4b", v, 4, 0, 0, __LINE__);
	check_bin("%.3b", v, 8, 0, 0, __LINE__);	/* invalid size: 8 */
	check_bin("%.0b", v, 8, 0, 0, __LINE__);
	check_bin("%2.3b", v, 2, 0, 0, __LINE__);	/* invalid size: the width's */
	/* flags other than '-' change nothing */
	check_bin("%04b", v, 4, 0, 0, __LINE__);
	check_bin("%#2b", v, 2, 0, 0, __LINE__);
	/* '*' */
	args[0] = L(4);
	args[1] = L(v);
	check("%*b", 3, want, raw(want, v, 4, 0, 0), args, 2, __LINE__);
	args[0] = L(2);
	check("%.*b", 4, want, raw(want, v, 2, 0, 0), args, 2, __LINE__);
	/* binary next to text */
	CHECK("<%1b>", "<A>", L(0x41));
	CHECK("%1b%1b%s", "\001\002ok", L(1), L(2), S("ok"));
}

/* ---- %m and %M ---- */

static void test_memory(void **state)
{
	(void)state;
	/* one byte unless a precision says more */
	CHECK("%m", "h", S("hello"));
	CHECK("%.3m", "hel", S("hello"));
	CHECK("%.0m", "h", S("hello"));
	CHECK("%.5m", "hello", S("hello"));
	/* never past the string (stap would read on in kernel memory) */
	CHECK("%.10m|", "hi|", S("hi"));
	CHECK("%m|", "|", S(""));
	/* NUL bytes are data here */
	CHECK("%.3m", "a\0b", S("a\0b"));
	CHECK("%5.2m|", "   he|", S("hello"));
	CHECK("%-5.2m|", "he   |", S("hello"));
	CHECK("%05.2m|", "   he\0|", S("hello"));
	CHECK("%lm", "x", S("xyz"));
	/* %M: two lowercase hex digits a byte */
	CHECK("%M", "41", S("AB"));
	CHECK("%.2M", "4142", S("AB"));
	CHECK("%.3M", "01abff", S("\001\253\377"));
	CHECK("%.4M", "00ff007f", S("\0\377\0\177"));
	CHECK("%.9M|", "4142|", S("AB"));
	CHECK("%6.2M|", "  4142|", S("AB"));
	CHECK("%-6.2M|", "4142  |", S("AB"));
	CHECK("%3.2M|", "4142|", S("AB"));
	CHECK("%0.1M|", "41\0|", S("AB"));
	CHECK("%.*M", "6869", L(2), S("hi"));
}

/* ---- '*' ---- */

static void test_star(void **state)
{
	char want[8192];

	(void)state;
	CHECK("%*d|", "   42|", L(5), L(42));
	CHECK("%-*d|", "42   |", L(5), L(42));
	CHECK("%0*d", "00042", L(5), L(42));
	CHECK("%.*d", "0007", L(4), L(7));
	CHECK("%*.*d|", "   007|", L(6), L(3), L(7));
	CHECK("%-*.*x|", "00ff  |", L(6), L(4), L(255));
	CHECK("%*s|", "  ab|", L(4), S("ab"));
	CHECK("%.*s|", "he|", L(2), S("hello"));
	CHECK("%*.*s|", "   he|", L(5), L(2), S("hello"));
	CHECK("%*c|", "  x|", L(3), L('x'));
	/* negative: 0, not left-justified (stap clamps to 0..8192) */
	CHECK("%*d|", "42|", L(-5), L(42));
	CHECK("%.*s|", "|", L(-1), S("hello"));
	CHECK("%.*d|", "7|", L(-3), L(7));
	/* the low 32 bits of the argument, as stap's int conversion */
	CHECK("%*d|", "  1|", L(0x100000003LL), L(1));
	CHECK("%*d|", "1|", L(INT64_MIN), L(1));
	CHECK("%*d|", "1|", L(0xffffffffLL), L(1));
	/* widths beyond STP_BUFFER_SIZE are clamped to it */
	memset(want, ' ', sizeof(want));
	want[sizeof(want) - 1] = '7';
	check("%*d", 3, want, sizeof(want), (struct rt_value[]){ L(100000), L(7) },
	      2, __LINE__);
	check("%99999d", 7, want, sizeof(want), (struct rt_value[]){ L(7) }, 1,
	      __LINE__);
}

/* ---- several directives ---- */

static void test_mixed(void **state)
{
	(void)state;
	CHECK("%s(%d) = %x\n", "open(3) = 1f\n", S("open"), L(3), L(31));
	CHECK("%-10s %5d %5.1s|", "bash         123     x|", S("bash"), L(123),
	      S("xyz"));
	CHECK("%d%%%s", "50%off", L(50), S("off"));
	CHECK("%c%c%c", "abc", L('a'), L('b'), L('c'));
	CHECK("%*d,%s,%.*s", "  1,two,th", L(3), L(1), S("two"), L(2), S("three"));
	CHECK("%p %u %o", "0x10 16 20", L(16), L(16), L(16));
	CHECK("[%5s][%-5s][%5d][%-5d]", "[   ab][ab   ][   12][12   ]", S("ab"),
	      S("ab"), L(12), L(12));
}

/* One printf prints at most STP_BUFFER_SIZE (8192) bytes. */
static void test_output_cap(void **state)
{
	struct fmt_spec *f = compile_ok("%*d%*d", 6);
	struct rt_buf out = { 0 };
	struct rt_value args[] = { L(5000), L(1), L(5000), L(2) };

	(void)state;
	buf_add(&out, "before", 6);
	fmt_render(&out, f, args, 4);
	assert_int_equal(out.len, 6 + 8192);
	assert_memory_equal(out.p, "before    ", 10);
	assert_int_equal(out.p[6 + 4999], '1');
	buf_free(&out);
}

/* Arguments the compiler would reject render as 0 or "", never crash. */
static void test_wrong_types(void **state)
{
	struct fmt_spec *f = compile_ok("%d|%d|", 6);
	struct rt_value one = L(1);
	struct rt_buf out = { 0 };

	(void)state;
	CHECK("%d|%s|", "0||", S("x"), L(5));
	/* too few: the missing ones are 0 */
	fmt_render(&out, f, &one, 1);
	assert_int_equal(out.len, 4);
	assert_memory_equal(out.p, "1|0|", 4);
	buf_free(&out);
}

/* ---- what the compiler checks arguments against ---- */

static void test_args(void **state)
{
	struct fmt_spec *f;

	(void)state;
	f = compile_ok("no directives %%", 16);
	assert_int_equal(fmt_nargs(f), 0);
	f = compile_ok("%*.*s %d %m %M %c %b %p %%", 26);
	assert_int_equal(fmt_nargs(f), 9);
	assert_int_equal(fmt_arg_type(f, 0), RT_LONG);
	assert_int_equal(fmt_arg_type(f, 1), RT_LONG);
	assert_int_equal(fmt_arg_type(f, 2), RT_STRING);
	assert_int_equal(fmt_arg_type(f, 3), RT_LONG);
	assert_int_equal(fmt_arg_type(f, 4), RT_STRING);
	assert_int_equal(fmt_arg_type(f, 5), RT_STRING);
	assert_int_equal(fmt_arg_type(f, 6), RT_LONG);
	assert_int_equal(fmt_arg_type(f, 7), RT_LONG);
	assert_int_equal(fmt_arg_type(f, 8), RT_LONG);
	f = compile_ok("%.*d%*s", 7);
	assert_int_equal(fmt_nargs(f), 4);
	assert_int_equal(fmt_arg_type(f, 0), RT_LONG);
	assert_int_equal(fmt_arg_type(f, 1), RT_LONG);
	assert_int_equal(fmt_arg_type(f, 2), RT_LONG);
	assert_int_equal(fmt_arg_type(f, 3), RT_STRING);
}

/* All memory comes from the callback; its failure is reported. */
static void test_alloc(void **state)
{
	struct fmt_error err = { 0 };

	(void)state;
	pool_calls = 0;
	assert_non_null(fmt_compile("a%db%sc", 7, pool_alloc, NULL, &err));
	assert_true(pool_calls > 0);
	assert_null(fmt_compile("a%db", 4, null_alloc, NULL, &err));
	assert_string_equal(err.msg, "out of memory");
}

/* ---- compile errors ---- */

struct bad_format {
	const char *fmt;
	size_t offset;
	const char *msg;
};

static void test_errors(void **state)
{
	static const struct bad_format cases[] = {
		{ "%y", 0, "invalid conversion '%y'" },
		{ "abc %q def", 4, "invalid conversion '%q'" },
		{ "%d %e", 3, "invalid conversion '%e'" },
		{ "%f", 0, "invalid conversion '%f'" },
		{ "%n", 0, "invalid conversion '%n'" },
		{ "%5%", 0, "invalid conversion '%5%'" },
		{ "%-%", 0, "invalid conversion '%-%'" },
		{ "%-5.3y", 0, "invalid conversion '%-5.3y'" },
		{ "%\001", 0, "invalid conversion '%\\001'" },
		{ "%", 0, "incomplete format specifier '%' at end" },
		{ "abc%", 3, "incomplete format specifier '%' at end" },
		{ "%d%", 2, "incomplete format specifier '%' at end" },
		{ "%5", 0, "incomplete format specifier '%5' at end" },
		{ "%-", 0, "incomplete format specifier '%-' at end" },
		{ "%*", 0, "incomplete format specifier '%*' at end" },
		{ "%.", 0, "incomplete format specifier '%.' at end" },
		{ "%.5", 0, "incomplete format specifier '%.5' at end" },
		{ "%.*", 0, "incomplete format specifier '%.*' at end" },
		{ "x%l", 1, "incomplete format specifier '%l' at end" },
		{ "%lld", 0, "unsupported length modifier in '%lld' "
			     "(stap allows one 'l', values are 64-bit)" },
		{ "%hd", 0, "unsupported length modifier in '%hd' "
			    "(stap allows one 'l', values are 64-bit)" },
		{ "%zu", 0, "unsupported length modifier in '%zu' "
			    "(stap allows one 'l', values are 64-bit)" },
		{ "%5Lx", 0, "unsupported length modifier in '%5Lx' "
			     "(stap allows one 'l', values are 64-bit)" },
		{ "x %-+5d", 2, "more than one flag in '%-+5d' (stap allows one)" },
		{ "%+-5d", 0, "more than one flag in '%+-5d' (stap allows one)" },
		{ "%0-5d", 0, "more than one flag in '%0-5d' (stap allows one)" },
		{ "%# x", 0, "more than one flag in '%# x' (stap allows one)" },
		{ "%5-d", 0, "invalid conversion '%5-'" },
		{ "%dok%d%%%w", 8, "invalid conversion '%w'" },
	};
	struct fmt_error err;
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&err, 0, sizeof(err));
		if (fmt_compile(cases[i].fmt, strlen(cases[i].fmt), pool_alloc, NULL, &err))
			fail_msg("\"%s\" compiled", shown(cases[i].fmt, strlen(cases[i].fmt)));
		if (err.offset != cases[i].offset || strcmp(err.msg, cases[i].msg) != 0)
			fail_msg("\"%s\": got %zu \"%s\", want %zu \"%s\"",
				 shown(cases[i].fmt, strlen(cases[i].fmt)), err.offset,
				 err.msg, cases[i].offset, cases[i].msg);
	}
}

/* Directives stap accepts that C programmers may not expect. */
static void test_accepted(void **state)
{
	static const char *const good[] = {
		"%ld", "%li", "%lu", "%lx", "%lX", "%lo", "%lp", "%ls", "%lc",
		"%lb", "%lm", "%lM", "%-08d", "%00d", "% d", "%.d", "%.s", "%#s",
		"%+c", "%*.*d", "%0*.*x", "%%", "%99999d",
	};
	struct fmt_error err;
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		if (!fmt_compile(good[i], strlen(good[i]), pool_alloc, NULL, &err))
			fail_msg("\"%s\" rejected: %s", good[i], err.msg);
}

/* A long format with a bad directive quotes only its start. */
static void test_error_quote_bounded(void **state)
{
	struct fmt_error err;

	(void)state;
	assert_null(fmt_compile("%-123456789012345678901234567890", 32, pool_alloc,
				NULL, &err));
	assert_int_equal(err.offset, 0);
	assert_string_equal(err.msg,
			    "incomplete format specifier '%-12345678901234' at end");
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_literals),
		cmocka_unit_test(test_signed),
		cmocka_unit_test(test_unsigned),
		cmocka_unit_test(test_hex_octal),
		cmocka_unit_test(test_pointer),
		cmocka_unit_test(test_string),
		cmocka_unit_test(test_long_string),
		cmocka_unit_test(test_char),
		cmocka_unit_test(test_binary),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_star),
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_output_cap),
		cmocka_unit_test(test_wrong_types),
		cmocka_unit_test(test_args),
		cmocka_unit_test(test_alloc),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_error_quote_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
