/*
 * driver_run.c - pass 5 from the command line: the -D limits, -o, -T,
 * -c and -x options turned into run_options, and the live source.
 */
#include "driver.h"
#include "session.h"
#include "arena.h"

#include "../runtime/ksym.h"
#include "../runtime/live.h"
#include "../runtime/run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* -D NAME=VALUE for the limits the runtime has; stap's others are C
   macros for its generated module, which ktap does not have. */
static int drv_limit(struct rt_limits *lim, const struct ktap_define *d)
{
	static const struct { const char *name; size_t off; } names[] = {
		{ "MAXMAPENTRIES", offsetof(struct rt_limits, maxmapentries) },
		{ "MAXACTION", offsetof(struct rt_limits, maxaction) },
		{ "MAXACTION_INTERRUPTIBLE",
		  offsetof(struct rt_limits, maxaction_interruptible) },
		{ "MAXERRORS", offsetof(struct rt_limits, maxerrors) },
		{ "MAXNESTING", offsetof(struct rt_limits, maxnesting) },
		{ "MAXSTRINGLEN", offsetof(struct rt_limits, maxstringlen) },
		{ "STP_MAX_BUCKETS", offsetof(struct rt_limits, max_buckets) },
		{ "STP_PROCFS_BUFSIZE", offsetof(struct rt_limits, procfs_bufsize) },
	};
	char *end;
	unsigned long v;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(d->name, names[i].name) != 0)
			continue;
		errno = 0;
		v = strtoul(d->value, &end, 0);
		if (errno || *end || !*d->value || v > 100000000 ||
		    (v == 0 && strcmp(d->name, "MAXERRORS") != 0)) {
			fprintf(stderr, "ktap: error: -D %s expects a number%s, got '%s'\n",
				d->name, strcmp(d->name, "MAXERRORS") ? " > 0" : "",
				d->value);
			return -1;
		}
		*(unsigned *)((char *)lim + names[i].off) = (unsigned)v;
		return 0;
	}
	if (!strcmp(d->name, "KRETACTIVE"))	/* pass 3's (drv_kretactive) */
		return 0;
	if (!strcmp(d->name, "STP_TIMING")) {	/* -t is stap's -DSTP_TIMING */
		lim->timing = true;
		return 0;
	}
	fprintf(stderr, "WARNING: -D %s has no effect in ktap (known: MAXMAPENTRIES, "
		"MAXACTION, MAXACTION_INTERRUPTIBLE, MAXERRORS, MAXNESTING, MAXSTRINGLEN, "
		"STP_MAX_BUCKETS, STP_PROCFS_BUFSIZE, KRETACTIVE, STP_TIMING)\n", d->name);
	return 0;
}

static int drv_limits(const struct ktap_session *s, struct rt_limits *lim)
{
	unsigned i;

	run_default_limits(lim);
	lim->no_action_limit = s->opt.no_time_limits;
	for (i = 0; i < s->opt.ndefines; i++)
		if (drv_limit(lim, &s->opt.defines[i]) != 0)
			return -1;
	return 0;
}

/* --replay DIR: the recorded records instead of the kernel's. */
/*
 * Where procfs("NAME").read probes put their files (stap's
 * /proc/systemtap/MODULE/): KTAP_PROCFS_DIR, else /run/ktap/ktap_PID as
 * root and /tmp/ktap_PID otherwise.  Lives in the session's arena.
 */
static const char *drv_procfs_dir(struct ktap_session *s)
{
	if (s->env.procfs_dir && *s->env.procfs_dir)
		return s->env.procfs_dir;
	return arena_printf(s->arena, geteuid() == 0 ? "/run/ktap/ktap_%d" : "/tmp/ktap_%d",
			    (int)getpid());
}

static int drv_replay(struct ktap_session *s, struct run_options *ro)
{
	struct replay *rp = replay_new(s->opt.replay_dir);
	int status;

	if (!rp)
		return 1;
	replay_source(rp, &ro->source);
	status = run_plan(s->ir, ro);
	replay_free(rp);
	return status;
}

int drv_pass5(struct ktap_session *s)
{
	struct live_options lo = { NULL, (unsigned)s->opt.verbose };
	struct run_options ro = { 0 };
	struct ksym_table *ksyms;
	struct live *live;
	int status;

	if (drv_limits(s, &ro.limits) != 0)
		return 1;
	ro.timeout_s = s->opt.timeout_s;
	ro.command = s->opt.command;
	ro.target_pid = s->opt.target_pid;
	ro.verbose = (unsigned)s->opt.verbose;
	ro.debuginfo_path = s->env.debuginfo_path;
	ro.procfs_dir = drv_procfs_dir(s);
	ro.out = stdout;
	ro.out_name = s->opt.output;
	ro.json = s->opt.json;
	if (s->opt.output && !(ro.out = fopen(s->opt.output, "w"))) {
		fprintf(stderr, "ktap: error: cannot open %s: %s\n", s->opt.output,
			strerror(errno));
		return 1;
	}
	ksyms = session_ksyms(s);
	ro.ksym = ksyms;
	if (s->opt.replay_dir) {
		status = drv_replay(s, &ro);
		goto out;
	}
	live = live_new(&lo);
	if (!live) {
		status = 1;
		goto out;
	}
	live_source(live, &ro.source);
	status = run_plan(s->ir, &ro);
	live_free(live);
out:
	ksym_free(ksyms);
	/* A write error during the run was reported by run_plan() already. */
	if (ro.out != stdout && fclose(ro.out) != 0 && status == 0) {
		fprintf(stderr, "ktap: error: writing %s: %s\n", s->opt.output,
			strerror(errno));
		status = 1;
	}
	return status;
}
