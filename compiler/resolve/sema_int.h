/*
 * sema_int.h - state shared by the files of pass 2 (not a public API).
 */
#ifndef KTAP_SEMA_INT_H
#define KTAP_SEMA_INT_H

#include "sema.h"

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
	bool changed;			/* inference made progress */
	bool report;			/* final round: report problems */
	unsigned alias_depth;
	bool syscall_warned;		/* user strings shown as addresses */
};

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

/* sema_elide.c: mark an alias body's (cloned) statements elidable; drop
   the alias assignments of @sp whose locals nothing reads. */
void sema_elide_mark(struct ast_stmt *s);
void sema_elide(struct sema_ctx *c, struct sem_probe *sp);

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
/* Whether the kernel's tracefs (or the fixture) has control file @file. */
bool sema_kernel_has(const char *file);

struct ast_stmt *ast_clone_stmt(struct arena *a, const struct ast_stmt *s);
struct ast_expr *ast_clone_expr(struct arena *a, const struct ast_expr *e);

#endif
