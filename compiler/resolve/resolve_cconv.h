/*
 * resolve_cconv.h - calling conventions per machine (the table is resolve_cconv.def):
 * where a function's arguments and return value are at its entry and
 * return, the stack pointer, and DWARF register numbers as the register
 * names probe fetch arguments use.  Uprobes take the machine of the
 * probed ELF file, kprobes the machine ktap runs on.
 */
#ifndef KTAP_RESOLVE_CCONV_H
#define KTAP_RESOLVE_CCONV_H

struct arena;

enum cc_id {
#define CC_MACHINE(id, em, uname, ret, sp, stack0) CC_##id,
#define CC_ARG(id, n, reg)
#define CC_DWREG(id, n, reg)
#include "resolve_cconv.def"
#undef CC_MACHINE
#undef CC_ARG
#undef CC_DWREG
	CC__COUNT
};

struct cc_machine {
	enum cc_id id;
	unsigned e_machine;
	const char *uname;	/* uname -m */
	const char *ret;	/* the return value's register */
	const char *sp;		/* the stack pointer */
	unsigned stack0;	/* first stack argument at +stack0(sp), at entry */
};

/* The convention of ELF machine @e_machine (EM_*), or NULL. */
const struct cc_machine *cc_for_elf(unsigned e_machine);

/* The convention of the machine ktap runs on, or NULL. */
const struct cc_machine *cc_host(void);

/*
 * Integer argument @pos (0-based) at a function's entry: a register, or
 * a stack slot "+N(%sp)" (allocated in @a) past the register arguments.
 */
const char *cc_arg(struct arena *a, const struct cc_machine *m, unsigned pos);

/* How many integer arguments @m passes in registers. */
unsigned cc_nregs(const struct cc_machine *m);

/* DWARF register @regno as a fetch-argument register ("%bp"), or NULL. */
const char *cc_dwreg(const struct cc_machine *m, unsigned regno);

#endif
