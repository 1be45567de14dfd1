/*
 * format.c - SystemTap's printf formats (see format.h).
 *
 * fmt_compile() splits a format into literal segments and directives
 * once, at pass 3; fmt_render() then only walks that list, per event,
 * with no allocation beyond the output buffer's growth.
 *
 * The behaviour is stap 4.x's as its translator emits it (one call per
 * directive into runtime/vsprintf.c's number(), _stp_vsprint_memory(),
 * _stp_vsprint_char() and _stp_vsprint_binary()), checked against the C
 * that `stap -p3` writes.  Where stap differs from C's printf:
 *  - a directive takes at most ONE flag: "%-08d" is '-' with width 8,
 *    "%+-5d" is an error, "%#08x" pads with spaces;
 *  - the only length modifier is one 'l', accepted and ignored;
 *  - '#' always adds the prefix: %#x of 0 is "0x0", %#o of 8 is "010"
 *    and %#.3o of 8 is "0010"; %p is %#x (no fixed width);
 *  - '0' still pads when a precision is given: %08.3d of 5 is "00000005";
 *  - '*' takes the low 32 bits of its argument, clamped to 0..8192, so
 *    a negative width is 0, not left-justification, and a negative
 *    precision is 0 (%.*s then prints nothing);
 *  - %s stops at a NUL byte, and '0' on %s, %m or %M appends a NUL
 *    after the (space-padded) field;
 *  - %#c escapes unprintable bytes C-style (newline as \n, ESC as \033);
 *  - %m and %M print precision bytes (default 1), never more than the
 *    string holds (stap reads that many bytes of kernel memory);
 *  - a literal segment ends at its first NUL byte (stap copies literals
 *    as C strings);
 *  - one call prints at most STP_BUFFER_SIZE (8192) bytes.
 */
#include "format.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* stap's STP_BUFFER_SIZE: bound of a field width, precision and output. */
#define FMT_BUFFER_SIZE 8192

#define FMT_NONE (-1)		/* width or precision not given */
#define FMT_STAR (-2)		/* width or precision from the next argument */

enum fmt_conv {
	FC_SIGNED,		/* d i */
	FC_UNSIGNED,		/* u */
	FC_HEX,			/* x X */
	FC_OCTAL,		/* o */
	FC_POINTER,		/* p */
	FC_STRING,		/* s */
	FC_CHAR,		/* c */
	FC_BINARY,		/* b */
	FC_MEMORY,		/* m */
	FC_MEMHEX,		/* M */
	FC_POINTER12,		/* p before stap 1.3 (fmt_old_pointers()) */
};

enum fmt_flag {
	FF_LEFT = 1,		/* - */
	FF_PLUS = 2,		/* + */
	FF_SPACE = 4,		/* ' ' */
	FF_ALT = 8,		/* # */
	FF_ZERO = 16,		/* 0 */
	FF_UPPER = 32,		/* %X */
};

/* One directive and the literal text that precedes it. */
struct fmt_dir {
	const char *lit;
	uint32_t litlen;
	uint8_t conv;		/* enum fmt_conv */
	uint8_t flags;		/* enum fmt_flag */
	int16_t width;		/* 0..FMT_BUFFER_SIZE, FMT_NONE or FMT_STAR */
	int16_t prec;
};

struct fmt_spec {
	struct fmt_dir *dirs;
	unsigned ndirs;
	const char *tail;	/* literal text after the last directive */
	uint32_t taillen;
	unsigned nargs;
	uint8_t *types;		/* enum rt_type of each argument */
};

/* ---- compiling ---- */

/*
 * The scanner runs twice over the format: once to validate and count
 * (f == NULL), once to fill the arrays sized by the first run.
 */
struct fmt_scan {
	const char *s;
	size_t len, pos;
	struct fmt_error *err;
	struct fmt_spec *f;	/* NULL while counting */
	char *lit;		/* literal bytes, when filling */
	size_t nlit;		/* literal bytes so far */
	size_t seg;		/* where the current segment starts in lit */
	bool cut;		/* the current segment met a NUL byte */
	unsigned ndirs, nargs;
};

static int fmt_flag_of(char c)
{
	switch (c) {
	case '-': return FF_LEFT;
	case '+': return FF_PLUS;
	case ' ': return FF_SPACE;
	case '#': return FF_ALT;
	case '0': return FF_ZERO;
	default: return 0;
	}
}

