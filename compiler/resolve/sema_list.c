/*
 * sema_list.c - stap's -l and -L: the probe points a pattern resolves
 * to, one per line, sorted; with -L each followed by its target
 * variables ("$name:type"): a tracepoint's fields, a function's
 * parameters from DWARF or BTF.  A point reached through a probe alias
 * (tapset or script) is listed by the alias's name, and with -L the
 * variables its body sets ("name:string"), as stap lists them: those are
 * collected before elision (sema_list_vars), when the body still sets
 * them, and typed from their right-hand sides.
 */
#include "sema_int.h"
#include "ast_walk.h"
#include "arena.h"
#include "resolve_dwarf.h"
#include "resolve_tpfmt.h"
#include "resolve_elf.h"
#include "resolve_list.h"
#include "resolve_sdt.h"
#include "resolve_tparg.h"
#include "resolve_sym.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static int sl_cmp(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* " $name:ctype" of field @f, listed as @name. */
static const char *sl_field(struct arena *a, const char *s, const char *name,
			    const struct tpf_field *f)
{
	if (f->kind == TPF_CHARS)
		return arena_printf(a, "%s $%s:%s[%u]", s, name, f->ctype, f->size);
	return arena_printf(a, "%s $%s:%s", s, name, f->ctype);
}

/*
 * " $prev->pid:pid_t ...": the tracepoint arguments (stap's variables
 * there) that a field of @e holds (sema_tparg.c reads them so), with the
 * field's type; an argument whose field has its name is listed once.
 */
static const char *sl_args(struct arena *a, const struct tpf_event *e, const char *s)
{
	const struct rtparg_event *te = e->dyn ? NULL : rtparg_event(e->system, e->name);
	const char **exprs, **fields;
	unsigned i, n = te ? rtparg_maps(a, te, &exprs, &fields) : 0;

	for (i = 0; i < n; i++) {
		const struct tpf_field *f = tpf_field(e, fields[i]);

		if (f && f->kind != TPF_OTHER && strcmp(exprs[i], fields[i]) != 0)
			s = sl_field(a, s, exprs[i], f);
	}
	return s;
}

/* "$field:ctype ..." of a tracepoint's own (non-common) fields, then its arguments. */
static const char *sl_fields(struct arena *a, const struct tpf_event *e)
{
	const char *s = "";
	unsigned i;

	for (i = 0; i < e->nfields; i++)
		if (!e->fields[i].common)
			s = sl_field(a, s, e->fields[i].name, &e->fields[i]);
	return sl_args(a, e, s);
}

static const char *sl_params(struct arena *a, const struct fetch_site *uf)
{
	const char **decls, *s = "";
	unsigned i, n = rlist_decls(a, uf, &decls);

	for (i = 0; i < n; i++)
		s = arena_printf(a, "%s %s", s, decls[i]);
	return s;
}

static const char *sl_line(struct arena *a, const struct sem_probe *p, bool vars)
{
	const struct tpf_event *e = p->event;
	const char *name = p->family ? p->family : p->pp;

	if (!vars)		/* -l syscall.*, scheduler.*: the alias names, as stap */
		return name;
	if (p->family)
		name = arena_printf(a, "%s%s", name, p->alias_vars ? p->alias_vars : "");
	if ((p->kind == SEM_P_PROCFS_READ || p->kind == SEM_P_PROCFS_WRITE) && !p->family)
		return arena_printf(a, "%s $value:string", name);
	if (p->kind != SEM_P_TRACE || !e)
		return name;
	return arena_printf(a, "%s%s", name, e->dyn_func ? sl_params(a, e->dyn_func) :
			    sl_fields(a, e));
}

/* ---- the variables an alias's body sets, for -L ---- */

/* The builtins' return types, from the list the passes share. */
static const struct { const char *name; char ret; } sl_builtins[] = {
#define BI(id, name, ret, args, flags) { name, ret },
#include "../runtime/builtins.def"
#undef BI
};

static char sl_builtin_ret(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(sl_builtins) / sizeof(sl_builtins[0]); i++)
		if (!strcmp(sl_builtins[i].name, name))
			return sl_builtins[i].ret == 'v' ? 0 : sl_builtins[i].ret;
	return 0;
}

/* Is @name a global of the program (not an alias's own variable)? */
static bool sl_is_global(const struct sem_prog *p, const char *name)
{
	unsigned i;

	for (i = 0; i < p->nglobals; i++)
		if (!strcmp(p->globals[i]->name, name))
			return true;
	return false;
}

struct sl_vars {
	struct sema_ctx *c;
	const struct sem_probe *sp;
	const char **names;
	char *types;		/* 'l', 's', or 0: unknown */
	unsigned n;
	size_t cap, tcap;
};

