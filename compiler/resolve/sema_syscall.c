/*
 * sema_syscall.c - pass 2: the syscall.NAME[.return] probe family.
 *
 * Every system call of the running kernel has the tracepoints
 * syscalls:sys_enter_NAME and sys_exit_NAME, whose fields are the
 * arguments under the names of the kernel's SYSCALL_DEFINE (mostly stap's
 * names).  syscall.NAME is that tracepoint with a prologue setting stap's
 * variables (sema_syscall_prologue.c): name, each argument by its field
 * name and argstr (entry), name and retstr (return).  A tapset alias syscall.NAME (tapset/
 * syscalls*.stp: stap's exact variables and argstr) replaces the generic
 * prologue for its call.
 *
 * Tracepoints carry the arguments, not the memory they point to.  When a
 * syscall probe still reads user memory after elision (user_string() of
 * an argument, e.g. openat's filename), it becomes a kprobe on the
 * kernel's system-call wrapper (__x64_sys_NAME(const struct pt_regs
 * *regs)), each $field becoming the register it was passed in, and the
 * kernel fetches the string with the event.  On a kernel without kprobes
 * user_string_quoted() gives what stap gives for an unreadable address
 * (the address as 0x...), and any other read of user memory is an error
 * naming the variable.
 */
#include "sema_int.h"
#include "ast_walk.h"
#include "arena.h"
#include "diag.h"
#include "resolve_tpfmt.h"
#include "resolve_dwarf.h"
#include "resolve_sym.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* ---- the family's members ---- */

static int sc_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Is @p a tapset alias name syscall.NAME[.return] (NAME without globs)? */
static const char *sc_alias_name(const struct ast_ppoint *p, bool ret)
{
	if (p->n != (ret ? 3u : 2u) || strcmp(p->comps[0].name, "syscall") ||
	    p->comps[0].arg || p->comps[1].arg || strpbrk(p->comps[1].name, "*?[") ||
	    (ret && strcmp(p->comps[2].name, "return")))
		return NULL;
	return p->comps[1].name;
}

/*
 * Does a tapset alias of another name cover system call @tp, e.g.
 * syscall.pread on sys_enter_pread64?  A wildcard then lists only the
 * alias (stap's name), not the tracepoint's name as well.
 */
static bool sc_covered(struct sema_ctx *c, const char *tp, bool ret)
{
	const char *want = arena_printf(c->arena, "syscalls:sys_%s_%s",
					ret ? "exit" : "enter", tp);
	unsigned i, j;

	for (i = 0; i < c->naliases; i++) {
		const char *a = sc_alias_name(c->aliases[i].name, ret);
		const struct ast_pplist *pts = &c->aliases[i].decl->points;

		if (!a || !strcmp(a, tp))
			continue;
		for (j = 0; j < pts->n; j++) {
			const struct ast_ppoint *q = pts->v[j];
			const struct ast_expr *arg = q->n == 2 ? q->comps[1].arg : NULL;

			if (arg && arg->kind == AST_STR && !strcmp(q->comps[0].name, "kernel") &&
			    !strcmp(q->comps[1].name, "trace") && arg->len == strlen(want) &&
			    !memcmp(arg->str, want, arg->len))
				return true;
		}
	}
	return false;
}

bool sema_syscall_stap_known(const char *name)
{
	static const char *const known[] = {
#include "sema_syscall_stap.def"
	};

	return bsearch(&name, known, sizeof(known) / sizeof(known[0]), sizeof(known[0]),
		       sc_cmp) != NULL;
}

