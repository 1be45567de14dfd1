/*
 * ast_print.c - -p1: the AST in canonical form.
 *
 * The output parses back to the same tree: parentheses are put back
 * exactly where stap's precedence needs them (see ast.def), and every
 * statement is terminated.  Layout: two spaces per level, K&R braces.
 */
#include "ast.h"
#include "arena.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PREC_PRIMARY 16

static void pr_expr(FILE *out, const struct ast_expr *e);

static void pr_indent(FILE *out, int n)
{
	while (n-- > 0)
		fputs("  ", out);
}

/* A string literal with C escapes; bytes outside ASCII as octal. */
static void pr_string(FILE *out, const char *s, size_t len)
{
	static const char esc_from[] = "\n\t\r\a\b\f\v\\\"";
	static const char esc_to[] = "ntrabfv\\\"";
	size_t i;

	fputc('"', out);
	for (i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		const char *p = ch ? strchr(esc_from, ch) : NULL;

		if (p)
			fprintf(out, "\\%c", esc_to[p - esc_from]);
		else if (ch < 32 || ch >= 127)
			fprintf(out, "\\%03o", ch);
		else
			fputc(ch, out);
	}
	fputc('"', out);
}

static int pr_prec(const struct ast_expr *e)
{
	switch (e->kind) {
	case AST_UNARY: return 14;
	case AST_INCDEC:
		return e->op == AST_OP_POSTINC || e->op == AST_OP_POSTDEC ? 15 : 14;
	case AST_BINARY: return ast_op_prec(e->op);
	case AST_IN: return 8;
	case AST_TERNARY: return 2;
	case AST_ASSIGN: return 1;
	default: return PREC_PRIMARY;
	}
}

static void pr_wrapped(FILE *out, const struct ast_expr *e, bool parens)
{
	if (parens)
		fputc('(', out);
	pr_expr(out, e);
	if (parens)
		fputc(')', out);
}

static void pr_list(FILE *out, const struct ast_list *l)
{
	unsigned i;

	for (i = 0; i < l->n; i++) {
		if (i)
			fputs(", ", out);
		pr_expr(out, l->v[i]);
	}
}

static void pr_chain(FILE *out, const struct ast_chain *c)
{
	unsigned i;

	for (i = 0; i < c->n; i++) {
		if (c->v[i].is_index) {
			fputc('[', out);
			pr_expr(out, c->v[i].index);
			fputc(']', out);
		} else {
			fprintf(out, "->%s", c->v[i].name);
		}
	}
	for (i = 0; i < c->pretty; i++)
		fputc('$', out);
}

/* Prefix operators: a space where the two would lex as one token. */
static void pr_prefix(FILE *out, const char *op, const struct ast_expr *x)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	bool parens = pr_prec(x) < 14;

	if (!m)
		return;
	pr_wrapped(m, x, parens);
	fclose(m);
	fputs(op, out);
	if (buf && strchr("+-&!~=", buf[0]))
		fputc(' ', out);
	fputs(buf ? buf : "", out);
	free(buf);
}

static void pr_binary(FILE *out, const struct ast_expr *e)
{
	int p = pr_prec(e);

	pr_wrapped(out, e->a, pr_prec(e->a) < p);
	fprintf(out, " %s ", ast_op_spelling(e->op));
	pr_wrapped(out, e->b, pr_prec(e->b) <= p);
}

static void pr_in(FILE *out, const struct ast_expr *e)
{
	unsigned i;

	if (e->args.n == 1 && e->args.v[0]->kind != AST_STAR) {
		pr_wrapped(out, e->args.v[0], pr_prec(e->args.v[0]) < 9);
	} else {
		fputc('[', out);
		for (i = 0; i < e->args.n; i++) {
			if (i)
				fputs(", ", out);
			pr_wrapped(out, e->args.v[i], pr_prec(e->args.v[i]) < 9);
		}
		fputc(']', out);
	}
	fputs(" in ", out);
	pr_expr(out, e->a);
}

static void pr_autocast(FILE *out, const struct ast_expr *e)
{
	const struct ast_expr *x = e->a;
	bool bare = (x->kind == AST_VAR || x->kind == AST_INDEX || x->kind == AST_CALL) &&
		    e->chain.n && !e->chain.v[0].is_index;

	pr_wrapped(out, x, !bare);
	pr_chain(out, &e->chain);
}

