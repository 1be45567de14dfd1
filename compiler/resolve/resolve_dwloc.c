/*
 * resolve_dwloc.c - see resolve_dwloc.h.
 */
#include "resolve_dwloc.h"
#include "arena.h"
#include "resolve_cconv.h"

#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A name for the operations ktap refuses, for the message. */
static const char *dwloc_opname(unsigned op)
{
	switch (op) {
	case DW_OP_piece: return "DW_OP_piece";
	case DW_OP_bit_piece: return "DW_OP_bit_piece";
	case DW_OP_stack_value: return "DW_OP_stack_value";
	case DW_OP_implicit_value: return "DW_OP_implicit_value";
	case DW_OP_entry_value: case DW_OP_GNU_entry_value: return "DW_OP_entry_value";
	case DW_OP_implicit_pointer: case DW_OP_GNU_implicit_pointer:
		return "DW_OP_implicit_pointer";
	case DW_OP_deref: return "DW_OP_deref";
	case DW_OP_plus_uconst: return "DW_OP_plus_uconst";
	case DW_OP_call_frame_cfa: return "DW_OP_call_frame_cfa";
	default: return NULL;
	}
}

static enum dwloc_err dwloc_unsupported(const Dwarf_Op *ops, size_t n, char *err,
					size_t errlen)
{
	size_t i;
	const char *name = NULL;

	for (i = 0; i < n && !name; i++)
		name = dwloc_opname(ops[i].atom);
	if (name)
		snprintf(err, errlen, "its location uses %s, which ktap cannot fetch yet", name);
	else
		snprintf(err, errlen, "its location is a %zu-operation DWARF expression "
			 "(first 0x%x), which ktap cannot fetch yet", n, n ? ops[0].atom : 0);
	return DWLOC_UNSUPPORTED;
}

/* DWARF register @regno's name, or NULL + @err. */
static const char *dwloc_reg(const struct dwloc_at *at, unsigned regno, char *err,
			     size_t errlen)
{
	const char *r = at->cc ? cc_dwreg(at->cc, regno) : NULL;

	if (!r)
		snprintf(err, errlen, "it lives in DWARF register %u, which has no name in "
			 "probe fetch arguments on this machine", regno);
	return r;
}

/* Register number and offset of a one-operation register (+ offset). */
static bool dwloc_regop(const Dwarf_Op *op, unsigned *reg, int64_t *off, bool *in_reg)
{
	*off = 0;
	*in_reg = false;
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31) {
		*reg = op->atom - DW_OP_reg0;
		*in_reg = true;
	} else if (op->atom == DW_OP_regx) {
		*reg = (unsigned)op->number;
		*in_reg = true;
	} else if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
	} else if (op->atom == DW_OP_bregx) {
		*reg = (unsigned)op->number;
		*off = (int64_t)op->number2;
	} else {
		return false;
	}
	return true;
}

/* The CFA at @at->pc as register + offset, from .eh_frame, else .debug_frame. */
static enum dwloc_err dwloc_cfa(const struct dwloc_at *at, unsigned *reg, int64_t *off,
				char *err, size_t errlen)
{
	Dwarf_CFI *cfis[2] = { dwarf_getcfi_elf(at->elf), dwarf_getcfi(at->dw) };
	enum dwloc_err r = DWLOC_UNSUPPORTED;
	bool in_reg;
	int i;

	snprintf(err, errlen, "no call frame information covers its address");
	for (i = 0; i < 2 && r != DWLOC_OK; i++) {
		Dwarf_Frame *frame = NULL;
		Dwarf_Op *ops;
		size_t n;

		if (!cfis[i] || dwarf_cfi_addrframe(cfis[i], at->pc, &frame) != 0)
			continue;
		if (dwarf_frame_cfa(frame, &ops, &n) == 0 && n == 1 &&
		    dwloc_regop(&ops[0], reg, off, &in_reg) && !in_reg)
			r = DWLOC_OK;
		else
			snprintf(err, errlen, "its frame's CFA is not a register plus an offset");
		free(frame);
	}
	if (cfis[0])
		dwarf_cfi_end(cfis[0]);	/* the .debug_frame one belongs to @at->dw */
	return r;
}

