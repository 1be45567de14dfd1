/*
 * sema_glob.c - wildcards in probe-point component names, as stap
 * matches them (stapprobes: "a component may include a '*' character
 * ... it may also include '**' to match multiple sequential components
 * at once"): '*' and '?' stay within one component, '**' crosses the
 * dots, so sys**open is syscall.open and nd_syscall.open, and t**es(1)
 * is timer.jiffies(1).
 *
 * A written point is matched against a shape: the name of a tapset
 * alias, or one of ktap's built-in points listed below.  A written
 * component matches a run of the shape's components whose names, joined
 * by dots, match its pattern; its argument goes to the run's last
 * component, which must take one (and the others must not).
 */
#include "sema_int.h"
#include "arena.h"
#include "ast.h"

#include <stdio.h>
#include <string.h>

enum glob_arg { GA_NONE, GA_ANY, GA_OPT, GA_EXPR };

struct glob_comp {
	const char *name;
	enum glob_arg arg;
	const struct ast_expr *expr;	/* GA_EXPR: the alias's own argument */
};

/*
 * ktap's built-in points, "()" for a component that takes an argument,
 * "(?)" for one that may.  The system call family is added from the
 * kernel's list (glob_syscalls()).
 */
static const char *const glob_builtins[] = {
	"begin(?)", "end(?)", "error(?)", "never",
	"timer.s()", "timer.sec()", "timer.ms()", "timer.msec()", "timer.us()",
	"timer.usec()", "timer.ns()", "timer.nsec()", "timer.hz()", "timer.jiffies()",
	"timer.profile", "timer.profile.tick",
	"kernel.function()", "kernel.function().call", "kernel.function().return",
	"kernel.function().inline", "kernel.function().exported", "kernel.statement()",
	"kernel.statement().absolute", "kernel.trace()",
	"module().function()", "module().function().call", "module().function().return",
	"module().function().inline", "module().statement()",
	"kprobe.function()", "kprobe.function().return", "kprobe.module().function()",
	"kprobe.module().function().return", "kprobe.statement().absolute",
	"process(?).function()", "process(?).function().call", "process(?).function().return",
	"process(?).function().inline", "process(?).statement()", "process(?).mark()",
	"process(?).provider().mark()", "process(?).plt()", "process(?).plt().return",
	"process(?).library().function()", "process(?).library().function().return",
	"process(?).library().mark()", "process(?).library().plt()",
	"process(?).begin", "process(?).end", "process(?).thread.begin",
	"process(?).thread.end", "process(?).syscall", "process(?).syscall.return",
	"input.char", "input.line", "procfs(?).read", "procfs(?).write",
};

bool sema_glob_has(const struct ast_ppoint *p)
{
	unsigned i;

	for (i = 0; i < p->n; i++)
		if (strpbrk(p->comps[i].name, "*?"))
			return true;
	return false;
}

/* Does @s (names joined by dots) match @p?  '**' crosses dots. */
static bool glob_str(const char *p, const char *s)
{
	while (*p) {
		if (p[0] == '*') {
			bool across = p[1] == '*';

			while (*p == '*')
				p++;
			for (;; s++) {
				if (glob_str(p, s))
					return true;
				if (!*s || (*s == '.' && !across))
					return false;
			}
		}
		if (!*s)
			return false;
		if (*p == '?' ? *s == '.' : *p != *s)
			return false;
		p++;
		s++;
	}
	return !*s;
}

