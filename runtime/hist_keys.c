/* hist_keys.c - one entry of a tracefs hist file (runtime).
 *
 * In:  the "{ k1: v1, k2: v2 } hitcount: N  v1: N" line(s) of an entry,
 *      read against the key and value fields of the trigger's info line.
 * Out: the entry's typed keys and u64 values, appended to the parser's
 *      entry vector (hist_parse_int.h).
 *
 * The kernel prints keys with fixed printf layouts but does not quote
 * strings, so each key's end is found from the separator that must
 * follow it (see hist_parse.c); a stacktrace key spans lines.
 */
#include "hist_parse_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- entries ---------------------------------------------------------------- */

/* Minimum printed width of a key's text, past which its separator lies. */
static size_t min_width(enum hist_parse_mod mod, int is_str)
{
	switch (mod) {
	case HIST_PARSE_MOD_EXECNAME:
		return 16 + 12;  /* "%-16s[%10llu]" */
	case HIST_PARSE_MOD_SYSCALL:
		return 30 + 5;   /* "%-30s[%3llu]" */
	default:
		return is_str ? 50 : 0; /* "%-50s" */
	}
}

/* Where the text of key I (starting at S) ends: at ", NEXT:" for a key
 * that is not the last, else at the entry's closing brace.  NULL if the
 * separator is missing. */
static const char *key_end(const struct hist_parse_trigger *t, size_t i, const char *s,
			   size_t minw, int multiline)
{
	size_t len = strlen(s);
	if (minw > len)
		minw = len;
	if (i + 1 < t->n_keys) {
		const struct hist_parse_field *nx = &t->keys[i + 1];
		if (nx->mod == HIST_PARSE_MOD_STACKTRACE) {
			/* ", stacktrace:" then the end of the line */
			size_t nl = strlen(nx->name);
			for (const char *c = s + minw; (c = strstr(c, ", ")); c++)
				if ((strncmp(c + 2, "stacktrace:", 11) == 0 && c[13] == '\0') ||
				    (strncmp(c + 2, nx->name, nl) == 0 && c[2 + nl] == ':' &&
				     c[3 + nl] == '\0') ||
				    (strncmp(c + 2, "common_stacktrace:", 18) == 0 && c[20] == '\0'))
					return c;
			return NULL;
		}
		size_t nl = strlen(nx->name);
		for (const char *c = s + minw; (c = strstr(c, ", ")); c++)
			if (strncmp(c + 2, nx->name, nl) == 0 && c[2 + nl] == ':')
				return c;
		return NULL;
	}
	/* The last key: the closing brace is the last one of the line. */
	const char *close = NULL;
	const char *from = s + minw;
	const char *pat = multiline ? "}" : " }";
	for (const char *c = from; (c = strstr(c, pat)); c++)
		close = c;
	if (!close && minw > 0) /* a short string key (its padding lost) */
		for (const char *c = s; (c = strstr(c, pat)); c++)
			close = c;
	return close;
}

/* "[ffffffff811cdbc5] tracing_map_init     " */
static int key_sym(struct hist_parser *p, const char *s, const char *e, struct hist_parse_key *k)
{
	hist_trim(&s, &e);
	const char *rb = s < e && *s == '[' ? memchr(s, ']', (size_t)(e - s)) : NULL;
	if (!rb || hist_u64(s + 1, rb, 16, &k->u) < 0)
		return hist_fail(p, "bad .sym key '%.*s'", (int)(e - s), s);
	s = rb + 1;
	hist_trim(&s, &e);
	k->str = hist_strndup(p->arena, s, (size_t)(e - s));
	return k->str ? 0 : hist_oom(p);
}

/* "%-16s[%10llu]" (comm, pid) and "%-30s[%3llu]" (syscall name, nr). */
static int key_bracketed(struct hist_parser *p, const char *s, const char *e, struct hist_parse_key *k)
{
	while (e > s && e[-1] == ' ')
		e--;
	const char *lb = NULL;
	for (const char *c = s; c < e; c++)
		if (*c == '[')
			lb = c;
	if (!lb || e[-1] != ']' || hist_u64(lb + 1, e - 1, 10, &k->u) < 0)
		return hist_fail(p, "bad key '%.*s' (want NAME [NUMBER])", (int)(e - s), s);
	const char *ne = lb;
	while (ne > s && ne[-1] == ' ')
		ne--;
	k->str = hist_strndup(p->arena, s, (size_t)(ne - s));
	return k->str ? 0 : hist_oom(p);
}

/* "~ 2^5 " and "~ 130-139" */
static int key_range(struct hist_parser *p, const char *s, const char *e, enum hist_parse_mod mod,
		     struct hist_parse_key *k)
{
	hist_trim(&s, &e);
	if (e - s < 2 || s[0] != '~' || s[1] != ' ')
		return hist_fail(p, "bad bucket key '%.*s'", (int)(e - s), s);
	s += 2;
	if (mod == HIST_PARSE_MOD_LOG2) {
		if (e - s < 2 || s[0] != '2' || s[1] != '^' || hist_u64(s + 2, e, 10, &k->u) < 0)
			return hist_fail(p, "bad .log2 key '%.*s'", (int)(e - s), s);
		k->hi = k->u < 64 ? (uint64_t)1 << k->u : UINT64_MAX;
		return 0;
	}
	const char *dash = memchr(s, '-', (size_t)(e - s));
	if (!dash || hist_u64(s, dash, 10, &k->u) < 0 || hist_u64(dash + 1, e, 10, &k->hi) < 0)
		return hist_fail(p, "bad .buckets key '%.*s'", (int)(e - s), s);
	return 0;
}

