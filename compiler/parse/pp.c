/*
 * pp.c - pass 1b: conditionals, macros and script arguments (see pp.h).
 *
 * The preprocessor reads tokens through a stack of frames: the file's
 * vector at the bottom, then macro bodies, macro arguments and the
 * re-lexed text of $N arguments above it.  Reading from the top frame
 * and popping exhausted frames gives the expanded stream; conditionals
 * are evaluated on that stream, as stap does, so a condition may use a
 * macro or a script argument.
 */
#include "pp.h"
#include "arena.h"
#include "diag.h"
#include "lexer.h"
#include "source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PP_MAX_FRAMES 256
/* Macros that expand exponentially (each using the next twice, say)
   would run for ever within PP_MAX_FRAMES: cap the total. */
#define PP_MAX_EXPANSIONS 20000
/* And what they produce: a 10,000-line script is about 100,000 tokens. */
#define PP_MAX_TOKENS 1000000

struct pp_binding {
	const char *name;
	struct tok_vec toks;
};

struct pp_frame {
	const struct token *v;
	size_t n, pos;
	uint32_t exp;			/* stamped on tokens of a macro body */
	struct pp_binding *env;		/* parameters of the macro body */
	unsigned nenv;
};

enum pp_cond_state { PPC_THEN, PPC_ELSE };

struct pp_cond {
	struct token at;		/* the %( */
	enum pp_cond_state state;
};

struct pp_state {
	struct pp_ctx *pp;
	struct pp_frame frames[PP_MAX_FRAMES];
	unsigned nframes;
	unsigned floor;			/* arguments may not pop below this */
	struct pp_cond *conds;
	size_t nconds, ccap;
	struct tok_vec *out;
	bool library;
	bool library_warned;
	unsigned errors;
	unsigned long expansions;
	/* Tokens read out of macro bodies and arguments, output or not:
	   arguments collected inside arguments multiply without reaching
	   the output, so the output's size alone bounds nothing. */
	unsigned long produced;
	/* The command line arguments $N that did not lex (nargs flags, made
	   at the first): said at the first use, "0" quietly at the others. */
	bool *bad_args;
	struct token eof;
};

static void pp_err(struct pp_state *st, struct src_span at, const char *fmt,
		   ...) __attribute__((format(printf, 3, 4)));

static void pp_err(struct pp_state *st, struct src_span at, const char *fmt,
		   ...)
{
	va_list ap;

	st->errors++;
	va_start(ap, fmt);
	diag_vreport(st->pp->diag, DIAG_ERROR, at, fmt, ap);
	va_end(ap);
}

static bool pp_push(struct pp_state *st, const struct token *v, size_t n,
		    uint32_t exp, struct pp_binding *env, unsigned nenv,
		    struct src_span at)
{
	struct pp_frame *f;

	if (st->nframes == PP_MAX_FRAMES) {
		pp_err(st, at, "macro expansion nested too deeply (over %d levels)",
		       PP_MAX_FRAMES);
		return false;
	}
	f = &st->frames[st->nframes++];
	memset(f, 0, sizeof(*f));
	f->v = v;
	f->n = n;
	f->exp = exp;
	f->env = env;
	f->nenv = nenv;
	return true;
}

/*
 * Next token without any expansion.  Exhausted frames above the floor are
 * popped; at the floor's end (or the file's) an EOF token is returned.
 */
static struct token pp_raw(struct pp_state *st)
{
	for (;;) {
		struct pp_frame *f = &st->frames[st->nframes - 1];
		struct token t;

		if (f->pos < f->n) {
			t = f->v[f->pos++];
			if (f->exp)
				t.span.exp = f->exp;
			if (t.kind == TOK_EOF && st->nframes > 1)
				continue;	/* only the file's EOF counts */
			return t;
		}
		if (st->nframes - 1 <= st->floor)
			return st->eof;
		st->nframes--;
	}
}

/* The innermost parameter binding of @name visible in the top frame. */
static struct pp_binding *pp_param(struct pp_state *st, const char *name)
{
	struct pp_frame *f = &st->frames[st->nframes - 1];
	unsigned i;

	for (i = 0; i < f->nenv; i++)
		if (strcmp(f->env[i].name, name) == 0)
			return &f->env[i];
	return NULL;
}

