/*
 * run.c - pass 5: the session loop (see run.h).
 *
 * One thread, one poll() over the reader's per-CPU fds and a signalfd
 * (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD).  The process
 * table is run_proc.c's, the -c command run_child.c's.  The instance's trace clock is
 * CLOCK_MONOTONIC, the clock timers and -T are kept in, so everything
 * happens in one time line: a timer that is due at T runs after every
 * event recorded before T and before every event after it, and at the
 * stop every event recorded before the stop is handled, none after.
 * The price is the reader's hold-back window (about 10 ms of latency).
 *
 * A plan without events (begin/end/timers only) never touches tracefs,
 * which is what makes `probe begin { exit() }` start in milliseconds.
 */
#define _GNU_SOURCE
#include "run.h"
#include "reader.h"
#include "rt_builtins.h"
#include "fileio.h"
#include "run_child.h"
#include "run_progress.h"
#include "run_entry.h"
#include "run_proc.h"
#include "run_input.h"
#include "run_prom.h"
#include "run_fifo.h"
#include "run_fields.h"
#include "run_trigger.h"
#include "rt_stack.h"
#include "usym.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <traceevent/event-parse.h>
#include <unistd.h>
#include <wordexp.h>

#define RUN_MAX_FDS 256
#define RUN_NEVER UINT64_MAX

/* user_stack's 8 frames and the return address of a uprobe at entry */
#define RUN_USTACK_MAX 9

struct run {
	const struct ir_prog *prog;
	const struct run_options *opt;
	struct rt_ctx ctx;
	struct rdr *rdr;		/* NULL: the plan has no events */
	bool source_open;
	const struct rdr_record *cur;	/* the record being handled */
	struct run_fields fields;	/* what the probes read of records */
	uint64_t *due;			/* per probe: next tick of a timer */
	uint64_t deadline;		/* -T */
	int sigfd;
	struct run_child child;		/* -c */
	bool stopping;
	bool out_failed;		/* a write of the output failed */
	bool child_failed;		/* the -c command could not run */
	uint64_t stop_ns;		/* handle the events before this */
	/* No handler runs for an event before the begin probes ended: in
	   stap, a probe that fires while the session is starting is skipped. */
	uint64_t begun_ns;
	uint64_t nevents;		/* records handled, for -v */
	struct run_procs procs;
	const struct rdr_field **track;	/* per event: fields if tracked */
	struct run_entries entries;	/* @entry values of calls in flight */
	bool *want_stack;		/* per event: the reader pairs its stacks */
	const struct rdr_field **ra;	/* per event: IR_STACK_RA_FIELD, or NULL */
	uint64_t ustk[RUN_USTACK_MAX];	/* a user stack with its return address */
	int maps_tgid;			/* the last maps refresh: whose, when */
	uint64_t maps_at;
	struct run_input input;		/* input.char/input.line: stdin */
	struct run_progress progress;	/* -v: a line a second */
	struct run_fifo fifo;		/* procfs("NAME").read: FIFOs */
	struct run_trigger trig;	/* begin/end probes' own records */
};

void run_default_limits(struct rt_limits *lim)
{
	*lim = (struct rt_limits){ .maxmapentries = 2048, .maxaction = 1000,
				   .maxerrors = 0, .maxnesting = 10,
				   .maxstringlen = RT_MAXSTRINGLEN, .hist_elision = 2 };
}

static uint64_t run_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

/* The run's time line: CLOCK_MONOTONIC, or a recording's (run.h). */
static uint64_t run_clock(const struct run *r)
{
	const struct run_source *src = &r->opt->source;

	return src->now ? src->now(src->ctx) : run_now();
}

/* The fields of the tracked events; a tracking run's table is seeded. */
static int run_resolve_track(struct run *r)
{
	unsigned i;

	r->track = calloc(RUN_PROC_FIELDS * r->prog->nevents + 1, sizeof(*r->track));
	if (!r->track || run_proc_resolve(r->prog, r->rdr, r->track) != 0)
		return -1;
	for (i = 0; i < r->prog->nevents; i++)
		if (r->prog->events[i].track) {
			run_proc_seed_all(&r->procs);
			break;
		}
	return 0;
}

