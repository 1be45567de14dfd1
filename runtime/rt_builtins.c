/*
 * rt_builtins.c - the functions of builtins.def, implemented in C.
 *
 * Semantics follow SystemTap's tapset functions of the same names
 * (function::substr(3stap) etc.): positions are 0-based, out-of-range
 * arguments give empty results rather than errors where stap does so.
 */
#define _GNU_SOURCE
#include "rt_builtins.h"
#include "format.h"
#include "rt_float.h"
#include "rt_procfs.h"
#include "rt_stack.h"
#include "syscall_table.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum rt_builtin_id {
#define BI(id, name, ret, args, flags) RTB_##id,
#include "builtins.def"
#undef BI
};

typedef enum rt_status (*rtb_fn)(struct rt_ctx *c, struct rt_value *a,
				 unsigned n, struct rt_value *ret);

/* ---- printing ---- */

static void rtb_value(struct rt_buf *b, struct rt_value v)
{
	if (v.type == RT_STRING)
		buf_add(b, v.s, v.len);
	else
		buf_printf(b, "%" PRId64, v.l);
}

/* print/sprint family: values joined by @sep, then @end. */
static void rtb_join(struct rt_buf *b, struct rt_value *a, unsigned n,
		     struct rt_value sep, bool newline)
{
	unsigned i;

	for (i = 0; i < n; i++) {
		if (i && sep.len)
			buf_add(b, sep.s, sep.len);
		rtb_value(b, a[i]);
	}
	if (newline)
		buf_addc(b, '\n');
}

static enum rt_status rtb_print_family(struct rt_ctx *c, unsigned id,
				       struct rt_value *a, unsigned n,
				       struct rt_value *ret)
{
	bool to_string = id == RTB_SPRINT || id == RTB_SPRINTLN ||
			 id == RTB_SPRINTD || id == RTB_SPRINTDLN;
	bool delim = id == RTB_PRINTD || id == RTB_PRINTDLN ||
		     id == RTB_SPRINTD || id == RTB_SPRINTDLN;
	bool nl = id == RTB_PRINTLN || id == RTB_PRINTDLN || id == RTB_SPRINTLN ||
		  id == RTB_SPRINTDLN;
	struct rt_buf tmp = { 0 }, *b = to_string ? &tmp : &c->out;
	size_t mark = c->out.len;

	/* json: print(@hist_log(s)) prints the buckets, not their picture */
	if (c->json && !to_string && !delim && n == 1 && a[0].type == RT_STRING &&
	    c->hist_last.s && a[0].s == c->hist_last.s) {
		rt_json_hist(c, c->hist_last.g, c->hist_last.nkeys ? c->hist_last.keys : NULL);
		return RT_OK;
	}
	if (delim)
		rtb_join(b, a + 1, n - 1, a[0], nl);
	else
		rtb_join(b, a, n, rt_str("", 0), nl);
	if (to_string) {
		*ret = rt_scratch_str(c, tmp.p ? tmp.p : "", tmp.len);
		buf_free(&tmp);
	} else {
		rt_out_chunk(c, mark);
	}
	return RT_OK;
}

static enum rt_status rtb_log(struct rt_ctx *c, struct rt_value *a, unsigned n,
			      struct rt_value *ret)
{
	size_t mark = c->out.len;

	buf_add(&c->out, a[0].s, a[0].len);
	buf_addc(&c->out, '\n');
	rt_out_chunk(c, mark);
	return RT_OK;
}

static enum rt_status rtb_warn(struct rt_ctx *c, struct rt_value *a, unsigned n,
			       struct rt_value *ret)
{
	size_t len = a[0].len;

	/* stap's _stp_vlog() ends the line only when the message does not */
	if (len && a[0].s[len - 1] == '\n')
		len--;
	rt_report(c, RT_REPORT_WARNING, NULL, "%.*s", (int)len, a[0].s);
	return RT_OK;
}

static enum rt_status rtb_error(struct rt_ctx *c, struct rt_value *a, unsigned n,
				struct rt_value *ret)
{
	return rt_error(c, 0, "%.*s", (int)a[0].len, a[0].s);
}

/* pn(): stap's script-level probe point (lower.c fills ir_probe.pn). */
static enum rt_status rtb_pn(struct rt_ctx *c, struct rt_value *a, unsigned n,
			     struct rt_value *ret)
{
	*ret = rt_cstr(c->probe && c->probe->pn ? c->probe->pn : "");
	return RT_OK;
}