static const struct pp_macro *pp_lookup(struct pp_state *st, const char *name)
{
	size_t i = st->pp->macros->n;

	while (i-- > 0)
		if (strcmp(st->pp->macros->v[i].name, name) == 0)
			return &st->pp->macros->v[i];
	return NULL;
}

static struct token pp_expanded(struct pp_state *st);

/*
 * Collect the arguments of an invocation of @m, whose '(' is next.
 * Arguments are expanded as they are read.  Returns false after an error.
 */
static bool pp_collect_args(struct pp_state *st, const struct pp_macro *m,
			    const struct token *call, struct pp_binding *env,
			    struct src_span *end)
{
	unsigned depth = 0, nargs = 0, saved_floor = st->floor;
	struct token t;
	bool ok = true;

	st->floor = st->nframes - 1;
	t = pp_expanded(st);
	if (t.kind != TOK_LPAREN) {
		pp_err(st, call->span,
		       "macro '@%s' takes %u argument%s: expected '(' after it",
		       m->name, m->nparams, m->nparams == 1 ? "" : "s");
		/* Put the token back: it belongs to the code after the call. */
		if (t.kind != TOK_EOF)
			st->frames[st->nframes - 1].pos--;
		st->floor = saved_floor;
		return false;
	}
	for (;;) {
		t = pp_expanded(st);
		if (t.kind == TOK_EOF) {
			/* (after the token budget ran out, that was said) */
			if (st->produced <= PP_MAX_TOKENS)
				pp_err(st, call->span,
				       "unterminated argument list of macro '@%s'",
				       m->name);
			ok = false;
			break;
		}
		if (depth == 0 && (t.kind == TOK_RPAREN || t.kind == TOK_COMMA)) {
			nargs++;
			if (t.kind == TOK_RPAREN)
				break;
			continue;
		}
		if (t.kind == TOK_LPAREN || t.kind == TOK_LBRACKET ||
		    t.kind == TOK_LBRACE)
			depth++;
		else if (depth && (t.kind == TOK_RPAREN ||
				   t.kind == TOK_RBRACKET ||
				   t.kind == TOK_RBRACE))
			depth--;
		if (nargs < m->nparams)
			tok_push(st->pp->arena, &env[nargs].toks, &t);
	}
	st->floor = saved_floor;
	*end = t.span;
	if (ok && nargs != m->nparams) {
		pp_err(st, call->span,
		       "macro '@%s' takes %u argument%s, but %u %s given",
		       m->name, m->nparams, m->nparams == 1 ? "" : "s", nargs,
		       nargs == 1 ? "was" : "were");
		ok = false;
	}
	return ok;
}

/*
 * After "takes N arguments, but M were given": each parameter given no
 * argument stands for 0, so that the body still parses (a missing label
 * of @prometheus_dump_array2 would make "." . "=" and a second error).
 */
static void pp_fill_missing(struct pp_state *st, struct pp_binding *env, unsigned n,
			    const struct token *call)
{
	struct token zero = { TOK_NUMBER, call->span, "0", 1, 0, true };
	unsigned i;

	for (i = 0; i < n; i++)
		if (!env[i].toks.n)
			tok_push(st->pp->arena, &env[i].toks, &zero);
}

/* Expand an invocation of @m at @call: push its body as a frame. */
static void pp_invoke(struct pp_state *st, const struct pp_macro *m,
		      const struct token *call)
{
	struct pp_binding *env = NULL;
	struct src_span whole = call->span;
	uint32_t exp;
	unsigned i;

	if (m->nparams) {
		struct src_span end = { 0, 0, 0, 0 };

		env = arena_alloc(st->pp->arena, m->nparams * sizeof(*env));
		for (i = 0; i < m->nparams; i++)
			env[i].name = m->params[i];
		/* On a bad argument list, expand anyway with what was
		   given: the body's own errors then stay quiet. */
		if (!pp_collect_args(st, m, call, env, &end)) {
			if (end.file == 0)
				return;
			pp_fill_missing(st, env, m->nparams, call);
		}
		whole = src_join(call->span, end);
	}
	if (++st->expansions > PP_MAX_EXPANSIONS) {
		if (st->expansions == PP_MAX_EXPANSIONS + 1)
			pp_err(st, call->span, "more than %d macro expansions (a macro that "
			       "expands to several uses of another, repeatedly?)",
			       PP_MAX_EXPANSIONS);
		return;
	}
	exp = src_add_expansion(st->pp->src, m->name, whole);
	pp_push(st, m->body, m->nbody, exp, env, m->nparams, call->span);
}

