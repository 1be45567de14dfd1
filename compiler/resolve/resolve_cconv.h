/*
 * resolve_cconv.h - calling conventions per machine (the table is resolve_cconv.def):
 * where a function's arguments and return value are at its entry and
 * return, the stack pointer, and DWARF register numbers as the register
 * names probe fetch arguments use.  Uprobes take the machine of the
 * probed ELF file, kprobes the machine ktap runs on.
 */
#ifndef KTAP_RESOLVE_CCONV_H
#define KTAP_RESOLVE_CCONV_H

#include <stdbool.h>
#include <stdint.h>

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

/*
 * The integer argument registers a parameter takes under @m: none for a
 * floating-point one (its own registers), one for a scalar or pointer
 * (two for a 16-byte integer), one per 8 bytes of a struct or union
 * passed by value of at most 16 bytes (x86_64's INTEGER class,
 * aarch64's composites); a larger one -1 on x86_64 (passed in memory)
 * and one on aarch64 (by reference).
 */
int cc_param_regs(const struct cc_machine *m, bool is_float, bool composite, int64_t size);

/*
 * The argument slot of parameter @i, the parameters 0..@i taking @regs[k]
 * registers each (cc_param_regs()) and @words[k] 8-byte words of memory:
 * a register, the registers the ones before it take; or cc_nregs() plus
 * the stack words of the parameters before it on the stack (cc_arg()'s
 * numbering) for one on the stack, also one x86_64 passes in memory or
 * one that no longer fits the registers left (after which x86_64 goes
 * on with the registers and aarch64 puts every further argument on the
 * stack).
 */
unsigned cc_param_slot(const struct cc_machine *m, const int *regs, const unsigned *words,
		       unsigned i);

/* DWARF register @regno as a fetch-argument register ("%bp"), or NULL. */
const char *cc_dwreg(const struct cc_machine *m, unsigned regno);

#endif