/* The frame base at @at->pc: register @reg (+ @off, in memory terms). */
static enum dwloc_err dwloc_frame_base(const struct dwloc_at *at, unsigned *reg,
				       int64_t *off, char *err, size_t errlen)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t n;
	bool in_reg;

	if (!at->frame || !dwarf_attr_integrate(at->frame, DW_AT_frame_base, &attr) ||
	    dwarf_getlocation_addr(&attr, at->pc, &ops, &n, 1) != 1 || n != 1) {
		snprintf(err, errlen, "its function has no usable frame base here");
		return DWLOC_UNSUPPORTED;
	}
	if (ops[0].atom == DW_OP_call_frame_cfa)
		return dwloc_cfa(at, reg, off, err, errlen);
	if (dwloc_regop(&ops[0], reg, off, &in_reg))
		return DWLOC_OK;	/* DW_OP_regN: the frame base is the register's value */
	snprintf(err, errlen, "its function's frame base is not a register or the CFA");
	return DWLOC_UNSUPPORTED;
}

bool dwloc_file_offset(Elf *elf, Dwarf_Addr pc, Dwarf_Addr addr, int64_t *off)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n) != 0)
		return false;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (pc >= ph.p_vaddr && pc < ph.p_vaddr + ph.p_filesz) {
			*off = (int64_t)(addr - (ph.p_vaddr - ph.p_offset));
			return true;
		}
	}
	return false;
}

/* A constant operation (DW_OP_lit*, DW_OP_const*): its value in *@v. */
static bool dwloc_const_op(const Dwarf_Op *o, int64_t *v)
{
	if (o->atom >= DW_OP_lit0 && o->atom <= DW_OP_lit31)
		*v = o->atom - DW_OP_lit0;
	else if (o->atom == DW_OP_constu || o->atom == DW_OP_const1u ||
		 o->atom == DW_OP_const2u || o->atom == DW_OP_const4u ||
		 o->atom == DW_OP_const8u || o->atom == DW_OP_consts ||
		 o->atom == DW_OP_const1s || o->atom == DW_OP_const2s ||
		 o->atom == DW_OP_const4s || o->atom == DW_OP_const8s)
		*v = (int64_t)o->number;
	else
		return false;
	return true;
}

/* A constant computed by DWARF: DW_OP_lit*, DW_OP_const* then stack_value. */
static bool dwloc_const(const Dwarf_Op *ops, size_t n, int64_t *v)
{
	return n == 2 && ops[1].atom == DW_OP_stack_value && dwloc_const_op(&ops[0], v);
}

static void dwloc_imm(struct arena *a, int64_t v, struct dwloc *out)
{
	out->kind = DWLOC_IMM;
	/* The kernel wants a leading digit or sign after the backslash. */
	out->expr = arena_printf(a, "\\%" PRId64, v);
	out->off = 0;
}

/*
 * A location-list entry of zero length at exactly @pc (a location view:
 * GCC's [pc, pc) entries say where a value is at that address's views,
 * e.g. an inlined copy's parameter at the copy's entry, where its probe
 * fires, before the instruction at @pc runs).  1 with *@ops, else 0.
 */
static int dwloc_at_view(Dwarf_Attribute *attr, Dwarf_Addr pc, Dwarf_Op **ops, size_t *n)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_getlocations(attr, off, &base, &start, &end, ops, n)) > 0)
		if (start == pc && end == pc && *n)
			return 1;
	return 0;
}

/* The stack machine's operation for DWARF operation @atom, or -1. */
static int dwloc_calc_op(unsigned atom)
{
	switch (atom) {
	case DW_OP_plus: return FETCH_C_ADD;
	case DW_OP_minus: return FETCH_C_SUB;
	case DW_OP_mul: return FETCH_C_MUL;
	case DW_OP_div: return FETCH_C_DIV;
	case DW_OP_mod: return FETCH_C_MOD;
	case DW_OP_and: return FETCH_C_AND;
	case DW_OP_or: return FETCH_C_OR;
	case DW_OP_xor: return FETCH_C_XOR;
	case DW_OP_shl: return FETCH_C_SHL;
	case DW_OP_shr: return FETCH_C_SHR;
	case DW_OP_shra: return FETCH_C_SHRA;
	case DW_OP_neg: return FETCH_C_NEG;
	case DW_OP_not: return FETCH_C_NOT;
	default: return -1;
	}
}

