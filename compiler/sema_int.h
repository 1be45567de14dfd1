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
};

struct sem_func *sema_func_use(struct sema_ctx *c, const char *name);
struct sem_sym *sema_global(struct sema_ctx *c, const char *name);
int sema_builtin(const char *name);
const char *sema_suggest(struct sema_ctx *c, const char *name, bool funcs);
const char *sema_suggest_field(const struct tpf_event *ev, const char *name);
struct ast_stmt *ast_clone_stmt(struct arena *a, const struct ast_stmt *s);
struct ast_expr *ast_clone_expr(struct arena *a, const struct ast_expr *e);

#endif
