/*
 * uprobe.h - pass 2 for process("PATH").function("NAME"): where the
 * function is (ELF symbol -> file offset, for the uprobe) and how to
 * fetch its target variables ($param, $param->member..., $return) as
 * uprobe fetch arguments, from the binary's DWARF.
 *
 * Parameters are read at the function's entry, where the calling
 * convention of the file's machine (cconv.def) says where integer and
 * pointer arguments are, whatever the optimisation level; DWARF gives
 * their names and types, and the layout of what they point to.  Other
 * variables, and everything at a statement probe, are read through their
 * DWARF locations at the probe's address (dwloc.c).  Without DWARF,
 * $arg1..$argN give the raw registers.
 */
#ifndef KTAP_UPROBE_H
#define KTAP_UPROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ast.h"

struct arena;
struct up_file;
struct ktap_target;

/* Files opened while elaborating, closed by up_files_free(). */
struct up_files {
	struct up_file **v;
	unsigned n;
	struct btf *btf;	/* the kernel's BTF, loaded on first use */
	bool btf_tried;
	struct btf **mods;	/* modules' BTF (split over btf), as loaded */
	const char **mod_names;
	unsigned nmods;
	/* Where the kernel's BTF, DWARF and function list are, and the
	   search path for programs (target.h); set by the session. */
	const struct ktap_target *target;
};

void up_files_free(struct up_files *f);

/* One resolved function. */
struct up_func {
	const char *path;		/* absolute path of the ELF file */
	const char *name;
	uint64_t offset;		/* file offset of its first instruction */
	struct up_file *file;
	void *die;			/* its DWARF subprogram (Dwarf_Die *), or NULL */
	uint64_t addr;			/* link-time address of the probe */
	/* A statement probe inside the function: target variables are read
	   through their DWARF locations at @addr, not the entry registers. */
	bool stmt;
	/* A kernel function (kprobe): its BTF prototype, or NULL and @die. */
	const struct btf *btf;
	int32_t proto;
	bool kernel;			/* a kernel function, whatever the type source */
};

/*
 * The first statement of FILE:LINE in @path, from the DWARF line table
 * (FILE matched as a path suffix), as a statement probe in the function
 * that holds it (@out->stmt; @out->path absolute).  0, or -1 + @err.
 */
int up_line(struct up_files *f, struct arena *a, const char *path, const char *file,
	    int line, struct up_func *out, char *err, size_t errlen);

/* More matches than this for a wildcard is an error. */
#define UP_MAX_MATCHES 1000

/*
 * The functions of @path (symbols) or of the kernel (@path NULL:
 * available_filter_functions, else BTF) whose names match glob @pattern,
 * sorted.  Returns the count; -1 with @err when the file cannot be read.
 */
int up_match(struct up_files *f, struct arena *a, const char *path, const char *module,
	     const char *pattern,
	     const char ***names, char *err, size_t errlen);

/*
 * Pretty printing ($var$, $var$$, $$vars ...) as a list of pieces: text,
 * and values, each a target variable (@var with @chain) and the way stap
 * formats it.  Values the kernel cannot fetch are already text ("?").
 */
enum up_fmt {
	UP_FMT_TEXT,	/* @text */
	UP_FMT_HEX,	/* %#x */
	UP_FMT_INT,	/* %i */
	UP_FMT_UINT,	/* %u */
	UP_FMT_CHAR,	/* '%c' */
	UP_FMT_STRING,	/* "%s" */
	UP_FMT_PTR,	/* %p */
};

struct up_item {
	enum up_fmt fmt;
	const char *text;
	const char *var;
	struct ast_chain chain;
};

/* stap prints at most this many values in one pretty-printed string. */
#define UP_PRETTY_MAX 32

/*
 * $var->chain$ (@chain->pretty 1) or $$ (2, nested structs expanded) as
 * stap prints it; -1 + @err when @var itself cannot be resolved.
 */
