/* hist_parse.c - reads the text of a tracefs `hist` file (runtime).
 *
 * In:  the bytes of events/<sys>/<event>/hist.
 * Out: struct hist_parse_file (hist_parse.h), or an error with a line.
 *
 * The kernel prints keys with fixed printf layouts but does not quote
 * strings: a string key is "%-50s", a comm "%-16s", and both may hold
 * ", " or " }".  So the parser does not tokenize: it takes the key and
 * value names from the trigger-info line and, for each key in order,
 * looks for the separator that must follow it (", NEXT:" past the
 * field's minimum printed width, or the closing brace, which is the last
 * " }" of the line since only numbers follow it).  A stacktrace key spans
 * lines: "stacktrace:" ends its line, one frame per line follows (9
 * blanks, "%pS"), and the entry goes on at a line starting with ", " (the
 * next key) or "}" (the values).
 *
 * Every string and array of the result lives in one arena freed by
 * hist_parse_free(); the per-trigger entry list grows in a malloc'ed
 * vector copied into the arena when the trigger ends.
 */
#include "hist_parse.h"

#include <ctype.h>
#include <errno.h>
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

/* Returns SIZE zeroed bytes owned by A, or NULL when out of memory. */
static void *arena_alloc(struct hist_parse_arena *a, size_t size)
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

static char *arena_strndup(struct hist_parse_arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	if (p)
		memcpy(p, s, n);
	return p;
}

static void arena_free(struct hist_parse_arena *a)
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

/* ---- parser state -------------------------------------------------------- */

struct parser {
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

/* Records the first error (line and message); returns -1. */
static int fail(struct parser *p, const char *fmt, ...)
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

static int oom(struct parser *p)
{
	return fail(p, "out of memory");
}

/* Reads the next line into p->buf.  Returns 1 with a line, 0 at the end
 * of the text, -1 on a line too long or holding a NUL byte. */
static int next_line(struct parser *p)
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
		return fail(p, "line longer than %d bytes", HIST_PARSE_MAX_LINE);
	if (memchr(s, '\0', n))
		return fail(p, "NUL byte in line");
	memcpy(p->buf, s, n);
	p->buf[n] = '\0';
	p->pos += n + (nl ? 1 : 0);
	p->have_line = 1;
	return 1;
}

static void consume(struct parser *p)
{
	p->have_line = 0;
}

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int blank(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	return *s == '\0';
}

/* [S, E) without leading/trailing blanks. */
static void trim(const char **s, const char **e)
{
	while (*s < *e && isspace((unsigned char)**s))
		(*s)++;
	while (*e > *s && isspace((unsigned char)(*e)[-1]))
		(*e)--;
}

/* Parses all of [S, E) (blanks around allowed) as a number in BASE. */
static int parse_u64(const char *s, const char *e, int base, uint64_t *out)
{
	trim(&s, &e);
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

/* ---- trigger-info line ----------------------------------------------------- */

/* Splits SPEC ("call_site.sym-offset", "count.buckets=10") into F. */
static int field_spec(struct parser *p, const char *s, size_t n, struct hist_parse_field *f)
{
	memset(f, 0, sizeof(*f));
	f->spec = arena_strndup(p->arena, s, n);
	if (!f->spec)
		return oom(p);
	const char *dot = memchr(s, '.', n);
	size_t base = dot ? (size_t)(dot - s) : n;
	f->name = arena_strndup(p->arena, s, base);
	if (!f->name)
		return oom(p);
	if (strcmp(f->name, "stacktrace") == 0 || strcmp(f->name, "common_stacktrace") == 0) {
		f->mod = HIST_PARSE_MOD_STACKTRACE;
		return 0;
	}
	if (!dot)
		return 0;
	const char *m = f->spec + base + 1;
	static const struct {
		const char *name;
		enum hist_parse_mod mod;
	} mods[] = {
		{"hex", HIST_PARSE_MOD_HEX},           {"sym", HIST_PARSE_MOD_SYM},
		{"sym-offset", HIST_PARSE_MOD_SYM_OFFSET}, {"syscall", HIST_PARSE_MOD_SYSCALL},
		{"execname", HIST_PARSE_MOD_EXECNAME}, {"log2", HIST_PARSE_MOD_LOG2},
		{"usecs", HIST_PARSE_MOD_USECS},       {"percent", HIST_PARSE_MOD_PERCENT},
		{"graph", HIST_PARSE_MOD_GRAPH},       {"stacktrace", HIST_PARSE_MOD_STACKTRACE},
	};
	f->mod = HIST_PARSE_MOD_OTHER;
	for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]); i++)
		if (strcmp(m, mods[i].name) == 0)
			f->mod = mods[i].mod;
	if (starts(m, "buckets=")) {
		const char *b = m + strlen("buckets=");
		if (parse_u64(b, b + strlen(b), 10, &f->buckets) < 0 || f->buckets == 0)
			return fail(p, "bad bucket size in '%s'", f->spec);
		f->mod = HIST_PARSE_MOD_BUCKETS;
	}
	if (f->mod == HIST_PARSE_MOD_STACKTRACE) {
		/* <field>.stacktrace (>= 6.3) is printed under its full spec. */
		f->name = f->spec;
	}
	return 0;
}

