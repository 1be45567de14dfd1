/*
 * sema_point.c - pass 2: facts about probe points that every probe-point
 * family needs (sema_probe.c resolves points, sema_syscall.c turns
 * syscall probes into kprobes): a point's canonical text, where the
 * user wrote it, and the dynamic event (kplan.h) a point defines (what
 * the kernel can do is in target.h).
 *
 * In: an AST probe point.  Out: text and objects in the pass's arena.
 * A leaf: calls no other sema_*.c file.
 */
#include "sema_int.h"
#include "arena.h"
#include "diag.h"
#include "fetch.h"
#include "resolve_tpfmt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool sema_point_is(const struct ast_ppoint *p, unsigned k, const char *name)
{
	return k < p->n && strcmp(p->comps[k].name, name) == 0;
}

/*
 * A point that does not resolve on this machine (@why: the back end's
 * reason, a function or marker it lacks): one DIAG_ONCE kind with the
 * other missing points, so a script says the first, and how stap skips it.
 */
void sema_point_unresolved(struct sema_ctx *c, struct src_span at, const char *why)
{
	diag_error(c->diag, at,
		   "%s (a probe point ending in '?' is skipped where it does not resolve)", why);
}

bool sema_point_init_text(struct sema_ctx *c, const char *name)
{
	if (!c->init_loaded) {	/* one read of kallsyms per compile */
		c->ninit_fns = target_init_functions(c->in->target, c->arena, &c->init_fns);
		c->init_loaded = true;
	}
	return target_name_in(c->init_fns, c->ninit_fns, name);
}

/* Make @s (arena-owned, changed in place) a kernel event or argument
   name: [A-Za-z0-9_], not starting with a digit. */
