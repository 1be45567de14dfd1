/*
 * sema_type.c - pass 2: names and types.
 *
 * Every probe body and every used function is walked repeatedly; each
 * walk binds names (locals, parameters, globals), types what it can from
 * literals, operators, builtins and already-typed symbols, and records
 * whether anything changed.  When a walk changes nothing, one last walk
 * reports every remaining problem (unknown names, type conflicts,
 * unresolved types), so each problem is reported once, at a location.
 *
 * Target variables ($var, @cast, @entry, &$p->m, ...) are resolved by
 * sema_target.c, called from here where the walk meets them; it types
 * their subexpressions through c->type_expr (set to ty_expr below), a
 * callback rather than a separate stage so that fetch fields and
 * diagnostics keep the order of this one walk (see sema_target.c).
 */
#include "sema_int.h"
#include "arena.h"
#include "diag.h"
#include "resolve_tpfmt.h"
#include "format.h"

#include <string.h>

#define SEMA_MAX_ROUNDS 32

static enum sem_type ty_expr(struct sema_ctx *c, struct ast_expr *e);
static void ty_stmt(struct sema_ctx *c, struct ast_stmt *s, unsigned loops);

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
	sema_err(c, at, strchr(what, ' ') ? "type mismatch for %s: %s expected, %s found" :
	       "type mismatch for '%s': %s expected, %s found", what,
	       sem_type_name(*slot), sem_type_name(t));
}

/* Require @e to have type @want (unknown is fine until the last round). */
static void ty_want(struct sema_ctx *c, struct ast_expr *e, enum sem_type want,
		    const char *what)
{
	enum sem_type t;

	if (want == SEM_LONG)
		sema_target_as_number(c, e);
	t = ty_expr(c, e);

	if (t == SEM_UNKNOWN || t == want)
		return;
	sema_err(c, e->span, "%s must be a %s, not a %s", what,
	       sem_type_name(want), sem_type_name(t));
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
		sema_err(c, e->span, "array '%s' used as a scalar (index it: %s[...])",
		       s->name, s->name);
	if (c->entry && !c->func && s->kind == SEM_LOCAL)
		sema_err(c, e->span, "local variable '%s' does not exist at the function's "
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

		sema_err(c, e->span,
		       "unresolved arity-%u global array '%s', missing global declaration?%s%s%s",
		       nkeys, e->str, hint ? " (did you mean '" : "",
		       hint ? hint : "", hint ? "'?)" : "");
		return NULL;
	}
	e->sym = s;
	if (!s->is_array) {
		if (s->written || s->read || s->type != SEM_UNKNOWN) {
			sema_err(c, e->span, "'%s' is a scalar, not an array", s->name);
			return NULL;
		}
		s->is_array = true;
		c->changed = true;
	}
	if (nkeys && !s->nkeys) {
		s->nkeys = nkeys;
		c->changed = true;
	} else if (nkeys && s->nkeys != nkeys) {
		sema_err(c, e->span, "array '%s' has %u key%s here but %u elsewhere",
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
				sema_err(c, k->span,
				       "'*' is only allowed in foreach, delete and 'in' (array slices)");
			continue;
		}
		ty_unify(c, &s->keys[i], ty_expr(c, k), k->span, "an array key");
		if (s->keys[i] == SEM_STATS)
			sema_err(c, k->span, "an array key cannot be a statistic");
	}
	if (keys->n > SEM_MAX_KEYS)
		sema_err(c, keys->v[SEM_MAX_KEYS]->span, "arrays have at most %d keys",
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

/*
 * stap's downward inference: an untyped variable or array element used
 * where a value of type @t is expected (compared with one, assigned to
 * one, passed as a typed parameter, returned from a typed function)
 * takes @t.  Without it a variable only ever read there, like a global
 * a tapset function returns, stays untyped.
 */
static void ty_infer(struct sema_ctx *c, struct ast_expr *e, enum sem_type t)
{
	struct ast_expr *v = e->kind == AST_INDEX ? e->a : e;

	if (t == SEM_UNKNOWN || t == SEM_STATS || v->kind != AST_VAR || !v->sym ||
	    v->sym->type != SEM_UNKNOWN)
		return;
	ty_unify(c, &v->sym->type, t, e->span, v->sym->name);
}

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
		if (e->kind == AST_TARGET)
			sema_err(c, e->span, "cannot assign to target variable %s: stap writes "
				 "the kernel's or the program's memory there (guru mode), ktap "
				 "only reads what the kernel recorded", sema_spec_text(c->arena, e));
		else
			sema_err(c, e->span, "this expression cannot be assigned to");
		ty_expr(c, e);
		return NULL;
	}
	if (!s)
		return NULL;
	s->written = true;
	*sym = s;
	return &s->type;
}

