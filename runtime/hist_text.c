/* hist_text.c - the hist-file parser's text primitives (runtime).
 *
 * The arena that owns every string and array of a parsed file, the line
 * reader (one line of the input at a time, bounded, NUL-free), the first
 * error with its line, and strict number parsing.  Used by hist_parse.c
 * and hist_keys.c through hist_parse_int.h.
 */
#include "hist_parse_int.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena ------------------------------------------------------------- */

struct hist_parse_chunk {
	struct hist_parse_chunk *next;
	size_t used, size;
	max_align_t data[];
};

struct hist_parse_arena {
	struct hist_parse_chunk *head;
};

struct hist_parse_arena *hist_arena_new(void)
{
	return calloc(1, sizeof(struct hist_parse_arena));
}

/* Returns SIZE zeroed bytes owned by A, or NULL when out of memory. */
void *hist_alloc(struct hist_parse_arena *a, size_t size)
{
	size = (size + 15) & ~(size_t)15;
	struct hist_parse_chunk *c = a->head;
	if (!c || c->size - c->used < size) {
		size_t cap = size > 32768 ? size : 32768;
		c = calloc(1, sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->size = cap;
		c->next = a->head;
		a->head = c;
	}
	void *p = (char *)c->data + c->used;
	c->used += size;
	return p;
}

char *hist_strndup(struct hist_parse_arena *a, const char *s, size_t n)
{
	char *p = hist_alloc(a, n + 1);
	if (p)
		memcpy(p, s, n);
	return p;
}

void hist_arena_free(struct hist_parse_arena *a)
{
	if (!a)
		return;
	while (a->head) {
		struct hist_parse_chunk *n = a->head->next;
		free(a->head);
		a->head = n;
	}
	free(a);
}

/* Records the first error (line and message); returns -1. */
int hist_fail(struct hist_parser *p, const char *fmt, ...)
{
	if (p->err && !p->err->msg[0]) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
		va_end(ap);
		p->err->line = p->lineno;
	}
	return -1;
}

int hist_oom(struct hist_parser *p)
{
	return hist_fail(p, "out of memory");
}

/* Reads the next line into p->buf.  Returns 1 with a line, 0 at the end
 * of the text, -1 on a line too long or holding a NUL byte. */
int hist_next_line(struct hist_parser *p)
{
	if (p->have_line)
		return 1;
	if (p->pos >= p->len) {
		p->eof = 1;
		return 0;
	}
	const char *s = p->text + p->pos;
	size_t rest = p->len - p->pos;
	const char *nl = memchr(s, '\n', rest);
	size_t n = nl ? (size_t)(nl - s) : rest;
	p->lineno++;
	if (n > HIST_PARSE_MAX_LINE)
		return hist_fail(p, "line longer than %d bytes", HIST_PARSE_MAX_LINE);
	if (memchr(s, '\0', n))
		return hist_fail(p, "NUL byte in line");
	memcpy(p->buf, s, n);
	p->buf[n] = '\0';
	p->pos += n + (nl ? 1 : 0);
	p->have_line = 1;
	return 1;
}

void hist_consume(struct hist_parser *p)
{
	p->have_line = 0;
}

int hist_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int hist_blank(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	return *s == '\0';
}

/* [S, E) without leading/trailing blanks. */
void hist_trim(const char **s, const char **e)
{
	while (*s < *e && isspace((unsigned char)**s))
		(*s)++;
	while (*e > *s && isspace((unsigned char)(*e)[-1]))
		(*e)--;
}

/* Parses all of [S, E) (blanks around allowed) as a number in BASE. */
int hist_u64(const char *s, const char *e, int base, uint64_t *out)
{
	hist_trim(&s, &e);
	if (s == e)
		return -1;
	uint64_t v = 0;
	for (; s < e; s++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return -1;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -1;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	*out = v;
	return 0;
}