static void run_cb_hist_clear(struct rt_ctx *c, unsigned g)
{
	struct run *r = c->runner;

	run_hist_clear(r->prog, &r->opt->source, g);
}

/*
 * Process @tgid's maps into usym, read from /proc the first time ktap
 * sees the process (or again after its exec), so that its user
 * addresses can still be symbolised after it has exited.
 */
static void run_cb_maps(struct rt_ctx *c, int tgid, bool refresh)
{
	struct run *r = c->runner;
	char path[64], err[128], *text;
	uint64_t now;
	size_t len;

	if (!c->usym || tgid <= 0 || (!refresh && usym_has_process(c->usym, tgid)))
		return;
	if (refresh) {
		/* at most every 50 ms per process: [vdso] and JIT frames are
		   in no file mapping for good */
		now = run_now();
		if (tgid == r->maps_tgid && now - r->maps_at < 50000000)
			return;
		r->maps_tgid = tgid;
		r->maps_at = now;
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", tgid);
	text = fio_read(path, &len);
	if (text)
		usym_add_process(c->usym, tgid, text, len, err, sizeof(err));
	free(text);
}

/*
 * At a uprobe on a function's entry the kernel's frame-pointer walk
 * misses the caller: put its return address (fetched by the uprobe,
 * lower_stack.c) back as the second frame.  (Not "unless the walk's
 * next frame is the same address": in a recursion it is, rightly.)
 */
static void run_user_ra(struct run *r, const struct rdr_record *rec, struct rt_event *ev)
{
	const struct rdr_field *f = r->ra ? r->ra[rec->index] : NULL;
	uint64_t ra;
	unsigned n;

	if (!f || !ev->nustack)
		return;
	ra = (uint64_t)rdr_field_num(f, rec);
	if (!ra)
		return;
	n = ev->nustack < RUN_USTACK_MAX - 1 ? ev->nustack : RUN_USTACK_MAX - 1;
	r->ustk[0] = ev->ustack[0];
	r->ustk[1] = ra;
	memcpy(&r->ustk[2], &ev->ustack[1], (n - 1) * sizeof(r->ustk[0]));
	ev->ustack = r->ustk;
	ev->nustack = n + 1;
}

/* The reader pairs the stack records with the events that want them. */
static int run_pair_stacks(struct run *r)
{
	const struct ir_prog *p = r->prog;
	int k = -1, u = -1;
	unsigned i;

	if (!(p->stacks & (IR_STACK_KERNEL | IR_STACK_USER)))
		return 0;
	r->want_stack = calloc(p->nevents + 1, sizeof(*r->want_stack));
	r->ra = calloc(p->nevents + 1, sizeof(*r->ra));
	if (!r->want_stack || !r->ra)
		return -1;
	for (i = 0; i < p->nevents; i++) {
		r->want_stack[i] = p->events[i].stacks != 0;
		if (p->events[i].uentry_ra)
			r->ra[i] = rdr_field(r->rdr, i, IR_STACK_RA_FIELD);
		if (p->events[i].stack_rec == IR_STACK_KERNEL)
			k = (int)i;
		if (p->events[i].stack_rec == IR_STACK_USER)
			u = (int)i;
	}
	rdr_pair_stacks(r->rdr, k, u, r->want_stack);
	return 0;
}

static const struct rt_proc *run_cb_proc(struct rt_ctx *c, int tid)
{
	struct run *r = c->runner;

	return run_proc_get(&r->procs, tid, false);
}

/* ---- event fields ---- */

/* @entry value @idx of the call the running return probe ends. */
static struct rt_value run_cb_entry_get(struct rt_ctx *c, unsigned idx)
{
	const struct rt_value *v = run_entries_get(&((struct run *)c->runner)->entries, idx);

	if (v)
		return *v;
	/* no frame: not reached, a probe with @entry runs only after its entry */
	return c->probe->entry_types[idx] == RT_STRING ? rt_str("", 0) : rt_long(0);
}

/* EPUSH of an entry probe: keep its values for this thread's return. */
static void run_cb_entry_push(struct rt_ctx *c, const struct rt_value *v, unsigned n)
{
	if (c->ev && c->probe->entry_of)
		run_entries_push(&((struct run *)c->runner)->entries, c->ev->tid,
				 c->probe->entry_of - 1, v, n);
}

static bool run_cb_field_fault(struct rt_ctx *c, unsigned idx)
{
	struct run *r = c->runner;

	return run_fields_faulted(&r->fields, (unsigned)(c->probe - r->prog->probes), idx,
				  r->cur);
}

static struct rt_value run_cb_field(struct rt_ctx *c, unsigned idx)
{
	struct run *r = c->runner;

	return run_fields_value(&r->fields, (unsigned)(c->probe - r->prog->probes), idx,
				r->cur);
}

static struct rt_value run_cb_parms(struct rt_ctx *c)
{
	struct run *r = c->runner;

	return run_fields_parms(&r->fields, r->rdr, c, r->cur);
}

/* ---- probes ---- */

/*
 * Must the rest of @kind's probes be skipped?  stap runs a begin probe
 * only while the session is still starting: after exit() (oneshot's) or
 * too many errors in an earlier begin probe, the later ones do not run.
 */
static bool run_kind_stopped(const struct run *r, enum ir_probe_kind kind)
{
	return r->ctx.aborting || (kind == IR_P_BEGIN && r->ctx.exiting);
}

/* Run probe @i: a trigger probe on ktap's own record, if it came. */
static void run_one(struct run *r, unsigned i)
{
	const struct rdr_record *t = run_trigger_record(&r->trig, r->prog, i);
	struct rt_event ev;

	if (!r->prog->probes[i].trigger) {
		rt_run_probe(&r->ctx, i, NULL);
		return;
	}
	if (!t) {
		rt_report(&r->ctx, RT_REPORT_ERROR, NULL, "probe %s: ktap's own record of "
			  "%s:%s, which it reads task_current() from, did not come",
			  r->prog->probes[i].pp, r->prog->events[r->prog->probes[i].event].system,
			  r->prog->events[r->prog->probes[i].event].name);
		return;
	}
	ev = (struct rt_event){ t->ts, t->cpu, t->pid, t->data, t->size, t->event, NULL, NULL,
				0, 0 };
	r->cur = t;
	rt_run_probe(&r->ctx, i, &ev);
	r->cur = NULL;
}

/* Run every probe of @kind, lowest priority first, in declaration order. */
static void run_kind(struct run *r, enum ir_probe_kind kind)
{
	const struct ir_prog *p = r->prog;
	int64_t prio = 0, next = 0;
	bool have = false, found;
	unsigned i;

	for (;;) {
		found = false;
		for (i = 0; i < p->nprobes; i++) {
			int64_t pr = p->probes[i].priority;

			if (p->probes[i].kind == kind && (!have || pr > prio) &&
			    (!found || pr < next)) {
				next = pr;
				found = true;
			}
		}
		if (!found)
			return;
		for (i = 0; i < p->nprobes; i++)
			if (p->probes[i].kind == kind && p->probes[i].priority == next &&
			    !run_kind_stopped(r, kind))
				run_one(r, i);
		prio = next;
		have = true;
	}
}

/*
 * exit() (or too many errors) while handling something at @when: no
 * record from @when on runs a handler, even when a signal or the -c
 * command's end asked to stop at a later time already.
 */
static void run_check_exit(struct run *r, uint64_t when)
{
	if (!(r->ctx.exiting || r->ctx.failed || r->ctx.aborting))
		return;
	if (!r->stopping || when < r->stop_ns) {
		r->stopping = true;
		r->stop_ns = when;
	}
}

static void run_stop_at(struct run *r, uint64_t when)
{
	if (!r->stopping) {
		r->stopping = true;
		r->stop_ns = when;
	}
}

static bool run_past_stop(const struct run *r, uint64_t ts)
{
	return r->stopping && ts >= r->stop_ns;
}

static void run_record(struct run *r, const struct rdr_record *rec)
{
	const struct ir_event *e = &r->prog->events[rec->index];
	struct rt_event ev = { rec->ts, rec->cpu, rec->pid, rec->data, rec->size,
			       rec->event, rec->kstack, rec->ustack, rec->nkstack,
			       rec->nustack };
	unsigned k;

	if (run_prom_own(r->opt->prom, rec->pid))
		return;		/* ktap's own HTTP server thread */
	if (run_trigger_keep(&r->trig, r->prog, rec))
		return;		/* a begin or end probe's own record */
	if (e->track)
		run_proc_track(&r->procs, &r->track[rec->index * RUN_PROC_FIELDS], rec,
			       e->track);
	run_user_ra(r, rec, &ev);
	if (e->kstack_tp)
		rt_stack_from_probe_point(&r->ctx, &ev);
	if (r->ctx.usym) {
		/* first sight (or exec): keep the maps while the process lives;
		   of one gone since, the last read stays (a -c child's, at its
		   exit) */
		int tgid = run_proc_get(&r->procs, rec->pid, false)->tgid;

		if (e->track & IR_TRACK_EXEC)
			r->maps_tgid = 0;
		run_cb_maps(&r->ctx, tgid, (e->track & IR_TRACK_EXEC) != 0);
	}
	r->cur = rec;
	r->nevents++;
	/* After exit() no handler runs, not even another one of this record;
	   nor before the begin probes ended (the records are still tracked). */
	for (k = 0; k < e->nprobes && !run_past_stop(r, rec->ts) && rec->ts >= r->begun_ns;
	     k++) {
		/* A return whose entry ktap did not see (a system call that
		   began before the run, a lost record) does not run its
		   @entry probe: as in stap, a return fires after its entry. */
		if (r->prog->probes[e->probes[k]].nentry &&
		    !run_entries_pop(&r->entries, rec->pid, e->probes[k]))
			continue;
		rt_run_probe(&r->ctx, e->probes[k], &ev);
		run_check_exit(r, rec->ts);
		run_entries_done(&r->entries);
	}
	r->cur = NULL;
}

static void run_handle(void *arg, const struct rdr_record *rec)
{
	run_record(arg, rec);
}

/*
 * The records of @kind's trigger probes (run_trigger.h): the records
 * read meanwhile are handled as ever (no handler runs for one before
 * the begin probes ended, or past the stop).
 */
static void run_trigger(struct run *r, enum ir_probe_kind kind)
{
	run_trigger_fire(&r->trig, r->prog, r->rdr, kind, run_handle, r);
}

/*
 * Handle records before @until.  @timeout_ms as for rdr_next(): 0 takes
 * only what is deliverable now.  Returns the reader's last answer.
 */
static void run_signal(struct run *r);

/*
 * Look at the signals at least every RUN_SIGNAL_NS while handling
 * records: while records keep coming faster than ktap handles them (a
 * flood on another CPU, slow handlers, a sanitizer build), the loop
 * below never runs dry, and without this the -c command's end, SIGINT
 * and SIGTERM would wait for a quiet moment that never comes.  A stop
 * bounds the reading to the records before it.  The clock is read every
 * 64 records only.
 */
#define RUN_SIGNAL_NS 20000000ULL

static void run_scrape_state(void *arg, uint64_t at);

static void run_signal_check(struct run *r, uint64_t *last)
{
	struct pollfd p[2] = { { r->sigfd, POLLIN, 0 },
			       { run_prom_fd(r->opt->prom), POLLIN, 0 } };
	uint64_t now = run_now();

	if (now - *last < RUN_SIGNAL_NS)
		return;
	*last = now;
	run_progress_tick(&r->progress, now, r->nevents, r->rdr, r->prog, r->ctx.store, stderr);
	if (poll(p, 2, 0) <= 0)
		return;
	if (p[0].revents)
		run_signal(r);
	if (p[1].revents)	/* behind the records: answer from here */
		run_prom_serve(r->opt->prom, &r->ctx, run_scrape_state, r, false);
}

static int run_events(struct run *r, uint64_t until, int timeout_ms)
{
	struct rdr_record rec;
	uint64_t checked = run_now();
	unsigned seen = 0;
	int n;

	if (!r->rdr)
		return RDR_UNTIL;
	while ((n = rdr_next(r->rdr, &rec, until, timeout_ms)) == RDR_RECORD) {
		run_record(r, &rec);
		if (++seen % 64 == 0 && !r->stopping)
			run_signal_check(r, &checked);
		if (r->stopping && until > r->stop_ns)
			until = r->stop_ns;
	}
	if (n == RDR_ERROR)
		rt_report(&r->ctx, RT_REPORT_ERROR, NULL, "%s", rdr_error(r->rdr));
	return n;
}

/* ---- timers ---- */

static uint64_t run_period(const struct ir_probe *p)
{
	int64_t period = p->period_ns;

	if (p->randomize_ns)
		period += (int64_t)((uint64_t)random() % (uint64_t)(2 * p->randomize_ns + 1)) -
			  p->randomize_ns;
	return period < 1 ? 1 : (uint64_t)period;
}

/*
 * The earliest timer tick or the -T deadline; *@probe is the timer or -1.
 * A tick due exactly at the deadline still runs: timer.ms(100) with -T 1
 * fires 10 times.
 */
static uint64_t run_next_due(struct run *r, int *probe)
{
	uint64_t t = r->deadline;
	unsigned i;

	*probe = -1;
	for (i = 0; i < r->prog->nprobes; i++)
		if (r->due[i] < t || (*probe < 0 && r->due[i] == t && t != RUN_NEVER)) {
			t = r->due[i];
			*probe = (int)i;
		}
	return t;
}

/* Handle every record before @due (waiting out the reader's window). */
static void run_until(struct run *r, uint64_t due)
{
	int n;

	do
		n = run_events(r, due, 50);
	while (n == RDR_NONE && !r->stopping);
}

/* Time @due has come: the records before it, then the timer tick or the -T stop. */
static void run_due(struct run *r, uint64_t due, int probe)
{
	run_until(r, due);
	if (r->stopping)
		return;
	if (probe < 0) {
		run_stop_at(r, due);
		return;
	}
	r->due[probe] = due + run_period(&r->prog->probes[probe]);
	if (r->prog->nhreads)
		run_hist_load(r->prog, &r->ctx, &r->opt->source, false);
	rt_run_probe(&r->ctx, (unsigned)probe, NULL);
	run_check_exit(r, due);
}

/*
 * --prometheus (run_prom.c): the state a scrape at @at answers from, as
 * a timer tick's: every record before @at (unless @at is 0: behind a
 * flood, the state after the last record handled), kernel hists read.
 */
static void run_scrape_state(void *arg, uint64_t at)
{
	struct run *r = arg;

	if (at)
		run_until(r, at);
	if (r->prog->nhreads)
		run_hist_load(r->prog, &r->ctx, &r->opt->source, false);
}

/* ---- set-up ---- */

static int run_timers(struct run *r, uint64_t start)
{
	const struct ir_prog *p = r->prog;
	unsigned i;

	r->due = malloc((p->nprobes + 1) * sizeof(*r->due));
	if (!r->due)
		return -1;
	for (i = 0; i < p->nprobes; i++)
		r->due[i] = p->probes[i].kind == IR_P_TIMER ?
			    start + run_period(&p->probes[i]) : RUN_NEVER;
	r->deadline = r->opt->timeout_s ?
		      start + (uint64_t)r->opt->timeout_s * 1000000000 : RUN_NEVER;
	return 0;
}

static int run_signals(struct run *r)
{
	/* No SIGCHLD when the -c child stops or goes on (run_child.h): a
	   script tracing signals would see ktap's machinery in the target;
	   but a child held at its exit is a ptrace stop, which wants one. */
	struct sigaction chld = { .sa_handler = SIG_DFL,
				  .sa_flags = r->prog->stacks & IR_STACK_MAPS ? 0 : SA_NOCLDSTOP };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	sigaddset(&set, SIGPIPE);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, NULL) != 0 || sigaction(SIGCHLD, &chld, NULL) != 0)
		return -1;
	r->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return r->sigfd < 0 ? -1 : 0;
}