/* x += v, x .= s, x++: a read of x only where the result is used, as stap
   counts them (PR6954): "g += 2" alone leaves g to be printed at exit. */
static void ty_compound_read(struct sema_ctx *c, const struct ast_expr *e, struct sem_sym *s)
{
	if (e != c->unused)
		s->read = true;
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
		if (rt == SEM_UNKNOWN)
			ty_infer(c, e->b, *slot);
		if (*slot == SEM_STATS)
			sema_err(c, e->op_span, "statistics only take values with '<<<'");
		return *slot;
	case AST_OP_STAT_ADD:
		ty_unify(c, slot, SEM_STATS, e->a->span, s->name);
		ty_want(c, e->b, SEM_LONG, "a value added with '<<<'");
		return SEM_LONG;
	case AST_OP_CAT_SET:
		ty_unify(c, slot, SEM_STRING, e->a->span, s->name);
		ty_want(c, e->b, SEM_STRING, "the right side of '.='");
		ty_compound_read(c, e, s);
		return SEM_STRING;
	default:
		ty_unify(c, slot, SEM_LONG, e->a->span, s->name);
		ty_want(c, e->b, SEM_LONG, "the right side of a compound assignment");
		ty_compound_read(c, e, s);
		return SEM_LONG;
	}
}

static enum sem_type ty_incdec(struct sema_ctx *c, struct ast_expr *e)
{
	struct sem_sym *s;
	enum sem_type *slot = ty_lvalue(c, e->a, &s);

	if (slot) {
		ty_unify(c, slot, SEM_LONG, e->a->span, s->name);
		ty_compound_read(c, e, s);
	}
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
			sema_target_as_number(c, e->a);
		if (e->a->kind == AST_NUM)
			sema_target_as_number(c, e->b);
		l = ty_expr(c, e->a);
		r = ty_expr(c, e->b);
		if (l != SEM_UNKNOWN && r != SEM_UNKNOWN && l != r)
			sema_err(c, e->op_span, "cannot compare a %s with a %s",
			       sem_type_name(l), sem_type_name(r));
		else if (l == SEM_STATS || r == SEM_STATS)
			sema_err(c, e->op_span, "cannot compare statistics; use @count, @sum, ...");
		/* Pass a known type to an untyped variable on the other side. */
		if (l == SEM_UNKNOWN)
			ty_infer(c, e->a, r);
		if (r == SEM_UNKNOWN)
			ty_infer(c, e->b, l);
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
		sema_err(c, x->span, "statistical operators apply to a statistic variable or array element");
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
		sema_err(c, e->span, "@hist_linear: interval cannot be zero");
		return;
	}
	if ((v[1] < 0 && v[0] > INT64_MAX + v[1]) || (v[1] >= 0 && v[0] < v[1] - INT64_MAX))
		n = -1;		/* stop - start overflows: no sane range */
	else
		n = v[2] == -1 ? -(v[1] - v[0]) : (v[1] - v[0]) / v[2];
	if (n < 0)
		sema_err(c, e->span, "@hist_linear: the number of buckets, (stop - start) / interval, "
		       "must not be negative");
}

