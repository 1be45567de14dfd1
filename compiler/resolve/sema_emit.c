/*
 * sema_emit.c - pass 2: a resolved probe point into a probe of the
 * program (point_emit), one on a dynamic event (a kprobe or uprobe at a
 * site), and the argument helpers the point resolvers share
 * (sema_probe.c, sema_process.c).
 */
#include "sema_int.h"
#include "arena.h"
#include "diag.h"
#include "resolve_sym.h"

#include <stdio.h>
#include <string.h>

/* The argument of component @k of @p as a number; false if absent. */
bool point_num_arg(const struct ast_ppoint *p, unsigned k, int64_t *v)
{
	if (k >= p->n || !p->comps[k].arg || p->comps[k].arg->kind != AST_NUM)
		return false;
	*v = p->comps[k].arg->num;
	return true;
}

struct ast_expr *point_and(struct sema_ctx *c, struct ast_expr *a, struct ast_expr *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return ast_binary(c->arena, AST_BINARY, AST_OP_LAND, a, b, b->span);
}

struct sem_probe *point_emit(struct sema_ctx *c, struct point_state *st,
			     enum sem_probe_kind kind, const char *pp)
{
	struct sem_probe *sp = sema_new_probe(c);

	sp->kind = kind;
	sp->pp = pp;
	sp->point = st->written;
	sp->body = ast_clone_stmt(c->arena, st->body);
	sp->cond = ast_clone_expr(c->arena, st->cond);
	sp->span = st->written->span;
	sp->decl = st->user->span;
	sema_context_rewrite(c, sp);
	return sp;
}

/* An event name from function @name: [A-Za-z0-9_], then _N. */
const char *point_event_name(struct sema_ctx *c, const char *name)
{
	char *s = arena_printf(c->arena, "%.40s_%u", name, c->prog->nprobes);

	sema_point_ident(s);
	return s;
}

/*
 * One probe on resolved function @uf: a uprobe (@path set) or a kprobe,
 * on its entry or (@ret) its return.
 */
struct tpf_event *sema_dyn_event(struct sema_ctx *c, struct fetch_site *uf, const char *path,
				 bool ret, const struct ast_ppoint *written)
{
	struct tpf_event *ev = arena_alloc(c->arena, sizeof(*ev));
	const char *target;

	memset(ev, 0, sizeof(*ev));
	ev->system = "ktap_$PID";
	ev->name = point_event_name(c, uf->name);
	if (path)
		target = arena_printf(c->arena, "%s:0x%llx", uf->path,
				      (unsigned long long)uf->offset);
	else if (strcmp(uf->path, "kernel") != 0)	/* a module's: "MOD:FUNC" */
		target = arena_printf(c->arena, "%s:%s", uf->path, uf->name);
	else
		target = uf->name;
	ev->dyn = sema_point_dynevent(c, ev, path ? (ret ? KP_URETPROBE : KP_UPROBE) :
				      (ret ? KP_KRETPROBE : KP_KPROBE), target,
				      sema_point_origin(c, written));
	ev->dyn_func = uf;
	ev->dyn_return = ret;
	return ev;
}

void point_emit_dyn(struct sema_ctx *c, struct point_state *st, struct fetch_site *uf,
		    const char *path, bool ret, const char *pp)
{
	struct tpf_event *ev = sema_dyn_event(c, uf, path, ret, st->written);

	point_emit(c, st, SEM_P_TRACE, pp)->event = ev;
}

/* The string argument of component @i of @p, or NULL. */
const char *point_str_arg(struct sema_ctx *c, const struct ast_ppoint *p, unsigned i)
{
	const struct ast_expr *a = p->comps[i].arg;

	return a && a->kind == AST_STR ? arena_strndup(c->arena, a->str, a->len) : NULL;
}

/*
 * Every function @arg names in @path (NULL: the kernel, or its @module):
 * one name, or a wildcard expanded against the file's symbols or the
 * kernel's traceable functions ("NAME@FILE" wildcards: against DWARF).
 * Returns the count (0 after an error), names in *@names.
 */
unsigned point_functions(struct sema_ctx *c, struct point_state *st,
			 const struct ast_expr *arg, const char *path,
			 const char *module, const char ***names)
{
	const char *pattern = arena_strndup(c->arena, arg->str, arg->len);
	char err[512] = "";
	int n;

	if (!strpbrk(pattern, "*?[")) {
		*names = arena_alloc(c->arena, sizeof(**names));
		(*names)[0] = pattern;
		return 1;
	}
	n = c->in->up ? rsym_match(c->in->up, c->arena, path, module, pattern, names, err,
				 sizeof(err)) : -1;
	if (n < 0) {
		diag_error(c->diag, arg->span, "%s", *err ? err : "cannot list functions here");
		return 0;
	}
	if (n > RSYM_MAX_MATCHES) {
		diag_error(c->diag, arg->span, "\"%s\" matches %d functions, more than %d: "
			   "narrow the pattern", pattern, n, RSYM_MAX_MATCHES);
		return 0;
	}
	if (n == 0 && !st->optional)
		diag_error(c->diag, arg->span, "no function matches \"%s\"%s%s", pattern,
			   path ? " in " : "", path ? path : "");
	return (unsigned)n;
}

/*
 * What follows .function(): 0 nothing, 1 .call, 2 .return (then
 * *@maxactive is N of .return.maxactive(N), or 0), -1 anything else.
 */
int point_fn_suffix(const struct ast_ppoint *p, unsigned at, int64_t *maxactive)
{
	*maxactive = 0;
	if (p->n == at)
		return 0;
	if (p->n == at + 2 && sema_point_is(p, at, "return") && sema_point_is(p, at + 1, "maxactive") &&
	    point_num_arg(p, at + 1, maxactive) && *maxactive > 0 && *maxactive <= 4096)
		return 2;
	if (p->n != at + 1)
		return -1;
	return sema_point_is(p, at, "call") ? 1 : sema_point_is(p, at, "return") ? 2 : -1;
}
