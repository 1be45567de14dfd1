/*
 * run_hist.c - pass 5: globals kept in kernel hists, read into the store.
 *
 * In: the plan's hreads (pass 3's lower_hist.c: which hist trigger holds
 * which global and how its keys and values map to the script's), the
 * hist files of ktap's instance (through run_source.read_hist) and the
 * process table (rt_ctx.proc).  Out: the store's copy of each global,
 * replaced as a whole, before end, error and timer probes read it, so
 * printing and foreach stay as they are.
 *
 * The kernel keys on common_pid (a thread id); pid() and execname() are
 * resolved here through ktap's process tracking, never with the
 * kernel's .execname (saved cmdlines, wrong for exited processes).  A
 * thread that exec'd or renamed itself while ktap ran has one entry
 * under its last name: that is warned about, with the count.  Keys are
 * u64 in the hist: a signed field narrower than 64 bits is
 * sign-extended back; sums are u64 and reinterpreted.
 *
 * Order: the kernel prints a hist sorted by hitcount, ties in its
 * tracing map's slot order (hashes of pids that change from run to
 * run), so the entries are read in key order instead: an unsorted
 * foreach of a lowered array, and the ties of a sorted one, come out the
 * same for the same workload (thread ids ascending, which is the order
 * the threads were created in while pids do not wrap).  It is not
 * --no-lower's order (first seen), which no hist records.
 */
#define _GNU_SOURCE		/* qsort_r */
#include "run.h"
#include "hist_parse.h"
#include "rt_ctx.h"
#include "store.h"
#include "ksym.h"
#include "syscall_table.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rh_warn {
	int *renamed;		/* the renamed threads met, each once */
	unsigned n, cap;
	unsigned gone;		/* entries of threads /proc no longer has */
	unsigned full;		/* entries the store's array had no room for */
	const struct ksym_names *names;	/* kallsyms by name, for stack keys */
	unsigned unknown;	/* stack frames kallsyms does not have */
	unsigned ambiguous;	/* stack frames of a name several symbols share */
	unsigned deep;		/* stacks at the kernel's depth limit */
};

/* The kernel's HIST_STACKTRACE_DEPTH (6.1; 31 on the newest kernels). */
#define RH_STACK_DEPTH 16

/*
 * A stack key as backtrace() would give it: the hist prints its frames
 * symbolically (%pS), which kallsyms turns back into the addresses
 * (symbol + offset).  Into @buf (@len bytes); its length.
 */
static size_t rh_stack(const struct hist_parse_key *hk, struct rh_warn *w, char *buf,
		       size_t len)
{
	size_t i, n = 0;
	uint64_t addr;
	int rc;

	buf[0] = '\0';
	w->deep += hk->n_frames >= RH_STACK_DEPTH;
	for (i = 0; i < hk->n_frames; i++) {
		rc = ksym_frame_addr(w->names, hk->frames[i], &addr);
		if (rc < 0) {
			w->unknown++;
			addr = 0;
		}
		w->ambiguous += rc > 0;
		rc = ksym_format_parts(NULL, NULL, addr, 0, 0, KSYM_FMT_HEX, 0, buf + n, len - n);
		if (rc < 0 || (size_t)rc >= len - n)
			break;
		n += (size_t)rc;
	}
	return n;
}

static void rh_renamed(struct rh_warn *w, int tid)
{
	unsigned i;
	int *v;

	for (i = 0; i < w->n; i++)
		if (w->renamed[i] == tid)
			return;
	if (w->n == w->cap) {
		v = realloc(w->renamed, (w->cap * 2 + 8) * sizeof(*v));
		if (!v)
			return;
		w->renamed = v;
		w->cap = w->cap * 2 + 8;
	}
	w->renamed[w->n++] = tid;
}

static int64_t rh_sext(uint64_t u, const struct ir_hkey *k)
{
	unsigned bits = k->size * 8;

	if (!k->is_signed || bits == 0 || bits >= 64)
		return (int64_t)u;
	u &= (UINT64_C(1) << bits) - 1;
	if (u & (UINT64_C(1) << (bits - 1)))
		u |= ~((UINT64_C(1) << bits) - 1);
	return (int64_t)u;
}

