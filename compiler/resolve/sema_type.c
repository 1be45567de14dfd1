/*
 * sema_type.c - pass 2: names and types.
 *
 * Every probe body and every used function is walked repeatedly; each
 * walk binds names (locals, parameters, globals), types what it can from
 * literals, operators, builtins and already-typed symbols, and records
 * whether anything changed.  When a walk changes nothing, one last walk
 * reports every remaining problem (unknown names, type conflicts,
 * unresolved types), so each problem is reported once, at a location.
 */
#include "sema_int.h"
#include "arena.h"
#include "diag.h"
#include "resolve_tpfmt.h"
#include "resolve_dwarf.h"
#include "resolve_pretty.h"
#include "resolve_sym.h"

#include "resolve_btf.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SEMA_MAX_ROUNDS 32

/*
 * An address the kernel can compute at the probe: the value of the fetch
 * expression @expr ("%di", "+8(%di)", no type) plus the constant @off.
 */
struct ty_addr {
	const char *expr;
	int64_t off;
	const char *name;		/* a field name for what is read there */
};

static enum sem_type ty_expr(struct sema_ctx *c, struct ast_expr *e);
static void ty_stmt(struct sema_ctx *c, struct ast_stmt *s, unsigned loops);

static void ty_err(struct sema_ctx *c, struct src_span at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Errors only in the reporting round: earlier rounds may lack types. */
static void ty_err(struct sema_ctx *c, struct src_span at, const char *fmt, ...)
{
	va_list ap;

	if (!c->report)
		return;
	va_start(ap, fmt);
	diag_vreport(c->diag, DIAG_ERROR, at, fmt, ap);
	va_end(ap);
}

/* Merge @t into *slot; a conflict is an error naming @what. */
static void ty_unify(struct sema_ctx *c, enum sem_type *slot, enum sem_type t,
		     struct src_span at, const char *what)
{
	if (t == SEM_UNKNOWN || *slot == t)
		return;
	if (*slot == SEM_UNKNOWN) {
		*slot = t;
		c->changed = true;
		return;
	}
	/* @what is a variable's name, or a phrase ("an array key"). */
	ty_err(c, at, strchr(what, ' ') ? "type mismatch for %s: %s expected, %s found" :
	       "type mismatch for '%s': %s expected, %s found", what,
	       sem_type_name(*slot), sem_type_name(t));
}

/* Require @e to have type @want (unknown is fine until the last round). */
static void ty_as_number(struct sema_ctx *c, struct ast_expr *e);

static void ty_want(struct sema_ctx *c, struct ast_expr *e, enum sem_type want,
		    const char *what)
{
	enum sem_type t;

	if (want == SEM_LONG)
		ty_as_number(c, e);
	t = ty_expr(c, e);

	if (t == SEM_UNKNOWN || t == want)
		return;
	ty_err(c, e->span, "%s must be a %s, not a %s", what,
	       sem_type_name(want), sem_type_name(t));
}

/*
 * The event whose fields target variables name here: the probe's, or
 * inside @entry() the entry event of its function; in a function, the
 * event of the probe it is specialised for (sema_spec.c), else NULL.
 */
static struct tpf_event *ty_event(struct sema_ctx *c)
{
	struct sem_probe *pr = c->func ? c->func->site : c->probe;

	if (c->entry)
		return c->entry;
	return pr ? pr->event : NULL;
}

/* ---- symbols ---- */

static struct sem_sym *ty_new_local(struct sema_ctx *c, const char *name,
				    struct src_span span)
{
	struct sem_sym *s = arena_alloc(c->arena, sizeof(*s));
	struct sem_sym ***v;
	unsigned *n;
	size_t *cap;

	s->name = name;
	s->kind = SEM_LOCAL;
	s->span = span;
	if (c->func) {
		v = &c->func->locals, n = &c->func->nlocals, cap = &c->func->lcap;
	} else {
		v = &c->probe->locals, n = &c->probe->nlocals, cap = &c->probe->lcap;
	}
	s->slot = *n;
	*v = arena_grow(c->arena, *v, *n, cap, sizeof(**v));
	(*v)[(*n)++] = s;
	c->changed = true;
	return s;
}

static struct sem_sym *ty_find_local(struct sema_ctx *c, const char *name)
{
	struct sem_sym **v = c->func ? c->func->locals : c->probe->locals;
	unsigned n = c->func ? c->func->nlocals : c->probe->nlocals, i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i]->name, name) == 0)
			return v[i];
	return NULL;
}

/* A scalar variable: local, parameter or global; new locals on demand. */
static struct sem_sym *ty_scalar(struct sema_ctx *c, struct ast_expr *e)
{
	struct sem_sym *s = e->sym;

	if (!s)
		s = ty_find_local(c, e->str);
	if (!s)
		s = sema_global(c, e->str);
	if (!s)
		s = ty_new_local(c, e->str, e->span);
	e->sym = s;
	if (s->is_array)
		ty_err(c, e->span, "array '%s' used as a scalar (index it: %s[...])",
		       s->name, s->name);
	if (c->entry && !c->func && s->kind == SEM_LOCAL)
		ty_err(c, e->span, "local variable '%s' does not exist at the function's "
		       "entry, where @entry() is evaluated (use a global, a target "
		       "variable or a function)", s->name);
	return s;
}

/* A global array for @e (a VAR naming it), used with @nkeys keys. */
static struct sem_sym *ty_array(struct sema_ctx *c, struct ast_expr *e,
				unsigned nkeys)
{
	struct sem_sym *s = e->sym ? e->sym : sema_global(c, e->str);

	if (!s || s->kind != SEM_GLOBAL) {
		const char *hint = sema_suggest(c, e->str, false);

		ty_err(c, e->span,
		       "unresolved arity-%u global array '%s', missing global declaration?%s%s%s",
		       nkeys, e->str, hint ? " (did you mean '" : "",
		       hint ? hint : "", hint ? "'?)" : "");
		return NULL;
	}
	e->sym = s;
	if (!s->is_array) {
		if (s->written || s->read || s->type != SEM_UNKNOWN) {
			ty_err(c, e->span, "'%s' is a scalar, not an array", s->name);
			return NULL;
		}
		s->is_array = true;
		c->changed = true;
	}
	if (nkeys && !s->nkeys) {
		s->nkeys = nkeys;
		c->changed = true;
	} else if (nkeys && s->nkeys != nkeys) {
		ty_err(c, e->span, "array '%s' has %u key%s here but %u elsewhere",
		       s->name, nkeys, nkeys == 1 ? "" : "s", s->nkeys);
		return NULL;
	}
	return s;
}

/* Type the keys of an index/in/delete/slice against @s's key types. */
static void ty_keys(struct sema_ctx *c, struct sem_sym *s, struct ast_list *keys,
		    bool stars_ok)
{
	unsigned i;

	for (i = 0; i < keys->n && i < SEM_MAX_KEYS; i++) {
		struct ast_expr *k = keys->v[i];

		if (k->kind == AST_STAR) {
			if (!stars_ok)
				ty_err(c, k->span,
				       "'*' is only allowed in foreach, delete and 'in' (array slices)");
			continue;
		}
		ty_unify(c, &s->keys[i], ty_expr(c, k), k->span, "an array key");
		if (s->keys[i] == SEM_STATS)
			ty_err(c, k->span, "an array key cannot be a statistic");
	}
	if (keys->n > SEM_MAX_KEYS)
		ty_err(c, keys->v[SEM_MAX_KEYS]->span, "arrays have at most %d keys",
		       SEM_MAX_KEYS);
}

