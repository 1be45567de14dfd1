/*
 * tapset.c - which tapset files a script needs (see tapset.h).
 *
 * The scan of a file's text is a small tokenizer that follows lexer.l's
 * rules for what is not code (comments, strings, embedded C) plus a
 * recogniser of declaration headers.  It is several times cheaper than
 * lex_file() (measured: bench/README.md), which matters because it runs
 * over every file on every run.  Its contract is to never miss a name:
 *
 *   - both branches of every %( %? %: %) conditional count (the scan
 *     does not evaluate them), so do declarations inside @define bodies;
 *   - 'function NAME', 'global NAMES', 'private NAMES' and
 *     'probe NAMES =' / '+=' are recognised wherever they stand, except
 *     as a probe point component or member ('.function', '->function');
 *   - a header it cannot follow (a name made by a macro or a script
 *     argument, a conditional inside an alias name) makes the whole file
 *     "always needed": parsed on every run, as before lazy loading.
 *
 * What a script needs is read from its preprocessed tokens (macros of
 * the .stpm files already expanded) and from its AST's probe points.
 */
#include "tapset.h"
#include "arena.h"
#include "ast.h"

#include <fnmatch.h>
#include <string.h>

/* Brace expansion in one alias declaration may not give more names. */
#define TS_MAX_NAMES 4096
/* Nor may a name have more components (ts_need_point() has the same). */
#define TS_MAX_COMPS 16

enum ts_kind { TS_EOF, TS_WORD, TS_NUM, TS_STR, TS_AT, TS_OP, TS_OTHER };
enum ts_name_kind { TS_FUNC, TS_GLOBAL };

/* An alias name: its components, wildcards kept, arguments dropped. */
struct ts_alias {
	const char **comps;
	unsigned n;
};

struct ts_aliases {
	struct ts_alias *v;
	unsigned n;
	size_t cap;
};

struct ts_file {
	const char *path;
	struct ts_aliases aliases;
	bool always;		/* the scan could not follow a header */
	bool needed;
	bool handed;		/* returned by tapset_next() */
};

/* A function or global some file provides. */
struct ts_name {
	const char *name;
	unsigned file;
	enum ts_name_kind kind;
	bool excluded;		/* the script defines it: it pulls nothing */
};

struct tapset_index {
	struct arena *arena;
	struct ts_file *files;
	unsigned nfiles;
	size_t fcap;
	struct ts_name *names;
	unsigned nnames;
	size_t ncap;
	unsigned *table;	/* open addressing: index + 1 into names */
	unsigned mask;
	unsigned hashed;	/* names in the table */
};

struct ts_tok {
	enum ts_kind kind;
	const char *s;
	unsigned len;
	bool ws;		/* whitespace or a comment before it */
};

struct ts_scan {
	struct tapset_index *ix;
	unsigned file;
	const char *p, *end;
	struct ts_tok t;	/* the current token */
};

/* ================= the tokenizer ================= */

static bool ts_idstart(char c)
{
	return (unsigned)((c | 0x20) - 'a') < 26 || c == '_';
}

static bool ts_idchar(char c)
{
	return ts_idstart(c) || (unsigned)(c - '0') < 10 || c == '$';
}

/* The first @a@b pair at or after @p, or NULL. */
static const char *ts_find2(const char *p, const char *e, char a, char b)
{
	while (p < e && (p = memchr(p, a, (size_t)(e - p))) != NULL) {
		if (p + 1 < e && p[1] == b)
			return p;
		p++;
	}
	return NULL;
}

/* Skip whitespace and comments ('#', '//', C comments); true if any. */
static bool ts_skip(struct ts_scan *sc)
{
	const char *p = sc->p, *e = sc->end, *q;
	bool ws = false;

	while (p < e) {
		if ((unsigned char)*p <= ' ') {
			/* Spaces, and control bytes: lexer.l reports those and
			   goes on as after a space. */
			p++;
		} else if (*p == '#' || (*p == '/' && p + 1 < e && p[1] == '/')) {
			q = memchr(p, '\n', (size_t)(e - p));
			p = q ? q : e;
		} else if (*p == '/' && p + 1 < e && p[1] == '*') {
			q = ts_find2(p + 2, e, '*', '/');
			p = q ? q + 2 : e;
		} else {
			break;
		}
		ws = true;
	}
	sc->p = p;
	return ws;
}

