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
 *
 * This file reads the file's structure (triggers, their info line,
 * handler lines, snapshot and totals); hist_keys.c reads an entry's keys
 * and values, hist_text.c holds the arena, line reader and number parser.
 */
#include "hist_parse_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- trigger-info line ----------------------------------------------------- */

/* Splits SPEC ("call_site.sym-offset", "count.buckets=10") into F. */
static int field_spec(struct hist_parser *p, const char *s, size_t n, struct hist_parse_field *f)
{
	memset(f, 0, sizeof(*f));
	f->spec = hist_strndup(p->arena, s, n);
	if (!f->spec)
		return hist_oom(p);
	const char *dot = memchr(s, '.', n);
	size_t base = dot ? (size_t)(dot - s) : n;
	f->name = hist_strndup(p->arena, s, base);
	if (!f->name)
		return hist_oom(p);
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
	if (hist_starts(m, "buckets=")) {
		const char *b = m + strlen("buckets=");
		if (hist_u64(b, b + strlen(b), 10, &f->buckets) < 0 || f->buckets == 0)
			return hist_fail(p, "bad bucket size in '%s'", f->spec);
		f->mod = HIST_PARSE_MOD_BUCKETS;
	}
	if (f->mod == HIST_PARSE_MOD_STACKTRACE) {
		/* <field>.stacktrace (>= 6.3) is printed under its full spec. */
		f->name = f->spec;
	}
	return 0;
}

/* Splits a comma-separated LIST into fields (at most MAX). */
static int field_list(struct hist_parser *p, const char *list, struct hist_parse_field *out,
		      size_t max, size_t *n, const char *what)
{
	*n = 0;
	const char *s = list;
	while (*s) {
		const char *c = strchr(s, ',');
		size_t len = c ? (size_t)(c - s) : strlen(s);
		if (len == 0)
			return hist_fail(p, "empty %s field in trigger info", what);
		if (*n >= max)
			return hist_fail(p, "more than %zu %s fields in trigger info", max, what);
		if (field_spec(p, s, len, &out[*n]) < 0)
			return -1;
		(*n)++;
		s += len + (c ? 1 : 0);
	}
	return 0;
}

/* The names inside "...save(a,b)" of a handler segment. */
static int save_names(struct hist_parser *p, const char *seg)
{
	const char *s = strstr(seg, ".save(");
	if (!s || p->n_saves >= HIST_PARSE_MAX_TRACKS)
		return 0;
	s += strlen(".save(");
	const char *e = strchr(s, ')');
	if (!e)
		return hist_fail(p, "unterminated save( in trigger info");
	const char **names = hist_alloc(p->arena, HIST_PARSE_MAX_SAVED * sizeof(*names));
	if (!names)
		return hist_oom(p);
	size_t n = 0;
	while (s < e && n < HIST_PARSE_MAX_SAVED) {
		const char *c = memchr(s, ',', (size_t)(e - s));
		const char *end = c ? c : e;
		if (!(names[n++] = hist_strndup(p->arena, s, (size_t)(end - s))))
			return hist_oom(p);
		s = end + 1;
	}
	p->save_names[p->n_saves] = names;
	p->save_count[p->n_saves++] = n;
	return 0;
}

/* One ':'-separated segment of the trigger text. */
static int info_segment(struct hist_parser *p, char *seg, int first, size_t *nk, size_t *nv)
{
	struct hist_parse_trigger *t = p->t;
	if (hist_starts(seg, "keys=") || hist_starts(seg, "key="))
		return field_list(p, strchr(seg, '=') + 1, p->keys, HIST_PARSE_MAX_KEYS, nk, "key");
	if (hist_starts(seg, "vals=") || hist_starts(seg, "values=") || hist_starts(seg, "val="))
		return field_list(p, strchr(seg, '=') + 1, p->vals, HIST_PARSE_MAX_VALS, nv, "value");
	if (hist_starts(seg, "sort="))
		return (t->sort = hist_strndup(p->arena, seg + 5, strlen(seg + 5))) ? 0 : hist_oom(p);
	if (hist_starts(seg, "size="))
		return hist_u64(seg + 5, seg + strlen(seg), 10, &t->size) < 0
			       ? hist_fail(p, "bad size in trigger info: '%s'", seg)
			       : 0;
	if (hist_starts(seg, "onmax(") || hist_starts(seg, "onchange("))
		return save_names(p, seg);
	if (first && !strchr(seg, '=') && !strchr(seg, '('))
		return (t->name = hist_strndup(p->arena, seg, strlen(seg))) ? 0 : hist_oom(p);
	return 0; /* variables, clock=, onmatch(), pause ... */
}

