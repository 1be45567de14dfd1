/*
 * driver_dump.c - --dump-functions and --dump-probe-aliases: the
 * tapset's public functions and probe aliases, one per line, in
 * stap's format, after pass 1 over the library (no script needed).
 *
 *   NAME:TYPE (PARAM:TYPE, ...)      functions (and the C builtins)
 *   NAME = POINT, POINT!, POINT?     probe aliases
 *
 * TYPE is long, string, or unknown (no return value, or not declared).
 * As in stap, names starting with '_' and private functions are left
 * out, lines are sorted by "NAME:TYPE" (functions; ties keep the order
 * of declaration) or whole line (aliases).  The C builtins have no
 * parameter names in runtime/builtins.def: they print as arg1, arg2...;
 * builtins with optional parameters print one line per arity.  The
 * print family (printf, sprint, println ...) takes any number of
 * arguments and, as in stap where it is part of the language, is not
 * listed.
 */
#include "driver.h"
#include "arena.h"
#include "ast.h"
#include "session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dump_line {
	const char *key;	/* sort key */
	const char *text;	/* the line */
	unsigned seq;		/* declaration order, for ties */
};

struct dump_list {
	struct arena *arena;
	struct dump_line *v;
	unsigned n;
	size_t cap;
};

static void dump_add(struct dump_list *l, const char *key, const char *text)
{
	l->v = arena_grow(l->arena, l->v, l->n, &l->cap, sizeof(*l->v));
	l->v[l->n].key = key;
	l->v[l->n].text = text;
	l->v[l->n].seq = l->n;
	l->n++;
}

static int dump_cmp(const void *a, const void *b)
{
	const struct dump_line *x = a, *y = b;
	int r = strcmp(x->key, y->key);

	return r ? r : (x->seq > y->seq) - (x->seq < y->seq);
}

static const char *dump_type(enum ast_type t)
{
	return t == AST_TYPE_LONG ? "long" : t == AST_TYPE_STRING ? "string" : "unknown";
}

/* "NAME:TYPE (P:T, ...)" of tapset function @f. */
static void dump_func(struct dump_list *l, const struct ast_func *f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	unsigned i;

	if (f->private_ || f->name[0] == '_' || !(m = open_memstream(&buf, &len)))
		return;
	fprintf(m, "%s:%s (", f->name, dump_type(f->type));
	for (i = 0; i < f->nparams; i++)
		fprintf(m, "%s%s:%s", i ? ", " : "", f->params[i].name,
			dump_type(f->params[i].type));
	fputc(')', m);
	fclose(m);
	dump_add(l, arena_printf(l->arena, "%s:%s", f->name, dump_type(f->type)),
		 arena_strdup(l->arena, buf ? buf : ""));
	free(buf);
}

static const char *dump_letter(char c)
{
	return c == 'l' ? "long" : c == 's' ? "string" : "unknown";
}

/* Builtin @name (builtins.def's RET and ARGS): one line per arity. */
static void dump_builtin(struct dump_list *l, const char *name, char ret,
			 const char *args)
{
	const char *bar = strchr(args, '|');
	size_t min = bar ? (size_t)(bar - args) : strlen(args), max = strlen(args) - !!bar;
	size_t n, i;

	if (strchr(args, '*') || name[0] == '_')	/* internal, as the tapset's */
		return;
	for (n = min; n <= max; n++) {
		char *text = arena_printf(l->arena, "%s:%s (", name, dump_letter(ret));

		for (i = 0; i < n; i++)
			text = arena_printf(l->arena, "%s%sarg%zu:%s", text, i ? ", " : "", i + 1,
					    dump_letter(args[i < min ? i : i + 1]));
		dump_add(l, arena_printf(l->arena, "%s:%s", name, dump_letter(ret)),
			 arena_printf(l->arena, "%s)", text));
	}
}

/* "NAME = POINT, POINT" for each name of alias @p. */
static void dump_alias(struct dump_list *l, const struct ast_probe *p)
{
	unsigned i, j;

	for (i = 0; i < p->names.n; i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *m;

		if (p->names.v[i]->n && p->names.v[i]->comps[0].name[0] == '_')
			continue;
		if (!(m = open_memstream(&buf, &len)))
			return;
		ast_print_ppoint(m, p->names.v[i]);
		fputs(" = ", m);
		for (j = 0; j < p->points.n; j++) {
			if (j)
				fputs(", ", m);
			ast_print_ppoint(m, p->points.v[j]);
		}
		fclose(m);
		dump_add(l, arena_strdup(l->arena, buf ? buf : ""),
			 arena_strdup(l->arena, buf ? buf : ""));
		free(buf);
	}
}

int drv_dump(struct ktap_session *s, FILE *out)
{
	struct dump_list l = { s->arena, NULL, 0, 0 };
	unsigned i, j;

	for (i = 0; i < s->nlibrary; i++) {
		const struct ast_file *f = s->library[i];

		for (j = 0; j < f->n; j++) {
			const struct ast_decl *d = f->decls[j];

			if (s->opt.dump == 1 && d->kind == AST_D_FUNC)
				dump_func(&l, d->func);
			else if (s->opt.dump == 2 && d->kind == AST_D_PROBE &&
				 d->probe->kind != AST_PROBE)
				dump_alias(&l, d->probe);
		}
	}
	if (s->opt.dump == 1) {
#define BI(id, name, ret, args, flags) dump_builtin(&l, name, ret, args);
#include "../runtime/builtins.def"
#undef BI
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), dump_cmp);
	for (i = 0; i < l.n; i++)
		fprintf(out, "%s\n", l.v[i].text);
	return 0;
}
