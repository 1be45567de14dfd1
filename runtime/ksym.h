/* ksym.h - kernel symbolisation from a kallsyms text (runtime).
 *
 * In:  the text of /proc/kallsyms (the session passes the path, or the
 *      bytes), "ADDR TYPE NAME[\t[MODULE]]" per line.
 * Out: a sorted table; address -> symbol, offset, size, module, printed
 *      the way SystemTap prints them (runtime/sym.c _stp_snprint_addr):
 *        symname()          KSYM_FMT_SYMBOL  "vfs_read"
 *        symdata()          KSYM_FMT_DATA    "vfs_read+0x5/0x1a0 [kernel]"
 *        print_backtrace()  KSYM_FMT_FULL    " 0xffffffff8119a5c5 : vfs_read+0x5/0x1a0 [kernel]\n"
 *        sprint_backtrace() KSYM_FMT_SIMPLE  "vfs_read+0x5 [kernel]\n"
 *        backtrace()        KSYM_FMT_HEX     "0xffffffff8119a5c5 "
 *      An unknown address prints as "0x..." (stap's %p: "%#llx", with 0
 *      as "0x0"); an address with no symbol but inside a known module's
 *      range is not resolved (kallsyms gives no module ranges).  stap's
 *      module name of vmlinux is "kernel".
 *
 * kallsyms gives no sizes: a symbol's size is the distance to the next
 * higher address in the same module (what the kernel's own %pS does);
 * the last symbol of a module has size 0 and matches addresses up to
 * KSYM_LAST_SPAN bytes past it.  Absolute symbols (types a/A) are left
 * out: they are not code addresses (e.g. per-CPU offsets).
 *
 * When kptr_restrict (or missing CAP_SYSLOG) hides the addresses, every
 * line reads 0000000000000000: ksym_hidden() says so, every lookup fails
 * and ksym_hidden_message() is the text to show the user.
 *
 * Ownership: ksym_load()/ksym_parse() return a table the caller frees
 * with ksym_free(); struct ksym_info's strings point into the table.
 */
#ifndef KTAP_KSYM_H
#define KTAP_KSYM_H

#include <stddef.h>
#include <stdint.h>

#define KSYM_LAST_SPAN 0x10000

struct ksym_table;

struct ksym_info {
	const char *name;     /* symbol name */
	const char *module;   /* "kernel" or the module's name */
	uint64_t addr;        /* the symbol's address */
	uint64_t offset;      /* address - addr */
	uint64_t size;        /* 0: unknown */
};

/* How an address prints: stap's _STP_SYM_* combinations. */
enum ksym_fmt {
	KSYM_FMT_HEX,     /* _STP_SYM_NONE: "0x... " (backtrace() strings) */
	KSYM_FMT_SYMBOL,  /* symname(): "name" */
	KSYM_FMT_DATA,    /* symdata(): "name+0xoff/0xsize [mod]" */
	KSYM_FMT_SIMPLE,  /* sprint_backtrace() line: "name+0xoff [mod]\n" */
	KSYM_FMT_FULL,    /* print_backtrace() line: " 0x... : name+0xoff/0xsize [mod]\n" */
	KSYM_FMT_BRIEF,   /* print_ubacktrace_brief() line: "name+0xoff\n" */
};

/* Reads the kallsyms file PATH.  Returns 0 and *OUT, or -1 with a
 * message in ERR (ERRLEN bytes) when the file cannot be read or holds no
 * symbol line. */
int ksym_load(const char *path, struct ksym_table **out, char *err, size_t errlen);

/* The same from LEN bytes of TEXT (need not be NUL-terminated); lines
 * that are not "HEX TYPE NAME[\t[MOD]]" are skipped and counted. */
int ksym_parse(const char *text, size_t len, struct ksym_table **out, char *err, size_t errlen);

/* Frees T; NULL is a no-op. */
void ksym_free(struct ksym_table *t);

/* Number of symbols kept, and of lines skipped as malformed. */
size_t ksym_count(const struct ksym_table *t);
size_t ksym_skipped(const struct ksym_table *t);

/* 1 when every address read was zero (kptr_restrict). */
int ksym_hidden(const struct ksym_table *t);

/* What to tell the user when ksym_hidden(). */
const char *ksym_hidden_message(void);

/* The symbol containing ADDR.  Returns 0 and fills *INFO, or -1. */
int ksym_lookup(const struct ksym_table *t, uint64_t addr, struct ksym_info *info);

/* Formats ADDR as stap does (FMT above; INEXACT appends " (inexact)" to
 * a symbol, as stap does for frames from an unreliable unwind).  Writes at
 * most LEN bytes, NUL-terminated, and returns the length of the whole
 * text, as snprintf. */
int ksym_format(const struct ksym_table *t, uint64_t addr, enum ksym_fmt fmt, int inexact,
		char *buf, size_t len);

/* The formatter itself, for a symbol found elsewhere (usym.c): NAME or
 * MODULE may be NULL when unknown; OFFSET is from the symbol (or from the
 * module's start when NAME is NULL), SIZE the symbol's (or module's). */
int ksym_format_parts(const char *name, const char *module, uint64_t addr, uint64_t offset,
		      uint64_t size, enum ksym_fmt fmt, int inexact, char *buf, size_t len);

/*
 * By name, for the hist stacktrace key, which the kernel prints as %pS
 * frames ("name+0xoff/0xsize [mod]", or "0xADDR" without a symbol):
 * ksym_names_new() indexes T by name (T must outlive it; free with
 * ksym_names_free()), ksym_frame_addr() gives a frame's address (the
 * symbol's plus the offset).  Returns 0; 1 when several symbols of that
 * name, module and size exist (*ADDR is the first's); -1 when none does
 * (or the addresses are hidden).
 */
struct ksym_names;
struct ksym_names *ksym_names_new(const struct ksym_table *t);
void ksym_names_free(struct ksym_names *ns);
int ksym_frame_addr(const struct ksym_names *ns, const char *frame, uint64_t *addr);

#endif