/* The conversion letter @c stands for, with its implied flags, or -1. */
static int fmt_conv_of(char c, uint8_t *flags)
{
	switch (c) {
	case 'd': case 'i': return FC_SIGNED;
	case 'u': return FC_UNSIGNED;
	case 'X': *flags |= FF_UPPER; return FC_HEX;
	case 'x': return FC_HEX;
	case 'o': return FC_OCTAL;
	case 'p': *flags |= FF_ALT; return FC_POINTER;
	case 's': return FC_STRING;
	case 'c': return FC_CHAR;
	case 'b': return FC_BINARY;
	case 'm': return FC_MEMORY;
	case 'M': return FC_MEMHEX;
	default: return -1;
	}
}

static bool fmt_is_string_conv(int conv)
{
	return conv == FC_STRING || conv == FC_MEMORY || conv == FC_MEMHEX;
}

/* Append @s[from, to) to message @dst (size @n): \ooo for odd bytes. */
static void fmt_quote(char *dst, size_t n, const char *s, size_t from, size_t to)
{
	size_t o = strlen(dst);
	unsigned char c;

	for (; from < to && o + 5 < n; from++) {
		c = (unsigned char)s[from];
		if (c >= 0x20 && c < 0x7f)
			dst[o++] = (char)c;
		else
			o += (size_t)snprintf(dst + o, n - o, "\\%03o", c);
	}
	dst[o] = '\0';
}

/* Where the directive around a bad flag or length modifier at @end ends. */
static size_t fmt_extent(const struct fmt_scan *sc, size_t end)
{
	uint8_t ignored = 0;

	while (end < sc->len && sc->s[end] && strchr("-+ #0123456789.*lhLjzt", sc->s[end]))
		end++;
	if (end < sc->len && fmt_conv_of(sc->s[end], &ignored) >= 0)
		end++;
	return end;
}

/*
 * Report the directive that starts at @start and went wrong at sc->pos:
 * "@what '%...'[ @why]".  With @why, the quote runs on to the end of
 * the directive the user meant ("%lld", not "%ll").
 */
static bool fmt_fail(struct fmt_scan *sc, size_t start, const char *what,
		     const char *why)
{
	struct fmt_error *e = sc->err;
	size_t end = sc->pos < sc->len ? sc->pos + 1 : sc->len;
	size_t n;

	if (why)
		end = fmt_extent(sc, end);
	if (end - start > 16)
		end = start + 16;
	e->offset = start;
	snprintf(e->msg, sizeof(e->msg), "%s '", what);
	n = strlen(e->msg);
	fmt_quote(e->msg, n + 4 * 16 + 1, sc->s, start, end);
	n = strlen(e->msg);
	snprintf(e->msg + n, sizeof(e->msg) - n, "'%s%s", why ? " " : "",
		 why ? why : "");
	return false;
}

/* Why the byte at sc->pos cannot be the conversion of a directive. */
static bool fmt_fail_conv(struct fmt_scan *sc, size_t start, uint8_t flags)
{
	char c = sc->s[sc->pos];

	if (flags && sc->pos == start + 2 && fmt_flag_of(c))
		return fmt_fail(sc, start, "more than one flag in",
				"(stap allows one)");
	if (c && strchr("hlLjzt", c))
		return fmt_fail(sc, start, "unsupported length modifier in",
				"(stap allows one 'l', values are 64-bit)");
	return fmt_fail(sc, start, "invalid conversion", NULL);
}

/* A width or precision: digits (saturating), '*', or nothing. */
static int16_t fmt_scan_num(struct fmt_scan *sc)
{
	long v = 0;

	if (sc->pos < sc->len && sc->s[sc->pos] == '*') {
		sc->pos++;
		return FMT_STAR;
	}
	if (sc->pos >= sc->len || sc->s[sc->pos] < '0' || sc->s[sc->pos] > '9')
		return FMT_NONE;
	while (sc->pos < sc->len && sc->s[sc->pos] >= '0' && sc->s[sc->pos] <= '9') {
		v = v * 10 + (sc->s[sc->pos++] - '0');
		if (v > FMT_BUFFER_SIZE)
			v = FMT_BUFFER_SIZE;
	}
	return (int16_t)v;
}

