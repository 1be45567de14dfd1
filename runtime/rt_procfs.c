/*
 * rt_procfs.c - pass 5: the builtins stap computes from the running
 * task's task_struct and mm_struct (cmdline_str(), task_utime(),
 * proc_mem_size() ...), which ktap reads from /proc when the handler
 * runs.
 *
 * In: the handler's thread (rt_current()) or a pid/tid argument, and
 * /proc/PID/cmdline, /proc/TID/stat, /proc/PID/statm, /proc/PID/status.
 * Out: stap's values and texts: times in nanoseconds (the kernel's
 * cputime since 4.11, which stap returns), memory in pages,
 * proc_mem_string()'s "size: 301m, ..." as stap's bytes_to_string()
 * writes it.
 *
 * Also the system and ktap itself: cmdline_args() (/proc/PID/cmdline),
 * env_var() (/proc/PID/environ), pid2execname() (process tracking, else
 * /proc/PID/comm), pgrp() and sid() (/proc/PID/stat), the load average
 * (/proc/loadavg, whose "%d.%02d" format is stap's), stp_pid() and
 * is_myproc() (ktap's pid and uid), jiffies (/proc/timer_list).
 *
 * Why /proc: a probe's record carries no memory counters or command
 * line, and the handler runs after the event, so the values are those
 * of the moment ktap handles the record (a short-lived process may be
 * gone: then "" or 0, stap's value for "cannot be retrieved").  Times
 * come from /proc's clock ticks (USER_HZ, 10 ms).
 */
#include "rt_procfs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum rtp_id {
#define BI(id, name, ret, args, flags) RTP_##id,
#include "builtins.def"
#undef BI
};

bool rt_procfs_is_builtin(unsigned id)
{
	return (id >= RTP_CMDLINE_STR && id <= RTP_PAGES_TO_STRING) ||
	       (id >= RTP_CMDLINE_ARGS && id <= RTP_KTAP_JIFFIES_AT);
}

/* The whole of /proc/@pid/@what (at most @cap - 1 bytes, NUL-terminated); -1: none. */
static ssize_t rtp_read(int pid, const char *what, char *buf, size_t cap)
{
	char path[64];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, what);
	if (pid <= 0 || !(f = fopen(path, "re")))
		return -1;
	n = fread(buf, 1, cap - 1, f);
	fclose(f);
	buf[n] = '\0';
	return (ssize_t)n;
}

/* cmdline_str(): the arguments joined by spaces, stap's cmdline_args(0, -1, " "). */
static struct rt_value rtp_cmdline(struct rt_ctx *c, int pid)
{
	char buf[4096];
	ssize_t n = rtp_read(pid, "cmdline", buf, sizeof(buf)), i;