/* ---- the loop ---- */

/*
 * Flush the script's output.  A failed write (a full disk, /dev/full, a
 * closed pipe) ends the session: the output is lost from there on, so
 * the run stops as if exit() was called now and the exit status is 1.
 * The error is reported once; a closed pipe (`ktap ... | head`) is not
 * an error worth a message, as for a program that SIGPIPE would kill.
 */
static void run_flush(struct run *r)
{
	int e;

	rt_flush(&r->ctx);
	e = r->ctx.out_errno;
	if (r->out_failed || !e)
		return;
	r->out_failed = true;
	if (e != EPIPE)
		fprintf(stderr, "ERROR: writing %s: %s\n",
			r->opt->out_name ? r->opt->out_name : "stdout", strerror(e));
	run_stop_at(r, run_clock(r));
}

/*
 * Signals: SIGCHLD reaps every child (the -c command and system()'s
 * shells); the -c command's end, SIGINT, SIGTERM, SIGHUP, SIGQUIT and
 * SIGPIPE stop the run (every signal a terminal or a shell pipeline
 * sends: the kernel state is undone on the way out).  Blocked signals
 * are queued even when the shell started ktap with them ignored (as it
 * does SIGINT and SIGQUIT for background jobs).
 */
static void run_signal(struct run *r)
{
	struct signalfd_siginfo si;
	pid_t pid;
	int status;

	while (read(r->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo != SIGCHLD) {
			run_stop_at(r, run_clock(r));
			continue;
		}
		while ((pid = waitpid(-1, &status, __WALL | WNOHANG)) > 0) {
			bool at_exit;

			if (pid == r->child.pid && run_child_stop(&r->child, status, &at_exit)) {
				if (at_exit) {	/* its maps, the last time they exist */
					r->maps_tgid = 0;
					run_cb_maps(&r->ctx, pid, true);
					run_child_go(&r->child);
				}
				continue;
			}
			if (pid == r->child.pid) {
				r->child.pid = 0;
				run_stop_at(r, run_now());
			}
		}
	}
}

