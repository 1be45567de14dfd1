/*
 * diag.c - rendering of compiler diagnostics (see diag.h).
 */
#include "diag.h"

#include <stdarg.h>
#include <string.h>

static const char *const diag_level_names[] = {
	[DIAG_ERROR] = "error",
	[DIAG_WARNING] = "warning",
	[DIAG_NOTE] = "note",
};

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
	fputc('^', d->out);
	/* Underline the rest of the span, but not past the end of the line. */
	width = at.end > at.start ? at.end - at.start : 1;
	for (i = 1; i < width && col - 1 + i < len; i++)
		fputc('~', d->out);
	fputc('\n', d->out);
}

static void diag_emit(struct diag_sink *d, enum diag_level level,
		      struct src_span at, const char *msg)
{
	const struct src_file *f = src_file(d->src, at.file);
	unsigned line, col;

	if (!f) {
		fprintf(d->out, "ktap: %s: %s\n", diag_level_names[level], msg);
		return;
	}
	src_linecol(d->src, at.file, at.start, &line, &col);
	fprintf(d->out, "%s:%u:%u: %s: %s\n", f->name, line, col,
		diag_level_names[level], msg);
	diag_show_line(d, at, line, col);
}

/* Walk the expansion chain of @at: one note per macro invocation. */
static void diag_expansions(struct diag_sink *d, struct src_span at)
{
	uint32_t exp = at.exp;
	unsigned depth = 0;

	while (exp && exp < d->src->nexps && depth++ < 32) {
		const struct src_expansion *e = &d->src->exps[exp];
		char msg[256];

		snprintf(msg, sizeof(msg), "in expansion of macro '@%s'",
			 e->macro);
		diag_emit(d, DIAG_NOTE, e->call, msg);
		exp = e->call.exp;
	}
}

void diag_vreport(struct diag_sink *d, enum diag_level level,
		  struct src_span at, const char *fmt, va_list ap)
{
	char msg[2048];

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
		d->warnings++;
	}
	if (d->muted)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	diag_emit(d, level, at, msg);
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

const char *diag_where(const struct diag_sink *d, struct src_span at,
		       char *buf, size_t size)
{
	unsigned line, col;

	src_linecol(d->src, at.file, at.start, &line, &col);
	snprintf(buf, size, "%u:%u", line, col);
	return buf;
}
