/*
 * sema_plt.c - pass 2: process("PATH").plt("NAME")[.return], a uprobe
 * (uretprobe) on the PLT stub of each function PATH imports whose name
 * matches NAME (a glob; .plt alone is .plt("*")), as stap's.  The stubs
 * come from resolve_plt.c; `$$name` is the function's name (a constant:
 * sema_target.c), and there are no other target variables, since a
 * stub has no debug information (stap's too).
 *
 * In: the point.  Out: one probe site per stub, for sema_probe.c to
 * emit.  A leaf: calls no other sema_*.c file.
 */
#include "sema_int.h"
#include "arena.h"
#include "diag.h"
#include "fetch.h"
#include "resolve_elf.h"
#include "resolve_plt.h"

#include <string.h>

/* process("PATH").plt[("NAME")][.return]: *@ret for .return; false if not one. */
static bool plt_shape(const struct ast_ppoint *p, bool *ret)
{
	if (p->n < 2 || p->n > 3 || !sema_point_is(p, 0, "process") || !sema_point_is(p, 1, "plt"))
		return false;
	*ret = p->n == 3;
	return p->n == 2 || (sema_point_is(p, 2, "return") && !p->comps[2].arg);
}

int sema_plt_point(struct sema_ctx *c, const struct ast_ppoint *p, bool optional,
		   struct fetch_site ***sites, unsigned *nsites, bool *ret)
{
	const struct ast_expr *path = p->comps[0].arg, *fn = p->n > 1 ? p->comps[1].arg : NULL;
	const char *file, *pattern;
	struct rplt_entry *e = NULL;
	struct relf_file *u;
	char err[600], why[200];
	int i, n;

	if (!plt_shape(p, ret))
		return 0;
	if (!path || path->kind != AST_STR || (fn && fn->kind != AST_STR)) {
		diag_error(c->diag, p->span, "expected process(\"PATH\").plt(\"NAME\") with "
			   "string arguments");
		return -1;
	}
	if (!c->in->up) {
		diag_error(c->diag, p->span, "process() probes are not available here");
		return -1;
	}
	file = arena_strndup(c->arena, path->str, path->len);
	pattern = fn ? arena_strndup(c->arena, fn->str, fn->len) : "*";
	u = relf_open(c->in->up, file, err, sizeof(err));
	n = u ? rplt_entries(c->arena, u->elf, pattern, &e, why, sizeof(why)) : -1;
	if (n == 0 && rplt_entries(c->arena, u->elf, "*", &e, why, sizeof(why)) == 0) {
		n = -1;		/* nothing to match: say why, not "no match" */
		snprintf(why, sizeof(why), "it imports no function through a PLT (a static "
			 "program, or one linked with -fno-plt)");
	}
	if (n <= 0) {
		if (u)
			snprintf(err, sizeof(err), n ? "%s: %s" : "no PLT entry of %s matches \"%s\"",
				 u->path, n ? why : pattern);
		if (n == 0 && optional)
			return 1;	/* nothing, quietly */
		if (!optional)
			sema_point_unresolved(c, fn ? fn->span : p->span, err);
		return -1;
	}
	*sites = arena_alloc(c->arena, (size_t)n * sizeof(**sites));
	for (i = 0; i < n; i++) {
		struct fetch_site *s = arena_alloc(c->arena, sizeof(*s));

		memset(s, 0, sizeof(*s));
		s->path = arena_strdup(c->arena, u->path);
		s->name = e[i].name;
		s->offset = e[i].offset;
		s->addr = e[i].addr;
		s->file = u;
		s->plt = true;
		(*sites)[i] = s;
	}
	*nsites = (unsigned)n;
	return 1;
}