static int run_timeout(struct run *r, uint64_t due)
{
	uint64_t now = run_now();
	int t = -1, rt;

	if (due != RUN_NEVER)
		t = due <= now ? 0 : (int)((due - now + 999999) / 1000000);
	if (r->rdr && (rt = rdr_timeout_ms(r->rdr)) >= 0 && (t < 0 || rt < t))
		t = rt;
	if (run_fifo_active(&r->fifo) && (t < 0 || t > RUN_FIFO_MS))
		t = RUN_FIFO_MS;
	return run_progress_timeout(&r->progress, now, t);
}

/*
 * Wait for a signal, a timer, or (once RUN_QUIET_NS have passed since
 * the last read) data.  The quiet period matters: every read is a
 * system call that itself makes records when the script traces system
 * calls or the scheduler, and reading on every wake-up would make ktap
 * chase its own tail.  Records wait in the kernel's buffers meanwhile,
 * and the reader holds them back 10 ms anyway.
 */
#define RUN_QUIET_NS 5000000ULL

static void run_wait(struct run *r, uint64_t due, uint64_t last_read)
{
	struct pollfd fds[RUN_MAX_FDS];
	uint64_t now = run_now(), quiet_end = last_read + RUN_QUIET_NS;
	int n = 1, t = run_timeout(r, due);

	fds[0] = (struct pollfd){ r->sigfd, POLLIN, 0 };
	fds[1] = (struct pollfd){ run_input_fd(&r->input), POLLIN, 0 };	/* -1: ignored */
	fds[2] = (struct pollfd){ run_prom_fd(r->opt->prom), POLLIN, 0 };
	n = 3;
	if (r->rdr && now < quiet_end) {
		int q = (int)((quiet_end - now + 999999) / 1000000);

		t = t < 0 || q < t ? q : t;
	} else if (r->rdr) {
		n += rdr_pollfds(r->rdr, fds + n, RUN_MAX_FDS - n);
	}
	if (poll(fds, (nfds_t)n, t) < 0 && errno != EINTR)
		run_stop_at(r, run_now());
	if (fds[0].revents)
		run_signal(r);
	if (fds[1].revents) {
		run_input_read(&r->input, &r->ctx);
		run_check_exit(r, run_clock(r));
		run_flush(r);
	}
	if (fds[2].revents) {
		run_prom_serve(r->opt->prom, &r->ctx, run_scrape_state, r, true);
		run_check_exit(r, run_now());
		run_flush(r);
	}
	if (run_fifo_serve(&r->fifo, &r->ctx)) {
		run_check_exit(r, run_now());
		run_flush(r);
	}
}

