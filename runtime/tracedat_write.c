/*
 * tracedat_write.c - ktap --record FILE (see tracedat_write.h): a
 * trace.dat of version 6 (trace-cmd.dat.v6(5)), in the host's byte order
 * as trace-cmd writes it:
 *
 *   "\x17\x08\x44tracing" "6\0", endian (0 little), sizeof(long), page size
 *   "header_page\0" u64 len, text; "header_event\0" u64 len, text
 *   u32 n, n x (u64 len, format)                 events of system ftrace
 *   u32 systems, per system: name\0, u32 n, n x (u64 len, format)
 *   u32 0 (no kallsyms), u32 0 (no trace_printk formats)
 *   u64 len, "PID COMM\n" lines                  saved command lines
 *   u32 cpus, "options  \0", u16 4 u32 len "trace_clock text\0", u16 0
 *   "flyrecord\0", cpus x (u64 offset, u64 size), padding to a page,
 *   then each CPU's sub-buffers.
 *
 * The sub-buffers wait in one temporary file per CPU until the end,
 * when their sizes (and so the offsets) are known.
 */
#define _GNU_SOURCE
#include "tracedat_write.h"
#include "fileio.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The option that names the trace clock (trace-cmd.dat.v7(5): TRACECLOCK). */
#define TDW_OPT_TRACECLOCK 4

struct tdw_event {
	char *system;
	char *text;		/* the format file */
	size_t len;
};

struct tdw {
	char *path;
	FILE *out;
	bool finished;
	char *header_page, *header_event, *clock;
	size_t hp_len, he_len;
	struct tdw_event *ev;
	unsigned nev;
	FILE **cpu;		/* per CPU: its sub-buffers, or NULL */
	int ncpus, subbuf_size;
	FILE *cmdlines;		/* "PID COMM\n", into cmd_buf */
	char *cmd_buf;
	size_t cmd_len;
	int err;		/* the first write error's errno */
};

struct tdw *tdw_new(const char *path, char *err, size_t errlen)
{
	struct tdw *w = calloc(1, sizeof(*w));

	if (!w || !(w->path = strdup(path)) ||
	    !(w->cmdlines = open_memstream(&w->cmd_buf, &w->cmd_len))) {
		snprintf(err, errlen, "out of memory");
		tdw_free(w);
		return NULL;
	}
	w->out = fopen(path, "w");
	if (!w->out) {
		snprintf(err, errlen, "--record %s: %s", path, strerror(errno));
		free(w->path);
		w->path = NULL;		/* not ours to remove */
		tdw_free(w);
		return NULL;
	}
	return w;
}

/* @dir/@rel whole into *@text (*@len bytes).  0, or -1 with @err. */
static int tdw_slurp(const char *dir, const char *rel, char **text, size_t *len,
		     char *err, size_t errlen)
{
	char *path;

	if (asprintf(&path, "%s/%s", dir, rel) < 0)
		return -1;
	*text = fio_read(path, len);
	if (!*text)
		snprintf(err, errlen, "--record: %s: %s", path, strerror(errno));
	free(path);
	return *text ? 0 : -1;
}

/* The format of "system/event" @name into @e. */
static int tdw_event(struct tdw_event *e, const char *dir, const char *name,
		     char *err, size_t errlen)
{
	const char *slash = strchr(name, '/');
	char *rel;
	int rc;

	if (!slash || asprintf(&rel, "events/%s/format", name) < 0)
		return -1;
	e->system = strndup(name, (size_t)(slash - name));
	rc = tdw_slurp(dir, rel, &e->text, &e->len, err, errlen);
	free(rel);
	return e->system ? rc : -1;
}