/* assert(e[, msg]): stap's logging.stp, an error() when e is 0. */
static enum rt_status rtb_assert(struct rt_ctx *c, struct rt_value *a, unsigned n,
				 struct rt_value *ret)
{
	if (a[0].l)
		return RT_OK;
	if (n > 1)
		return rt_error(c, 0, "%.*s", (int)a[1].len, a[1].s);
	return rt_error(c, 0, "Assertion failed");
}

static enum rt_status rtb_exit(struct rt_ctx *c, struct rt_value *a, unsigned n,
			       struct rt_value *ret)
{
	c->exiting = true;
	return RT_OK;
}

static enum rt_status rtb_abort(struct rt_ctx *c, struct rt_value *a, unsigned n,
				struct rt_value *ret)
{
	c->exiting = true;
	c->aborting = true;
	return RT_NEXT;
}

/* syslog(msg): the system log, at LOG_NOTICE, as "ktap[pid]: msg". */
static enum rt_status rtb_syslog(struct rt_ctx *c, struct rt_value *a, unsigned n,
				 struct rt_value *ret)
{
	openlog("ktap", LOG_PID, LOG_USER);
	syslog(LOG_NOTICE, "%.*s", (int)a[0].len, a[0].s);
	closelog();
	return RT_OK;
}

/* system(cmd): run asynchronously through /bin/sh, as stap does. */
static enum rt_status rtb_system(struct rt_ctx *c, struct rt_value *a, unsigned n,
				 struct rt_value *ret)
{
	char *cmd = strndup(a[0].s, a[0].len), sh[] = "sh", opt_c[] = "-c";
	char *argv[] = { sh, opt_c, cmd, NULL };
	pid_t pid;

	rt_flush(c);
	if (!cmd || posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) != 0)
		rt_report(c, RT_REPORT_WARNING, NULL, "system(\"%.*s\") failed: %s",
			  (int)a[0].len, a[0].s, strerror(errno));
	free(cmd);
	return RT_OK;
}

/* ---- strings ---- */

static enum rt_status rtb_strlen(struct rt_ctx *c, struct rt_value *a, unsigned n,
				 struct rt_value *ret)
{
	*ret = rt_long(a[0].len);
	return RT_OK;
}

static enum rt_status rtb_substr(struct rt_ctx *c, struct rt_value *a, unsigned n,
				 struct rt_value *ret)
{
	int64_t start = a[1].l, len = a[2].l;

	if (start < 0 || len <= 0 || start >= a[0].len) {
		*ret = rt_str("", 0);
		return RT_OK;
	}
	if (len > a[0].len - start)
		len = a[0].len - start;
	*ret = rt_scratch_str(c, a[0].s + start, (size_t)len);
	return RT_OK;
}

/* ---- system-call numbers ---- */

/* stap's: "" for a number the table does not have. */
static enum rt_status rtb_syscall_name(struct rt_ctx *c, struct rt_value *a, unsigned n,
				       struct rt_value *ret)
{
	const char *name = sct_name(a[0].l);

	*ret = rt_cstr(name ? name : "");
	return RT_OK;
}

/*
 * target_set_pid(PID): is PID the target process or a descendant of it
 * (stap's target_set.stp, which keeps the set from fork returns)?  The
 * parents are those of the process table, which the plan keeps from the
 * fork records (the script calls a process builtin: lower_track.c), so
 * a process whose parent exited is still in the set.
 */
static enum rt_status rtb_target_set_pid(struct rt_ctx *c, struct rt_value *a, unsigned n,
					 struct rt_value *ret)
{
	int64_t pid = a[0].l;
	unsigned depth;

	(void)n;
	*ret = rt_long(0);
	for (depth = 0; c->target_pid && c->proc && pid > 0 && depth < 4096; depth++) {
		const struct rt_proc *p;

		if (pid == c->target_pid) {
			*ret = rt_long(1);
			break;
		}
		p = c->proc(c, (int)pid);
		if (!p || p->ppid == pid)
			break;
		pid = p->ppid;
	}
	return RT_OK;
}

/* input.char/input.line's text: "" in any other probe. */
static enum rt_status rtb_ktap_input(struct rt_ctx *c, struct rt_value *a, unsigned n,
				     struct rt_value *ret)
{
	*ret = c->input.type == RT_STRING ? c->input : rt_str("", 0);
	return RT_OK;
}