static void run_loop(struct run *r)
{
	uint64_t due, last_read;
	int probe;

	/* A recording without events to read has no time line to run on. */
	if (r->opt->source.now && !r->rdr)
		run_stop_at(r, RUN_NEVER);
	while (!r->stopping) {
		due = run_next_due(r, &probe);
		if (due <= run_clock(r)) {
			run_due(r, due, probe);
			run_flush(r);
			continue;
		}
		last_read = run_now();
		/* Only a replay ends by itself. */
		if (run_events(r, due, 0) == RDR_END)
			run_stop_at(r, RUN_NEVER);
		run_flush(r);
		/* A recording has read up to @due by now: no waiting. */
		if (!r->stopping && !r->opt->source.now)
			run_wait(r, due, last_read);
		run_progress_tick(&r->progress, run_now(), r->nevents, r->rdr, r->prog,
				  r->ctx.store, stderr);
	}
}

/* Stop: every record before the stop, then end (or error) probes. */
/*
 * Kprobes the kernel skipped: a kretprobe whose maxactive instances were
 * all in flight, a kprobe hit while another probe ran on the CPU.  stap
 * counts them as skipped probes and (with -t) names each; ktap always
 * names them, in stap's words.  Returns the total.
 */
static uint64_t run_missed(struct run *r)
{
	const struct ir_prog *p = r->prog;
	int64_t *missed;
	uint64_t total = 0;
	unsigned i;

	if (!r->opt->source.missed || !(missed = calloc(p->nevents + 1, sizeof(*missed))))
		return 0;
	r->opt->source.missed(r->opt->source.ctx, p, missed);
	for (i = 0; i < p->nevents; i++) {
		if (!p->events[i].kprobe_pp || missed[i] <= 0)
			continue;
		rt_lost(&r->ctx, p->events[i].kretprobe ? "kretprobe/1" : "kprobe",
			p->events[i].kprobe_pp, (uint64_t)missed[i]);
		total += (uint64_t)missed[i];
	}
	free(missed);
	return total;
}

