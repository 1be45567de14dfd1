/*
 * rt_stack.c - pass 5: the stack and symbol builtins.
 *
 * In: the handler's record with the stacks the reader paired with it
 * (rt_event.kstack from the `stacktrace` trigger, .ustack from the
 * `userstacktrace` option, both innermost first), the session's kallsyms
 * table (rt_ctx.ksym) and the processes' cached maps (rt_ctx.usym, filled
 * by the runner when it first sees a process).  Out: SystemTap's texts,
 * formatted by ksym_format()/usym_format():
 *   print_backtrace()/print_ubacktrace()  " 0xADDR : sym+0xoff/0xsize [mod]\n" per frame
 *   sprint_backtrace()/sprint_ubacktrace() "sym+0xoff [mod]\n" per frame
 *   backtrace()/ubacktrace()               "0xADDR 0xADDR ... " (hex, a space after each)
 *   symname()/usymname(), symdata()/usymdata() as stap's.
 *   usymfileline()/usymfile()/usymline()   "FILE:LINE", FILE, LINE from the DWARF
 *                                          line table; "0xADDR" when unknown
 *   symfileline()/symfile()/symline()      "0xADDR" (no kernel line table)
 * print_syms(), print_stack() and the other string-taking ones are
 * tapset functions over symdata() (tapset/context-symbols.stp), as in
 * stap.
 *
 * Frames come from the kernel's own unwinder (ORC or frame pointers), so
 * unlike stap's fallback unwinder they are not marked "(inexact)".  A
 * handler without a stack (begin, end, timers; a kernel thread's user
 * stack) prints stap's "<no kernel backtrace at PP>" line and its hex
 * forms are empty.
 */
#include "rt_stack.h"
#include "ksym.h"
#include "usym.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

enum rts_id {
#define BI(id, name, ret, args, flags) RTS_##id,
#include "builtins.def"
#undef BI
};

bool rt_stack_is_builtin(unsigned id)
{
	return id >= RTS_BACKTRACE && id <= RTS_USYMLINE;
}

void rt_stack_from_probe_point(const struct rt_ctx *c, struct rt_event *ev)
{
	struct ksym_info in;

	if (!ev->nkstack)
		return;
	ev->kstack++;
	ev->nkstack--;
	/* (without kallsyms' names an iterator frame stays) */
	if (ev->nkstack && c->ksym && ksym_lookup(c->ksym, ev->kstack[0], &in) == 0 &&
	    !strncmp(in.name, "__traceiter_", 12)) {
		ev->kstack++;
		ev->nkstack--;
	}
}

/* Say once that kallsyms hides the addresses. */
static void rts_check_hidden(struct rt_ctx *c)
{
	if (c->ksym && ksym_hidden(c->ksym) && !c->ksym_warned) {
		c->ksym_warned = true;
		rt_report(c, RT_REPORT_WARNING, NULL, "%s", ksym_hidden_message());
	}
}

/* One address as text onto @b: kernel (@pid 0) or process @pid's. */
static void rts_addr(struct rt_ctx *c, struct rt_buf *b, int pid, uint64_t addr,
		     enum ksym_fmt fmt)
{
	char line[1024];
	int n;