/* @a and @b equal but for blanks and a leading '$' (a variable's). */
static bool rh_same(const char *a, const char *b)
{
	if (!a || !b)
		return !a && !b;
	a += *a == '$';
	b += *b == '$';
	for (;;) {
		while (*a == ' ')
			a++;
		while (*b == ' ')
			b++;
		if (*a != *b)
			return false;
		if (!*a)
			return true;
		a++;
		b++;
	}
}

/*
 * The hist trigger of @r among the file's: same keys and values, and
 * the same filter when several have those (two probes on one event).
 */
static const struct hist_parse_trigger *rh_find(const struct ir_prog *p,
						const struct ir_hread *r,
						const struct hist_parse_file *f, int target)
{
	const struct kp_trigger *kt = &p->kplan.objs[r->obj].u.trigger;
	const struct kp_hist *h = &kt->hist;
	const struct hist_parse_trigger *first = NULL;
	struct kp_env env = { .target = target };
	char *filter = kt->filter ? kp_expand(kt->filter, &env) : NULL;
	size_t i, k;

	for (i = 0; i < f->n_triggers; i++) {
		const struct hist_parse_trigger *t = &f->triggers[i];

		if (t->n_keys != h->nkeys || t->n_vals != h->nvals + 1)
			continue;
		for (k = 0; k < h->nkeys && rh_same(t->keys[k].name, h->keys[k].field); k++)
			;
		if (k < h->nkeys)
			continue;
		for (k = 0; k < h->nvals && rh_same(t->vals[k + 1].name, h->vals[k]); k++)
			;
		if (k < h->nvals)
			continue;
		if (!first)
			first = t;
		if (rh_same(t->filter, filter)) {
			first = t;
			break;
		}
	}
	free(filter);
	return first;
}

/* The value of exact reading @r's entry @e: its last key, or the
   constant every value was (s <<< N). */
static int64_t rh_value(const struct ir_hread *r, const struct hist_parse_entry *e)
{
	const struct ir_hkey *k = &r->keys[r->nkeys - 1];

	if (k->kind == IR_HK_CONST)
		return k->cnum;
	return rh_sext(e->keys[k->col].u, k) / (r->div > 1 ? r->div : 1);
}

/* One entry into the store. */
static void rh_entry(struct rt_ctx *ctx, const struct ir_hread *r,
		     const struct hist_parse_trigger *t, const struct hist_parse_entry *e,
		     struct rh_warn *w)
{
	struct rt_value keys[IR_HREAD_KEYS];
	char comm[IR_HREAD_KEYS][24], stk[IR_HREAD_KEYS][1024];
	unsigned i, n = 0, nk = r->nkeys - (r->val == IR_HV_STATX);
	int64_t hits = (int64_t)e->vals[0];
	uint64_t val = t->n_vals > 1 ? e->vals[1] : 0;
	const struct rt_proc *pr;
	const char *name;
	struct rt_value cur;

