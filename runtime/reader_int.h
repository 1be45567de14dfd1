/*
 * reader_int.h - the reader's own representation, shared by reader.c
 * (formats, reading, merging), reader_field.c (an event's fields) and
 * reader_open.c (opening a live instance or a recording, closing).
 * Nothing else includes it.
 */
#ifndef KTAP_RT_READER_INT_H
#define KTAP_RT_READER_INT_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "reader.h"

struct tep_handle;
struct tep_event;
struct tracefs_cpu;
struct kbuffer;

#define RDR_ERRLEN 1024
#define RDR_MAX_CPUS 4096

struct rdr_field {
	struct rdr_field *next;		/* the reader's list, for rdr_close() */
	unsigned offset, size;		/* in the record */
	unsigned elem;			/* element size of arrays, else size */
	enum rdr_ftype type;
	bool is_signed;
	bool dynamic;			/* __data_loc: a u32 (len << 16 | offset) */
	bool relative;			/* __rel_loc: offset from the field's end */
	bool swap;			/* record byte order differs from ours */
	bool raw;			/* "NAME[]": all the array's bytes, a string */
	/* A kprobe's user string: its first byte, the field NAME_z the
	   compiler adds beside it (sema_point.c), which tells an empty
	   string from a fault (both recorded with no bytes before 6.5). */
	struct rdr_field *first_byte;
};

struct rdr_cpu {
	int cpu;
	int fd;				/* trace_pipe_raw or cpuN.raw; -1 if none */
	struct tracefs_cpu *tcpu;	/* live only */
	struct kbuffer *kbuf;
	void *page;			/* one sub-buffer */
	bool loaded;			/* kbuf points into page */
	bool has_head, done, due;
	/* Live: a possible CPU that is not online (trace_pipe_raw reads
	   ENODEV, and polls always ready): left out of the poll, read
	   again only when the merge waits on it (rdr_settled). */
	bool offline;
	void *head;			/* the head record's data */
	int head_size;			/* its size */
	uint64_t head_ts;
	uint64_t empty_at;		/* idle: time before the empty read */
	uint64_t missed;		/* from sub-buffer headers */
};

/* Event id -> index, sorted by id. */
struct rdr_evmap {
	int id;
	unsigned index;
};

struct rdr {
	struct tep_handle *tep;
	/*
	 * A recording read through a library (reader_tracedat.c) instead of
	 * sub-buffers: pull() makes @c's head the next record of a listed
	 * event (1), or finds the CPU done (0), or fails (-1); the records
	 * it hands out live until its next call for that CPU.  close()
	 * frees the backend, and the tep handle when the backend owns it
	 * (then it sets r->tep to NULL).
	 */
	int (*pull)(struct rdr *r, struct rdr_cpu *c);
	void (*backend_close)(struct rdr *r);
	void *backend;
	uint64_t first_ts;		/* offline: the recording's start */
	uint64_t proven;		/* offline: no record before this remains */
	void (*tap)(void *ctx, int cpu, const void *subbuf, size_t size);
	void *tap_ctx;			/* rdr_options' */
	bool live, draining;
	clockid_t clock;
	uint64_t holdback;		/* W */
	uint64_t drain_at;		/* rdr_drain() time */
	uint64_t wake_at;		/* after RDR_NONE: when a re-read helps; 0 none */
	uint64_t last_ts;		/* of the last delivered record */
	char *dir;			/* instance or recorded directory */
	int subbuf_size;
	bool swap;			/* record byte order differs from ours */
	struct rdr_cpu *cpus;
	int ncpus;
	struct pollfd *pfds;		/* rdr_poll_idle()'s, one per CPU */
	int *pwho;			/* the CPU index of each pfds entry */
	struct tep_event **events;	/* by index */
	unsigned nevents;
	struct rdr_evmap *map;		/* by id */
	unsigned last_map;		/* lookup cache */
	unsigned type_off, type_size, pid_off, pid_size;
	struct rdr_field *fields;
	struct rdr_stats st;
	char err[RDR_ERRLEN];
	/* rdr_pair_stacks(): */
	int kstack_idx, ustack_idx;	/* -1: not paired */
	/* their fields, resolved once: caller[], size / tgid */
	const struct rdr_field *kcaller, *ksize, *ucaller, *utgid;
	const bool *want_stack;		/* per event index, or NULL */
	/* Set by rdr_pair_stacks() (reader_stack.c): after rdr_deliver() of
	   a record whose event wants stacks, attach the stack records that
	   follow it; 0, or -1 on error.  A hook, so that the core reader
	   does not call the stack pairing built on top of it. */
	int (*attach_stacks)(struct rdr *r, struct rdr_cpu *c, struct rdr_record *rec);
	void *held;			/* the delivered record, copied */
	size_t held_cap;
	uint64_t *kaddr, *uaddr;	/* its stacks */
	size_t kcap, ucap;
};