/* $N: push the argument's tokens, lexed as code. */
static void pp_arg_code(struct pp_state *st, const struct token *t)
{
	const struct pp_facts *f = st->pp->facts;
	struct tok_vec *v;
	const char *arg;

	if (t->num > f->nargs) {
		pp_err(st, t->span,
		       "command line argument index %lld out of range [1-%d]",
		       (long long)t->num, f->nargs);
		arg = "0";	/* keep parsing without a cascade of errors */
	} else if (st->bad_args && st->bad_args[t->num - 1]) {
		arg = "0";	/* said at its first use: one problem, one message */
	} else {
		arg = f->args[t->num - 1];
	}
	v = arena_alloc(st->pp->arena, sizeof(*v));
	if (lex_text(st->pp->arena, st->pp->diag, arg, strlen(arg), t->span, v)) {
		/* The error quotes the argument's text at $N: say where it
		   came from (an install check's `0x$(grep ...)` that found
		   nothing, say). */
		st->errors++;
		diag_note(st->pp->diag, t->span, "command line argument $%lld is \"%s\"",
			  (long long)t->num, arg);
		if (!st->bad_args)
			st->bad_args = arena_alloc(st->pp->arena, f->nargs * sizeof(bool));
		st->bad_args[t->num - 1] = true;
	}
	if (v->n)
		pp_push(st, v->v, v->n, 0, NULL, 0, t->span);
}

/* @N, $#, @#: the token they stand for. */
static struct token pp_arg_value(struct pp_state *st, const struct token *t)
{
	const struct pp_facts *f = st->pp->facts;
	struct token r = *t;
	char buf[32];

	if (t->kind == TOK_ARG_STR) {
		r.kind = TOK_STRING;
		if (t->num > f->nargs) {
			pp_err(st, t->span,
			       "command line argument index %lld out of range [1-%d]",
			       (long long)t->num, f->nargs);
			r.text = "";
		} else {
			r.text = arena_strdup(st->pp->arena, f->args[t->num - 1]);
		}
	} else {
		snprintf(buf, sizeof(buf), "%d", f->nargs);
		r.kind = t->kind == TOK_ARGC_NUM ? TOK_NUMBER : TOK_STRING;
		r.text = arena_strdup(st->pp->arena, buf);
		r.num = f->nargs;
	}
	r.len = (uint32_t)strlen(r.text);
	return r;
}

static void pp_define(struct pp_state *st, const struct token *at);

/*
 * Next token with macros, parameters and script arguments expanded.
 * Conditionals are left to the caller.
 */
static struct token pp_expanded(struct pp_state *st)
{
	for (;;) {
		struct token t = pp_raw(st);
		const struct pp_macro *m;
		struct pp_binding *b;

		if (st->nframes > 1 && ++st->produced > PP_MAX_TOKENS) {
			if (st->produced == PP_MAX_TOKENS + 1)
				pp_err(st, t.span, "macros expand to more than %d tokens "
				       "(macros that multiply?)", PP_MAX_TOKENS);
			return st->eof;
		}

		switch (t.kind) {
		case TOK_ARG_NUM:
			pp_arg_code(st, &t);
			continue;
		case TOK_ARG_STR:
		case TOK_ARGC_NUM:
		case TOK_ARGC_STR:
			return pp_arg_value(st, &t);
		case TOK_AT_DEFINE:
			if (st->nframes == 1 && st->floor == 0) {
				pp_define(st, &t);
				continue;
			}
			pp_err(st, t.span, "'@define' is only allowed at the top level of a file");
			continue;
		default:
			break;
		}
		if (t.kind != TOK_AT_MACRO && tok_kind_class(t.kind) != TC_AT)
			return t;
		if ((b = pp_param(st, t.text + 1)) != NULL) {
			if (b->toks.n)
				pp_push(st, b->toks.v, b->toks.n, 0, NULL, 0,
					t.span);
			continue;
		}
		if ((m = pp_lookup(st, t.text + 1)) != NULL) {
			pp_invoke(st, m, &t);
			continue;
		}
		if (t.kind == TOK_AT_MACRO) {
			pp_err(st, t.span, "unknown macro or operator '%s'",
			       t.text);
			/* Go on with the bare name: no cascade of errors. */
			t.kind = TOK_IDENT;
			t.text++;
			t.len--;
			return t;
		}
		return t;
	}
}

