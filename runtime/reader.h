/*
 * reader.h - pass 5, kernel side: the event stream of ktap's instance.
 *
 * In: an instance directory (tfs_instance_dir()) or a recorded directory,
 * and the list of events ("system/event") the plan enabled.  Out: their
 * records, one at a time, from all CPUs merged in timestamp order, with
 * fast field access and an account of lost events.
 *
 * Only the formats of the listed events (plus events/header_page) are
 * parsed, never the ~2,500 formats of the whole system: opening is fast.
 *
 * ORDERING GUARANTEE.  Each CPU's ring buffer is in timestamp order; the
 * reader merges the CPUs.  A record with timestamp T from CPU c is
 * delivered only when, for every other CPU d, either d's next unread
 * record is already known and is later than T (ties: lower CPU first), or
 * a read of d that found d's buffer empty began at a (trace clock) time
 * later than T + W, where W is the hold-back window (rdr_options, default
 * RDR_HOLDBACK_NS).  So: records are delivered in non-decreasing
 * (timestamp, cpu) order, provided every record is committed to the ring
 * buffer less than W after its timestamp was taken.  The kernel commits
 * within microseconds (with preemption off); only a vCPU descheduled by
 * the hypervisor or a very long NMI/IRQ between reserve and commit can
 * break that; such a record is still delivered, at once, and counted in
 * rdr_stats.late.  Live records are therefore delivered between W and
 * W + (time to read) after they happen.  The window needs the instance's
 * trace_clock to be a clock user space can read: mono (CLOCK_MONOTONIC,
 * what tfs_create() sets), mono_raw, boot or tai; others are refused.
 * Replay needs no window: a recorded CPU is complete.
 *
 * END OF STREAM.  After the session has stopped tracing in the instance
 * (tfs_tracing_on(false)), rdr_drain() makes the reader read every CPU to
 * the end: a CPU is finished once a read that began W after the drain
 * started found it empty.  rdr_next() then returns the rest in order and
 * finally RDR_END.
 *
 * LOST EVENTS.  Per CPU, lost = max(stats, missed) where stats is
 * overrun + commit overrun + dropped events from per_cpu/cpuN/stats (the
 * kernel's count of records overwritten or refused because the buffer
 * was full) and missed is what the sub-buffer headers reported to
 * kbuffer (kbuffer_missed_events(); a header that says "some" without a
 * count adds 1).  Both count the same loss from two sides, so they are
 * not added.  rdr_lost() is the sum over CPUs; print
 * "WARNING: N events lost" when it is not 0.
 *
 * Lifetime: a record's data is valid until the next rdr_next(),
 * rdr_drain() or rdr_close() on the same reader.  Everything a reader
 * hands out (tep_event pointers, field handles) lives until rdr_close().
 * Close the reader before tfs_destroy(): open trace_pipe_raw files keep
 * the instance busy.
 *
 * Recorded directory layout (rdr_open_replay(), tests/tools/ktap-record.c):
 *   info                 "key value" lines: subbuf_size N, long_size N,
 *                        cpus N, clock NAME, event SYS/EVENT (one line
 *                        per event, in index order), pid N (optional)
 *   header_page          copy of events/header_page
 *   events/SYS/EVENT/format
 *   cpuN.raw             the sub-buffers read from cpuN/trace_pipe_raw,
 *                        each subbuf_size bytes, in read order
 *   cpuN.stats           copy of per_cpu/cpuN/stats at the end (optional)
 */
#ifndef KTAP_RT_READER_H
#define KTAP_RT_READER_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tep_event;
struct tep_handle;
struct rdr;
struct rdr_field;

/* Default hold-back window W, in ns (see ORDERING GUARANTEE). */
#define RDR_HOLDBACK_NS 10000000ULL

/* rdr_next()'s until_ns for "no limit". */
#define RDR_FOREVER UINT64_MAX

/* Results of rdr_next(). */
enum {
	RDR_ERROR = -1,		/* see rdr_error() */
	RDR_NONE = 0,		/* nothing deliverable yet: wait and retry */
	RDR_RECORD = 1,		/* *rec is the next record */
	RDR_UNTIL = 2,		/* proven: no record with timestamp < until_ns remains */
	RDR_END = 3,		/* drained (or replay finished): no record remains */
};

/* One record, as rdr_next() delivers it. */
struct rdr_record {
	uint64_t ts;			/* trace clock ns (CLOCK_MONOTONIC with mono) */
	int cpu;
	int pid;			/* common_pid: the thread id */
	unsigned index;			/* the event's index in the open list */
	struct tep_event *event;	/* its format */
	const void *data;		/* raw record, starting with common_type */
	int size;			/* bytes at data */
	/* The stacks the kernel recorded right after this record on its CPU
	   (rdr_pair_stacks()); n = 0: none.  Valid as data is. */
	const uint64_t *kstack;		/* kernel_stack: innermost first */
	unsigned nkstack;
	const uint64_t *ustack;		/* user_stack: innermost first */
	unsigned nustack;
	int ustack_tgid;
};

