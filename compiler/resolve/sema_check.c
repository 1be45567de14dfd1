/*
 * sema_check.c - pass 2: the checks stap makes on the typed program.
 *
 * In: the program after typing (every name bound, every expression
 * typed).  Out: located errors, in stap's words where it has words:
 *   - an array element assigned (=, op=, <<<, ++, --) inside a foreach
 *     over the array, directly or by a function the loop calls
 *     ("variable 'a' modified during 'foreach' iteration"; delete is
 *     allowed, as in stap);
 *   - a probe condition that writes a variable or has side effects;
 *   - a statistic in a local variable or passed to a function;
 *   - a foreach slice whose arity is not the array's;
 *   - a literal regular expression that does not compile;
 *   - a printf/sprintf format against its arguments (sema_format.c);
 * and the warning for a tapset variable this kernel cannot provide (the
 * tapset marks it with __ktap_unavailable(); the warning comes only when
 * the script reads it, since elision drops the assignment otherwise).
 */
#include "sema_int.h"
#include "arena.h"
#include "ast_walk.h"
#include "diag.h"

#include <regex.h>
#include <string.h>

/* What a used function does by itself: globals it writes, side effects. */
struct chk_fn {
	const struct sem_sym **writes;
	unsigned nwrites;
	size_t wcap;
	bool impure;		/* writes a global or has side effects, maybe by a call */
};

struct chk_ctx {
	struct sema_ctx *c;
	struct chk_fn *fn;		/* per function index */
	/* The arrays of the enclosing foreach loops, innermost last. */
	const struct sem_sym **iter;
	unsigned niter;
	size_t icap;
	/* Tapset variables already warned about, as "POINT VAR". */
	const char **warned;
	unsigned nwarned;
	size_t wcap;
	unsigned scan;			/* chk_fn_scan_fn: the function scanned */
};

/* The array (or statistic) that @e indexes or names, or NULL. */
static const struct sem_sym *chk_base(const struct ast_expr *e)
{
	if (!e)
		return NULL;
	if (e->kind == AST_INDEX)
		return e->a->kind == AST_VAR ? e->a->sym : NULL;
	if (e->kind == AST_HIST)
		return chk_base(e->a);
	return e->kind == AST_VAR ? e->sym : NULL;
}

/* ---- what each used function does ---- */

/* Whether @e calls a function of the script or the tapset (typed: ref). */
static bool chk_user_call(const struct chk_ctx *k, const struct ast_expr *e)
{
	return e->kind == AST_CALL && e->ref >= 0 && (unsigned)e->ref < k->c->prog->nfuncs;
}

static void chk_add_write(struct chk_ctx *k, unsigned f, const struct sem_sym *s)
{
	struct chk_fn *fn = &k->fn[f];

	if (!s || s->kind != SEM_GLOBAL)
		return;
	fn->writes = arena_grow(k->c->arena, fn->writes, fn->nwrites, &fn->wcap,
				sizeof(*fn->writes));
	fn->writes[fn->nwrites++] = s;
}

static int chk_fn_scan_fn(struct ast_expr *e, void *arg)
{
	struct chk_ctx *k = arg;

	if (e->kind == AST_ASSIGN || e->kind == AST_INCDEC) {
		chk_add_write(k, k->scan, e->a->kind == AST_INDEX ? chk_base(e->a) : e->a->sym);
		if (e->a->sym && e->a->sym->kind == SEM_GLOBAL)
			k->fn[k->scan].impure = true;
		if (e->a->kind == AST_INDEX)
			k->fn[k->scan].impure = true;
	} else if (e->kind == AST_CALL && e->ref < 0 &&
		   sema_builtin_has_side_effects(-e->ref - 1)) {
		k->fn[k->scan].impure = true;
	}
	return 0;
}

/*
 * Deletes are statements, which the expression walker does not show.
 * They make a function impure, but (as in stap, whose foreach check
 * sees assignments and ++/-- only) not a modification of a foreach's
 * array: deleting the element being visited is allowed.
 */
static void chk_fn_deletes(struct chk_ctx *k, const struct ast_stmt *s)
{
	unsigned i;

	if (!s)
		return;
	if (s->kind == AST_S_DELETE) {
		const struct sem_sym *b = chk_base(s->e);

		if (b && b->kind == SEM_GLOBAL)
			k->fn[k->scan].impure = true;
	}
	chk_fn_deletes(k, s->s1);
	chk_fn_deletes(k, s->s2);
	for (i = 0; i < s->body.n; i++)
		chk_fn_deletes(k, s->body.v[i]);
	if (s->fe)
		chk_fn_deletes(k, s->fe->body);
}

