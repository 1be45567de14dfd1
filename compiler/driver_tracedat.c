/*
 * driver_tracedat.c - the command line's side of trace-cmd recordings
 * (doc/trace-cmd.md): -i FILE runs a script over a recording, --record
 * FILE writes one while the script runs live.  What the options allow
 * together, and -p3's account of which recorded events feed which probe.
 * The target description of a recording is target_tracedat.c's; the
 * record source and the writer are the runtime's (runtime/recorded.h,
 * runtime/tracedat_write.h).
 */
#include "driver.h"
#include "session.h"

#include <stdio.h>
#include <string.h>

int drv_tracedat_check(const struct ktap_session *s)
{
	const struct ktap_options *o = &s->opt;
	const char *clash = NULL;

	if (!o->input_file && !o->record_file)
		return 0;
	if (o->input_file && o->record_file)
		clash = "--record";
	else if (o->target_dir)
		clash = "--target";
	else if (o->replay_dir)
		clash = "--replay";
	else if (o->save_target)
		clash = "--save-target";
	else if (o->input_file && o->command)
		clash = "-c";
	else if (o->input_file && o->target_pid > 0)
		clash = "-x";
	if (!clash)
		return 0;
	fprintf(stderr, "ktap: error: %s %s does not go with %s%s\n",
		o->input_file ? "-i" : "--record",
		o->input_file ? o->input_file : o->record_file, clash,
		o->input_file && (o->command || o->target_pid > 0) ?
		" (a recording has no live process: target() is 0)" : "");
	fprintf(stderr, "Try 'ktap --help' for more information.\n");
	return 1;
}

/* The probes that read event @i, as "probe 0 PP, probe 2 PP". */
static void drv_td_readers(const struct ir_prog *p, unsigned i, FILE *out)
{
	const struct ir_event *e = &p->events[i];
	unsigned k;

	for (k = 0; k < e->nprobes; k++)
		fprintf(out, "%s probe %u %s", k ? "," : "", e->probes[k],
			p->probes[e->probes[k]].pp);
	if (e->track)
		fprintf(out, "%s process tracking (execname(), pid(), ...)",
			e->nprobes ? "," : "");
	if (e->stack_rec)
		fprintf(out, "%s the stacks of other records", e->nprobes ? "," : "");
	if (!e->nprobes && !e->track && !e->stack_rec)
		fputs(" (nothing)", out);
}

int drv_tracedat_plan(struct ktap_session *s)
{
	const struct ir_prog *p = s->ir;
	unsigned i;
	int rc = 0;

	for (i = 0; s->target.recording && i < p->nevents; i++) {
		/* ktap's own dynamic events are named with placeholders */
		if (!strchr(p->events[i].system, '$') && !strchr(p->events[i].name, '$'))
			continue;
		diag_plain(&s->diag, DIAG_ERROR, "probe %s needs a %s event ktap would create "
			   "in the kernel, and -i %s is a recording: record a kprobe or "
			   "uprobe event with it (trace-cmd record -e GROUP:EVENT) and probe "
			   "kernel.trace(\"GROUP:EVENT\")",
			   p->events[i].nprobes ? p->probes[p->events[i].probes[0]].pp : "?",
			   p->events[i].kprobe_pp ? "kprobe" : "dynamic", s->target.recording);
		rc = -1;
	}
	return rc;
}

void drv_tracedat_dump(const struct ktap_session *s, FILE *out)
{
	const struct ir_prog *p = s->ir;
	unsigned i;

	fprintf(out, "# recording %s: %d CPUs, nothing written to a kernel; the "
		"recorded events each probe reads\n", s->target.recording,
		s->target.recording_cpus);
	for (i = 0; i < p->nevents; i++) {
		fprintf(out, "read %s:%s ->", p->events[i].system, p->events[i].name);
		drv_td_readers(p, i, out);
		fputc('\n', out);
	}
}