/*
 * %[flag][width][.precision][l]conv at sc->pos (a '%' not followed by
 * another '%').  stap takes at most one flag; "%." and "%l" at the end
 * of a format, which stap silently drops, are errors here.
 */
static bool fmt_scan_dir(struct fmt_scan *sc, struct fmt_dir *d)
{
	size_t start = sc->pos++;
	int conv;

	d->flags = 0;
	if (sc->pos < sc->len && fmt_flag_of(sc->s[sc->pos]))
		d->flags = (uint8_t)fmt_flag_of(sc->s[sc->pos++]);
	d->width = fmt_scan_num(sc);
	d->prec = FMT_NONE;
	if (sc->pos < sc->len && sc->s[sc->pos] == '.') {
		sc->pos++;
		d->prec = fmt_scan_num(sc);
	}
	if (sc->pos < sc->len && sc->s[sc->pos] == 'l')
		sc->pos++;
	if (sc->pos >= sc->len)
		return fmt_fail(sc, start, "incomplete format specifier", "at end");
	conv = fmt_conv_of(sc->s[sc->pos], &d->flags);
	if (conv < 0)
		return fmt_fail_conv(sc, start, d->flags);
	sc->pos++;
	d->conv = (uint8_t)conv;
	return true;
}

/* One byte of literal text; a segment is cut at its first NUL, as in stap. */
static void fmt_scan_lit(struct fmt_scan *sc, char c)
{
	if (sc->cut || c == '\0') {
		sc->cut = true;
		return;
	}
	if (sc->lit)
		sc->lit[sc->nlit] = c;
	sc->nlit++;
}

/* Record directive @d (and the arguments it takes) when filling. */
static void fmt_scan_add(struct fmt_scan *sc, const struct fmt_dir *d)
{
	struct fmt_spec *f = sc->f;
	enum rt_type t = fmt_is_string_conv(d->conv) ? RT_STRING : RT_LONG;

	if (f) {
		f->dirs[sc->ndirs] = *d;
		f->dirs[sc->ndirs].lit = sc->lit + sc->seg;
		f->dirs[sc->ndirs].litlen = (uint32_t)(sc->nlit - sc->seg);
		if (d->width == FMT_STAR)
			f->types[sc->nargs++] = RT_LONG;
		if (d->prec == FMT_STAR)
			f->types[sc->nargs++] = RT_LONG;
		f->types[sc->nargs++] = (uint8_t)t;
	} else {
		sc->nargs += 1u + (d->width == FMT_STAR) + (d->prec == FMT_STAR);
	}
	sc->ndirs++;
	sc->seg = sc->nlit;
	sc->cut = false;
}

/* One pass over the format; false with sc->err filled on a bad one. */
static bool fmt_scan(struct fmt_scan *sc)
{
	struct fmt_dir d;

	sc->pos = sc->nlit = sc->seg = 0;
	sc->ndirs = sc->nargs = 0;
	sc->cut = false;
	while (sc->pos < sc->len) {
		if (sc->s[sc->pos] != '%') {
			fmt_scan_lit(sc, sc->s[sc->pos++]);
		} else if (sc->pos + 1 < sc->len && sc->s[sc->pos + 1] == '%') {
			fmt_scan_lit(sc, '%');
			sc->pos += 2;
		} else {
			memset(&d, 0, sizeof(d));
			if (!fmt_scan_dir(sc, &d))
				return false;
			fmt_scan_add(sc, &d);
		}
	}
	return true;
}

static void *fmt_zalloc(fmt_alloc_fn alloc, void *actx, size_t n)
{
	void *p = alloc(actx, n ? n : 1);

	if (p)
		memset(p, 0, n ? n : 1);
	return p;
}