/* "# trigger info: hist:keys=...:vals=... [ if FILTER] [active]" */
static int trigger_info(struct hist_parser *p, const char *text)
{
	struct hist_parse_trigger *t = p->t;
	size_t n = strlen(text);
	if (n >= 9 && strcmp(text + n - 9, " [active]") == 0) {
		n -= 9;
	} else if (n >= 9 && strcmp(text + n - 9, " [paused]") == 0) {
		t->paused = 1;
		n -= 9;
	} else {
		return hist_fail(p, "trigger info does not end in [active] or [paused]");
	}
	if (strncmp(text, "hist:", 5) != 0)
		return hist_fail(p, "trigger info does not start with hist:");
	if (!(t->info = hist_strndup(p->arena, text, n)))
		return hist_oom(p);
	char *s = hist_strndup(p->arena, text + 5, n - 5);
	if (!s)
		return hist_oom(p);
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
		return hist_fail(p, "trigger info has no keys=");
	struct hist_parse_field *k = hist_alloc(p->arena, nk * sizeof(*k));
	struct hist_parse_field *v = hist_alloc(p->arena, (nv ? nv : 1) * sizeof(*v));
	if (!k || !v)
		return hist_oom(p);
	memcpy(k, p->keys, nk * sizeof(*k));
	memcpy(v, p->vals, nv * sizeof(*v));
	t->keys = k;
	t->n_keys = nk;
	t->vals = v;
	t->n_vals = nv;
	return 0;
}

/* Parses "NAME: VALUE" pairs of a track line against the save() names
 * NAMES (N of them); VALUE is a number or a "%-32s" string. */
static int track_saved(struct hist_parser *p, const char *s, const char **names, size_t n,
		       struct hist_parse_track *tr)
{
	struct hist_parse_saved *sv = hist_alloc(p->arena, (n ? n : 1) * sizeof(*sv));
	if (!sv)
		return hist_oom(p);
	const char *at[HIST_PARSE_MAX_SAVED], *vb[HIST_PARSE_MAX_SAVED];
	char pat[300];
	const char *c = s;
	for (size_t j = 0; j < n; j++) {
		snprintf(pat, sizeof(pat), "  %s: ", names[j]);
		at[j] = strstr(c, pat);
		if (!at[j])
			return hist_fail(p, "saved variable '%s' missing", names[j]);
		vb[j] = at[j] + strlen(pat);
		c = vb[j];
	}
	for (size_t j = 0; j < n; j++) {
		const char *b = vb[j], *e = j + 1 < n ? at[j + 1] : s + strlen(s);
		sv[j].name = names[j];
		if (hist_u64(b, e, 10, &sv[j].u) < 0) {
			while (e > b && e[-1] == ' ')
				e--;
			sv[j].is_str = 1;
			if (!(sv[j].str = hist_strndup(p->arena, b, (size_t)(e - b))))
				return hist_oom(p);
		}
	}
	tr->saved = sv;
	tr->n_saved = n;
	return 0;
}