static void run_finish(struct run *r)
{
	uint64_t skipped = 0;
	uint64_t lost = 0;
	struct rdr_stats st = { 0 };
	int n;

	if (r->rdr) {
		run_trigger(r, IR_P_END);	/* while the instance records */
		if (r->opt->source.stop)
			r->opt->source.stop(r->opt->source.ctx);
		rdr_drain(r->rdr);
		do
			n = run_events(r, r->stop_ns, -1);
		while (n == RDR_NONE);
		rdr_get_stats(r->rdr, &st);
		lost = st.lost;
	}
	if (r->prog->nhreads)
		run_hist_load(r->prog, &r->ctx, &r->opt->source, true);
	if (r->ctx.failed)
		run_kind(r, IR_P_ERROR);
	else if (!r->ctx.aborting) {
		run_kind(r, IR_P_END);
		if (!r->ctx.failed && !r->ctx.lim.no_autoprint)
			rt_autoprint(&r->ctx);
	}
	rt_timing_report(&r->ctx);
	if (r->rdr)
		skipped = run_missed(r);
	if (r->opt->verbose) {	/* after the end probes' output, as stap's -v */
		rt_flush(&r->ctx);
		fprintf(stderr, "Pass 5: handled %" PRIu64 " events, %" PRIu64 " lost, %"
			PRIu64 " written to the ring buffer\n", r->nevents, lost, st.written);
	}
	if (lost)
		rt_lost(&r->ctx, "events", NULL, lost);
	if (r->ctx.errors || r->ctx.suppressed || skipped)
		rt_report(&r->ctx, RT_REPORT_WARNING, NULL,
			  "Number of errors: %u, skipped probes: %" PRIu64,
			  r->ctx.errors + r->ctx.suppressed, skipped);
	run_flush(r);
}