unsigned sema_syscall_names(struct sema_ctx *c, const char *pattern, bool ret,
			    const char ***names)
{
	const char *prefix = ret ? "sys_exit_" : "sys_enter_";
	bool wild = strpbrk(pattern, "*?[") != NULL;
	char **tps;
	const char **v;
	unsigned ntp, n = 0, i, out = 0;

	ntp = tpf_match(c->arena, c->in->target->tracefs, "syscalls",
			arena_printf(c->arena, "%s%s", prefix, pattern), &tps);
	v = arena_alloc(c->arena, (ntp + c->naliases + 1) * sizeof(*v));
	for (i = 0; i < ntp; i++) {
		v[n] = strchr(tps[i], ':') + 1 + strlen(prefix);
		if (!wild || !sc_covered(c, v[n], ret))
			n++;
	}
	for (i = 0; i < c->naliases; i++) {
		const char *a = sc_alias_name(c->aliases[i].name, ret);

		if (a && fnmatch(pattern, a, 0) == 0)
			v[n++] = a;
	}
	if (n)
		qsort(v, n, sizeof(*v), sc_cmp);
	for (i = 0; i < n; i++)
		if (!out || strcmp(v[out - 1], v[i]))
			v[out++] = v[i];
	*names = v;
	return out;
}

/* ---- user memory: a kprobe on the wrapper, or stap's fallback ---- */

/* The x86-64 system-call convention: argument k's struct pt_regs member. */
static const char *const sc_x86_regs[] = { "di", "si", "dx", "r10", "r8", "r9" };

struct sc_scan {
	struct sema_ctx *c;
	const struct tpf_event *ev;
	const struct ast_stmt *body;	/* the probe's, for its locals */
	unsigned nmem;			/* reads of user memory at a field */
	const struct ast_expr *first;	/* the first one */
	bool direct;			/* parameters by name, no pt_regs */
	bool quoted_only;		/* count only user_string_quoted() */
	bool in_entry;			/* a return: only @entry() operands */
	const char *regs_var;		/* the wrapper's pt_regs parameter */
};

/* The walk of @s's kind over @e: all of it, or in a return probe the
   operands of its @entry()s, which the entry's event evaluates. */
struct sc_walk {
	struct sc_scan *s;
	ast_walk_fn fn;
};

static int sc_entry_only_fn(struct ast_expr *e, void *arg)
{
	struct sc_walk *w = arg;

	if (e->kind != AST_ENTRY)
		return 0;
	ast_walk_expr(e->a, w->fn, w->s);
	return 1;
}

static void sc_walk_expr(struct sc_scan *s, struct ast_expr *e, ast_walk_fn fn)
{
	struct sc_walk w = { s, fn };

	if (s->in_entry)
		ast_walk_expr(e, sc_entry_only_fn, &w);
	else
		ast_walk_expr(e, fn, s);
}

static void sc_walk(struct sc_scan *s, struct sem_probe *sp, ast_walk_fn fn)
{
	struct sc_walk w = { s, fn };

	if (s->in_entry) {
		ast_walk_stmt(sp->body, sc_entry_only_fn, &w);
		ast_walk_expr(sp->cond, sc_entry_only_fn, &w);
	} else {
		ast_walk_stmt(sp->body, fn, s);
		ast_walk_expr(sp->cond, fn, s);
	}
}

static int sc_arg_index(const struct tpf_event *ev, const char *name);
static unsigned sc_nargs(const struct tpf_event *ev);
static const struct tpf_field *sc_nth_arg(const struct tpf_event *ev, unsigned n);

/* Is @a an argument of the call as it came in: $field, or pointer_arg(N)
   and the like (sema_regs.c reads them from the wrapper's regs)? */
static bool sc_is_arg_value(struct sc_scan *s, const struct ast_expr *a)
{
	unsigned n;

	if (a->kind == AST_TARGET)
		return a->chain.n == 0 && sc_arg_index(s->ev, a->str + 1) >= 0;
	n = sema_regs_arg_number(s->c, a);
	return n >= 1 && n <= sc_nargs(s->ev);
}

struct sc_local {
	const char *name;
	const struct ast_expr *value;	/* its one plain assignment's */
	unsigned writes;		/* assignments, ++ and -- */
};

static int sc_local_fn(struct ast_expr *e, void *arg)
{
	struct sc_local *l = arg;
	const struct ast_expr *v = e->kind == AST_ASSIGN || e->kind == AST_INCDEC ? e->a : NULL;

	if (!v || v->kind != AST_VAR || strcmp(v->str, l->name))
		return 0;
	if (!l->writes++ && e->kind == AST_ASSIGN && e->op == AST_OP_SET)
		l->value = e->b;
	return 0;
}