/*
 * $value of a prometheus probe (compiler/resolve/sema_prom.c): the
 * probe's part of the scrape's answer, which is not cut to
 * MAXSTRINGLEN (reading it is).  Outside a scrape: "" and no effect.
 */
static enum rt_status rtb_prom_value(struct rt_ctx *c, struct rt_value *a, unsigned n,
				     struct rt_value *ret)
{
	struct rt_buf *b = c->prom_body;

	*ret = b && b->len > c->prom_mark ?
	       rt_scratch_str(c, b->p + c->prom_mark, b->len - c->prom_mark) : rt_str("", 0);
	return RT_OK;
}

static enum rt_status rtb_prom_set(struct rt_ctx *c, struct rt_value *a, unsigned n,
				   struct rt_value *ret)
{
	if (c->prom_body) {
		c->prom_body->len = c->prom_mark;
		buf_add(c->prom_body, a[0].s, a[0].len);
	}
	return RT_OK;
}

static enum rt_status rtb_prom_append(struct rt_ctx *c, struct rt_value *a, unsigned n,
				      struct rt_value *ret)
{
	if (c->prom_body)
		buf_add(c->prom_body, a[0].s, a[0].len);
	return RT_OK;
}

/* stap's: -1 for a name the table does not have. */
static enum rt_status rtb_syscall_num(struct rt_ctx *c, struct rt_value *a, unsigned n,
				      struct rt_value *ret)
{
	*ret = rt_long(sct_number(a[0].s, (size_t)a[0].len));
	return RT_OK;
}

static const char *rtb_find(struct rt_value hay, struct rt_value needle)
{
	return memmem(hay.s, hay.len, needle.s, needle.len);
}

static enum rt_status rtb_isinstr(struct rt_ctx *c, struct rt_value *a, unsigned n,
				  struct rt_value *ret)
{
	*ret = rt_long(rtb_find(a[0], a[1]) != NULL);
	return RT_OK;
}

static enum rt_status rtb_strpos(struct rt_ctx *c, struct rt_value *a, unsigned n,
				 struct rt_value *ret)
{
	const char *p = rtb_find(a[0], a[1]);

	*ret = rt_long(p ? p - a[0].s : -1);
	return RT_OK;
}

static enum rt_status rtb_str_replace(struct rt_ctx *c, struct rt_value *a,
				      unsigned n, struct rt_value *ret)
{
	struct rt_buf b = { 0 };
	struct rt_value rest = a[0];
	const char *p;

	if (a[1].len == 0) {
		*ret = a[0];
		return RT_OK;
	}
	while ((p = rtb_find(rest, a[1])) != NULL) {
		buf_add(&b, rest.s, (size_t)(p - rest.s));
		buf_add(&b, a[2].s, a[2].len);
		rest = rt_str(p + a[1].len, rest.len - (uint32_t)(p - rest.s) - a[1].len);
	}
	buf_add(&b, rest.s, rest.len);
	*ret = rt_scratch_str(c, b.p ? b.p : "", b.len);
	buf_free(&b);
	return RT_OK;
}

/*
 * tokenize(s, delim): the first token of s; tokenize("", delim) the next
 * one of the last non-empty s, "" at the end.  Empty tokens are skipped.
 */
static enum rt_status rtb_tokenize(struct rt_ctx *c, struct rt_value *a,
				   unsigned n, struct rt_value *ret)
{
	size_t start, end, len;
	char *s;

	if (a[0].len) {
		free(c->tok_str);
		c->tok_str = strndup(a[0].s, a[0].len);
		c->tok_pos = 0;
	}
	s = c->tok_str;
	*ret = rt_str("", 0);
	if (!s)
		return RT_OK;
	len = strlen(s);
	start = c->tok_pos;
	while (start < len && memchr(a[1].s, s[start], a[1].len))
		start++;
	end = start;
	while (end < len && !memchr(a[1].s, s[end], a[1].len))
		end++;
	c->tok_pos = end < len ? end + 1 : end;
	if (end > start)
		*ret = rt_scratch_str(c, s + start, end - start);
	return RT_OK;
}

/*
 * One character at @s (@n bytes left; past them is the string's NUL)
 * as stap's _stp_decode_utf8 reads it: a well-formed UTF-8 sequence of
 * 2 to 4 bytes that fits in @limit bytes is one code point; any other
 * byte stands for itself.  Returns the bytes taken.
 */