/* @variance(x, N): one literal bit-shift from 0 to 62 per statistic, as stap. */
static void ty_variance_shift(struct sema_ctx *c, struct ast_expr *e, struct sem_sym *s)
{
	const struct ast_expr *n = e->args.n ? e->args.v[0] : NULL;

	if (!n)
		return;
	if (n->kind != AST_NUM || n->num < 0 || n->num > 62) {
		sema_err(c, n->span, "@variance's bit-shift must be a literal number from 0 to 62");
		return;
	}
	if (!s)
		return;
	if (!s->variance_at) {
		s->variance_at = e;
		s->variance_shift = (int)n->num;
	} else if (s->variance_at != e && s->variance_shift != (int)n->num) {
		sema_err(c, e->span, "'%s' is used with two different @variance bit-shifts",
		       s->name);
	}
}

static enum sem_type ty_hist(struct sema_ctx *c, struct ast_expr *e)
{
	struct sem_sym *s = ty_stat_operand(c, e->a);
	bool literal = true;
	unsigned i;

	for (i = 0; i < e->args.n; i++) {
		if (e->args.v[i]->kind != AST_NUM &&
		    !(e->args.v[i]->kind == AST_UNARY && e->args.v[i]->a->kind == AST_NUM)) {
			sema_err(c, e->args.v[i]->span, "@hist_linear takes literal numbers");
			literal = false;
		}
	}
	if (!s || !literal)	/* no range to read from what is not a number */
		return SEM_STATS;
	/*
	 * A statistic keeps one kind of buckets (stap refuses both too);
	 * said once, at the @hist_linear (typing passes until nothing changes,
	 * so it sees a later @hist_log's mark too).
	 */
	if (e->op != AST_OP_HIST_LOG && s->hist_log)
		sema_err(c, e->span, "multiple histogram types declared on '%s': it is used with "
		       "both @hist_log and @hist_linear", s->name);
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
			sema_err(c, e->span, "'%s' is used with two different @hist_linear ranges",
			       s->name);
		s->hist_linear = true;
		s->lin_start = v[0];
		s->lin_stop = v[1];
		s->lin_step = v[2];
	}
	return SEM_STATS;
}

/* The variable, or the array of the element, @a is, if of no type yet. */
static struct sem_sym *ty_format_untyped(const struct ast_expr *a)
{
	struct sem_sym *s = a->kind == AST_VAR ? a->sym :
			    a->kind == AST_INDEX && a->a->kind == AST_VAR ? a->a->sym : NULL;

	return s && s->type == SEM_UNKNOWN ? s : NULL;
}

/*
 * printf and sprintf: a variable or array element of no type yet passed
 * for a conversion takes the conversion's type (%d a long, %s a string),
 * as stap's type resolution does (a tapset global only a dropped
 * optional probe writes, printed with %d).  A bad format is
 * sema_format.c's error, after typing.
 */
static void ty_format_args(struct sema_ctx *c, struct ast_expr *e)
{
	const struct ast_expr *f = e->args.n ? e->args.v[0] : NULL;
	struct fmt_error err;
	struct fmt_spec *fs;
	struct ast_expr *a;
	struct sem_sym *s;
	bool untyped = false;
	unsigned i;

	for (i = 1; i < e->args.n; i++)
		untyped |= ty_format_untyped(e->args.v[i]) != NULL;
	if (!untyped || !f || f->kind != AST_STR ||
	    !(fs = fmt_compile(f->str, f->len, arena_alloc_cb, c->arena, &err)))
		return;
	for (i = 0; i < fmt_nargs(fs) && i + 1 < e->args.n; i++) {
		a = e->args.v[i + 1];
		if ((s = ty_format_untyped(a)))
			ty_unify(c, &s->type,
				 fmt_arg_type(fs, i) == RT_LONG ? SEM_LONG : SEM_STRING,
				 a->span, s->name);
	}
}


/*
 * Does argument @i of builtin call @e (signature letter @want) take a
 * number: an 'l' parameter, or a printf-style value its literal format
 * converts as one (%d, %x, %p...)?  A char * target variable passed
 * there is the pointer, as stap has it (sema_target_as_number).
 */