static void pr_atop(FILE *out, const struct ast_expr *e)
{
	switch (e->kind) {
	case AST_CAST:
		fputs("@cast(", out);
		pr_expr(out, e->a);
		fputs(", ", out);
		pr_string(out, e->str, strlen(e->str));
		if (e->module) {
			fputs(", ", out);
			pr_string(out, e->module, strlen(e->module));
		}
		fputc(')', out);
		pr_chain(out, &e->chain);
		break;
	case AST_ATVAR:
		fputs("@var(", out);
		pr_string(out, e->str, strlen(e->str));
		if (e->module) {
			fputs(", ", out);
			pr_string(out, e->module, strlen(e->module));
		}
		fputc(')', out);
		pr_chain(out, &e->chain);
		break;
	case AST_PERF:
		fputs("@perf(", out);
		pr_string(out, e->str, strlen(e->str));
		fputc(')', out);
		break;
	case AST_DEREF:
		fprintf(out, "%s(", ast_op_spelling(e->op));
		pr_expr(out, e->a);
		fputs(", ", out);
		pr_expr(out, e->b);
		fputc(')', out);
		break;
	default:	/* @defined, @entry, @probewrite, @count..., @hist_*, @kregister */
		fprintf(out, "%s(", e->kind == AST_DEFINED ? "@defined" :
			e->kind == AST_ENTRY ? "@entry" :
			e->kind == AST_PROBEWRITE ? "@probewrite" : ast_op_spelling(e->op));
		pr_expr(out, e->a);
		if (e->args.n) {
			fputs(", ", out);
			pr_list(out, &e->args);
		}
		fputc(')', out);
		break;
	}
}

static void pr_expr(FILE *out, const struct ast_expr *e)
{
	switch (e->kind) {
	case AST_NUM: fprintf(out, "%" PRIu64, (uint64_t)e->num); break;
	case AST_STR: pr_string(out, e->str, e->len); break;
	case AST_VAR: fputs(e->str, out); break;
	case AST_STAR: fputc('*', out); break;
	case AST_EMBEDDED: fprintf(out, "%%{%s%%}", e->str); break;
	case AST_INDEX:
		pr_expr(out, e->a);
		fputc('[', out);
		pr_list(out, &e->args);
		fputc(']', out);
		break;
	case AST_CALL:
		fprintf(out, "%s(", e->str);
		pr_list(out, &e->args);
		fputc(')', out);
		break;
	case AST_TARGET:
		fputs(e->str, out);
		pr_chain(out, &e->chain);
		break;
	case AST_AUTOCAST: pr_autocast(out, e); break;
	case AST_UNARY: pr_prefix(out, ast_op_spelling(e->op), e->a); break;
	case AST_INCDEC:
		if (e->op == AST_OP_PREINC || e->op == AST_OP_PREDEC) {
			pr_prefix(out, ast_op_spelling(e->op), e->a);
		} else {
			pr_wrapped(out, e->a, pr_prec(e->a) < 15);
			fputs(ast_op_spelling(e->op), out);
		}
		break;
	case AST_BINARY: pr_binary(out, e); break;
	case AST_TERNARY:
		pr_wrapped(out, e->a, pr_prec(e->a) <= 2);
		fputs(" ? ", out);
		pr_expr(out, e->b);
		fputs(" : ", out);
		pr_expr(out, e->c);
		break;
	case AST_ASSIGN:
		pr_wrapped(out, e->a, pr_prec(e->a) <= 2);
		fprintf(out, " %s ", ast_op_spelling(e->op));
		pr_expr(out, e->b);
		break;
	case AST_IN: pr_in(out, e); break;
	default: pr_atop(out, e); break;
	}
}

void ast_print_expr(FILE *out, const struct ast_expr *e)
{
	pr_expr(out, e);
}

/* ---- statements ---- */

static void pr_stmt(FILE *out, const struct ast_stmt *s, int indent);

static void pr_block_body(FILE *out, const struct ast_stmt *b, int indent)
{
	unsigned i;

	for (i = 0; i < b->body.n; i++)
		pr_stmt(out, b->body.v[i], indent);
}

/*
 * The body of if/while/for/foreach/try: a block goes on the header's line
 * (" {" ... "}"), anything else on the next line, one level deeper.  The
 * return value says whether it ended with '}' (for "} else").
 */
static bool pr_body(FILE *out, const struct ast_stmt *s, int indent)
{
	if (s->kind == AST_S_BLOCK) {
		fputs(" {\n", out);
		pr_block_body(out, s, indent + 1);
		pr_indent(out, indent);
		fputc('}', out);
		return true;
	}
	fputc('\n', out);
	pr_stmt(out, s, indent + 1);
	return false;
}

