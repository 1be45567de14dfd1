/*
 * resolve_dwloc.h - pass 2: where a DWARF variable is at one address, as the
 * start of a probe fetch argument (the lowering perf probe does in
 * convert_variable_location).  One operation is understood:
 *   DW_OP_reg*              the value is in a register:  %reg
 *   DW_OP_breg* N           the value is in memory:      +N(%reg)
 *   DW_OP_fbreg N           memory at the frame base + N, the frame base
 *                           being the function's DW_AT_frame_base: the
 *                           CFA at the address (from .eh_frame or
 *                           .debug_frame), or a register (+ offset)
 *   DW_OP_addr A            memory in the binary's own data: @+OFFSET
 *   DW_AT_const_value, DW_OP_lit or DW_OP_const then DW_OP_stack_value
 *                           a constant: \VALUE
 *   LOC DW_OP_piece N ...   a value in parts (a struct passed in two
 *                           registers): each part one of the above, or
 *                           nothing (optimized out)
 * Location lists give the expression that covers the address.  Anything
 * else (entry values, most computed values) is refused with a reason.
 */
#ifndef KTAP_RESOLVE_DWLOC_H
#define KTAP_RESOLVE_DWLOC_H

#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>

#include "fetch.h"
#include <stddef.h>
#include <stdint.h>

struct arena;
struct cc_machine;

/* The address and what it needs. */
struct dwloc_at {
	Elf *elf;			/* the binary: .eh_frame and PT_LOADs */
	Dwarf *dw;			/* its DWARF (maybe from a separate file) */
	Dwarf_Die *frame;		/* the subprogram (DW_AT_frame_base) */
	Dwarf_Addr pc;			/* link-time address of the probe */
	const struct cc_machine *cc;
};

enum dwloc_kind {
	DWLOC_REG,	/* the value is @expr (a register) */
	DWLOC_MEM,	/* the value is in memory at @expr + @off */
	DWLOC_FILE,	/* the value is in memory at file offset @off: "@+off" */
	DWLOC_IMM,	/* the value is @expr ("\5") */
	DWLOC_CALC,	/* the value is @calc of register @expr (bits not set yet) */
	DWLOC_PIECES,	/* the value is in @npieces parts, @pieces */
	DWLOC_GONE,	/* a part that is nowhere (optimized out) */
};

struct dwloc_piece;

struct dwloc {
	enum dwloc_kind kind;
	const char *expr;
	int64_t off;
	struct fetch_calc *calc;
	const struct dwloc_piece *pieces;
	unsigned npieces;
};

/* One part of a DWLOC_PIECES value: @size bytes, at @loc. */
struct dwloc_piece {
	uint64_t size;
	struct dwloc loc;	/* not DWLOC_PIECES */
};

/* Why dwloc_var() failed. */
enum dwloc_err { DWLOC_OK, DWLOC_NONE, DWLOC_UNSUPPORTED };

/*
 * The location of variable or parameter @var at @at->pc.  DWLOC_OK, or
 * DWLOC_NONE (no location covers the address: optimized out there) /
 * DWLOC_UNSUPPORTED with the reason in @err.
 */
enum dwloc_err dwloc_var(struct arena *a, const struct dwloc_at *at, Dwarf_Die *var,
			 struct dwloc *out, char *err, size_t errlen);

/*
 * The "@+OFFSET" uprobes want for link-time address @addr, given the
 * probe at @pc: the kernel adds the probe's own load bias, so the
 * offset is @addr less the bias of @pc's segment (not @addr's file
 * offset, which differs for .data and .bss).  false when @pc is in no
 * PT_LOAD.
 */
bool dwloc_file_offset(Elf *elf, Dwarf_Addr pc, Dwarf_Addr addr, int64_t *off);

#endif