/* "\tmax: N  a: V" / "\tchanged: N ..." after an entry. */
static int track_line(struct hist_parser *p)
{
	if (p->n_ents == 0)
		return hist_fail(p, "handler line before any entry");
	struct hist_parse_entry *ent = &p->ents[p->n_ents - 1];
	if (ent->n_tracks >= HIST_PARSE_MAX_TRACKS)
		return hist_fail(p, "more than %d handler lines for one entry", HIST_PARSE_MAX_TRACKS);
	const char *s = p->buf + 1;
	struct hist_parse_track tr = {0};
	if (hist_starts(s, "max:")) {
		s += 4;
	} else if (hist_starts(s, "changed:")) {
		tr.changed = 1;
		s += 8;
	} else {
		return hist_fail(p, "bad handler line (want max: or changed:)");
	}
	/* The tracked value ends where the first saved variable starts. */
	size_t idx = ent->n_tracks;
	int saves = idx < p->n_saves && p->save_count[idx] > 0;
	const char *ve = s + strlen(s);
	if (saves) {
		char pat[300];
		snprintf(pat, sizeof(pat), "  %s: ", p->save_names[idx][0]);
		if (!(ve = strstr(s, pat)))
			return hist_fail(p, "saved variable '%s' missing", p->save_names[idx][0]);
	}
	if (hist_u64(s, ve, 10, &tr.value) < 0)
		return hist_fail(p, "bad tracked value");
	if (saves && track_saved(p, ve, p->save_names[idx], p->save_count[idx], &tr) < 0)
		return -1;
	struct hist_parse_track *v = hist_alloc(p->arena, (idx + 1) * sizeof(*v));
	if (!v)
		return hist_oom(p);
	if (idx)
		memcpy(v, ent->tracks, idx * sizeof(*v));
	v[idx] = tr;
	ent->tracks = v;
	ent->n_tracks = idx + 1;
	hist_consume(p);
	return 0;
}

/* "Snapshot taken (see tracing/snapshot).  Details:" and the line(s) with
 * "triggering value { onmax($x) }: N" and "triggered by event with key: {...}". */
static int snapshot_block(struct hist_parser *p)
{
	struct hist_parse_trigger *t = p->t;
	t->has_snapshot = 1;
	hist_consume(p);
	for (int lines = 0; lines < 2; lines++) {
		int r = hist_next_line(p);
		if (r < 0)
			return -1;
		if (r == 0 || p->buf[0] != '\t')
			break;
		const char *v = strstr(p->buf, "triggering value {");
		if (v) {
			const char *c = strstr(v, "}: ");
			const char *e = c ? strchr(c + 3, '\t') : NULL;
			if (!c || hist_u64(c + 3, e ? e : c + strlen(c), 10, &t->snapshot_value) < 0)
				return hist_fail(p, "bad snapshot triggering value");
		}
		const char *k = strstr(p->buf, "triggered by event with key: ");
		if (k) {
			k += strlen("triggered by event with key: ");
			if (!(t->snapshot_key = hist_strndup(p->arena, k, strlen(k))))
				return hist_oom(p);
		}
		if (!v && !k)
			return hist_fail(p, "bad snapshot details line");
		hist_consume(p);
		if (t->snapshot_key)
			break;
	}
	return 0;
}

/* "Totals:" then "    Hits: N", "    Entries: N", "    Dropped: N". */
static int totals(struct hist_parser *p)
{
	struct hist_parse_trigger *t = p->t;
	t->has_totals = 1;
	hist_consume(p);
	int seen = 0;
	for (;;) {
		int r = hist_next_line(p);
		if (r < 0)
			return -1;
		if (r == 0 || !hist_starts(p->buf, "    "))
			break;
		const char *s = p->buf + 4;
		uint64_t *dst = hist_starts(s, "Hits: ")      ? &t->hits
				: hist_starts(s, "Entries: ") ? &t->total_entries
				: hist_starts(s, "Dropped: ") ? &t->dropped
							 : NULL;
		if (!dst)
			return hist_fail(p, "unknown line in Totals");
		const char *c = strchr(s, ':') + 1;
		if (hist_u64(c, c + strlen(c), 10, dst) < 0)
			return hist_fail(p, "bad number in Totals");
		seen++;
		hist_consume(p);
	}
	if (seen == 0)
		return hist_fail(p, "empty Totals");
	if (t->total_entries != p->n_ents)
		return hist_fail(p, "Totals say %llu entries, the table has %zu",
			    (unsigned long long)t->total_entries, p->n_ents);
	return 0;
}

