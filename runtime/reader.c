/*
 * reader.c - pass 5, kernel side: the merged event stream (see reader.h).
 *
 * Per CPU the reader holds one sub-buffer (page) and a kbuffer cursor on
 * it: the CPU's "head" is the next record with a known event type.  A
 * CPU is in one of three states:
 *   head   a record is waiting in the loaded sub-buffer;
 *   idle   the last read found the ring buffer empty, at time empty_at
 *          (taken just before that read started);
 *   done   nothing more will come (replay: end of file; live: drained).
 * rdr_next() picks the lowest (timestamp, cpu) head and delivers it once
 * every idle CPU's empty_at is past the head's timestamp plus the
 * hold-back window W; otherwise it re-reads the idle CPUs that block the
 * decision (when their fd polls readable, or once enough time has
 * passed that an empty read would settle it) or waits for one of the two.
 * Sub-buffers are read one at a time, when a CPU's cursor runs out, so a
 * record stays valid until the next call: the page it lives in is only
 * replaced by a later call that finds the page exhausted.
 *
 * Live reads use libtracefs's tracefs_cpu_* on fds this file opens
 * itself with O_NONBLOCK: libtracefs 1.6.4 has no call that returns the
 * fd of a tracefs_cpu_open() descriptor (needed for poll), and its
 * tracefs_cpu_alloc_fd(fd, size, true) does not make the fd non-blocking.
 *
 * Opening (live or replayed) and closing are reader_open.c's; the
 * reader's representation is reader_int.h.
 */
#define _GNU_SOURCE
#include "reader.h"
#include "reader_int.h"
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

/* ---- small helpers ---- */

void rdr_fail(struct rdr *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
}

static uint64_t rdr_clock_ns(clockid_t clock);

uint64_t rdr_clock_now(const struct rdr *r)
{
	return rdr_clock_ns(r->clock);
}

static uint64_t rdr_clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Whole file at @dir/@rel (tracefs files have st_size 0), or NULL/errno. */
char *rdr_slurp(const char *dir, const char *rel, size_t *lenp)
{
	char *path, *buf;
	int e;

	if (asprintf(&path, "%s/%s", dir, rel) < 0)
		return NULL;
	buf = fio_read(path, lenp);
	e = errno;
	free(path);
	errno = e;
	return buf;
}

/* ---- formats ---- */

/* Parse header_page (@path in @dir): the sub-buffer layout. */
int rdr_load_header(struct rdr *r, const char *dir, const char *rel, int long_size)
{
	size_t len;
	char *buf = rdr_slurp(dir, rel, &len);
	int rc;

	if (!buf) {
		rdr_fail(r, "%s: %s", rel, strerror(errno));
		return -1;
	}
	rc = tep_parse_header_page(r->tep, buf, (unsigned long)len, long_size);
	free(buf);
	if (rc != 0) {
		rdr_fail(r, "%s: cannot parse the sub-buffer header", rel);
		return -1;
	}
	r->subbuf_size = tep_get_sub_buffer_size(r->tep);
	if (r->subbuf_size <= 0)
		r->subbuf_size = getpagesize();
	return 0;
}

/* Split "sys/event" into @sys and @ev buffers.  false if malformed. */
static bool rdr_split_name(const char *name, char *sys, char *ev, size_t len)
{
	const char *slash = strchr(name, '/');

	if (!slash || slash == name || !slash[1] || strchr(slash + 1, '/') ||
	    (size_t)(slash - name) >= len || strlen(slash + 1) >= len)
		return false;
	snprintf(sys, len, "%.*s", (int)(slash - name), name);
	snprintf(ev, len, "%s", slash + 1);
	return true;
}

/*
 * Parse @evroot/SYS/EVENT/format for @name and return the event.  A
 * print-fmt libtraceevent cannot parse is not an error: the fields are
 * what ktap needs, and tep_parse_event() registers the event anyway.
 */