/* Is "@name = ..." a statement of @st's blocks themselves, run whenever
   the body is (not under an if or a loop)? */
static bool sc_set_always(const struct ast_stmt *st, const char *name)
{
	const struct ast_expr *e = st && st->kind == AST_S_EXPR ? st->e : NULL;
	unsigned i;

	if (e)
		return e->kind == AST_ASSIGN && e->a->kind == AST_VAR && !strcmp(e->a->str, name);
	if (!st || st->kind != AST_S_BLOCK)
		return false;
	for (i = 0; i < st->body.n; i++)
		if (sc_set_always(st->body.v[i], name))
			return true;
	return false;
}

/*
 * The argument @a stands for: @a itself, or for a local of the probe
 * that is only ever set once, to one, by a statement that always runs
 * (the tapset's "buf_uaddr = $buf"); NULL for anything else.
 */
static const struct ast_expr *sc_arg_value(struct sc_scan *s, const struct ast_expr *a)
{
	struct sc_local l = { NULL, NULL, 0 };

	if (a->kind == AST_VAR && s->body) {
		l.name = a->str;
		ast_walk_stmt((struct ast_stmt *)s->body, sc_local_fn, &l);
		a = l.writes == 1 && sc_set_always(s->body, l.name) ? l.value : NULL;
	}
	return a && sc_is_arg_value(s, a) ? a : NULL;
}

/* The argument of call @e through which a function of the ktap
   language (a tapset decoder such as _struct_timespec_u()) reads memory
   when it is an argument of the system call (sc_arg_value()), or NULL. */
static struct ast_expr *sc_decoder_arg(struct sc_scan *s, const struct ast_expr *e)
{
	const struct ast_func *f = sema_func_decl_n(s->c, e->str, e->args.n);
	unsigned i;

	if (!f || !f->body)
		return NULL;
	for (i = 0; i < e->args.n && i < f->nparams; i++)
		if (sc_arg_value(s, e->args.v[i]) && sema_spec_reads_param(s->c, f, i))
			return e->args.v[i];
	return NULL;
}

/*
 * The family of stap's decoder @name of a struct in user memory: the
 * name up to its "_u" ("_struct_timespec_u", "_stp_sigset_u"; the
 * family of "_struct_sockaddr_u_ip_addr" is "_struct_sockaddr_u"), for
 * a tapset-private name ("_" first); NULL for any other name.
 */
static const char *sc_decoder_family(struct arena *a, const char *name)
{
	const char *u;

	if (name[0] != '_')
		return NULL;
	for (u = strstr(name + 1, "_u"); u; u = strstr(u + 1, "_u"))
		if (u[2] == '\0' || u[2] == '_')
			return arena_strndup(a, name, (size_t)(u + 2 - name));
	return NULL;
}

/*
 * Is @e a call of one of stap's decoders of a struct in user memory
 * (sc_decoder_family(), a function returning a string)?  They give
 * "NULL" for a null address and the address for memory they cannot
 * read: without kprobes, that is what they show
 * (tapset/aux_syscalls_structs.stp).
 */
static bool sc_is_struct_decoder(struct sc_scan *s, const struct ast_expr *e)
{
	const struct ast_func *f = sema_func_decl_n(s->c, e->str, e->args.n);

	return f && f->type == AST_TYPE_STRING && sc_decoder_family(s->c->arena, e->str) &&
	       sc_decoder_arg(s, e);
}

/* The address at which @e reads user memory: user_string(ARG),
   user_string_n(ARG, N), user_long(ARG) ... or a decoder's call
   (sc_decoder_arg()), of an argument (sc_arg_value()), not redefined by
   the script; NULL for anything else.  With quoted_only, only the reads
   that show the address where they cannot be made (sc_fallback_fn()). */
static struct ast_expr *sc_mem_addr(struct sc_scan *s, const struct ast_expr *e)
{
	const char *f = e->str;