static void run_cleanup(struct run *r)
{
	if (r->source_open && r->opt->source.thread_name)
		run_proc_each(&r->procs, r->opt->source.thread_name, r->opt->source.ctx);
	if (r->source_open && r->opt->source.close)
		r->opt->source.close(r->opt->source.ctx);
	run_child_end(&r->child);
	run_fields_free(&r->fields);
	free(r->track);
	run_entries_free(&r->entries);
	run_proc_free(&r->procs);
	run_input_free(&r->input);
	run_fifo_free(&r->fifo);
	free(r->due);
	free(r->want_stack);
	free(r->ra);
	run_trigger_free(&r->trig);
	usym_free(r->ctx.usym);
	if (r->sigfd >= 0)
		close(r->sigfd);
	rt_fini(&r->ctx);
}

static int run_setup(struct run *r)
{
	int target = r->opt->target_pid;
	char why[512];

	if (run_signals(r) != 0) {
		perror("ktap: signalfd");
		return -1;
	}
	if (run_fifo_init(&r->fifo, r->prog, r->opt->procfs_dir, !r->opt->prom, why,
			  sizeof(why)) != 0) {
		fprintf(stderr, "ktap: error: %s\n", why);
		return -1;
	}
	if (r->opt->command) {
		if (run_child_spawn(&r->child, r->opt->command,
				    run_fifo_env(&r->fifo)) != 0) {
			perror("ktap: fork");
			return -1;
		}
		target = r->child.pid;
		run_proc_seed_child(&r->procs, (int)getpid(), target);
	}
	if (rt_init(&r->ctx, r->prog, r->opt->out, &r->opt->limits) != 0)
		return -1;
	r->ctx.runner = r;
	r->ctx.json = r->opt->json;
	r->ctx.out_name = r->opt->out_name;
	r->ctx.target_pid = target > 0 ? target : 0;
	r->ctx.field = run_cb_field;
	r->ctx.field_fault = run_cb_field_fault;
	r->ctx.entry_get = run_cb_entry_get;
	r->ctx.entry_push = run_cb_entry_push;
	r->ctx.parms = run_cb_parms;
	r->ctx.proc = run_cb_proc;
	if (r->prog->nhreads)
		r->ctx.hist_clear = run_cb_hist_clear;
	r->ctx.ksym = r->opt->ksym;
	if (run_hist_stacks(r->prog, r->ctx.ksym) != 0)
		return -1;
	if (r->prog->stacks & IR_STACK_MAPS) {
		r->ctx.usym = usym_new(r->opt->debuginfo_path);
		r->ctx.maps = run_cb_maps;
	}
	r->procs.comm = r->opt->source.comm;
	r->procs.comm_ctx = r->opt->source.ctx;
	if (r->prog->nevents) {
		struct kp_env env = { .target = r->ctx.target_pid };

		/* One wall-clock offset for the run, known before the plan is
		   applied ($WALL%D in gettimeofday_us() latency pairs). */
		r->ctx.boot_offset_ns = rt_wall_offset_ns();
		env.wall_ns = r->ctx.boot_offset_ns;
		r->source_open = true;
		r->rdr = r->opt->source.open(r->opt->source.ctx, r->prog, &env);
		if (!r->rdr || run_fields_resolve(&r->fields, r->prog, r->rdr) != 0 ||
		    run_resolve_track(r) != 0 || run_trigger_init(&r->trig, r->prog) != 0 ||
		    run_pair_stacks(r) != 0)
			return -1;
	}
	return 0;
}

