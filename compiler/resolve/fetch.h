/*
 * fetch.h - pass 2: the vocabulary the target-variable back ends share.
 * A probe site (struct fetch_site: the function or statement a kprobe or
 * uprobe is placed at, found by resolve_sym.c) goes in; a fetch argument
 * (struct fetch: "+8(%di):s32" and its field name) comes out, built from
 * DWARF (resolve_dwarf.c) or BTF (resolve_btf.c).  The chain-step checks
 * both walkers make ('->' on a non-struct, an index into a non-array) are
 * here so that both say the same thing in the same words.
 */
#ifndef KTAP_FETCH_H
#define KTAP_FETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ast.h"

struct arena;
struct btf;
struct relf_file;
struct rsdt_mark;

/* One resolved function, or a statement inside one. */
struct fetch_site {
	const char *path;		/* absolute path of the ELF file */
	const char *name;
	uint64_t offset;		/* file offset of its first instruction */
	struct relf_file *file;
	void *die;			/* its DWARF subprogram (Dwarf_Die *), or NULL */
	uint64_t addr;			/* link-time address of the probe */
	/* A statement probe inside the function: target variables are read
	   through their DWARF locations at @addr, not the entry registers. */
	bool stmt;
	/* A kernel function (kprobe): its BTF prototype, or NULL and @die. */
	const struct btf *btf;
	int32_t proto;
	bool kernel;			/* a kernel function, whatever the type source */
	/* An SDT marker (process().mark()): $argN are its operands. */
	const struct rsdt_mark *sdt;
	/* A PLT stub (process().plt()): @name is the function it calls. */
	bool plt;
	/* A label's statement probe (.function().label()): its name. */
	const char *label;
};

/*
 * The per-CPU offsets array, as a fetch argument names it: the root of
 * every fetch through task_current() (sema_current.c), which is
 * "+OFF(@__per_cpu_offset)" on CPU 0 and copied per CPU (+8N).
 */
#define FETCH_PERCPU_BASE "@__per_cpu_offset"

/*
 * A value DWARF computes from one register (DW_OP_bregN ... 
 * DW_OP_stack_value: an optimised variable that lives nowhere, e.g.
 * "n * 3"): the register is the fetch argument, and this program,
 * applied in user space, gives the value: a stack machine on 64-bit
 * values whose FETCH_C_VAL pushes the fetched register, then the
 * result is truncated to @bits (sign-extended when @is_signed).
 */
enum fetch_calc_op {
	FETCH_C_VAL, FETCH_C_IMM, FETCH_C_ADD, FETCH_C_SUB, FETCH_C_MUL, FETCH_C_DIV,
	FETCH_C_MOD, FETCH_C_AND, FETCH_C_OR, FETCH_C_XOR, FETCH_C_SHL, FETCH_C_SHR,
	FETCH_C_SHRA, FETCH_C_NEG, FETCH_C_NOT,
};

struct fetch_calc {
	struct { enum fetch_calc_op op; int64_t imm; } *v;
	unsigned n;
	unsigned bits;
	bool is_signed;
};

/* A target variable as a fetch argument, and what it yields. */
struct fetch {
	const char *arg;		/* "+8(%di):s32", "%ax:u64", "+0(%si):string" */
	const char *name;		/* a field name for it: "p_len" */
	bool is_string;
	const struct fetch_calc *calc;	/* a computed value: @arg is its register */
};

/*
 * A fetch of memory at @value (an address) for @chain->mem: "+0(V):string"
 * and the like; @kernel: a kprobe (user strings are "ustring" there).
 */
void fetch_mem(struct arena *a, const char *value, enum ast_mem mem, bool kernel,
	       struct fetch *out);

/*
 * fetch_mem() for @chain->mem, a user-memory fetch ("+u0(V):s64") in a
 * kprobe (@kernel) when @chain->user_mem: user_long($p) and the like.
 */
void fetch_mem_chain(struct arena *a, const char *value, const struct ast_chain *chain,
		     bool kernel, struct fetch *out);

/*
 * The same for memory at @at, a memory reference ("+1752(%di)"): an
 * array's own address, which stap passes for an array-typed target
 * variable ($p->comm in kernel_string($p->comm)).
 */
void fetch_mem_at(struct arena *a, const char *at, enum ast_mem mem, bool kernel,
		  struct fetch *out);

/*
 * '->@member' on a value that is (@is_struct) a struct or union, in
 * memory (@in_mem) or passed by value: 0, or -1 with the reason in @err.
 */
int fetch_check_member(const char *member, bool is_struct, bool in_mem, char *err,
		       size_t errlen);

/*
 * Member @member missing from @shown ("$q->key->shared"), a @kind ("struct", "union")
 * named @sname or anonymous, with "did you mean" @hint (NULL: none):
 * "struct task_struct has no member 'state'; did you mean '__state'?",
 * "$q->key->shared (an anonymous struct) has no member 'inode'".
 */
void fetch_no_member_in(const char *shown, const char *kind, const char *sname,
			const char *member, const char *hint, char *err, size_t errlen);

/* '[@index]' on something that is neither an array nor a pointer. */
void fetch_not_indexable(int64_t index, char *err, size_t errlen);

#endif