	if (e->kind != AST_CALL || e->args.n < 1)
		return NULL;
	if ((!strncmp(f, "user_", 5) || !strcmp(f, "__user_buffer")) &&
	    (sema_mem_arities(f) & (1u << e->args.n)) &&
	    (!s->quoted_only || (!strcmp(f, "user_string_quoted") && e->args.n == 1)) &&
	    sc_arg_value(s, e->args.v[0]) && !sema_defines_func(s->c, f))
		return e->args.v[0];
	if (s->quoted_only && !sc_is_struct_decoder(s, e))
		return NULL;
	return sc_decoder_arg(s, e);
}

static bool sc_is_mem(struct sc_scan *s, const struct ast_expr *e)
{
	return sc_mem_addr(s, e) != NULL;
}

static int sc_scan_fn(struct ast_expr *e, void *arg)
{
	struct sc_scan *s = arg;

	if (!sc_is_mem(s, e))
		return 0;
	if (!s->nmem++)
		s->first = e;
	return 1;
}

/* Argument position of field @name (0 for the first argument), or -1. */
static int sc_arg_index(const struct tpf_event *ev, const char *name)
{
	unsigned i;
	int k = 0;

	for (i = 0; i < ev->nfields; i++) {
		if (!sema_syscall_is_arg(&ev->fields[i]))
			continue;
		if (!strcmp(ev->fields[i].name, name))
			return k;
		k++;
	}
	return -1;
}

/* How many arguments system call @ev has. */
static unsigned sc_nargs(const struct tpf_event *ev)
{
	unsigned i, k = 0;

	for (i = 0; i < ev->nfields; i++)
		k += sema_syscall_is_arg(&ev->fields[i]);
	return k;
}

/* The call's argument @n (1 for the first). */
static const struct tpf_field *sc_nth_arg(const struct tpf_event *ev, unsigned n)
{
	unsigned i, k = 0;

	for (i = 0; i < ev->nfields; i++)
		if (sema_syscall_is_arg(&ev->fields[i]) && ++k == n)
			return &ev->fields[i];
	return NULL;
}

/* Without kprobes: user_string_quoted($p) is "0x..." (stap's text for an
   address it cannot read), a struct decoder's call what its family's
   FAMILY_unread() gives of the same arguments where the tapset defines
   one, else "NULL" or "0x..." (__sc_unread_u()); nothing else should be
   left. */
static int sc_fallback_fn(struct ast_expr *e, void *arg)
{
	struct sc_scan *s = arg;
	struct ast_expr *t;
	const char *unread;
	bool quoted;

	s->quoted_only = true;
	t = sc_mem_addr(s, e);
	if (!t)
		return 0;
	quoted = !strcmp(e->str, "user_string_quoted");
	unread = quoted ? "" : arena_printf(s->c->arena, "%s_unread",
					     sc_decoder_family(s->c->arena, e->str));
	if (!quoted && sema_func_decl_n(s->c, unread, e->args.n)) {
		e->str = unread;	/* its own text, of its own arguments */
		return 1;
	}
	e->str = quoted ? "sprintf" : "__sc_unread_u";
	e->args.n = 0;
	if (quoted)
		ast_list_push(s->c->arena, &e->args, ast_str(s->c->arena, "0x%x", 4, e->span));
	ast_list_push(s->c->arena, &e->args, t);
	return 1;
}

/* With the kprobe: $field is the register its argument came in. */
static int sc_rewrite_fn(struct ast_expr *e, void *arg)
{
	struct sc_scan *s = arg;
	int k;

	if (sc_is_mem(s, e) && e->args.v[0]->kind == AST_VAR)	/* its $field or N_arg(K) */
		e->args.v[0] = ast_clone_expr(s->c->arena, sc_arg_value(s, e->args.v[0]));
	if (e->kind == AST_CALL && !strcmp(e->str, "user_string_quoted") && e->args.n == 1 &&
	    sc_is_mem(s, e)) {
		/* $p ? "\"" . text_str(user_string($p)) . "\"" : "0x0", as stap
		   quotes it (and prints the NULL it cannot read) */
		struct arena *a = s->c->arena;
		struct ast_expr *q = ast_str(a, "\"", 1, e->span);
		struct ast_expr *p = e->args.v[0], *in;

		in = sema_call(s->c, "text_str", sema_call(s->c, "user_string", p, NULL, e->span),
			     NULL, e->span);
		in = ast_binary(a, AST_BINARY, AST_OP_CONCAT,
				ast_binary(a, AST_BINARY, AST_OP_CONCAT, q, in, e->span), q, e->span);
		*e = *ast_ternary(a, ast_clone_expr(a, p), in, ast_str(a, "0x0", 3, e->span));
		return 0;
	}
	if (e->kind != AST_TARGET || (k = sc_arg_index(s->ev, e->str + 1)) < 0 || k > 5)
		return 0;
	if (s->direct)
		return 1;
	e->str = s->regs_var;
	ast_chain_member(s->c->arena, &e->chain, sc_x86_regs[k], e->span);
	return 1;
}