/* Past the string literal starting at @p (its '"'), escapes included. */
static const char *ts_string_end(const char *p, const char *e)
{
	for (p++; p < e; p++) {
		if (*p == '\\')
			p++;
		else if (*p == '"')
			return p + 1;
	}
	return e;
}

/* Past an identifier-like run, as lexer.l's {IDCHAR}*. */
static const char *ts_ident_end(const char *p, const char *e)
{
	while (p < e && ts_idchar(*p))
		p++;
	return p;
}

/* The length of the operator at @p (lexer.l's multi-character ones). */
static unsigned ts_op_len(const char *p, const char *e)
{
	static const char *const two[] = {
		"%(", "%?", "%:", "%)", "<<", ">>", "<=", ">=", "==", "!=", "=~",
		"!~", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=",
		".=", "&&", "||", "->",
	};
	size_t i;

	/* Most operators are followed by a space or a word: check that first. */
	if (e - p < 2 || !strchr("(?:)<>=~+-&|", p[1]) || !p[1])
		return 1;
	if (e - p >= 3 && (!memcmp(p, "<<<", 3) || !memcmp(p, ">>>", 3) ||
			   !memcmp(p, "<<=", 3) || !memcmp(p, ">>=", 3)))
		return 3;
	for (i = 0; i < sizeof(two) / sizeof(two[0]); i++)
		if (p[0] == two[i][0] && p[1] == two[i][1])
			return 2;
	return 1;
}

/* $name, $$name, $1, $# */
static const char *ts_sigil_end(const char *p, const char *e)
{
	p++;
	if (p < e && *p == '#')
		return p + 1;
	if (p < e && *p == '$')
		p++;
	return ts_ident_end(p, e);
}

/* Read the next token into sc->t. */
static void ts_next(struct ts_scan *sc)
{
	const char *p, *e = sc->end, *q;

	sc->t.ws = ts_skip(sc);
	p = sc->p;
	sc->t.s = p;
	if (p >= e) {
		sc->t.kind = TS_EOF;
		sc->t.len = 0;
		return;
	}
	if (ts_idstart(*p)) {
		sc->t.kind = TS_WORD;
		q = ts_ident_end(p, e);
	} else if (*p >= '0' && *p <= '9') {
		sc->t.kind = TS_NUM;
		q = ts_ident_end(p, e);
	} else if (*p == '"') {
		sc->t.kind = TS_STR;
		q = ts_string_end(p, e);
	} else if (*p == '%' && p + 1 < e && p[1] == '{') {
		sc->t.kind = TS_OTHER;		/* embedded C */
		q = ts_find2(p + 2, e, '%', '}');
		q = q ? q + 2 : e;
	} else if (*p == '$' || *p == '@') {
		sc->t.kind = *p == '@' ? TS_AT : TS_OTHER;
		q = ts_sigil_end(p, e);
	} else {
		sc->t.kind = TS_OP;
		q = p + ts_op_len(p, e);
	}
	sc->t.len = (unsigned)(q - p);
	sc->p = q;
}

static bool ts_is(const struct ts_tok *t, enum ts_kind k, const char *s)
{
	size_t n = strlen(s);

	return t->kind == k && t->len == n && memcmp(t->s, s, n) == 0;
}

static bool ts_op(const struct ts_scan *sc, const char *s)
{
	return ts_is(&sc->t, TS_OP, s);
}

static bool ts_word(const struct ts_scan *sc, const char *s)
{
	return ts_is(&sc->t, TS_WORD, s);
}

/* A word that may name a function or a global (no keyword). */
static bool ts_name_word(const struct ts_tok *t)
{
	enum tok_kind k;

	if (t->kind != TS_WORD)
		return false;
	k = tok_keyword(t->s, t->len);
	return k == TOK_EOF || tok_kind_class(k) != TC_KW;
}

/* ================= what a file provides ================= */

static void ts_add_name(struct ts_scan *sc, enum ts_name_kind kind)
{
	struct tapset_index *ix = sc->ix;
	struct ts_name *n;

	ix->names = arena_grow(ix->arena, ix->names, ix->nnames, &ix->ncap,
			       sizeof(*ix->names));
	n = &ix->names[ix->nnames++];
	n->name = arena_strndup(ix->arena, sc->t.s, sc->t.len);
	n->file = sc->file;
	n->kind = kind;
	n->excluded = false;
}

static bool ts_fail(struct ts_scan *sc)
{
	sc->ix->files[sc->file].always = true;
	return false;
}