struct chk_calls {
	const struct chk_ctx *k;
	bool impure;
};

static int chk_calls_impure_fn(struct ast_expr *e, void *arg)
{
	struct chk_calls *s = arg;

	if (chk_user_call(s->k, e) && s->k->fn[e->ref].impure) {
		s->impure = true;
		return -1;
	}
	return 0;
}

static void chk_scan_functions(struct chk_ctx *k)
{
	const struct sem_prog *p = k->c->prog;
	bool changed = true;
	unsigned i;

	k->fn = arena_alloc(k->c->arena, (p->nfuncs + 1) * sizeof(*k->fn));
	for (i = 0; i < p->nfuncs; i++) {
		k->scan = i;
		ast_walk_stmt(p->funcs[i]->ast->body, chk_fn_scan_fn, k);
		chk_fn_deletes(k, p->funcs[i]->ast->body);
	}
	/* Impurity spreads to callers (stap's foreach rule, below, looks
	   only at the called function's own writes).  Callees are numbered
	   after their first caller, so walking backwards settles a call
	   chain in one pass. */
	while (changed) {
		changed = false;
		for (i = p->nfuncs; i-- > 0; ) {
			struct chk_calls s = { k, false };

			if (k->fn[i].impure)
				continue;
			ast_walk_stmt(p->funcs[i]->ast->body, chk_calls_impure_fn, &s);
			if (s.impure)
				changed = k->fn[i].impure = true;
		}
	}
}

/* ---- expressions: foreach mutations, statistics, regexes ---- */

static bool chk_iterated(const struct chk_ctx *k, const struct sem_sym *s)
{
	unsigned i;

	for (i = 0; s && i < k->niter; i++)
		if (k->iter[i] == s)
			return true;
	return false;
}

static void chk_modified(struct chk_ctx *k, const struct ast_expr *lv)
{
	const struct sem_sym *s;

	if (!lv || lv->kind != AST_INDEX)
		return;
	s = chk_base(lv);
	if (chk_iterated(k, s))
		diag_error(k->c->diag, lv->span, "variable '%s' modified during 'foreach' iteration",
			   s->name);
}

static void chk_call_modifies(struct chk_ctx *k, const struct ast_expr *e)
{
	const struct chk_fn *fn = &k->fn[e->ref];
	unsigned i, j;

	for (i = 0; i < k->niter; i++)
		for (j = 0; j < fn->nwrites; j++)
			if (fn->writes[j] == k->iter[i]) {
				diag_error(k->c->diag, e->span,
					   "function call modifies var '%s' during 'foreach' iteration",
					   k->iter[i]->name);
				break;
			}
}

/* A statistic as a value: a scalar statistic or an element of an array of them. */
static bool chk_is_stat(const struct ast_expr *e)
{
	const struct sem_sym *s = e->kind == AST_VAR || e->kind == AST_INDEX ? chk_base(e) : NULL;

	return s && s->type == SEM_STATS && (e->kind == AST_INDEX || !s->is_array);
}

static void chk_call_args(struct chk_ctx *k, const struct ast_expr *e)
{
	unsigned i;

	for (i = 0; i < e->args.n; i++)
		if (chk_is_stat(e->args.v[i]))
			diag_error(k->c->diag, e->args.v[i]->span,
				   "a statistic cannot be passed to function '%s'; use @count, "
				   "@sum, ...", e->str);
}

static void chk_regex(struct chk_ctx *k, const struct ast_expr *re)
{
	char msg[128];
	regex_t r;
	int rc;

	if (re->kind != AST_STR || memchr(re->str, '\0', re->len))
		return;
	/* As the runtime compiles it (runtime/interp.c). */
	rc = regcomp(&r, re->str, REG_EXTENDED);
	if (rc == 0) {
		regfree(&r);
		return;
	}
	regerror(rc, &r, msg, sizeof(msg));
	diag_error(k->c->diag, re->span, "invalid regular expression \"%.*s\": %s",
		   (int)re->len, re->str, msg);
}