/*
 * The kernel's wrapper of system call @name that a kprobe can fetch the
 * arguments from, into @uf; false when there is none.
 */
static bool sc_wrapper(struct sema_ctx *c, struct sc_scan *s, const char *name,
		       struct fetch_site *uf)
{
	const char **params;
	char err[256];

	if (!c->in->up || !target_has(c->in->target, TGT_KPROBES))
		return false;
	if (rsym_find_kernel(c->in->up, c->arena, NULL,
			   arena_printf(c->arena, "__x64_sys_%s", name), uf, err,
			   sizeof(err)) == 0) {
		/* "__unused": 6.1's BTF may give the call's COND_SYSCALL
		   stub first (connect, sendto, futex ...), the same pt_regs */
		if (rdwarf_params(c->arena, uf, &params) != 1 ||
		    (strcmp(params[0], "regs") && strcmp(params[0], "__unused")))
			return false;
		s->regs_var = arena_printf(c->arena, "$%s", params[0]);
		return true;
	}
	/* Without wrappers, the function has the tracepoint's parameters. */
	s->direct = rsym_find_kernel(c->in->up, c->arena, NULL,
				   arena_printf(c->arena, "sys_%s", name), uf, err,
				   sizeof(err)) == 0;
	return s->direct;
}

/* The alias local whose assignment reads user memory, for the message. */
static const char *sc_owner_of(struct sc_scan *s, struct ast_stmt *st)
{
	unsigned i;
	const char *v;

	if (!st)
		return NULL;
	if (st->kind == AST_S_EXPR && st->e->kind == AST_ASSIGN && st->e->a->kind == AST_VAR) {
		struct sc_scan probe = *s;

		probe.nmem = 0;
		sc_walk_expr(&probe, st->e->b, sc_scan_fn);
		if (probe.nmem)
			return st->e->a->str;
	}
	if ((v = sc_owner_of(s, st->s1)) || (v = sc_owner_of(s, st->s2)))
		return v;
	for (i = 0; i < st->body.n; i++)
		if ((v = sc_owner_of(s, st->body.v[i])))
			return v;
	return NULL;
}

/* The kprobe on the wrapper @uf for probe @sp (@sfx: "" or "e", an entry's). */
static struct tpf_event *sc_kprobe_event(struct sema_ctx *c, struct sem_probe *sp,
					 struct fetch_site *uf, const char *sfx)
{
	struct tpf_event *ev = arena_alloc(c->arena, sizeof(*ev));

	memset(ev, 0, sizeof(*ev));
	ev->system = "ktap_$PID";
	/* named after the probe's index, as kernel.function() probes are */
	ev->name = arena_printf(c->arena, "%.40s_%u%s", uf->name, sp->index, sfx);
	ev->dyn = sema_point_dynevent(c, ev, KP_KPROBE, uf->name, sema_point_origin(c, sp->point));
	ev->dyn_func = uf;
	return ev;
}

/* @sp becomes a kprobe on @uf, its $fields the registers. */
static void sc_promote(struct sema_ctx *c, struct sem_probe *sp, struct sc_scan *s,
		       struct fetch_site *uf)
{
	sc_walk(s, sp, sc_rewrite_fn);
	sp->event = sc_kprobe_event(c, sp, uf, "");
	if (!s->direct) {
		sp->syscall_regs = sc_x86_regs;
		sp->syscall_regs_var = s->regs_var;
	}
	sp->pp = arena_printf(c->arena, "kernel.function(\"%s\").call", uf->name);
}