/* Read the parameter list of a definition; '(' has been read. */
static bool pp_define_params(struct pp_state *st, struct pp_macro *m,
			     struct token *t)
{
	const char **params = NULL;
	size_t n = 0, cap = 0, i;

	for (;;) {
		*t = pp_raw(st);
		if (t->kind != TOK_IDENT) {
			pp_err(st, t->span,
			       "expected a parameter name in the definition of macro '@%s'",
			       m->name);
			return false;
		}
		for (i = 0; i < n; i++)
			if (strcmp(params[i], t->text) == 0)
				pp_err(st, t->span,
				       "duplicate parameter '%s' of macro '@%s'",
				       t->text, m->name);
		params = arena_grow(st->pp->arena, params, n, &cap,
				    sizeof(*params));
		params[n++] = t->text;
		*t = pp_raw(st);
		if (t->kind == TOK_RPAREN)
			break;
		if (t->kind != TOK_COMMA) {
			pp_err(st, t->span,
			       "expected ',' or ')' in the parameter list of macro '@%s'",
			       m->name);
			return false;
		}
	}
	m->params = params;
	m->nparams = (unsigned)n;
	*t = pp_raw(st);
	return true;
}

/* Capture the body of a definition; '%(' has been read. */
static bool pp_define_body(struct pp_state *st, struct pp_macro *m,
			   const struct token *at)
{
	struct tok_vec body = { 0 };
	unsigned depth = 0;
	struct token t;

	for (;;) {
		t = pp_raw(st);
		if (t.kind == TOK_EOF) {
			pp_err(st, at->span,
			       "unterminated definition of macro '@%s': missing '%%)'",
			       m->name);
			return false;
		}
		if (t.kind == TOK_PP_IF)
			depth++;
		else if (t.kind == TOK_PP_END && depth-- == 0)
			break;
		tok_push(st->pp->arena, &body, &t);
	}
	m->body = body.v;
	m->nbody = body.n;
	return true;
}

/* Check @m's name against reserved words and earlier definitions. */
static bool pp_define_name_ok(struct pp_state *st, const struct pp_macro *m,
			      size_t first_local)
{
	char at[80];
	size_t i;

	if (strcmp(m->name, "define") == 0) {
		pp_err(st, m->span, "'@define' cannot be redefined");
		return false;
	}
	snprintf(at, sizeof(at), "@%s", m->name);
	if (tok_kind_class(tok_keyword(at, (unsigned)strlen(at))) == TC_AT)
		diag_warning(st->pp->diag, m->span,
			     "macro '@%s' hides the built-in operator of the same name",
			     m->name);
	for (i = first_local; i < st->pp->macros->n; i++) {
		if (strcmp(st->pp->macros->v[i].name, m->name) == 0) {
			pp_err(st, m->span, "macro '@%s' is already defined",
			       m->name);
			return false;
		}
	}
	return true;
}

/* @define NAME [(PARAMS)] %( BODY %) -- '@define' has been read. */
static void pp_define(struct pp_state *st, const struct token *at)
{
	struct pp_macros *tab = st->pp->macros;
	struct pp_macro m;
	struct token t = pp_raw(st);
	size_t first_local = 0;

	memset(&m, 0, sizeof(m));
	if (t.kind != TOK_IDENT && tok_kind_class(t.kind) != TC_KW) {
		pp_err(st, at->span, "expected a macro name after '@define'");
		return;
	}
	m.name = t.text;
	m.span = t.span;
	m.library = st->library;
	t = pp_raw(st);
	if (t.kind == TOK_LPAREN && !pp_define_params(st, &m, &t))
		return;
	if (t.kind != TOK_PP_IF) {
		pp_err(st, t.kind == TOK_EOF ? at->span : t.span,
		       "expected '%%(' to start the body of macro '@%s'",
		       m.name);
		return;
	}
	if (!pp_define_body(st, &m, at))
		return;
	/* Library macros only clash with each other; a script may shadow. */
	while (first_local < tab->n && tab->v[first_local].library &&
	       !st->library)
		first_local++;
	if (!pp_define_name_ok(st, &m, first_local))
		return;
	tab->v = arena_grow(st->pp->arena, tab->v, tab->n, &tab->cap,
			    sizeof(*tab->v));
	tab->v[tab->n++] = m;
}