/* NAME [%] [[N]] [= LITERAL] {, ...}: global_list of parser.y. */
static bool ts_globals(struct ts_scan *sc)
{
	for (;;) {
		if (!ts_name_word(&sc->t))
			return ts_fail(sc);
		ts_add_name(sc, TS_GLOBAL);
		ts_next(sc);
		if (ts_op(sc, "%"))
			ts_next(sc);
		if (ts_op(sc, "[")) {
			ts_next(sc);
			if (sc->t.kind == TS_NUM)
				ts_next(sc);
			if (ts_op(sc, "]"))
				ts_next(sc);
		}
		if (ts_op(sc, "=")) {
			ts_next(sc);
			if (ts_op(sc, "-"))
				ts_next(sc);
			if (sc->t.kind == TS_NUM || sc->t.kind == TS_STR)
				ts_next(sc);
		}
		if (!ts_op(sc, ","))
			return true;
		ts_next(sc);
	}
}

/* Skip from '(' to its ')'; false at the end of the text. */
static bool ts_skip_parens(struct ts_scan *sc)
{
	unsigned depth = 0;

	if (!ts_op(sc, "("))
		return false;
	do {
		if (ts_op(sc, "("))
			depth++;
		else if (ts_op(sc, ")"))
			depth--;
		ts_next(sc);
	} while (depth && sc->t.kind != TS_EOF);
	return depth == 0;
}

/* Words, numbers and '*' written together: one probe point component. */
static bool ts_wordlike(const struct ts_tok *t)
{
	return t->kind == TS_WORD || t->kind == TS_NUM || ts_is(t, TS_OP, "*");
}

static void ts_push(struct tapset_index *ix, struct ts_aliases *l,
		    const char **comps, unsigned n)
{
	l->v = arena_grow(ix->arena, l->v, l->n, &l->cap, sizeof(*l->v));
	l->v[l->n].comps = comps;
	l->v[l->n].n = n;
	l->n++;
}

/* Every name of @a followed by every name of @b, into @a. */
static bool ts_cross(struct tapset_index *ix, struct ts_aliases *a,
		     const struct ts_aliases *b)
{
	struct ts_aliases out = { 0 };
	unsigned i, j;

	if ((size_t)a->n * b->n > TS_MAX_NAMES)
		return false;
	for (i = 0; i < a->n; i++) {
		for (j = 0; j < b->n; j++) {
			unsigned n = a->v[i].n + b->v[j].n;
			const char **c = arena_alloc(ix->arena, n * sizeof(*c));

			memcpy(c, a->v[i].comps, a->v[i].n * sizeof(*c));
			memcpy(c + a->v[i].n, b->v[j].comps, b->v[j].n * sizeof(*c));
			ts_push(ix, &out, c, n);
		}
	}
	*a = out;
	return true;
}

static bool ts_seq(struct ts_scan *sc, struct ts_aliases *out);

/* { SEQ, SEQ ... }: brace expansion. */
static bool ts_alts(struct ts_scan *sc, struct ts_aliases *out)
{
	ts_next(sc);
	for (;;) {
		if (!ts_seq(sc, out) || out->n > TS_MAX_NAMES)
			return false;
		if (ts_op(sc, "}")) {
			ts_next(sc);
			return true;
		}
		if (!ts_op(sc, ","))
			return false;
		ts_next(sc);
	}
}

/* NAME [(LITERAL)]: one component (words written together), or NULL. */
static const char *ts_comp(struct ts_scan *sc)
{
	const char *start = sc->t.s, *end;

	if (!ts_wordlike(&sc->t))
		return NULL;
	do {
		end = sc->t.s + sc->t.len;
		ts_next(sc);
	} while (ts_wordlike(&sc->t) && !sc->t.ws);
	if (ts_op(sc, "(") && !ts_skip_parens(sc))
		return NULL;
	return arena_strndup(sc->ix->arena, start, (size_t)(end - start));
}

/* Copy of the @n components at @c. */
static const char **ts_comps(struct tapset_index *ix, const char *const *c,
			     unsigned n)
{
	const char **v = arena_alloc(ix->arena, (n ? n : 1) * sizeof(*v));

	memcpy(v, c, n * sizeof(*v));
	return v;
}

/*
 * ELEM . ELEM ...: append the names of one point to @out.  Without
 * braces (every alias of ktap's tapset) that is one name, collected
 * without temporary lists; a { } group switches to the cross product.
 */