/* The text [S, E) of a key printed under field F. */
static int key_text(struct hist_parser *p, const struct hist_parse_field *f, const char *s,
		    const char *e, int is_str, struct hist_parse_key *k)
{
	k->kind = HIST_PARSE_U64;
	switch (f->mod) {
	case HIST_PARSE_MOD_SYM:
	case HIST_PARSE_MOD_SYM_OFFSET:
		return key_sym(p, s, e, k);
	case HIST_PARSE_MOD_SYSCALL:
	case HIST_PARSE_MOD_EXECNAME:
		return key_bracketed(p, s, e, k);
	case HIST_PARSE_MOD_LOG2:
	case HIST_PARSE_MOD_BUCKETS:
		return key_range(p, s, e, f->mod, k);
	case HIST_PARSE_MOD_HEX:
		if (hist_u64(s, e, 16, &k->u) < 0)
			return hist_fail(p, "bad .hex key '%.*s'", (int)(e - s), s);
		return 0;
	default:
		break;
	}
	if (!is_str)
		return hist_u64(s, e, 10, &k->u) < 0
			       ? hist_fail(p, "bad number key '%.*s'", (int)(e - s), s)
			       : 0;
	/* "%-50s": the padding goes, and with it any trailing blank of the
	 * string itself (the kernel's output cannot tell them apart). */
	while (e > s && e[-1] == ' ')
		e--;
	k->kind = HIST_PARSE_STR;
	k->str = hist_strndup(p->arena, s, (size_t)(e - s));
	return k->str ? 0 : hist_oom(p);
}

/* A plain key (no modifier) is a number when digits, right-aligned in
 * "%10llu", are followed at once by its separator; else a string. */
static int plain_is_number(const struct hist_parse_trigger *t, size_t i, const char *s,
			   int multiline)
{
	const char *c = s;
	while (*c == ' ')
		c++;
	if (!isdigit((unsigned char)*c))
		return 0;
	while (isdigit((unsigned char)*c))
		c++;
	if (c - s >= 50)
		return 0;
	if (i + 1 < t->n_keys)
		return key_end(t, i, c, 0, multiline) == c;
	const char *close = key_end(t, i, s, 0, multiline);
	return close == c;
}

/* Frame lines of a stacktrace key, up to the line that goes on with ", "
 * or "}".  Leaves that line in p->buf and returns 0. */
static int stack_frames(struct hist_parser *p, struct hist_parse_key *k)
{
	const char *frames[HIST_PARSE_MAX_FRAMES];
	size_t n = 0;
	k->kind = HIST_PARSE_STACK;
	for (;;) {
		hist_consume(p);
		int r = hist_next_line(p);
		if (r < 0)
			return -1;
		if (r == 0)
			return hist_fail(p, "truncated stacktrace key (end of text)");
		if (p->buf[0] == ',' || p->buf[0] == '}')
			break;
		if (p->buf[0] != ' ')
			return hist_fail(p, "bad stacktrace frame line");
		const char *s = p->buf, *e = s + strlen(s);
		hist_trim(&s, &e);
		if (n >= HIST_PARSE_MAX_FRAMES)
			return hist_fail(p, "more than %d stacktrace frames", HIST_PARSE_MAX_FRAMES);
		if (!(frames[n++] = hist_strndup(p->arena, s, (size_t)(e - s))))
			return hist_oom(p);
	}
	const char **f = hist_alloc(p->arena, (n ? n : 1) * sizeof(*f));
	if (!f)
		return hist_oom(p);
	memcpy(f, frames, n * sizeof(*f));
	k->frames = f;
	k->n_frames = n;
	return 0;
}

/* The label "NAME:" of key field F at S; returns the text after it. */
static const char *key_label(const struct hist_parse_field *f, const char *s)
{
	size_t n = strlen(f->name);
	if (f->mod == HIST_PARSE_MOD_STACKTRACE) {
		if (strcmp(s, "stacktrace:") == 0 || strcmp(s, "common_stacktrace:") == 0)
			return s + strlen(s);
		if (strncmp(s, f->name, n) == 0 && s[n] == ':' && s[n + 1] == '\0')
			return s + n + 1;
		return NULL;
	}
	if (strncmp(s, f->name, n) != 0 || s[n] != ':')
		return NULL;
	return s[n + 1] == ' ' ? s + n + 2 : s + n + 1;
}