/*
 * Skip a branch of a conditional without expanding anything.  Returns the
 * %:, %? or %) that ends it at nesting level 0, or EOF.
 */
static struct token pp_skip(struct pp_state *st)
{
	unsigned depth = 0;

	for (;;) {
		struct token t = pp_raw(st);

		if (t.kind == TOK_EOF)
			return t;
		if (t.kind == TOK_PP_IF)
			depth++;
		else if (depth && t.kind == TOK_PP_END)
			depth--;
		else if (!depth && (t.kind == TOK_PP_ELSE ||
				    t.kind == TOK_PP_THEN ||
				    t.kind == TOK_PP_END))
			return t;
	}
}

static bool pp_is_cond_end(enum tok_kind k)
{
	return k == TOK_PP_THEN || k == TOK_PP_END || k == TOK_PP_ELSE ||
	       k == TOK_EOF;
}

/* defined(NAME): a macro or a kernel config option of that name exists. */
static int pp_eval_defined(struct pp_state *st, const struct token *kw)
{
	const struct pp_facts *f = st->pp->facts;
	struct token t = pp_raw(st), name;
	int v;

	if (t.kind != TOK_LPAREN)
		goto bad;
	name = pp_raw(st);
	if (name.kind != TOK_IDENT && name.kind != TOK_AT_MACRO &&
	    tok_kind_class(name.kind) != TC_AT)
		goto bad;
	if (pp_raw(st).kind != TOK_RPAREN)
		goto bad;
	if (name.text[0] == '@')
		v = pp_lookup(st, name.text + 1) != NULL;
	else if (strncmp(name.text, "CONFIG_", 7) == 0 && f->config)
		v = f->config(f->config_ctx, name.text)[0] != '\0';
	else
		v = pp_lookup(st, name.text) != NULL;
	return v;
bad:
	pp_err(st, kw->span, "expected defined(@MACRO) or defined(CONFIG_NAME)");
	return -1;
}

/*
 * Parse and evaluate "l op r [&& ...] [|| ...]" up to the '%?'.  Returns
 * 1 or 0, or -1 after an error (then everything up to the matching %)
 * is dropped by the caller).  @end receives the token that ended it.
 */
static int pp_condition(struct pp_state *st, const struct token *open,
			struct token *end)
{
	bool result = false, and_result = true, failed = false;
	struct token l, op, r, n;
	int v;

	for (;;) {
		l = pp_expanded(st);
		if (l.kind == TOK_IDENT && strcmp(l.text, "defined") == 0) {
			v = pp_eval_defined(st, &l);
		} else {
			op = pp_is_cond_end(l.kind) ? l : pp_expanded(st);
			r = pp_is_cond_end(op.kind) ? op : pp_expanded(st);
			if (pp_is_cond_end(l.kind) || pp_is_cond_end(op.kind) ||
			    pp_is_cond_end(r.kind)) {
				pp_err(st, open->span, "incomplete condition after '%%('");
				*end = pp_is_cond_end(l.kind) ? l :
				       pp_is_cond_end(op.kind) ? op : r;
				return -1;
			}
			v = pp_eval_cond(st->pp, &l, &op, &r);
		}
		if (v < 0) {
			st->errors++;
			failed = true;
		}
		and_result = and_result && v > 0;
		n = pp_expanded(st);
		if (n.kind == TOK_ANDAND)
			continue;
		result = result || and_result;
		and_result = true;
		if (n.kind != TOK_OROR)
			break;
	}
	*end = n;
	if (failed)
		return -1;
	if (n.kind != TOK_PP_THEN) {
		pp_err(st, n.kind == TOK_EOF ? open->span : n.span,
		       "expected '%%?' after the condition of '%%('");
		return -1;
	}
	return result;
}

