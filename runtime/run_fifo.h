/*
 * run_fifo.h - pass 5: stap's procfs("NAME").read and .write probes,
 * served as named pipes (FIFOs) in ktap's procfs directory.
 */
#ifndef KTAP_RT_RUN_FIFO_H
#define KTAP_RT_RUN_FIFO_H

#include <stdbool.h>
#include <stddef.h>

#include "interp.h"

struct run_fifo_file {
	const char *name;	/* NAME, as the probe point gives it */
	char *path;		/* DIR/NAME */
	int64_t max;		/* the largest .maxsize(N) of its probes, or 0 */
	int64_t umask;		/* .umask(N), or -1 */
	bool write;		/* written by writers (.write probes), else read */
	/* "__prometheus": the prometheus probes' answer, as stap's alias
	   procfs("__prometheus").read has it (without --prometheus) */
	bool prom;
	int fd;			/* .write: ktap's end, both ways, or -1 */
};

struct run_fifo {
	char *dir;		/* NULL: the plan has no procfs probes */
	size_t made;		/* the length of the shallowest directory of dir
				   that ktap made (0: none), removed at the end */
	struct run_fifo_file *f;
	unsigned n;
	char *env;		/* "KTAP_PROCFS_DIR=DIR", for the -c command */
};

/*
 * The FIFOs of @p's procfs probes, made in directory @dir (created
 * when missing); a write probe's FIFO is held open from then on; with
 * @prom_file, the prometheus probes' "__prometheus" file too.  0, or -1 with
 * the reason in @why.  A plan without such probes makes nothing.  run_fifo_free() removes what this made,
 * also after a failure.
 */
int run_fifo_init(struct run_fifo *ff, const struct ir_prog *p, const char *dir, bool prom_file,
		  char *why, size_t whylen);

/* "KTAP_PROCFS_DIR=DIR" when there are FIFOs, else NULL: the -c
   command (a reader, often) finds them there. */
const char *run_fifo_env(const struct run_fifo *ff);

/* Whether there are FIFOs to look at (run.c then wakes every RUN_FIFO_MS). */
bool run_fifo_active(const struct run_fifo *ff);
#define RUN_FIFO_MS 20

/*
 * Serve each FIFO that a reader has opened: run its probes on @c's
 * program ($value starts empty), write the contents they made, close,
 * and put a fresh FIFO in its place for the next reader.  And run the
 * write probes of each FIFO that has data, once per read() of it
 * ($value: the bytes read, at most the file's buffer size).  Returns
 * how many probe runs there were.
 */
unsigned run_fifo_serve(struct run_fifo *ff, struct rt_ctx *c);

/* Remove the FIFOs (and the directory, if made); frees @ff's memory. */
void run_fifo_free(struct run_fifo *ff);

#endif