static size_t rtb_utf8(const unsigned char *s, size_t n, int64_t limit, uint32_t *c)
{
	size_t len, i;
	uint32_t v;

	*c = n ? s[0] : 0;
	if (!n)
		return 1;
	if ((s[0] & 0xE0) == 0xC0 && limit >= 2)
		len = 2, v = s[0] & 0x1F;
	else if ((s[0] & 0xF0) == 0xE0 && limit >= 3)
		len = 3, v = s[0] & 0x0F;
	else if ((s[0] & 0xF8) == 0xF0 && limit >= 4)
		len = 4, v = s[0] & 0x07;
	else
		return 1;
	for (i = 1; i < len; i++) {
		if (i >= n || (s[i] & 0xC0) != 0x80)
			return 1;
		v = v << 6 | (s[i] & 0x3F);
	}
	/* surrogates, beyond RFC 3629, longer than needed: bytes */
	if ((v >= 0xD800 && v <= 0xDFFF) || v > 0x10FFFF || v < 0x80 ||
	    (len == 3 && v < 0x800) || (len == 4 && v < 0x10000))
		return 1;
	*c = v;
	return len;
}

/* Character @c (taken from @k bytes) as text_str shows it, into @e;
   its length. */
static int rtb_text_char(uint32_t c, size_t k, char e[12])
{
	static const char shorts[] = "\aa\bb\ff\nn\rr\tt\vv\"\"\\\\";
	const char *p;

	if (k > 1)
		return snprintf(e, 12, c <= 0xFFFF ? "\\u%04X" : "\\U%08X", c);
	if (c >= 32 && c < 127 && c != '"' && c != '\\') {
		e[0] = (char)c;
		return 1;
	}
	for (p = shorts; c && *p; p += 2)
		if ((unsigned char)*p == c) {
			e[0] = '\\';
			e[1] = p[1];
			return 2;
		}
	e[0] = '\\';	/* \ooo, written by hand: buffers have many (snprintf was half their cost) */
	e[1] = (char)('0' + ((c >> 6) & 3));
	e[2] = (char)('0' + ((c >> 3) & 7));
	e[3] = (char)('0' + (c & 7));
	return 4;
}

/*
 * stap's text_str family (_stp_text_str): at most @inlen bytes of the
 * @n bytes at @s, at most @outlen characters out (<= 0 or more than
 * @max: @max, the longest string), with C escapes for control
 * characters, quotes and backslashes, \ooo for the other bytes that are
 * not printable ASCII and \uXXXX / \UXXXXXXXX for UTF-8.  @quoted: in
 * double quotes, four of them kept for the quotes and "...", which ends a
 * string cut short by @outlen (the cut moved back so as not to split an
 * escape).  @buffer: the @inlen bytes are a buffer, whose zero bytes are
 * shown as \000 (stap's kernel_buffer_quoted()), not the string's end.
 */
static void rtb_text(struct rt_buf *b, const char *s, size_t n, int64_t inlen,
		     int64_t outlen, bool quoted, bool buffer, int64_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t esc = SIZE_MAX, k, cut;
	int esc_len = 0, num;
	uint32_t c = 0;
	char e[12];

	if (inlen <= 0 || inlen > max)
		inlen = max;
	if (outlen <= 0 || outlen > max)
		outlen = max;
	if (quoted) {
		outlen = (outlen > 5 ? outlen : 5) - 2;
		buf_addc(b, '"');
	}
	while (inlen > 0) {
		k = rtb_utf8(u, n, inlen, &c);
		if ((c == 0 && !buffer) || outlen <= 0)
			break;
		u += k;
		n -= k < n ? k : n;
		inlen -= (int64_t)k;
		num = rtb_text_char(c, k, e);
		if (num > 1 && esc == SIZE_MAX && outlen - 3 < num)
			esc = b->len, esc_len = num;
		if (outlen < num)
			break;
		buf_add(b, e, (size_t)num);
		outlen -= num;
	}
	if (!quoted)
		return;
	if ((c || buffer) && inlen > 0) {
		cut = b->len - 3 + (size_t)outlen;
		if (esc != SIZE_MAX && esc < cut && cut < esc + (size_t)esc_len)
			cut = esc;
		b->len = cut;
		buf_adds(b, "\"...");
	} else {
		buf_addc(b, '"');
	}
}