/* The names of shape components [@j, @k] joined by dots, in @buf. */
static const char *glob_join(const struct glob_comp *g, unsigned j, unsigned k, char *buf,
			     size_t cap)
{
	size_t len = 0;
	unsigned x;

	buf[0] = 0;
	for (x = j; x <= k && len < cap; x++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%s", x > j ? "." : "", g[x].name);
	return buf;
}

/* May written component @u (with or without its argument) end at @g? */
static bool glob_arg_fits(const struct ast_ppcomp *u, const struct glob_comp *g)
{
	switch (g->arg) {
	case GA_NONE:
		return !u->arg;
	case GA_ANY:
		return u->arg != NULL;
	case GA_OPT:
		return true;
	case GA_EXPR:
		return u->arg && ast_expr_equal(g->expr, u->arg);
	}
	return false;
}

/*
 * Match written components [@i, p->n) against shape components [@j, @n);
 * on success @out[x] holds shape component x with the written argument
 * and span.
 */
static bool glob_match(const struct ast_ppoint *p, unsigned i, const struct glob_comp *g,
		       unsigned j, unsigned n, struct ast_ppcomp *out)
{
	const struct ast_ppcomp *u;
	char buf[256];
	unsigned k, x;

	if (i == p->n || j == n)
		return i == p->n && j == n;
	u = &p->comps[i];
	for (k = j; k < n; k++) {
		if (k > j && (!strstr(u->name, "**") || g[k - 1].arg == GA_ANY ||
			      g[k - 1].arg == GA_EXPR))
			break;	/* a component inside the run takes no argument */
		if (!glob_arg_fits(u, &g[k]) || !glob_str(u->name, glob_join(g, j, k, buf, sizeof(buf))))
			continue;
		if (!glob_match(p, i + 1, g, k + 1, n, out))
			continue;
		for (x = j; x <= k; x++)
			out[x] = (struct ast_ppcomp){ g[x].name, x == k ? u->arg : NULL, u->span };
		return true;
	}
	return false;
}

/* @name (an alias's) as a shape in @g (room for name->n). */
static void glob_of_alias(const struct ast_ppoint *name, struct glob_comp *g)
{
	unsigned i;

	for (i = 0; i < name->n; i++)
		g[i] = (struct glob_comp){ name->comps[i].name,
					   name->comps[i].arg ? GA_EXPR : GA_NONE,
					   name->comps[i].arg };
}

bool sema_glob_alias_matches(const struct ast_ppoint *name, const struct ast_ppoint *p)
{
	struct glob_comp g[16];
	struct ast_ppcomp out[16];

	if (name->n > 16)
		return false;
	glob_of_alias(name, g);
	return glob_match(p, 0, g, 0, name->n, out);
}

bool sema_glob_is_alias(struct sema_ctx *c, const struct ast_ppoint *q)
{
	unsigned i;

	for (i = 0; i < c->naliases; i++)
		if (sema_glob_alias_matches(c->aliases[i].name, q))
			return true;
	return false;
}

/* Built-in shape @text ("process(?).mark()") into @g; its length. */
static unsigned glob_parse(struct sema_ctx *c, const char *text, struct glob_comp *g,
			   unsigned cap)
{
	unsigned n = 0;

	while (*text && n < cap) {
		size_t len = strcspn(text, ".(");
		const char *s = text + len;

		g[n].name = arena_strndup(c->arena, text, len);
		g[n].arg = GA_NONE;
		g[n].expr = NULL;
		if (*s == '(') {
			g[n].arg = s[1] == '?' ? GA_OPT : GA_ANY;
			s = strchr(s, ')') + 1;
		}
		n++;
		text = *s == '.' ? s + 1 : s;
	}
	return n;
}

/* The concrete point of @p matched onto a shape: comps @out[0..n). */
static struct ast_ppoint *glob_point(struct sema_ctx *c, const struct ast_ppoint *p,
				     const struct ast_ppcomp *out, unsigned n)
{
	struct ast_ppoint *q = arena_alloc(c->arena, sizeof(*q));

	*q = *p;
	q->comps = arena_alloc(c->arena, n * sizeof(*q->comps));
	memcpy(q->comps, out, n * sizeof(*q->comps));
	q->n = n;
	q->cap = n;
	q->optional = q->sufficient = false;
	q->cond = NULL;
	return q;
}

/* Add @q to the list @v (@n so far, capacity *@cap). */
static struct ast_ppoint **glob_push(struct sema_ctx *c, struct ast_ppoint **v, unsigned n,
				     size_t *cap, struct ast_ppoint *q)
{
	v = arena_grow(c->arena, v, n, cap, sizeof(*v));
	v[n] = q;
	return v;
}

unsigned sema_glob_builtins(struct sema_ctx *c, const struct ast_ppoint *p,
			    struct ast_ppoint ***points)
{
	static const char *const families[] = { "syscall", "nd_syscall" };
	struct ast_ppoint **v = NULL;
	struct ast_ppcomp out[8];
	struct glob_comp g[8];
	size_t cap = 0;
	unsigned i, f, r, n = 0, k, m;
	const char **names;

	for (i = 0; i < sizeof(glob_builtins) / sizeof(glob_builtins[0]); i++) {
		k = glob_parse(c, glob_builtins[i], g, 8);
		if (glob_match(p, 0, g, 0, k, out))
			v = glob_push(c, v, n++, &cap, glob_point(c, p, out, k));
	}
	/* syscall.NAME[.return], nd_syscall.NAME[.return] */
	for (r = 0; r < 2; r++) {
		m = sema_syscall_names(c, "*", r == 1, &names);
		for (f = 0; f < 2; f++)
			for (i = 0; i < m; i++) {
				g[0] = (struct glob_comp){ families[f], GA_NONE, NULL };
				g[1] = (struct glob_comp){ names[i], GA_NONE, NULL };
				g[2] = (struct glob_comp){ "return", GA_NONE, NULL };
				if (glob_match(p, 0, g, 0, 2 + r, out))
					v = glob_push(c, v, n++, &cap, glob_point(c, p, out, 2 + r));
			}
	}
	*points = v;
	return n;
}