/* The base of an INDEX/IN/foreach: a global array or a histogram. */
static struct sem_sym *ty_base(struct sema_ctx *c, struct ast_expr *base,
			       struct ast_list *keys, bool stars_ok)
{
	struct sem_sym *s;

	if (base->kind != AST_VAR) {
		ty_expr(c, base);	/* a histogram: index = bucket */
		for (unsigned i = 0; i < keys->n; i++)
			ty_want(c, keys->v[i], SEM_LONG, "a histogram bucket");
		return NULL;
	}
	s = ty_array(c, base, keys->n);
	if (s)
		ty_keys(c, s, keys, stars_ok);
	return s;
}

/* ---- expressions ---- */

static enum sem_type ty_var(struct sema_ctx *c, struct ast_expr *e)
{
	struct sem_sym *s = ty_scalar(c, e);

	s->read = true;
	return s->type;
}

static enum sem_type ty_index(struct sema_ctx *c, struct ast_expr *e)
{
	struct sem_sym *s = ty_base(c, e->a, &e->args, false);

	if (!s)
		return e->a->kind == AST_VAR ? SEM_UNKNOWN : SEM_LONG;
	s->read = true;
	return s->type;
}

/* The variable an assignment writes: VAR or INDEX; others are errors. */
static enum sem_type *ty_lvalue(struct sema_ctx *c, struct ast_expr *e,
				struct sem_sym **sym)
{
	struct sem_sym *s = NULL;

	*sym = NULL;
	if (e->kind == AST_VAR) {
		s = ty_scalar(c, e);
	} else if (e->kind == AST_INDEX && e->a->kind == AST_VAR) {
		s = ty_base(c, e->a, &e->args, false);
	} else {
		ty_err(c, e->span, "%s cannot be assigned to",
		       e->kind == AST_TARGET ? "a tracepoint field" : "this expression");
		ty_expr(c, e);
		return NULL;
	}
	if (!s)
		return NULL;
	s->written = true;
	*sym = s;
	return &s->type;
}

static enum sem_type ty_assign(struct sema_ctx *c, struct ast_expr *e)
{
	struct sem_sym *s;
	enum sem_type *slot = ty_lvalue(c, e->a, &s);
	enum sem_type rt = ty_expr(c, e->b);

	if (!slot)
		return rt;
	switch (e->op) {
	case AST_OP_SET:
		ty_unify(c, slot, rt, e->span, s->name);
		if (*slot == SEM_STATS)
			ty_err(c, e->op_span, "statistics only take values with '<<<'");
		return *slot;
	case AST_OP_STAT_ADD:
		ty_unify(c, slot, SEM_STATS, e->a->span, s->name);
		ty_want(c, e->b, SEM_LONG, "a value added with '<<<'");
		return SEM_LONG;
	case AST_OP_CAT_SET:
		ty_unify(c, slot, SEM_STRING, e->a->span, s->name);
		ty_want(c, e->b, SEM_STRING, "the right side of '.='");
		s->read = true;
		return SEM_STRING;
	default:
		ty_unify(c, slot, SEM_LONG, e->a->span, s->name);
		ty_want(c, e->b, SEM_LONG, "the right side of a compound assignment");
		s->read = true;
		return SEM_LONG;
	}
}

static enum sem_type ty_incdec(struct sema_ctx *c, struct ast_expr *e)
{
	struct sem_sym *s;
	enum sem_type *slot = ty_lvalue(c, e->a, &s);

	/* A pure write, as stap counts it (its PR6954): `c[k]++` alone
	   leaves c to be printed at exit. */
	if (slot)
		ty_unify(c, slot, SEM_LONG, e->a->span, s->name);
	return SEM_LONG;
}

static enum sem_type ty_binary(struct sema_ctx *c, struct ast_expr *e)
{
	enum sem_type l, r;

	switch (e->op) {
	case AST_OP_CONCAT:
		ty_want(c, e->a, SEM_STRING, "an operand of '.'");
		ty_want(c, e->b, SEM_STRING, "an operand of '.'");
		return SEM_STRING;
	case AST_OP_MATCH: case AST_OP_NOMATCH:
		ty_want(c, e->a, SEM_STRING, "the left side of a regular expression match");
		return SEM_LONG;
	case AST_OP_LT: case AST_OP_GT: case AST_OP_LE: case AST_OP_GE:
	case AST_OP_EQ: case AST_OP_NE:
		if (e->b->kind == AST_NUM)	/* $p->comm == 0: an address */
			ty_as_number(c, e->a);
		if (e->a->kind == AST_NUM)
			ty_as_number(c, e->b);
		l = ty_expr(c, e->a);
		r = ty_expr(c, e->b);
		if (l != SEM_UNKNOWN && r != SEM_UNKNOWN && l != r)
			ty_err(c, e->op_span, "cannot compare a %s with a %s",
			       sem_type_name(l), sem_type_name(r));
		else if (l == SEM_STATS || r == SEM_STATS)
			ty_err(c, e->op_span, "cannot compare statistics; use @count, @sum, ...");
		/* Pass a known type to an untyped variable on the other side. */
		if (l == SEM_UNKNOWN && r != SEM_UNKNOWN && e->a->sym && e->a->kind == AST_VAR)
			ty_unify(c, &e->a->sym->type, r, e->a->span, e->a->sym->name);
		if (r == SEM_UNKNOWN && l != SEM_UNKNOWN && e->b->sym && e->b->kind == AST_VAR)
			ty_unify(c, &e->b->sym->type, l, e->b->span, e->b->sym->name);
		return SEM_LONG;
	default:
		ty_want(c, e->a, SEM_LONG, "an operand of an arithmetic or logical operator");
		ty_want(c, e->b, SEM_LONG, "an operand of an arithmetic or logical operator");
		return SEM_LONG;
	}
}

static enum sem_type ty_ternary(struct sema_ctx *c, struct ast_expr *e)
{
	enum sem_type t = SEM_UNKNOWN;

	/* @defined(x) ? x : y (@choose_defined): only the branch taken is
	   compiled, since the other may name what this kernel lacks. */
	if (e->a->kind == AST_DEFINED) {
		ty_expr(c, e->a);
		*e = e->a->num ? *e->b : *e->c;
		c->changed = true;
		return ty_expr(c, e);
	}
	ty_want(c, e->a, SEM_LONG, "the condition of '?:'");
	ty_unify(c, &t, ty_expr(c, e->b), e->b->span, "the branches of '?:'");
	ty_unify(c, &t, ty_expr(c, e->c), e->c->span, "the branches of '?:'");
	return t;
}

static enum sem_type ty_in(struct sema_ctx *c, struct ast_expr *e)
{
	struct sem_sym *s = ty_base(c, e->a, &e->args, true);

	if (s)
		s->read = true;
	return SEM_LONG;
}

/* @count(x) ... and @hist_*(x): x is a statistic (scalar or element). */
static struct sem_sym *ty_stat_operand(struct sema_ctx *c, struct ast_expr *x)
{
	struct sem_sym *s = NULL;

	if (x->kind == AST_VAR)
		s = ty_scalar(c, x);
	else if (x->kind == AST_INDEX && x->a->kind == AST_VAR)
		s = ty_base(c, x->a, &x->args, false);
	else
		ty_err(c, x->span, "statistical operators apply to a statistic variable or array element");
	if (!s)
		return NULL;
	s->read = true;
	ty_unify(c, &s->type, SEM_STATS, x->span, s->name);
	return s;
}

