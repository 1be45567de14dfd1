/*
 * driver_run.c - pass 5 from the command line: the -D limits, -o, -T,
 * -c and -x options turned into run_options, and the source: live (with
 * --record's writer), or a recording (-i, --replay).
 */
#include "driver.h"
#include "session.h"
#include "arena.h"

#include "../runtime/ksym.h"
#include "../runtime/live.h"
#include "../runtime/run.h"
#include "../runtime/recorded.h"
#include "../runtime/tracedat_write.h"
#include "../runtime/run_prom.h"

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
	if (!strcmp(d->name, "HIST_ELISION")) {	/* negative is meaningful */
		long e;

		errno = 0;
		e = strtol(d->value, &end, 0);
		if (errno || *end || !*d->value || e < -1000 || e > 1000) {
			fprintf(stderr, "ktap: error: -D HIST_ELISION expects a number, got '%s'\n",
				d->value);
			return -1;
		}
		lim->hist_elision = (int)e;
		return 0;
	}
	if (!strcmp(d->name, "STP_TIMING")) {	/* -t is stap's -DSTP_TIMING */
		lim->timing = true;
		return 0;
	}
	fprintf(stderr, "WARNING: -D %s has no effect in ktap (known: MAXMAPENTRIES, "
		"MAXACTION, MAXACTION_INTERRUPTIBLE, MAXERRORS, MAXNESTING, MAXSTRINGLEN, "
		"STP_MAX_BUCKETS, STP_PROCFS_BUFSIZE, HIST_ELISION, KRETACTIVE, STP_TIMING)\n",
		d->name);
	return 0;
}

static int drv_limits(const struct ktap_session *s, struct rt_limits *lim)
{
	unsigned i;

	run_default_limits(lim);
	lim->no_action_limit = s->opt.no_time_limits;
	lim->suppress_errors = s->opt.suppress_handler_errors;
	lim->no_autoprint = s->opt.no_global_display;
	for (i = 0; i < s->opt.ndefines; i++)
		if (drv_limit(lim, &s->opt.defines[i]) != 0)
			return -1;
	return 0;
}

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

/* --replay DIR or -i FILE: recorded records instead of the kernel's. */
static int drv_recorded(struct ktap_session *s, struct run_options *ro, const char *path,
			bool tracedat)
{
	struct recorded *rc = recorded_new(path, tracedat);
	int status;

	if (!rc)
		return 1;
	recorded_source(rc, &ro->source);
	status = run_plan(s->ir, ro);
	recorded_free(rc);
	return status;
}

/* --record FILE: the writer, created before the run (a bad path fails
   before anything is armed). */
static struct tdw *drv_record_new(const struct ktap_session *s)
{
	char err[TDW_ERRLEN];
	struct tdw *w = tdw_new(s->opt.record_file, err, sizeof(err));

	if (!w)
		fprintf(stderr, "ktap: error: %s\n", err);
	return w;
}

static int drv_record_finish(struct tdw *w)
{
	char err[TDW_ERRLEN];

	if (tdw_finish(w, err, sizeof(err)) == 0)
		return 0;
	fprintf(stderr, "ktap: error: %s\n", err);
	return -1;
}

/*
 * --prometheus: listen before anything else of pass 5 happens, so that
 * a port in use is an error with nothing done to the kernel.  Either of
 * the option and the script's prometheus probes without the other is
 * a warning.  0, or -1 when it cannot listen (said).
 */
static int drv_prometheus_start(const struct ktap_session *s, struct run_options *ro)
{
	bool probes = false;
	char err[256];
	unsigned i;

	for (i = 0; i < s->ir->nprobes; i++)
		probes = probes || s->ir->probes[i].kind == IR_P_PROMETHEUS;
	if (!s->opt.prometheus)	/* served as stap does: the procfs file "__prometheus" */
		return 0;
	if (!probes && !s->opt.no_warnings)
		fprintf(stderr, "WARNING: --prometheus: the script has no prometheus probe: "
			"every scrape's answer is empty\n");
	ro->prom = run_prom_start(s->opt.prometheus, s->opt.verbose > 0, err, sizeof(err));
	if (!ro->prom) {
		fprintf(stderr, "ktap: error: %s\n", err);
		return -1;
	}
	return 0;
}

int drv_pass5(struct ktap_session *s)
{
	struct live_options lo = { .verbose = (unsigned)s->opt.verbose };
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
	if (drv_prometheus_start(s, &ro) != 0) {
		if (ro.out != stdout)
			fclose(ro.out);
		return 1;
	}
	ksyms = session_ksyms(s);
	ro.ksym = ksyms;
	if (s->opt.replay_dir || s->opt.input_file) {
		status = s->opt.replay_dir ? drv_recorded(s, &ro, s->opt.replay_dir, false) :
			 drv_recorded(s, &ro, s->opt.input_file, true);
		goto out;
	}
	if (s->opt.record_file && !(lo.record = drv_record_new(s))) {
		status = 1;
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
	if (lo.record && drv_record_finish(lo.record) != 0 && status == 0)
		status = 1;
	tdw_free(lo.record);
out:
	run_prom_stop(ro.prom);
	ksym_free(ksyms);
	/* A write error during the run was reported by run_plan() already. */
	if (ro.out != stdout && fclose(ro.out) != 0 && status == 0) {
		fprintf(stderr, "ktap: error: writing %s: %s\n", s->opt.output,
			strerror(errno));
		status = 1;
	}
	return status;
}