static struct tep_event *rdr_load_event(struct rdr *r, const char *dir,
					const char *evroot, const char *name)
{
	char sys[256], ev[256], rel[600], msg[256];
	struct tep_event *e;
	enum tep_errno rc;
	size_t len;
	char *buf;

	if (!rdr_split_name(name, sys, ev, sizeof(sys))) {
		rdr_fail(r, "%s: not a \"system/event\" name", name);
		return NULL;
	}
	if (!dir) {		/* parsed already: a recording's */
		e = tep_find_event_by_name(r->tep, sys, ev);
		if (!e)
			rdr_fail(r, "%s:%s: not in the recording", sys, ev);
		return e;
	}
	snprintf(rel, sizeof(rel), "%s/%s/%s/format", evroot, sys, ev);
	buf = rdr_slurp(dir, rel, &len);
	if (!buf) {
		rdr_fail(r, "%s: %s%s", rel, strerror(errno),
			 errno == ENOENT ? " (no such event?)" : "");
		return NULL;
	}
	rc = tep_parse_event(r->tep, buf, len, sys);
	free(buf);
	e = tep_find_event_by_name(r->tep, sys, ev);
	if (!e) {
		tep_strerror(r->tep, rc, msg, sizeof(msg));
		rdr_fail(r, "%s: %s", rel, msg);
	}
	return e;
}

