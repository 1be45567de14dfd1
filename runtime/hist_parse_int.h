/* hist_parse_int.h - the hist-file parser's state and its text
 * primitives, shared by hist_parse.c (the file, its triggers' headers,
 * handler lines and totals), hist_keys.c (an entry: its keys, as the
 * kernel prints them, and its values) and hist_text.c (the primitives:
 * arena, line reader, errors, numbers).  Nothing else includes it.
 */
#ifndef KTAP_HIST_PARSE_INT_H
#define KTAP_HIST_PARSE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "hist_parse.h"

/* One parse: the text, its current line and the trigger being read. */
struct hist_parser {
	const char *text;
	size_t len, pos;            /* next unread byte */
	unsigned lineno;            /* of the line in buf */
	char *buf;                  /* the current line, NUL-terminated */
	int have_line;              /* buf holds a line not yet consumed */
	int eof;
	struct hist_parse_arena *arena;
	struct hist_parse_error *err;
	/* the trigger being read */
	struct hist_parse_trigger *t;
	struct hist_parse_field keys[HIST_PARSE_MAX_KEYS];
	struct hist_parse_field vals[HIST_PARSE_MAX_VALS];
	struct hist_parse_entry *ents;  /* malloc'ed vector */
	size_t n_ents, cap_ents;
	/* save(...) names of the trigger's handlers, in order */
	size_t n_saves;
	const char **save_names[HIST_PARSE_MAX_TRACKS];
	size_t save_count[HIST_PARSE_MAX_TRACKS];
};

/* ---- hist_text.c ---- */

/* An empty arena, or NULL when out of memory. */
struct hist_parse_arena *hist_arena_new(void);
/* SIZE zeroed bytes owned by A, or NULL when out of memory. */
void *hist_alloc(struct hist_parse_arena *a, size_t size);
/* A NUL-terminated copy of S[0, N) in A, or NULL. */
char *hist_strndup(struct hist_parse_arena *a, const char *s, size_t n);
/* Frees A and every block of it; NULL is a no-op. */
void hist_arena_free(struct hist_parse_arena *a);

/* Records the first error (line and message); returns -1. */
int hist_fail(struct hist_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* hist_fail(p, "out of memory"). */
int hist_oom(struct hist_parser *p);
/* Reads the next line into p->buf unless one is pending: 1 with a line,
 * 0 at the end of the text, -1 on a line too long or holding a NUL. */
int hist_next_line(struct hist_parser *p);
/* Marks p->buf as used, so hist_next_line() reads the next one. */
void hist_consume(struct hist_parser *p);

int hist_starts(const char *s, const char *prefix);
/* S holds only blanks. */
int hist_blank(const char *s);
/* [S, E) without leading/trailing blanks. */
void hist_trim(const char **s, const char **e);
/* All of [S, E) (blanks around allowed) as a number in BASE: 0, or -1. */
int hist_u64(const char *s, const char *e, int base, uint64_t *out);

/* ---- hist_keys.c ---- */

/* One entry, from the "{ " line in p->buf (consumed), appended to
 * p->ents: its keys read against p->t's key fields, then its values. */
int hist_entry(struct hist_parser *p);

#endif
