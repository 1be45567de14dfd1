/*
 * ast.h - the abstract syntax tree produced by pass 1.
 *
 * Every node lives in the compilation's arena (see arena.h): nothing here
 * is freed individually.  Nodes carry the span of the source they came
 * from.  Expressions use one uniform node type whose fields are used
 * according to the kind (documented at each kind), which keeps the
 * constructors, the printer and the tree comparison small.
 *
 * Parentheses are not represented: the -p1 printer puts back exactly the
 * ones precedence requires, so printing and re-parsing gives the same tree.
 */
#ifndef KTAP_AST_H
#define KTAP_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "source.h"

struct arena;

enum ast_op {
#define OP(name, spelling, prec) AST_OP_##name,
#include "ast.def"
#undef OP
	AST_OP__COUNT
};

const char *ast_op_spelling(enum ast_op op);
int ast_op_prec(enum ast_op op);

/* Declared types of function parameters and return values. */
enum ast_type { AST_TYPE_NONE, AST_TYPE_LONG, AST_TYPE_STRING };

enum ast_expr_kind {
	AST_NUM,	/* num */
	AST_STR,	/* str, len (may hold NUL bytes) */
	AST_VAR,	/* str: a variable or array name */
	AST_INDEX,	/* a: VAR or HIST; args: keys (AST_STAR in slices) */
	AST_CALL,	/* str: function; args */
	AST_TARGET,	/* str: "$name" / "$$parms"; chain */
	AST_CAST,	/* @cast(a, str [, module]); chain */
	AST_ATVAR,	/* @var(str [, module]); chain */
	AST_AUTOCAST,	/* a->member...: a is any expression; chain */
	AST_UNARY,	/* op a */
	AST_BINARY,	/* a op b (arithmetic, logic, comparison, =~, .) */
	AST_TERNARY,	/* a ? b : c */
	AST_ASSIGN,	/* a op b (=, +=, ..., <<<) */
	AST_INCDEC,	/* op a (PRE/POST INC/DEC) */
	AST_IN,		/* [args] in a  (a: VAR or HIST) */
	AST_STAT,	/* op(a): @count ... @variance */
	AST_HIST,	/* op(a [, args: lo, hi, step]) */
	AST_DEFINED,	/* @defined(a) */
	AST_ENTRY,	/* @entry(a) */
	AST_PROBEWRITE,	/* @probewrite(a): pass 2 makes it 0 or 1 */
	AST_PERF,	/* @perf(str) */
	AST_DEREF,	/* op(a: size, b: address): @kderef/@uderef */
	AST_REGISTER,	/* op(a): @kregister/@uregister */
	AST_EMBEDDED,	/* %{ str %} */
	AST_STAR,	/* '*' wildcard key of an array slice */
};

struct ast_expr;
struct sem_sym;

struct ast_list {
	struct ast_expr **v;
	unsigned n;
	size_t cap;
};

/* One step of a target-variable chain: ->name or [index]. */
struct ast_comp {
	bool is_index;
	const char *name;		/* ->name */
	struct ast_expr *index;		/* [index] */
	struct src_span span;
};

struct ast_chain {
	struct ast_comp *v;
	unsigned n;
	size_t cap;
	unsigned pretty;		/* trailing $ (1) or $$ (2) */
	/* Set by pass 2 in $$vars: a pointer's own value, even a char *'s. */
	bool raw;
	/* Set by pass 2 when the target is the argument of kernel_string(),
	   user_string(), kernel_long() ...: read memory at its value
	   (AST_MEM_ADDR: the operand of '&', its address; kernel only). */
	enum ast_mem { AST_MEM_NONE, AST_MEM_KSTRING, AST_MEM_USTRING, AST_MEM_S64,
		       AST_MEM_S32, AST_MEM_S16, AST_MEM_S8, AST_MEM_U64, AST_MEM_U32,
		       AST_MEM_U16, AST_MEM_U8, AST_MEM_ADDR } mem;
	/* ... and that reader is a user_*() one of a number: a kprobe
	   reads user memory ("+u0(...)"). */
	bool user_mem;
};

