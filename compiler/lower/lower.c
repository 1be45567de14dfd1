/*
 * lower.c - pass 3: the elaborated program to a run plan (see lower.h).
 *
 * In: sema's probes, functions and globals.  Out: struct ir_prog.  This
 * file drives the pass (lower_run()) and lowers each probe, @entry
 * probe, function and global; the code itself comes from lower_code.c,
 * the kernel plan from lower_plan.c.
 */
#include "lower_int.h"
#include "arena.h"
#include "diag.h"
#include "format.h"
#include "source.h"
#include "resolve_tpfmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- probes, functions, globals ---- */

static void lw_frame(struct lw_ctx *c, struct ir_code *code,
		     struct sem_sym *const *locals, unsigned n)
{
	unsigned i;

	code->nlocals = c->nslots;
	code->local_types = arena_alloc(c->arena, (c->nslots + 1) * sizeof(enum rt_type));
	for (i = 0; i < c->nslots; i++)
		code->local_types[i] = i < n ? lw_rt(locals[i]->type) : RT_STRING;
}

/* The probe's own condition, for what the kernel filter doesn't cover. */
static void lw_probe_cond(struct lw_ctx *c, unsigned idx)
{
	const struct sem_probe *p = c->probe;
	const struct lw_probe_guards *g = c->guards ? &c->guards[idx] : NULL;
	unsigned i, j;

	if (!p->cond)
		return;
	if (!g || p->kind != SEM_P_TRACE) {
		lw_expr(c, p->cond);
		j = lw_emit(c, IR_JNZ, 0, 0, 0);
		lw_emit(c, IR_NEXT, 0, 0, 0);
		lw_patch(c, j, lw_here(c));
		return;
	}
	for (i = 0; i < g->n; i++) {
		if (g->v[i].origin || (g->removable && g->v[i].filter))
			continue;
		lw_expr(c, g->v[i].expr);
		j = lw_emit(c, IR_JNZ, 0, 0, 0);
		lw_emit(c, IR_NEXT, 0, 0, 0);
		lw_patch(c, j, lw_here(c));
	}
}

static const enum ir_probe_kind lw_kinds[] = {
	[SEM_P_BEGIN] = IR_P_BEGIN, [SEM_P_END] = IR_P_END,
	[SEM_P_ERROR] = IR_P_ERROR, [SEM_P_TRACE] = IR_P_EVENT,
	[SEM_P_TIMER] = IR_P_TIMER, [SEM_P_INPUT_CHAR] = IR_P_INPUT_CHAR,
	[SEM_P_INPUT_LINE] = IR_P_INPUT_LINE, [SEM_P_PROMETHEUS] = IR_P_PROMETHEUS,
	[SEM_P_PROCFS_READ] = IR_P_PROCFS_READ, [SEM_P_PROCFS_WRITE] = IR_P_PROCFS_WRITE,
};

/* Probe point @p as the script writes it (-t's "from:"). */
static const char *lw_written(struct lw_ctx *c, const struct ast_ppoint *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = p ? open_memstream(&buf, &len) : NULL;
	const char *s;

	if (!f)
		return NULL;
	ast_print_ppoint(f, p);
	fclose(f);
	s = arena_strdup(c->arena, buf ? buf : "");
	free(buf);
	return s;
}