/*
 * A return probe @sp whose @entry() operands read user memory at the
 * call's arguments: its entry is the kprobe on the wrapper @uf (not the
 * sys_enter tracepoint), which fetches them; paired per thread as
 * before.  The return stays the sys_exit tracepoint.
 */
static void sc_promote_entry(struct sema_ctx *c, struct sem_probe *sp, struct sc_scan *s,
			     struct fetch_site *uf)
{
	struct tpf_event *ret = arena_alloc(c->arena, sizeof(*ret));

	sc_walk(s, sp, sc_rewrite_fn);
	*ret = *sp->event;	/* the tracepoint's, shared: this probe's own entry */
	ret->dyn_entry = sc_kprobe_event(c, sp, uf, "e");
	sp->event = ret;
	if (!s->direct) {
		sp->syscall_regs = sc_x86_regs;
		sp->syscall_regs_var = s->regs_var;
	}
}

/*
 * READ(@entry(A), K...) in a return probe, READ a user-memory reader, A
 * an argument whose type points to const (the call's input: the kernel
 * does not write it), K constants: @entry(READ(A, K...)), read by the
 * entry, where the kernel can fetch it; what it reads is what the call
 * was given, as at the return (stap reads it there, through the saved
 * address; no event can after the entry's).  Anything else stays, and
 * says why it cannot be read.
 */
static int sc_entry_move_fn(struct ast_expr *e, void *arg)
{
	struct sc_scan *s = arg;
	struct ast_expr *a = e->kind == AST_CALL && e->args.n ? e->args.v[0] : NULL;
	const struct tpf_field *f;
	struct ast_expr *read;
	unsigned i, n;

	if (!a || a->kind != AST_ENTRY || strncmp(e->str, "user_", 5) ||
	    !(sema_mem_arities(e->str) & (1u << e->args.n)) || sema_defines_func(s->c, e->str))
		return 0;
	for (i = 1; i < e->args.n; i++)
		if (e->args.v[i]->kind != AST_NUM && e->args.v[i]->kind != AST_STR)
			return 0;
	a = a->a;
	n = a->kind == AST_TARGET && !a->chain.n ? (unsigned)(sc_arg_index(s->ev, a->str + 1) + 1)
						 : sema_regs_arg_number(s->c, a);
	f = n >= 1 && n <= sc_nargs(s->ev) ? sc_nth_arg(s->ev, n) : NULL;
	if (!f)
		return 0;
	if (strncmp(f->ctype, "const ", 6) != 0 || !strchr(f->ctype, '*')) {
		const char *at = ast_expr_text(s->c->arena, a);

		diag_error(s->c->diag, e->span, "%s() reads user memory through @entry(%s) at a "
			   "system call's return, where no event can read it, and the call may "
			   "write there (%s is '%s', not const): read it inside @entry() for what "
			   "it held before the call, @entry(%s(%s%s))", e->str, at, at, f->ctype,
			   e->str, at, e->args.n > 1 ? ", ..." : "");
		*e = *ast_str(s->c->arena, "", 0, e->span);	/* said once */
		return 1;
	}
	read = ast_clone_expr(s->c->arena, e);
	read->args.v[0] = a;
	*e = *ast_expr_new(s->c->arena, AST_ENTRY, e->span);
	e->a = read;
	return 1;
}

/* "variable 'V' of syscall.NAME" or "F()": what reads user memory. */
static const char *sc_what(struct sema_ctx *c, struct sc_scan *s, struct sem_probe *sp,
			   const char *name)
{
	const char *var = sc_owner_of(s, sp->body);

	if (var)
		return arena_printf(c->arena, "variable '%s' of syscall.%s", var, name);
	return arena_printf(c->arena, "%s()", s->first->str);
}

/* Count the reads of user memory of @sp into @s (quoted ones only, or all). */
static void sc_count(struct sc_scan *s, struct sem_probe *sp, bool quoted_only)
{
	s->nmem = 0;
	s->first = NULL;
	s->quoted_only = quoted_only;
	sc_walk(s, sp, sc_scan_fn);
}