static int rdr_cmp_map(const void *a, const void *b)
{
	const struct rdr_evmap *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* Where common_type and common_pid are (same in every event). */
static int rdr_common_layout(struct rdr *r)
{
	struct tep_format_field *t, *p;

	t = tep_find_common_field(r->events[0], "common_type");
	p = tep_find_common_field(r->events[0], "common_pid");
	if (!t || !p || (t->size != 1 && t->size != 2 && t->size != 4) || p->size != 4) {
		rdr_fail(r, "%s/%s/format: unexpected common fields",
			 r->events[0]->system, r->events[0]->name);
		return -1;
	}
	r->type_off = (unsigned)t->offset;
	r->type_size = (unsigned)t->size;
	r->pid_off = (unsigned)p->offset;
	r->pid_size = (unsigned)p->size;
	return 0;
}

/* Load the formats of @names (under @dir/@evroot) and build the id map. */
int rdr_load_events(struct rdr *r, const char *dir, const char *evroot,
		    const char *const *names, unsigned n)
{
	unsigned i, j;

	if (n == 0) {
		rdr_fail(r, "no events to read");
		return -1;
	}
	r->events = calloc(n, sizeof(*r->events));
	r->map = calloc(n, sizeof(*r->map));
	if (!r->events || !r->map) {
		rdr_fail(r, "out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		r->events[i] = rdr_load_event(r, dir, evroot, names[i]);
		if (!r->events[i])
			return -1;
		for (j = 0; j < i; j++)
			if (r->events[j] == r->events[i]) {
				rdr_fail(r, "%s: listed twice", names[i]);
				return -1;
			}
		r->map[i].id = r->events[i]->id;
		r->map[i].index = i;
	}
	r->nevents = n;
	qsort(r->map, n, sizeof(*r->map), rdr_cmp_map);
	return rdr_common_layout(r);
}

/* The index of event @id, or -1 for events not in the list. */
static int rdr_lookup(struct rdr *r, int id)
{
	unsigned lo = 0, hi = r->nevents, mid;

	if (r->map[r->last_map].id == id)
		return (int)r->map[r->last_map].index;
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (r->map[mid].id == id) {
			r->last_map = mid;
			return (int)r->map[mid].index;
		}
		if (r->map[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* ---- reading sub-buffers ---- */

/* Point @c's cursor at the sub-buffer just read into c->page. */
static int rdr_load(struct rdr *r, struct rdr_cpu *c)
{
	int missed;

	if (kbuffer_load_subbuffer(c->kbuf, c->page) != 0) {
		rdr_fail(r, "cpu%d: malformed sub-buffer", c->cpu);
		return -1;
	}
	c->loaded = true;
	r->st.subbufs++;
	/* > 0: that many lost before this sub-buffer; -1: some, count unknown */
	missed = kbuffer_missed_events(c->kbuf);
	if (missed > 0)
		c->missed += (uint64_t)missed;
	else if (missed < 0)
		c->missed++;
	return 0;
}

/* Replay: the next sub-buffer of cpuN.raw.  1 loaded, 0 end, -1 error. */
static int rdr_read_file(struct rdr *r, struct rdr_cpu *c)
{
	size_t want = (size_t)r->subbuf_size, got = 0;
	ssize_t n;

	while (got < want) {
		n = read(c->fd, (char *)c->page + got, want - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rdr_fail(r, "cpu%d.raw: %s", c->cpu, strerror(errno));
			return -1;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got == 0) {
		c->done = true;
		return 0;
	}
	if (got < want) {
		rdr_fail(r, "cpu%d.raw: truncated sub-buffer (%zu of %zu bytes)",
			 c->cpu, got, want);
		return -1;
	}
	return rdr_load(r, c) ? -1 : 1;
}

/*
 * Live: read one sub-buffer of per_cpu/cpuN/trace_pipe_raw.  1 loaded,
 * 0 empty (now idle since the time before the read; done if draining
 * and the window after the drain has passed), -1 error.
 */
static int rdr_read_pipe(struct rdr *r, struct rdr_cpu *c)
{
	uint64_t t = rdr_clock_ns(r->clock);
	int n;

	if (r->draining)
		n = tracefs_cpu_flush(c->tcpu, c->page);
	else
		n = tracefs_cpu_read(c->tcpu, c->page, true);
	if (n < 0 && errno == EINTR)
		return 0;	/* proves nothing: stays due */
	/* ENODEV: a possible CPU that is not online has no ring buffer
	   (yet: it gets one when it comes up), so nothing to read. */
	if (n < 0 && errno != EAGAIN && errno != ENODEV) {
		rdr_fail(r, "per_cpu/cpu%d/trace_pipe_raw: %s", c->cpu, strerror(errno));
		return -1;
	}
	c->offline = n < 0 && errno == ENODEV;
	if (n <= 0) {
		c->empty_at = t;
		c->due = false;
		if (r->draining && t - r->drain_at > r->holdback)
			c->done = true;
		return 0;
	}
	if (r->tap)
		r->tap(r->tap_ctx, c->cpu, c->page, (size_t)r->subbuf_size);
	return rdr_load(r, c) ? -1 : 1;
}

/* The event type of a record. */
static int rdr_type(const struct rdr *r, const void *data)
{
	return (int)rdr_get(r->swap, (const char *)data + r->type_off, r->type_size);
}

/*
 * Make @c's head the next record of a listed event, reading sub-buffers
 * as needed (live: only while the CPU is "due").  Other records are
 * counted and skipped.  1: head, 0: none now, -1: error.
 */
int rdr_fill(struct rdr *r, struct rdr_cpu *c)
{
	unsigned long long ts = 0;
	void *data;
	int rc;

	if (r->pull)
		return c->has_head ? 1 : c->done ? 0 : r->pull(r, c);
	while (!c->has_head && !c->done) {
		data = c->loaded ? kbuffer_read_event(c->kbuf, &ts) : NULL;
		while (data && (kbuffer_event_size(c->kbuf) < (int)(r->pid_off + r->pid_size) ||
				rdr_lookup(r, rdr_type(r, data)) < 0)) {
			r->st.unknown++;
			data = kbuffer_next_event(c->kbuf, &ts);
		}
		if (data) {
			c->head = data;
			c->head_size = kbuffer_event_size(c->kbuf);
			c->head_ts = ts;
			c->has_head = true;
			break;
		}
		c->loaded = false;
		if (r->live && !c->due)
			return 0;
		rc = r->live ? rdr_read_pipe(r, c) : rdr_read_file(r, c);
		if (rc <= 0)
			return rc;
	}
	return c->has_head;
}

static int rdr_fill_all(struct rdr *r)
{
	int i;

	for (i = 0; i < r->ncpus; i++)
		if (rdr_fill(r, &r->cpus[i]) < 0)
			return -1;
	return 0;
}

int rdr_listed(struct rdr *r, const void *data, int size)
{
	if (size < (int)(r->pid_off + r->pid_size))
		return -1;
	return rdr_lookup(r, rdr_type(r, data));
}

int rdr_head_index(struct rdr *r, const struct rdr_cpu *c)
{
	return c->has_head ? rdr_lookup(r, rdr_type(r, c->head)) : -1;
}

/* ---- merging ---- */

/* The CPU with the lowest (timestamp, cpu) head, or NULL. */
static struct rdr_cpu *rdr_best(struct rdr *r)
{
	struct rdr_cpu *best = NULL;
	int i;

	for (i = 0; i < r->ncpus; i++)
		if (r->cpus[i].has_head && (!best || r->cpus[i].head_ts < best->head_ts))
			best = &r->cpus[i];
	return best;
}

static bool rdr_all_done(const struct rdr *r)
{
	int i;

	for (i = 0; i < r->ncpus; i++)
		if (!r->cpus[i].done || r->cpus[i].has_head)
			return false;
	return true;
}

/* An idle CPU: no head, not finished. */
static bool rdr_idle(const struct rdr_cpu *c)
{
	return !c->has_head && !c->done;
}

/*
 * Is every idle CPU known to hold no unread record with a timestamp
 * <= @bound (its empty read began more than W after @bound)?  With
 * @mark, the CPUs that are not become due for a re-read.
 */
static bool rdr_settled(struct rdr *r, uint64_t bound, bool mark)
{
	bool ok = true;
	int i;

	for (i = 0; i < r->ncpus; i++) {
		struct rdr_cpu *c = &r->cpus[i];

		if (!rdr_idle(c))
			continue;
		if (c->empty_at > bound && c->empty_at - bound > r->holdback)
			continue;
		ok = false;
		if (mark)
			c->due = true;
	}
	return ok;
}

/* The time from which an empty re-read settles @bound (UINT64_MAX: never). */
static uint64_t rdr_need_time(const struct rdr *r, uint64_t bound)
{
	uint64_t need = UINT64_MAX, drained;

	if (bound < UINT64_MAX - r->holdback - 1)
		need = bound + r->holdback + 1;
	if (r->draining) {
		drained = r->drain_at + r->holdback + 1;
		if (drained < need)
			need = drained;
	}
	return need;
}

/* The fds of idle CPUs into @fds (at most @max), with cpu indexes in @who. */
static int rdr_idle_fds(struct rdr *r, struct pollfd *fds, int *who, int max)
{
	int i, n = 0;

	for (i = 0; i < r->ncpus && n < max; i++) {
		if (!rdr_idle(&r->cpus[i]) || r->cpus[i].fd < 0 || r->cpus[i].offline)
			continue;
		fds[n] = (struct pollfd){ .fd = r->cpus[i].fd, .events = POLLIN };
		if (who)
			who[n] = i;
		n++;
	}
	return n;
}

/* ppoll() the idle CPUs for up to @wait_ns (UINT64_MAX: no limit);
   readable ones become due.  Returns how many, -1 (error) or -2 (EINTR). */
static int rdr_poll_idle(struct rdr *r, uint64_t wait_ns)
{
	struct pollfd *fds = r->pfds;
	int *who = r->pwho, n, i, rc;
	struct timespec ts = {
		.tv_sec = (time_t)(wait_ns / 1000000000ULL),
		.tv_nsec = (long)(wait_ns % 1000000000ULL),
	};

	n = rdr_idle_fds(r, fds, who, r->ncpus);
	rc = ppoll(fds, (nfds_t)n, wait_ns == UINT64_MAX ? NULL : &ts, NULL);
	if (rc < 0) {
		if (errno == EINTR)
			return -2;
		rdr_fail(r, "poll: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++)
		if (fds[i].revents)
			r->cpus[who[i]].due = true;
	return rc;
}

/*
 * Not settled: re-read the blocking CPUs if enough time has passed,
 * else wait for data or that time, but not past @deadline (UINT64_MAX:
 * none).  1: try again, 0: time is up, -1: error.
 */
static int rdr_wait(struct rdr *r, uint64_t bound, uint64_t deadline)
{
	uint64_t now = rdr_clock_ns(r->clock), need = rdr_need_time(r, bound);
	uint64_t until = need < deadline ? need : deadline;
	int rc;

	if (now >= need) {
		rdr_settled(r, bound, true);
		return 1;
	}
	r->wake_at = need;
	rc = rdr_poll_idle(r, until == UINT64_MAX ? UINT64_MAX :
			   until > now ? until - now : 0);
	if (rc == -2)
		return 0;	/* a signal: let the caller look */
	if (rc != 0)
		return rc;
	now = rdr_clock_ns(r->clock);
	return now >= need || now < deadline ? 1 : 0;
}

/* Hand out @c's head as *@rec and step past it. */
void rdr_deliver(struct rdr *r, struct rdr_cpu *c, struct rdr_record *rec)
{
	unsigned long long ts;
	int index = rdr_lookup(r, rdr_type(r, c->head));

	rec->ts = c->head_ts;
	rec->cpu = c->cpu;
	rec->index = (unsigned)index;
	rec->event = r->events[index];
	rec->data = c->head;
	rec->size = c->head_size;
	rec->pid = (int)rdr_get(r->swap, (const char *)c->head + r->pid_off, r->pid_size);
	rec->kstack = rec->ustack = NULL;
	rec->nkstack = rec->nustack = 0;
	rec->ustack_tgid = 0;
	if (rec->ts < r->last_ts)
		r->st.late++;
	else
		r->last_ts = rec->ts;
	r->st.records++;
	if (!r->pull)
		kbuffer_next_event(c->kbuf, &ts);
	c->has_head = false;
}

int rdr_next(struct rdr *r, struct rdr_record *rec, uint64_t until_ns,
	     int timeout_ms)
{
	uint64_t deadline = UINT64_MAX, bound;
	struct rdr_cpu *best;
	int rc;

	r->wake_at = 0;
	if (timeout_ms >= 0 && r->live)
		deadline = rdr_clock_ns(r->clock) + (uint64_t)timeout_ms * 1000000ULL;
	for (;;) {
		if (rdr_fill_all(r) < 0)
			return RDR_ERROR;
		best = rdr_best(r);
		if (!best && rdr_all_done(r))
			return RDR_END;
		if (best && best->head_ts < until_ns)
			bound = best->head_ts;
		else if (until_ns == 0)
			return RDR_UNTIL;
		else
			bound = until_ns - 1;
		if (rdr_settled(r, bound, false)) {
			if (!best || best->head_ts >= until_ns) {
				if (!r->live && until_ns > r->proven)
					r->proven = until_ns;
				return RDR_UNTIL;
			}
			rdr_deliver(r, best, rec);
			r->wake_at = 0;
			if (r->want_stack && r->want_stack[rec->index] &&
			    r->attach_stacks(r, best, rec) != 0)
				return RDR_ERROR;
			return RDR_RECORD;
		}
		rc = rdr_wait(r, bound, deadline);
		if (rc <= 0)
			return rc < 0 ? RDR_ERROR : RDR_NONE;
	}
}

void rdr_drain(struct rdr *r)
{
	int i;

	if (r->draining)
		return;
	r->draining = true;
	if (!r->live)
		return;
	r->drain_at = rdr_clock_ns(r->clock);
	for (i = 0; i < r->ncpus; i++)
		r->cpus[i].due = true;
}

int rdr_pollfds(struct rdr *r, struct pollfd *fds, int max)
{
	return r->live ? rdr_idle_fds(r, fds, NULL, max) : 0;
}

int rdr_timeout_ms(struct rdr *r)
{
	uint64_t now;

	if (!r->live || !r->wake_at || r->wake_at == UINT64_MAX)
		return -1;
	now = rdr_clock_ns(r->clock);
	if (now >= r->wake_at)
		return 0;
	return (int)((r->wake_at - now + 999999) / 1000000);
}

uint64_t rdr_now(struct rdr *r)
{
	uint64_t t = r->first_ts;

	if (r->live)
		return rdr_clock_ns(r->clock);
	if (r->last_ts > t)
		t = r->last_ts;
	return r->proven > t ? r->proven : t;
}

/* ---- lost events ---- */

/* The number after "@key" at the start of a line of @text, or 0. */
static uint64_t rdr_stat_value(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, klen))
			return strtoull(p + klen, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

/* Add CPU @c's per_cpu stats to @st and return its lost count. */
static int rdr_cpu_stats(struct rdr *r, const struct rdr_cpu *c,
			 struct rdr_stats *st, uint64_t *lost)
{
	uint64_t over, drop;
	char rel[64], *text;

	if (r->live)
		snprintf(rel, sizeof(rel), "per_cpu/cpu%d/stats", c->cpu);
	else
		snprintf(rel, sizeof(rel), "cpu%d.stats", c->cpu);
	text = rdr_slurp(r->dir, rel, NULL);
	if (!text && (r->live || errno != ENOENT)) {
		rdr_fail(r, "%s: %s", rel, strerror(errno));
		*lost = c->missed;
		return -1;
	}
	over = text ? rdr_stat_value(text, "overrun:") +
		      rdr_stat_value(text, "commit overrun:") : 0;
	drop = text ? rdr_stat_value(text, "dropped events:") : 0;
	st->written += text ? rdr_stat_value(text, "entries:") +
			      rdr_stat_value(text, "read events:") + over : 0;
	free(text);
	st->overrun += over;
	st->dropped += drop;
	*lost = over + drop > c->missed ? over + drop : c->missed;
	return 0;
}

int rdr_get_stats(struct rdr *r, struct rdr_stats *st)
{
	uint64_t lost;
	int i, rc = 0;

	*st = r->st;
	st->missed = st->overrun = st->dropped = st->lost = st->written = 0;
	for (i = 0; i < r->ncpus; i++) {
		if (r->pull) {		/* a recording: its headers' count */
			st->missed += r->cpus[i].missed;
			st->lost += r->cpus[i].missed;
			continue;
		}
		if (r->cpus[i].fd < 0)
			continue;
		st->missed += r->cpus[i].missed;
		if (rdr_cpu_stats(r, &r->cpus[i], st, &lost) != 0)
			rc = -1;
		st->lost += lost;
	}
	return rc;
}

uint64_t rdr_lost(struct rdr *r)
{
	struct rdr_stats st;

	rdr_get_stats(r, &st);
	return st.lost;
}

/* ---- the rest of the API ---- */

const char *rdr_error(const struct rdr *r)
{
	return r->err;
}

int rdr_ncpus(const struct rdr *r)
{
	return r->ncpus;
}

int rdr_subbuf_size(const struct rdr *r)
{
	return r->subbuf_size;
}

struct tep_event *rdr_event(struct rdr *r, unsigned index)
{
	return index < r->nevents ? r->events[index] : NULL;
}

struct tep_handle *rdr_tep(struct rdr *r)
{
	return r->tep;
}
