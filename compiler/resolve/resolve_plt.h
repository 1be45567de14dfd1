/*
 * resolve_plt.h - pass 2: a program's PLT entries, for
 * process("PATH").plt("NAME"): where each imported function's stub is,
 * so that a uprobe there fires on every call the program makes to it.
 */
#ifndef KTAP_RESOLVE_PLT_H
#define KTAP_RESOLVE_PLT_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct arena;

/* One PLT stub: the function it jumps to, and where the stub is. */
struct rplt_entry {
	const char *name;	/* the imported symbol, without its version */
	uint64_t addr;		/* link-time address of the stub's first byte */
	uint64_t offset;	/* its file offset: the uprobe */
};

/*
 * The PLT stubs of @elf (x86_64) whose function matches glob @pattern,
 * by address: the count (*@out in @a), or -1 with the reason in @err
 * (another machine, or no PLT at all).
 */
int rplt_entries(struct arena *a, Elf *elf, const char *pattern, struct rplt_entry **out,
		 char *err, size_t errlen);

#endif
