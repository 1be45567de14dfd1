/*
 * diag.c - rendering of compiler diagnostics (see diag.h), and the table
 * of their stable codes (diag.def).
 */
#include "diag.h"

#include <stdarg.h>
#include <string.h>

/*
 * gcc's default GCC_COLORS: the location bold, "error:" bold red,
 * "warning:" bold magenta, "note:" bold cyan, the caret line green.  Each
 * start is closed by DIAG_SGR_END; "\33[K" (erase to end of line) is
 * what gcc adds so a background colour never bleeds past a line break.
 */
#define DIAG_SGR(codes) "\33[" codes "m\33[K"
#define DIAG_SGR_END DIAG_SGR("")
static const char *const diag_level_colors[] = {
	[DIAG_ERROR] = DIAG_SGR("01;31"),
	[DIAG_WARNING] = DIAG_SGR("01;35"),
	[DIAG_NOTE] = DIAG_SGR("01;36"),
};

/* @sgr when colours are on, else "" (for the "%s" around a part). */
static const char *diag_sgr(const struct diag_sink *d, const char *sgr)
{
	return d->color ? sgr : "";
}

static const char *const diag_level_names[] = {
	[DIAG_ERROR] = "error",
	[DIAG_WARNING] = "warning",
	[DIAG_NOTE] = "note",
};

struct diag_entry {
	const char *code;
	const char *name;
	const char *fmt;
};

static const struct diag_entry diag_table[] = {
#define DIAG(code, name, fmt) { #code, #name, fmt },
#define DIAG_ONCE(code, kind)
#include "diag.def"
#undef DIAG_ONCE
#undef DIAG
};

/* The DIAG_ONCE kinds: an error of one is said once per run. */
static const struct diag_once {
	const char *code;
	const char *kind;
} diag_once_table[] = {
#define DIAG(code, name, fmt)
#define DIAG_ONCE(code, kind) { #code, #kind },
#include "diag.def"
#undef DIAG_ONCE
#undef DIAG
};

/* A linear search: it runs once per error said (its DIAG_ONCE kind), and
   per message with --diag-codes. */
const char *diag_code(const char *fmt, const char **name)
{
	size_t i;

	for (i = 0; fmt && i < sizeof(diag_table) / sizeof(diag_table[0]); i++) {
		if (strcmp(diag_table[i].fmt, fmt) == 0) {
			if (name)
				*name = diag_table[i].name;
			return diag_table[i].code;
		}
	}
	return NULL;
}

/* The DIAG_ONCE kind of the error whose format is @fmt, or NULL. */
static const char *diag_once_kind(const char *fmt)
{
	const char *code = diag_code(fmt, NULL);
	size_t i;

	for (i = 0; code && i < sizeof(diag_once_table) / sizeof(diag_once_table[0]); i++)
		if (strcmp(diag_once_table[i].code, code) == 0)
			return diag_once_table[i].kind;
	return NULL;
}