static int chk_expr_fn(struct ast_expr *e, void *arg)
{
	struct chk_ctx *k = arg;

	if (e->kind == AST_ASSIGN || e->kind == AST_INCDEC)
		chk_modified(k, e->a);
	else if (chk_user_call(k, e)) {
		chk_call_modifies(k, e);
		chk_call_args(k, e);
	} else if (e->kind == AST_BINARY && (e->op == AST_OP_MATCH || e->op == AST_OP_NOMATCH))
		chk_regex(k, e->b);
	else if (e->kind == AST_CALL && e->ref < 0 &&
		 (sema_builtin_info(-e->ref - 1)->flags & BF_FORMAT))
		sema_format_check(k->c, e);
	return 0;
}

/* ---- statements: the foreach nesting ---- */

static void chk_stmt(struct chk_ctx *k, struct ast_stmt *s);

static void chk_foreach(struct chk_ctx *k, struct ast_stmt *s)
{
	struct ast_foreach *fe = s->fe;
	const struct sem_sym *a = chk_base(fe->array);
	unsigned i;

	ast_walk_expr(fe->limit, chk_expr_fn, k);
	for (i = 0; i < fe->slice.n; i++)
		ast_walk_expr(fe->slice.v[i], chk_expr_fn, k);
	if (fe->has_slice && a && a->is_array && fe->array->kind == AST_VAR &&
	    a->nkeys && fe->slice.n != a->nkeys)
		diag_error(k->c->diag, fe->slice.v[0]->span,
			   "array '%s' has %u key%s here but %u elsewhere", a->name,
			   fe->slice.n, fe->slice.n == 1 ? "" : "s", a->nkeys);
	if (!a) {
		chk_stmt(k, fe->body);
		return;
	}
	k->iter = arena_grow(k->c->arena, k->iter, k->niter, &k->icap, sizeof(*k->iter));
	k->iter[k->niter++] = a;
	chk_stmt(k, fe->body);
	k->niter--;
}

static void chk_stmt(struct chk_ctx *k, struct ast_stmt *s)
{
	unsigned i;

	if (!s)
		return;
	if (s->kind == AST_S_FOREACH) {
		chk_foreach(k, s);
		return;
	}
	ast_walk_expr(s->e, chk_expr_fn, k);
	ast_walk_expr(s->e2, chk_expr_fn, k);
	ast_walk_expr(s->e3, chk_expr_fn, k);
	chk_stmt(k, s->s1);
	chk_stmt(k, s->s2);
	for (i = 0; i < s->body.n; i++)
		chk_stmt(k, s->body.v[i]);
}

/* ---- probe conditions ---- */

static int chk_cond_fn(struct ast_expr *e, void *arg)
{
	struct chk_ctx *k = arg;

	if (e->kind == AST_ASSIGN || e->kind == AST_INCDEC ||
	    (chk_user_call(k, e) && k->fn[e->ref].impure)) {
		diag_error(k->c->diag, e->span, "probe condition must not modify any variables");
		return -1;
	}
	if (e->kind == AST_CALL && e->ref < 0 && sema_builtin_has_side_effects(-e->ref - 1)) {
		diag_error(k->c->diag, e->span,
			   "probe condition must not have side effects (%s() has)", e->str);
		return -1;
	}
	/* stap evaluates a condition apart from the handler (when the
	   globals it reads change): no function of the script, no local */
	if (chk_user_call(k, e)) {
		diag_error(k->c->diag, e->op_span, "probe condition must not call function "
			   "'%s': it may read only globals and the event", e->str);
		return -1;
	}
	if (e->kind == AST_VAR && e->sym && e->sym->kind == SEM_LOCAL) {
		diag_error(k->c->diag, e->span, "probe condition must not read '%s', which is "
			   "no global: declare it with 'global %s'", e->str, e->str);
		e->sym->written = true;	/* said: no "never assigned" warning too */
		return -1;
	}
	return 0;
}

/* ---- locals ---- */

static void chk_locals(struct chk_ctx *k, struct sem_sym **v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (v[i]->kind == SEM_LOCAL && v[i]->type == SEM_STATS)
			diag_error(k->c->diag, v[i]->span,
				   "'%s' is a local variable: statistics must be global variables",
				   v[i]->name);
}

/* ---- tapset variables this kernel cannot provide ---- */

static bool chk_warned(struct chk_ctx *k, const char *key)
{
	unsigned i;

	for (i = 0; i < k->nwarned; i++)
		if (!strcmp(k->warned[i], key))
			return true;
	k->warned = arena_grow(k->c->arena, k->warned, k->nwarned, &k->wcap,
			       sizeof(*k->warned));
	k->warned[k->nwarned++] = key;
	return false;
}