	for (i = 0; i < nk; i++) {
		const struct ir_hkey *k = &r->keys[i];
		const struct hist_parse_key *hk = k->col >= 0 && (size_t)k->col < t->n_keys ?
						  &e->keys[k->col] : NULL;

		if (k->kind == IR_HK_CONST) {
			keys[n++] = k->is_string ? rt_cstr(k->cstr) : rt_long(k->cnum);
			continue;
		}
		if (!hk)
			return;
		switch (k->kind) {
		case IR_HK_NONE: case IR_HK_CONST:
			continue;
		case IR_HK_FIELD:
			if (k->is_string && !hk->str) {	/* a string of digits */
				snprintf(comm[i], sizeof(comm[i]), "%" PRIu64, hk->u);
				keys[n++] = rt_cstr(comm[i]);
			} else if (k->is_string) {
				keys[n++] = rt_str(hk->str, (uint32_t)strlen(hk->str));
			} else {
				keys[n++] = rt_long(rh_sext(hk->u, k));
			}
			continue;
		case IR_HK_KSTACK:
			keys[n++] = rt_str(stk[i], (uint32_t)rh_stack(hk, w, stk[i], sizeof(stk[i])));
			continue;
		case IR_HK_SYSCALL:	/* entries of numbers with one name add up */
			name = sct_name(rh_sext(hk->u, k));
			keys[n++] = rt_cstr(name ? name : "");
			continue;
		case IR_HK_TID: case IR_HK_CPU:
			keys[n++] = rt_long(rh_sext(hk->u, k));
			continue;
		case IR_HK_PID: case IR_HK_EXECNAME:
			pr = ctx->proc(ctx, (int)rh_sext(hk->u, k));
			if (pr->renamed)
				rh_renamed(w, pr->tid);
			/* born before ktap started (no fork seen), gone by now */
			w->gone += !strcmp(pr->comm, "<...>");
			if (k->kind == IR_HK_PID) {
				keys[n++] = rt_long(pr->tgid);
				continue;
			}
			memcpy(comm[i], pr->comm, sizeof(pr->comm));
			comm[i][15] = 0;
			keys[n++] = rt_cstr(comm[i]);
			continue;
		}
	}
	/* wrapping u64 arithmetic, as the user-space path's int64 */
	if (r->sign2 && t->n_vals > 2)
		val += r->sign2 > 0 ? e->vals[2] : -e->vals[2];
	val += (uint64_t)r->vconst * (uint64_t)hits;
	switch (r->val) {
	case IR_HV_COUNT: case IR_HV_SUM:
		cur = n ? st_aget(ctx->store, r->global, keys) : st_get(ctx->store, r->global);
		cur = rt_long((int64_t)((uint64_t)cur.l + (r->val == IR_HV_SUM ? val :
					 (uint64_t)hits * (uint64_t)r->mult)));
		if (n)
			w->full += st_aset(ctx->store, r->global, keys, cur) == ST_FULL;
		else
			st_set(ctx->store, r->global, cur);
		break;
	case IR_HV_STAT:
		w->full += st_stat_bulk(ctx->store, r->global, n ? keys : NULL, (int64_t)val, hits,
					false) == ST_FULL;
		break;
	case IR_HV_STATX:	/* a .buckets=div key's low end is a multiple of div */
		w->full += st_stat_bulk(ctx->store, r->global, n ? keys : NULL,
					rh_value(r, e), hits, true) == ST_FULL;
		break;
	case IR_HV_DROPS: case IR_HV_UNMATCHED:
		break;
	}
}

/* Order two keys of one column: numbers, then strings, then stacks. */
static int rh_key_cmp(const struct hist_parse_key *a, const struct hist_parse_key *b)
{
	size_t i;
	int c;

	if (!a->str != !b->str)
		return a->str ? 1 : -1;
	if (a->str && (c = strcmp(a->str, b->str)) != 0)
		return c;
	if (a->u != b->u)
		return a->u < b->u ? -1 : 1;
	if (a->hi != b->hi)
		return a->hi < b->hi ? -1 : 1;
	for (i = 0; i < a->n_frames && i < b->n_frames; i++)
		if ((c = strcmp(a->frames[i], b->frames[i])) != 0)
			return c;
	return a->n_frames < b->n_frames ? -1 : a->n_frames > b->n_frames;
}

/* qsort_r: entries by their key columns, first column first. */
static int rh_entry_cmp(const void *x, const void *y, void *arg)
{
	const struct hist_parse_entry *a = *(const struct hist_parse_entry *const *)x;
	const struct hist_parse_entry *b = *(const struct hist_parse_entry *const *)y;
	size_t i, n = *(const size_t *)arg;
	int c;

	for (i = 0; i < n; i++)
		if ((c = rh_key_cmp(&a->keys[i], &b->keys[i])) != 0)
			return c;
	return 0;
}

/* @t's entries in key order (malloc'd), or NULL when out of memory. */
static const struct hist_parse_entry **rh_sorted(const struct hist_parse_trigger *t)
{
	const struct hist_parse_entry **v = malloc((t->n_entries + 1) * sizeof(*v));
	size_t i, n = t->n_keys;

	if (!v)
		return NULL;
	for (i = 0; i < t->n_entries; i++)
		v[i] = &t->entries[i];
	qsort_r(v, t->n_entries, sizeof(*v), rh_entry_cmp, &n);
	return v;
}