/* Hand out @c's head as *@rec and step past it (reader.c). */
void rdr_deliver(struct rdr *r, struct rdr_cpu *c, struct rdr_record *rec);

/* Make @c's head the next listed record (reader.c): 1 head, 0 none, -1 error. */
int rdr_fill(struct rdr *r, struct rdr_cpu *c);

/* The event index of record @data (@size bytes), -1 when it is of an
   event not in the list or too short (reader.c). */
int rdr_listed(struct rdr *r, const void *data, int size);

/* A reader with its tep handle (reader_open.c); formats and CPUs come
   later.  NULL: out of memory. */
struct rdr *rdr_alloc(const char *dir, bool live, bool big_endian,
		      const struct rdr_options *opt);

/* Allocate @n CPUs, no files open (reader_open.c).  0 or -1. */
int rdr_alloc_cpus(struct rdr *r, int n);

/* Finish an open (reader_open.c): on failure copy the message to @err
   and free @r. */
struct rdr *rdr_opened(struct rdr *r, int rc, char *err, size_t errlen);

/* The event index of @c's head, -1 without one (reader.c). */
int rdr_head_index(struct rdr *r, const struct rdr_cpu *c);

/* The trace clock now (reader.c). */
uint64_t rdr_clock_now(const struct rdr *r);

/* Set r->err (what rdr_error() returns). */
void rdr_fail(struct rdr *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Whole file at @dir/@rel (tracefs files have st_size 0), or NULL/errno. */
char *rdr_slurp(const char *dir, const char *rel, size_t *lenp);

/* Parse header_page (@rel in @dir): the sub-buffer layout. 0 or -1. */
int rdr_load_header(struct rdr *r, const char *dir, const char *rel, int long_size);

/* Load the formats of @names (under @dir/@evroot; @dir NULL: already
   parsed into r->tep) and build the id map. */
int rdr_load_events(struct rdr *r, const char *dir, const char *evroot,
		    const char *const *names, unsigned n);

/* An unsigned number of @size bytes at @p, in the record's byte order. */
static inline uint64_t rdr_get(bool swap, const void *p, unsigned size)
{
	uint8_t b1;
	uint16_t b2;
	uint32_t b4;
	uint64_t b8;

	switch (size) {
	case 1:
		memcpy(&b1, p, 1);
		return b1;
	case 2:
		memcpy(&b2, p, 2);
		return swap ? __builtin_bswap16(b2) : b2;
	case 4:
		memcpy(&b4, p, 4);
		return swap ? __builtin_bswap32(b4) : b4;
	case 8:
		memcpy(&b8, p, 8);
		return swap ? __builtin_bswap64(b8) : b8;
	}
	return 0;
}

/* Sign-extend the low @size bytes of @v. */
static inline int64_t rdr_sext(uint64_t v, unsigned size)
{
	unsigned shift = 64 - 8 * size;

	if (size >= 8)
		return (int64_t)v;
	return (int64_t)(v << shift) >> shift;
}

#endif
