/*
 * diag.h - compiler diagnostics.
 *
 * Every pass reports problems to one sink.  A diagnostic is rendered at
 * once, gcc-style:
 *
 *   file:LINE:COL: error: message
 *      LINE | source text
 *           |     ^~~~
 *
 * followed by one note per macro expansion the span came out of.  With
 * show_codes (--diag-codes) the level carries the diagnostic's stable code,
 * "error[E0123]:", found from the format in diag.def.  The
 * sink counts errors so a pass can stop at the next boundary, and it
 * says one message per problem: it drops a second error at exactly the
 * same place (however the parser recovers, a function typed twice), a
 * probe point's resolution error said before, and all but the first of a
 * kind diag.def marks DIAG_ONCE (what the kernel or ktap lacks); those are
 * counted all the same.
 */
#ifndef KTAP_DIAG_H
#define KTAP_DIAG_H

#include <stdarg.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>

#include "source.h"

enum diag_level {
	DIAG_ERROR,
	DIAG_WARNING,
	DIAG_NOTE,
};

struct diag_sink {
	const struct src_map *src;
	FILE *out;			/* where diagnostics go (stderr) */
	unsigned errors;
	unsigned warnings;
	unsigned max_errors;		/* stop reporting after this many */
	bool warnings_off;		/* -w */
	bool muted;			/* count but print nothing (fuzzing) */
	bool show_codes;		/* --diag-codes: "error[E0123]: " */
	bool all_errors;		/* --all-errors: no DIAG_ONCE */
	bool color;			/* --color: gcc's SGR colours */
	struct src_span last;		/* last error's span, for dedup */
	uint64_t said[64];		/* hashes of errors said (dedup) */
	unsigned nsaid;
	unsigned unsaid;		/* DIAG_ONCE errors counted, not said */
};

/* Set up @d to print to @out; @src must outlive the sink. */
void diag_init(struct diag_sink *d, const struct src_map *src, FILE *out);

void diag_report(struct diag_sink *d, enum diag_level level,
		 struct src_span at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void diag_vreport(struct diag_sink *d, enum diag_level level,
		  struct src_span at, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

#define diag_error(d, at, ...) diag_report(d, DIAG_ERROR, at, __VA_ARGS__)
#define diag_warning(d, at, ...) \
	diag_report(d, DIAG_WARNING, at, __VA_ARGS__)
#define diag_note(d, at, ...) diag_report(d, DIAG_NOTE, at, __VA_ARGS__)

/* An error with no location (command line, environment): "ktap: error: " */
void diag_plain(struct diag_sink *d, enum diag_level level,
		const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * The code ("E0123") and short name of the diagnostic whose format is
 * @fmt (the format string as the call passes it, see diag.def); NULL when
 * @fmt is not in the table.  @name may be NULL.
 */
const char *diag_code(const char *fmt, const char **name);

/*
 * At the end of the compile: a note saying how many errors of a DIAG_ONCE
 * kind went unsaid, when any did.
 */
void diag_unsaid_note(struct diag_sink *d);

/*
 * "Did you mean": the edit distance of @a and @b (capped: 99 for names
 * of 63 bytes or more), and whether a candidate at distance @d from
 * @name is close enough to be the name a typo meant.
 */
unsigned diag_distance(const char *a, const char *b);
bool diag_is_typo_of(const char *name, unsigned d);

/* "L:C" of the start of @at, for messages that cite another place. */
const char *diag_where(const struct diag_sink *d, struct src_span at,
		       char *buf, size_t size);

#endif
