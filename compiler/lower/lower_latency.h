/*
 * lower_latency.h - what the two halves of pass 3's latency pairs share:
 * lower_latency_shape.c finds the pairs in the handlers' shapes,
 * lower_latency.c decides and emits them (see its header).
 */
#ifndef KTAP_LOWER_LATENCY_H
#define KTAP_LOWER_LATENCY_H

#include "lower_int.h"

#define LL_SIZE_EXACT 16384		/* statistics keyed on their values */
#define LL_SIZE_MIN 128			/* TRACING_MAP_BITS_MIN */
#define LL_SIZE_MAX 131072		/* TRACING_MAP_BITS_MAX */
#define LL_MAX_KEYS 3			/* TRACING_MAP_KEYS_MAX */
#define LL_MAX_STARTS 4			/* start probes sharing one named hist */

/* One pair: its probes, globals, keys, clocks and what deciding found. */
struct ll_pair {
	unsigned a[LL_MAX_STARTS], na;	/* the start probes */
	unsigned b;			/* the end probe */
	unsigned start, stat;		/* the globals t and s */
	const struct ast_expr *ka[LL_MAX_STARTS], *kb;	/* K and K', alias locals resolved */
	int ca[LL_MAX_STARTS], cb;	/* the clocks (IR_BI_*) */
	const struct ast_expr *sk[LL_MAX_KEYS];	/* s[KEYS] <<< ...: B's keys, resolved */
	unsigned nsk;
	bool keyed;			/* s is an array */
	bool entry;			/* B's "CLOCK() - @entry(CLOCK())": A is its entry
					   probe, both keyed on common_pid, no t */
	int64_t div;			/* (CLOCK() - t[K']) / div; 1: no division */
	int64_t wall;			/* gettimeofday_us/ms/s(): the ns they divide by
					   (1000...); 0: a ns clock */
	bool exact;			/* s is read with @min/@max/@hist_* (or divided) */
	const char *why;		/* found while matching: why it stays in user space */
	unsigned size;			/* the start and end hists' entries */
};

/* The pairs of the program (@out, in the arena), each end probe with the
   start probes that set its t; their count. */
unsigned lw_lat_find(struct lw_ctx *c, const struct lower_options *opt, struct ll_pair **out);
/* The kernel filter of probe @i's guards and ktap's own-pid clause. */
const char *lw_lat_filter(struct lw_ctx *c, unsigned i);
/* The global array @e (VAR or INDEX with one key, or IN) names, or NULL. */
const struct sem_sym *lw_lat_array(const struct ast_expr *e);

#endif