static bool ts_seq(struct ts_scan *sc, struct ts_aliases *out)
{
	const char *comps[TS_MAX_COMPS];
	struct ts_aliases cur = { 0 }, one;
	unsigned n = 0, i;

	for (;;) {
		if (ts_op(sc, "{")) {
			struct ts_aliases alts = { 0 };

			if (!cur.n)
				ts_push(sc->ix, &cur, ts_comps(sc->ix, comps, n), n);
			if (!ts_alts(sc, &alts) || !ts_cross(sc->ix, &cur, &alts))
				return false;
		} else if (!(comps[n] = ts_comp(sc))) {
			return false;
		} else if (cur.n) {
			one.v = NULL, one.n = 0, one.cap = 0;
			ts_push(sc->ix, &one, ts_comps(sc->ix, comps + n, 1), 1);
			if (!ts_cross(sc->ix, &cur, &one))
				return false;
		} else if (++n == TS_MAX_COMPS) {
			return false;
		}
		if (!ts_op(sc, "."))
			break;
		ts_next(sc);
	}
	if (!cur.n)
		ts_push(sc->ix, out, ts_comps(sc->ix, comps, n), n);
	for (i = 0; i < cur.n; i++)
		ts_push(sc->ix, out, cur.v[i].comps, cur.v[i].n);
	return true;
}

/* probe POINT [?!] [if (COND)], ... then '=' or '+=' (alias) or '{'. */
static bool ts_probe(struct ts_scan *sc)
{
	struct ts_aliases *mine = &sc->ix->files[sc->file].aliases;
	unsigned before = mine->n;

	for (;;) {
		if (!ts_seq(sc, mine))
			return ts_fail(sc);
		if (ts_op(sc, "?") || ts_op(sc, "!"))
			ts_next(sc);
		if (ts_word(sc, "if")) {
			ts_next(sc);
			if (!ts_skip_parens(sc))
				return ts_fail(sc);
		}
		if (!ts_op(sc, ","))
			break;
		ts_next(sc);
	}
	if (ts_op(sc, "{")) {
		mine->n = before;		/* a probe: provides nothing */
		return true;
	}
	if (!ts_op(sc, "=") && !ts_op(sc, "+="))
		return ts_fail(sc);
	ts_next(sc);
	return true;
}

/*
 * At a word that is not a component or member: if it starts a
 * declaration, consume its header and return true.
 */
static bool ts_decl(struct ts_scan *sc)
{
	if (sc->t.len < 5 || sc->t.len > 8)	/* probe ... function */
		return false;
	if (ts_word(sc, "function")) {
		ts_next(sc);
		if (ts_op(sc, "("))
			return true;	/* kernel.{function("f"), ...}: a component */
		if (ts_name_word(&sc->t)) {
			ts_add_name(sc, TS_FUNC);
			ts_next(sc);
		} else {
			ts_fail(sc);
		}
		return true;
	}
	if (ts_word(sc, "global")) {
		ts_next(sc);
		ts_globals(sc);
		return true;
	}
	if (ts_word(sc, "private")) {
		ts_next(sc);
		if (!ts_word(sc, "function") && !ts_word(sc, "global"))
			ts_globals(sc);
		return true;
	}
	if (ts_word(sc, "probe")) {
		ts_next(sc);
		ts_probe(sc);
		return true;
	}
	return false;
}

static void ts_scan_file(struct ts_scan *sc)
{
	bool member = false;	/* the previous token was '.' or '->' */

	ts_next(sc);
	while (sc->t.kind != TS_EOF && !sc->ix->files[sc->file].always) {
		if (sc->t.kind == TS_WORD && !member && ts_decl(sc)) {
			member = false;
			continue;
		}
		member = sc->t.kind == TS_OP && (ts_op(sc, ".") || ts_op(sc, "->"));
		ts_next(sc);
	}
}

struct tapset_index *tapset_new(struct arena *a)
{
	struct tapset_index *ix = arena_alloc(a, sizeof(*ix));

	ix->arena = a;
	return ix;
}

unsigned tapset_add(struct tapset_index *ix, const char *path,
		    const char *text, size_t len)
{
	struct ts_scan sc = { ix, ix->nfiles, text, text + len, { 0 } };
	struct ts_file *f;

	ix->files = arena_grow(ix->arena, ix->files, ix->nfiles, &ix->fcap,
			       sizeof(*ix->files));
	f = &ix->files[ix->nfiles++];
	memset(f, 0, sizeof(*f));
	f->path = arena_strdup(ix->arena, path);
	ts_scan_file(&sc);
	return sc.file;
}