/* The header lines after "# event histogram", up to the blank line. */
static int header(struct hist_parser *p)
{
	hist_consume(p);
	for (;;) {
		int r = hist_next_line(p);
		if (r < 0)
			return -1;
		if (r == 0 || p->buf[0] != '#')
			break;
		if (hist_starts(p->buf, "# trigger info: ")) {
			if (p->t->info)
				return hist_fail(p, "second trigger info line");
			if (trigger_info(p, p->buf + strlen("# trigger info: ")) < 0)
				return -1;
		}
		hist_consume(p);
	}
	if (!p->t->info)
		return hist_fail(p, "hist header without a trigger info line");
	return 0;
}

/* One trigger, from "# event histogram" (in p->buf) to its Totals. */
static int trigger(struct hist_parser *p, struct hist_parse_trigger *t)
{
	memset(t, 0, sizeof(*t));
	t->line = p->lineno;
	p->t = t;
	p->n_ents = 0;
	p->n_saves = 0;
	if (header(p) < 0)
		return -1;
	for (;;) {
		int r = hist_next_line(p);
		if (r < 0)
			return -1;
		if (r == 0)
			return hist_fail(p, "truncated hist: no Totals");
		if (p->buf[0] == '{') {
			if (hist_entry(p) < 0)
				return -1;
		} else if (p->buf[0] == '\t') {
			if (track_line(p) < 0)
				return -1;
		} else if (hist_blank(p->buf)) {
			hist_consume(p);
		} else if (hist_starts(p->buf, "Snapshot taken")) {
			if (snapshot_block(p) < 0)
				return -1;
		} else if (strcmp(p->buf, "Totals:") == 0) {
			if (totals(p) < 0)
				return -1;
			break;
		} else {
			return hist_fail(p, "unexpected line in hist table");
		}
	}
	struct hist_parse_entry *e = hist_alloc(p->arena, (p->n_ents ? p->n_ents : 1) * sizeof(*e));
	if (!e)
		return hist_oom(p);
	memcpy(e, p->ents, p->n_ents * sizeof(*e));
	t->entries = e;
	t->n_entries = p->n_ents;
	return 0;
}

static int parse_all(struct hist_parser *p, struct hist_parse_file *f)
{
	struct hist_parse_trigger *ts = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	for (;;) {
		int r = hist_next_line(p);
		if (r <= 0) {
			rc = r;
			break;
		}
		if (hist_blank(p->buf)) {
			hist_consume(p);
			continue;
		}
		if (strcmp(p->buf, "# event histogram") != 0) {
			rc = hist_fail(p, "expected '# event histogram'");
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 4;
			struct hist_parse_trigger *v = realloc(ts, cap * sizeof(*v));
			if (!v) {
				rc = hist_oom(p);
				break;
			}
			ts = v;
		}
		if ((rc = trigger(p, &ts[n])) < 0)
			break;
		n++;
	}
	if (rc == 0) {
		struct hist_parse_trigger *a = hist_alloc(p->arena, (n ? n : 1) * sizeof(*a));
		if (!a)
			rc = hist_oom(p);
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
	struct hist_parser p = {.text = text, .len = len, .err = err};
	if (len > HIST_PARSE_MAX_INPUT)
		return hist_fail(&p, "hist text larger than %u bytes", HIST_PARSE_MAX_INPUT);
	struct hist_parse_file *f = calloc(1, sizeof(*f));
	p.arena = hist_arena_new();
	p.buf = malloc(HIST_PARSE_MAX_LINE + 1);
	int rc = (!f || !p.arena || !p.buf) ? hist_oom(&p) : parse_all(&p, f);
	free(p.buf);
	free(p.ents);
	if (rc < 0) {
		hist_arena_free(p.arena);
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
	hist_arena_free(f->arena);
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