/* After a bad condition: drop everything up to the matching %). */
static void pp_drop_conditional(struct pp_state *st, struct token end)
{
	while (end.kind != TOK_EOF && end.kind != TOK_PP_END)
		end = pp_skip(st);
}

/* %( has been read: evaluate it and enter the chosen branch. */
static void pp_open(struct pp_state *st, const struct token *open)
{
	struct token end;
	struct pp_cond *c;
	int v = pp_condition(st, open, &end);

	if (v < 0) {
		pp_drop_conditional(st, end);
		return;
	}
	st->conds = arena_grow(st->pp->arena, st->conds, st->nconds, &st->ccap,
			       sizeof(*st->conds));
	c = &st->conds[st->nconds++];
	c->at = *open;
	c->state = PPC_THEN;
	if (v)
		return;
	/* False: skip the THEN branch. */
	end = pp_skip(st);
	if (end.kind == TOK_PP_ELSE) {
		c->state = PPC_ELSE;
	} else if (end.kind == TOK_PP_END) {
		st->nconds--;
	} else if (end.kind == TOK_PP_THEN) {
		pp_err(st, end.span, "unexpected '%%?': this conditional already has one");
		pp_drop_conditional(st, pp_skip(st));
		st->nconds--;
	}
	/* EOF is reported by the main loop. */
}

/* %: or %? or %) seen while a branch is being kept. */
static void pp_branch_end(struct pp_state *st, const struct token *t)
{
	struct pp_cond *c = st->nconds ? &st->conds[st->nconds - 1] : NULL;
	struct token end;

	if (!c) {
		pp_err(st, t->span, "'%s' without a matching '%%('",
		       tok_kind_name(t->kind));
		return;
	}
	if (t->kind == TOK_PP_END) {
		st->nconds--;
		return;
	}
	if (t->kind == TOK_PP_THEN || c->state == PPC_ELSE) {
		pp_err(st, t->span, t->kind == TOK_PP_THEN ?
		       "unexpected '%%?': this conditional already has one" :
		       "unexpected '%%:': this conditional already has an else branch");
		pp_drop_conditional(st, *t);
		st->nconds--;
		return;
	}
	/* %: after a kept THEN branch: skip the ELSE branch. */
	end = pp_skip(st);
	if (end.kind != TOK_PP_END && end.kind != TOK_EOF) {
		pp_err(st, end.span, "unexpected '%s' in the else branch of '%%('",
		       tok_kind_name(end.kind));
		pp_drop_conditional(st, end);
	}
	if (end.kind != TOK_EOF)
		st->nconds--;
}

/* A token other than @define reached the output of a .stpm file. */
static void pp_library_token(struct pp_state *st, const struct token *t)
{
	if (st->library_warned)
		return;
	st->library_warned = true;
	pp_err(st, t->span, "a macro library (.stpm) may only contain @define");
}

unsigned pp_run(struct pp_ctx *pp, const struct tok_vec *in,
		struct tok_vec *out, bool library)
{
	struct pp_state *st = xcalloc(1, sizeof(*st));
	size_t first_local = pp->macros->n;
	unsigned errors;

	st->pp = pp;
	st->out = out;
	st->library = library;
	st->eof = in->v[in->n - 1];
	pp_push(st, in->v, in->n, 0, NULL, 0, st->eof.span);
	for (;;) {
		struct token t = pp_expanded(st);

		if (t.kind == TOK_EOF)
			break;
		if (t.kind == TOK_PP_IF)
			pp_open(st, &t);
		else if (t.kind == TOK_PP_THEN || t.kind == TOK_PP_ELSE ||
			 t.kind == TOK_PP_END)
			pp_branch_end(st, &t);
		else if (library)
			pp_library_token(st, &t);
		else if (out->n < PP_MAX_TOKENS)
			tok_push(pp->arena, out, &t);
		else {
			pp_err(st, t.span, "the script expands to more than %d tokens "
			       "(macros that multiply?)", PP_MAX_TOKENS);
			break;
		}
	}
	if (st->nconds)
		pp_err(st, st->conds[st->nconds - 1].at.span,
		       "incomplete conditional at end of file: missing '%%)'");
	tok_push(pp->arena, out, &st->eof);
	/* A script's own macros end with it; a library's stay. */
	if (!library)
		pp->macros->n = first_local;
	errors = st->errors;
	free(st);
	return errors;
}