unsigned tapset_count(const struct tapset_index *ix)
{
	return ix->nfiles;
}

const char *tapset_path(const struct tapset_index *ix, unsigned i)
{
	return ix->files[i].path;
}

/* ================= what a script needs ================= */

static unsigned ts_hash(const char *s)
{
	unsigned h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* (Re)build the name table when names were added since the last build. */
static void ts_table(struct tapset_index *ix)
{
	unsigned size = 16, i, h;

	if (ix->table && ix->hashed == ix->nnames)
		return;
	while (size < 2 * ix->nnames)
		size *= 2;
	ix->table = arena_alloc(ix->arena, size * sizeof(*ix->table));
	ix->mask = size - 1;
	for (i = 0; i < ix->nnames; i++) {
		for (h = ts_hash(ix->names[i].name) & ix->mask; ix->table[h];
		     h = (h + 1) & ix->mask)
			;
		ix->table[h] = i + 1;
	}
	ix->hashed = ix->nnames;
}

/* Every provider of @name as a @kind: exclude it, or need its file. */
static void ts_lookup(struct tapset_index *ix, const char *name,
		      enum ts_name_kind kind, bool exclude)
{
	unsigned h;

	ts_table(ix);
	for (h = ts_hash(name) & ix->mask; ix->table[h]; h = (h + 1) & ix->mask) {
		struct ts_name *n = &ix->names[ix->table[h] - 1];

		if (n->kind != kind || strcmp(n->name, name) != 0)
			continue;
		if (exclude)
			n->excluded = true;
		else if (!n->excluded)
			ix->files[n->file].needed = true;
	}
}

void tapset_exclude(struct tapset_index *ix, const struct ast_file *script)
{
	unsigned i;

	for (i = 0; script && i < script->n; i++) {
		const struct ast_decl *d = script->decls[i];

		if (d->kind == AST_D_FUNC)
			ts_lookup(ix, d->func->name, TS_FUNC, true);
		else if (d->kind == AST_D_GLOBAL)
			ts_lookup(ix, d->global->name, TS_GLOBAL, true);
	}
}

void tapset_need_tokens(struct tapset_index *ix, const struct token *v,
			size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i].kind != TOK_IDENT)
			continue;
		ts_lookup(ix, v[i].text, i + 1 < n && v[i + 1].kind == TOK_LPAREN ?
			  TS_FUNC : TS_GLOBAL, false);
		/* pass 2 makes returnstr(F) return_str(F, returnval()) (sema_regs.c) */
		if (!strcmp(v[i].text, "returnstr"))
			ts_lookup(ix, "return_str", TS_FUNC, false);
		/* and task_X(task_current()) the context function X()
		   (sema_spec.c's sema_current_task(): ns_pid() ...) */
		if (!strncmp(v[i].text, "task_", 5))
			ts_lookup(ix, v[i].text + 5, TS_FUNC, false);
	}
}

/*
 * Could user component @u match alias component @a?  sema_probe.c's
 * pp_alias_matches() asks fnmatch(u, a); a wildcard in the alias name
 * also matches the other way round (more than needed, never less).
 */
static bool ts_comp_matches(const char *u, const char *a)
{
	return fnmatch(u, a, 0) == 0 ||
	       (strpbrk(a, "*?[") && fnmatch(a, u, 0) == 0);
}

/* Need every file with an alias that @comps (@n of them) may match. */
static void ts_need_pattern(struct tapset_index *ix, const char *const *comps,
			    unsigned n)
{
	unsigned f, i, k;

	for (f = 0; f < ix->nfiles; f++) {
		const struct ts_aliases *al = &ix->files[f].aliases;

		for (i = 0; i < al->n && !ix->files[f].needed; i++) {
			for (k = 0; k < n && al->v[i].n == n; k++)
				if (!ts_comp_matches(comps[k], al->v[i].comps[k]))
					break;
			if (k == n && al->v[i].n == n)
				ix->files[f].needed = true;
		}
	}
}

/*
 * syscall.NAME and nd_syscall.NAME consult every tapset alias
 * syscall.* (sema_syscall.c: the names of the family, and aliases that
 * cover another call's tracepoint), and a generic .return member calls
 * the tapset's return_str() (sema_syscall_prologue()).
 */