struct ast_expr {
	enum ast_expr_kind kind;
	enum ast_op op;
	struct src_span span;		/* the whole expression */
	struct src_span op_span;	/* the operator, for runtime errors */
	int64_t num;
	const char *str;
	size_t len;
	const char *module;
	struct ast_expr *a, *b, *c;
	struct ast_list args;
	struct ast_chain chain;
	/* Filled by pass 2 (sema); ignored by printing and comparison. */
	struct sem_sym *sym;		/* the variable a VAR/INDEX/IN names */
	int type;			/* enum sem_type of the value */
	int ref;			/* CALL: function or builtin; TARGET: field */
	/* A TARGET that a kernel_string() (2) or user_string() (1) read:
	   the string of a fetch argument, which the kernel may have failed
	   to copy; then it is @on_fault (stap's forms with an error text,
	   the _nofault ones), or with none a run-time error, as in stap. */
	unsigned char str_read;
	const struct ast_expr *on_fault;
};

enum ast_stmt_kind {
	AST_S_BLOCK,	/* body */
	AST_S_EXPR,	/* e */
	AST_S_NULL,	/* ; */
	AST_S_IF,	/* if (e) s1 [else s2] */
	AST_S_WHILE,	/* while (e) s1 */
	AST_S_FOR,	/* for (e; e2; e3) s1: each of e, e2, e3 optional */
	AST_S_FOREACH,	/* fe */
	AST_S_BREAK,
	AST_S_CONTINUE,
	AST_S_NEXT,
	AST_S_RETURN,	/* [e] */
	AST_S_DELETE,	/* e */
	AST_S_TRY,	/* try s1 catch [(name)] s2 */
	AST_S_EMBEDDED,	/* %{ name %} */
};

struct ast_stmt;

struct ast_stmt_list {
	struct ast_stmt **v;
	unsigned n;
	size_t cap;
};

/* foreach ([value =] [k1, k2] in array[slice] [@stat][+-] limit N) */
struct ast_foreach {
	struct ast_expr *value;		/* VAR or NULL */
	struct ast_list keys;		/* VARs */
	bool bracketed;			/* keys written in [ ] */
	struct ast_expr *array;		/* VAR or HIST */
	struct ast_list slice;		/* keys after the array, or empty */
	bool has_slice;
	int sort_key;			/* 0: none; -1: value; k: key k (1-based) */
	int sort_dir;			/* +1 ascending, -1 descending */
	enum ast_op sort_stat;		/* AST_OP_COUNT... for @stat+, else 0 */
	bool has_sort_stat;
	struct ast_expr *limit;
	struct ast_stmt *body;
};

struct ast_stmt {
	enum ast_stmt_kind kind;
	struct src_span span;
	struct ast_expr *e, *e2, *e3;
	struct ast_stmt *s1, *s2;
	struct ast_stmt_list body;
	const char *name;		/* catch variable, embedded code */
	struct ast_foreach *fe;
	/* Pass 2: a statement of a probe alias's body, which may be elided
	   when it only assigns a local that nothing reads (sema_elide.c). */
	bool elidable;
};

/* One component of a probe point: name [ (arg) ]. */
struct ast_ppcomp {
	const char *name;		/* may contain wildcards */
	struct ast_expr *arg;		/* AST_NUM or AST_STR, or NULL */
	struct src_span span;
};

struct ast_ppoint {
	struct ast_ppcomp *comps;
	unsigned n;
	size_t cap;
	bool optional;			/* ? */
	bool sufficient;		/* ! */
	struct ast_expr *cond;		/* if (cond), or NULL */
	struct src_span span;
};

struct ast_pplist {
	struct ast_ppoint **v;
	unsigned n;
	size_t cap;
};

enum ast_probe_kind {
	AST_PROBE,		/* probe POINTS { } */
	AST_ALIAS,		/* probe NAME = POINTS { }   (prologue) */
	AST_EPILOGUE,		/* probe NAME += POINTS { }  (epilogue) */
};

struct ast_probe {
	enum ast_probe_kind kind;
	struct ast_pplist names;	/* aliases: the names defined */
	struct ast_pplist points;	/* what is probed */
	struct ast_stmt *body;
	/* stap 4.4's "probe NAME = POINTS { PROLOGUE }, { EPILOGUE }": the
	   epilogue, run after the user's handler (an AST_ALIAS), or NULL */
	struct ast_stmt *epilogue;
	struct src_span span;
};

struct ast_global {
	const char *name;
	int64_t size;			/* [size], 0 when not given */
	bool wrap;			/* % */
	bool is_array;			/* declared with [size] */
	bool private_;
	struct ast_expr *init;		/* AST_NUM / AST_STR or NULL */
	struct src_span span;
};

struct ast_param {
	const char *name;
	enum ast_type type;
	struct src_span span;
};