/*
 * stap's rule (_stp_stat_calc_buckets at module start): any interval but
 * 0, and (stop - start) / interval + 3 buckets (under- and overflow
 * included) between 3 and STP_MAX_BUCKETS.  So start == stop and a
 * negative interval with stop < start are ranges too.  The upper bound
 * depends on -D STP_MAX_BUCKETS: the runtime checks it (rt_init).
 */
static void ty_hist_range(struct sema_ctx *c, const struct ast_expr *e, const int64_t *v)
{
	int64_t n;

	if (v[2] == 0) {
		ty_err(c, e->span, "@hist_linear: interval cannot be zero");
		return;
	}
	if ((v[1] < 0 && v[0] > INT64_MAX + v[1]) || (v[1] >= 0 && v[0] < v[1] - INT64_MAX))
		n = -1;		/* stop - start overflows: no sane range */
	else
		n = v[2] == -1 ? -(v[1] - v[0]) : (v[1] - v[0]) / v[2];
	if (n < 0)
		ty_err(c, e->span, "@hist_linear: the number of buckets, (stop - start) / interval, "
		       "must not be negative");
}

static enum sem_type ty_hist(struct sema_ctx *c, struct ast_expr *e)
{
	struct sem_sym *s = ty_stat_operand(c, e->a);
	bool literal = true;
	unsigned i;

	for (i = 0; i < e->args.n; i++) {
		if (e->args.v[i]->kind != AST_NUM &&
		    !(e->args.v[i]->kind == AST_UNARY && e->args.v[i]->a->kind == AST_NUM)) {
			ty_err(c, e->args.v[i]->span, "@hist_linear takes literal numbers");
			literal = false;
		}
	}
	if (!s || !literal)	/* no range to read from what is not a number */
		return SEM_STATS;
	if (e->op == AST_OP_HIST_LOG) {
		s->hist_log = true;
	} else if (e->args.n == 3) {
		int64_t v[3];

		for (i = 0; i < 3; i++)
			v[i] = e->args.v[i]->kind == AST_NUM ? e->args.v[i]->num :
			       -e->args.v[i]->a->num;
		ty_hist_range(c, e, v);
		if (s->hist_linear && (s->lin_start != v[0] || s->lin_stop != v[1] ||
				       s->lin_step != v[2]))
			ty_err(c, e->span, "'%s' is used with two different @hist_linear ranges",
			       s->name);
		s->hist_linear = true;
		s->lin_start = v[0];
		s->lin_stop = v[1];
		s->lin_step = v[2];
	}
	return SEM_STATS;
}

/* Check a builtin call's arguments against its signature. */
static enum sem_type ty_builtin(struct sema_ctx *c, struct ast_expr *e, int id)
{
	const struct sema_bi *b = sema_builtin_info(id);
	const char *sig = b->args;
	unsigned i, fixed = 0;
	bool rep = strchr(sig, '*') != NULL;

	while (sig[fixed] && sig[fixed] != '*')
		fixed++;
	if (rep)
		fixed--;	/* the letter before '*' may repeat 0+ times */
	if (e->args.n < fixed || (!rep && e->args.n > fixed))
		ty_err(c, e->span, "%s() takes %s%u argument%s, %u given", b->name,
		       rep ? "at least " : "", fixed, fixed == 1 ? "" : "s", e->args.n);
	for (i = 0; i < e->args.n; i++) {
		char want = i < fixed ? sig[i] : rep ? sig[fixed] : 'a';
		struct ast_expr *a = e->args.v[i];
		enum sem_type t;

		if (a->kind == AST_HIST && (id == sema_builtin("print") ||
					    id == sema_builtin("println"))) {
			ty_expr(c, a);
			continue;
		}
		t = ty_expr(c, a);
		if (t == SEM_STATS)
			ty_err(c, a->span, "a statistic cannot be passed to %s(); use @count, @sum, ...",
			       b->name);
		else if (want == 'l' && t == SEM_STRING)
			ty_err(c, a->span, "argument %u of %s() must be a long", i + 1, b->name);
		else if (want == 's' && t == SEM_LONG)
			ty_err(c, a->span, "argument %u of %s() must be a string", i + 1, b->name);
		else if (want != 'a' && t == SEM_UNKNOWN && a->kind == AST_VAR && a->sym)
			ty_unify(c, &a->sym->type, want == 'l' ? SEM_LONG : SEM_STRING,
				 a->span, a->sym->name);
	}
	e->ref = -id - 1;
	return b->ret == 'l' ? SEM_LONG : b->ret == 's' ? SEM_STRING : SEM_LONG;
}

/*
 * A resolved target (ty_mem_call, ty_addr_of): module holds
 * "NAME=FETCHARG", str the expression's text for -p2.
 */
static void ty_resolved(struct sema_ctx *c, const struct ast_expr *e, struct fetch *f)
{
	const char *eq = strchr(e->module, '='), *colon = strrchr(e->module, ':');

	f->name = arena_strndup(c->arena, e->module, (size_t)(eq - e->module));
	f->arg = eq + 1;
	f->is_string = colon && strstr(colon, "string") != NULL;
}

static int ty_fetch_addr(struct sema_ctx *c, struct tpf_event *ev, struct ast_expr *e,
			 struct ty_addr *out);
static int ty_cast_fetch(struct sema_ctx *c, struct tpf_event *ev, struct ast_expr *e,
			 struct fetch *f);
static const char *ty_mem_arg(struct sema_ctx *c, const struct ty_addr *ad, enum ast_mem mem,
			      bool kernel);

/*
 * kernel_string(A), user_string(A), kernel_long(A) ... where A is an
 * address the kernel can fetch (a target variable, a @cast() chain,
 * either plus a constant) in a kprobe or uprobe: the kernel reads the
 * memory as part of the event (a fetch argument).  On a plain target
 * variable the call becomes that target with its chain marked; on
 * anything else it becomes a resolved target: str is the call's text,
 * module the fetch argument.  Returns -1 when @e is not one.
 */
static int ty_mem_call(struct sema_ctx *c, struct ast_expr *e)
{
	enum ast_mem mem = sema_mem_fn(e->str);
	struct ast_expr *arg = e->args.n == 1 ? e->args.v[0] : NULL;
	struct tpf_event *ev = ty_event(c);
	struct ty_addr ad;

	if (mem == AST_MEM_NONE || sema_func_use(c, e->str))
		return -1;
	if (!arg || !ev || !ev->dyn_func) {
		ty_err(c, e->span, "%s() reads memory, which ktap can only do in the kernel: "
		       "its argument must be a target variable of a kernel.function() or "
		       "process() probe ($ptr, $p->member)", e->str);
		return SEM_UNKNOWN;
	}
	if ((arg->kind == AST_TARGET && !arg->module) || (arg->kind == AST_CAST && arg->chain.n)) {
		*e = *arg;
		e->chain.mem = mem;
		return (int)ty_expr(c, e);
	}
	if (ty_fetch_addr(c, ev, arg, &ad) != 0)
		return SEM_UNKNOWN;
	e->str = sema_spec_text(c->arena, e);
	e->module = arena_printf(c->arena, "%s_%s=%s", ad.name,
				 mem == AST_MEM_KSTRING || mem == AST_MEM_USTRING ? "str" : "mem",
				 ty_mem_arg(c, &ad, mem,
					    ((const struct fetch_site *)ev->dyn_func)->btf != NULL));
	e->kind = AST_TARGET;
	e->args.n = 0;
	memset(&e->chain, 0, sizeof(e->chain));
	return (int)ty_expr(c, e);
}