static void pr_if(FILE *out, const struct ast_stmt *s, int indent)
{
	fputs("if (", out);
	pr_expr(out, s->e);
	fputc(')', out);
	if (pr_body(out, s->s1, indent)) {
		if (!s->s2) {
			fputc('\n', out);
			return;
		}
		fputs(" else", out);
	} else {
		if (!s->s2)
			return;
		pr_indent(out, indent);
		fputs("else", out);
	}
	if (s->s2->kind == AST_S_IF) {
		fputc(' ', out);
		pr_if(out, s->s2, indent);
		return;
	}
	if (pr_body(out, s->s2, indent))
		fputc('\n', out);
}

static void pr_foreach_key(FILE *out, const struct ast_foreach *fe, unsigned i)
{
	pr_expr(out, fe->keys.v[i]);
	if (fe->sort_key == (int)i + 1)
		fputc(fe->sort_dir > 0 ? '+' : '-', out);
}

static void pr_foreach(FILE *out, const struct ast_foreach *fe, int indent)
{
	unsigned i;

	fputs("foreach (", out);
	if (fe->value) {
		pr_expr(out, fe->value);
		fputs(" = ", out);
	}
	if (fe->bracketed)
		fputc('[', out);
	for (i = 0; i < fe->keys.n; i++) {
		if (i)
			fputs(", ", out);
		pr_foreach_key(out, fe, i);
	}
	if (fe->bracketed)
		fputc(']', out);
	fputs(" in ", out);
	pr_expr(out, fe->array);
	if (fe->has_slice) {
		fputc('[', out);
		pr_list(out, &fe->slice);
		fputc(']', out);
	}
	if (fe->sort_key == -1) {
		if (fe->has_sort_stat)
			fputs(ast_op_spelling(fe->sort_stat), out);
		fputc(fe->sort_dir > 0 ? '+' : '-', out);
	}
	if (fe->limit) {
		fputs(" limit ", out);
		pr_expr(out, fe->limit);
	}
	fputc(')', out);
	if (pr_body(out, fe->body, indent))
		fputc('\n', out);
}

static void pr_loop(FILE *out, const struct ast_stmt *s, int indent)
{
	if (s->kind == AST_S_WHILE) {
		fputs("while (", out);
		pr_expr(out, s->e);
	} else {
		fputs("for (", out);
		if (s->e)
			pr_expr(out, s->e);
		fputs("; ", out);
		if (s->e2)
			pr_expr(out, s->e2);
		fputs("; ", out);
		if (s->e3)
			pr_expr(out, s->e3);
	}
	fputc(')', out);
	if (pr_body(out, s->s1, indent))
		fputc('\n', out);
}

static void pr_try(FILE *out, const struct ast_stmt *s, int indent)
{
	fputs("try", out);
	pr_body(out, s->s1, indent);
	if (s->name)
		fprintf(out, " catch (%s)", s->name);
	else
		fputs(" catch", out);
	pr_body(out, s->s2, indent);
	fputc('\n', out);
}

static void pr_stmt(FILE *out, const struct ast_stmt *s, int indent)
{
	pr_indent(out, indent);
	switch (s->kind) {
	case AST_S_BLOCK:
		fputs("{\n", out);
		pr_block_body(out, s, indent + 1);
		pr_indent(out, indent);
		fputs("}\n", out);
		break;
	case AST_S_EXPR: pr_expr(out, s->e); fputs(";\n", out); break;
	case AST_S_NULL: fputs(";\n", out); break;
	case AST_S_IF: pr_if(out, s, indent); break;
	case AST_S_WHILE: case AST_S_FOR: pr_loop(out, s, indent); break;
	case AST_S_FOREACH: pr_foreach(out, s->fe, indent); break;
	case AST_S_BREAK: fputs("break;\n", out); break;
	case AST_S_CONTINUE: fputs("continue;\n", out); break;
	case AST_S_NEXT: fputs("next;\n", out); break;
	case AST_S_RETURN:
		fputs("return", out);
		if (s->e) {
			fputc(' ', out);
			pr_expr(out, s->e);
		}
		fputs(";\n", out);
		break;
	case AST_S_DELETE:
		fputs("delete ", out);
		pr_expr(out, s->e);
		fputs(";\n", out);
		break;
	case AST_S_TRY: pr_try(out, s, indent); break;
	case AST_S_EMBEDDED: fprintf(out, "%%{%s%%}\n", s->name); break;
	}
}

void ast_print_stmt(FILE *out, const struct ast_stmt *s, int indent)
{
	pr_stmt(out, s, indent);
}

/* ---- declarations ---- */