static char sl_type(struct sl_vars *v, const struct ast_expr *e, unsigned depth);

/* The type a function returns: declared, else its first typed 'return'. */
static char sl_func_type(struct sl_vars *v, const char *name, unsigned depth)
{
	const struct ast_func *f = sema_func_decl(v->c, name);
	enum ast_mem mem = sema_mem_fn(name);

	if (mem != AST_MEM_NONE)
		return mem == AST_MEM_KSTRING || mem == AST_MEM_USTRING ? 's' : 'l';
	/* user_string_quoted() ..., which sema_syscall.c resolves later */
	if (!f && (!strncmp(name, "user_string", 11) || !strncmp(name, "kernel_string", 13)))
		return 's';
	if (f && f->type != AST_TYPE_NONE)
		return f->type == AST_TYPE_STRING ? 's' : 'l';
	if (f && f->body && depth < 8) {
		const struct ast_stmt *s = f->body;

		/* the common shape: a body whose last statement returns */
		if (s->kind == AST_S_BLOCK && s->body.n)
			s = s->body.v[s->body.n - 1];
		if (s->kind == AST_S_RETURN && s->e)
			return sl_type(v, s->e, depth + 1);
	}
	return f ? 0 : sl_builtin_ret(name);
}

static char sl_target_type(struct sl_vars *v, const struct ast_expr *e)
{
	const struct tpf_event *ev = v->sp->event;
	const struct tpf_field *f;
	const struct rtparg_event *rt;
	struct fetch out;
	char err[256];

	if (!ev || !strncmp(e->str, "$$", 2))
		return 's';
	if (ev->dyn_func)
		return rdwarf_fetch(v->c->arena, ev->dyn_func, e->str, &e->chain,
				    ev->dyn_return, &out, err, sizeof(err)) != 0 ? 0 :
		       out.is_string ? 's' : 'l';
	f = tpf_field(ev, e->str + 1);
	if (f)
		return f->kind == TPF_INT ? 'l' : 's';
	/* a tracepoint argument the record does not hold: a pointer or
	   a number, as stap lists it (scheduler.wakeup's task:long) */
	rt = rtparg_event(ev->system, ev->name);
	return rt && !e->chain.n && rtparg_arg_type(v->c->arena, rt, e->str + 1) ? 'l' : 0;
}

static char sl_type(struct sl_vars *v, const struct ast_expr *e, unsigned depth)
{
	unsigned i;
	char t;

	switch (e->kind) {
	case AST_NUM: return 'l';
	case AST_STR: return 's';
	case AST_BINARY: return e->op == AST_OP_CONCAT ? 's' : 'l';
	case AST_UNARY: case AST_INCDEC: case AST_IN: case AST_DEFINED: return 'l';
	case AST_TERNARY:
		t = sl_type(v, e->b, depth);
		return t ? t : sl_type(v, e->c, depth);
	case AST_ASSIGN:
		return e->op == AST_OP_SET ? sl_type(v, e->b, depth) :
		       e->op == AST_OP_CAT_SET ? 's' : 'l';
	case AST_CALL: return sl_func_type(v, e->str, depth);
	case AST_TARGET: return sl_target_type(v, e);
	case AST_CAST: return 'l';
	case AST_VAR:
		for (i = v->n; i-- > 0;)
			if (!strcmp(v->names[i], e->str))
				return v->types[i];
		return 0;
	default: return 0;
	}
}

/* Each assignment NAME = EXPR to a local: NAME's type (the first known). */
static int sl_assign_fn(struct ast_expr *e, void *arg)
{
	struct sl_vars *v = arg;
	const char *name;
	unsigned i;
	char t;

	if (e->kind != AST_ASSIGN || e->a->kind != AST_VAR || e->op == AST_OP_STAT_ADD)
		return 0;
	name = e->a->str;
	if (!strncmp(name, "__", 2) || sl_is_global(v->c->prog, name))
		return 0;	/* internal, or not the alias's own */
	/* stap's variable that this kernel's records cannot give: reading it
	   is an error, so it is not listed. */
	if (e->b->kind == AST_CALL && sema_is_missing_marker(e->b->str))
		return 0;
	t = sl_type(v, e, 0);
	for (i = 0; i < v->n; i++)
		if (!strcmp(v->names[i], name)) {
			if (!v->types[i])
				v->types[i] = t;
			return 0;
		}
	v->names = arena_grow(v->c->arena, v->names, v->n, &v->cap, sizeof(*v->names));
	v->types = arena_grow(v->c->arena, v->types, v->n, &v->tcap, sizeof(*v->types));
	v->names[v->n] = name;
	v->types[v->n++] = t;
	return 0;
}