int run_plan(const struct ir_prog *p, const struct run_options *opt)
{
	struct run *r = calloc(1, sizeof(*r));
	char why[512];
	int status = 1;

	if (!r)
		return 1;
	r->prog = p;
	r->opt = opt;
	r->sigfd = -1;
	r->child = (struct run_child){ .status = -1 };
	run_input_init(&r->input, p);
	if (run_setup(r) != 0)
		goto out;
	r->begun_ns = RUN_NEVER;	/* no handler runs for a record yet */
	run_trigger(r, IR_P_BEGIN);
	run_kind(r, IR_P_BEGIN);
	/* a replay's records (a source with nothing to stop) all count */
	r->begun_ns = r->opt->source.stop ? run_clock(r) : 0;
	run_progress_init(&r->progress, opt->verbose > 0, run_now());
	if (run_timers(r, run_clock(r)) != 0)
		goto out;
	run_check_exit(r, run_clock(r));
	run_flush(r);
	r->child.hold_exit = (r->prog->stacks & IR_STACK_MAPS) != 0;
	if (run_child_release(&r->child, why, sizeof(why)) != 0) {
		rt_report(&r->ctx, RT_REPORT_ERROR, NULL, "%s", why);
		r->child_failed = true;
		run_stop_at(r, run_now());
	}
	run_loop(r);
	run_finish(r);
	status = r->ctx.failed || r->ctx.errors || r->out_failed || r->child_failed ? 1 : 0;
out:
	run_cleanup(r);
	free(r);
	return status;
}