struct ast_func {
	const char *name;
	enum ast_type type;
	struct ast_param *params;
	unsigned nparams;
	size_t pcap;
	struct ast_stmt *body;		/* NULL when embedded */
	const char *embedded;		/* %{ code %} body */
	bool private_;
	/* stap's runtime overloading: among functions of one name and arity
	   the lowest priority runs first and "next" goes on to the next;
	   without ":PRIORITY" a script's are 0, a tapset's 1 (pass 2) */
	bool has_priority;
	int64_t priority;
	struct src_span span;
};

enum ast_decl_kind { AST_D_PROBE, AST_D_GLOBAL, AST_D_FUNC, AST_D_EMBEDDED };

struct ast_decl {
	enum ast_decl_kind kind;
	struct ast_probe *probe;
	struct ast_global *global;
	struct ast_func *func;
	const char *embedded;
	struct src_span span;
};

/* One parsed file, its declarations in source order. */
struct ast_file {
	const char *name;
	uint32_t file;			/* id in the src_map */
	bool library;			/* from the tapset */
	struct ast_decl **decls;
	unsigned n;
	size_t cap;
};

/* ---- constructors (ast.c): thin, used by the grammar actions ---- */

struct ast_expr *ast_expr_new(struct arena *a, enum ast_expr_kind kind,
			      struct src_span span);
struct ast_expr *ast_num(struct arena *a, int64_t v, struct src_span span);
struct ast_expr *ast_str(struct arena *a, const char *s, size_t len,
			 struct src_span span);
struct ast_expr *ast_named(struct arena *a, enum ast_expr_kind kind,
			   const char *name, struct src_span span);
struct ast_expr *ast_unary(struct arena *a, enum ast_op op,
			   struct ast_expr *x, struct src_span op_span);
struct ast_expr *ast_binary(struct arena *a, enum ast_expr_kind kind,
			    enum ast_op op, struct ast_expr *l,
			    struct ast_expr *r, struct src_span op_span);
struct ast_expr *ast_ternary(struct arena *a, struct ast_expr *c,
			     struct ast_expr *t, struct ast_expr *f);
struct ast_expr *ast_postfix(struct arena *a, enum ast_op op,
			     struct ast_expr *x, struct src_span op_span);

void ast_list_push(struct arena *a, struct ast_list *l, struct ast_expr *e);
void ast_chain_member(struct arena *a, struct ast_chain *c, const char *name,
		      struct src_span span);
void ast_chain_index(struct arena *a, struct ast_chain *c,
		     struct ast_expr *index, struct src_span span);

struct ast_stmt *ast_stmt_new(struct arena *a, enum ast_stmt_kind kind,
			      struct src_span span);
void ast_stmt_push(struct arena *a, struct ast_stmt_list *l,
		   struct ast_stmt *s);

struct ast_ppoint *ast_ppoint_new(struct arena *a, struct src_span span);
void ast_ppoint_push(struct arena *a, struct ast_ppoint *p,
		     const char *name, struct ast_expr *arg,
		     struct src_span span);
void ast_pplist_push(struct arena *a, struct ast_pplist *l,
		     struct ast_ppoint *p);

void ast_file_push(struct arena *a, struct ast_file *f, struct ast_decl *d);
void ast_func_param(struct arena *a, struct ast_func *f, const char *name,
		    enum ast_type type, struct src_span span);

/* Deep copies in @a (ast_clone.c): pass 2 gives each probe its own. */
struct ast_stmt *ast_clone_stmt(struct arena *a, const struct ast_stmt *s);
struct ast_expr *ast_clone_expr(struct arena *a, const struct ast_expr *e);

/* ---- printing and comparison ---- */

#include <stdio.h>

/* Print @f in canonical form (what -p1 shows); parses back to the same tree. */
void ast_print_file(FILE *out, const struct ast_file *f);
void ast_print_expr(FILE *out, const struct ast_expr *e);
void ast_print_stmt(FILE *out, const struct ast_stmt *s, int indent);
void ast_print_ppoint(FILE *out, const struct ast_ppoint *p);
/* The same as strings in @a (for messages and pp()). */
const char *ast_expr_text(struct arena *a, const struct ast_expr *e);
const char *ast_ppoint_text(struct arena *a, const struct ast_ppoint *p);

/* Structural equality, ignoring spans (for round-trip tests). */
bool ast_expr_equal(const struct ast_expr *x, const struct ast_expr *y);
bool ast_file_equal(const struct ast_file *x, const struct ast_file *y);

#endif