static void lw_probe(struct lw_ctx *c, unsigned idx)
{
	const struct sem_probe *p = c->sp->probes[idx];
	struct ir_probe *irp = &c->ir->probes[idx];

	irp->kind = lw_kinds[p->kind];
	irp->pp = p->pp;
	irp->pn = p->family ? p->family : p->pp;
	irp->priority = p->priority;
	irp->period_ns = p->period_ns;
	irp->randomize_ns = p->randomize_ns;
	irp->procfs_file = p->procfs_file;
	irp->procfs_max = p->procfs_max;
	irp->procfs_umask = p->procfs_umask;
	if (p->kind == SEM_P_TRACE || p->self_trigger)
		irp->event = lw_event(c, p->event);
	irp->trigger = p->self_trigger;
	c->probe = p;
	c->event = p->event;
	c->func = NULL;
	c->irp = irp;
	c->code = &irp->code;
	c->nslots = p->nlocals;
	/* -t's location: the probe declaration, as stap's (its 'probe'). */
	c->at = p->decl.end ? p->decl : p->span;
	c->near = "probe";
	irp->loc = lw_loc(c);
	irp->written = lw_written(c, p->point);
	c->at = p->span;
	irp->lowered = c->lowered && c->lowered[idx];
	if (!irp->lowered) {	/* else its hist triggers do it all */
		lw_probe_cond(c, idx);
		lw_stmt(c, p->body);
	}
	lw_emit(c, IR_NEXT, 0, 0, 0);
	lw_frame(c, &irp->code, p->locals, p->nlocals);
}

static void lw_add_probe(struct lw_ctx *c, unsigned ev, unsigned probe)
{
	struct ir_event *e = &c->ir->events[ev];

	e->probes = arena_grow(c->arena, e->probes, e->nprobes, &e->pcap, sizeof(*e->probes));
	e->probes[e->nprobes++] = probe;
}

/*
 * The @entry values of return probe @idx are computed by probe @at on
 * the function's entry event: its code evaluates each @entry operand in
 * slot order (target variables are the entry event's fields; clocks,
 * tid() and globals are the entry's) and hands them over with EPUSH.
 */
static void lw_entry_probe(struct lw_ctx *c, unsigned idx, unsigned at)
{
	const struct sem_probe *p = c->sp->probes[idx];
	struct ir_probe *ret = &c->ir->probes[idx], *irp = &c->ir->probes[at];
	unsigned i;

	ret->nentry = p->nentries;
	ret->entry_types = arena_alloc(c->arena, (p->nentries + 1) * sizeof(enum rt_type));
	irp->kind = IR_P_EVENT;
	irp->pp = p->pp;
	irp->pn = p->family ? p->family : p->pp;
	irp->entry_of = idx + 1;
	irp->event = lw_event(c, p->event->dyn_entry);
	c->probe = p;
	c->event = p->event->dyn_entry;
	c->func = NULL;
	c->irp = irp;
	c->code = &irp->code;
	c->nslots = 0;
	if (c->lowered && c->lowered[idx]) {	/* the entry's hist trigger does it */
		irp->lowered = true;
		lw_emit(c, IR_NEXT, 0, 0, 0);
		lw_frame(c, &irp->code, NULL, 0);
		return;
	}
	lw_add_probe(c, irp->event, at);
	for (i = 0; i < p->nentries; i++) {
		ret->entry_types[i] = lw_rt(sem_final_type(p->entries[i]));
		c->at = p->entries[i]->span;
		c->near = "@entry";
		lw_expr(c, p->entries[i]);
	}
	lw_emit(c, IR_EPUSH, 0, p->nentries, 0);
	lw_emit(c, IR_NEXT, 0, 0, 0);
	lw_frame(c, &irp->code, NULL, 0);
}

/*
 * A copy specialised for one probe (sema_spec.c) reads that probe's
 * fields, or, called inside @entry(), those of the probe's entry probe.
 */
static void lw_func_site(struct lw_ctx *c, const struct sem_func *f)
{
	unsigned i, k;

	for (i = 0; i < c->sp->nprobes; i++) {
		if (c->sp->probes[i] != f->site)
			continue;
		c->probe = f->site;
		c->irp = &c->ir->probes[i];
		c->event = f->site->event;
		for (k = 0; f->at_entry && k < c->ir->nprobes; k++)
			if (c->ir->probes[k].entry_of == i + 1) {
				c->irp = &c->ir->probes[k];
				c->event = f->site->event->dyn_entry;
			}
	}
}