static void rh_read(const struct ir_prog *p, struct rt_ctx *ctx,
		    const struct run_source *src, const struct ir_hread *r, bool final)
{
	const char *gname = p->globals[r->global].name;
	struct hist_parse_file *f = NULL;
	const struct hist_parse_trigger *t;
	struct hist_parse_error err;
	struct rh_warn w = { NULL, 0, 0, 0, 0, NULL, 0, 0, 0 };
	const struct hist_parse_entry **sorted;
	size_t len = 0, i;
	char *text = src->read_hist ? src->read_hist(src->ctx, r->system, r->event, &len) : NULL;

	if (!text || hist_parse_text(text, len, &f, &err) != 0 || !(t = rh_find(p, r, f, ctx->target_pid))) {
		rt_report(ctx, RT_REPORT_WARNING, NULL, "cannot read the kernel's hist of %s on %s:%s%s%s",
			gname, r->system, r->event, text && !f ? ": " : "",
			text && !f ? err.msg : "");
		free(text);
		hist_parse_free(f);
		return;
	}
	w.n = 0;
	for (i = 0; i < r->nkeys; i++)
		if (r->keys[i].kind == IR_HK_KSTACK && ctx->ksym && !ctx->ksym_names)
			ctx->ksym_names = ksym_names_new(ctx->ksym);
	w.names = ctx->ksym_names;
	sorted = r->val < IR_HV_DROPS ? rh_sorted(t) : NULL;	/* DROPS: no entries */
	for (i = 0; r->val < IR_HV_DROPS && i < t->n_entries; i++)
		rh_entry(ctx, r, t, sorted ? sorted[i] : &t->entries[i], &w);
	free(sorted);
	if (final && t->dropped)
		rt_report(ctx, RT_REPORT_WARNING, NULL, "the kernel's hist of %s on %s:%s was full: %" PRIu64
			" events dropped (size=%" PRIu64 "; raise -D MAXMAPENTRIES or declare "
			"%s[N])", gname, r->system, r->event, t->dropped, t->size, gname);
	if (final && w.n)
		rt_report(ctx, RT_REPORT_WARNING, NULL, "%u thread%s in %s changed name (exec or rename) "
			"while ktap ran: any hits from before are counted under the last name "
			"(--no-lower keeps the names apart)",
			w.n, w.n == 1 ? "" : "s", gname);
	/* The kernel's map is a power of two of at least 128 entries: more
	   keys than the array's own limit can come back (stap: "Array
	   overflow" in the handler). */
	if (w.full)
		rt_report(ctx, RT_REPORT_WARNING, NULL, "%u entr%s of the kernel's hist of %s did not fit in "
			"the array (its [N] or MAXMAPENTRIES)", w.full, w.full == 1 ? "y" : "ies",
			gname);
	if (final && w.gone)
		rt_report(ctx, RT_REPORT_WARNING, NULL, "%u entr%s of %s: the thread had exited before ktap "
			"read the kernel's hist and was not seen starting: named \"<...>\" "
			"(--no-lower reads names as the events come)", w.gone,
			w.gone == 1 ? "y" : "ies", gname);
	if (final && w.deep)
		rt_report(ctx, RT_REPORT_WARNING, NULL, "%u stack%s of %s reached the kernel's hist limit of %d "
			"frames and may be cut there (--no-lower keeps them whole)", w.deep,
			w.deep == 1 ? "" : "s", gname, RH_STACK_DEPTH);
	if (final && w.unknown)
		rt_report(ctx, RT_REPORT_WARNING, NULL, "%u frame%s of the kernel's stacks of %s not in kallsyms: "
			"shown as 0x0", w.unknown, w.unknown == 1 ? "" : "s", gname);
	if (final && w.ambiguous)
		rt_report(ctx, RT_REPORT_WARNING, NULL, "%u frame%s of the kernel's stacks of %s name%s a symbol "
			"kallsyms has more than once (of that size): the first taken",
			w.ambiguous, w.ambiguous == 1 ? "" : "s", gname, w.ambiguous == 1 ? "s" : "");
	free(w.renamed);
	free(text);
	hist_parse_free(f);
}