/*
 * probefunc() in a kernel.function(), kprobe.function() or
 * process().function()/.statement() probe: the probed function's name
 * (stap's symname(addr())), known now, so a constant.  Elsewhere it stays
 * a call (the empty string at run time).  True when @e was replaced.
 */
static bool ty_probefunc(struct sema_ctx *c, struct ast_expr *e)
{
	const struct tpf_event *ev = ty_event(c);
	const struct fetch_site *fn = ev ? ev->dyn_func : NULL;

	if (strcmp(e->str, "probefunc") != 0 || e->args.n || !fn || !fn->name ||
	    !strcmp(fn->name, "?"))
		return false;
	e->kind = AST_STR;
	e->str = fn->name;
	e->len = strlen(fn->name);
	c->changed = true;
	return true;
}

static enum sem_type ty_call(struct sema_ctx *c, struct ast_expr *e)
{
	struct sem_func *f;
	bool failed;
	unsigned i;
	int id;

	if ((id = ty_mem_call(c, e)) >= 0)
		return (enum sem_type)id;
	f = sema_spec_call(c, e, &failed);
	if (failed) {
		for (i = 0; i < e->args.n; i++)
			ty_expr(c, e->args.v[i]);
		return SEM_UNKNOWN;
	}
	if (!f)
		f = sema_func_use(c, e->str);
	if (!f) {
		id = sema_builtin(e->str);
		if (id >= 0 && ty_probefunc(c, e))
			return SEM_STRING;
		if (id >= 0)
			return ty_builtin(c, e, id);
		for (i = 0; i < e->args.n; i++)
			ty_expr(c, e->args.v[i]);
		if (!strcmp(e->str, "task_backtrace")) {
			/* stap's own is a warning stub since 1.6 */
			ty_err(c, e->op_span, "task_backtrace() is not supported: tracefs records "
			       "the stack of the task an event runs in, not of another task; "
			       "use backtrace() in a probe that runs in that task");
			return SEM_UNKNOWN;
		}
		{
			const char *hint = sema_suggest(c, e->str, true);

			ty_err(c, e->op_span, "unknown function '%s'%s%s%s", e->str,
			       hint ? "; did you mean '" : "", hint ? hint : "",
			       hint ? "'?" : "");
		}
		return SEM_UNKNOWN;
	}
	e->ref = (int)f->index;
	if (e->args.n != f->nparams)
		ty_err(c, e->span, "function '%s' takes %u argument%s, %u given",
		       f->name, f->nparams, f->nparams == 1 ? "" : "s", e->args.n);
	for (i = 0; i < e->args.n; i++) {
		enum sem_type t = ty_expr(c, e->args.v[i]);

		if (i >= f->nparams)
			continue;
		ty_unify(c, &f->locals[i]->type, t, e->args.v[i]->span,
			 f->locals[i]->name);
		/* A typed parameter types an untyped variable passed to it. */
		if (t == SEM_UNKNOWN && e->args.v[i]->kind == AST_VAR && e->args.v[i]->sym)
			ty_unify(c, &e->args.v[i]->sym->type, f->locals[i]->type,
				 e->args.v[i]->span, e->args.v[i]->sym->name);
	}
	return f->ret;
}

/* $field of a tracepoint, and $$parms / $$vars. */
/* Field @f of dynamic event @ev: the one with the same fetch, or a new one. */
static int ty_dyn_field(struct sema_ctx *c, struct tpf_event *ev, const struct fetch *f)
{
	/* The kernel takes argument names of at most 31 characters
	   (MAX_ARG_NAME_LEN): long member chains are cut, then numbered. */
	const char *name = strlen(f->name) > 27 ? arena_strndup(c->arena, f->name, 27) : f->name;
	struct tpf_field *nf;
	unsigned i, same = 0;

	for (i = 0; i < ev->nfields; i++) {
		if (!strcmp(ev->fields[i].fetch, f->arg))
			return (int)i;
		if (!strncmp(ev->fields[i].name, name, strlen(name)))
			same++;
	}
	ev->fields = arena_grow(c->arena, ev->fields, ev->nfields, &ev->fcap,
				sizeof(*ev->fields));
	nf = &ev->fields[ev->nfields];
	memset(nf, 0, sizeof(*nf));
	/* Field names must differ: "p_len", "p_len_1", ... */
	nf->name = same ? arena_printf(c->arena, "%s_%u", name, same) : name;
	nf->fetch = f->arg;
	nf->kind = f->is_string ? TPF_DATALOC_STR : TPF_INT;
	nf->size = 8;
	nf->is_signed = true;
	return (int)ev->nfields++;
}

static struct ast_expr *ty_lit(struct sema_ctx *c, const char *s, struct src_span at)
{
	return ast_str(c->arena, s, strlen(s), at);
}

static struct ast_expr *ty_cat(struct sema_ctx *c, struct ast_expr *l, struct ast_expr *r)
{
	return ast_binary(c->arena, AST_BINARY, AST_OP_CONCAT, l, r, r->span);
}

static struct ast_expr *ty_call1(struct sema_ctx *c, const char *fn, struct ast_expr *fmt,
				 struct ast_expr *arg)
{
	struct ast_expr *call = ast_named(c->arena, AST_CALL, fn, arg->span);

	call->op_span = arg->span;
	if (fmt)
		ast_list_push(c->arena, &call->args, fmt);
	ast_list_push(c->arena, &call->args, arg);
	return call;
}

/* One piece of a pretty-printed string: text, or a value in stap's format. */
static struct ast_expr *ty_item(struct sema_ctx *c, const struct rpretty_item *it,
				struct src_span at)
{
	static const char *const fmts[] = {
		[RPRETTY_HEX] = "%#x", [RPRETTY_UINT] = "%u", [RPRETTY_CHAR] = "'%c'",
		[RPRETTY_PTR] = "%p",
	};
	struct ast_expr *t;

	if (it->fmt == RPRETTY_TEXT)
		return ty_lit(c, it->text, at);
	t = ast_expr_new(c->arena, AST_TARGET, at);
	t->str = it->var;
	t->chain = it->chain;
	if (it->fmt == RPRETTY_STRING)
		return ty_cat(c, ty_cat(c, ty_lit(c, "\"", at), t), ty_lit(c, "\"", at));
	if (it->fmt == RPRETTY_INT)
		return ty_call1(c, "sprint", NULL, t);
	return ty_call1(c, "sprintf", ty_lit(c, fmts[it->fmt], at), t);
}

/* @e becomes the concatenation of @v (@n pieces), then is typed again. */
static enum sem_type ty_items(struct sema_ctx *c, struct ast_expr *e, const struct rpretty_item *v,
			      unsigned n)
{
	struct ast_expr *acc = n ? ty_item(c, &v[0], e->span) : ty_lit(c, "", e->span);
	unsigned i;

	for (i = 1; i < n; i++)
		acc = ty_cat(c, acc, ty_item(c, &v[i], e->span));
	*e = *acc;
	c->changed = true;
	return ty_expr(c, e);
}

/*
 * $var$ and $var$$: "{.a=1, .s="x", .p=0x10, .in={...}}" as stap prints
 * it (resolve_pretty.c decides the pieces), one fetch per value.
 */
static enum sem_type ty_pretty(struct sema_ctx *c, struct ast_expr *e, struct tpf_event *ev)
{
	struct rpretty_item *v;
	unsigned n;
	char err[512] = "";

