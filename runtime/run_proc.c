/*
 * run_proc.c - pass 5: the process table (see run_proc.h).
 *
 * In: thread ids of records, /proc/TID/status, task_newtask /
 * sched_process_exec / task_rename records.  Out: struct rt_proc entries
 * for the context builtins.
 */
#define _GNU_SOURCE
#include "run_proc.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int run_proc_status_num(const char *s, const char *key, int field, int dflt)
{
	const char *p = strstr(s, key);
	char *end;
	long v = dflt;

	if (!p)
		return dflt;
	p += strlen(key);
	while (field-- >= 0) {
		v = strtol(p, &end, 10);
		p = end;
	}
	return (int)v;
}

/* Fill @e from /proc; a thread that is gone is "<...>" (as in trace). */
static void run_proc_read(struct rt_proc *e, int tid)
{
	char path[64], buf[2048], *name;
	ssize_t n;
	int fd;

	*e = (struct rt_proc){ .tid = tid, .tgid = tid, .comm = "<...>" };
	if (tid == 0) {
		strcpy(e->comm, "swapper");
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (!strncmp(buf, "Name:\t", 6)) {
		name = buf + 6;
		snprintf(e->comm, sizeof(e->comm), "%.*s", (int)strcspn(name, "\n"), name);
	}
	e->tgid = run_proc_status_num(buf, "\nTgid:", 0, tid);
	e->ppid = run_proc_status_num(buf, "\nPPid:", 0, 0);
	e->uid = run_proc_status_num(buf, "\nUid:", 0, 0);
	e->euid = run_proc_status_num(buf, "\nUid:", 1, 0);
	e->gid = run_proc_status_num(buf, "\nGid:", 0, 0);
	e->egid = run_proc_status_num(buf, "\nGid:", 1, 0);
}

/* A recording's thread: its saved name, nothing else is known (the
   thread is its own process).  0 is the idle task, as run_proc_read(). */
static void run_proc_named(struct rt_proc *e, int tid, const char *comm)
{
	*e = (struct rt_proc){ .tid = tid, .tgid = tid };
	snprintf(e->comm, sizeof(e->comm), "%s", tid == 0 ? "swapper" :
		 comm && *comm ? comm : "<...>");
}

static struct rt_proc *run_proc_slot(struct run_procs *t, int tid)
{
	size_t i = ((size_t)(unsigned)tid * 0x9e3779b97f4a7c15ULL) & (t->cap - 1);

	while (t->v[i].tid != tid && t->v[i].tid != -1)
		i = (i + 1) & (t->cap - 1);
	return &t->v[i];
}

static int run_proc_grow(struct run_procs *t)
{
	struct run_procs old = *t;
	size_t i;

	t->cap = old.cap ? old.cap * 2 : 1024;
	t->v = malloc(t->cap * sizeof(*t->v));
	if (!t->v) {
		*t = old;
		return -1;
	}
	for (i = 0; i < t->cap; i++)
		t->v[i].tid = -1;
	for (i = 0; i < old.cap; i++)
		if (old.v[i].tid != -1)
			*run_proc_slot(t, old.v[i].tid) = old.v[i];
	free(old.v);
	return 0;
}

struct rt_proc *run_proc_get(struct run_procs *t, int tid, bool fresh)
{
	static struct rt_proc nomem = { .comm = "<...>" };
	struct rt_proc *e;

	if ((t->n + 1) * 2 > t->cap && run_proc_grow(t) != 0)
		return &nomem;
	e = run_proc_slot(t, tid);
	if (e->tid == -1) {
		t->n++;
		if (fresh)
			*e = (struct rt_proc){ .tid = tid, .tgid = tid };
		else if (t->comm)
			run_proc_named(e, tid, t->comm(t->comm_ctx, tid));
		else
			run_proc_read(e, tid);
	}
	return e;
}

/* @len bytes of @s as a comm: the kernel keeps 15 bytes and a NUL. */
static void run_proc_set_comm(struct rt_proc *e, const char *s, uint32_t len)
{
	snprintf(e->comm, sizeof(e->comm), "%.*s", (int)len, s);
}

static const char *const run_proc_names[][RUN_PROC_FIELDS] = {
	[IR_TRACK_FORK] = { "pid", "comm", "clone_flags" },
	[IR_TRACK_EXEC] = { "pid", "filename", NULL },
	[IR_TRACK_RENAME] = { "pid", "newcomm", NULL },
};

#define RUN_PROC_CLONE_THREAD 0x00010000	/* <linux/sched.h> */

/* A new task: a thread of its creator's process, or a new process. */
static void run_proc_fork(struct run_procs *t, int parent, int child, bool thread)
{
	struct rt_proc p = *run_proc_get(t, parent, false), *e;

	e = run_proc_get(t, child, true);
	*e = p;
	e->tid = child;
	if (!thread) {
		e->tgid = child;
		e->ppid = p.tgid;
	}
}

void run_proc_seed_child(struct run_procs *t, int parent, int child)
{
	run_proc_fork(t, parent, child, false);
}

void run_proc_track(struct run_procs *t, const struct rdr_field **f,
		    const struct rdr_record *rec, unsigned track)
{
	int tid = (int)rdr_field_num(f[0], rec);
	const char *s, *base;
	uint32_t len = rdr_field_str(f[1], rec, &s);
	struct rt_proc *e, old;

	if (track & IR_TRACK_FORK)
		run_proc_fork(t, rec->pid, tid,
			      (uint64_t)rdr_field_num(f[2], rec) & RUN_PROC_CLONE_THREAD);
	if (track & IR_TRACK_EXEC) {
		/* The kernel names the task after the file's last component. */
		base = memrchr(s, '/', len);
		if (base) {
			len -= (uint32_t)(base + 1 - s);
			s = base + 1;
		}
	}
	e = run_proc_get(t, tid, false);
	old = *e;
	run_proc_set_comm(e, s, len);
	/* A hist keyed on the thread (run_hist.c) has its last name only. */
	if (track & IR_TRACK_FORK)
		e->renamed = false;
	else if (strcmp(old.comm, e->comm))
		e->renamed = true;
}

int run_proc_resolve(const struct ir_prog *p, struct rdr *rdr, const struct rdr_field **f)
{
	const char *name;
	unsigned i, k, t;

	for (i = 0; i < p->nevents; i++) {
		t = p->events[i].track;
		if (!t)
			continue;
		t = t & IR_TRACK_FORK ? IR_TRACK_FORK : t & IR_TRACK_EXEC ? IR_TRACK_EXEC :
		    IR_TRACK_RENAME;
		for (k = 0; k < RUN_PROC_FIELDS && (name = run_proc_names[t][k]); k++) {
			f[RUN_PROC_FIELDS * i + k] = rdr_field(rdr, i, name);
			if (!f[RUN_PROC_FIELDS * i + k]) {
				fprintf(stderr, "ERROR: event %s:%s has no field '%s'\n",
					p->events[i].system, p->events[i].name, name);
				return -1;
			}
		}
	}
	return 0;
}

/* Is @s all digits (a /proc pid or tid directory)? */
static bool run_proc_numeric(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

void run_proc_seed_all(struct run_procs *t)
{
	char path[300];
	struct dirent *d, *td;
	DIR *proc, *task;

	if (t->comm)		/* a recording: not this machine's processes */
		return;
	proc = opendir("/proc");
	while (proc && (d = readdir(proc)) != NULL) {
		if (!run_proc_numeric(d->d_name))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", d->d_name);
		task = opendir(path);
		while (task && (td = readdir(task)) != NULL)
			if (run_proc_numeric(td->d_name))
				run_proc_get(t, atoi(td->d_name), false);
		if (task)
			closedir(task);
	}
	if (proc)
		closedir(proc);
}

void run_proc_each(const struct run_procs *t,
		   void (*fn)(void *ctx, int tid, const char *comm), void *ctx)
{
	size_t i;

	for (i = 0; i < t->cap; i++)
		if (t->v[i].tid != -1)
			fn(ctx, t->v[i].tid, t->v[i].comm);
}

void run_proc_free(struct run_procs *t)
{
	free(t->v);
	t->v = NULL;
	t->cap = t->n = 0;
}