/* text_str(s); text_strn(s, len, quoted): len is the output's length */
static enum rt_status rtb_text_str(struct rt_ctx *c, struct rt_value *a,
				   unsigned n, struct rt_value *ret)
{
	struct rt_buf b = { 0 };
	int64_t max = (int64_t)c->strmax;

	if (n >= 3)
		rtb_text(&b, a[0].s, a[0].len, 0, a[1].l < 0 ? 0 : a[1].l, a[2].l != 0, false, max);
	else if (n == 2 && !a[0].len)	/* __text_buf(bytes, outlen): stap's buffer form */
		buf_adds(&b, "\"\"");
	else if (n == 2)	/* zero bytes are \000 there, not the end */
		rtb_text(&b, a[0].s, a[0].len, (int64_t)a[0].len, a[1].l < 0 ? 0 : a[1].l, true,
			 true, max);
	else
		rtb_text(&b, a[0].s, a[0].len, 0, 0, false, false, max);
	*ret = rt_scratch_str(c, b.p ? b.p : "", b.len);
	buf_free(&b);
	return RT_OK;
}

static enum rt_status rtb_stringat(struct rt_ctx *c, struct rt_value *a,
				   unsigned n, struct rt_value *ret)
{
	if (a[1].l < 0 || a[1].l >= a[0].len)
		return rt_error(c, 0, "stringat: index %" PRId64 " out of range", a[1].l);
	*ret = rt_long((unsigned char)a[0].s[a[1].l]);
	return RT_OK;
}

static enum rt_status rtb_strtol(struct rt_ctx *c, struct rt_value *a,
				 unsigned n, struct rt_value *ret)
{
	char *s = strndup(a[0].s, a[0].len), *p = s;
	bool neg;
	uint64_t v;

	/* stap's is the kernel's simple_strtol(): the digits as an unsigned
	   64-bit number, negated after a '-', so a kernel address
	   (strtol("0xffffffff81000000", 16), print_syms()) is that address
	   as a long, not LONG_MAX as strtoll() would make it.  Nor does it
	   skip spaces or take a '+' (stap's strtol(" 1", 10) is 0), which
	   strtoull() would. */
	neg = p && *p == '-';
	v = p && !isspace((unsigned char)p[neg]) && p[neg] != '+' && p[neg] != '-' ?
	    strtoull(p + neg, NULL, (int)a[1].l) : 0;
	*ret = rt_long(neg ? (int64_t)(0 - v) : (int64_t)v);
	free(s);
	return RT_OK;
}

/* matched(n): group n of the last =~, "" when it took no part (stap's
   errors and their wording for a failed match or a missing group). */
static enum rt_status rtb_matched(struct rt_ctx *c, struct rt_value *a,
				  unsigned n, struct rt_value *ret)
{
	int64_t i = a[0].l;
	int so, eo;

	if (!c->match_ok || !c->match_str)
		return rt_error(c, 0, "Attempted to get subexpression %" PRId64
				" from failed match", i);
	if (i < 0 || (uint64_t)i >= c->match_n)
		return rt_error(c, 0, "Attempted to get nonexistent subexpression %"
				PRId64, i);
	so = c->match_off[2 * i];
	eo = c->match_off[2 * i + 1];
	if (so < 0 || eo < so)
		so = eo = 0;
	*ret = rt_scratch_str(c, c->match_str + so, (size_t)(eo - so));
	return RT_OK;
}

/* ngroups(): the groups of the last =~'s regex, the whole match counted. */
static enum rt_status rtb_ngroups(struct rt_ctx *c, struct rt_value *a,
				  unsigned n, struct rt_value *ret)
{
	if (!c->match_ok)
		return rt_error(c, 0, "Attempted to get subexpression count from failed match");
	*ret = rt_long(c->match_n);
	return RT_OK;
}

static enum rt_status rtb_string(struct rt_ctx *c, struct rt_value *a,
				 unsigned n, struct rt_value *ret)
{
	char buf[32];
	int len = snprintf(buf, sizeof(buf), "%" PRId64, a[0].l);

	*ret = rt_scratch_str(c, buf, (size_t)len);
	return RT_OK;
}

static enum rt_status rtb_randint(struct rt_ctx *c, struct rt_value *a,
				  unsigned n, struct rt_value *ret)
{
	if (a[0].l <= 0)
		return rt_error(c, 0, "randint: range must be positive");
	*ret = rt_long((int64_t)(((uint64_t)random() << 31 | (uint64_t)random()) %
				 (uint64_t)a[0].l));
	return RT_OK;
}