	if (rpretty_var(c->arena, ev->dyn_func, e->str, &e->chain, ev->dyn_return, &v, &n,
		      err, sizeof(err)) != 0) {
		ty_err(c, e->span, "%s", err);
		return SEM_UNKNOWN;
	}
	return ty_items(c, e, v, n);
}

/* $var of a process().function() probe: a fetch argument of its uprobe. */
static enum sem_type ty_dyn_target(struct sema_ctx *c, struct ast_expr *e,
				   struct tpf_event *ev)
{
	struct fetch f;
	char err[512];

	if (!strcmp(e->str, "$$parms") || !strcmp(e->str, "$$vars") ||
	    !strcmp(e->str, "$$locals") || !strcmp(e->str, "$$return")) {
		struct rpretty_item *v;
		unsigned n = rpretty_context(c->arena, ev->dyn_func, e->str, e->chain.pretty,
					ev->dyn_return, &v);

		return ty_items(c, e, v, n);
	}
	if (e->chain.pretty)
		return ty_pretty(c, e, ev);
	if (rdwarf_fetch(c->arena, ev->dyn_func, e->str, &e->chain, ev->dyn_return, &f,
		     err, sizeof(err)) != 0) {
		ty_err(c, e->span, "%s", err);
		return SEM_UNKNOWN;
	}
	e->ref = ty_dyn_field(c, ev, &f);
	return f.is_string ? SEM_STRING : SEM_LONG;
}

static enum sem_type ty_target(struct sema_ctx *c, struct ast_expr *e)
{
	const struct tpf_event *ev = ty_event(c);
	const struct tpf_field *f;

	if (e->module && ev && ev->dyn_func) {	/* resolved by ty_mem_call/ty_addr_of */
		struct fetch uf;

		ty_resolved(c, e, &uf);
		e->ref = ty_dyn_field(c, (struct tpf_event *)ev, &uf);
		return uf.is_string ? SEM_STRING : SEM_LONG;
	}
	if (!ev) {
		ty_err(c, e->span, "target variable '%s' is not available %s", e->str,
		       c->func ? "in a function" : "in this kind of probe");
		return SEM_UNKNOWN;
	}
	if (c->entry && !strcmp(e->str, "$return")) {
		ty_err(c, e->span, "$return does not exist yet at the function's entry, "
		       "where @entry() is evaluated");
		return SEM_UNKNOWN;
	}
	if (ev->dyn_func)
		return ty_dyn_target(c, e, (struct tpf_event *)ev);
	if (ev->dyn) {
		ty_err(c, e->span, "target variable '%s' is not available in a kernel "
		       "statement probe: registers only hold the parameters at a function's "
		       "entry (use kernel.function())", e->str);
		return SEM_UNKNOWN;
	}
	if (!strcmp(e->str, "$$parms") || !strcmp(e->str, "$$vars") ||
	    !strcmp(e->str, "$$locals")) {
		e->ref = -1;
		return SEM_STRING;
	}
	if (!strcmp(e->str, "$$system") || !strcmp(e->str, "$$name")) {
		const char *v = e->str[2] == 's' ? ev->system : ev->name;

		e->kind = AST_STR;	/* known now: a constant */
		e->str = v;
		e->len = strlen(v);
		return SEM_STRING;
	}
	f = tpf_field(ev, e->str + 1);
	if (!f || f->kind == TPF_OTHER || e->str[1] == '$') {
		const char *hint = f ? NULL : sema_suggest_field(ev, e->str + 1);

		ty_err(c, e->span, "tracepoint %s:%s has no usable field '%s'%s%s%s",
		       ev->system, ev->name, e->str + 1, hint ? "; did you mean '$" : "",
		       hint ? hint : "", hint ? "'?" : "");
		return SEM_UNKNOWN;
	}
	if (e->chain.n) {
		ty_err(c, e->chain.v[0].span,
		       "'%s' is a plain tracepoint field: '->' and '[]' need a kprobe with type information",
		       e->str);
		return SEM_UNKNOWN;
	}
	e->ref = (int)(f - ev->fields);
	return f->kind == TPF_INT && !e->chain.pretty ? SEM_LONG : SEM_STRING;
}

/*
 * stap's value of a target variable ktap reads as a string, where a
 * number is wanted (arithmetic, a condition, a comparison with a
 * number): a char * is the pointer ($msg == 0), a char array its own
 * address ($r->tag + 1 is &$r->tag + 1).  Decided before @e is typed, so
 * the event only gets the fetch that is used.
 */
static void ty_as_number(struct sema_ctx *c, struct ast_expr *e)
{
	struct tpf_event *ev = ty_event(c);
	struct ast_chain raw;
	struct ast_expr *x;
	struct fetch f;
	char err[512];

	if (e->kind != AST_TARGET || e->module || !ev || !ev->dyn_func || e->chain.pretty ||
	    e->chain.mem || e->chain.raw || !strncmp(e->str, "$$", 2) ||
	    rdwarf_fetch(c->arena, ev->dyn_func, e->str, &e->chain, ev->dyn_return, &f, err,
			 sizeof(err)) != 0 || !f.is_string)
		return;		/* not a string; or an error, which typing reports */
	raw = e->chain;
	raw.raw = true;
	if (rdwarf_fetch(c->arena, ev->dyn_func, e->str, &raw, ev->dyn_return, &f, err,
			 sizeof(err)) == 0 && !f.is_string) {
		e->chain.raw = true;	/* a char *: the pointer */
		return;
	}
	x = arena_alloc(c->arena, sizeof(*x));	/* an array: its address */
	*x = *e;
	memset(e, 0, sizeof(*e));
	e->kind = AST_UNARY;
	e->op = AST_OP_ADDR;
	e->span = x->span;
	e->op_span = x->span;
	e->a = x;
	c->changed = true;
}

/* @defined(x) is decided now: 1 when x resolves. */
static enum sem_type ty_defined(struct sema_ctx *c, struct ast_expr *e)
{
	const struct tpf_event *ev = ty_event(c);
	bool ok = true;

	if (e->a->kind == AST_TARGET && ev && ev->dyn_func && e->a->str[1] != '$') {
		struct fetch f;
		struct ast_chain plain = e->a->chain;
		char err[512];

		plain.pretty = 0;
		ok = rdwarf_fetch(c->arena, ev->dyn_func, e->a->str, &plain, ev->dyn_return, &f, err,
			      sizeof(err)) == 0;
	} else if (e->a->kind == AST_TARGET) {
		ok = ev && e->a->chain.n == 0 &&
		     (tpf_field(ev, e->a->str + 1) || e->a->str[1] == '$');
	} else if (e->a->kind == AST_CAST && ev && ev->dyn_func) {
		/* Resolve a copy quietly: its members may not exist here. */
		struct fetch f;
		bool report = c->report;

		c->report = false;
		ok = ty_cast_fetch(c, ty_event(c), ast_clone_expr(c->arena, e->a), &f) == 0;
		c->report = report;
	}
	e->kind = AST_NUM;
	e->num = ok;
	e->a = NULL;
	c->changed = true;
	return SEM_LONG;
}

/* The entry probe of return event @ev: same function, no fetches yet. */
static struct tpf_event *ty_entry_event(struct sema_ctx *c, struct tpf_event *ev)
{
	struct tpf_event *en;