int tdw_headers(struct tdw *w, const char *dir, const char *const *names, unsigned n,
		int ncpus, int subbuf_size, char *err, size_t errlen)
{
	unsigned i;

	w->ncpus = ncpus;
	w->subbuf_size = subbuf_size;
	w->cpu = calloc((size_t)(ncpus > 0 ? ncpus : 1), sizeof(*w->cpu));
	w->ev = calloc(n + 1, sizeof(*w->ev));
	if (!w->cpu || !w->ev) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (tdw_slurp(dir, "events/header_page", &w->header_page, &w->hp_len, err, errlen) ||
	    tdw_slurp(dir, "events/header_event", &w->header_event, &w->he_len, err, errlen) ||
	    tdw_slurp(dir, "trace_clock", &w->clock, NULL, err, errlen))
		return -1;
	for (i = 0; i < n; i++) {
		w->nev = i + 1;
		if (tdw_event(&w->ev[i], dir, names[i], err, errlen) != 0)
			return -1;
	}
	return 0;
}

void tdw_page(void *ctx, int cpu, const void *page, size_t size)
{
	struct tdw *w = ctx;

	if (w->err || cpu < 0 || cpu >= w->ncpus)
		return;
	if (!w->cpu[cpu] && !(w->cpu[cpu] = tmpfile())) {
		w->err = errno;
		return;
	}
	if (fwrite(page, 1, size, w->cpu[cpu]) != size)
		w->err = errno ? errno : EIO;
}

void tdw_comm(void *ctx, int tid, const char *comm)
{
	struct tdw *w = ctx;

	/* 0 is the idle task: trace-cmd names it itself */
	if (tid > 0 && comm && *comm && strcmp(comm, "<...>") != 0)
		fprintf(w->cmdlines, "%d %s\n", tid, comm);
}

/* ---- writing ---- */

static void tdw_bytes(struct tdw *w, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, w->out) != n && !w->err)
		w->err = errno ? errno : EIO;
}

static void tdw_u16(struct tdw *w, uint16_t v) { tdw_bytes(w, &v, sizeof(v)); }
static void tdw_u32(struct tdw *w, uint32_t v) { tdw_bytes(w, &v, sizeof(v)); }
static void tdw_u64(struct tdw *w, uint64_t v) { tdw_bytes(w, &v, sizeof(v)); }

/* @tag (with its NUL), a u64 length and @len bytes of @text. */
static void tdw_section(struct tdw *w, const char *tag, const char *text, size_t len)
{
	tdw_bytes(w, tag, strlen(tag) + 1);
	tdw_u64(w, len);
	tdw_bytes(w, text, len);
}

static void tdw_initial(struct tdw *w)
{
	uint8_t endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, lsize = sizeof(long);

	tdw_bytes(w, "\027\010\104tracing", 10);
	tdw_bytes(w, "6", 2);
	tdw_bytes(w, &endian, 1);
	tdw_bytes(w, &lsize, 1);
	tdw_u32(w, (uint32_t)w->subbuf_size);
	tdw_section(w, "header_page", w->header_page, w->hp_len);
	tdw_section(w, "header_event", w->header_event, w->he_len);
}

/* The formats of system @sys (ftrace's count has no name before it). */
static void tdw_system(struct tdw *w, const char *sys, bool named)
{
	uint32_t n = 0;
	unsigned i;

	for (i = 0; i < w->nev; i++)
		n += !strcmp(w->ev[i].system, sys);
	if (named)
		tdw_bytes(w, sys, strlen(sys) + 1);
	tdw_u32(w, n);
	for (i = 0; i < w->nev; i++)
		if (!strcmp(w->ev[i].system, sys)) {
			tdw_u64(w, w->ev[i].len);
			tdw_bytes(w, w->ev[i].text, w->ev[i].len);
		}
}

/* Is @i the first event of its system (not ftrace)? */
static bool tdw_first_of_system(const struct tdw *w, unsigned i)
{
	unsigned j;

	if (!strcmp(w->ev[i].system, "ftrace"))
		return false;
	for (j = 0; j < i; j++)
		if (!strcmp(w->ev[j].system, w->ev[i].system))
			return false;
	return true;
}

static void tdw_formats(struct tdw *w)
{
	uint32_t systems = 0;
	unsigned i;

	tdw_system(w, "ftrace", false);
	for (i = 0; i < w->nev; i++)
		systems += tdw_first_of_system(w, i);
	tdw_u32(w, systems);
	for (i = 0; i < w->nev; i++)
		if (tdw_first_of_system(w, i))
			tdw_system(w, w->ev[i].system, true);
}

