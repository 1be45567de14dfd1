/*
 * lower_hist.h - what the two halves of pass 3's aggregations to hist
 * triggers share: lower_hist.c decides which globals and probes the
 * kernel keeps (see its header), lower_hist_trigger.c writes the trigger
 * of one update and how run_hist.c reads it back.
 */
#ifndef KTAP_LOWER_HIST_H
#define KTAP_LOWER_HIST_H

#include "lower_int.h"

#define LH_MAX_KEYS 3			/* TRACING_MAP_KEYS_MAX */
#define LH_SIZE_MIN 128			/* TRACING_MAP_BITS_MIN */
#define LH_SIZE_MAX 131072		/* TRACING_MAP_BITS_MAX */
#define LH_SIZE_EXACT 16384		/* statistics keyed on their values */

/* One update statement of a handler the kernel could run. */
struct lh_upd {
	const struct ast_stmt *s;
	const struct ast_expr *lv;	/* VAR or INDEX */
	const struct ast_expr *val;	/* NULL for ++/-- */
	unsigned global;
	bool stat;			/* <<< */
	int64_t mult;			/* ++: 1, --: -1 */
};

struct lh_global {
	const char *why;		/* why it stays in user space, or NULL */
	bool used;			/* some update could be lowered */
	bool exact;			/* <<< with @min/@max/@hist_*: values as keys */
	bool cleared;			/* 'delete a' in a timer: ':clear' */
	bool stack;			/* keyed by backtrace() */
};

struct lh_probe {
	struct lh_upd *u;
	unsigned n;
	size_t cap;
	const char *why;		/* not a candidate: why */
};

struct lh {
	struct lw_ctx *c;
	const struct lower_options *opt;
	struct lh_global *g;
	struct lh_probe *p;
};

/* The value hop's objects, which go into the plan before the update's
   trigger (lower_hist_trigger.c's lh_hop); synth.kind is KP_SYNTH when
   there is a hop. */
struct lh_hop {
	struct kp_obj synth, fire;
};

/*
 * The trigger of update @u in probe @pi, or NULL (@why set) when its
 * shape has no exact hist.  Fills @r (but its obj) and @hop.
 */
struct kp_trigger *lw_hist_trigger(struct lh *h, unsigned pi, const struct lh_upd *u,
				   struct ir_hread *r, const char **why, struct lh_hop *hop);

#endif