/* ---- $value of procfs read probes (run_fifo.c) ---- */

static enum rt_status rtb_procfs_get(struct rt_ctx *c, struct rt_value *a,
				     unsigned n, struct rt_value *ret)
{
	*ret = rt_scratch_str(c, c->pfs_buf ? c->pfs_buf : "", c->pfs_len);
	return RT_OK;
}

/* $value .= s: kept up to the probe's .maxsize(N), the rest dropped. */
static enum rt_status rtb_procfs_append(struct rt_ctx *c, struct rt_value *a,
					unsigned n, struct rt_value *ret)
{
	size_t len = a[0].len;

	if (len > c->pfs_max - c->pfs_len)
		len = c->pfs_max - c->pfs_len;
	if (c->pfs_len + len > c->pfs_cap) {
		size_t cap = c->pfs_max;
		char *p = realloc(c->pfs_buf, cap);

		if (!p)
			return rt_error(c, 0, "out of memory");
		c->pfs_buf = p;
		c->pfs_cap = cap;
	}
	if (len)
		memcpy(c->pfs_buf + c->pfs_len, a[0].s, len);
	c->pfs_len += len;
	return RT_OK;
}

static enum rt_status rtb_procfs_set(struct rt_ctx *c, struct rt_value *a,
				     unsigned n, struct rt_value *ret)
{
	c->pfs_len = 0;
	return rtb_procfs_append(c, a, n, ret);
}

/* ---- terminal, time zone, output files ---- */

/*
 * ansi_set_color(fg), (fg, bg), (fg, bg, attr): stap's three overloads,
 * one Select Graphic Rendition sequence, background first; attr 0 is left out.
 */
static enum rt_status rtb_ansi_set_color(struct rt_ctx *c, struct rt_value *a,
					 unsigned n, struct rt_value *ret)
{
	size_t mark = c->out.len;

	if (n == 1)
		buf_printf(&c->out, "\033[%" PRId64 "m", a[0].l);
	else if (n == 2 || !a[2].l)
		buf_printf(&c->out, "\033[%" PRId64 ";%" PRId64 "m", a[1].l, a[0].l);
	else
		buf_printf(&c->out, "\033[%" PRId64 ";%" PRId64 ";%" PRId64 "m", a[1].l,
			   a[0].l, a[2].l);
	rt_out_chunk(c, mark);
	return RT_OK;
}

/*
 * tz_gmtoff() (seconds west of UTC) and tz_name(): the local time zone
 * now, which staprun passes to stap's module when it starts.
 */
static enum rt_status rtb_tz(struct rt_ctx *c, struct rt_value *a, unsigned n,
			     struct rt_value *ret, bool name)
{
	time_t now = time(NULL);
	struct tm tm;

	if (!localtime_r(&now, &tm))
		return RT_OK;
	*ret = name ? rt_scratch_str(c, tm.tm_zone ? tm.tm_zone : "",
				     tm.tm_zone ? strlen(tm.tm_zone) : 0)
		    : rt_long(-(int64_t)tm.tm_gmtoff);
	return RT_OK;
}

static enum rt_status rtb_tz_gmtoff(struct rt_ctx *c, struct rt_value *a, unsigned n,
				    struct rt_value *ret)
{
	return rtb_tz(c, a, n, ret, false);
}

static enum rt_status rtb_tz_name(struct rt_ctx *c, struct rt_value *a, unsigned n,
				  struct rt_value *ret)
{
	return rtb_tz(c, a, n, ret, true);
}

/*
 * switch_file(): as stap's stapio with -o FILE (and no -S), the output
 * goes on in the next file: FILE, then FILE.1, FILE.2 ...  The new file
 * takes the place of the old one under the same stream (dup2), so the
 * stream's owner still closes what it opened.  To stdout, only what the
 * script printed so far is written out.  A file that cannot be made is
 * a write error: the run ends with it, as stapio exits.
 */
static enum rt_status rtb_switch_file(struct rt_ctx *c, struct rt_value *a, unsigned n,
				      struct rt_value *ret)
{
	char path[4096];
	int fd;

	rt_flush(c);
	if (!c->out_name || c->out_errno)
		return RT_OK;
	snprintf(path, sizeof(path), "%s.%u", c->out_name, c->out_fnum + 1);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0 || dup2(fd, fileno(c->outf)) < 0) {
		c->out_errno = errno ? errno : EIO;
		if (fd >= 0)
			close(fd);
		return RT_OK;
	}
	close(fd);
	c->out_fnum++;
	return RT_OK;
}