bool tapset_syscall_family(const char *name, bool glob)
{
	static const char *const families[] = { "syscall", "nd_syscall", "tp_syscall",
						"dw_syscall", "nd1_syscall", "nd2_syscall" };
	unsigned i;

	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (glob ? fnmatch(name, families[i], 0) == 0 : !strcmp(name, families[i]))
			return true;
	return false;
}

/* The function named by @s up to its first ' ' or '(' (at most 63 bytes). */
static void ts_need_func_prefix(struct tapset_index *ix, const char *s)
{
	char name[64];
	size_t n = strcspn(s, " (");

	if (n == 0 || n >= sizeof(name))
		return;
	memcpy(name, s, n);
	name[n] = '\0';
	ts_lookup(ix, name, TS_FUNC, false);
}

/*
 * The decoders the syscall prologue calls for the calls without an alias
 * (sema_syscall_prologue.c): no script or tapset file names them, so the
 * files defining them (tapset/aux_syscalls_flags.stp ...) are needed
 * with every syscall probe.  Rows: sema_syscall_vars.def's SCV_DEC* and
 * the "decoder(args)" arguments of sema_syscall_argstr.def.
 */
static void ts_need_syscall_decoders(struct tapset_index *ix)
{
	static const struct { const char *how, *extra; } vars[] = {
#define SCV(call, var, field, how, extra) { #how, extra },
#include "sema_syscall_vars.def"
#undef SCV
	};
	static const char *const args[] = {
#define SCA(call, format, a) a,
#include "sema_syscall_argstr.def"
#undef SCA
	};
	const char *p;
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (!strncmp(vars[i].how, "SCV_DEC", 7))
			ts_need_func_prefix(ix, vars[i].extra);
	for (i = 0; i < sizeof(args) / sizeof(args[0]); i++)
		for (p = args[i]; *p; p += strcspn(p, " ") + (p[strcspn(p, " ")] == ' '))
			if (p[strcspn(p, " (")] == '(')
				ts_need_func_prefix(ix, p);
}

static void ts_need_syscalls(struct tapset_index *ix)
{
	static const char *const entry[] = { "syscall", "*" };
	static const char *const ret[] = { "syscall", "*", "*" };

	ts_need_pattern(ix, entry, 2);
	ts_need_pattern(ix, ret, 3);
	ts_lookup(ix, "return_str", TS_FUNC, false);
	ts_need_syscall_decoders(ix);
}

/* netfilter.hook("H").pf("P") is the alias __netfilter_hook.PF.HOOK
   (sema_netfilter.c). */
static void ts_need_netfilter(struct tapset_index *ix)
{
	static const char *const hook[] = { "__netfilter_hook", "*", "*" };

	ts_need_pattern(ix, hook, 3);
}

static void ts_need_point(struct tapset_index *ix, const struct ast_ppoint *p)
{
	const char *comps[TS_MAX_COMPS];
	unsigned k;

	if (p->n == 0)
		return;
	if (p->n > TS_MAX_COMPS) {
		tapset_need_all(ix);	/* no alias is that long; be safe */
		return;
	}
	for (k = 0; k < p->n; k++)
		comps[k] = p->comps[k].name;
	/* the aliases named by the point, and by its first components:
	   stap's alias suffixes (vm.write_shared.return is the points of
	   vm.write_shared with .return appended; sema_probe.c) */
	for (k = p->n; k >= 1; k--)
		ts_need_pattern(ix, comps, k);
	if (tapset_syscall_family(comps[0], true))
		ts_need_syscalls(ix);
	if (fnmatch(comps[0], "netfilter", 0) == 0)
		ts_need_netfilter(ix);
}

void tapset_need_points(struct tapset_index *ix, const struct ast_file *f)
{
	unsigned i, j;

	for (i = 0; f && i < f->n; i++) {
		const struct ast_decl *d = f->decls[i];

		if (d->kind != AST_D_PROBE)
			continue;
		for (j = 0; j < d->probe->points.n; j++)
			ts_need_point(ix, d->probe->points.v[j]);
	}
}

void tapset_need_all(struct tapset_index *ix)
{
	unsigned i;

	for (i = 0; i < ix->nfiles; i++)
		ix->files[i].needed = true;
}

int tapset_next(struct tapset_index *ix)
{
	unsigned i;

	for (i = 0; i < ix->nfiles; i++) {
		struct ts_file *f = &ix->files[i];

		if ((f->needed || f->always) && !f->handed) {
			f->handed = true;
			return (int)i;
		}
	}
	return -1;
}
