/*
 * run_fifo.c - pass 5: stap's procfs("NAME").read probes.
 *
 * stap's module makes /proc/systemtap/MODULE/NAME, and each read of it
 * runs the probe, whose $value is what the reader gets.  ktap has no
 * module, so it makes a named pipe DIR/NAME instead (DIR: the driver's
 * choice, KTAP_PROCFS_DIR or /run/ktap/ktap_PID).  A reader's open()
 * blocks until ktap opens the other end; ktap tries that every
 * RUN_FIFO_MS (an O_NONBLOCK open for writing fails with ENXIO while
 * nobody reads), runs the probes, writes the contents, and closes, so
 * the reader sees the contents and then end of file, as from /proc.
 * As soon as a reader is there, its pipe is replaced by a fresh one
 * (rename() over it): a later open() finds the new file and waits for
 * its own run, instead of joining the pipe being written (where it
 * would get the rest of another reader's contents).
 *
 * A procfs("NAME").write file is a FIFO that ktap holds open for both
 * reading and writing (so it never sees end of file and writers' opens
 * never block); what writers write is read every RUN_FIFO_MS, and each
 * read() runs the write probes with it as $value.  Writes that arrive
 * together may come in one read(), unlike stap's one run per write().
 * Permissions are stap's: 0400 for a read file and 0200 for a write
 * file, or 0444 / 0222 less .umask(N), plus what ktap's own user needs
 * (the other direction).
 */
#define _GNU_SOURCE
#include "run_fifo.h"
#include "run_prom.h"
#include "buf.h"
#include "rt_ctx.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The file of @name in @ff, added when new. */
static struct run_fifo_file *rf_file(struct run_fifo *ff, const char *name)
{
	struct run_fifo_file *nf;
	unsigned i;

	for (i = 0; i < ff->n; i++)
		if (!strcmp(ff->f[i].name, name))
			return &ff->f[i];
	nf = realloc(ff->f, (ff->n + 1) * sizeof(*nf));
	if (!nf)
		return NULL;
	ff->f = nf;
	nf = &ff->f[ff->n++];
	*nf = (struct run_fifo_file){ .name = name, .umask = -1, .fd = -1 };
	return nf;
}

/* A FIFO at @path with stap's permissions, and ktap's side. */
static int rf_make(const struct run_fifo_file *f, const char *path)
{
	int64_t umask = f->umask >= 0 ? f->umask : f->write ? 0022 : 0044;
	mode_t mode = (mode_t)(f->write ? (0222 & ~umask) | 0400 : (0444 & ~umask) | 0200);

	if (mkfifo(path, mode) != 0)
		return -1;
	return chmod(path, mode);	/* exactly, whatever ktap's own umask */
}

/*
 * ff->dir and the directories above it that are missing (/run/ktap, or
 * /run too in a minimal system): ff->made is the length of the
 * shallowest one made, so run_fifo_free() removes exactly those.
 */
static int rf_mkdir(struct run_fifo *ff)
{
	char *p, c;

	for (p = ff->dir + 1; ; p++) {
		if (*p != '/' && *p)
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(ff->dir, 0755) == 0 && !ff->made)
			ff->made = (size_t)(p - ff->dir);
		*p = c;
		if (!c)
			break;
	}
	return ff->made == strlen(ff->dir) || access(ff->dir, W_OK) == 0 ? 0 : -1;
}

int run_fifo_init(struct run_fifo *ff, const struct ir_prog *p, const char *dir, bool prom_file,
		  char *why, size_t whylen)
{
	unsigned i;

	*ff = (struct run_fifo){ 0 };
	for (i = 0; i < p->nprobes; i++) {
		const struct ir_probe *pr = &p->probes[i];
		struct run_fifo_file *f;

		if (pr->kind == IR_P_PROMETHEUS && prom_file) {
			/* stap: probe prometheus = procfs("__prometheus").read */
			if (!(f = rf_file(ff, "__prometheus")))
				goto nomem;
			f->prom = true;
			continue;
		}
		if (pr->kind != IR_P_PROCFS_READ && pr->kind != IR_P_PROCFS_WRITE)
			continue;
		if (!(f = rf_file(ff, pr->procfs_file)))
			goto nomem;
		if (pr->procfs_max > f->max)
			f->max = pr->procfs_max;
		if (pr->procfs_umask >= 0)
			f->umask = f->umask < 0 ? pr->procfs_umask : f->umask | pr->procfs_umask;
		f->write = pr->kind == IR_P_PROCFS_WRITE;
	}
	if (!ff->n)
		return 0;
	if (!dir) {
		snprintf(why, whylen, "procfs probes need a directory for their files");
		return -1;
	}
	if (!(ff->dir = strdup(dir)))
		goto nomem;
	if (asprintf(&ff->env, "KTAP_PROCFS_DIR=%s", dir) < 0) {
		ff->env = NULL;
		goto nomem;
	}
	if (rf_mkdir(ff) != 0) {
		snprintf(why, whylen, "cannot make the procfs directory %s: %s", dir,
			 strerror(errno));
		return -1;
	}
	for (i = 0; i < ff->n; i++) {
		if (asprintf(&ff->f[i].path, "%s/%s", dir, ff->f[i].name) < 0) {
			ff->f[i].path = NULL;
			goto nomem;
		}
		if (rf_make(&ff->f[i], ff->f[i].path) != 0 ||
		    (ff->f[i].write && (ff->f[i].fd = open(ff->f[i].path,
				O_RDWR | O_NONBLOCK | O_CLOEXEC)) < 0)) {
			snprintf(why, whylen, "cannot make the procfs file %s: %s",
				 ff->f[i].path, strerror(errno));
			free(ff->f[i].path);
			ff->f[i].path = NULL;
			return -1;
		}
	}
	return 0;
nomem:
	snprintf(why, whylen, "out of memory");
	return -1;
}