struct fmt_spec *fmt_compile(const char *s, size_t len, fmt_alloc_fn alloc,
			     void *actx, struct fmt_error *err)
{
	struct fmt_scan sc = { .s = s, .len = len, .err = err };
	struct fmt_spec *f;

	if (!fmt_scan(&sc))
		return NULL;
	f = fmt_zalloc(alloc, actx, sizeof(*f));
	if (f) {
		f->dirs = fmt_zalloc(alloc, actx, sc.ndirs * sizeof(*f->dirs));
		f->types = fmt_zalloc(alloc, actx, sc.nargs);
		sc.lit = fmt_zalloc(alloc, actx, sc.nlit);
	}
	if (!f || !f->dirs || !f->types || !sc.lit) {
		err->offset = 0;
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return NULL;
	}
	sc.f = f;
	fmt_scan(&sc);
	f->ndirs = sc.ndirs;
	f->nargs = sc.nargs;
	f->tail = sc.lit + sc.seg;
	f->taillen = (uint32_t)(sc.nlit - sc.seg);
	return f;
}

unsigned fmt_nargs(const struct fmt_spec *f)
{
	return f->nargs;
}

enum rt_type fmt_arg_type(const struct fmt_spec *f, unsigned i)
{
	return i < f->nargs ? (enum rt_type)f->types[i] : RT_LONG;
}

int fmt_arg_memory(const struct fmt_spec *f, unsigned i)
{
	unsigned d, a = 0;

	for (d = 0; d < f->ndirs; d++) {
		const struct fmt_dir *x = &f->dirs[d];

		a += (x->width == FMT_STAR) + (x->prec == FMT_STAR);
		if (a == i)
			return x->conv != FC_MEMORY && x->conv != FC_MEMHEX ? -1 :
			       x->prec == FMT_STAR ? 0 : x->prec <= 0 ? 1 : x->prec;
		if (a > i)
			return -1;
		a++;
	}
	return -1;
}

/* ---- rendering ---- */

/* @n copies of @c (' ', '0' or NUL); nothing when @n <= 0. */
static void fmt_pad(struct rt_buf *out, char c, long n)
{
	static const char spaces[] = "                                ";
	static const char zeros[] = "00000000000000000000000000000000";
	static const char nuls[sizeof(spaces)];
	const char *src = c == ' ' ? spaces : c == '0' ? zeros : nuls;
	const long chunk = (long)sizeof(spaces) - 1;

	for (; n > 0; n -= chunk)
		buf_add(out, src, (size_t)(n < chunk ? n : chunk));
}

/*
 * An integer as stap's number() lays it out: [spaces][sign][0x][zeros]
 * [precision zeros]digits[spaces].  The sign is only looked at for
 * %d/%i (@is_signed); '#' prefixes even zero.
 */
static void fmt_number(struct rt_buf *out, uint64_t num, unsigned base,
		       bool is_signed, int width, int prec, unsigned flags)
{
	const char *set = (flags & FF_UPPER) ? "0123456789ABCDEF" : "0123456789abcdef";
	char digits[24], *d = digits + sizeof(digits), sign = 0;
	int n, prefix = 0;
	long pad;

	if (flags & FF_LEFT)
		flags &= ~(unsigned)FF_ZERO;
	if (is_signed && (int64_t)num < 0) {
		sign = '-';
		num = 0 - num;
	} else if (is_signed && (flags & (FF_PLUS | FF_SPACE))) {
		sign = (flags & FF_PLUS) ? '+' : ' ';
	}
	if (flags & FF_ALT)
		prefix = base == 16 ? 2 : base == 8 ? 1 : 0;
	do {
		*--d = set[num % base];
		num /= base;
	} while (num);
	n = (int)(digits + sizeof(digits) - d);
	if (prec < n)
		prec = n;
	pad = (long)width - (sign != 0) - prefix - prec;
	if (!(flags & (FF_LEFT | FF_ZERO)))
		fmt_pad(out, ' ', pad);
	if (sign)
		buf_addc(out, sign);
	if (prefix)
		buf_add(out, (flags & FF_UPPER) ? "0X" : "0x", (size_t)prefix);
	if (flags & FF_ZERO)
		fmt_pad(out, '0', pad);
	fmt_pad(out, '0', prec - n);
	buf_add(out, d, (size_t)n);
	if (flags & FF_LEFT)
		fmt_pad(out, ' ', pad);
}