void sema_syscall_fetch(struct sema_ctx *c, struct sem_probe *sp)
{
	struct sc_scan s = { .c = c, .ev = sp->event, .body = sp->body };
	struct fetch_site *uf;
	const char *name, *why;

	if (!sp->syscall || !sp->event || sp->event->dyn ||
	    strcmp(sp->event->system, "syscalls"))
		return;
	if (!strncmp(sp->event->name, "sys_enter_", 10)) {
		name = sp->event->name + 10;
	} else if (!strncmp(sp->event->name, "sys_exit_", 9) && *c->in->target->tracefs) {
		name = sp->event->name + 9;
		s.in_entry = true;	/* the @entry() operands, on the entry's event */
		s.ev = tpf_load(c->arena, c->in->target->tracefs, "syscalls",
				arena_printf(c->arena, "sys_enter_%s", name));
		if (!s.ev)
			return;
		ast_walk_stmt(sp->body, sc_entry_move_fn, &s);
		ast_walk_expr(sp->cond, sc_entry_move_fn, &s);
	} else {
		return;
	}
	sc_count(&s, sp, false);
	if (!s.nmem)
		return;
	uf = arena_alloc(c->arena, sizeof(*uf));
	if (sc_wrapper(c, &s, name, uf)) {
		if (s.in_entry)
			sc_promote_entry(c, sp, &s, uf);
		else
			sc_promote(c, sp, &s, uf);
		return;
	}
	why = c->in->up && target_has(c->in->target, TGT_KPROBES) ?
		arena_printf(c->arena, "BTF describes no __x64_sys_%s or sys_%s for a kprobe",
			     name, name) :
		"this kernel has no kprobes (kprobe_events)";
	sc_count(&s, sp, true);
	if (s.nmem && !c->syscall_warned) {
		c->syscall_warned = true;
		diag_warning(c->diag, sp->span, "%s: %s, so strings and structs at user addresses in "
			     "system-call arguments show as the address (0x...), as stap shows "
			     "an unreadable one", sc_what(c, &s, sp, name), why);
	}
	sc_walk(&s, sp, sc_fallback_fn);
	sc_count(&s, sp, false);
	if (!s.nmem)
		return;
	diag_error(c->diag, sc_owner_of(&s, sp->body) ? sp->span : s.first->span,
		   "%s reads user memory at %s, but syscall tracepoints record only "
		   "the address and %s to fetch it", sc_what(c, &s, sp, name),
		   ast_expr_text(c->arena, sc_mem_addr(&s, s.first)), why);
}

/*
 * stap's variables of process().syscall and .syscall.return
 * (tapset/process.stp's aliases on the raw_syscalls tracepoints):
 * $syscall is the record's id, $arg1 .. $arg6 its args[0] .. args[5],
 * $return its ret.  @e is renamed in place, in those probes only.
 */
void sema_process_syscall_var(struct sema_ctx *c, const struct tpf_event *ev,
			      struct ast_expr *e)
{
	const struct sem_probe *pr = c->func ? c->func->site : c->probe;
	const char *fam = pr && pr->family ? strstr(pr->family, ".syscall") : NULL;
	struct ast_comp *ix;
	char *end;
	long n;

	if (!fam || (strcmp(fam, ".syscall") != 0 && strcmp(fam, ".syscall.return") != 0) ||
	    !ev->system || strcmp(ev->system, "raw_syscalls") != 0)
		return;
	if (!strcmp(e->str, "$syscall")) {
		e->str = "$id";
	} else if (!strcmp(e->str, "$return")) {
		e->str = "$ret";
	} else if (!strncmp(e->str, "$arg", 4) && (n = strtol(e->str + 4, &end, 10)) >= 1 &&
		   n <= 6 && !*end && !e->chain.n && tpf_field(ev, "args")) {
		e->str = "$args";
		ix = arena_alloc(c->arena, sizeof(*ix));
		ix->is_index = true;
		ix->span = e->span;
		ix->index = ast_num(c->arena, n - 1, e->span);
		e->chain.v = ix;
		e->chain.n = 1;
		e->chain.cap = 1;
	}
}