/* Counters; see LOST EVENTS.  All sums over CPUs. */
struct rdr_stats {
	uint64_t records;	/* delivered */
	uint64_t subbufs;	/* sub-buffers read */
	uint64_t unknown;	/* records of events not in the list: skipped */
	uint64_t late;		/* records that broke the window (delivered anyway) */
	uint64_t missed;	/* sub-buffer headers' missed-event counts */
	uint64_t overrun;	/* per_cpu stats: overrun + commit overrun */
	uint64_t dropped;	/* per_cpu stats: dropped events */
	uint64_t lost;		/* sum over CPUs of max(overrun+dropped, missed) */
	uint64_t written;	/* per_cpu stats: entries + read events + overrun,
				   the records the kernel wrote (filters passed) */
};

/* Options for rdr_open_*(); zero-initialised means defaults. */
struct rdr_options {
	uint64_t holdback_ns;	/* W; 0: RDR_HOLDBACK_NS */
	/* Live: called with every sub-buffer read from CPU @cpu (@size
	   bytes, as the kernel wrote it) before its records are handed out
	   (--record, tracedat_write.h); NULL: none. */
	void (*tap)(void *ctx, int cpu, const void *subbuf, size_t size);
	void *tap_ctx;
};

/*
 * rdr_open_live - read the instance in directory @instance_dir.
 * @events: @nevents names "system/event"; a record's index is its
 * event's position here.  Loads events/header_page and each listed
 * format from the instance, checks its trace_clock, and opens every
 * CPU's per_cpu/cpuN/trace_pipe_raw non-blocking.  @opt may be NULL.
 * Returns the reader (rdr_close() frees it) or NULL with a message in
 * @err (@errlen bytes), e.g. "events/foo/bar/format: No such file or
 * directory (no such event?)".
 */
struct rdr *rdr_open_live(const char *instance_dir, const char *const *events,
			  unsigned nevents, const struct rdr_options *opt,
			  char *err, size_t errlen);

/*
 * rdr_open_replay - read a recorded directory (layout above) the same
 * way.  @events/@nevents as for rdr_open_live(), or NULL/0 for the
 * directory's own list (its "event" lines, in order).  Needs no root and
 * no tracefs.  Returns the reader or NULL with a message in @err.
 */
struct rdr *rdr_open_replay(const char *dir, const char *const *events,
			    unsigned nevents, const struct rdr_options *opt,
			    char *err, size_t errlen);

/*
 * rdr_open_tracedat - read trace-cmd recording @file (reader_tracedat.c,
 * libtracecmd) the same way: @events/@nevents as for rdr_open_live(),
 * found among the recording's formats.  rdr_tep() is the recording's
 * handle, with its saved command lines; rdr_now() starts at its first
 * record.  Returns the reader or NULL with a message in @err.
 */
struct rdr *rdr_open_tracedat(const char *file, const char *const *events,
			      unsigned nevents, const struct rdr_options *opt,
			      char *err, size_t errlen);

/*
 * rdr_next - the next record in merged order, if its timestamp is below
 * @until_ns (RDR_FOREVER: no limit).  Waits at most @timeout_ms (0: do
 * not wait, -1: as long as needed) for the hold-back window or for data.
 * Returns RDR_RECORD (with *@rec filled), RDR_UNTIL, RDR_NONE (timed
 * out; undecided), RDR_END or RDR_ERROR.  With a finite @until_ns and
 * @timeout_ms >= W/1e6 + a few ms it decides: RDR_RECORD or RDR_UNTIL.
 * Interrupted by a signal, it returns RDR_NONE.
 */
int rdr_next(struct rdr *r, struct rdr_record *rec, uint64_t until_ns,
	     int timeout_ms);

/*
 * rdr_drain - start the final drain (see END OF STREAM).  Call it once
 * the instance has stopped recording; then call rdr_next() until RDR_END
 * (with timeout -1 that takes at most about W).
 */
void rdr_drain(struct rdr *r);

/*
 * rdr_pollfds - the fds to poll (POLLIN) while rdr_next() returns
 * RDR_NONE: those of CPUs the merge is waiting on.  The set changes, so
 * fetch it before each poll().  Fills at most @max; returns the count
 * (0 for replay).  Also poll with a timeout of rdr_timeout_ms().
 */
int rdr_pollfds(struct rdr *r, struct pollfd *fds, int max);