	if (ev->dyn_entry)
		return ev->dyn_entry;
	en = arena_alloc(c->arena, sizeof(*en));
	*en = *ev;
	en->fields = NULL;
	en->nfields = 0;
	en->fcap = 0;
	en->dyn_return = false;
	en->name = arena_printf(c->arena, "%se", ev->name);
	en->dyn = arena_alloc(c->arena, sizeof(*en->dyn));
	*en->dyn = *ev->dyn;	/* same target and origin, no maxactive */
	en->dyn->kind = ev->dyn->kind == KP_URETPROBE ? KP_UPROBE : KP_KPROBE;
	en->dyn->name = en->name;
	en->dyn->maxactive = 0;
	ev->dyn_entry = en;
	return en;
}

/* @e's slot among the probe's @entry values (the same on every round). */
static unsigned ty_entry_slot(struct sema_ctx *c, struct ast_expr *e)
{
	struct sem_probe *p = c->probe;
	unsigned i;

	for (i = 0; i < p->nentries; i++)
		if (p->entries[i] == e->a)
			return i;
	p->entries = arena_grow(c->arena, p->entries, p->nentries, &p->ecap,
				sizeof(*p->entries));
	p->entries[p->nentries] = e->a;
	c->changed = true;
	return p->nentries++;
}

/*
 * @entry(EXPR) in a .return probe: EXPR's value at the function's entry.
 * As in stap, EXPR is evaluated once, by a companion probe on the
 * function's entry: its target variables are fetch arguments of that
 * probe's event, and clocks, tid(), execname() and globals are those of
 * the entry.  The return probe reads the value as slot e->ref of the
 * matching entry (pass 3 builds the entry probe from sem_probe.entries).
 */
static enum sem_type ty_entry(struct sema_ctx *c, struct ast_expr *e)
{
	struct tpf_event *ev = c->probe && !c->func ? c->probe->event : NULL;
	enum sem_type t;

	if (!ev || !ev->dyn_func || !ev->dyn_return) {
		ty_err(c, e->span, "@entry() is for .return probes of kernel.function() and "
		       "process().function()");
		return SEM_UNKNOWN;
	}
	if (c->entry) {
		ty_err(c, e->span, "@entry() inside @entry(): the operand is already "
		       "evaluated at the function's entry");
		return SEM_UNKNOWN;
	}
	e->ref = (int)ty_entry_slot(c, e);
	c->entry = ty_entry_event(c, ev);
	t = ty_expr(c, e->a);
	c->entry = NULL;
	if (t == SEM_STATS) {
		ty_err(c, e->a->span, "@entry() of a statistic: use @count(), @sum() ...");
		return SEM_UNKNOWN;
	}
	return t;
}

/* @f's fetch argument without its type: the value as an expression. */
static const char *ty_untyped(struct sema_ctx *c, const struct fetch *f)
{
	const char *colon = strrchr(f->arg, ':');

	return colon ? arena_strndup(c->arena, f->arg, (size_t)(colon - f->arg)) : f->arg;
}

/*
 * The BTF @e's type comes from in a kernel probe: the named module's
 * (stap's third argument), the kernel's for "kernel" and "kernel<h>",
 * else the probed function's own (which includes the kernel's).
 */
static const struct btf *ty_cast_btf(struct sema_ctx *c, const struct fetch_site *uf,
				     const struct ast_expr *e, char *err, size_t errlen)
{
	const char *m = e->module;

	if (!m || !*m)
		return uf->btf;
	if (!strcmp(m, "kernel") || !strncmp(m, "kernel<", 7))
		return relf_kernel_btf(c->in->up, c->arena, NULL, err, errlen);
	return relf_kernel_btf(c->in->up, c->arena, m, err, errlen);
}

/*
 * @cast(ADDR, "T"[, "module"])->chain where ADDR is an address the
 * kernel can fetch (see ty_fetch_addr): one fetch argument that reads
 * through the address with T's layout (from DWARF, or BTF: the kernel's
 * or the named module's).  0, or -1 after reporting.
 */
static int ty_cast_fetch(struct sema_ctx *c, struct tpf_event *ev, struct ast_expr *e,
			 struct fetch *f)
{
	const struct fetch_site *uf = ev->dyn_func;
	const struct btf *btf;
	struct ty_addr base;
	char err[512] = "";

	if (ty_fetch_addr(c, ev, e->a, &base) != 0)
		return -1;
	if (uf->btf) {
		btf = ty_cast_btf(c, uf, e, err, sizeof(err));
		if (btf && rbtf_cast_at(c->arena, btf, base.expr, base.off, base.name, e->str,
				      &e->chain, f, err, sizeof(err)) == 0)
			return 0;
	} else if (base.off) {
		snprintf(err, sizeof(err), "@cast() of an address plus a constant needs BTF "
			 "(a kernel type); in a process() probe, cast the target variable itself");
	} else if (rdwarf_cast(c->arena, uf, base.expr, base.name, e->str, &e->chain, f, err,
			   sizeof(err)) == 0) {
		return 0;
	}
	ty_err(c, e->span, "%s", err);
	return -1;
}

/*
 * The address fetchable @e evaluates to: a target variable ($p,
 * $p->q, kernel_long($p)), a @cast() chain, a memory builtin of one of
 * these, or one of these plus or minus a constant.  0, or -1 after
 * reporting why not.
 */
static int ty_fetch_addr(struct sema_ctx *c, struct tpf_event *ev, struct ast_expr *e,
			 struct ty_addr *out)
{
	struct fetch f;
	char err[512];

	memset(out, 0, sizeof(*out));
	if (e->kind == AST_UNARY && e->op == AST_OP_ADDR) {
		struct fetch base;

		if (ty_expr(c, e) == SEM_UNKNOWN)
			return -1;	/* reported */
		ty_resolved(c, e, &base);
		out->expr = ty_untyped(c, &base);
		out->off = e->num;
		out->name = base.name;
		return 0;
	}
	if (e->kind == AST_BINARY && (e->op == AST_OP_ADD || e->op == AST_OP_SUB) &&
	    (e->b->kind == AST_NUM || (e->op == AST_OP_ADD && e->a->kind == AST_NUM))) {
		bool left = e->b->kind == AST_NUM;

		if (ty_fetch_addr(c, ev, left ? e->a : e->b, out) != 0)
			return -1;
		out->off += e->op == AST_OP_ADD ? (left ? e->b->num : e->a->num) : -e->b->num;
		return 0;
	}
	if (e->kind == AST_CALL && sema_mem_fn(e->str) != AST_MEM_NONE)
		ty_expr(c, e);		/* becomes a target */
	if (e->kind == AST_TARGET && e->module && ev->dyn_func) {
		ty_resolved(c, e, &f);
	} else if (e->kind == AST_TARGET && ev->dyn_func && !e->chain.pretty &&
		   strncmp(e->str, "$$", 2) != 0) {
		if (rdwarf_fetch(c->arena, ev->dyn_func, e->str, &e->chain, ev->dyn_return, &f,
			     err, sizeof(err)) != 0) {
			ty_err(c, e->span, "%s", err);
			return -1;
		}
	} else if (e->kind == AST_CAST && ev->dyn_func) {
		if (ty_cast_fetch(c, ev, e, &f) != 0)
			return -1;
	} else {
		ty_err(c, e->span, "this is not an address the kernel can fetch at the probe: "
		       "use a target variable ($ptr, $p->member), a @cast() chain, or one of "
		       "these plus a constant (a value computed at run time cannot be read "
		       "through)");
		return -1;
	}
	if (f.is_string) {	/* "+OFF(EXPR):string": the string is at EXPR + OFF */
		char *end;

		out->off = strtoll(f.arg, &end, 10);
		out->expr = arena_strndup(c->arena, end + 1, (size_t)(strrchr(f.arg, ')') - end - 1));
		out->name = f.name;
		return 0;
	}
	out->expr = ty_untyped(c, &f);
	out->name = f.name;
	return 0;
}