void sema_list_vars(struct sema_ctx *c, struct sem_probe *sp)
{
	struct sl_vars v = { c, sp, NULL, NULL, 0, 0, 0 };
	const char **decls, *s = "";
	unsigned i;

	if (!sp->family || !sp->body)
		return;
	ast_walk_stmt(sp->body, sl_assign_fn, &v);
	decls = arena_alloc(c->arena, (v.n + 1) * sizeof(*decls));
	for (i = 0; i < v.n; i++)
		decls[i] = arena_printf(c->arena, "%s:%s", v.names[i], v.types[i] == 's' ?
					"string" : v.types[i] == 'l' ? "long" : "unknown");
	qsort(decls, v.n, sizeof(*decls), sl_cmp);	/* stap's order */
	for (i = 0; i < v.n; i++)
		s = arena_printf(c->arena, "%s %s", s, decls[i]);
	sp->alias_vars = s;
}

/*
 * The next variable of a -L line after @s (a space): " name:type" where
 * the type may hold spaces ("$f:struct file *"), so a variable ends at a
 * space followed by another "name:".  NULL at the end; *@len its length.
 */
static const char *sl_next_var(const char *s, size_t *len)
{
	const char *e = s;

	if (!s || !*s)
		return NULL;
	for (;;) {
		e = strchr(e + 1, ' ');
		if (!e || (strchr(e + 1, ':') && strcspn(e + 1, ":") < strcspn(e + 1, " ")))
			break;
	}
	*len = e ? (size_t)(e - s) : strlen(s);
	return s;
}

/* Does -L line @line list variable @v (@len bytes, with its space)? */
static bool sl_has_var(const char *line, const char *v, size_t len)
{
	const char *s = strchr(line, ' ');
	size_t n;

	for (; (s = sl_next_var(s, &n)) != NULL; s += n)
		if (n == len && !strncmp(s, v, len))
			return true;
	return false;
}

/*
 * -L lists an alias once, with the variables all its probe points have
 * (stap's rule): @line keeps the variables of its own that @other has.
 */
static const char *sl_common(struct arena *a, const char *line, const char *other)
{
	const char *v = strchr(line, ' ');
	char *s = arena_strndup(a, line, v ? (size_t)(v - line) : strlen(line));
	size_t n;

	for (; (v = sl_next_var(v, &n)) != NULL; v += n)
		if (sl_has_var(other, v, n))
			s = arena_printf(a, "%s%.*s", s, (int)n, v);
	return s;
}

/* The first word of @line: the probe point or alias name. */
static bool sl_same_point(const char *x, const char *y)
{
	size_t n = strcspn(x, " ");

	return n == strcspn(y, " ") && !strncmp(x, y, n);
}

void sema_list(FILE *out, struct arena *a, const struct sem_prog *p, bool vars)
{
	const char **lines = arena_alloc(a, (p->nprobes + 1) * sizeof(*lines));
	unsigned i, k, n = 0;

	if (p->has_never)	/* stap lists it, though it never fires */
		lines[n++] = "never";
	for (i = 0; i < p->nprobes; i++) {
		const char *l = sl_line(a, p->probes[i], vars);

		for (k = 0; vars && p->probes[i]->family && k < n; k++)
			if (sl_same_point(lines[k], l))
				break;
		if (vars && p->probes[i]->family && k < n)
			lines[k] = sl_common(a, lines[k], l);
		else
			lines[n++] = l;
	}
	qsort(lines, n, sizeof(*lines), sl_cmp);
	for (i = 0; i < n; i++)
		if (i == 0 || strcmp(lines[i], lines[i - 1]) != 0)
			fprintf(out, "%s\n", lines[i]);
}

/* -v: where each dynamic probe's types came from (stap -v says it too). */
void sema_type_sources(FILE *out, const struct sem_prog *p)
{
	unsigned i;

	for (i = 0; i < p->nprobes; i++) {
		const struct tpf_event *e = p->probes[i]->event;
		const struct fetch_site *uf = e ? e->dyn_func : NULL;

		if (!e || !e->dyn)
			continue;
		fprintf(out, "Pass 2: %s: ", p->probes[i]->pp);
		if (!uf)
			fprintf(out, "no target variables (a statement probe)\n");
		else if (uf->btf)
			fprintf(out, "types from the kernel's BTF\n");
		else if (uf->sdt)
			fprintf(out, "SDT marker: $arg1... from its operands, untyped\n");
		else if (uf->die)
			fprintf(out, "types from the DWARF of %s\n", relf_dwarf_path(uf));
		else if (uf->kernel)
			fprintf(out, "no type information: raw registers ($arg1..., $return)\n");
		else
			fprintf(out, "no type information in %s: raw registers ($arg1...)\n",
				uf->path);
	}
}