/* Splits a comma-separated LIST into fields (at most MAX). */
static int field_list(struct parser *p, const char *list, struct hist_parse_field *out,
		      size_t max, size_t *n, const char *what)
{
	*n = 0;
	const char *s = list;
	while (*s) {
		const char *c = strchr(s, ',');
		size_t len = c ? (size_t)(c - s) : strlen(s);
		if (len == 0)
			return fail(p, "empty %s field in trigger info", what);
		if (*n >= max)
			return fail(p, "more than %zu %s fields in trigger info", max, what);
		if (field_spec(p, s, len, &out[*n]) < 0)
			return -1;
		(*n)++;
		s += len + (c ? 1 : 0);
	}
	return 0;
}

/* The names inside "...save(a,b)" of a handler segment. */
static int save_names(struct parser *p, const char *seg)
{
	const char *s = strstr(seg, ".save(");
	if (!s || p->n_saves >= HIST_PARSE_MAX_TRACKS)
		return 0;
	s += strlen(".save(");
	const char *e = strchr(s, ')');
	if (!e)
		return fail(p, "unterminated save( in trigger info");
	const char **names = arena_alloc(p->arena, HIST_PARSE_MAX_SAVED * sizeof(*names));
	if (!names)
		return oom(p);
	size_t n = 0;
	while (s < e && n < HIST_PARSE_MAX_SAVED) {
		const char *c = memchr(s, ',', (size_t)(e - s));
		const char *end = c ? c : e;
		if (!(names[n++] = arena_strndup(p->arena, s, (size_t)(end - s))))
			return oom(p);
		s = end + 1;
	}
	p->save_names[p->n_saves] = names;
	p->save_count[p->n_saves++] = n;
	return 0;
}

/* One ':'-separated segment of the trigger text. */
static int info_segment(struct parser *p, char *seg, int first, size_t *nk, size_t *nv)
{
	struct hist_parse_trigger *t = p->t;
	if (starts(seg, "keys=") || starts(seg, "key="))
		return field_list(p, strchr(seg, '=') + 1, p->keys, HIST_PARSE_MAX_KEYS, nk, "key");
	if (starts(seg, "vals=") || starts(seg, "values=") || starts(seg, "val="))
		return field_list(p, strchr(seg, '=') + 1, p->vals, HIST_PARSE_MAX_VALS, nv, "value");
	if (starts(seg, "sort="))
		return (t->sort = arena_strndup(p->arena, seg + 5, strlen(seg + 5))) ? 0 : oom(p);
	if (starts(seg, "size="))
		return parse_u64(seg + 5, seg + strlen(seg), 10, &t->size) < 0
			       ? fail(p, "bad size in trigger info: '%s'", seg)
			       : 0;
	if (starts(seg, "onmax(") || starts(seg, "onchange("))
		return save_names(p, seg);
	if (first && !strchr(seg, '=') && !strchr(seg, '('))
		return (t->name = arena_strndup(p->arena, seg, strlen(seg))) ? 0 : oom(p);
	return 0; /* variables, clock=, onmatch(), pause ... */
}