/*
 * rdr_timeout_ms - after RDR_NONE: milliseconds until a held-back record
 * can be delivered without new data (0: retry now), or -1 if only new
 * data (an fd of rdr_pollfds()) can help.
 */
int rdr_timeout_ms(struct rdr *r);

/*
 * rdr_now - the current time in the trace clock (ns), for the caller's
 * until_ns.  For a recording, the time it has been read up to: its
 * start (rdr_open_tracedat(); 0 for a recorded directory), the last
 * record delivered, or a later until_ns that rdr_next() answered
 * RDR_UNTIL.
 */
uint64_t rdr_now(struct rdr *r);

/*
 * rdr_get_stats - fill @st.  For a live reader this re-reads the
 * per_cpu stats files (call it before tfs_destroy()).  Returns 0, or -1
 * if a stats file could not be read (the rest is still filled).
 */
int rdr_get_stats(struct rdr *r, struct rdr_stats *st);

/* rdr_lost - rdr_get_stats()'s lost: the number for "WARNING: N events lost". */
uint64_t rdr_lost(struct rdr *r);

/* rdr_error - the last error message (empty string when none). */
const char *rdr_error(const struct rdr *r);

/* rdr_ncpus - the number of CPUs (per_cpu directories or recorded files). */
int rdr_ncpus(const struct rdr *r);

/* rdr_subbuf_size - the bytes of one sub-buffer (what a tap receives). */
int rdr_subbuf_size(const struct rdr *r);

/* rdr_event - the format of event @index (NULL if out of range). */
struct tep_event *rdr_event(struct rdr *r, unsigned index);

/* rdr_tep - the tep handle holding the formats (for tep_print_* helpers). */
struct tep_handle *rdr_tep(struct rdr *r);

/*
 * rdr_pair_stacks - deliver the ftrace kernel_stack (listed at index
 * @kidx, -1: none) and user_stack (@uidx) records that follow a record
 * of event i with @want[i] on the same CPU as that record's kstack and
 * ustack (see reader_stack.c), instead of as records of their own.
 * @want has one entry per listed event and must live as long as @r.
 * Stack records that follow no wanted record are still delivered alone.
 */
void rdr_pair_stacks(struct rdr *r, int kidx, int uidx, const bool *want);

/* rdr_close - close everything and free @r (NULL is a no-op). */
void rdr_close(struct rdr *r);

/* ---- fields ---- */

/* What a field holds, as rdr_field_num()/rdr_field_str() see it. */
enum rdr_ftype {
	RDR_F_NUM,	/* integer of 1, 2, 4 or 8 bytes (pointers too) */
	RDR_F_STR,	/* char[N], or __data_loc/__rel_loc char[] */
	RDR_F_ARRAY,	/* other fixed or dynamic array: rdr_field_elem() */
};

/*
 * rdr_field - resolve field @name of event @index once ("common_pid"
 * and other common fields too).  Returns a handle owned by the reader
 * (valid until rdr_close()), or NULL (errno ENOENT: no such field,
 * ENOMEM, EINVAL: bad index).
 */
const struct rdr_field *rdr_field(struct rdr *r, unsigned index, const char *name);

/* rdr_field_type - RDR_F_NUM, RDR_F_STR or RDR_F_ARRAY. */
enum rdr_ftype rdr_field_type(const struct rdr_field *f);

/*
 * rdr_field_num - the value of a numeric field in @rec, sign-extended
 * from its size when the format says signed:1, zero-extended otherwise
 * (u64 values above INT64_MAX come back negative, as in stap).  For a
 * string or array, the first element.  0 if the record is too short.
 */
int64_t rdr_field_num(const struct rdr_field *f, const struct rdr_record *rec);

/*
 * rdr_field_str - a string field of @rec: *@s points into the record
 * (not NUL-terminated; valid as long as the record), the length up to
 * the first NUL or the field's end is returned.  Numeric fields give
 * 0 and *@s = "".
 */
uint32_t rdr_field_str(const struct rdr_field *f, const struct rdr_record *rec,
		       const char **s);

/* rdr_field_faulted - is string field @f of @rec one the kernel could not
 * copy (a dynamic event's fetch of unreadable memory: length 0)? */
bool rdr_field_faulted(const struct rdr_field *f, const struct rdr_record *rec);

/*
 * rdr_field_elem - element @i of an array field (fixed or dynamic) as a
 * number, with the element size and signedness; 0 past the end.
 * rdr_field_count() says how many elements @rec has.
 */
int64_t rdr_field_elem(const struct rdr_field *f, const struct rdr_record *rec,
		       unsigned i);
unsigned rdr_field_count(const struct rdr_field *f, const struct rdr_record *rec);

#endif