/* The Hits of @r's hist; -1 when it cannot be read. */
static int rh_hits(const struct ir_prog *p, struct rt_ctx *ctx, const struct run_source *src,
		   const struct ir_hread *r, uint64_t *hits)
{
	struct hist_parse_file *f = NULL;
	const struct hist_parse_trigger *t;
	struct hist_parse_error err;
	size_t len = 0;
	char *text = src->read_hist ? src->read_hist(src->ctx, r->system, r->event, &len) : NULL;
	int rc = -1;

	if (text && hist_parse_text(text, len, &f, &err) == 0 &&
	    (t = rh_find(p, r, f, ctx->target_pid))) {
		*hits = t->hits;
		rc = 0;
	}
	free(text);
	hist_parse_free(f);
	return rc;
}

/*
 * An @entry pair: a return the kernel found no entry time for (its
 * variable was overwritten by a nested call of the same thread, or the
 * call began before ktap started) fired no synthetic event.  Say how
 * many: the user-space path counts nested calls.
 */
static void rh_unmatched(const struct ir_prog *p, struct rt_ctx *ctx,
			 const struct run_source *src, const struct ir_hread *r)
{
	uint64_t returns, matched;

	if (rh_hits(p, ctx, src, r, &returns) != 0 ||
	    rh_hits(p, ctx, src, &p->hreads[r->pair], &matched) != 0 || returns <= matched)
		return;
	fprintf(stderr, "WARNING: %" PRIu64 " return%s on %s:%s had no entry time in the "
		"kernel's hist (calls nested in one thread, or begun before ktap started): "
		"not in %s (--no-lower counts nested calls)\n", returns - matched,
		returns - matched == 1 ? "" : "s", r->system, r->event,
		p->globals[r->global].name);
}

int run_hist_stacks(const struct ir_prog *p, const struct ksym_table *ksym)
{
	unsigned i, k;

	for (i = 0; i < p->nhreads; i++)
		for (k = 0; k < p->hreads[i].nkeys; k++)
			if (p->hreads[i].keys[k].kind == IR_HK_KSTACK &&
			    (!ksym || ksym_hidden(ksym))) {
				fprintf(stderr, "ERROR: %s is keyed by kernel stacks kept in the "
					"kernel's hist, whose frames only kallsyms turns back into "
					"addresses, and %s: run with --no-lower\n",
					p->globals[p->hreads[i].global].name, !ksym ?
					"kallsyms could not be read" : "/proc/kallsyms hides the "
					"addresses (kernel.kptr_restrict, or no CAP_SYSLOG)");
				return -1;
			}
	return 0;
}

void run_hist_clear(const struct ir_prog *p, const struct run_source *src, unsigned g)
{
	unsigned i, k;
	char *line;

	for (i = 0; i < p->nhreads; i++) {
		if (p->hreads[i].global != g)
			continue;
		for (k = 0; k < i && p->hreads[k].obj != p->hreads[i].obj; k++)
			;
		if (k < i || !src->hist_cmd)	/* that trigger is cleared already */
			continue;
		line = kp_hist_cmd_line(&p->kplan.objs[p->hreads[i].obj], KP_HIST_CLEAR);
		if (!line || src->hist_cmd(src->ctx, &p->kplan.objs[p->hreads[i].obj], line) != 0)
			fprintf(stderr, "WARNING: cannot clear the kernel's hist of %s on %s:%s\n",
				p->globals[g].name, p->hreads[i].system, p->hreads[i].event);
		free(line);
	}
}

void run_hist_load(const struct ir_prog *p, struct rt_ctx *ctx,
		   const struct run_source *src, bool final)
{
	unsigned i, k;

	for (i = 0; i < p->nhreads; i++) {
		for (k = 0; k < i && p->hreads[k].global != p->hreads[i].global; k++)
			;
		if (k == i && p->hreads[i].val < IR_HV_DROPS)	/* first of its global: */
			st_reset(ctx->store, p->hreads[i].global);	/* replace the store's */
	}
	for (i = 0; i < p->nhreads; i++)	/* a Dropped count matters at the end */
		if (p->hreads[i].val == IR_HV_UNMATCHED) {
			if (final)
				rh_unmatched(p, ctx, src, &p->hreads[i]);
		} else if (final || p->hreads[i].val != IR_HV_DROPS) {
			rh_read(p, ctx, src, &p->hreads[i], final);
		}
}
