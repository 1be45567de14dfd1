/*
 * resolve_kdebug.h - pass 2: where the kernel's and its modules' DWARF is.
 *
 * Most kernels ship BTF, which is all kernel.function() needs for
 * parameters and the structures they point to (resolve_btf.c).  DWARF is
 * needed for what BTF does not describe: "NAME@FILE" filters, modules
 * built without BTF (out-of-tree ones), and source-level views.  This
 * module only finds the files, in the places distributions and `make
 * modules_install` put them; resolve_elf.c reads them.
 */
#ifndef KTAP_RESOLVE_KDEBUG_H
#define KTAP_RESOLVE_KDEBUG_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The path of an ELF file with DWARF for the kernel (@module NULL) or for
 * module @module ("ext4"; '-' and '_' are the same), searched in this
 * order (R is the target's kernel release, @t):
 *   each directory of @t's debuginfo path (KTAP_DEBUGINFO_PATH), recursively;
 *   kernel: /usr/lib/debug/boot/vmlinux-R, /usr/lib/debug/lib/modules/R/vmlinux,
 *           /boot/vmlinux-R, /lib/modules/R/vmlinux, /lib/modules/R/build/vmlinux;
 *   module: /usr/lib/debug/lib/modules/R/ and /lib/modules/R/, recursively,
 *           for MODULE.ko or MODULE.ko.debug.
 * A candidate without a .debug_info section is passed over.  Returns a
 * malloc'ed path (the caller frees it), or NULL; then @where (if not NULL)
 * says where it looked, for the error message.
 */
struct ktap_target;
char *kd_find(const struct ktap_target *t, const char *module, char *where,
	      size_t wherelen);

#endif