static void dwloc_calc_push(struct arena *a, struct fetch_calc *c, size_t *cap,
			    enum fetch_calc_op op, int64_t imm)
{
	c->v = arena_grow(a, c->v, c->n, cap, sizeof(*c->v));
	c->v[c->n].op = op;
	c->v[c->n++].imm = imm;
}

/*
 * A value computed from one register: DW_OP_bregN OFF, constants and
 * arithmetic, then DW_OP_stack_value ("n * 3" of an optimised variable).
 * DWLOC_OK with @out a DWLOC_CALC, DWLOC_UNSUPPORTED when it is not one
 * (memory, a second register, an entry value...).
 */
static enum dwloc_err dwloc_calc(struct arena *a, const struct dwloc_at *at,
				 const Dwarf_Op *ops, size_t n, struct dwloc *out,
				 char *err, size_t errlen)
{
	struct fetch_calc *c = arena_alloc(a, sizeof(*c));
	unsigned reg = 0, regs = 0, depth = 0;
	size_t i, cap = 0;
	int64_t off, v;
	bool in_reg;
	int op;

	memset(c, 0, sizeof(*c));
	if (n < 2 || ops[n - 1].atom != DW_OP_stack_value)
		return dwloc_unsupported(ops, n, err, errlen);
	for (i = 0; i + 1 < n; i++) {
		const Dwarf_Op *o = &ops[i];

		if (dwloc_regop(o, &reg, &off, &in_reg) && !in_reg && !regs++) {
			dwloc_calc_push(a, c, &cap, FETCH_C_VAL, 0);	/* reg + off */
			if (off) {
				dwloc_calc_push(a, c, &cap, FETCH_C_IMM, off);
				dwloc_calc_push(a, c, &cap, FETCH_C_ADD, 0);
			}
			depth++;
		} else if (dwloc_const_op(o, &v)) {
			dwloc_calc_push(a, c, &cap, FETCH_C_IMM, v);
			depth++;
		} else if (o->atom == DW_OP_plus_uconst && depth >= 1) {
			dwloc_calc_push(a, c, &cap, FETCH_C_IMM, (int64_t)o->number);
			dwloc_calc_push(a, c, &cap, FETCH_C_ADD, 0);
		} else if ((op = dwloc_calc_op(o->atom)) >= 0 &&
			   depth >= (op >= FETCH_C_NEG ? 1u : 2u)) {
			dwloc_calc_push(a, c, &cap, (enum fetch_calc_op)op, 0);
			depth -= op >= FETCH_C_NEG ? 0 : 1;
		} else {
			return dwloc_unsupported(ops, n, err, errlen);
		}
	}
	if (regs != 1 || depth != 1)
		return dwloc_unsupported(ops, n, err, errlen);
	out->kind = DWLOC_CALC;
	out->calc = c;
	out->off = 0;
	out->expr = dwloc_reg(at, reg, err, errlen);
	return out->expr ? DWLOC_OK : DWLOC_UNSUPPORTED;
}

static enum dwloc_err dwloc_expr(struct arena *a, const struct dwloc_at *at,
				 const Dwarf_Op *ops, size_t n, struct dwloc *out,
				 char *err, size_t errlen);

/*
 * A value in parts: LOC DW_OP_piece SIZE ..., each LOC one operation or
 * none (that part is optimized out).  Parts of bits (DW_OP_bit_piece)
 * and computed parts are refused.
 */
static enum dwloc_err dwloc_pieces(struct arena *a, const struct dwloc_at *at,
				   const Dwarf_Op *ops, size_t n, struct dwloc *out,
				   char *err, size_t errlen)
{
	struct dwloc_piece *v = NULL;
	size_t i, start = 0, cap = 0;
	unsigned np = 0;

	for (i = 0; i < n; i++) {
		if (ops[i].atom != DW_OP_piece)
			continue;
		if (i - start > 1)
			return dwloc_unsupported(ops, n, err, errlen);
		v = arena_grow(a, v, np, &cap, sizeof(*v));
		memset(&v[np], 0, sizeof(v[np]));
		v[np].size = ops[i].number;
		v[np].loc.kind = DWLOC_GONE;
		if (i > start && dwloc_expr(a, at, &ops[start], 1, &v[np].loc, err, errlen) != DWLOC_OK)
			return DWLOC_UNSUPPORTED;
		np++;
		start = i + 1;
	}
	if (start != n || !np)
		return dwloc_unsupported(ops, n, err, errlen);
	out->kind = DWLOC_PIECES;
	out->pieces = v;
	out->npieces = np;
	out->expr = NULL;
	out->off = 0;
	return DWLOC_OK;
}