static bool ty_wants_long(struct sema_ctx *c, const struct ast_expr *e, unsigned i, char want,
			  bool format)
{
	const struct ast_expr *f = e->args.n ? e->args.v[0] : NULL;
	struct fmt_error err;
	struct fmt_spec *fs;

	if (want == 'l')
		return true;
	if (!format || i == 0 || !f || f->kind != AST_STR ||
	    !(fs = fmt_compile(f->str, f->len, arena_alloc_cb, c->arena, &err)))
		return false;
	return i - 1 < fmt_nargs(fs) && fmt_arg_type(fs, i - 1) == RT_LONG;
}

/* Check a builtin call's arguments against its signature. */
static enum sem_type ty_builtin(struct sema_ctx *c, struct ast_expr *e, int id)
{
	const struct sema_bi *b = sema_builtin_info(id);
	const char *sig = b->args, *bar = strchr(sig, '|');
	char letters[16];
	unsigned i, fixed = 0, min;
	bool rep = strchr(sig, '*') != NULL;

	/* "l|ll": one to three longs (stap's overloads by arity). */
	if (bar) {
		snprintf(letters, sizeof(letters), "%.*s%s", (int)(bar - sig), sig, bar + 1);
		sig = letters;
	}
	while (sig[fixed] && sig[fixed] != '*')
		fixed++;
	if (rep)
		fixed--;	/* the letter before '*' may repeat 0+ times */
	min = bar ? (unsigned)(bar - b->args) : fixed;
	if (e->args.n < min || (!rep && e->args.n > fixed)) {
		char range[32];

		snprintf(range, sizeof(range), "%s", rep ? "at least " : "");
		if (min != fixed)
			snprintf(range, sizeof(range), "%u to ", min);
		sema_err(c, e->span, "%s() takes %s%u argument%s, %u given", b->name, range,
		       fixed, fixed == 1 && min == fixed ? "" : "s", e->args.n);
	}
	for (i = 0; i < e->args.n; i++) {
		char want = i < fixed ? sig[i] : rep ? sig[fixed] : 'a';
		struct ast_expr *a = e->args.v[i];
		enum sem_type t;

		if (a->kind == AST_HIST && (id == sema_builtin("print") ||
					    id == sema_builtin("println") ||
					    id == sema_builtin("sprint") ||
					    id == sema_builtin("sprintln"))) {
			ty_expr(c, a);
			continue;
		}
		if (ty_wants_long(c, e, i, want, b->flags & BF_FORMAT))
			sema_target_as_number(c, a);
		t = ty_expr(c, a);
		if (t == SEM_STATS)
			sema_err(c, a->span, "a statistic cannot be passed to %s(); use @count, @sum, ...",
			       b->name);
		else if (want == 'l' && t == SEM_STRING)
			sema_err(c, a->span, "argument %u of %s() must be a long", i + 1, b->name);
		else if (want == 's' && t == SEM_LONG)
			sema_err(c, a->span, "argument %u of %s() must be a string", i + 1, b->name);
		else if (want != 'a' && t == SEM_UNKNOWN && a->kind == AST_VAR && a->sym)
			ty_unify(c, &a->sym->type, want == 'l' ? SEM_LONG : SEM_STRING,
				 a->span, a->sym->name);
	}
	if (b->flags & BF_FORMAT)
		ty_format_args(c, e);
	e->ref = -id - 1;
	return b->ret == 'l' ? SEM_LONG : b->ret == 's' ? SEM_STRING : SEM_LONG;
}

static enum sem_type ty_call(struct sema_ctx *c, struct ast_expr *e)
{
	struct sem_func *f;
	bool failed;
	unsigned i;
	int id;

