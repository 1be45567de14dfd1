/*
 * resolve_elf.h - pass 2: the files target variables' types come from.
 * Opens an ELF binary (a path, or a command looked up in $PATH), finds
 * its DWARF (in the file, or a separate debug file by build-id or
 * debuglink; a kernel module's is relocated through libdwfl), and loads
 * the kernel's and modules' BTF.  Everything opened is kept in a struct
 * relf_files for the session and closed by relf_files_free().  Also the
 * ELF symbol tables: a function's address, and its file offset.
 */
#ifndef KTAP_RESOLVE_ELF_H
#define KTAP_RESOLVE_ELF_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>

#include "resolve_btf.h"

struct arena;
struct btf;
struct cc_machine;
struct fetch_site;

/* One opened ELF file and its DWARF. */
struct relf_file {
	char *path;
	int fd;
	Elf *elf;
	Dwarf *dw;		/* NULL: no debug information */
	/*
	 * A relocatable file's (a kernel module's) DWARF must be relocated
	 * before it is read, which libdwfl does; it then owns @dw.
	 */
	Dwfl *dwfl;
	/* A separate debug file the DWARF came from, when not @path. */
	char *debug_path;
	int debug_fd;
	Elf *debug_elf;
	const struct cc_machine *cc;	/* NULL: a machine ktap does not know */
	unsigned e_machine;
	/* Every inlined copy of a function in the DWARF, read once when a
	   probe first asks (resolve_sym.c, rsym_inlines()); arena-owned. */
	struct fetch_site *inlines;
	unsigned ninlines;
	bool inlines_read;
};

/* Files opened while elaborating, closed by relf_files_free(). */
struct ktap_target;

struct relf_files {
	struct relf_file **v;
	unsigned n;
	struct btf *btf;	/* the kernel's BTF, loaded on first use */
	bool btf_tried;
	struct btf **mods;	/* modules' BTF (split over btf), as loaded */
	const char **mod_names;
	unsigned nmods;
	struct rbtf_types types;	/* type ids by name in those BTFs */
	/* Where the kernel's BTF, DWARF and function list are, and the
	   search path for programs (target.h); set by the session. */
	const struct ktap_target *target;
};

void relf_files_free(struct relf_files *f);

/* @path (or a command in the target's PATH), opened once per session; NULL + @err. */
struct relf_file *relf_open(struct relf_files *f, const char *path, char *err,
			    size_t errlen);

/* The file with the DWARF of the kernel or of @module; NULL + @err. */
struct relf_file *relf_open_kdwarf(struct relf_files *f, const char *module, char *err,
				   size_t errlen);

/* The kernel's BTF (@module NULL) or module @module's, loaded once; NULL + @err. */
struct btf *relf_kernel_btf(struct relf_files *f, struct arena *a, const char *module,
			    char *err, size_t errlen);

/* Of stap's module search path @modules ("MOD1:kernel:MOD2"), the BTF
   of the first that has type @type; NULL + @err when none has it. */
struct btf *relf_kernel_btf_of(struct relf_files *f, struct arena *a, const char *modules,
			      const char *type, char *err, size_t errlen);

/* The value of function symbol @name in .symtab or .dynsym. */
bool relf_symbol(Elf *elf, const char *name, GElf_Addr *addr);

/* A virtual address to its offset in the file, through the PT_LOADs. */
bool relf_offset(Elf *elf, GElf_Addr addr, uint64_t *off);

/* Function symbols of @elf matching glob @pattern, unsorted; the count. */
size_t relf_match(struct arena *a, Elf *elf, const char *pattern, const char ***names);

/* The file @fn's DWARF came from: the binary or its separate debug file. */
const char *relf_dwarf_path(const struct fetch_site *fn);

/* The ELF files glob(3) pattern @pattern matches, in sorted order, into
   *@paths (in @a); their number. */
unsigned relf_glob(struct arena *a, const char *pattern, const char ***paths);

/*
 * The shared libraries executable @path loads: its DT_NEEDED entries and
 * theirs, breadth first, found as the dynamic linker finds them (RUNPATH
 * or RPATH, then the system's library directories), at most
 * RELF_MAX_LIBS; paths into *@libs (in @a).  Their number (0 with @err
 * set when @path cannot be read).
 */
#define RELF_MAX_LIBS 256
unsigned relf_needed(struct relf_files *f, struct arena *a, const char *path,
		     const char ***libs, char *err, size_t errlen);

#endif