void ast_print_ppoint(FILE *out, const struct ast_ppoint *p)
{
	unsigned i;

	for (i = 0; i < p->n; i++) {
		const struct ast_expr *a = p->comps[i].arg;

		fprintf(out, "%s%s", i ? "." : "", p->comps[i].name);
		if (!a)
			continue;
		fputc('(', out);
		if (a->kind == AST_STR)
			pr_string(out, a->str, a->len);
		else
			fprintf(out, "%" PRId64, a->num);
		fputc(')', out);
	}
	if (p->optional)
		fputc('?', out);
	if (p->sufficient)
		fputc('!', out);
	if (p->cond) {
		fputs(" if (", out);
		pr_expr(out, p->cond);
		fputc(')', out);
	}
}

static void pr_pplist(FILE *out, const struct ast_pplist *l)
{
	unsigned i;

	for (i = 0; i < l->n; i++) {
		if (i)
			fputs(", ", out);
		ast_print_ppoint(out, l->v[i]);
	}
}

/* " {" body "}" of a probe or function. */
static void pr_decl_body(FILE *out, const struct ast_stmt *body)
{
	fputs(" {\n", out);
	if (body)
		pr_block_body(out, body, 1);
	fputs("}\n", out);
}

/* An alias's prologue and epilogue: " {\n...\n}, {\n...\n}\n". */
static void pr_decl_bodies(FILE *out, const struct ast_stmt *body, const struct ast_stmt *epi)
{
	fputs(" {\n", out);
	if (body)
		pr_block_body(out, body, 1);
	fputs("},", out);
	pr_decl_body(out, epi);
}

static void pr_probe(FILE *out, const struct ast_probe *p)
{
	fputs("probe ", out);
	if (p->kind != AST_PROBE) {
		pr_pplist(out, &p->names);
		fputs(p->kind == AST_ALIAS ? " = " : " += ", out);
	}
	pr_pplist(out, &p->points);
	if (p->epilogue)
		pr_decl_bodies(out, p->body, p->epilogue);
	else
		pr_decl_body(out, p->body);
}

static const char *pr_type(enum ast_type t)
{
	return t == AST_TYPE_LONG ? ":long" : t == AST_TYPE_STRING ? ":string" : "";
}

static void pr_func(FILE *out, const struct ast_func *f)
{
	unsigned i;

	fprintf(out, "%sfunction %s%s (", f->private_ ? "private " : "", f->name,
		pr_type(f->type));
	for (i = 0; i < f->nparams; i++)
		fprintf(out, "%s%s%s", i ? ", " : "", f->params[i].name,
			pr_type(f->params[i].type));
	fputc(')', out);
	if (f->has_priority)
		fprintf(out, ":%" PRId64, f->priority);
	if (f->embedded)
		fprintf(out, " %%{%s%%}\n", f->embedded);
	else
		pr_decl_body(out, f->body);
}

static void pr_global(FILE *out, const struct ast_global *g)
{
	fprintf(out, "%sglobal %s", g->private_ ? "private " : "", g->name);
	if (g->wrap)
		fputc('%', out);
	if (g->is_array)
		fprintf(out, "[%" PRId64 "]", g->size);
	if (g->init) {
		fputs(" = ", out);
		if (g->init->kind == AST_NUM)
			fprintf(out, "%" PRId64, g->init->num);
		else
			pr_string(out, g->init->str, g->init->len);
	}
	fputc('\n', out);
}

void ast_print_file(FILE *out, const struct ast_file *f)
{
	unsigned i;

	fprintf(out, "# parse tree dump\n# file %s\n", f->name);
	for (i = 0; i < f->n; i++) {
		const struct ast_decl *d = f->decls[i];

		if (i && d->kind != AST_D_GLOBAL)
			fputc('\n', out);
		switch (d->kind) {
		case AST_D_PROBE: pr_probe(out, d->probe); break;
		case AST_D_GLOBAL: pr_global(out, d->global); break;
		case AST_D_FUNC: pr_func(out, d->func); break;
		case AST_D_EMBEDDED: fprintf(out, "%%{%s%%}\n", d->embedded); break;
		}
	}
}

/* @e or else @p as -p1 prints it, as a string in @a. */
static const char *ast_text(struct arena *a, const struct ast_expr *e,
			    const struct ast_ppoint *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *s;

	if (!f)
		return "?";
	if (e)
		ast_print_expr(f, e);
	else
		ast_print_ppoint(f, p);
	fclose(f);
	s = arena_strndup(a, buf ? buf : "", len);
	free(buf);
	return s;
}

const char *ast_expr_text(struct arena *a, const struct ast_expr *e)
{
	return ast_text(a, e, NULL);
}

const char *ast_ppoint_text(struct arena *a, const struct ast_ppoint *p)
{
	return ast_text(a, NULL, p);
}
