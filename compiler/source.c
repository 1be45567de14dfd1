/*
 * source.c - source files, line maps and macro-expansion records.
 */
#include "source.h"
#include "arena.h"
#include "../runtime/fileio.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void src_init(struct src_map *m)
{
	memset(m, 0, sizeof(*m));
}

void src_release(struct src_map *m)
{
	uint32_t i;

	for (i = 1; i < m->nfiles; i++) {
		free(m->files[i]->name);
		free(m->files[i]->text);
		free(m->files[i]->lines);
		free(m->files[i]);
	}
	for (i = 1; i < m->nexps; i++)
		free((char *)m->exps[i].macro);
	free(m->files);
	free(m->exps);
	src_init(m);
}

static void src_index_lines(struct src_file *f)
{
	uint32_t cap = 64, n = 0;
	size_t i;

	f->lines = xmalloc(cap * sizeof(uint32_t));
	f->lines[n++] = 0;
	for (i = 0; i < f->len; i++) {
		if (f->text[i] != '\n')
			continue;
		if (n == cap) {
			cap *= 2;
			f->lines = xrealloc(f->lines, cap * sizeof(uint32_t));
		}
		f->lines[n++] = (uint32_t)(i + 1);
	}
	f->nlines = n;
}

uint32_t src_add(struct src_map *m, const char *name, const char *text,
		 size_t len)
{
	struct src_file *f = xcalloc(1, sizeof(*f));

	if (m->nfiles == 0)
		m->nfiles = 1;	/* reserve id 0 */
	m->files = xrealloc(m->files, (m->nfiles + 1) * sizeof(*m->files));
	f->name = xstrdup(name);
	f->text = xmalloc(len + 1);
	memcpy(f->text, text, len);
	f->text[len] = '\0';
	f->len = len;
	src_index_lines(f);
	m->files[m->nfiles] = f;
	return m->nfiles++;
}

uint32_t src_load(struct src_map *m, const char *path)
{
	bool in = strcmp(path, "-") == 0;
	size_t len = 0;
	char *buf = in ? fio_read_fd(STDIN_FILENO, &len) : fio_read(path, &len);
	uint32_t id;

	if (!buf)
		return 0;
	id = src_add(m, in ? "<stdin>" : path, buf, len);
	free(buf);
	return id;
}

uint32_t src_add_expansion(struct src_map *m, const char *macro,
			   struct src_span call)
{
	if (m->nexps == 0)
		m->nexps = 1;
	if (m->nexps + 1 > m->expcap) {
		m->expcap = m->expcap ? m->expcap * 2 : 64;
		m->exps = xrealloc(m->exps, m->expcap * sizeof(*m->exps));
	}
	m->exps[m->nexps].macro = xstrdup(macro);
	m->exps[m->nexps].call = call;
	return m->nexps++;
}

const struct src_file *src_file(const struct src_map *m, uint32_t id)
{
	return id && id < m->nfiles ? m->files[id] : NULL;
}

void src_linecol(const struct src_map *m, uint32_t id, uint32_t off,
		 unsigned *line, unsigned *col)
{
	const struct src_file *f = src_file(m, id);
	uint32_t lo = 0, hi;

	if (!f) {
		*line = *col = 0;
		return;
	}
	/* Binary search for the last line start <= off. */
	hi = f->nlines;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (f->lines[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	*line = lo + 1;
	*col = off - f->lines[lo] + 1;
}

const char *src_line_text(const struct src_map *m, uint32_t id,
			  unsigned line, size_t *len)
{
	const struct src_file *f = src_file(m, id);
	const char *s, *e;

	if (!f || line == 0 || line > f->nlines) {
		*len = 0;
		return "";
	}
	s = f->text + f->lines[line - 1];
	e = memchr(s, '\n', (size_t)(f->text + f->len - s));
	*len = e ? (size_t)(e - s) : (size_t)(f->text + f->len - s);
	return s;
}

struct src_span src_join(struct src_span a, struct src_span b)
{
	if (a.file != b.file || a.exp != b.exp || b.end < a.start)
		return a;
	a.end = b.end > a.end ? b.end : a.end;
	return a;
}
