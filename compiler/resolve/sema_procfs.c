/*
 * sema_procfs.c - pass 2: procfs("NAME").read and .write probes: their
 * points' syntax, $value in their bodies, and the one rule on their
 * files.
 *
 * stap's procfs read probe fills the file's contents through $value:
 * `$value = "text"`, `$value .= "more"` (several appends make contents
 * longer than MAXSTRINGLEN, up to the probe's .maxsize(N)).  ktap keeps
 * those contents in the runtime, not in a string variable that
 * MAXSTRINGLEN would clip, so each use of $value becomes a builtin:
 *
 *	$value = E	__ktap_procfs_set(E)
 *	$value .= E	__ktap_procfs_append(E)
 *	$value		__ktap_procfs_get()
 *
 * In a write probe $value is what the writer wrote (__ktap_procfs_get()
 * reads the same buffer, which the runtime fills before the run).  As in
 * stap, a read probe's $value is only set and a write probe's only read.
 *
 * In: a procfs probe, its alias bodies folded in.  Out: the same body
 * without $value; any other assignment to it is a located error.
 * runtime/run_fifo.c serves the contents to the reader.  A file is a
 * FIFO that either readers or writers open, so one name may not have
 * both kinds of probe (sema_procfs_check()), as in stap's stapbpf.
 */
#include "sema_int.h"
#include "ast_walk.h"
#include "diag.h"

#include <string.h>

static bool pfs_is(const struct ast_ppoint *p, unsigned k, const char *name)
{
	return k < p->n && !strcmp(p->comps[k].name, name);
}

/* Component @k's argument as a number into *@v; false if it has none. */
static bool pfs_num(const struct ast_ppoint *p, unsigned k, int64_t *v)
{
	const struct ast_expr *a = k < p->n ? p->comps[k].arg : NULL;

	if (!a || a->kind != AST_NUM)
		return false;
	*v = a->num;
	return true;
}

/*
 * procfs[("NAME")][.umask(N)].read[.maxsize(N)] and ...write: stap's file
 * /proc/systemtap/MODULE/NAME ("command" without a name), which ktap
 * serves as a FIFO in its own directory (runtime/run_fifo.c), as stap's
 * stapbpf runtime does.
 */
int sema_procfs_point(struct sema_ctx *c, const struct ast_ppoint *p,
		      struct sema_pfs_point *out)
{
	const struct ast_expr *a = p->n ? p->comps[0].arg : NULL;
	unsigned k = 1;

	*out = (struct sema_pfs_point){ "command", 0, -1, false };
	if (p->n < 2 || !pfs_is(p, 0, "procfs"))
		return 0;
	if (p->n > 2 && pfs_is(p, 1, "umask") && pfs_num(p, 1, &out->umask))
		k = 2;
	if (a && (a->kind != AST_STR || !a->len || strchr(a->str, '/') ||
		  !strcmp(a->str, ".") || !strcmp(a->str, ".."))) {
		diag_error(c->diag, a->span, "a procfs file name is a non-empty string without '/'");
		return -1;
	}
	if (a)
		out->name = a->str;
	out->write = pfs_is(p, k, "write");
	if (p->comps[k].arg || (out->write ? p->n != k + 1 : !pfs_is(p, k, "read") ||
				p->n > k + 2 ||
				(p->n == k + 2 && (!pfs_is(p, k + 1, "maxsize") ||
						   !pfs_num(p, k + 1, &out->max) ||
						   out->max <= 0)))) {
		diag_error(c->diag, p->span, "expected procfs(\"NAME\").read, .read.maxsize(N) with N > 0, or .write");
		return -1;
	}
	return 1;
}

static bool pfs_is_value(const struct ast_expr *e)
{
	return e->kind == AST_TARGET && !strcmp(e->str, "$value") && e->chain.n == 0 &&
	       !e->chain.pretty;
}

/* @e becomes a call of @fn with @arg (NULL: none), in place. */
static void pfs_call(struct sema_ctx *c, struct ast_expr *e, const char *fn,
		     struct ast_expr *arg)
{
	struct src_span at = e->span;
	struct ast_expr *call = ast_named(c->arena, AST_CALL, fn, at);

	call->op_span = at;
	if (arg)
		ast_list_push(c->arena, &call->args, arg);
	*e = *call;
}

/* What the rewrite of one probe's $value carries. */
struct pfs_walk {
	struct sema_ctx *c;
	bool write;			/* a .write probe: $value is read only */
};

static int pfs_rewrite_fn(struct ast_expr *e, void *arg)
{
	struct pfs_walk *w = arg;
	struct sema_ctx *c = w->c;

	if ((e->kind == AST_ASSIGN || e->kind == AST_INCDEC) && pfs_is_value(e->a) && w->write) {
		diag_error(c->diag, e->op_span, "procfs $value variable is read-only in a procfs "
			   "write probe: it is what the writer wrote");
		return 1;
	}
	if (e->kind == AST_ASSIGN && pfs_is_value(e->a)) {
		if (e->op == AST_OP_SET)
			pfs_call(c, e, "__ktap_procfs_set", e->b);
		else if (e->op == AST_OP_CAT_SET)
			pfs_call(c, e, "__ktap_procfs_append", e->b);
		else {
			diag_error(c->diag, e->op_span,
				   "$value of a procfs probe is a string: assign it with '=' or '.='");
			return 1;	/* one message for it */
		}
		return 0;	/* the right-hand side may read $value too */
	}
	if (e->kind == AST_INCDEC && pfs_is_value(e->a)) {
		diag_error(c->diag, e->op_span,
			   "$value of a procfs probe is a string: assign it with '=' or '.='");
		return 1;
	}
	if (pfs_is_value(e) && !w->write)
		diag_error(c->diag, e->span, "procfs $value variable cannot be read in a procfs "
			   "read probe: set the file's contents with '$value = ...' or '$value .= ...'");
	else if (pfs_is_value(e))
		pfs_call(c, e, "__ktap_procfs_get", NULL);
	return 0;
}

/* The first procfs probe of the other kind than @sp on @sp's file. */
static const struct sem_probe *pfs_other(const struct sem_prog *p, const struct sem_probe *sp)
{
	unsigned i;

	for (i = 0; i < p->nprobes && p->probes[i] != sp; i++)
		if ((p->probes[i]->kind == SEM_P_PROCFS_READ ||
		     p->probes[i]->kind == SEM_P_PROCFS_WRITE) &&
		    p->probes[i]->kind != sp->kind &&
		    !strcmp(p->probes[i]->procfs_file, sp->procfs_file))
			return p->probes[i];
	return NULL;
}

void sema_procfs_check(struct sema_ctx *c)
{
	const struct sem_prog *p = c->prog;
	unsigned i;

	for (i = 0; i < p->nprobes; i++) {
		const struct sem_probe *sp = p->probes[i];

		if ((sp->kind == SEM_P_PROCFS_READ || sp->kind == SEM_P_PROCFS_WRITE) &&
		    pfs_other(p, sp)) {
			diag_error(c->diag, sp->span, "procfs file '%s' has both read and write probes: ktap serves it as a FIFO, which either readers or writers open (as stap's stapbpf runtime does)",
				   sp->procfs_file);
			return;
		}
	}
}

void sema_procfs_value(struct sema_ctx *c, struct sem_probe *sp)
{
	struct pfs_walk w = { c, sp->kind == SEM_P_PROCFS_WRITE };

	ast_walk_stmt(sp->body, pfs_rewrite_fn, &w);
	ast_walk_expr(sp->cond, pfs_rewrite_fn, &w);
}