	if (n <= 0)
		return rt_str("", 0);
	if (buf[n - 1] == '\0')
		n--;		/* the last argument's terminator */
	for (i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	return rt_scratch_str(c, buf, (size_t)n);
}

/* Field @k (1-based, as proc(5) counts) of /proc/@tid/stat; 0 when gone. */
static int64_t rtp_stat_field(int tid, unsigned k)
{
	char buf[1024], *p;
	unsigned i;

	if (rtp_read(tid, "stat", buf, sizeof(buf)) <= 0 || !(p = strrchr(buf, ')')))
		return 0;
	/* the comm may hold blanks and ')': fields restart after the last ')' */
	for (i = 2; i < k && p; i++)
		p = strchr(p + 1, ' ');
	return p ? strtoll(p + 1, NULL, 10) : 0;
}

/* A field of /proc/@tid/stat in clock ticks, in nanoseconds: utime
   (14), stime (15), starttime (22: since boot, stap's start_boottime). */
static int64_t rtp_ticks_ns(int tid, unsigned k)
{
	long hz = sysconf(_SC_CLK_TCK);

	return rtp_stat_field(tid, k) * (1000000000 / (hz > 0 ? hz : 100));
}

enum rtp_mem { RTP_SIZE, RTP_RSS, RTP_SHR, RTP_TXT, RTP_DATA };

/* Process @pid's memory counter @which in pages; 0 when gone. */
static int64_t rtp_mem(int pid, enum rtp_mem which)
{
	/* statm: size resident shared text lib data dt */
	static const unsigned col[] = { [RTP_SIZE] = 0, [RTP_RSS] = 1, [RTP_TXT] = 3,
					[RTP_DATA] = 5 };
	long long v[7] = { 0 };
	char buf[4096], *p;

	if (which == RTP_SHR) {
		/* stap's is the file pages only (MM_FILEPAGES), statm's
		   "shared" adds shmem: RssFile of status is stap's, in kB */
		if (rtp_read(pid, "status", buf, sizeof(buf)) <= 0 ||
		    !(p = strstr(buf, "\nRssFile:")))
			return 0;
		return strtoll(p + 9, NULL, 10) * 1024 / sysconf(_SC_PAGESIZE);
	}
	if (rtp_read(pid, "statm", buf, sizeof(buf)) <= 0 ||
	    sscanf(buf, "%lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6]) != 7)
		return 0;
	return v[col[which]];
}

/* stap's _stp_number_to_string_postfix(): 5 characters, " x.yyp" ... "xxxxp". */
static void rtp_postfix(char *out, size_t cap, int64_t x, int64_t y, char p)
{
	if (x < 10)
		snprintf(out, cap, "%d.%.2d%c", (int)x, (int)(y * 100 / 1024), p);
	else if (x < 100)
		snprintf(out, cap, "%2d.%d%c", (int)x, (int)(y * 10 / 1024), p);
	else
		snprintf(out, cap, "%4d%c", (int)x, p);
}

/* stap's bytes_to_string(): "  123", "1.50K", "12.5M", " 123G". */
static void rtp_bytes(char *out, size_t cap, int64_t bytes)
{
	static const char units[] = "KMG";
	int64_t remain;
	unsigned u;

	if (bytes < 1024) {
		snprintf(out, cap, "%5lld", (long long)bytes);
		return;
	}
	for (u = 0;; u++) {
		remain = bytes % 1024;
		bytes /= 1024;
		if (bytes < 1024 || u == 2)
			break;
	}
	rtp_postfix(out, cap, bytes, remain, units[u]);
}

static struct rt_value rtp_bytes_value(struct rt_ctx *c, int64_t bytes)
{
	char s[64];

	rtp_bytes(s, sizeof(s), bytes);
	return rt_scratch_str(c, s, strlen(s));
}

/* proc_mem_string(): "size: %s, rss: %s, shr: %s, txt: %s, data: %s". */
static struct rt_value rtp_mem_string(struct rt_ctx *c, int pid)
{
	static const char *const names[] = { "size", "rss", "shr", "txt", "data" };
	int64_t page = sysconf(_SC_PAGESIZE);
	char out[256], part[64];
	size_t len = 0;
	unsigned i;

	for (i = 0; i < 5; i++) {
		rtp_bytes(part, sizeof(part), rtp_mem(pid, (enum rtp_mem)i) * page);
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s: %s", i ? ", " : "",
					names[i], part);
	}
	return rt_scratch_str(c, out, len);
}

/* ---- the system and ktap itself ---- */

/* cmdline_args(@n, @m, @delim): arguments @n..@m (@m < @n: to the last)
   of /proc/@pid/cmdline joined by @delim; "" when there are not @n + 1. */
static struct rt_value rtp_cmdline_args(struct rt_ctx *c, int pid, int64_t n, int64_t m,
					struct rt_value delim)
{
	char buf[4096], out[4096];
	ssize_t len = rtp_read(pid, "cmdline", buf, sizeof(buf)), i = 0;
	size_t olen = 0;
	int64_t k;

	for (k = 0; len > 0 && i < len; k++, i += (ssize_t)strlen(buf + i) + 1) {
		size_t alen = strlen(buf + i);

		if (k < n || (m >= n && k > m))
			continue;
		if (k > n && olen + delim.len < sizeof(out)) {
			memcpy(out + olen, delim.s, delim.len);
			olen += delim.len;
		}
		if (olen + alen >= sizeof(out))
			break;
		memcpy(out + olen, buf + i, alen);
		olen += alen;
	}
	return rt_scratch_str(c, out, olen);
}

/* env_var(@name): its value in /proc/@pid/environ, "" when unset. */
static struct rt_value rtp_env_var(struct rt_ctx *c, int pid, struct rt_value name)
{
	size_t cap = 1 << 16;
	char *buf = malloc(cap);
	ssize_t len = buf ? rtp_read(pid, "environ", buf, cap) : -1, i;
	struct rt_value v = rt_str("", 0);

	for (i = 0; len > 0 && i < len; i += (ssize_t)strlen(buf + i) + 1) {
		if (name.len && !strncmp(buf + i, name.s, name.len) && buf[i + name.len] == '=') {
			v = rt_scratch_str(c, buf + i + name.len + 1,
					   strlen(buf + i + name.len + 1));
			break;
		}
	}
	free(buf);
	return v;
}

/* pid2execname(@pid): the runtime's process tracking, else /proc. */
static struct rt_value rtp_pid2execname(struct rt_ctx *c, int pid)
{
	const char *comm = c->proc && pid > 0 ? c->proc(c, pid)->comm : "";
	char buf[64];
	ssize_t n;

	if (*comm)
		return rt_scratch_str(c, comm, strlen(comm));
	n = rtp_read(pid, "comm", buf, sizeof(buf));
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	return rt_scratch_str(c, buf, n > 0 ? (size_t)n : 0);
}

/* /proc/loadavg's first three fields ("0.52 0.58 0.59"): stap's
   sprint_loadavg(), whose format the kernel's file shares. */
static size_t rtp_loadavg(char *out, size_t cap)
{
	char buf[256], *p = buf;
	FILE *f = fopen("/proc/loadavg", "re");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	unsigned i;

	if (f)
		fclose(f);
	buf[n] = '\0';
	for (i = 0; i < 3 && p; i++)
		p = strchr(p + 1, ' ');
	n = p ? (size_t)(p - buf) : 0;
	if (n >= cap)
		n = cap - 1;
	memcpy(out, buf, n);
	out[n] = '\0';
	return n;
}

static enum rt_status rtp_loadavg_index(struct rt_ctx *c, int64_t i, struct rt_value *ret)
{
	char buf[256], *p = buf;
	int64_t k;

	if (i < 0 || i > 2)
		return rt_error(c, 0, "get_loadavg_index: invalid index %lld (0, 1 or 2)",
				(long long)i);
	rtp_loadavg(buf, sizeof(buf));
	for (k = 0; k < i && p; k++)
		p = strchr(p + 1, ' ');
	*ret = rt_long(p ? strtoll(p, NULL, 10) : 0);
	return RT_OK;
}

/*
 * The kernel's jiffies at trace-clock (CLOCK_MONOTONIC) time @ns: the
 * jiffies and the time /proc/timer_list gives ("now at N nsecs", then
 * "jiffies: J"), read once per run, advanced by @hz per second.
 */
static enum rt_status rtp_jiffies_at(struct rt_ctx *c, int64_t ns, int64_t hz,
				     struct rt_value *ret)
{
	char buf[8192], *now, *jf;
	FILE *f;
	size_t n;
	int64_t q;

	if (!c->jiffies_base_ns) {
		f = fopen("/proc/timer_list", "re");
		n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		if (f)
			fclose(f);
		buf[n] = '\0';
		now = strstr(buf, "\nnow at ");
		jf = strstr(buf, "\njiffies: ");
		if (!now || !jf)
			return rt_error(c, 0, "jiffies(): /proc/timer_list gives no jiffies "
					"(it is readable by root only)");
		c->jiffies_base_ns = strtoll(now + 8, NULL, 10);
		c->jiffies_base = strtoll(jf + 10, NULL, 10);
	}
	q = (ns - c->jiffies_base_ns) * hz;
	*ret = rt_long(c->jiffies_base + (q >= 0 ? q / 1000000000 : -((999999999 - q) / 1000000000)));
	return RT_OK;
}

/* The builtins from CMDLINE_ARGS on, for the handler's thread @p. */
static enum rt_status rtp_system_builtin(struct rt_ctx *c, unsigned id, struct rt_value *a,
					 const struct rt_proc *p, struct rt_value *ret)
{
	char s[256];

	switch (id) {
	case RTP_CMDLINE_ARGS: *ret = rtp_cmdline_args(c, p->tgid, a[0].l, a[1].l, a[2]); break;
	case RTP_ENV_VAR: *ret = rtp_env_var(c, p->tgid, a[0]); break;
	case RTP_PID2EXECNAME: *ret = rtp_pid2execname(c, (int)a[0].l); break;
	case RTP_PGRP: *ret = rt_long(rtp_stat_field(p->tgid, 5)); break;
	case RTP_SID: *ret = rt_long(rtp_stat_field(p->tgid, 6)); break;
	case RTP_GET_LOADAVG_INDEX: return rtp_loadavg_index(c, a[0].l, ret);
	case RTP_SPRINT_LOADAVG: *ret = rt_scratch_str(c, s, rtp_loadavg(s, sizeof(s))); break;
	case RTP_STP_PID: *ret = rt_long(getpid()); break;
	case RTP_IS_MYPROC: *ret = rt_long(p->uid == (int)getuid()); break;
	default: return rtp_jiffies_at(c, a[0].l, a[1].l, ret);
	}
	return RT_OK;
}

enum rt_status rt_procfs_builtin(struct rt_ctx *c, unsigned id, struct rt_value *a,
				 unsigned n, struct rt_value *ret)
{
	struct rt_proc self;
	const struct rt_proc *p = rt_current(c, &self);
	/* the optional argument of task_utime(tid), proc_mem_size(pid) ... */
	int tid = n ? (int)a[0].l : p->tid, pid = n ? (int)a[0].l : p->tgid;

	if (id >= RTP_CMDLINE_ARGS)
		return rtp_system_builtin(c, id, a, p, ret);
	switch (id) {
	case RTP_CMDLINE_STR: *ret = rtp_cmdline(c, p->tgid); break;
	case RTP_TASK_UTIME: case RTP_TASK_UTIME_TID: *ret = rt_long(rtp_ticks_ns(tid, 14)); break;
	case RTP_TASK_STIME: case RTP_TASK_STIME_TID: *ret = rt_long(rtp_ticks_ns(tid, 15)); break;
	case RTP_TASK_START_TIME: *ret = rt_long(rtp_ticks_ns(tid, 22)); break;
	case RTP_PROC_MEM_SIZE: case RTP_PROC_MEM_SIZE_PID: *ret = rt_long(rtp_mem(pid, RTP_SIZE)); break;
	case RTP_PROC_MEM_RSS: case RTP_PROC_MEM_RSS_PID: *ret = rt_long(rtp_mem(pid, RTP_RSS)); break;
	case RTP_PROC_MEM_SHR: case RTP_PROC_MEM_SHR_PID: *ret = rt_long(rtp_mem(pid, RTP_SHR)); break;
	case RTP_PROC_MEM_TXT: case RTP_PROC_MEM_TXT_PID: *ret = rt_long(rtp_mem(pid, RTP_TXT)); break;
	case RTP_PROC_MEM_DATA: case RTP_PROC_MEM_DATA_PID: *ret = rt_long(rtp_mem(pid, RTP_DATA)); break;
	case RTP_PROC_MEM_STRING: case RTP_PROC_MEM_STRING_PID: *ret = rtp_mem_string(c, pid); break;
	case RTP_MEM_PAGE_SIZE: *ret = rt_long(sysconf(_SC_PAGESIZE)); break;
	case RTP_BYTES_TO_STRING: *ret = rtp_bytes_value(c, a[0].l); break;
	default: *ret = rtp_bytes_value(c, a[0].l * sysconf(_SC_PAGESIZE)); break;
	}
	return RT_OK;
}
