/*
 * resolve_sym.h - pass 2: where a probe point's function or statement is.
 * process("PATH").function("NAME"): the ELF symbol (or, for "NAME@FILE",
 * the DWARF subprogram) and its file offset, for the uprobe;
 * kernel.function("NAME"): its BTF prototype or DWARF subprogram;
 * .statement("*@FILE:LINE"): the DWARF line table.  Wildcards expand to
 * the sorted list of matching names.
 */
#ifndef KTAP_RESOLVE_SYM_H
#define KTAP_RESOLVE_SYM_H

#include <stddef.h>

#include "fetch.h"
#include "resolve_elf.h"

struct arena;

/* More matches than this for a wildcard is an error. */
#define RSYM_MAX_MATCHES 1000

/*
 * Find function @name ("NAME", or "NAME@FILE": the one declared in a
 * source file matching FILE, which needs DWARF) in @path (a path, or a
 * command looked up in $PATH).  0, or -1 with a message in @err.
 */
int rsym_find(struct relf_files *f, struct arena *a, const char *path, const char *name,
	      struct fetch_site *out, char *err, size_t errlen);

/*
 * Kernel function @name ("NAME" or "NAME@FILE") of the kernel, or of
 * module @module when not NULL.  Types come from the BTF
 * ($KTAP_BTF overrides; modules: /sys/kernel/btf/MODULE) when it
 * describes the function, else from DWARF that resolve_kdebug.c finds
 * (vmlinux or MODULE.ko with debug information); "NAME@FILE" always
 * needs the DWARF.
 */
int rsym_find_kernel(struct relf_files *f, struct arena *a, const char *module,
		     const char *name, struct fetch_site *out, char *err, size_t errlen);

/*
 * Kernel function @name without type information, for kprobe.function():
 * it only has to be traceable (in available_filter_functions, when that
 * can be read); its target variables are the raw $arg1...$argN and
 * $return.  0, or -1 with a message in @err.
 */
int rsym_find_kernel_raw(const struct relf_files *f, struct arena *a, const char *module,
			 const char *name, struct fetch_site *out, char *err, size_t errlen);

/*
 * The first statement of FILE:LINE in @path, from the DWARF line table
 * (FILE matched as a path suffix), as a statement probe in the function
 * that holds it (@out->stmt; @out->path absolute).  0, or -1 + @err.
 */
int rsym_line(struct relf_files *f, struct arena *a, const char *path, const char *file,
	      int line, struct fetch_site *out, char *err, size_t errlen);

/*
 * The inlined copies of function @name in @path (its DWARF's
 * DW_TAG_inlined_subroutine entries), sorted by address: each a
 * statement probe at the copy's entry (DW_AT_entry_pc), its variables
 * read there.  The count (0 without DWARF), or -1 with @err.
 */
int rsym_inlines(struct relf_files *f, struct arena *a, const char *path, const char *name,
		 struct fetch_site **out, char *err, size_t errlen);

/*
 * The labels of function @fn (a process() function found by rsym_find,
 * with its DWARF) whose names match glob @pattern, sorted by address:
 * each a statement probe at the label (->label its name).  Returns the
 * count, or -1 with @err when there is no DWARF to read them from.
 */
int rsym_labels(struct arena *a, const struct fetch_site *fn, const char *pattern,
		struct fetch_site **out, char *err, size_t errlen);

/*
 * The functions of @path (symbols) or of the kernel (@path NULL:
 * available_filter_functions, else BTF) whose names match glob @pattern,
 * sorted.  Returns the count; -1 with @err when the file cannot be read.
 */
int rsym_match(struct relf_files *f, struct arena *a, const char *path, const char *module,
	       const char *pattern, const char ***names, char *err, size_t errlen);

#endif
