/* usym.h - user-space symbolisation from cached process maps (runtime).
 *
 * In:  per process, the text of its /proc/PID/maps, taken by the session
 *      when the process is first seen (exec/mmap tracking or the first
 *      record carrying its pid); later, (pid, address) pairs, e.g. the
 *      8 frames of a `userstacktrace` record.
 * Out: symbol, offset, size and module (the mapped file's path), printed
 *      as SystemTap prints them (ksym.h's formats): usymname() is
 *      KSYM_FMT_SYMBOL, usymdata() KSYM_FMT_DATA, print_ubacktrace() lines
 *      KSYM_FMT_FULL, sprint_ubacktrace() lines KSYM_FMT_SIMPLE.
 *
 * The symbols come from libdwfl: the ELF file of each mapping (.symtab,
 * else .dynsym, and MiniDebugInfo), its separate debug file (found by
 * build-id or .gnu_debuglink next to the file, in its .debug/ directory
 * or under the debuginfo path, default /usr/lib/debug), with the load
 * bias computed from the cached mappings.  A process that has exited is
 * still symbolised from its cached maps, as long as its files are still
 * on disk (they are opened on the first lookup in each module, then kept;
 * a file replaced in between is read as it is then).  Anonymous memory
 * (JIT code), [vdso] and deleted files print as hex addresses.
 *
 * Ownership: usym_new() returns a context the caller frees with
 * usym_free(); it owns every process record and opened file.  The strings
 * of struct usym_info point into the context and stay valid until that
 * process is forgotten or the context freed.  Not thread-safe.
 */
#ifndef KTAP_USYM_H
#define KTAP_USYM_H

#include <stddef.h>
#include <stdint.h>

#include "ksym.h"

struct usym_ctx;

struct usym_info {
	const char *name;    /* NULL: no symbol (then offset/size are the mapping's) */
	const char *module;  /* path of the mapped file */
	uint64_t offset;     /* from the symbol (or, as stap, from the start of
	                        the mapping holding the address) */
	uint64_t size;       /* the symbol's size (or the mapping's) */
};

/* A context; DEBUGINFO_PATH is libdwfl's search path (NULL: its default,
 * ":.debug:/usr/lib/debug").  NULL when out of memory. */
struct usym_ctx *usym_new(const char *debuginfo_path);

/* Frees CTX and every process record; NULL is a no-op. */
void usym_free(struct usym_ctx *ctx);

/* Records process PID from LEN bytes of the text of its /proc/PID/maps
 * (replacing an earlier record of PID, e.g. after an exec).  Returns 0, or
 * -1 with a message in ERR when the text is not a maps file. */
int usym_add_process(struct usym_ctx *ctx, int pid, const char *maps, size_t len, char *err,
		     size_t errlen);

/* 1 if PID has a record. */
int usym_has_process(const struct usym_ctx *ctx, int pid);

/* Drops the record of PID (no-op if none). */
void usym_forget_process(struct usym_ctx *ctx, int pid);

/* What ADDR in process PID is: 0 and *INFO with a symbol, 1 and *INFO
 * with only the module, -1 when unknown (no record, no mapping). */
int usym_lookup(struct usym_ctx *ctx, int pid, uint64_t addr, struct usym_info *info);

/* The source file and line of ADDR in process PID from the line table
 * of its module's DWARF (the file's name as the compiler recorded it):
 * 0, or -1 when unknown (no record, no mapping, no line information). */
int usym_srcline(struct usym_ctx *ctx, int pid, uint64_t addr, const char **file, int *line);

/* Formats ADDR of PID as stap does (ksym_format's conventions). */
int usym_format(struct usym_ctx *ctx, int pid, uint64_t addr, enum ksym_fmt fmt, int inexact,
		char *buf, size_t len);

#endif