static void lw_func(struct lw_ctx *c, unsigned idx)
{
	const struct sem_func *f = c->sp->funcs[idx];
	struct ir_func *irf = &c->ir->funcs[idx];

	irf->name = f->name;
	irf->nparams = f->nparams;
	irf->ret = lw_rt(f->ret);
	c->probe = NULL;
	c->func = f;
	c->irp = NULL;
	if (f->site)
		lw_func_site(c, f);
	c->code = &irf->code;
	c->nslots = f->nlocals;
	c->at = f->ast->span;
	c->near = "function";
	lw_stmt(c, f->ast->body);
	lw_emit(c, IR_RETV, 0, 0, 0);
	lw_frame(c, &irf->code, f->locals, f->nlocals);
}

static void lw_global(struct lw_ctx *c, const struct sem_sym *s,
		      struct ir_global *g)
{
	unsigned k;

	g->name = s->name;
	g->type = lw_rt(s->type);
	g->is_array = s->is_array;
	g->nkeys = s->nkeys;
	for (k = 0; k < s->nkeys; k++)
		g->keys[k] = lw_rt(s->keys[k]);
	/* written, never read: printed at exit, as stap does the script's
	   globals (not the tapset's own, such as argv.stp's argv) */
	g->autoprint = s->written && !s->read && !s->library;
	g->hist_log = s->hist_log;
	g->hist_linear = s->hist_linear;
	g->lin_start = s->lin_start;
	g->lin_stop = s->lin_stop;
	g->lin_step = s->lin_step;
	g->variance_shift = s->variance_shift;
	if (s->decl) {
		g->wrap = s->decl->wrap;
		g->maxentries = s->decl->is_array ? s->decl->size : 0;
		if (s->decl->init && s->decl->init->kind == AST_NUM)
			g->init = rt_long(s->decl->init->num);
		else if (s->decl->init)
			g->init = rt_str(s->decl->init->str, (uint32_t)s->decl->init->len);
	}
}

struct ir_prog *lower_run(struct arena *a, struct diag_sink *d,
			  const struct src_map *src, const struct sem_prog *p,
			  const struct lower_options *opt)
{
	struct lw_ctx c;
	unsigned i, n;

	memset(&c, 0, sizeof(c));
	c.arena = a;
	c.diag = d;
	c.src = src;
	c.sp = p;
	c.kretactive = opt->kretactive;
	c.empty_sum_error = opt->empty_sum_error;
	c.old_pointers = opt->old_pointers;
	c.ir = arena_alloc(a, sizeof(*c.ir));
	c.ir->nglobals = p->nglobals;
	c.ir->globals = arena_alloc(a, (p->nglobals + 1) * sizeof(*c.ir->globals));
	for (i = 0; i < p->nglobals; i++)
		lw_global(&c, p->globals[i], &c.ir->globals[i]);
	lw_plan_events(&c, opt);
	for (i = 0, n = p->nprobes; i < p->nprobes; i++)
		n += p->probes[i]->nentries > 0;
	c.ir->nprobes = n;
	c.ir->probes = arena_alloc(a, (n + 1) * sizeof(*c.ir->probes));
	for (i = 0; i < p->nprobes; i++)
		lw_probe(&c, i);
	for (i = 0, n = p->nprobes; i < p->nprobes; i++)
		if (p->probes[i]->nentries)
			lw_entry_probe(&c, i, n++);
	c.ir->nfuncs = p->nfuncs;
	c.ir->funcs = arena_alloc(a, (p->nfuncs + 1) * sizeof(*c.ir->funcs));
	for (i = 0; i < p->nfuncs; i++)
		lw_func(&c, i);
	if (!d->errors) {
		lower_track(a, c.ir, opt->tracefs);
		lower_stack(a, c.ir, opt->explain);
		lw_target_prefilter(&c, opt);
	}
	return d->errors ? NULL : c.ir;
}