/* "# trigger info: hist:keys=...:vals=... [ if FILTER] [active]" */
static int trigger_info(struct parser *p, const char *text)
{
	struct hist_parse_trigger *t = p->t;
	size_t n = strlen(text);
	if (n >= 9 && strcmp(text + n - 9, " [active]") == 0) {
		n -= 9;
	} else if (n >= 9 && strcmp(text + n - 9, " [paused]") == 0) {
		t->paused = 1;
		n -= 9;
	} else {
		return fail(p, "trigger info does not end in [active] or [paused]");
	}
	if (strncmp(text, "hist:", 5) != 0)
		return fail(p, "trigger info does not start with hist:");
	if (!(t->info = arena_strndup(p->arena, text, n)))
		return oom(p);
	char *s = arena_strndup(p->arena, text + 5, n - 5);
	if (!s)
		return oom(p);
	/* The filter is the text after the first " if " outside parentheses. */
	int depth = 0;
	size_t nk = 0, nv = 0;
	char *seg = s;
	int first = 1;
	for (char *c = s;; c++) {
		if (*c == '(')
			depth++;
		else if (*c == ')' && depth > 0)
			depth--;
		int filter = depth == 0 && strncmp(c, " if ", 4) == 0;
		if (*c == '\0' || filter || (*c == ':' && depth == 0)) {
			char end = *c;
			*c = '\0';
			if (info_segment(p, seg, first, &nk, &nv) < 0)
				return -1;
			first = 0;
			if (filter)
				t->filter = c + 4;
			if (end == '\0' || filter)
				break;
			seg = c + 1;
		}
	}
	if (nk == 0)
		return fail(p, "trigger info has no keys=");
	struct hist_parse_field *k = arena_alloc(p->arena, nk * sizeof(*k));
	struct hist_parse_field *v = arena_alloc(p->arena, (nv ? nv : 1) * sizeof(*v));
	if (!k || !v)
		return oom(p);
	memcpy(k, p->keys, nk * sizeof(*k));
	memcpy(v, p->vals, nv * sizeof(*v));
	t->keys = k;
	t->n_keys = nk;
	t->vals = v;
	t->n_vals = nv;
	return 0;
}

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
static int key_sym(struct parser *p, const char *s, const char *e, struct hist_parse_key *k)
{
	trim(&s, &e);
	const char *rb = s < e && *s == '[' ? memchr(s, ']', (size_t)(e - s)) : NULL;
	if (!rb || parse_u64(s + 1, rb, 16, &k->u) < 0)
		return fail(p, "bad .sym key '%.*s'", (int)(e - s), s);
	s = rb + 1;
	trim(&s, &e);
	k->str = arena_strndup(p->arena, s, (size_t)(e - s));
	return k->str ? 0 : oom(p);
}

/* "%-16s[%10llu]" (comm, pid) and "%-30s[%3llu]" (syscall name, nr). */
static int key_bracketed(struct parser *p, const char *s, const char *e, struct hist_parse_key *k)
{
	while (e > s && e[-1] == ' ')
		e--;
	const char *lb = NULL;
	for (const char *c = s; c < e; c++)
		if (*c == '[')
			lb = c;
	if (!lb || e[-1] != ']' || parse_u64(lb + 1, e - 1, 10, &k->u) < 0)
		return fail(p, "bad key '%.*s' (want NAME [NUMBER])", (int)(e - s), s);
	const char *ne = lb;
	while (ne > s && ne[-1] == ' ')
		ne--;
	k->str = arena_strndup(p->arena, s, (size_t)(ne - s));
	return k->str ? 0 : oom(p);
}