/* Bytes CPU @i recorded. */
static uint64_t tdw_cpu_size(struct tdw *w, int i)
{
	long end;

	if (!w->cpu[i])
		return 0;
	if (fflush(w->cpu[i]) != 0 || (end = ftell(w->cpu[i])) < 0) {
		w->err = w->err ? w->err : errno;
		return 0;
	}
	return (uint64_t)end;
}

/* From the command lines to "flyrecord" and the CPUs' offsets, then
   the padding to the first page. */
static void tdw_tail(struct tdw *w)
{
	uint64_t off, size;
	long here;
	int i;

	fflush(w->cmdlines);
	tdw_u32(w, 0);		/* kallsyms */
	tdw_u32(w, 0);		/* trace_printk formats */
	tdw_u64(w, w->cmd_len);
	tdw_bytes(w, w->cmd_buf, w->cmd_len);
	tdw_u32(w, (uint32_t)w->ncpus);
	tdw_bytes(w, "options  ", 10);
	tdw_u16(w, TDW_OPT_TRACECLOCK);
	tdw_u32(w, (uint32_t)strlen(w->clock) + 1);
	tdw_bytes(w, w->clock, strlen(w->clock) + 1);
	tdw_u16(w, 0);
	tdw_bytes(w, "flyrecord", 10);
	here = ftell(w->out);
	if (here < 0)
		return;
	off = (uint64_t)here + 16 * (uint64_t)w->ncpus;
	off = (off + (uint64_t)w->subbuf_size - 1) / (uint64_t)w->subbuf_size *
	      (uint64_t)w->subbuf_size;
	for (i = 0; i < w->ncpus; i++) {
		size = tdw_cpu_size(w, i);
		tdw_u64(w, off);
		tdw_u64(w, size);
		off += size;
	}
	here = ftell(w->out);
	while (here >= 0 && here++ % w->subbuf_size)
		tdw_bytes(w, "", 1);
}

/* CPU @i's sub-buffers after the header. */
static void tdw_copy_cpu(struct tdw *w, int i)
{
	char buf[65536];
	size_t n;

	if (!w->cpu[i])
		return;
	rewind(w->cpu[i]);
	while ((n = fread(buf, 1, sizeof(buf), w->cpu[i])) > 0)
		tdw_bytes(w, buf, n);
	if (ferror(w->cpu[i]) && !w->err)
		w->err = EIO;
}

int tdw_finish(struct tdw *w, char *err, size_t errlen)
{
	int i;

	if (!w->header_page) {
		snprintf(err, errlen, "--record %s: nothing was recorded (the script "
			 "reads no kernel events)", w->path);
		return -1;
	}
	tdw_initial(w);
	tdw_formats(w);
	tdw_tail(w);
	for (i = 0; i < w->ncpus; i++)
		tdw_copy_cpu(w, i);
	if (fclose(w->out) != 0 && !w->err)
		w->err = errno;
	w->out = NULL;
	if (w->err) {
		snprintf(err, errlen, "--record %s: %s", w->path, strerror(w->err));
		return -1;
	}
	w->finished = true;
	return 0;
}

void tdw_free(struct tdw *w)
{
	unsigned i;
	int c;

	if (!w)
		return;
	if (w->out)
		fclose(w->out);
	if (!w->finished && w->path)
		unlink(w->path);
	for (c = 0; w->cpu && c < w->ncpus; c++)
		if (w->cpu[c])
			fclose(w->cpu[c]);
	for (i = 0; i < w->nev; i++) {
		free(w->ev[i].system);
		free(w->ev[i].text);
	}
	if (w->cmdlines)
		fclose(w->cmdlines);
	free(w->cmd_buf);
	free(w->ev);
	free(w->cpu);
	free(w->header_page);
	free(w->header_event);
	free(w->clock);
	free(w->path);
	free(w);
}
