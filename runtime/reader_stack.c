/*
 * reader_stack.c - pass 5, kernel side: pairing an event record with the
 * stack records the kernel writes right after it.
 *
 * In: a record just delivered (rdr_deliver()) of an event whose handlers
 * read stacks, and its CPU's ring buffer.  Out: the record, copied, with
 * the addresses of the ftrace kernel_stack and user_stack records that
 * follow it on that CPU (rdr_record.kstack/.ustack).
 *
 * Why look ahead on the same CPU: the `stacktrace` trigger and the
 * `userstacktrace` option write their record from the same kernel path
 * as the event, with preemption off, right after the event is committed
 * (trace.c __ftrace_trace_stack, ftrace_trace_userstack), so the next
 * record of that CPU is the stack of that event.  An interrupt that
 * traces in between would separate them: its record is then not a stack
 * and the look-ahead stops (the event gets no stack, the stack record is
 * delivered alone and ignored).
 *
 * kernel_stack's format says caller[8], but the record is variable
 * length: `size` frames follow (up to PAGE_SIZE/4 in 6.1), so the count
 * comes from the size field, bounded by the record's length.  user_stack
 * is fixed at 8 frames (FTRACE_STACK_ENTRIES), zero-filled.
 */
#include "reader_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How long a live look-ahead waits for a stack record not yet committed:
   the kernel writes it microseconds after the event. */
#define RDR_STACK_WAIT_NS 1000000ULL

static int rdr_attach_stacks(struct rdr *r, struct rdr_cpu *c, struct rdr_record *rec);

void rdr_pair_stacks(struct rdr *r, int kidx, int uidx, const bool *want)
{
	r->attach_stacks = rdr_attach_stacks;
	r->kstack_idx = kidx;
	r->ustack_idx = uidx;
	r->want_stack = want;
	if (kidx >= 0) {
		r->kcaller = rdr_field(r, (unsigned)kidx, "caller");
		r->ksize = rdr_field(r, (unsigned)kidx, "size");
	}
	if (uidx >= 0) {
		r->ucaller = rdr_field(r, (unsigned)uidx, "caller");
		r->utgid = rdr_field(r, (unsigned)uidx, "tgid");
	}
}

static int rdr_grow(void **p, size_t *cap, size_t need)
{
	void *n;

	if (*cap >= need)
		return 0;
	n = realloc(*p, need);
	if (!n)
		return -1;
	*p = n;
	*cap = need;
	return 0;
}

static uint64_t rdr_word(const struct rdr_field *f, const char *p)
{
	uint64_t v = 0;
	uint32_t w;

	if (f->elem == 8) {
		memcpy(&v, p, 8);
		return f->swap ? __builtin_bswap64(v) : v;
	}
	memcpy(&w, p, 4);
	return f->swap ? __builtin_bswap32(w) : w;
}

/* The frames of stack record @rec into *@out. */
static int rdr_stack_addrs(struct rdr *r, const struct rdr_record *rec, bool kernel,
			   uint64_t **out, size_t *cap, unsigned *n)
{
	const struct rdr_field *fc = kernel ? r->kcaller : r->ucaller;
	const struct rdr_field *fn = kernel ? r->ksize : r->utgid;
	unsigned max, want, i;
	uint64_t a;

	*n = 0;
	if (!fc || !fn || !fc->elem || (int)fc->offset > rec->size)
		return 0;
	max = (unsigned)(rec->size - (int)fc->offset) / fc->elem;
	want = kernel ? (unsigned)rdr_field_num(fn, rec) : fc->size / fc->elem;
	if (want > max)
		want = max;
	if (rdr_grow((void **)out, cap, (want + 1) * sizeof(**out)) != 0)
		return -1;
	for (i = 0; i < want; i++) {
		a = rdr_word(fc, (const char *)rec->data + fc->offset + i * fc->elem);
		/* ULONG_MAX ends a kernel stack (trace_stack_print); zeros
		   fill the rest of a user stack */
		if (a == 0 || (fc->elem == 8 ? a == UINT64_MAX : a == UINT32_MAX))
			break;
		(*out)[(*n)++] = a;
	}
	return 0;
}

/* Keep the delivered record: reading on may reuse the CPU's page. */
static int rdr_hold(struct rdr *r, struct rdr_record *rec)
{
	if (rdr_grow(&r->held, &r->held_cap, (size_t)rec->size + 1) != 0)
		return -1;
	memcpy(r->held, rec->data, (size_t)rec->size);
	rec->data = r->held;
	return 0;
}

/* The next record of @c: 1 (head), 0 (none, and none coming), -1. */
static int rdr_next_on_cpu(struct rdr *r, struct rdr_cpu *c, uint64_t ts)
{
	struct timespec pause = { 0, 20000 };
	int rc;

	for (;;) {
		if (r->live && !c->has_head && !c->done)
			c->due = true;
		rc = rdr_fill(r, c);
		if (rc != 0)
			return rc;
		if (!r->live || c->done || rdr_clock_now(r) - ts > RDR_STACK_WAIT_NS)
			return 0;
		nanosleep(&pause, NULL);
	}
}

static int rdr_attach_stacks(struct rdr *r, struct rdr_cpu *c, struct rdr_record *rec)
{
	struct rdr_record s;
	int idx, rc;

	if (rdr_hold(r, rec) != 0) {
		rdr_fail(r, "out of memory");
		return -1;
	}
	for (;;) {
		rc = rdr_next_on_cpu(r, c, rec->ts);
		if (rc <= 0)
			return rc;
		idx = rdr_head_index(r, c);
		if (idx < 0 || (idx != r->kstack_idx && idx != r->ustack_idx))
			return 0;
		if ((idx == r->kstack_idx && rec->kstack) || (idx == r->ustack_idx && rec->ustack))
			return 0;	/* a second one: the next event's */
		rdr_deliver(r, c, &s);
		r->st.records--;	/* part of @rec, not a record of its own */
		if (idx == r->kstack_idx) {
			if (rdr_stack_addrs(r, &s, true, &r->kaddr, &r->kcap, &rec->nkstack) != 0)
				goto oom;
			rec->kstack = r->kaddr;
		} else {
			if (rdr_stack_addrs(r, &s, false, &r->uaddr, &r->ucap, &rec->nustack) != 0)
				goto oom;
			rec->ustack = r->uaddr;
			rec->ustack_tgid = r->utgid ? (int)rdr_field_num(r->utgid, &s) : rec->pid;
		}
	}
oom:
	rdr_fail(r, "out of memory");
	errno = ENOMEM;
	return -1;
}