const char *run_fifo_env(const struct run_fifo *ff)
{
	return run_fifo_active(ff) ? ff->env : NULL;
}

bool run_fifo_active(const struct run_fifo *ff)
{
	return ff->n > 0 && ff->dir;
}

/* Write all of @len bytes; a reader that went away (EPIPE) ends it, and
   its SIGPIPE (blocked, for run.c's signalfd) is taken back. */
static void rf_write(int fd, const char *s, size_t len)
{
	while (len) {
		ssize_t w = write(fd, s, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EPIPE) {
			sigset_t pipe;
			struct timespec now = { 0, 0 };

			sigemptyset(&pipe);
			sigaddset(&pipe, SIGPIPE);
			sigtimedwait(&pipe, NULL, &now);
		}
		if (w <= 0)
			return;
		s += w;
		len -= (size_t)w;
	}
}

/* The most a file holds: its .maxsize(N), else STP_PROCFS_BUFSIZE,
   else MAXSTRINGLEN. */
static size_t rf_bufsize(const struct run_fifo_file *f, const struct rt_ctx *c)
{
	if (f->max > 0)
		return (size_t)f->max;
	return c->lim.procfs_bufsize ? c->lim.procfs_bufsize : c->lim.maxstringlen;
}

/* Room for @c's $value buffer to hold its maximum; false: no memory. */
static bool rf_room(struct rt_ctx *c)
{
	char *p;

	if (c->pfs_cap >= c->pfs_max)
		return true;
	if (!(p = realloc(c->pfs_buf, c->pfs_max)))
		return false;
	c->pfs_buf = p;
	c->pfs_cap = c->pfs_max;
	return true;
}

/* Run the probes of @f (of @kind) once; $value is what @c's buffer holds. */
static void rf_run(const struct run_fifo_file *f, struct rt_ctx *c, enum ir_probe_kind kind)
{
	unsigned i;

	for (i = 0; i < c->prog->nprobes && !c->aborting; i++)
		if (c->prog->probes[i].kind == kind &&
		    !strcmp(c->prog->probes[i].procfs_file, f->name))
			rt_run_probe(c, i, NULL);
}

/* The write probes of @f on each read() of what writers wrote. */
static unsigned rf_take(const struct run_fifo_file *f, struct rt_ctx *c)
{
	unsigned runs = 0;
	ssize_t n;

	c->pfs_max = rf_bufsize(f, c);
	while (!c->aborting && rf_room(c) && (n = read(f->fd, c->pfs_buf, c->pfs_max)) > 0) {
		c->pfs_len = (size_t)n;
		rf_run(f, c, IR_P_PROCFS_WRITE);
		runs++;
	}
	return runs;
}

/* A fresh FIFO in place of @f's (the served one may still be read). */
static void rf_renew(const struct run_fifo_file *f, const char *dir)
{
	char *tmp;

	if (asprintf(&tmp, "%s/.%s.ktap-new", dir, f->name) < 0)
		return;
	unlink(tmp);
	if (rf_make(f, tmp) == 0 && rename(tmp, f->path) == 0) {
		free(tmp);
		return;
	}
	unlink(tmp);
	free(tmp);
}

unsigned run_fifo_serve(struct run_fifo *ff, struct rt_ctx *c)
{
	unsigned i, served = 0;

	for (i = 0; run_fifo_active(ff) && i < ff->n; i++) {
		int fd;

		if (ff->f[i].write) {
			served += rf_take(&ff->f[i], c);
			continue;
		}
		if ((fd = open(ff->f[i].path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
			continue;	/* ENXIO: nobody is reading */
		fcntl(fd, F_SETFL, 0);	/* blocking writes: the reader drains */
		/* Readers from now on open the new FIFO, never this one. */
		rf_renew(&ff->f[i], ff->dir);
		c->pfs_len = 0;
		c->pfs_max = rf_bufsize(&ff->f[i], c);
		rf_run(&ff->f[i], c, IR_P_PROCFS_READ);
		rf_write(fd, c->pfs_buf, c->pfs_len);
		if (ff->f[i].prom) {	/* after a procfs("__prometheus") probe's text */
			struct rt_buf body = { 0 };

			run_prom_probes(c, &body);
			rf_write(fd, body.p, body.len);
			buf_free(&body);
		}
		close(fd);
		served++;
	}
	return served;
}

void run_fifo_free(struct run_fifo *ff)
{
	unsigned i;

	for (i = 0; i < ff->n; i++) {
		if (ff->f[i].fd >= 0)
			close(ff->f[i].fd);
		if (ff->f[i].path)
			unlink(ff->f[i].path);
		free(ff->f[i].path);
	}
	/* the directories made, deepest first (only when empty: another
	   ktap may share /run/ktap) */
	while (ff->made && ff->dir) {
		char *slash;

		rmdir(ff->dir);
		slash = strrchr(ff->dir, '/');
		if (!slash || (size_t)(slash - ff->dir) < ff->made)
			break;
		*slash = '\0';
	}
	free(ff->dir);
	free(ff->env);
	free(ff->f);
	*ff = (struct run_fifo){ 0 };
}