/* The values after the closing brace: " hitcount: N  name: N ...". */
static int entry_values(struct hist_parser *p, const char *s, uint64_t *vals, unsigned char *shown)
{
	const struct hist_parse_trigger *t = p->t;
	const char *starts_[HIST_PARSE_MAX_VALS], *labels_end[HIST_PARSE_MAX_VALS];
	char pat[300];
	const char *c = s;
	for (size_t j = 0; j < t->n_vals; j++) {
		const struct hist_parse_field *f = &t->vals[j];
		snprintf(pat, sizeof(pat), " %s%s:", f->name,
			 f->mod == HIST_PARSE_MOD_PERCENT ? " (%)" : "");
		const char *at = strstr(c, pat);
		starts_[j] = at;
		if (at) {
			labels_end[j] = at + strlen(pat);
			c = labels_end[j];
		}
	}
	const char *line_end = s + strlen(s);
	int any = 0;
	for (size_t j = 0; j < t->n_vals; j++) {
		shown[j] = starts_[j] != NULL;
		if (!shown[j])
			continue;
		any = 1;
		const char *b = labels_end[j], *e = line_end;
		for (size_t k = j + 1; k < t->n_vals; k++)
			if (starts_[k]) {
				e = starts_[k];
				break;
			}
		const struct hist_parse_field *f = &t->vals[j];
		if (f->mod == HIST_PARSE_MOD_GRAPH) {
			uint64_t bars = 0;
			for (const char *q = b; q < e; q++)
				if (*q == '#')
					bars++;
				else if (*q != ' ')
					return hist_fail(p, "bad .graph value of %s", f->name);
			vals[j] = bars;
		} else if (f->mod == HIST_PARSE_MOD_PERCENT) {
			const char *dot = memchr(b, '.', (size_t)(e - b));
			uint64_t whole, frac;
			if (!dot || hist_u64(b, dot, 10, &whole) < 0 || hist_u64(dot + 1, e, 10, &frac) < 0 ||
			    frac > 99 || whole > UINT64_MAX / 100 - 1)
				return hist_fail(p, "bad .percent value of %s", f->name);
			vals[j] = whole * 100 + frac;
		} else if (hist_u64(b, e, f->mod == HIST_PARSE_MOD_HEX ? 16 : 10, &vals[j]) < 0) {
			return hist_fail(p, "bad value of %s: '%.*s'", f->name, (int)(e - b), b);
		}
	}
	if (!any && t->n_vals > 0)
		return hist_fail(p, "entry shows none of the trigger's values");
	return 0;
}

static int push_entry(struct hist_parser *p, const struct hist_parse_entry *e)
{
	if (p->n_ents == p->cap_ents) {
		size_t cap = p->cap_ents ? 2 * p->cap_ents : 64;
		struct hist_parse_entry *v = realloc(p->ents, cap * sizeof(*v));
		if (!v)
			return hist_oom(p);
		p->ents = v;
		p->cap_ents = cap;
	}
	p->ents[p->n_ents++] = *e;
	return 0;
}

/* One entry, starting at the "{ " line in p->buf (consumed). */
int hist_entry(struct hist_parser *p)
{
	const struct hist_parse_trigger *t = p->t;
	struct hist_parse_entry ent = {.line = p->lineno};
	struct hist_parse_key *keys = hist_alloc(p->arena, t->n_keys * sizeof(*keys));
	uint64_t *vals = hist_alloc(p->arena, (t->n_vals ? t->n_vals : 1) * sizeof(*vals));
	unsigned char *shown = hist_alloc(p->arena, t->n_vals ? t->n_vals : 1);
	if (!keys || !vals || !shown)
		return hist_oom(p);
	const char *s = p->buf + 1;
	if (*s == ' ')
		s++;
	int multiline = 0;
	for (size_t i = 0; i < t->n_keys; i++) {
		const struct hist_parse_field *f = &t->keys[i];
		if (i > 0) {
			if (strncmp(s, ", ", 2) != 0)
				return hist_fail(p, "expected ', %s:' in entry", f->name);
			s += 2;
		}
		const char *v = key_label(f, s);
		if (!v)
			return hist_fail(p, "expected key '%s:' in entry", f->name);
		if (f->mod == HIST_PARSE_MOD_STACKTRACE) {
			if (stack_frames(p, &keys[i]) < 0)
				return -1;
			multiline = 1;
			s = p->buf;
			continue;
		}
		int is_str = 0;
		if (f->mod == HIST_PARSE_MOD_NONE || f->mod == HIST_PARSE_MOD_OTHER ||
		    f->mod == HIST_PARSE_MOD_USECS)
			is_str = !plain_is_number(t, i, v, multiline);
		const char *e = key_end(t, i, v, min_width(f->mod, is_str), multiline);
		if (!e)
			return hist_fail(p, "no end of key '%s' in entry", f->name);
		if (key_text(p, f, v, e, is_str, &keys[i]) < 0)
			return -1;
		s = e;
	}
	const char *close = multiline ? "}" : " }";
	if (strncmp(s, close, strlen(close)) != 0)
		return hist_fail(p, "expected '}' after the keys");
	s += strlen(close);
	if (entry_values(p, s, vals, shown) < 0)
		return -1;
	hist_consume(p);
	ent.keys = keys;
	ent.vals = vals;
	ent.shown = shown;
	return push_entry(p, &ent);
}