/* FNV-1a of @s, with @seed folded in first. */
static uint64_t diag_hash(const char *seed, const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *seed; seed++)
		h = (h ^ (unsigned char)*seed) * 1099511628211ull;
	for (h = (h ^ 0xff) * 1099511628211ull; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/*
 * Whether @key was said before; remember it if not.  Past the table's
 * size nothing more is remembered (the error limit stops before).
 */
static bool diag_said(struct diag_sink *d, uint64_t key)
{
	unsigned i;

	for (i = 0; i < d->nsaid; i++)
		if (d->said[i] == key)
			return true;
	if (d->nsaid < sizeof(d->said) / sizeof(d->said[0]))
		d->said[d->nsaid++] = key;
	return false;
}

/* @at as a key of the place: @buf (64 bytes). */
static const char *diag_place(struct src_span at, char *buf)
{
	snprintf(buf, 64, "%u:%u:%u:%u", at.file, at.start, at.end, at.exp);
	return buf;
}

/*
 * Whether the error @msg (of format @fmt) at @at repeats one said before:
 * another of a DIAG_ONCE kind already said; a composed message (a probe
 * point's resolution error, met again under each point of a tapset probe)
 * said anywhere; any other said at the same place (the same expression
 * typed twice: a function called from two probes, a probe expanded to
 * many points).
 */
static bool diag_repeated(struct diag_sink *d, const char *fmt,
			  struct src_span at, const char *msg)
{
	const char *kind = d->all_errors ? NULL : diag_once_kind(fmt);
	char where[64];

	if (kind && diag_said(d, diag_hash("kind:", kind))) {
		d->unsaid++;
		return true;
	}
	if (kind)
		return false;
	if (strcmp(fmt, "%s") == 0)
		return diag_said(d, diag_hash("text:", msg));
	return diag_said(d, diag_hash(diag_place(at, where), msg));
}

void diag_init(struct diag_sink *d, const struct src_map *src, FILE *out)
{
	memset(d, 0, sizeof(*d));
	d->src = src;
	d->out = out;
	d->max_errors = 50;
}

/* Print the source line of @at with a caret and tildes under the span. */
static void diag_show_line(struct diag_sink *d, struct src_span at,
			   unsigned line, unsigned col)
{
	size_t len, i, width;
	const char *text = src_line_text(d->src, at.file, line, &len);
	int gutter;

	gutter = fprintf(d->out, " %5u | ", line) - 2;
	for (i = 0; i < len; i++)
		fputc(text[i] == '\t' ? ' ' : text[i], d->out);
	fprintf(d->out, "\n%*s| ", gutter, "");
	for (i = 1; i < col; i++)
		fputc(' ', d->out);
	fputs(diag_sgr(d, DIAG_SGR("01;32")), d->out);
	fputc('^', d->out);
	/* Underline the rest of the span, but not past the end of the line. */
	width = at.end > at.start ? at.end - at.start : 1;
	for (i = 1; i < width && col - 1 + i < len; i++)
		fputc('~', d->out);
	fprintf(d->out, "%s\n", diag_sgr(d, DIAG_SGR_END));
}

/* "error", or "error[E0123]" when @code is set. */
static const char *diag_level_text(enum diag_level level, const char *code,
				   char *buf, size_t size)
{
	if (!code)
		return diag_level_names[level];
	snprintf(buf, size, "%s[%s]", diag_level_names[level], code);
	return buf;
}

static void diag_emit(struct diag_sink *d, enum diag_level level,
		      const char *code, struct src_span at, const char *msg)
{
	const struct src_file *f = src_file(d->src, at.file);
	const char *on = diag_sgr(d, diag_level_colors[level]);
	const char *bold = diag_sgr(d, DIAG_SGR("01"));
	const char *off = diag_sgr(d, DIAG_SGR_END);
	const char *lv;
	unsigned line, col;
	char buf[32];

	lv = diag_level_text(level, code, buf, sizeof(buf));
	if (!f) {
		fprintf(d->out, "%sktap:%s %s%s:%s %s\n", bold, off, on, lv, off, msg);
		return;
	}
	src_linecol(d->src, at.file, at.start, &line, &col);
	fprintf(d->out, "%s%s:%u:%u:%s %s%s:%s %s\n", bold, f->name, line, col, off,
		on, lv, off, msg);
	diag_show_line(d, at, line, col);
}

/*
 * Walk the expansion chain of @at: one note per macro invocation (part of
 * the diagnostic before it, so without a code of its own).
 */
static void diag_expansions(struct diag_sink *d, struct src_span at)
{
	uint32_t exp = at.exp;
	unsigned depth = 0;

	while (exp && exp < d->src->nexps && depth++ < 32) {
		const struct src_expansion *e = &d->src->exps[exp];
		char msg[256];

		snprintf(msg, sizeof(msg), "in expansion of macro '@%s'",
			 e->macro);
		diag_emit(d, DIAG_NOTE, NULL, e->call, msg);
		exp = e->call.exp;
	}
}

void diag_vreport(struct diag_sink *d, enum diag_level level,
		  struct src_span at, const char *fmt, va_list ap)
{
	char msg[2048], where[64];

	if (level == DIAG_ERROR) {
		if (d->errors && at.file && at.file == d->last.file &&
		    at.start == d->last.start && at.exp == d->last.exp)
			return;
		d->last = at;
		if (++d->errors > d->max_errors)
			return;
	} else if (level == DIAG_WARNING) {
		if (d->warnings_off)
			return;
	}
	if (d->muted)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (level == DIAG_ERROR && diag_repeated(d, fmt, at, msg))
		return;
	/* a warning at the same place again (a body under each point of a
	   probe alias, a function typed for two probes): said once */
	if (level == DIAG_WARNING && diag_said(d, diag_hash(diag_place(at, where), msg)))
		return;
	if (level == DIAG_WARNING)
		d->warnings++;
	diag_emit(d, level, d->show_codes ? diag_code(fmt, NULL) : NULL, at, msg);
	diag_expansions(d, at);
	if (level == DIAG_ERROR && d->errors == d->max_errors)
		fprintf(d->out, "ktap: too many errors, stopping\n");
}

void diag_report(struct diag_sink *d, enum diag_level level,
		 struct src_span at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	diag_vreport(d, level, at, fmt, ap);
	va_end(ap);
}

void diag_plain(struct diag_sink *d, enum diag_level level,
		const char *fmt, ...)
{
	struct src_span none = { 0, 0, 0, 0 };
	va_list ap;

	va_start(ap, fmt);
	diag_vreport(d, level, none, fmt, ap);
	va_end(ap);
}

void diag_unsaid_note(struct diag_sink *d)
{
	unsigned n = d->unsaid;

	d->unsaid = 0;
	if (n)
		diag_plain(d, DIAG_NOTE, "%u more error%s of the kinds said above (--all-errors "
			   "says them)", n, n == 1 ? "" : "s");
}

const char *diag_where(const struct diag_sink *d, struct src_span at,
		       char *buf, size_t size)
{
	unsigned line, col;

	src_linecol(d->src, at.file, at.start, &line, &col);
	snprintf(buf, size, "%u:%u", line, col);
	return buf;
}

/* Levenshtein distance, capped: small names, small cost (diag.h). */
unsigned diag_distance(const char *a, const char *b)
{
	unsigned la = (unsigned)strlen(a), lb = (unsigned)strlen(b), i, j;
	unsigned row[64], prev, tmp;

	/* names differing only in leading '_' are nearest of all: the
	   kernel's renames (task_struct's state, now __state) */
	if (!strcmp(a + strspn(a, "_"), b + strspn(b, "_")))
		return 0;

	if (la >= 63 || lb >= 63)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			tmp = row[j];
			row[j] = a[i - 1] == b[j - 1] ? prev :
				 1 + (prev < row[j] ? (prev < row[j - 1] ? prev : row[j - 1]) :
				      (row[j] < row[j - 1] ? row[j] : row[j - 1]));
			prev = tmp;
		}
	}
	return row[lb];
}

bool diag_is_typo_of(const char *name, unsigned d)
{
	return d <= (strlen(name) <= 4 ? 1u : 2u);
}
