/*
 * sema_int.h - state shared by the files of pass 2 (not a public API).
 */
#ifndef KTAP_SEMA_INT_H
#define KTAP_SEMA_INT_H

#include "sema.h"
#include "kplan.h"
#include "target.h"

struct tpf_event;

struct diag_sink;

/* A probe alias: one of its names, and the declaration. */
struct sema_alias {
	const struct ast_ppoint *name;
	const struct ast_probe *decl;
};

struct sema_ctx {
	struct arena *arena;
	struct diag_sink *diag;
	const struct sema_input *in;
	struct sem_prog *prog;
	struct sema_alias *aliases;
	unsigned naliases;
	size_t acap;
	const struct ast_func **fdecls;	/* every function declared */
	unsigned nfdecls;
	unsigned nscript_fdecls;	/* the script's come first */
	size_t fdcap;
	/* While typing a body: the scope new locals go to. */
	struct sem_probe *probe;
	struct sem_func *func;
	/* While typing the operand of an @entry(): the entry event whose
	   fields its target variables are (it runs at the function's entry). */
	struct tpf_event *entry;
	/* Typing of a subexpression (sema_type.c's, set by sema_types()):
	   sema_target.c calls it for an index, an @entry operand or a
	   @cast's address, so it needs no call back into sema_type.c. */
	enum sem_type (*type_expr)(struct sema_ctx *c, struct ast_expr *e);
	bool changed;			/* inference made progress */
	bool report;			/* final round: report problems */
	unsigned alias_depth;
	bool syscall_warned;		/* user strings shown as addresses */
	bool tracefs_said;		/* "no tracefs to read" reported */
};

/*
 * With no tracefs to read, whether that was reported already: it is
 * reported once per run, not once per probe point (syscall.*).
 */
static inline bool sema_tracefs_said(struct sema_ctx *c)
{
	bool said = c->tracefs_said;

	if (*c->in->target->tracefs)
		return false;
	c->tracefs_said = true;
	return said;
}

struct sem_func *sema_func_use(struct sema_ctx *c, const char *name);
/* A new used function for declaration @f, named @name (sema.c). */
struct sem_func *sema_func_add(struct sema_ctx *c, const struct ast_func *f,
			       const char *name);

/* ---- sema_spec.c: functions reading memory through parameters ---- */

/* The memory read kernel_long() ... stand for, or AST_MEM_NONE. */
enum ast_mem sema_mem_fn(const char *name);
/* The declaration of script or tapset function @name, or NULL. */
const struct ast_func *sema_func_decl(struct sema_ctx *c, const char *name);
/*
 * Call @e of a function that reads memory through a parameter: its copy
 * for this call site, or NULL when the call needs none.  *@failed when
 * the call cannot be specialised (reported in the last round).
 */
struct sem_func *sema_spec_call(struct sema_ctx *c, struct ast_expr *e, bool *failed);
/* The canonical text of a fetchable expression, for names and -p2. */
const char *sema_spec_text(struct arena *a, const struct ast_expr *e);
struct sem_sym *sema_global(struct sema_ctx *c, const char *name);
int sema_builtin(const char *name);
const char *sema_suggest(struct sema_ctx *c, const char *name, bool funcs);
const char *sema_suggest_field(const struct tpf_event *ev, const char *name);
/* Whether builtin @id (sema_builtin()) has side effects (BF_SIDE). */
bool sema_builtin_has_side_effects(int id);

/*
 * Expression walker: @fn sees every expression node, parent first; it
 * returns 0 to go on inside it, 1 to skip its operands, -1 to stop the
 * whole walk (the walk then returns 1).
 */
typedef int (*sema_walk_fn)(struct ast_expr *e, void *arg);
int sema_walk_expr(struct ast_expr *e, sema_walk_fn fn, void *arg);
int sema_walk_stmt(struct ast_stmt *s, sema_walk_fn fn, void *arg);

/* sema_elide.c: mark an alias body's (cloned) statements elidable; drop
   the alias assignments of @sp whose locals nothing reads. */
void sema_elide_mark(struct ast_stmt *s);
void sema_elide(struct sema_ctx *c, struct sem_probe *sp);

/* sema_list.c: for -L, what @sp's alias body sets, before elision. */
void sema_list_vars(struct sema_ctx *c, struct sem_probe *sp);

/* ---- sema_target.c: target variables, called by typing ---- */
/* $var, $p->m, $var$, $$vars, @cast, @entry, &x, @var, @defined: @e
   resolved in place (fetch fields added to the probe's event), its type. */
enum sem_type sema_target_expr(struct sema_ctx *c, struct ast_expr *e);
/* kernel_string(A) ... on a fetchable address A: its type, or -1 when
   @e is not such a call. */
int sema_target_mem_call(struct sema_ctx *c, struct ast_expr *e);
/* probefunc() where the probed function is known: true when @e became
   its name (a constant). */
bool sema_target_probefunc(struct sema_ctx *c, struct ast_expr *e);
/* Before typing @e where a number is wanted: a string target becomes
   its pointer ($msg) or its address (&$r->tag). */
void sema_target_as_number(struct sema_ctx *c, struct ast_expr *e);

/* ---- sema_syscall.c: the syscall.NAME family (see there) ---- */
struct tpf_event;
/* The system calls matching glob @pattern: syscall tracepoints and tapset
   aliases syscall.NAME[.return]; sorted, in *@names (arena). */
unsigned sema_syscall_names(struct sema_ctx *c, const char *pattern, bool ret,
			    const char ***names);
/* The generic prologue of system call @name on its tracepoint @ev:
   stap's variables, every statement elidable. */
struct ast_stmt *sema_syscall_prologue(struct sema_ctx *c, const struct tpf_event *ev,
				       const char *name, bool ret, struct src_span at);
/* After elision: a syscall probe that reads user memory becomes a kprobe
   on the system call's wrapper, or (no kprobes) gets stap's fallback. */
void sema_syscall_fetch(struct sema_ctx *c, struct sem_probe *sp);

/* ---- sema_probe.c, for the dynamic events of sema_syscall.c ---- */
/* "FILE:L:C: POINT" of point @p, for the kernel's refusals at run time. */
const char *sema_pp_origin(struct sema_ctx *c, const struct ast_ppoint *p);

/* The dynamic event @kind of @ev (group and name are @ev's) on @target,
   defined for probe point @origin ("FILE:L:C: POINT"). */
struct kp_dynevent *sema_dynevent(struct sema_ctx *c, const struct tpf_event *ev,
				  enum kp_probe kind, const char *target, const char *origin);
/* Whether the kernel's tracefs (or the fixture) has control file @file. */
/*
 * An optional point ('?', '!') whose dynamic events the target cannot
 * create (target_has(), target.h) does not resolve, so a tapset alias
 * can fall back to a tracepoint; a plain point still resolves (its -p3
 * plan prints anywhere) and the kernel's refusal is reported at run time.
 *
 * SEMA_NO_TRACEFS(c): three "%s" arguments, " (why there is no tracefs
 * to read)" when the target has none, else "".
 */

#define SEMA_NO_TRACEFS(c) \
	*(c)->in->target->tracefs ? "" : " (", \
	*(c)->in->target->tracefs ? "" : (c)->in->target->tracefs_problem, \
	*(c)->in->target->tracefs ? "" : ")"

struct ast_stmt *ast_clone_stmt(struct arena *a, const struct ast_stmt *s);
struct ast_expr *ast_clone_expr(struct arena *a, const struct ast_expr *e);

#endif