struct chk_unavail {
	struct chk_ctx *k;
	const struct sem_probe *sp;
};

static int chk_unavail_fn(struct ast_expr *e, void *arg)
{
	struct chk_unavail *u = arg;
	struct chk_ctx *k = u->k;
	const char *point, *var;
	bool str, missing;

	if (e->kind != AST_CALL || e->args.n != 2 || e->args.v[0]->kind != AST_STR ||
	    e->args.v[1]->kind != AST_STR)
		return 0;
	str = !strcmp(e->str, "__ktap_unavailable");
	missing = sema_is_missing_marker(e->str);
	if (!str && !missing && strcmp(e->str, "__ktap_unavailable_long") != 0)
		return 0;
	point = sema_point_text(k->c, u->sp->point);
	var = e->args.v[0]->str;
	if (chk_warned(k, arena_printf(k->c->arena, "%s %s", point, var)))
		return 1;
	if (missing) {	/* no value would do: an error */
		diag_error(k->c->diag, u->sp->point->span, "%s: '%s' is not available: %s",
			   point, var, e->args.v[1]->str);
		return 1;
	}
	diag_warning(k->c->diag, u->sp->point->span, "%s: '%s' is %s on this kernel: %s",
		     point, var, str ? "\"\"" : "0", e->args.v[1]->str);
	return 1;
}

bool sema_is_missing_marker(const char *name)
{
	return !strcmp(name, "__ktap_missing") || !strcmp(name, "__ktap_missing_str");
}

void sema_check(struct sema_ctx *c)
{
	struct chk_ctx k = { c, NULL, NULL, 0, 0, NULL, 0, 0, 0 };
	const struct sem_prog *p = c->prog;
	unsigned i;

	chk_scan_functions(&k);
	for (i = 0; i < p->nfuncs; i++) {
		chk_stmt(&k, p->funcs[i]->ast->body);
		chk_locals(&k, p->funcs[i]->locals, p->funcs[i]->nlocals);
	}
	for (i = 0; i < p->nprobes; i++) {
		struct sem_probe *sp = p->probes[i];
		struct chk_unavail u = { &k, sp };

		chk_stmt(&k, sp->body);
		ast_walk_expr(sp->cond, chk_expr_fn, &k);
		ast_walk_expr(sp->cond, chk_cond_fn, &k);
		chk_locals(&k, sp->locals, sp->nlocals);
		ast_walk_stmt(sp->body, chk_unavail_fn, &u);
	}
}

/* ---- globals typed by the probes that resolved to nothing ---- */

/* The type the right side of a global's assignment @e gives, if evident. */
static enum sem_type chk_assigned_type(const struct ast_expr *e)
{
	if (e->kind == AST_INCDEC)
		return SEM_LONG;
	switch (e->op) {
	case AST_OP_STAT_ADD: return SEM_STATS;
	case AST_OP_CAT_SET: return SEM_STRING;
	case AST_OP_SET:
		return e->b->kind == AST_STR ? SEM_STRING :
		       e->b->kind == AST_NUM ? SEM_LONG : SEM_UNKNOWN;
	default: return SEM_LONG;	/* +=, -=, ... */
	}
}

static int chk_dropped_fn(struct ast_expr *e, void *arg)
{
	struct sema_ctx *c = arg;
	const struct ast_expr *l;
	struct sem_sym *g;

	if (e->kind != AST_ASSIGN && e->kind != AST_INCDEC)
		return 0;
	l = e->a->kind == AST_INDEX ? e->a->a : e->a;
	if (l->kind != AST_VAR || !(g = sema_global(c, l->str)))
		return 0;
	if (c->dropped_never)
		g->written = true;
	if (g->type != SEM_UNKNOWN)
		return 0;
	g->type = chk_assigned_type(e);
	if (e->a->kind == AST_INDEX && !g->is_array && e->a->args.n <= SEM_MAX_KEYS) {
		g->is_array = true;
		g->nkeys = e->a->args.n;
	}
	return 0;
}

void sema_check_dropped(struct sema_ctx *c)
{
	unsigned i;

	/* Only evident types (literals, <<<, ++): the bodies are not typed,
	   since what they name (target variables) may not exist here. */
	for (i = 0; i < c->ndropped; i++) {
		c->dropped_never = c->dropped[i].never;
		ast_walk_stmt((struct ast_stmt *)c->dropped[i].body, chk_dropped_fn, c);
	}
	c->dropped_never = false;
}