/* Justify @n bytes of @s (written by @emit as @shown bytes) in @width. */
static void fmt_field(struct rt_buf *out, const char *s, size_t n, long shown,
		      int width, unsigned flags,
		      void (*emit)(struct rt_buf *, const char *, size_t))
{
	if (!(flags & FF_LEFT))
		fmt_pad(out, ' ', width - shown);
	emit(out, s, n);
	if (flags & FF_LEFT)
		fmt_pad(out, ' ', width - shown);
	/* stap's "%0s" NUL-terminates the field (for binary records). */
	if (flags & FF_ZERO)
		buf_addc(out, '\0');
}

static void fmt_emit_hex(struct rt_buf *out, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		buf_addc(out, hex[(unsigned char)s[i] >> 4]);
		buf_addc(out, hex[(unsigned char)s[i] & 15]);
	}
}

/* %s: up to @prec bytes, stopping at a NUL as stap's strnlen does. */
static void fmt_string(struct rt_buf *out, const struct rt_value *v, int width,
		       int prec, unsigned flags)
{
	size_t n = v->type == RT_STRING ? v->len : 0, max;
	const char *nul;

	max = prec < 0 ? FMT_BUFFER_SIZE : (size_t)prec;
	if (n > max)
		n = max;
	nul = n ? memchr(v->s, '\0', n) : NULL;
	if (nul)
		n = (size_t)(nul - v->s);
	fmt_field(out, n ? v->s : "", n, (long)n, width, flags, buf_add);
}

/* %m and %M: @prec bytes (1 by default) of the string, raw or in hex. */
static void fmt_memory(struct rt_buf *out, const struct rt_value *v, int width,
		       int prec, unsigned flags, bool hex)
{
	size_t n = prec > 0 ? (size_t)prec : 1;

	if (v->type != RT_STRING)
		n = 0;
	else if (n > v->len)
		n = v->len;
	fmt_field(out, n ? v->s : "", n, (long)(hex ? 2 * n : n), width, flags,
		  hex ? fmt_emit_hex : buf_add);
}