	if (fmt == KSYM_FMT_HEX)	/* backtrace(): no symbol to look up */
		n = ksym_format_parts(NULL, NULL, addr, 0, 0, fmt, 0, line, sizeof(line));
	else if (pid)
		n = c->usym ? usym_format(c->usym, pid, addr, fmt, 0, line, sizeof(line)) :
			      ksym_format_parts(NULL, NULL, addr, 0, 0, fmt, 0, line, sizeof(line));
	else
		n = ksym_format(c->ksym, addr, fmt, 0, line, sizeof(line));
	if (n < 0)
		return;
	buf_add(b, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/*
 * Process @pid's maps for user addresses @v[0..n): read the first time,
 * and read again when one of them is in none of the maps read (a library
 * mapped, dlopen()ed, since ktap first saw the process).
 */
static void rts_user_maps(struct rt_ctx *c, int pid, const uint64_t *v, unsigned n)
{
	struct usym_info in;
	unsigned i;

	if (pid <= 0 || !c->maps)
		return;
	c->maps(c, pid, false);
	for (i = 0; i < n && c->usym; i++)
		if (usym_lookup(c->usym, pid, v[i], &in) < 0) {
			c->maps(c, pid, true);
			break;
		}
}

/* The event's process, its maps ready for user address @addr; 0 when none. */
static int rts_user_pid(struct rt_ctx *c, uint64_t addr)
{
	int pid = c->ev && c->proc ? c->proc(c, c->ev->tid)->tgid : 0;

	rts_user_maps(c, pid, &addr, 1);
	return pid;
}

/* A whole stack onto @b; stap's line when there is none. */
static void rts_stack(struct rt_ctx *c, struct rt_buf *b, bool user, enum ksym_fmt fmt)
{
	const uint64_t *v = NULL;
	unsigned n = 0, i;
	int pid = 0;

	if (c->ev) {
		v = user ? c->ev->ustack : c->ev->kstack;
		n = user ? c->ev->nustack : c->ev->nkstack;
	}
	if (!n) {
		if (fmt != KSYM_FMT_HEX)
			buf_printf(b, "<no %s backtrace at %s>\n", user ? "user" : "kernel",
				   c->probe ? c->probe->pp : "");
		return;
	}
	if (user && c->proc)
		pid = c->proc(c, c->ev->tid)->tgid;
	if (user)
		rts_user_maps(c, pid, v, n);
	if (!user)
		rts_check_hidden(c);
	for (i = 0; i < n; i++)
		rts_addr(c, b, user ? pid : 0, v[i], fmt);
}

static enum rt_status rts_to_string(struct rt_ctx *c, bool user, enum ksym_fmt fmt,
				    struct rt_value *ret)
{
	struct rt_buf tmp = { 0 };

	rts_stack(c, &tmp, user, fmt);
	*ret = rt_scratch_str(c, tmp.p ? tmp.p : "", tmp.len);
	buf_free(&tmp);
	return RT_OK;
}

/* symname() and friends: one address. */
static enum rt_status rts_sym(struct rt_ctx *c, bool user, enum ksym_fmt fmt, int64_t addr,
			      struct rt_value *ret)
{
	struct rt_buf tmp = { 0 };
	int pid = 0;

	if (user) {
		pid = rts_user_pid(c, (uint64_t)addr);
		if (!pid)	/* begin/end: no process of the script's */
			pid = -1;
	} else {
		rts_check_hidden(c);
	}
	rts_addr(c, &tmp, pid, (uint64_t)addr, fmt);
	*ret = rt_scratch_str(c, tmp.p ? tmp.p : "", tmp.len);
	buf_free(&tmp);
	return RT_OK;
}

/* [u]symfileline(), [u]symfile(), [u]symline() of @addr: @what 0, 1, 2. */
static enum rt_status rts_srcline(struct rt_ctx *c, bool user, int what, int64_t addr,
				  struct rt_value *ret)
{
	const char *file = NULL;
	char buf[4096];
	int pid, line = 0;

	if (user) {
		pid = rts_user_pid(c, (uint64_t)addr);
		if (!pid || !c->usym || usym_srcline(c->usym, pid, (uint64_t)addr, &file, &line))
			file = NULL;
	}
	if (!file)
		snprintf(buf, sizeof(buf), "0x%" PRIx64, (uint64_t)addr);
	else if (what == 0)
		snprintf(buf, sizeof(buf), "%s:%d", file, line);
	else if (what == 1)
		snprintf(buf, sizeof(buf), "%s", file);
	else
		snprintf(buf, sizeof(buf), "%d", line);
	*ret = rt_scratch_str(c, buf, strlen(buf));
	return RT_OK;
}

/* print_[u]backtrace(): one output chunk, made apart from c->out so
   that a warning said while symbolising does not land inside it. */
static enum rt_status rts_print(struct rt_ctx *c, bool user)
{
	struct rt_buf tmp = { 0 };
	size_t mark;

	rts_stack(c, &tmp, user, KSYM_FMT_FULL);
	mark = c->out.len;
	if (tmp.len)
		buf_add(&c->out, tmp.p, tmp.len);
	buf_free(&tmp);
	rt_out_chunk(c, mark);
	return RT_OK;
}

enum rt_status rt_stack_builtin(struct rt_ctx *c, unsigned id, struct rt_value *a,
				unsigned n, struct rt_value *ret)
{
	(void)n;
	switch (id) {
	case RTS_PRINT_BACKTRACE: return rts_print(c, false);
	case RTS_PRINT_UBACKTRACE: return rts_print(c, true);
	case RTS_BACKTRACE: return rts_to_string(c, false, KSYM_FMT_HEX, ret);
	case RTS_UBACKTRACE: return rts_to_string(c, true, KSYM_FMT_HEX, ret);
	case RTS_SPRINT_BACKTRACE: return rts_to_string(c, false, KSYM_FMT_SIMPLE, ret);
	case RTS_SPRINT_UBACKTRACE: return rts_to_string(c, true, KSYM_FMT_SIMPLE, ret);
	case RTS_SYMNAME: return rts_sym(c, false, KSYM_FMT_SYMBOL, a[0].l, ret);
	case RTS_SYMDATA: return rts_sym(c, false, KSYM_FMT_DATA, a[0].l, ret);
	case RTS_USYMNAME: return rts_sym(c, true, KSYM_FMT_SYMBOL, a[0].l, ret);
	case RTS_USYMDATA: return rts_sym(c, true, KSYM_FMT_DATA, a[0].l, ret);
	case RTS_SYMFILELINE: return rts_srcline(c, false, 0, a[0].l, ret);
	case RTS_SYMFILE: return rts_srcline(c, false, 1, a[0].l, ret);
	case RTS_SYMLINE: return rts_srcline(c, false, 2, a[0].l, ret);
	case RTS_USYMFILELINE: return rts_srcline(c, true, 0, a[0].l, ret);
	case RTS_USYMFILE: return rts_srcline(c, true, 1, a[0].l, ret);
	case RTS_USYMLINE: return rts_srcline(c, true, 2, a[0].l, ret);
	}
	return rt_error(c, 0, "internal error: stack builtin %u", id);
}