	if (sema_mem_sugar(c, e) || sema_current_task(c, e) || sema_buffer_format(c, e)) {
		c->changed = true;
		return ty_expr(c, e);
	}
	if ((id = sema_current_address(c, e)) != 0)	/* task_current() */
		return id < 0 ? SEM_UNKNOWN : ty_expr(c, e);
	if ((id = sema_target_mem_call(c, e)) >= 0 || (id = sema_buffer_call(c, e)) >= 0)
		return (enum sem_type)id;
	f = sema_spec_call(c, e, &failed);
	if (failed) {
		for (i = 0; i < e->args.n; i++)
			ty_expr(c, e->args.v[i]);
		return SEM_UNKNOWN;
	}
	if (!f)
		f = sema_func_use(c, e->str, e->args.n);
	/* A script's g(x) leaves the builtin's other arities (stap's
	   overloads of its tapset functions) to the builtin. */
	if (f && f->nparams != e->args.n && sema_builtin(e->str) >= 0)
		f = NULL;
	if (!f) {
		id = sema_builtin(e->str);
		if (id >= 0 && sema_target_probefunc(c, e))
			return SEM_STRING;
		/* returnval(), int_arg(N) ...: a fetch, or the count's error */
		if (id >= 0 && (sema_builtin_info(id)->flags & BF_PASS2) &&
		    (i = (unsigned)sema_regs_call(c, e)) != (unsigned)-1)
			return (enum sem_type)i;
		if (id >= 0)
			return ty_builtin(c, e, id);
		for (i = 0; i < e->args.n; i++)
			ty_expr(c, e->args.v[i]);
		if (sema_unprovided(c, e))
			return SEM_UNKNOWN;
		if (sema_mem_arities(e->str)) {
			sema_mem_arity_err(c, e, sema_mem_arities(e->str));
			return SEM_UNKNOWN;
		}
		{
			const char *hint = sema_suggest(c, e->str, true);

			sema_err(c, e->op_span, "unknown function '%s'%s%s%s", e->str,
			       hint ? "; did you mean '" : "", hint ? hint : "",
			       hint ? "'?" : "");
		}
		return SEM_UNKNOWN;
	}
	e->ref = (int)f->index;
	if (e->args.n != f->nparams)
		sema_err(c, e->span, "function '%s' takes %u argument%s, %u given",
		       f->name, f->nparams, f->nparams == 1 ? "" : "s", e->args.n);
	for (i = 0; i < e->args.n; i++) {
		enum sem_type t;

		/* stap passes a char * target variable as its pointer (a
		   long): only a parameter typed :string takes ktap's text. */
		if (i < f->nparams && f->locals[i]->type != SEM_STRING)
			sema_target_as_number(c, e->args.v[i]);
		t = ty_expr(c, e->args.v[i]);
		if (i >= f->nparams)
			continue;
		ty_unify(c, &f->locals[i]->type, t, e->args.v[i]->span,
			 f->locals[i]->name);
		/* A typed parameter types an untyped variable passed to it. */
		if (t == SEM_UNKNOWN)
			ty_infer(c, e->args.v[i], f->locals[i]->type);
	}
	return f->ret;
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

	sema_err(c, e->span, "%s is not supported by this version of ktap%s",
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
	case AST_TARGET: return sema_target_expr(c, e);
	case AST_UNARY:
		if (e->op == AST_OP_ADDR)
			return sema_addr_of(c, e);
		ty_want(c, e->a, SEM_LONG, "the operand of a unary operator");
		return SEM_LONG;
	case AST_BINARY: return ty_binary(c, e);
	case AST_TERNARY: return ty_ternary(c, e);
	case AST_ASSIGN: return ty_assign(c, e);
	case AST_INCDEC: return ty_incdec(c, e);
	case AST_IN: return ty_in(c, e);
	case AST_STAT: ty_variance_shift(c, e, ty_stat_operand(c, e->a)); return SEM_LONG;
	case AST_HIST: return ty_hist(c, e);
	case AST_DEFINED: case AST_ENTRY: case AST_CAST: case AST_ATVAR:
		return sema_target_expr(c, e);
	case AST_AUTOCAST: return sema_autocast_error(c, e);
	case AST_STAR:
		sema_err(c, e->span, "'*' is only allowed as an array slice key");
		return SEM_UNKNOWN;
	case AST_PROBEWRITE:	/* a probe's became 0 or 1 (sema_probewrite()) */
		if (c->func)
			sema_err(c, e->span, "@probewrite() is for a probe's handler: whether "
				 "the handler writes the variable");
		return SEM_LONG;
	default:
		return ty_unsupported(c, e);
	}
}