/* ---- context ---- */

static int64_t rtb_clock(clockid_t id, int64_t unit)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * (1000000000 / unit) + ts.tv_nsec / unit;
}

/*
 * Clock @id "now" as the script sees it: in an event handler, the time
 * the event happened (its record's timestamp, CLOCK_MONOTONIC, shifted
 * for CLOCK_REALTIME), not the time ktap got round to handling it, so
 * that latencies computed in handlers are the kernel's.  Outside one
 * (begin, end, a timer without a record) the wall clock is the monotonic
 * clock shifted by the same offset: a begin probe's gettimeofday_ns() and
 * an event's are on one time line, and an event after begin never reads
 * an earlier wall time than begin did (the two clocks read separately
 * differ by the offset's sampling error).
 */
static int64_t rtb_event_ns(struct rt_ctx *c, clockid_t id)
{
	int64_t mono = c->ev && c->ev->ts ? (int64_t)c->ev->ts : rtb_clock(CLOCK_MONOTONIC, 1);

	if (id == CLOCK_MONOTONIC)
		return mono;
	/* The REALTIME - MONOTONIC offset, taken once per run (run.c takes
	   it before the plan is applied: the kernel's gettimeofday_us()
	   pairs divide by it too, lower_latency.c): sampled per call it
	   jitters by the time between the two clock reads, more than a
	   short function takes (gettimeofday_ns() - @entry(...)). */
	if (!c->boot_offset_ns)
		c->boot_offset_ns = rt_wall_offset_ns();
	return mono + c->boot_offset_ns;
}

/*
 * The offset is a wall-clock read between two monotonic ones: a thread
 * preempted between them (a loaded machine) makes one sample wrong by up
 * to half the delay, so the sample in the narrowest window of a few wins.
 */
int64_t rt_wall_offset_ns(void)
{
	int64_t best = 0, width = INT64_MAX;

	for (int i = 0; i < 5; i++) {
		int64_t m1 = rtb_clock(CLOCK_MONOTONIC, 1), r = rtb_clock(CLOCK_REALTIME, 1);
		int64_t m2 = rtb_clock(CLOCK_MONOTONIC, 1);

		if (m2 - m1 < width) {
			width = m2 - m1;
			best = r - (m1 + (m2 - m1) / 2);
		}
	}
	return best;
}

static enum rt_status rtb_context(struct rt_ctx *c, unsigned id,
				  struct rt_value *ret)
{
	struct rt_proc self;
	const struct rt_proc *p = rt_current(c, &self);

	switch (id) {
	case RTB_TID: *ret = rt_long(p->tid); break;
	case RTB_PID: *ret = rt_long(p->tgid); break;
	case RTB_PPID: *ret = rt_long(p->ppid); break;
	case RTB_CPU: *ret = rt_long(c->ev ? c->ev->cpu : sched_getcpu()); break;
	case RTB_TARGET: *ret = rt_long(c->target_pid); break;
	case RTB_EXECNAME: *ret = rt_scratch_str(c, p->comm, strlen(p->comm)); break;
	case RTB_PEXECNAME: {
		const char *pc = c->proc ? c->proc(c, p->ppid)->comm : "";

		*ret = rt_scratch_str(c, pc, strlen(pc));
		break;
	}
	case RTB_UID: *ret = rt_long(p->uid); break;
	case RTB_EUID: *ret = rt_long(p->euid); break;
	case RTB_GID: *ret = rt_long(p->gid); break;
	case RTB_EGID: *ret = rt_long(p->egid); break;
	case RTB_PP: *ret = rt_cstr(c->probe ? c->probe->pp : ""); break;
	case RTB_PROBEFUNC: *ret = rt_str("", 0); break;
	case RTB_LOCAL_CLOCK_NS: *ret = rt_long(rtb_event_ns(c, CLOCK_MONOTONIC)); break;
	case RTB_GET_CYCLES: *ret = rt_long(rtb_clock(CLOCK_MONOTONIC_RAW, 1)); break;
	case RTB_GETTIMEOFDAY_S:
		*ret = rt_long(rtb_event_ns(c, CLOCK_REALTIME) / 1000000000);
		break;
	case RTB_GETTIMEOFDAY_MS: *ret = rt_long(rtb_event_ns(c, CLOCK_REALTIME) / 1000000); break;
	case RTB_GETTIMEOFDAY_US: *ret = rt_long(rtb_event_ns(c, CLOCK_REALTIME) / 1000); break;
	default: *ret = rt_long(rtb_event_ns(c, CLOCK_REALTIME)); break;
	}
	return RT_OK;
}