/* "~ 2^5 " and "~ 130-139" */
static int key_range(struct parser *p, const char *s, const char *e, enum hist_parse_mod mod,
		     struct hist_parse_key *k)
{
	trim(&s, &e);
	if (e - s < 2 || s[0] != '~' || s[1] != ' ')
		return fail(p, "bad bucket key '%.*s'", (int)(e - s), s);
	s += 2;
	if (mod == HIST_PARSE_MOD_LOG2) {
		if (e - s < 2 || s[0] != '2' || s[1] != '^' || parse_u64(s + 2, e, 10, &k->u) < 0)
			return fail(p, "bad .log2 key '%.*s'", (int)(e - s), s);
		k->hi = k->u < 64 ? (uint64_t)1 << k->u : UINT64_MAX;
		return 0;
	}
	const char *dash = memchr(s, '-', (size_t)(e - s));
	if (!dash || parse_u64(s, dash, 10, &k->u) < 0 || parse_u64(dash + 1, e, 10, &k->hi) < 0)
		return fail(p, "bad .buckets key '%.*s'", (int)(e - s), s);
	return 0;
}

/* The text [S, E) of a key printed under field F. */
static int key_text(struct parser *p, const struct hist_parse_field *f, const char *s,
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
		if (parse_u64(s, e, 16, &k->u) < 0)
			return fail(p, "bad .hex key '%.*s'", (int)(e - s), s);
		return 0;
	default:
		break;
	}
	if (!is_str)
		return parse_u64(s, e, 10, &k->u) < 0
			       ? fail(p, "bad number key '%.*s'", (int)(e - s), s)
			       : 0;
	/* "%-50s": the padding goes, and with it any trailing blank of the
	 * string itself (the kernel's output cannot tell them apart). */
	while (e > s && e[-1] == ' ')
		e--;
	k->kind = HIST_PARSE_STR;
	k->str = arena_strndup(p->arena, s, (size_t)(e - s));
	return k->str ? 0 : oom(p);
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
static int stack_frames(struct parser *p, struct hist_parse_key *k)
{
	const char *frames[HIST_PARSE_MAX_FRAMES];
	size_t n = 0;
	k->kind = HIST_PARSE_STACK;
	for (;;) {
		consume(p);
		int r = next_line(p);
		if (r < 0)
			return -1;
		if (r == 0)
			return fail(p, "truncated stacktrace key (end of text)");
		if (p->buf[0] == ',' || p->buf[0] == '}')
			break;
		if (p->buf[0] != ' ')
			return fail(p, "bad stacktrace frame line");
		const char *s = p->buf, *e = s + strlen(s);
		trim(&s, &e);
		if (n >= HIST_PARSE_MAX_FRAMES)
			return fail(p, "more than %d stacktrace frames", HIST_PARSE_MAX_FRAMES);
		if (!(frames[n++] = arena_strndup(p->arena, s, (size_t)(e - s))))
			return oom(p);
	}
	const char **f = arena_alloc(p->arena, (n ? n : 1) * sizeof(*f));
	if (!f)
		return oom(p);
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
static int entry_values(struct parser *p, const char *s, uint64_t *vals, unsigned char *shown)
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
					return fail(p, "bad .graph value of %s", f->name);
			vals[j] = bars;
		} else if (f->mod == HIST_PARSE_MOD_PERCENT) {
			const char *dot = memchr(b, '.', (size_t)(e - b));
			uint64_t whole, frac;
			if (!dot || parse_u64(b, dot, 10, &whole) < 0 || parse_u64(dot + 1, e, 10, &frac) < 0 ||
			    frac > 99 || whole > UINT64_MAX / 100 - 1)
				return fail(p, "bad .percent value of %s", f->name);
			vals[j] = whole * 100 + frac;
		} else if (parse_u64(b, e, f->mod == HIST_PARSE_MOD_HEX ? 16 : 10, &vals[j]) < 0) {
			return fail(p, "bad value of %s: '%.*s'", f->name, (int)(e - b), b);
		}
	}
	if (!any && t->n_vals > 0)
		return fail(p, "entry shows none of the trigger's values");
	return 0;
}

static int push_entry(struct parser *p, const struct hist_parse_entry *e)
{
	if (p->n_ents == p->cap_ents) {
		size_t cap = p->cap_ents ? 2 * p->cap_ents : 64;
		struct hist_parse_entry *v = realloc(p->ents, cap * sizeof(*v));
		if (!v)
			return oom(p);
		p->ents = v;
		p->cap_ents = cap;
	}
	p->ents[p->n_ents++] = *e;
	return 0;
}

