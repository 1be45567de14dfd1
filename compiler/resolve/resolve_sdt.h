/*
 * resolve_sdt.h - pass 2: SystemTap SDT markers (<sys/sdt.h>).  Reads a
 * file's .note.stapsdt notes (where each marker is, its provider, its
 * semaphore and its arguments' operand strings such as "-4@%edi" or
 * "8@-16(%rbp)"), and turns an operand into a uprobe fetch argument.
 * The format is systemtap's wiki page "UserSpaceProbeImplementation".
 */
#ifndef KTAP_RESOLVE_SDT_H
#define KTAP_RESOLVE_SDT_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fetch.h"

struct arena;

/* One marker, its addresses already adjusted for prelinking. */
struct rsdt_mark {
	const char *provider, *name;
	uint64_t pc;		/* link-time address of the marker's nop */
	uint64_t offset;	/* its file offset: the uprobe */
	uint64_t sem_offset;	/* file offset of its semaphore; 0: none */
	const char **args;	/* operand strings, "-4@%edi" */
	unsigned nargs;
};

/*
 * Every marker of @elf whose provider matches glob @provider (NULL: any)
 * and name glob @name, in note order: the count (*@out in @a), or -1
 * with the reason (no notes) in @err.
 */
int rsdt_marks(struct arena *a, Elf *elf, const char *provider, const char *name,
	       struct rsdt_mark **out, char *err, size_t errlen);

/*
 * Operand @op of marker @m as a fetch location and type ("%di", "s32";
 * "-16(%bp)", "u64"; "\42", "s64"), for @elf (a %rip-relative operand
 * names a symbol).  0, or -1 with the reason in @err.
 */
int rsdt_operand(struct arena *a, Elf *elf, const struct rsdt_mark *m, const char *op,
		 const char **loc, const char **type, char *err, size_t errlen);

/*
 * Target variable @var ($arg1..$argN) of marker site @fn (fn->sdt set)
 * with @chain (only the memory readers: user_string($arg2) and the like):
 * 0 and @out, or -1 with a message in @err.
 */
int rsdt_fetch(struct arena *a, const struct fetch_site *fn, const char *var,
	       const struct ast_chain *chain, struct fetch *out, char *err, size_t errlen);

#endif
