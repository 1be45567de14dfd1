/*
 * resolve_dwarf.h - pass 2: target variables ($param, $param->member...,
 * $return, @cast) of a probe site as kprobe/uprobe fetch arguments, from
 * the DWARF of the probed binary (or, for a kernel function the BTF
 * describes, from resolve_btf.c).
 *
 * Parameters are read at the function's entry, where the calling
 * convention of the file's machine (resolve_cconv.def) says where integer
 * and pointer arguments are, whatever the optimisation level; DWARF gives
 * their names and types, and the layout of what they point to.  Other
 * variables, and everything at a statement probe, are read through their
 * DWARF locations at the probe's address (resolve_dwloc.c).  Without
 * DWARF, $arg1..$argN give the raw registers.
 *
 * The second half of this header is the DWARF walker itself, for the
 * other DWARF back ends (resolve_list.c, resolve_pretty.c).
 */
#ifndef KTAP_RESOLVE_DWARF_H
#define KTAP_RESOLVE_DWARF_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>

#include "ast.h"
#include "fetch.h"

struct arena;

/*
 * An SDT marker's site @fn as a statement probe at its address: where
 * its other target variables than $argN are the program's variables in
 * scope (stap's, with DWARF).
 */
const struct fetch_site *rdwarf_sdt_scope(struct arena *a, const struct fetch_site *fn);

/*
 * Target variable @var ("$name", "$return", "$argN") with member/index
 * @chain, at probe site @fn (@ret: a return probe).  0, or -1 with a
 * message (what is missing, and what to write instead) in @err.
 */
int rdwarf_fetch(struct arena *a, const struct fetch_site *fn, const char *var,
		 const struct ast_chain *chain, bool ret, struct fetch *out,
		 char *err, size_t errlen);

/*
 * @cast(VALUE, "struct T")->chain: @value is the fetch expression of an
 * address (another target variable's, without its type), @name the field
 * name so far; T comes from @fn's DWARF (or BTF for kernel functions).
 */
int rdwarf_cast(struct arena *a, const struct fetch_site *fn, const char *value,
		const char *name, const char *type, const struct ast_chain *chain,
		struct fetch *out, char *err, size_t errlen);

/* The names of @fn's parameters (for $$parms); returns how many. */
unsigned rdwarf_params(struct arena *a, const struct fetch_site *fn, const char ***names);

/* ---- the walker, for resolve_list.c and resolve_pretty.c ---- */

/*
 * Where the value being built is: in a register or computed address
 * (@mem false: @expr is the value), or in memory at @expr + @off.
 */
struct rdwarf_loc {
	const char *expr;
	bool mem;
	Dwarf_Word off;		/* signed, in two's complement */
	bool fileoff;		/* memory at file offset @off ("@+off"), no @expr */
	/* a uprobe's: @off less the probe's file offset, added to %ip, is
	   the run-time address of that memory (&global); else unset */
	bool ip_rel;
	int64_t ip_delta;
	Dwarf_Die type;
	const char *name;	/* field name so far */
	const char *shown;	/* the expression as written so far, for messages */
	int bits, bitoff;	/* a bitfield: its width and LSB in the container */
	bool kernel;		/* a kprobe's: user memory is read with "ustring" */
	/* A value computed from register @expr (DW_OP_stack_value), or NULL */
	struct fetch_calc *calc;
	/* A value in parts (a struct in two registers), or NULL: a member
	   is read from the part that holds it (rdwarf_step_member()) */
	const struct dwloc_piece *pieces;
	unsigned npieces;
};

/* @die's type, typedefs and qualifiers peeled; false: none (void). */
bool rdwarf_type_of(Dwarf_Die *die, Dwarf_Die *type);

/* char, signed char, unsigned char */
bool rdwarf_is_char(Dwarf_Die *t);

/*
 * char or signed char: what a pointer to is a string.  A pointer to
 * unsigned char (bytes) is an address.
 */
bool rdwarf_is_text(Dwarf_Die *t);

/*
 * Where @var is at @fn: 0 with a typed @l, 1 untyped (a raw register:
 * $argN without DWARF), -1 + @err.
 */
int rdwarf_base(struct arena *a, const struct fetch_site *fn, const char *var, bool ret,
		struct rdwarf_loc *l, char *err, size_t errlen);

/* The struct at @cast(A, "@type") of @fn's program, in memory; 0 or -1 + @err. */
int rdwarf_cast_base(const struct fetch_site *fn, const char *type, struct rdwarf_loc *l,
		     char *err, size_t errlen);

/* One '->member' / '[index]' step of a chain; 0 or -1 + @err. */
int rdwarf_step_member(struct arena *a, struct rdwarf_loc *l, const struct ast_comp *c,
		       char *err, size_t errlen);
int rdwarf_step_index(struct arena *a, struct rdwarf_loc *l, const struct ast_comp *c,
		      char *err, size_t errlen);

/* DWARF variable @var (in function @frame) at @fn: its location in @l. */
int rdwarf_var_loc(struct arena *a, const struct fetch_site *fn, Dwarf_Die *var,
		   Dwarf_Die *frame, const char *shown, struct rdwarf_loc *l, char *err,
		   size_t errlen);

/* The scopes holding @fn->addr, innermost first (free() them); how many. */
int rdwarf_scopes(const struct fetch_site *fn, Dwarf_Die **scopes);

/* $argN (N digits): a marker's or a function's raw argument, not $argc. */
bool rdwarf_is_argn(const char *var);

/* A variable or parameter DIE (a definition, not an extern declaration). */
bool rdwarf_is_var(Dwarf_Die *d);

/* Variable @name in scope at @fn->addr into @var, its function into
   @frame; *@file_scope: found among the file's globals. */
bool rdwarf_lookup(const struct fetch_site *fn, const char *name, Dwarf_Die *var,
		   Dwarf_Die *frame, bool *file_scope);

/* The function among @scopes (the innermost subprogram; an inlined
   copy's, the function it is in) into @out; false: none. */
bool rdwarf_frame(const struct fetch_site *fn, Dwarf_Die *scopes, int n, Dwarf_Die *out);

/*
 * The function @fn->addr is in (the innermost subprogram; else @fn->die),
 * copied to @a; NULL when neither.
 */
Dwarf_Die *rdwarf_frame_at(struct arena *a, const struct fetch_site *fn);

/*
 * Calls @cb(@d, @frame, @arg) for each variable and parameter in scope at
 * @fn->addr, innermost scope first, not the file's globals (stap's order
 * for $$vars and -L).
 */
void rdwarf_each_var(const struct fetch_site *fn,
		     void (*cb)(Dwarf_Die *d, Dwarf_Die *frame, void *arg), void *arg);

#endif