/* One entry, starting at the "{ " line in p->buf (consumed). */
static int entry(struct parser *p)
{
	const struct hist_parse_trigger *t = p->t;
	struct hist_parse_entry ent = {.line = p->lineno};
	struct hist_parse_key *keys = arena_alloc(p->arena, t->n_keys * sizeof(*keys));
	uint64_t *vals = arena_alloc(p->arena, (t->n_vals ? t->n_vals : 1) * sizeof(*vals));
	unsigned char *shown = arena_alloc(p->arena, t->n_vals ? t->n_vals : 1);
	if (!keys || !vals || !shown)
		return oom(p);
	const char *s = p->buf + 1;
	if (*s == ' ')
		s++;
	int multiline = 0;
	for (size_t i = 0; i < t->n_keys; i++) {
		const struct hist_parse_field *f = &t->keys[i];
		if (i > 0) {
			if (strncmp(s, ", ", 2) != 0)
				return fail(p, "expected ', %s:' in entry", f->name);
			s += 2;
		}
		const char *v = key_label(f, s);
		if (!v)
			return fail(p, "expected key '%s:' in entry", f->name);
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
			return fail(p, "no end of key '%s' in entry", f->name);
		if (key_text(p, f, v, e, is_str, &keys[i]) < 0)
			return -1;
		s = e;
	}
	const char *close = multiline ? "}" : " }";
	if (strncmp(s, close, strlen(close)) != 0)
		return fail(p, "expected '}' after the keys");
	s += strlen(close);
	if (entry_values(p, s, vals, shown) < 0)
		return -1;
	consume(p);
	ent.keys = keys;
	ent.vals = vals;
	ent.shown = shown;
	return push_entry(p, &ent);
}

/* Parses "NAME: VALUE" pairs of a track line against the save() names
 * NAMES (N of them); VALUE is a number or a "%-32s" string. */
static int track_saved(struct parser *p, const char *s, const char **names, size_t n,
		       struct hist_parse_track *tr)
{
	struct hist_parse_saved *sv = arena_alloc(p->arena, (n ? n : 1) * sizeof(*sv));
	if (!sv)
		return oom(p);
	const char *at[HIST_PARSE_MAX_SAVED], *vb[HIST_PARSE_MAX_SAVED];
	char pat[300];
	const char *c = s;
	for (size_t j = 0; j < n; j++) {
		snprintf(pat, sizeof(pat), "  %s: ", names[j]);
		at[j] = strstr(c, pat);
		if (!at[j])
			return fail(p, "saved variable '%s' missing", names[j]);
		vb[j] = at[j] + strlen(pat);
		c = vb[j];
	}
	for (size_t j = 0; j < n; j++) {
		const char *b = vb[j], *e = j + 1 < n ? at[j + 1] : s + strlen(s);
		sv[j].name = names[j];
		if (parse_u64(b, e, 10, &sv[j].u) < 0) {
			while (e > b && e[-1] == ' ')
				e--;
			sv[j].is_str = 1;
			if (!(sv[j].str = arena_strndup(p->arena, b, (size_t)(e - b))))
				return oom(p);
		}
	}
	tr->saved = sv;
	tr->n_saved = n;
	return 0;
}