/* The fetch argument reading @mem at @ad ("+8(%di):s32"). */
static const char *ty_mem_arg(struct sema_ctx *c, const struct ty_addr *ad, enum ast_mem mem,
			      bool kernel)
{
	struct fetch f = { NULL, ad->name, false };
	const char *at = ad->off ? arena_printf(c->arena, "%+" PRId64 "(%s)", ad->off, ad->expr) :
				   arena_printf(c->arena, "+0(%s)", ad->expr);

	/* fetch_mem reads at +0(VALUE): give it the address as a value. */
	fetch_mem(c->arena, "", mem, kernel, &f);
	return arena_printf(c->arena, "%s%s", at, strchr(f.arg, ':'));
}

/* @cast(...)->chain: a fetch argument of the probe's event. */
static enum sem_type ty_cast(struct sema_ctx *c, struct ast_expr *e)
{
	struct tpf_event *ev = ty_event(c);
	struct fetch f;

	if (!ev || !ev->dyn_func) {
		ty_err(c, e->span, "@cast() needs an address the kernel can fetch: a target "
		       "variable of a kernel.function() or process() probe");
		return SEM_UNKNOWN;
	}
	if (ty_cast_fetch(c, ev, e, &f) != 0)
		return SEM_UNKNOWN;
	e->ref = ty_dyn_field(c, ev, &f);
	return f.is_string ? SEM_STRING : SEM_LONG;
}

/*
 * &$p->member, &@cast(A, "T")->member: the member's address, which is
 * the fetched value of the last pointer on the way plus the member's
 * offset.  The node stays '&x' (for -p2); module holds "NAME=FETCHARG"
 * of that pointer and num the offset, which the bytecode adds.
 */
static enum sem_type ty_addr_of(struct sema_ctx *c, struct ast_expr *e)
{
	struct tpf_event *ev = ty_event(c);
	struct ast_expr *x = e->a;
	struct fetch f;
	char err[512];
	int rc;

	if (!ev || !ev->dyn_func || (x->kind != AST_TARGET && x->kind != AST_CAST) ||
	    (!x->chain.n && x->kind == AST_CAST)) {
		ty_err(c, e->span, "'&' takes a target variable in memory: &$p->member or "
		       "&@cast(ADDR, \"T\")->member in a kernel.function() or process() probe");
		return SEM_UNKNOWN;
	}
	x->chain.mem = AST_MEM_ADDR;
	rc = x->kind == AST_CAST ? ty_cast_fetch(c, ev, x, &f) :
	     rdwarf_fetch(c->arena, ev->dyn_func, x->str, &x->chain, ev->dyn_return, &f, err,
		      sizeof(err));
	x->chain.mem = AST_MEM_NONE;
	if (rc != 0) {
		if (x->kind == AST_TARGET)
			ty_err(c, x->span, "%s", err);
		return SEM_UNKNOWN;
	}
	/* rbtf_finish gave "EXPR:u64@OFF" for an address. */
	e->num = strtoll(strrchr(f.arg, '@') + 1, NULL, 10);
	e->module = arena_printf(c->arena, "%s_addr=%.*s", f.name,
				 (int)(strrchr(f.arg, '@') - f.arg), f.arg);
	e->ref = ty_dyn_field(c, ev, &(struct fetch){ strchr(e->module, '=') + 1,
							  arena_printf(c->arena, "%s_addr", f.name),
							  false });
	return SEM_LONG;
}

/*
 * @var("name")->chain in a process() probe: the variable named so in
 * scope at the probe, file-level globals and statics included, i.e. the
 * same as $name (stap's @var, without its "@CU" and module forms).
 */
static enum sem_type ty_atvar(struct sema_ctx *c, struct ast_expr *e)
{
	const struct tpf_event *ev = c->probe && !c->func ? c->probe->event : NULL;

	if (!ev || !ev->dyn_func || ((const struct fetch_site *)ev->dyn_func)->btf) {
		ty_err(c, e->span, "@var() needs a process() probe on a binary with debug "
		       "information");
		return SEM_UNKNOWN;
	}
	if (e->module || strchr(e->str, '@')) {
		ty_err(c, e->span, "@var(\"NAME@CU\", \"MODULE\") is not supported: write "
		       "@var(\"NAME\") for a variable in scope at the probe");
		return SEM_UNKNOWN;
	}
	e->kind = AST_TARGET;
	e->str = arena_printf(c->arena, "$%s", e->str);
	c->changed = true;
	return ty_expr(c, e);
}

static enum sem_type ty_unsupported(struct sema_ctx *c, struct ast_expr *e)
{
	static const char *const what[] = {
		[AST_CAST] = "@cast", [AST_ATVAR] = "@var",
		[AST_AUTOCAST] = "'->' on a script value", [AST_ENTRY] = "@entry",
		[AST_PERF] = "@perf", [AST_DEREF] = "raw memory reads",
		[AST_REGISTER] = "raw register reads",
		[AST_EMBEDDED] = "embedded C code",
	};

	ty_err(c, e->span, "%s is not supported by this version of ktap%s",
	       what[e->kind] ? what[e->kind] : "this expression",
	       e->kind == AST_EMBEDDED ? ": ktap never compiles C" : "");
	return SEM_UNKNOWN;
}

static enum sem_type ty_expr_kind(struct sema_ctx *c, struct ast_expr *e)
{
	switch (e->kind) {
	case AST_NUM: return SEM_LONG;
	case AST_STR: return SEM_STRING;
	case AST_VAR: return ty_var(c, e);
	case AST_INDEX: return ty_index(c, e);
	case AST_CALL: return ty_call(c, e);
	case AST_TARGET: return ty_target(c, e);
	case AST_UNARY:
		if (e->op == AST_OP_ADDR)
			return ty_addr_of(c, e);
		ty_want(c, e->a, SEM_LONG, "the operand of a unary operator");
		return SEM_LONG;
	case AST_BINARY: return ty_binary(c, e);
	case AST_TERNARY: return ty_ternary(c, e);
	case AST_ASSIGN: return ty_assign(c, e);
	case AST_INCDEC: return ty_incdec(c, e);
	case AST_IN: return ty_in(c, e);
	case AST_STAT: ty_stat_operand(c, e->a); return SEM_LONG;
	case AST_HIST: return ty_hist(c, e);
	case AST_DEFINED: return ty_defined(c, e);
	case AST_ENTRY: return ty_entry(c, e);
	case AST_CAST: return ty_cast(c, e);
	case AST_ATVAR: return ty_atvar(c, e);
	case AST_STAR:
		ty_err(c, e->span, "'*' is only allowed as an array slice key");
		return SEM_UNKNOWN;
	default:
		return ty_unsupported(c, e);
	}
}

static enum sem_type ty_expr(struct sema_ctx *c, struct ast_expr *e)
{
	enum sem_type t = ty_expr_kind(c, e);

	if (t == SEM_STATS && e->kind != AST_HIST && e->kind != AST_VAR &&
	    e->kind != AST_INDEX)
		t = SEM_LONG;
	if (e->type != (int)t)
		e->type = (int)t;
	return t;
}

/* ---- statements ---- */