/* How %#c shows byte @c: itself, a C escape, or \ooo.  Returns the length. */
static size_t fmt_char_text(unsigned char c, bool escape, char text[4])
{
	static const char from[] = "\a\b\f\n\r\t\v'\\", to[] = "abfnrtv'\\";
	const char *p;

	text[0] = (char)c;
	if (!escape || (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\'))
		return 1;
	text[0] = '\\';
	p = c ? memchr(from, c, sizeof(from) - 1) : NULL;
	if (p) {
		text[1] = to[p - from];
		return 2;
	}
	text[1] = (char)('0' + (c >> 6));
	text[2] = (char)('0' + ((c >> 3) & 7));
	text[3] = (char)('0' + (c & 7));
	return 4;
}

static void fmt_char(struct rt_buf *out, int64_t v, int width, unsigned flags)
{
	char text[4];
	size_t n = fmt_char_text((unsigned char)(v & 0xff), flags & FF_ALT, text);

	/* '0' pads a %c with spaces and adds nothing. */
	fmt_field(out, text, n, (long)n, width, flags & ~(unsigned)FF_ZERO, buf_add);
}

static int fmt_binary_size(int n)
{
	return n == 1 || n == 2 || n == 4 || n == 8 ? n : -1;
}

/*
 * %b: the low @prec bytes of @v in host order, NUL-padded to @width.
 * A missing size comes from the width when that is 1, 2, 4 or 8, else 8.
 */
static void fmt_binary(struct rt_buf *out, int64_t v, int width, int prec,
		       unsigned flags)
{
	int8_t b1 = (int8_t)v;
	int16_t b2 = (int16_t)v;
	int32_t b4 = (int32_t)v;
	const void *p = prec == 1 ? (const void *)&b1 : prec == 2 ? (const void *)&b2 :
			prec == 4 ? (const void *)&b4 : (const void *)&v;

	if (!(flags & FF_LEFT))
		fmt_pad(out, '\0', width - prec);
	buf_add(out, p, (size_t)prec);
	if (flags & FF_LEFT)
		fmt_pad(out, '\0', width - prec);
}

static void fmt_binary_field(struct rt_buf *out, int64_t v, int width, int prec,
			     unsigned flags)
{
	prec = fmt_binary_size(prec);
	if (width < 0) {
		width = prec < 0 ? 8 : prec;
		if (prec < 0)
			prec = 8;
	} else if (prec < 0) {
		prec = fmt_binary_size(width);
		if (prec < 0)
			prec = 8;
	}
	fmt_binary(out, v, width, prec, flags);
}

static int64_t fmt_long(const struct rt_value *v)
{
	return v->type == RT_LONG ? v->l : 0;
}

/* A '*' argument: its low 32 bits as an int, clamped to 0..8192 (stap's clamp_t). */
static int fmt_star(const struct rt_value *v)
{
	uint32_t u = (uint32_t)fmt_long(v);

	if (u >= 0x80000000u)
		return 0;
	return u > FMT_BUFFER_SIZE ? FMT_BUFFER_SIZE : (int)u;
}

/*
 * %p as stap printed it before 1.3 (--compatible=1.2): "0x" and the hex
 * digits zero-padded to the field width (18 without one: 16 digits),
 * "0x" included; a right-justified field wider than 18 gets spaces
 * before those 18.  The precision is not looked at.
 */
static void fmt_pointer12(struct rt_buf *out, uint64_t v, int width, unsigned flags)
{
	char digits[17];
	int w = width < 0 ? 18 : width, n = snprintf(digits, sizeof(digits), "%llx",
						    (unsigned long long)v);

	for (; !(flags & FF_LEFT) && w > 18; w--)
		buf_addc(out, ' ');
	buf_add(out, "0x", 2);
	for (w -= 2 + n; w > 0; w--)
		buf_addc(out, '0');
	buf_add(out, digits, (size_t)n);
}

/* Render one directive; returns the index of the next argument. */
static unsigned fmt_render_dir(struct rt_buf *out, const struct fmt_dir *d,
			       const struct rt_value *args, unsigned nargs,
			       unsigned a)
{
	static const struct rt_value none = { .type = RT_LONG };
	int width = d->width, prec = d->prec;
	const struct rt_value *v;

	if (width == FMT_STAR)
		width = fmt_star(a < nargs ? &args[a++] : &none);
	if (prec == FMT_STAR)
		prec = fmt_star(a < nargs ? &args[a++] : &none);
	v = a < nargs ? &args[a++] : &none;
	switch (d->conv) {
	case FC_SIGNED:
		fmt_number(out, (uint64_t)fmt_long(v), 10, true, width, prec, d->flags);
		break;
	case FC_UNSIGNED:
		fmt_number(out, (uint64_t)fmt_long(v), 10, false, width, prec, d->flags);
		break;
	case FC_HEX:
	case FC_POINTER:
		fmt_number(out, (uint64_t)fmt_long(v), 16, false, width, prec, d->flags);
		break;
	case FC_OCTAL:
		fmt_number(out, (uint64_t)fmt_long(v), 8, false, width, prec, d->flags);
		break;
	case FC_POINTER12: fmt_pointer12(out, (uint64_t)fmt_long(v), width, d->flags); break;
	case FC_STRING: fmt_string(out, v, width, prec, d->flags); break;
	case FC_MEMORY: fmt_memory(out, v, width, prec, d->flags, false); break;
	case FC_MEMHEX: fmt_memory(out, v, width, prec, d->flags, true); break;
	case FC_CHAR: fmt_char(out, fmt_long(v), width, d->flags); break;
	case FC_BINARY: fmt_binary_field(out, fmt_long(v), width, prec, d->flags); break;
	}
	return a;
}

void fmt_old_pointers(struct fmt_spec *f)
{
	unsigned i;

	for (i = 0; i < f->ndirs; i++)
		if (f->dirs[i].conv == FC_POINTER)
			f->dirs[i].conv = FC_POINTER12;
}

int fmt_render(struct rt_buf *out, const struct fmt_spec *f,
	       const struct rt_value *args, unsigned nargs)
{
	size_t start = out->len;
	unsigned i, a = 0;

	for (i = 0; i < f->ndirs; i++) {
		const struct fmt_dir *d = &f->dirs[i];

		if (d->litlen)
			buf_add(out, d->lit, d->litlen);
		a = fmt_render_dir(out, d, args, nargs, a);
	}
	if (f->taillen)
		buf_add(out, f->tail, f->taillen);
	/* stap reserves at most STP_BUFFER_SIZE bytes for one printf. */
	if (out->len - start > FMT_BUFFER_SIZE)
		out->len = start + FMT_BUFFER_SIZE;
	return 0;
}