/* "\tmax: N  a: V" / "\tchanged: N ..." after an entry. */
static int track_line(struct parser *p)
{
	if (p->n_ents == 0)
		return fail(p, "handler line before any entry");
	struct hist_parse_entry *ent = &p->ents[p->n_ents - 1];
	if (ent->n_tracks >= HIST_PARSE_MAX_TRACKS)
		return fail(p, "more than %d handler lines for one entry", HIST_PARSE_MAX_TRACKS);
	const char *s = p->buf + 1;
	struct hist_parse_track tr = {0};
	if (starts(s, "max:")) {
		s += 4;
	} else if (starts(s, "changed:")) {
		tr.changed = 1;
		s += 8;
	} else {
		return fail(p, "bad handler line (want max: or changed:)");
	}
	/* The tracked value ends where the first saved variable starts. */
	size_t idx = ent->n_tracks;
	int saves = idx < p->n_saves && p->save_count[idx] > 0;
	const char *ve = s + strlen(s);
	if (saves) {
		char pat[300];
		snprintf(pat, sizeof(pat), "  %s: ", p->save_names[idx][0]);
		if (!(ve = strstr(s, pat)))
			return fail(p, "saved variable '%s' missing", p->save_names[idx][0]);
	}
	if (parse_u64(s, ve, 10, &tr.value) < 0)
		return fail(p, "bad tracked value");
	if (saves && track_saved(p, ve, p->save_names[idx], p->save_count[idx], &tr) < 0)
		return -1;
	struct hist_parse_track *v = arena_alloc(p->arena, (idx + 1) * sizeof(*v));
	if (!v)
		return oom(p);
	if (idx)
		memcpy(v, ent->tracks, idx * sizeof(*v));
	v[idx] = tr;
	ent->tracks = v;
	ent->n_tracks = idx + 1;
	consume(p);
	return 0;
}

/* "Snapshot taken (see tracing/snapshot).  Details:" and the line(s) with
 * "triggering value { onmax($x) }: N" and "triggered by event with key: {...}". */
static int snapshot_block(struct parser *p)
{
	struct hist_parse_trigger *t = p->t;
	t->has_snapshot = 1;
	consume(p);
	for (int lines = 0; lines < 2; lines++) {
		int r = next_line(p);
		if (r < 0)
			return -1;
		if (r == 0 || p->buf[0] != '\t')
			break;
		const char *v = strstr(p->buf, "triggering value {");
		if (v) {
			const char *c = strstr(v, "}: ");
			const char *e = c ? strchr(c + 3, '\t') : NULL;
			if (!c || parse_u64(c + 3, e ? e : c + strlen(c), 10, &t->snapshot_value) < 0)
				return fail(p, "bad snapshot triggering value");
		}
		const char *k = strstr(p->buf, "triggered by event with key: ");
		if (k) {
			k += strlen("triggered by event with key: ");
			if (!(t->snapshot_key = arena_strndup(p->arena, k, strlen(k))))
				return oom(p);
		}
		if (!v && !k)
			return fail(p, "bad snapshot details line");
		consume(p);
		if (t->snapshot_key)
			break;
	}
	return 0;
}

/* "Totals:" then "    Hits: N", "    Entries: N", "    Dropped: N". */
static int totals(struct parser *p)
{
	struct hist_parse_trigger *t = p->t;
	t->has_totals = 1;
	consume(p);
	int seen = 0;
	for (;;) {
		int r = next_line(p);
		if (r < 0)
			return -1;
		if (r == 0 || !starts(p->buf, "    "))
			break;
		const char *s = p->buf + 4;
		uint64_t *dst = starts(s, "Hits: ")      ? &t->hits
				: starts(s, "Entries: ") ? &t->total_entries
				: starts(s, "Dropped: ") ? &t->dropped
							 : NULL;
		if (!dst)
			return fail(p, "unknown line in Totals");
		const char *c = strchr(s, ':') + 1;
		if (parse_u64(c, c + strlen(c), 10, dst) < 0)
			return fail(p, "bad number in Totals");
		seen++;
		consume(p);
	}
	if (seen == 0)
		return fail(p, "empty Totals");
	if (t->total_entries != p->n_ents)
		return fail(p, "Totals say %llu entries, the table has %zu",
			    (unsigned long long)t->total_entries, p->n_ents);
	return 0;
}

/* The header lines after "# event histogram", up to the blank line. */
static int header(struct parser *p)
{
	consume(p);
	for (;;) {
		int r = next_line(p);
		if (r < 0)
			return -1;
		if (r == 0 || p->buf[0] != '#')
			break;
		if (starts(p->buf, "# trigger info: ")) {
			if (p->t->info)
				return fail(p, "second trigger info line");
			if (trigger_info(p, p->buf + strlen("# trigger info: ")) < 0)
				return -1;
		}
		consume(p);
	}
	if (!p->t->info)
		return fail(p, "hist header without a trigger info line");
	return 0;
}