int up_pretty(struct arena *a, const struct up_func *fn, const char *var,
	      const struct ast_chain *chain, bool ret, struct up_item **out,
	      unsigned *n, char *err, size_t errlen);

/*
 * $$vars, $$parms or $$locals (@which), pretty with @pretty ($$vars$):
 * "name=value" for each variable in scope at the probe, "name=?" for
 * one without a location there; $$return: "return=VALUE" in a return
 * probe of a function that returns something.  Returns the number of
 * items.
 */
unsigned up_context(struct arena *a, const struct up_func *fn, const char *which,
		    unsigned pretty, bool ret, struct up_item **out);

/* The file @fn's DWARF came from: the binary or its separate debug file. */
const char *up_dwarf_path(const struct up_func *fn);

/*
 * "$name:type" for each parameter of @fn, for -L (at a statement: every
 * variable in scope with a location there); returns how many.
 */
unsigned up_param_decls(struct arena *a, const struct up_func *fn, const char ***decls);

/* The kernel's BTF (@module NULL) or module @module's, loaded once; NULL + @err. */
struct btf *up_kernel_btf(struct up_files *f, struct arena *a, const char *module,
			  char *err, size_t errlen);

/*
 * Kernel function @name ("NAME" or "NAME@FILE") of the kernel, or of
 * module @module when not NULL.  Types come from the BTF
 * (the target's BTF file; modules: its BTF directory's MODULE) when it
 * describes the function, else from DWARF that kdebug.c finds (vmlinux or
 * MODULE.ko with debug information); "NAME@FILE" always needs the DWARF.
 */
int up_find_kernel(struct up_files *f, struct arena *a, const char *module,
		   const char *name, struct up_func *out, char *err, size_t errlen);

/*
 * Kernel function @name without type information, for kprobe.function():
 * it only has to be traceable (in available_filter_functions, when that
 * can be read); its target variables are the raw $arg1...$argN and
 * $return.  0, or -1 with a message in @err.
 */
int up_find_kernel_raw(const struct up_files *f, struct arena *a, const char *module,
		       const char *name, struct up_func *out, char *err, size_t errlen);

/*
 * Find function @name ("NAME", or "NAME@FILE": the one declared in a
 * source file matching FILE, which needs DWARF) in @path (a path, or a
 * command looked up in $PATH).  0, or -1 with a message in @err.
 */
int up_find(struct up_files *f, struct arena *a, const char *path, const char *name,
	    struct up_func *out, char *err, size_t errlen);

/* A target variable as a fetch argument, and what it yields. */
struct up_fetch {
	const char *arg;		/* "+8(%di):s32", "%ax:u64", "+0(%si):string" */
	const char *name;		/* a field name for it: "p_len" */
	bool is_string;
};

/*
 * Target variable @var ("$name", "$return", "$argN") with member/index
 * @chain, in function @fn (@ret: a return probe).  0, or -1 with a
 * message (what is missing, and what to write instead) in @err.
 */
int up_fetch(struct arena *a, const struct up_func *fn, const char *var,
	     const struct ast_chain *chain, bool ret, struct up_fetch *out,
	     char *err, size_t errlen);

/*
 * A fetch of memory at @value (an address) for @chain->mem: "+0(V):string"
 * and the like; @kernel: a kprobe (user strings are "ustring" there).
 */
void up_mem_fetch(struct arena *a, const char *value, enum ast_mem mem, bool kernel,
		  struct up_fetch *out);

/*
 * @cast(VALUE, "struct T")->chain: @value is the fetch expression of an
 * address (another target variable's, without its type), @name the field
 * name so far; T comes from @fn's DWARF (or BTF for kernel functions).
 */
int up_cast(struct arena *a, const struct up_func *fn, const char *value,
	    const char *name, const char *type, const struct ast_chain *chain,
	    struct up_fetch *out, char *err, size_t errlen);

/* The names of @fn's parameters (for $$parms); returns how many. */
unsigned up_params(struct arena *a, const struct up_func *fn, const char ***names);

#endif