void sema_point_ident(char *s)
{
	char *p;

	for (p = s; *p; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			*p = '_';
	if (s[0] >= '0' && s[0] <= '9')
		s[0] = '_';
}

/* @p as -p1 prints it (the pp() text of a resolved point). */
const char *sema_point_text(struct sema_ctx *c, const struct ast_ppoint *p)
{
	return ast_ppoint_text(c->arena, p);
}

/* "FILE:L:C: POINT" of point @p, for messages at run time. */
const char *sema_point_origin(struct sema_ctx *c, const struct ast_ppoint *p)
{
	const struct src_file *f = src_file(c->diag->src, p->span.file);
	char where[32];

	return arena_printf(c->arena, "%s:%s: %s", f ? f->name : "?",
			    diag_where(c->diag, p->span, where, sizeof(where)),
			    sema_point_text(c, p));
}

struct kp_dynevent *sema_point_dynevent(struct sema_ctx *c, const struct tpf_event *ev,
					enum kp_probe kind, const char *target,
					const char *origin)
{
	struct kp_dynevent *d = arena_alloc(c->arena, sizeof(*d));

	memset(d, 0, sizeof(*d));
	d->kind = kind;
	d->group = ev->system;
	d->name = ev->name;
	d->target = target;
	d->origin = origin;
	return d;
}

static bool sp_is_ustring(const char *arg)
{
	size_t n = strlen(arg);

	return n > 8 && !strcmp(arg + n - 8, ":ustring");
}

/* Does field @f's name begin with @name, for the numbering of names?
   A user string's companion (sp_ustring_companion(), the only x8 fetch)
   takes no number of its own and counts for none. */
static bool sp_numbered(const struct tpf_field *f, const char *name)
{
	size_t n = f->fetch ? strlen(f->fetch) : 0;

	return strncmp(f->name, name, strlen(name)) == 0 &&
	       !(n > 3 && !strcmp(f->fetch + n - 3, ":x8"));
}

/* Field @f of dynamic event @ev: the one with the same fetch, or a new one. */
static int sp_dyn_field(struct sema_ctx *c, struct tpf_event *ev, const struct fetch *f)
{
	/* The kernel takes argument names of at most 31 characters
	   (MAX_ARG_NAME_LEN): long member chains are cut, then numbered
	   (a user string's to leave room for its companion's "_z"). */
	size_t max = sp_is_ustring(f->arg) ? 24 : 27;
	const char *name = strlen(f->name) > max ? arena_strndup(c->arena, f->name, max) : f->name;
	struct tpf_field *nf;
	unsigned i, same = 0;

	for (i = 0; i < ev->nfields; i++) {
		if (ev->fields[i].fetch && !strcmp(ev->fields[i].fetch, f->arg)) {
			ev->fields[i].used = true;
			return (int)i;
		}
		if (sp_numbered(&ev->fields[i], name))
			same++;
	}
	ev->fields = arena_grow(c->arena, ev->fields, ev->nfields, &ev->fcap,
				sizeof(*ev->fields));
	nf = &ev->fields[ev->nfields];
	memset(nf, 0, sizeof(*nf));
	/* Field names must differ: "p_len", "p_len_1", ... */
	nf->name = same ? arena_printf(c->arena, "%s_%u", name, same) : name;
	nf->fetch = f->arg;
	nf->used = true;
	nf->kind = f->is_string ? TPF_DATALOC_STR : TPF_INT;
	if (f->is_string && strchr(strrchr(f->arg, ':'), '['))	/* a byte buffer */
		nf->kind = TPF_CHARS, nf->bytes = nf->element = true;
	nf->size = 8;
	nf->is_signed = true;
	return (int)ev->nfields++;
}

/*
 * A user string a kprobe fetches ("+OFF(ADDR):ustring") gets a
 * companion, its first byte as a number ("+uOFF(ADDR):x8", named NAME_z):
 * before Linux 6.5 the kernel records an empty user string with no
 * bytes, as it records a fault (strncpy_from_user_nofault()), and the
 * runtime tells them apart by it (runtime/reader_field.c).  x8, a type
 * ktap uses for nothing else, keeps it from being shared with a fetch
 * of the script's.
 */
static void sp_ustring_companion(struct sema_ctx *c, struct tpf_event *ev, int i)
{
	const char *arg = ev->fields[i].fetch;
	struct fetch z = { 0 };
	unsigned had = ev->nfields;

	if (!sp_is_ustring(arg) || arg[0] != '+')
		return;
	z.arg = arena_printf(c->arena, "+u%.*s:x8", (int)(strrchr(arg, ':') - arg - 1), arg + 1);
	z.name = arena_printf(c->arena, "%s_z", ev->fields[i].name);
	if (sp_dyn_field(c, ev, &z) == (int)had)
		ev->fields[had].name = z.name;	/* exactly NAME_z, never numbered */
}

/*
 * The same, and for a fetch through task_current() the copies of the
 * other CPUs right after it (sema_current.c), added with it or never.
 */
int sema_point_dyn_field(struct sema_ctx *c, struct tpf_event *ev, const struct fetch *f)
{
	unsigned n = sema_current_copies(c, f->arg), k, had = ev->nfields;
	int i = sp_dyn_field(c, ev, f);
	struct fetch copy = *f;

	if (ev->nfields != had && n < 2)	/* the copies must follow it */
		sp_ustring_companion(c, ev, i);
	if (n < 2 || ev->nfields == had)
		return i;
	for (k = 1; k < n; k++) {
		copy.arg = sema_current_copy(c, f->arg, k);
		sp_dyn_field(c, ev, &copy);
	}
	ev->fields[i].percpu = n;
	for (k = 0; k < n; k++)
		ev->fields[i + k].element = true;
	return i;
}

const struct tpf_event *sema_point_tracepoint(const struct tpf_event *ev)
{
	return sema_point_on_tp(ev) ? ev->dyn_tp : ev;
}

/*
 * process.function("NAME"), .statement, .mark, .plt, .library without a
 * path: stap's target process's executable (-c CMD or -x PID), @p with
 * that path; @p itself for other points; NULL after reporting that no
 * target was given.
 */
const struct ast_ppoint *sema_point_target_exe(struct sema_ctx *c, const struct ast_ppoint *p)
{
	static const char *const kinds[] = { "function", "statement", "mark", "plt", "library",
					     "provider", "label" };
	struct ast_ppoint *q;
	size_t i;

	if (p->n < 2 || !sema_point_is(p, 0, "process") || p->comps[0].arg)
		return p;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (sema_point_is(p, 1, kinds[i]))
			break;
	if (i == sizeof(kinds) / sizeof(kinds[0]))
		return p;	/* process.begin, .syscall ...: every process */
	if (!c->in->target_exe) {
		diag_error(c->diag, p->span, "process.%s without a path probes the target "
			   "process's executable: give -c CMD or -x PID, or write "
			   "process(\"PATH\").%s", kinds[i], kinds[i]);
		return NULL;
	}
	q = arena_alloc(c->arena, sizeof(*q));
	*q = *p;
	q->comps = arena_alloc(c->arena, p->n * sizeof(*q->comps));
	memcpy(q->comps, p->comps, p->n * sizeof(*q->comps));
	q->comps[0].arg = ast_str(c->arena, c->in->target_exe, strlen(c->in->target_exe),
				  p->comps[0].span);
	return q;
}