/* One trigger, from "# event histogram" (in p->buf) to its Totals. */
static int trigger(struct parser *p, struct hist_parse_trigger *t)
{
	memset(t, 0, sizeof(*t));
	t->line = p->lineno;
	p->t = t;
	p->n_ents = 0;
	p->n_saves = 0;
	if (header(p) < 0)
		return -1;
	for (;;) {
		int r = next_line(p);
		if (r < 0)
			return -1;
		if (r == 0)
			return fail(p, "truncated hist: no Totals");
		if (p->buf[0] == '{') {
			if (entry(p) < 0)
				return -1;
		} else if (p->buf[0] == '\t') {
			if (track_line(p) < 0)
				return -1;
		} else if (blank(p->buf)) {
			consume(p);
		} else if (starts(p->buf, "Snapshot taken")) {
			if (snapshot_block(p) < 0)
				return -1;
		} else if (strcmp(p->buf, "Totals:") == 0) {
			if (totals(p) < 0)
				return -1;
			break;
		} else {
			return fail(p, "unexpected line in hist table");
		}
	}
	struct hist_parse_entry *e = arena_alloc(p->arena, (p->n_ents ? p->n_ents : 1) * sizeof(*e));
	if (!e)
		return oom(p);
	memcpy(e, p->ents, p->n_ents * sizeof(*e));
	t->entries = e;
	t->n_entries = p->n_ents;
	return 0;
}

static int parse_all(struct parser *p, struct hist_parse_file *f)
{
	struct hist_parse_trigger *ts = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	for (;;) {
		int r = next_line(p);
		if (r <= 0) {
			rc = r;
			break;
		}
		if (blank(p->buf)) {
			consume(p);
			continue;
		}
		if (strcmp(p->buf, "# event histogram") != 0) {
			rc = fail(p, "expected '# event histogram'");
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 4;
			struct hist_parse_trigger *v = realloc(ts, cap * sizeof(*v));
			if (!v) {
				rc = oom(p);
				break;
			}
			ts = v;
		}
		if ((rc = trigger(p, &ts[n])) < 0)
			break;
		n++;
	}
	if (rc == 0) {
		struct hist_parse_trigger *a = arena_alloc(p->arena, (n ? n : 1) * sizeof(*a));
		if (!a)
			rc = oom(p);
		else if (n)
			memcpy(a, ts, n * sizeof(*a));
		f->triggers = a;
		f->n_triggers = n;
	}
	free(ts);
	return rc;
}

int hist_parse_text(const char *text, size_t len, struct hist_parse_file **out,
		    struct hist_parse_error *err)
{
	struct hist_parse_error dummy;
	if (!err)
		err = &dummy;
	memset(err, 0, sizeof(*err));
	*out = NULL;
	struct parser p = {.text = text, .len = len, .err = err};
	if (len > HIST_PARSE_MAX_INPUT)
		return fail(&p, "hist text larger than %u bytes", HIST_PARSE_MAX_INPUT);
	struct hist_parse_file *f = calloc(1, sizeof(*f));
	p.arena = calloc(1, sizeof(*p.arena));
	p.buf = malloc(HIST_PARSE_MAX_LINE + 1);
	int rc = (!f || !p.arena || !p.buf) ? oom(&p) : parse_all(&p, f);
	free(p.buf);
	free(p.ents);
	if (rc < 0) {
		arena_free(p.arena);
		free(f);
		return -1;
	}
	f->arena = p.arena;
	*out = f;
	return 0;
}

void hist_parse_free(struct hist_parse_file *f)
{
	if (!f)
		return;
	arena_free(f->arena);
	free(f);
}

int hist_parse_key_index(const struct hist_parse_trigger *t, const char *name)
{
	for (size_t i = 0; i < t->n_keys; i++)
		if (strcmp(t->keys[i].name, name) == 0)
			return (int)i;
	return -1;
}

int hist_parse_val_index(const struct hist_parse_trigger *t, const char *name)
{
	for (size_t i = 0; i < t->n_vals; i++)
		if (strcmp(t->vals[i].name, name) == 0)
			return (int)i;
	return -1;
}
