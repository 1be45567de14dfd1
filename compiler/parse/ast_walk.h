/*
 * ast_walk.h - generic walks over the AST of pass 1 (ast.h), used by the
 * later passes, and the nesting bound every recursive walk relies on.
 *
 * Every AST walker of passes 1-3 (printer, comparison, clone, pass 2's
 * typing and rewrites, pass 3's lowering) recurses once per nesting
 * level.  Pass 1 therefore refuses, with a located error, a tree nested
 * deeper than AST_MAX_DEPTH (ast_walk_depth(), itself iterative), so no
 * later walk can exhaust the stack whatever the script.
 */
#ifndef KTAP_AST_WALK_H
#define KTAP_AST_WALK_H

#include "ast.h"

struct diag_sink;

/*
 * The deepest nesting of statements and expressions pass 1 accepts.
 * Scripts written by hand nest a few dozen levels; generated ones (long
 * "a + b + ..." chains) more.  Pass 2 adds a few levels (alias bodies
 * wrapped in blocks), far below the stack's capacity at this bound.
 */
#define AST_MAX_DEPTH 1000

/*
 * Expression walker: @fn sees every expression node, parent first; it
 * returns 0 to go on inside it, 1 to skip its operands, -1 to stop the
 * whole walk (the walk then returns 1).
 */
typedef int (*ast_walk_fn)(struct ast_expr *e, void *arg);
int ast_walk_expr(struct ast_expr *e, ast_walk_fn fn, void *arg);
/* Every expression of @s and of the statements inside it. */
int ast_walk_stmt(struct ast_stmt *s, ast_walk_fn fn, void *arg);

/*
 * Report (to @d, once) the first place where @f nests deeper than
 * AST_MAX_DEPTH.  Returns 0, or -1 when it does.  Iterative.
 */
int ast_walk_depth(const struct ast_file *f, struct diag_sink *d);

#endif