static const rtb_fn rtb_table[] = {
	[RTB_LOG] = rtb_log, [RTB_WARN] = rtb_warn, [RTB_ERROR] = rtb_error,
	[RTB_EXIT] = rtb_exit, [RTB_ABORT] = rtb_abort, [RTB_SYSLOG] = rtb_syslog,
	[RTB_SYSTEM] = rtb_system, [RTB_STRLEN] = rtb_strlen,
	[RTB_SUBSTR] = rtb_substr, [RTB_ISINSTR] = rtb_isinstr,
	[RTB_STRPOS] = rtb_strpos, [RTB_STR_REPLACE] = rtb_str_replace,
	[RTB_TOKENIZE] = rtb_tokenize, [RTB_TEXT_STR] = rtb_text_str,
	[RTB_TEXT_STRN] = rtb_text_str, [RTB_TEXT_BUF] = rtb_text_str,
	[RTB_STRINGAT] = rtb_stringat,
	[RTB_STRTOL] = rtb_strtol, [RTB_MATCHED] = rtb_matched,
	[RTB_NGROUPS] = rtb_ngroups,
	[RTB_STRING] = rtb_string, [RTB_RANDINT] = rtb_randint,
	[RTB_ANSI_SET_COLOR] = rtb_ansi_set_color, [RTB_TZ_GMTOFF] = rtb_tz_gmtoff,
	[RTB_TZ_NAME] = rtb_tz_name, [RTB_SWITCH_FILE] = rtb_switch_file,
	[RTB_SYSCALL_NAME] = rtb_syscall_name, [RTB_SYSCALL_NUM] = rtb_syscall_num,
	[RTB_KTAP_INPUT] = rtb_ktap_input, [RTB_TARGET_SET_PID] = rtb_target_set_pid,
	[RTB_KTAP_PROM_VALUE] = rtb_prom_value, [RTB_KTAP_PROM_SET] = rtb_prom_set,
	[RTB_KTAP_PROM_APPEND] = rtb_prom_append,
	[RTB_KTAP_PROCFS_GET] = rtb_procfs_get, [RTB_KTAP_PROCFS_SET] = rtb_procfs_set,
	[RTB_KTAP_PROCFS_APPEND] = rtb_procfs_append,
	[RTB_ASSERT] = rtb_assert, [RTB_PN] = rtb_pn,
};

enum rt_status rt_builtin(struct rt_ctx *c, unsigned id, struct rt_value *args,
			  unsigned n, struct rt_value *ret)
{
	*ret = rt_long(0);
	if (id <= RTB_SPRINTDLN && id != RTB_PRINTF && id != RTB_SPRINTF) {
		if (id >= RTB_PRINT)
			return rtb_print_family(c, id, args, n, ret);
	}
	if (id < sizeof(rtb_table) / sizeof(rtb_table[0]) && rtb_table[id])
		return rtb_table[id](c, args, n, ret);
	if (rt_stack_is_builtin(id))
		return rt_stack_builtin(c, id, args, n, ret);
	if (rt_float_is_builtin(id))
		return rt_float_builtin(c, id, args, n, ret);
	if (rt_procfs_is_builtin(id))
		return rt_procfs_builtin(c, id, args, n, ret);
	if (id >= RTB_RETURNVAL)	/* pass 2 made every call a fetch */
		return rt_error(c, 0, "internal error: builtin %u is resolved by the compiler", id);
	if (id >= RTB_PID)
		return rtb_context(c, id, ret);
	return rt_error(c, 0, "internal error: builtin %u has no implementation", id);
}

/* printf/sprintf (interp.c's vm_print): see rt_builtins.h. */
enum rt_status rt_format(struct rt_ctx *c, int fmt, struct rt_value *args,
			 unsigned n, struct rt_buf *out, uint32_t loc)
{
	const struct fmt_spec *f = NULL;

	if (fmt >= 0 && (unsigned)fmt < c->prog->nformats)
		f = c->prog->formats[fmt];
	if (!f || fmt_nargs(f) != n)
		return rt_error(c, loc, "internal error: printf format %d does not fit its %u arguments",
				fmt, n);
	fmt_render(out, f, args, n);
	return RT_OK;
}
