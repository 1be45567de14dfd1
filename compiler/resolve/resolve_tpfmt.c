/*
 * resolve_tpfmt.c - reading trace event formats and available_events (see
 * resolve_tpfmt.h).  The format grammar is the kernel's:
 *
 *   field:TYPE NAME[ARRAY];	offset:N;	size:N;	signed:N;
 */
#define _GNU_SOURCE
#include "resolve_tpfmt.h"
#include "arena.h"
#include "../runtime/fileio.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The whole of @path as an arena string, or NULL. */
static char *tpf_read(struct arena *a, const char *path)
{
	size_t len = 0;
	char *buf = fio_read(path, &len), *out;

	if (!buf)
		return NULL;
	out = arena_strndup(a, buf, len);
	free(buf);
	return out;
}

/* Read "key:VALUE;" after @p; returns the value or -1. */
static long tpf_num(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

/* Split "TYPE NAME[N]" into the field's type, name and kind. */
static void tpf_decl(struct arena *a, struct tpf_field *f, const char *decl,
		     size_t len)
{
	const char *end = decl + len, *name_end, *name, *br;

	/* "char comm[16]": the brackets end the declaration; in
	   "__data_loc char[] filename" they belong to the type. */
	br = len && decl[len - 1] == ']' ? memrchr(decl, '[', len) : NULL;
	name_end = br ? br : end;
	name = name_end;
	while (name > decl && (name[-1] == '_' || (name[-1] >= '0' && name[-1] <= '9') ||
			       (name[-1] >= 'a' && name[-1] <= 'z') ||
			       (name[-1] >= 'A' && name[-1] <= 'Z')))
		name--;
	f->name = arena_strndup(a, name, (size_t)(name_end - name));
	while (name > decl && name[-1] == ' ')
		name--;
	f->ctype = arena_strndup(a, decl, (size_t)(name - decl));
	f->pointer = strchr(f->ctype, '*') != NULL;
	if (strstr(f->ctype, "__data_loc") && strstr(f->ctype, "char"))
		f->kind = TPF_DATALOC_STR;
	else if (br && strstr(f->ctype, "char") && !f->pointer)
		f->kind = TPF_CHARS;
	else if (br || strstr(f->ctype, "__data_loc") || strstr(f->ctype, "__rel_loc"))
		f->kind = TPF_OTHER;
	else
		f->kind = TPF_INT;
	f->common = strncmp(f->name, "common_", 7) == 0;
	f->nelem = br && !f->common ? (unsigned)strtoul(br + 1, NULL, 10) : 0;
}

/* One "field:..." line. */
static bool tpf_line(struct arena *a, struct tpf_field *f, const char *line)
{
	const char *decl = strstr(line, "field:"), *semi;

	if (!decl)
		return false;
	decl += 6;
	semi = strchr(decl, ';');
	if (!semi)
		return false;
	memset(f, 0, sizeof(*f));
	tpf_decl(a, f, decl, (size_t)(semi - decl));
	f->offset = (unsigned)tpf_num(semi, "offset:");
	f->size = (unsigned)tpf_num(semi, "size:");
	f->is_signed = tpf_num(semi, "signed:") == 1;
	return true;
}

struct tpf_event *tpf_parse(struct arena *a, const char *system,
			    const char *text)
{
	struct tpf_event *e = arena_alloc(a, sizeof(*e));
	const char *p = text;
	size_t cap = 0;

	e->system = arena_strdup(a, system);
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		char *line = arena_strndup(a, p, nl ? (size_t)(nl - p) : strlen(p));
		struct tpf_field f;

		if (strncmp(line, "name: ", 6) == 0)
			e->name = arena_strdup(a, line + 6);
		else if (strncmp(line, "ID: ", 4) == 0)
			e->id = (unsigned)strtoul(line + 4, NULL, 10);
		else if (tpf_line(a, &f, line)) {
			e->fields = arena_grow(a, e->fields, e->nfields, &cap,
					       sizeof(*e->fields));
			e->fields[e->nfields++] = f;
		}
		p = nl ? nl + 1 : NULL;
	}
	return e->name ? e : NULL;
}

struct tpf_event *tpf_load(struct arena *a, const char *dir, const char *system,
			   const char *name)
{
	char path[1024];
	char *text;

	if (strchr(system, '/') || strchr(name, '/') || !*system || !*name) {
		errno = ENOENT;
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", dir, system, name);
	text = tpf_read(a, path);
	return text ? tpf_parse(a, system, text) : NULL;
}

static int tpf_cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

unsigned tpf_match(struct arena *a, const char *dir, const char *system,
		   const char *event, char ***out)
{
	char path[1024], *text, *p;
	char **v = NULL;
	size_t n = 0, cap = 0;

	snprintf(path, sizeof(path), "%s/available_events", dir);
	text = tpf_read(a, path);
	for (p = text; p && *p; ) {
		char *nl = strchr(p, '\n'), *colon;

		if (nl)
			*nl = '\0';
		colon = strchr(p, ':');
		if (colon) {
			*colon = '\0';
			/* another ktap's private group (ktap_PID_TAG: its session's
			   events, gone when it ends) only by its own name */
			if (!strncmp(p, "ktap_", 5) && (!system || strncmp(system, "ktap_", 5) != 0)) {
				p = nl ? nl + 1 : NULL;
				continue;
			}
			if ((!system || fnmatch(system, p, 0) == 0) &&
			    fnmatch(event, colon + 1, 0) == 0) {
				v = arena_grow(a, v, n, &cap, sizeof(*v));
				v[n++] = arena_printf(a, "%s:%s", p, colon + 1);
			}
		}
		p = nl ? nl + 1 : NULL;
	}
	if (n)
		qsort(v, n, sizeof(*v), tpf_cmp);
	*out = v;
	return (unsigned)n;
}

const struct tpf_field *tpf_field(const struct tpf_event *e, const char *name)
{
	unsigned i;

	for (i = 0; i < e->nfields; i++)
		if (strcmp(e->fields[i].name, name) == 0)
			return &e->fields[i];
	return NULL;
}