static void ty_foreach(struct sema_ctx *c, struct ast_foreach *fe, unsigned loops)
{
	struct sem_sym *arr = NULL;
	unsigned i;

	if (fe->array->kind == AST_VAR) {
		arr = ty_array(c, fe->array, fe->keys.n);
		if (arr) {
			arr->read = true;
			if (fe->has_slice)
				ty_keys(c, arr, &fe->slice, true);
		}
	} else {
		ty_expr(c, fe->array);
		if (fe->keys.n != 1)
			ty_err(c, fe->array->span, "a histogram has one key: its bucket");
	}
	for (i = 0; i < fe->keys.n; i++) {
		struct sem_sym *k = ty_scalar(c, fe->keys.v[i]);

		k->written = true;
		ty_unify(c, &k->type, arr ? arr->keys[i] : SEM_LONG, fe->keys.v[i]->span,
			 k->name);
		if (arr)
			ty_unify(c, &arr->keys[i], k->type, fe->keys.v[i]->span, "an array key");
		fe->keys.v[i]->type = (int)k->type;
	}
	if (fe->value) {
		struct sem_sym *v = ty_scalar(c, fe->value);

		v->written = true;
		ty_unify(c, &v->type, arr ? (arr->type == SEM_STATS ? SEM_LONG : arr->type) :
			 SEM_LONG, fe->value->span, v->name);
		fe->value->type = (int)v->type;
	}
	if (fe->has_sort_stat && arr && arr->type != SEM_UNKNOWN && arr->type != SEM_STATS)
		ty_err(c, fe->array->span, "'%s' holds no statistics to sort by", arr->name);
	if (fe->limit)
		ty_want(c, fe->limit, SEM_LONG, "a foreach limit");
	ty_stmt(c, fe->body, loops + 1);
}

static void ty_delete(struct sema_ctx *c, struct ast_expr *e)
{
	if (e->kind == AST_INDEX && e->a->kind == AST_VAR) {
		struct sem_sym *s = ty_base(c, e->a, &e->args, true);

		if (s)
			s->written = true;
	} else if (e->kind == AST_VAR) {
		struct sem_sym *s = e->sym ? e->sym : sema_global(c, e->str);

		if (!s)
			s = ty_scalar(c, e);
		e->sym = s;
		/* 'delete g' says nothing of whether g is an array: until
		   another use says so, it must not make g a written scalar
		   (the last round reports a g nothing else uses). */
		if (s->kind != SEM_GLOBAL || s->is_array || s->type != SEM_UNKNOWN ||
		    s->read || s->written || c->report)
			s->written = true;
	} else {
		ty_err(c, e->span, "delete needs a variable, an array or an array element");
	}
}

static void ty_return(struct sema_ctx *c, struct ast_stmt *s)
{
	if (!c->func)
		return;		/* pass 1 reported it */
	if (s->e)
		ty_unify(c, &c->func->ret, ty_expr(c, s->e), s->e->span,
			 "the return value");
}

static void ty_stmts(struct sema_ctx *c, struct ast_stmt_list *l, unsigned loops)
{
	unsigned i;

	for (i = 0; i < l->n; i++)
		ty_stmt(c, l->v[i], loops);
}

static void ty_stmt(struct sema_ctx *c, struct ast_stmt *s, unsigned loops)
{
	if (!s)
		return;
	switch (s->kind) {
	case AST_S_BLOCK: ty_stmts(c, &s->body, loops); break;
	case AST_S_EXPR: ty_expr(c, s->e); break;
	case AST_S_IF:
		ty_want(c, s->e, SEM_LONG, "a condition");
		ty_stmt(c, s->s1, loops);
		ty_stmt(c, s->s2, loops);
		break;
	case AST_S_WHILE:
		ty_want(c, s->e, SEM_LONG, "a condition");
		ty_stmt(c, s->s1, loops + 1);
		break;
	case AST_S_FOR:
		if (s->e) ty_expr(c, s->e);
		if (s->e2) ty_want(c, s->e2, SEM_LONG, "a condition");
		if (s->e3) ty_expr(c, s->e3);
		ty_stmt(c, s->s1, loops + 1);
		break;
	case AST_S_FOREACH: ty_foreach(c, s->fe, loops); break;
	case AST_S_BREAK: case AST_S_CONTINUE:
		if (!loops)
			ty_err(c, s->span, "'%s' outside a loop",
			       s->kind == AST_S_BREAK ? "break" : "continue");
		break;
	case AST_S_RETURN: ty_return(c, s); break;
	case AST_S_DELETE: ty_delete(c, s->e); break;
	case AST_S_TRY:
		ty_stmt(c, s->s1, loops);
		if (s->name) {
			struct ast_expr v = { .kind = AST_VAR, .str = s->name, .span = s->span };
			struct sem_sym *m = ty_scalar(c, &v);

			m->written = true;
			ty_unify(c, &m->type, SEM_STRING, s->span, m->name);
		}
		ty_stmt(c, s->s2, loops);
		break;
	case AST_S_EMBEDDED:
		ty_err(c, s->span, "embedded C code is not supported: ktap never compiles C");
		break;
	default:
		break;
	}
}

/* One walk over every probe and used function. */
static void ty_round(struct sema_ctx *c)
{
	struct sem_prog *p = c->prog;
	unsigned i;

	for (i = 0; i < p->nprobes; i++) {
		c->probe = p->probes[i];
		c->func = NULL;
		if (p->probes[i]->cond)
			ty_want(c, p->probes[i]->cond, SEM_LONG, "a probe condition");
		ty_stmt(c, p->probes[i]->body, 0);
	}
	/* Functions used by the walk above may add more functions. */
	for (i = 0; i < p->nfuncs; i++) {
		c->func = p->funcs[i];
		c->probe = p->funcs[i]->site;
		c->entry = p->funcs[i]->at_entry ? c->probe->event->dyn_entry : NULL;
		if (p->funcs[i]->ast->body)
			ty_stmt(c, p->funcs[i]->ast->body, 0);
	}
	c->func = NULL;
	c->entry = NULL;
}

/* Anything still untyped after the last round is an error. */
static void ty_unresolved(struct sema_ctx *c, struct sem_sym **v, unsigned n)
{
	unsigned i, k;

	for (i = 0; i < n; i++) {
		if (v[i]->type == SEM_UNKNOWN && (v[i]->read || v[i]->written)) {
			if (v[i]->kind == SEM_LOCAL && !v[i]->written) {
				v[i]->type = SEM_LONG;	/* read only: stap defaults */
				continue;
			}
			diag_error(c->diag, v[i]->span, "unresolved type for '%s'",
				   v[i]->name);
		}
		for (k = 0; k < v[i]->nkeys; k++)
			if (v[i]->keys[k] == SEM_UNKNOWN)
				diag_error(c->diag, v[i]->span,
					   "unresolved type for key %u of array '%s'",
					   k + 1, v[i]->name);
	}
}

void sema_types(struct sema_ctx *c)
{
	struct sem_prog *p = c->prog;
	unsigned round, i;

	for (round = 0; round < SEMA_MAX_ROUNDS; round++) {
		c->changed = false;
		ty_round(c);
		if (!c->changed)
			break;
	}
	c->report = true;
	ty_round(c);
	if (c->diag->errors)
		return;
	ty_unresolved(c, p->globals, p->nglobals);
	for (i = 0; i < p->nprobes; i++)
		ty_unresolved(c, p->probes[i]->locals, p->probes[i]->nlocals);
	for (i = 0; i < p->nfuncs; i++) {
		ty_unresolved(c, p->funcs[i]->locals, p->funcs[i]->nlocals);
		if (p->funcs[i]->ret == SEM_UNKNOWN)
			p->funcs[i]->ret = SEM_LONG;	/* returns nothing */
	}
}
