/*
 * sema_print.c - -p2: the elaborated program, in the spirit of stap -p2:
 * globals with their types, the functions the probes use, and every
 * resolved probe with its event, its fields and its locals.
 */
#include "sema.h"
#include "resolve_tpfmt.h"

#include <inttypes.h>

static void sp_keys(FILE *out, const struct sem_sym *s)
{
	unsigned i;

	if (!s->is_array)
		return;
	fputc('[', out);
	for (i = 0; i < s->nkeys; i++)
		fprintf(out, "%s%s", i ? ", " : "", sem_type_name(s->keys[i]));
	fputc(']', out);
}

static void sp_sym(FILE *out, const char *indent, const struct sem_sym *s)
{
	fprintf(out, "%s%s", indent, s->name);
	sp_keys(out, s);
	fprintf(out, ":%s", sem_type_name(s->type));
	if (s->decl && s->decl->wrap)
		fputs(" /* wraps */", out);
	if (s->decl && s->decl->is_array)
		fprintf(out, " /* size %" PRId64 " */", s->decl->size);
	fputc('\n', out);
}

static void sp_fields(FILE *out, const struct tpf_event *e)
{
	unsigned i;

	fprintf(out, "  # event %s:%s (id %u)\n", e->system, e->name, e->id);
	for (i = 0; i < e->nfields; i++) {
		const struct tpf_field *f = &e->fields[i];

		if (f->common)
			continue;
		if (f->fetch) {		/* a kprobe/uprobe fetch argument */
			fprintf(out, "  $%s:%s /* fetch %s */\n", f->name,
				f->kind == TPF_INT ? "long" : "string", f->fetch);
			continue;
		}
		fprintf(out, "  $%s:%s /* %s, offset %u, size %u%s */\n", f->name,
			f->kind == TPF_INT ? "long" : f->kind == TPF_OTHER ?
			"unsupported" : "string", f->ctype, f->offset, f->size,
			f->pointer ? ", a pointer" : "");
	}
}

static void sp_probe(FILE *out, const struct sem_probe *p)
{
	unsigned i;

	fprintf(out, "%s /* <- ", p->pp);
	ast_print_ppoint(out, p->point);
	fputs(" */\n", out);
	if (p->kind == SEM_P_TIMER)
		fprintf(out, "  # timer every %" PRId64 " ns, randomized by %" PRId64 " ns\n",
			p->period_ns, p->randomize_ns);
	if (p->event)
		sp_fields(out, p->event);
	if (p->nlocals)
		fputs("  # locals\n", out);
	for (i = 0; i < p->nlocals; i++)
		sp_sym(out, "  ", p->locals[i]);
	if (p->cond) {
		fputs("  # condition: ", out);
		ast_print_expr(out, p->cond);
		fputc('\n', out);
	}
	ast_print_stmt(out, p->body, 0);
}

static void sp_func(FILE *out, const struct sem_func *f)
{
	unsigned i;

	fprintf(out, "%s:%s (", f->name, sem_type_name(f->ret));
	for (i = 0; i < f->nparams; i++)
		fprintf(out, "%s%s:%s", i ? ", " : "", f->locals[i]->name,
			sem_type_name(f->locals[i]->type));
	fputs(")\n", out);
	for (i = f->nparams; i < f->nlocals; i++)
		sp_sym(out, "  ", f->locals[i]);
	if (f->ast->body)
		ast_print_stmt(out, f->ast->body, 0);
}

void sema_print(FILE *out, const struct sem_prog *p)
{
	unsigned i;

	fputs("# globals\n", out);
	for (i = 0; i < p->nglobals; i++)
		if (p->globals[i]->read || p->globals[i]->written)
			sp_sym(out, "", p->globals[i]);
	fputs("# functions\n", out);
	for (i = 0; i < p->nfuncs; i++)
		sp_func(out, p->funcs[i]);
	fputs("# probes\n", out);
	for (i = 0; i < p->nprobes; i++)
		sp_probe(out, p->probes[i]);
	for (i = 0; i < p->nnevers; i++) {	/* no probe runs them: as written */
		fputs("never /* <- ", out);
		ast_print_ppoint(out, p->nevers[i].written);
		fputs(" */\n", out);
		ast_print_stmt(out, p->nevers[i].body, 0);
	}
}