/* One expression @ops (@n operations) as a location. */
static enum dwloc_err dwloc_expr(struct arena *a, const struct dwloc_at *at,
				 const Dwarf_Op *ops, size_t n, struct dwloc *out,
				 char *err, size_t errlen)
{
	unsigned reg = 0;
	int64_t off = 0, v;
	bool in_reg;
	enum dwloc_err r;

	if (dwloc_const(ops, n, &v)) {
		dwloc_imm(a, v, out);
		return DWLOC_OK;
	}
	if (n > 1 && ops[n - 1].atom == DW_OP_piece)
		return dwloc_pieces(a, at, ops, n, out, err, errlen);
	if (n > 1)
		return dwloc_calc(a, at, ops, n, out, err, errlen);
	if (n != 1)
		return dwloc_unsupported(ops, n, err, errlen);
	if (ops[0].atom == DW_OP_addr) {
		out->kind = DWLOC_FILE;
		if (!dwloc_file_offset(at->elf, at->pc, ops[0].number, &out->off)) {
			snprintf(err, errlen, "the probe is not in a loaded segment");
			return DWLOC_UNSUPPORTED;
		}
		return DWLOC_OK;
	}
	if (ops[0].atom == DW_OP_fbreg) {
		r = dwloc_frame_base(at, &reg, &off, err, errlen);
		if (r != DWLOC_OK)
			return r;
		out->off = off + (int64_t)ops[0].number;
	} else if (dwloc_regop(&ops[0], &reg, &out->off, &in_reg)) {
		if (in_reg) {
			out->kind = DWLOC_REG;
			out->expr = dwloc_reg(at, reg, err, errlen);
			return out->expr ? DWLOC_OK : DWLOC_UNSUPPORTED;
		}
	} else {
		return dwloc_unsupported(ops, n, err, errlen);
	}
	out->kind = DWLOC_MEM;
	out->expr = dwloc_reg(at, reg, err, errlen);
	return out->expr ? DWLOC_OK : DWLOC_UNSUPPORTED;
}

enum dwloc_err dwloc_var(struct arena *a, const struct dwloc_at *at, Dwarf_Die *var,
			 struct dwloc *out, char *err, size_t errlen)
{
	Dwarf_Attribute attr;
	Dwarf_Sword sv;
	Dwarf_Op *ops;
	size_t n;
	int got;

	if (dwarf_attr_integrate(var, DW_AT_const_value, &attr)) {
		if (dwarf_formsdata(&attr, &sv) != 0) {
			Dwarf_Block b;

			if (dwarf_formblock(&attr, &b) == 0)
				snprintf(err, errlen, "its constant value is %zu bytes in the "
					 "DWARF (DW_AT_const_value of a struct or array), which "
					 "ktap does not read yet", (size_t)b.length);
			else
				snprintf(err, errlen, "its constant value is not a number");
			return DWLOC_UNSUPPORTED;
		}
		dwloc_imm(a, sv, out);
		return DWLOC_OK;
	}
	if (!dwarf_attr_integrate(var, DW_AT_location, &attr)) {
		snprintf(err, errlen, "it has no location (optimized out)");
		return DWLOC_NONE;
	}
	got = dwarf_getlocation_addr(&attr, at->pc, &ops, &n, 1);
	if (got <= 0 || n == 0)
		got = dwloc_at_view(&attr, at->pc, &ops, &n);
	if (got <= 0 || n == 0) {
		snprintf(err, errlen, "no location covers this address (optimized out here)");
		return DWLOC_NONE;
	}
	return dwloc_expr(a, at, ops, n, out, err, errlen);
}