static enum sem_type ty_expr(struct sema_ctx *c, struct ast_expr *e)
{
	unsigned errors = c->diag->errors;
	enum sem_type t = ty_expr_kind(c, e);

	if (c->skipping && c->diag->errors > errors && sema_badvar_kind(e)) {
		/* Forget the error, and its span: the sink skips an error at
		   the span of the last one, which would then go unseen. */
		c->diag->errors = errors;
		memset(&c->diag->last, 0, sizeof(c->diag->last));
		t = sema_skip_badvar(c, e);
	}

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
			sema_err(c, fe->array->span, "a histogram has one key: its bucket");
	}
	for (i = 0; i < fe->keys.n; i++) {
		struct sem_sym *k = ty_scalar(c, fe->keys.v[i]);

		k->read = k->read || k->kind == SEM_LOCAL;	/* no "never read" (stap) */
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
		v->read = v->read || v->kind == SEM_LOCAL;
		ty_unify(c, &v->type, arr ? (arr->type == SEM_STATS ? SEM_LONG : arr->type) :
			 SEM_LONG, fe->value->span, v->name);
		fe->value->type = (int)v->type;
	}
	if (fe->has_sort_stat && arr && arr->type != SEM_UNKNOWN && arr->type != SEM_STATS)
		sema_err(c, fe->array->span, "'%s' holds no statistics to sort by", arr->name);
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
		sema_err(c, e->span, "delete needs a variable, an array or an array element");
	}
}

static void ty_return(struct sema_ctx *c, struct ast_stmt *s)
{
	enum sem_type t;

	if (!c->func)
		return;		/* pass 1 reported it */
	if (!s->e)
		return;
	t = ty_expr(c, s->e);
	ty_unify(c, &c->func->ret, t, s->e->span, "the return value");
	if (t == SEM_UNKNOWN)
		ty_infer(c, s->e, c->func->ret);
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
	case AST_S_EXPR: c->unused = s->e; ty_expr(c, s->e); break;
	case AST_S_IF:
		ty_want(c, s->e, SEM_LONG, "a condition");
		sema_prune_if(c->arena, s);	/* if (@defined($x)): the dead branch */
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
			sema_err(c, s->span, "'%s' outside a loop",
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
		sema_err(c, s->span, "embedded C code is not supported: ktap never compiles C");
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
		/* An array that only dropped probes used (optional points
		   this kernel lacks) has no keys to type, as in stap. */
		for (k = 0; k < v[i]->nkeys && (v[i]->read || v[i]->written); k++)
			if (v[i]->keys[k] == SEM_UNKNOWN)
				diag_error(c->diag, v[i]->span,
					   "unresolved type for key %u of array '%s'",
					   k + 1, v[i]->name);
	}
}

/*
 * --skip-badvars, when the rounds have settled: a round with the
 * diagnostics muted in which every target that reports an error becomes
 * 0 (ty_skip_badvar).  At that point what fails cannot be resolved by a
 * later round.  True when it changed something: more rounds follow.
 */
static bool ty_skip_round(struct sema_ctx *c)
{
	struct diag_sink saved = *c->diag;

	c->diag->muted = true;
	c->report = c->skipping = true;
	c->changed = false;
	ty_round(c);
	c->report = c->skipping = false;
	*c->diag = saved;
	return c->changed;
}

void sema_types(struct sema_ctx *c)
{
	struct sem_prog *p = c->prog;
	unsigned round, i;

	c->type_expr = ty_expr;	/* sema_target.c types subexpressions so */
	for (round = 0; round < SEMA_MAX_ROUNDS; round++) {
		c->changed = false;
		ty_round(c);
		if (!c->changed && !(c->in->skip_badvars && ty_skip_round(c)))
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
