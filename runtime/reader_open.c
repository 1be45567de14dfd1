/*
 * reader_open.c - pass 5, kernel side: opening the merged event stream
 * (see reader.h) on a live instance's trace_pipe_raw files or on a
 * directory recorded by tests/tools/ktap-record, and closing it.
 * Reading and merging are reader.c's.
 */
#define _GNU_SOURCE
#include "reader.h"
#include "reader_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

/* ---- opening and closing ---- */

static bool rdr_host_big(void)
{
	return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
}

struct rdr *rdr_alloc(const char *dir, bool live, bool big_endian,
			     const struct rdr_options *opt)
{
	struct rdr *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->live = live;
	r->kstack_idx = r->ustack_idx = -1;
	r->clock = CLOCK_MONOTONIC;
	r->holdback = opt && opt->holdback_ns ? opt->holdback_ns : RDR_HOLDBACK_NS;
	if (opt) {
		r->tap = opt->tap;
		r->tap_ctx = opt->tap_ctx;
	}
	r->dir = strdup(dir);
	r->tep = tep_alloc();
	if (!r->dir || !r->tep) {
		rdr_close(r);
		return NULL;
	}
	tep_set_file_bigendian(r->tep, big_endian ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(r->tep, rdr_host_big() ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_page_size(r->tep, getpagesize());
	r->swap = big_endian != rdr_host_big();
	return r;
}

/* The kernel's long is the sub-buffer header's commit field. */
static void rdr_set_long_size(struct rdr *r, int fallback)
{
	int size = tep_get_header_page_size(r->tep);

	tep_set_long_size(r->tep, size == 4 || size == 8 ? size : fallback);
}

int rdr_alloc_cpus(struct rdr *r, int n)
{
	int i;

	if (n <= 0 || n > RDR_MAX_CPUS) {
		rdr_fail(r, "no CPUs to read (%d)", n);
		return -1;
	}
	r->cpus = calloc((size_t)n, sizeof(*r->cpus));
	r->pfds = calloc((size_t)n, sizeof(*r->pfds));
	r->pwho = calloc((size_t)n, sizeof(*r->pwho));
	if (!r->cpus || !r->pfds || !r->pwho) {
		rdr_fail(r, "out of memory");
		return -1;
	}
	r->ncpus = n;
	for (i = 0; i < n; i++) {
		r->cpus[i].cpu = i;
		r->cpus[i].fd = -1;
		r->cpus[i].done = true;	/* until a file is open */
	}
	return 0;
}

/* Buffers of CPU @c, whose fd is open. */
static int rdr_cpu_buffers(struct rdr *r, struct rdr_cpu *c)
{
	c->kbuf = tep_kbuffer(r->tep);
	c->page = malloc((size_t)r->subbuf_size);
	if (!c->kbuf || !c->page) {
		rdr_fail(r, "out of memory");
		return -1;
	}
	c->done = false;
	c->due = true;
	return 0;
}

struct rdr *rdr_opened(struct rdr *r, int rc, char *err, size_t errlen)
{
	if (rc == 0)
		return r;
	if (err && errlen)
		snprintf(err, errlen, "%s", r->err);
	rdr_close(r);
	return NULL;
}

/* ---- live ---- */

/* The instance's trace_clock must be one clock_gettime() can read. */
static int rdr_live_clock(struct rdr *r)
{
	static const struct { const char *name; clockid_t id; } clocks[] = {
		{ "mono", CLOCK_MONOTONIC }, { "mono_raw", CLOCK_MONOTONIC_RAW },
		{ "boot", CLOCK_BOOTTIME }, { "tai", CLOCK_TAI },
	};
	char *text = rdr_slurp(r->dir, "trace_clock", NULL), *open, *close;
	size_t i;

	if (!text) {
		rdr_fail(r, "trace_clock: %s", strerror(errno));
		return -1;
	}
	open = strchr(text, '[');
	close = open ? strchr(open, ']') : NULL;
	if (close)
		*close = '\0';
	for (i = 0; open && i < sizeof(clocks) / sizeof(clocks[0]); i++)
		if (!strcmp(open + 1, clocks[i].name)) {
			r->clock = clocks[i].id;
			free(text);
			return 0;
		}
	rdr_fail(r, "trace_clock: '%s' cannot be merged across CPUs with a "
		 "time window; set mono (tfs_create() does)", open ? open + 1 : text);
	free(text);
	return -1;
}

/* The largest N of per_cpu/cpuN, plus one. */
static int rdr_live_ncpus(struct rdr *r)
{
	char *path = NULL;
	struct dirent *d;
	int n = 0, cpu;
	DIR *dp;

	if (asprintf(&path, "%s/per_cpu", r->dir) < 0)
		return -1;
	dp = opendir(path);
	free(path);
	if (!dp) {
		rdr_fail(r, "per_cpu: %s", strerror(errno));
		return -1;
	}
	while ((d = readdir(dp)) != NULL)
		if (sscanf(d->d_name, "cpu%d", &cpu) == 1 && cpu >= 0 && cpu < RDR_MAX_CPUS &&
		    cpu + 1 > n)
			n = cpu + 1;
	closedir(dp);
	return n;
}

/* A sub-buffer may be larger than a page (buffer_subbuf_size_kb, 6.8+). */
static void rdr_live_subbuf(struct rdr *r)
{
	char *text = rdr_slurp(r->dir, "buffer_subbuf_size_kb", NULL);
	long kb = text ? strtol(text, NULL, 10) : 0;

	free(text);
	if (kb > 0 && kb * 1024 > r->subbuf_size && kb <= 1024)
		r->subbuf_size = (int)(kb * 1024);
}

/* Open CPU @c's trace_pipe_raw, non-blocking. */
static int rdr_live_cpu(struct rdr *r, struct rdr_cpu *c)
{
	char rel[64], *path = NULL;

	snprintf(rel, sizeof(rel), "per_cpu/cpu%d/trace_pipe_raw", c->cpu);
	if (asprintf(&path, "%s/%s", r->dir, rel) < 0)
		return -1;
	c->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	free(path);
	if (c->fd < 0) {
		if (errno == ENOENT)
			return 0;	/* CPU not present */
		rdr_fail(r, "%s: %s", rel, strerror(errno));
		return -1;
	}
	c->tcpu = tracefs_cpu_alloc_fd(c->fd, r->subbuf_size, true);
	if (!c->tcpu) {
		rdr_fail(r, "%s: tracefs_cpu_alloc_fd: %s", rel, strerror(errno));
		return -1;
	}
	return rdr_cpu_buffers(r, c);
}

static int rdr_live_setup(struct rdr *r, const char *const *events, unsigned n)
{
	int ncpus, i;

	if (rdr_live_clock(r) || rdr_load_header(r, r->dir, "events/header_page",
						 (int)sizeof(long)))
		return -1;
	rdr_set_long_size(r, (int)sizeof(long));
	rdr_live_subbuf(r);
	if (rdr_load_events(r, r->dir, "events", events, n))
		return -1;
	ncpus = rdr_live_ncpus(r);
	if (ncpus < 0 || rdr_alloc_cpus(r, ncpus))
		return -1;
	for (i = 0; i < ncpus; i++)
		if (rdr_live_cpu(r, &r->cpus[i]))
			return -1;
	return 0;
}

struct rdr *rdr_open_live(const char *instance_dir, const char *const *events,
			  unsigned nevents, const struct rdr_options *opt,
			  char *err, size_t errlen)
{
	struct rdr *r = rdr_alloc(instance_dir, true, rdr_host_big(), opt);

	if (!r) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return NULL;
	}
	return rdr_opened(r, rdr_live_setup(r, events, nevents), err, errlen);
}

/* ---- replay ---- */

/* A recorded directory's "info" file. */
struct rdr_info {
	char *text;		/* owns the strings below */
	const char **events;
	unsigned nevents;
	int cpus, long_size, subbuf_size;
	bool big_endian;
};

static void rdr_info_free(struct rdr_info *in)
{
	free(in->text);
	free(in->events);
}

/* One "key value" line of info. */
static void rdr_info_line(struct rdr_info *in, char *key, char *val)
{
	if (!strcmp(key, "event"))
		in->events[in->nevents++] = val;
	else if (!strcmp(key, "cpus"))
		in->cpus = atoi(val);
	else if (!strcmp(key, "long_size"))
		in->long_size = atoi(val);
	else if (!strcmp(key, "subbuf_size"))
		in->subbuf_size = atoi(val);
	else if (!strcmp(key, "endian"))
		in->big_endian = !strcmp(val, "big");
}

static int rdr_info_read(struct rdr *r, struct rdr_info *in)
{
	char *p, *line, *val;
	size_t lines = 1;

	memset(in, 0, sizeof(*in));
	in->long_size = 8;
	in->text = rdr_slurp(r->dir, "info", NULL);
	if (!in->text) {
		rdr_fail(r, "%s/info: %s", r->dir, strerror(errno));
		return -1;
	}
	for (p = in->text; *p; p++)
		lines += *p == '\n';
	in->events = calloc(lines, sizeof(*in->events));
	if (!in->events) {
		rdr_fail(r, "out of memory");
		return -1;
	}
	for (p = in->text; (line = strsep(&p, "\n")) != NULL; ) {
		val = strchr(line, ' ');
		if (val && *line != '#') {
			*val++ = '\0';
			rdr_info_line(in, line, val);
		}
	}
	return 0;
}

/* Open cpuN.raw for every recorded CPU. */
static int rdr_replay_cpus(struct rdr *r, int ncpus)
{
	char rel[64], *path = NULL;
	int i;

	if (rdr_alloc_cpus(r, ncpus))
		return -1;
	for (i = 0; i < ncpus; i++) {
		struct rdr_cpu *c = &r->cpus[i];

		snprintf(rel, sizeof(rel), "cpu%d.raw", i);
		if (asprintf(&path, "%s/%s", r->dir, rel) < 0)
			return -1;
		c->fd = open(path, O_RDONLY | O_CLOEXEC);
		free(path);
		if (c->fd < 0 && errno == ENOENT)
			continue;	/* nothing recorded on that CPU */
		if (c->fd < 0) {
			rdr_fail(r, "%s/%s: %s", r->dir, rel, strerror(errno));
			return -1;
		}
		if (rdr_cpu_buffers(r, c))
			return -1;
	}
	return 0;
}

static int rdr_replay_setup(struct rdr *r, const struct rdr_info *in,
			    const char *const *events, unsigned n)
{
	if (!events) {
		events = in->events;
		n = in->nevents;
	}
	if (rdr_load_header(r, r->dir, "header_page", in->long_size))
		return -1;
	tep_set_long_size(r->tep, in->long_size);
	if (in->subbuf_size > 0 && in->subbuf_size <= (1 << 20))
		r->subbuf_size = in->subbuf_size;
	if (rdr_load_events(r, r->dir, "events", events, n))
		return -1;
	return rdr_replay_cpus(r, in->cpus);
}

struct rdr *rdr_open_replay(const char *dir, const char *const *events,
			    unsigned nevents, const struct rdr_options *opt,
			    char *err, size_t errlen)
{
	struct rdr_info in;
	struct rdr *r;
	int rc;

	r = rdr_alloc(dir, false, false, opt);
	if (!r) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return NULL;
	}
	rc = rdr_info_read(r, &in);
	if (rc == 0 && in.big_endian) {
		tep_set_file_bigendian(r->tep, TEP_BIG_ENDIAN);
		r->swap = !rdr_host_big();
	}
	if (rc == 0)
		rc = rdr_replay_setup(r, &in, events, nevents);
	rdr_info_free(&in);
	return rdr_opened(r, rc, err, errlen);
}

/*
 * libtracefs 1.6.4's tracefs_cpu_free_fd() leaves the fd open (its
 * manual says otherwise); close it only if it still is.
 */
static void rdr_cpu_close(struct rdr_cpu *c)
{
	if (c->tcpu)
		tracefs_cpu_free_fd(c->tcpu);
	if (c->fd >= 0 && fcntl(c->fd, F_GETFD) >= 0)
		close(c->fd);
	if (c->kbuf)
		kbuffer_free(c->kbuf);
	free(c->page);
}

void rdr_close(struct rdr *r)
{
	struct rdr_field *f, *next;
	int i;

	if (!r)
		return;
	for (i = 0; i < r->ncpus; i++)
		rdr_cpu_close(&r->cpus[i]);
	free(r->cpus);
	free(r->pfds);
	free(r->pwho);
	for (f = r->fields; f; f = next) {
		next = f->next;
		free(f);
	}
	free(r->events);
	free(r->map);
	if (r->backend_close)
		r->backend_close(r);
	if (r->tep)
		tep_free(r->tep);
	free(r->dir);
	free(r->held);
	free(r->kaddr);
	free(r->uaddr);
	free(r);
}
