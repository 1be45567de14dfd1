/*
 * resolve_dwarf.c - target variables as fetch arguments from DWARF (see
 * resolve_dwarf.h).
 */
#define _GNU_SOURCE
#include "resolve_dwarf.h"
#include "arena.h"
#include "diag.h"
#include "resolve_btf.h"
#include "resolve_cconv.h"
#include "resolve_dwloc.h"
#include "resolve_elf.h"
#include "resolve_sdt.h"

#include <dwarf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- types ---- */

bool rdwarf_type_of(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute at;

	if (!dwarf_attr_integrate(die, DW_AT_type, &at) || !dwarf_formref_die(&at, type))
		return false;
	return dwarf_peel_type(type, type) == 0;
}

static int rdwarf_tag(Dwarf_Die *t)
{
	return dwarf_tag(t);
}

/* char, signed char, unsigned char */
bool rdwarf_is_char(Dwarf_Die *t)
{
	Dwarf_Attribute at;
	Dwarf_Word enc = 0;

	if (rdwarf_tag(t) != DW_TAG_base_type || dwarf_bytesize(t) != 1)
		return false;
	if (dwarf_attr(t, DW_AT_encoding, &at))
		dwarf_formudata(&at, &enc);
	return enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char;
}

/* The fetch type ("s32", "u64") of scalar type @t, or NULL. */
static const char *rdwarf_scalar(struct arena *a, Dwarf_Die *t)
{
	Dwarf_Attribute at;
	Dwarf_Word enc = 0;
	int size, tag = rdwarf_tag(t);
	bool sign = false;

	if (tag == DW_TAG_pointer_type)
		return "u64";
	if (tag != DW_TAG_base_type && tag != DW_TAG_enumeration_type)
		return NULL;
	size = dwarf_bytesize(t);
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return NULL;
	if (dwarf_attr(t, DW_AT_encoding, &at))
		dwarf_formudata(&at, &enc);
	if (enc == DW_ATE_float)
		return NULL;
	sign = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	if (tag == DW_TAG_enumeration_type)
		sign = true;
	return arena_printf(a, "%c%d", sign ? 's' : 'u', size * 8);
}

/* Member @name of struct/union @t (anonymous members searched too). */
static bool rdwarf_member(Dwarf_Die *t, const char *name, Dwarf_Die *m, Dwarf_Word *off)
{
	Dwarf_Attribute at;
	Dwarf_Die child, sub;
	Dwarf_Word o;

	if (dwarf_child(t, &child) != 0)
		return false;
	do {
		const char *n;

		/* a C++ base class: its members are the derived class's */
		if (dwarf_tag(&child) == DW_TAG_inheritance) {
			o = 0;
			if (dwarf_attr(&child, DW_AT_data_member_location, &at))
				dwarf_formudata(&at, &o);
			if (rdwarf_type_of(&child, &sub) && rdwarf_member(&sub, name, m, off)) {
				*off += o;
				return true;
			}
			continue;
		}
		if (dwarf_tag(&child) != DW_TAG_member)
			continue;
		o = 0;
		if (dwarf_attr(&child, DW_AT_data_member_location, &at))
			dwarf_formudata(&at, &o);
		n = dwarf_diename(&child);
		if (n && !strcmp(n, name)) {
			*m = child;
			*off = o;
			return true;
		}
		if (!n && rdwarf_type_of(&child, &sub) && rdwarf_member(&sub, name, m, off)) {
			*off += o;
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* The member name of struct/union/class @t closest to @name (anonymous
   members' and base classes' too), into *@best at distance *@bestd. */
static void rdwarf_closest_member(Dwarf_Die *t, const char *name, const char **best,
				  unsigned *bestd)
{
	Dwarf_Die child, sub;
	const char *n;
	unsigned d;

	if (dwarf_child(t, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		if (tag != DW_TAG_member && tag != DW_TAG_inheritance)
			continue;
		n = tag == DW_TAG_member ? dwarf_diename(&child) : NULL;
		if (n && (d = diag_distance(name, n)) < *bestd)
			*bestd = d, *best = n;
		else if (!n && rdwarf_type_of(&child, &sub))
			rdwarf_closest_member(&sub, name, best, bestd);
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* The error for member @name missing from @s, the type of @l->shown. */
static void rdwarf_no_member(Dwarf_Die *s, const struct rdwarf_loc *l, const char *name,
			     char *err, size_t errlen)
{
	const char *best = NULL;
	int tag = dwarf_tag(s);
	unsigned bestd = 99;

	rdwarf_closest_member(s, name, &best, &bestd);
	fetch_no_member_in(l->shown, tag == DW_TAG_union_type ? "union" :
			   tag == DW_TAG_class_type ? "class" : "struct", dwarf_diename(s), name,
			   diag_is_typo_of(name, bestd) ? best : NULL, err, errlen);
}

/* ---- fetch arguments ---- */

/* The memory @l is in, as a fetch: "+8(%di)", "-20(%bp)", "@+16400". */
static const char *rdwarf_memref(struct arena *a, const struct rdwarf_loc *l)
{
	if (l->fileoff)
		return arena_printf(a, "@+%" PRId64, (int64_t)l->off);
	return arena_printf(a, "%+" PRId64 "(%s)", (int64_t)l->off, l->expr);
}

/* The value of @l as an expression (loading it when it is in memory). */
static const char *rdwarf_value(struct arena *a, const struct rdwarf_loc *l)
{
	return l->mem ? rdwarf_memref(a, l) : l->expr;
}

/* Follow the pointer @l holds: @l becomes the memory it points to. */
static void rdwarf_deref(struct arena *a, struct rdwarf_loc *l)
{
	l->expr = rdwarf_value(a, l);
	l->mem = true;
	l->fileoff = false;
	l->off = 0;
}

static bool rdwarf_is_ref(int tag)
{
	return tag == DW_TAG_reference_type || tag == DW_TAG_rvalue_reference_type;
}

/* A C++ reference is the object it refers to (stap's): read through it. */
static void rdwarf_through_refs(struct arena *a, struct rdwarf_loc *l)
{
	Dwarf_Die e;
	unsigned n = 0;

	while (rdwarf_is_ref(rdwarf_tag(&l->type)) && rdwarf_type_of(&l->type, &e) && n++ < 8) {
		rdwarf_deref(a, l);
		l->type = e;
	}
}

/*
 * A bitfield member: the container is the member's type (DW_AT_byte_size
 * of it), DW_AT_data_bit_offset counts from the start of the struct, and
 * the kernel wants the bit offset from the container's least significant
 * bit (x86_64 and arm64 are little-endian, where these agree).
 */
static void rdwarf_bitfield(Dwarf_Die *m, Dwarf_Die *type, struct rdwarf_loc *l, Dwarf_Word base)
{
	Dwarf_Attribute at;
	Dwarf_Word dbo = 0, bits = 0;
	int csize = dwarf_bytesize(type);

	l->bits = 0;
	if (!dwarf_attr(m, DW_AT_bit_size, &at) || dwarf_formudata(&at, &bits) != 0 ||
	    csize <= 0)
		return;
	if (dwarf_attr(m, DW_AT_data_bit_offset, &at))
		dwarf_formudata(&at, &dbo);
	else
		dbo = (l->off - base) * 8;
	l->off = base + (dbo / ((Dwarf_Word)csize * 8)) * (Dwarf_Word)csize;
	l->bits = (int)bits;
	l->bitoff = (int)(dbo % ((Dwarf_Word)csize * 8));
	l->bits |= csize << 16;		/* container size, in bytes */
}

/* A struct, union or class (typedefs and qualifiers peeled). */
static bool rdwarf_is_aggregate(Dwarf_Die *type)
{
	Dwarf_Die t = *type;
	int tag = rdwarf_tag(&t);

	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	       tag == DW_TAG_class_type;
}

/* The register's value shifted right by @bits: a member in its upper
   bytes, cut to the member's type (and sign) by rdwarf_calc(). */
static struct fetch_calc *rdwarf_shift(struct arena *a, int64_t bits)
{
	struct fetch_calc *c = arena_alloc(a, sizeof(*c));

	memset(c, 0, sizeof(*c));
	c->n = 3;
	c->v = arena_alloc(a, c->n * sizeof(*c->v));
	c->v[0].op = FETCH_C_VAL;
	c->v[0].imm = 0;
	c->v[1].op = FETCH_C_IMM;
	c->v[1].imm = bits;
	c->v[2].op = FETCH_C_SHR;
	c->v[2].imm = 0;
	return c;
}

/*
 * Member @m (at byte @off, of type @type) of a value in parts @l: @l
 * becomes the part holding it, a register's bits past its start a
 * bitfield of the register.  -1 with @err when no one part holds it
 * whole, or that part is optimized out.
 */
static int rdwarf_piece_member(struct arena *a, struct rdwarf_loc *l, const char *name,
			       Dwarf_Word off, Dwarf_Die *type, char *err, size_t errlen)
{
	int size = dwarf_bytesize(type);
	Dwarf_Word start = 0;
	unsigned i;

	for (i = 0; i < l->npieces; start += l->pieces[i++].size) {
		const struct dwloc_piece *p = &l->pieces[i];

		if (off < start || off >= start + p->size)
			continue;
		if (size <= 0 || off + (Dwarf_Word)size > start + p->size ||
		    p->loc.kind == DWLOC_GONE || p->loc.kind == DWLOC_FILE ||
		    p->loc.kind == DWLOC_IMM)
			break;
		l->expr = p->loc.expr;
		l->mem = p->loc.kind == DWLOC_MEM;
		l->off = l->mem ? (Dwarf_Word)p->loc.off + (off - start) : 0;
		if (!l->mem && off > start)	/* upper bytes of the register */
			l->calc = rdwarf_shift(a, (int64_t)(off - start) * 8);
		l->pieces = NULL;
		l->npieces = 0;
		return 0;
	}
	snprintf(err, errlen, "member '%s' of '%s' is not in one register or memory "
		 "location here (the value is in %u parts, some optimized out)",
		 name, l->shown, l->npieces);
	return -1;
}

int rdwarf_step_member(struct arena *a, struct rdwarf_loc *l, const struct ast_comp *c,
			  char *err, size_t errlen)
{
	Dwarf_Die m, s;
	Dwarf_Word off, base;
	int tag;

	rdwarf_through_refs(a, l);
	s = l->type;
	tag = rdwarf_tag(&s);
	if (tag == DW_TAG_pointer_type) {
		if (!rdwarf_type_of(&s, &s)) {
			snprintf(err, errlen, "'->%s' through a void pointer", c->name);
			return -1;
		}
		rdwarf_deref(a, l);
		tag = rdwarf_tag(&s);
	}
	if (!l->pieces && !l->mem && !l->calc && !l->bits && l->expr && l->expr[0] == '%' &&
	    (tag == DW_TAG_structure_type || tag == DW_TAG_union_type)) {
		/* a small struct in one register: its one part */
		struct dwloc_piece *one = arena_alloc(a, sizeof(*one));

		memset(one, 0, sizeof(*one));
		one->size = 8;
		one->loc.kind = DWLOC_REG;
		one->loc.expr = l->expr;
		l->pieces = one;
		l->npieces = 1;
	}
	if (!l->pieces &&
	    fetch_check_member(c->name, tag == DW_TAG_structure_type ||
			       tag == DW_TAG_union_type || tag == DW_TAG_class_type,
			       l->mem, err, errlen) != 0)
		return -1;
	if (!rdwarf_member(&s, c->name, &m, &off)) {
		rdwarf_no_member(&s, l, c->name, err, errlen);
		return -1;
	}
	if (l->pieces) {	/* a struct in parts: the part holding the member */
		l->bits = 0;
		if (!rdwarf_type_of(&m, &l->type) ||
		    rdwarf_piece_member(a, l, c->name, off, &l->type, err, errlen) != 0)
			return -1;
		l->name = arena_printf(a, "%s_%s", l->name, c->name);
		l->shown = arena_printf(a, "%s->%s", l->shown, c->name);
		return 0;
	}
	base = l->off;
	l->off += off;
	if (!rdwarf_type_of(&m, &l->type)) {
		snprintf(err, errlen, "member '%s' has no type", c->name);
		return -1;
	}
	rdwarf_bitfield(&m, &l->type, l, base);
	l->name = arena_printf(a, "%s_%s", l->name, c->name);
	l->shown = arena_printf(a, "%s->%s", l->shown, c->name);
	return 0;
}

int rdwarf_step_index(struct arena *a, struct rdwarf_loc *l, const struct ast_comp *c,
			 char *err, size_t errlen)
{
	Dwarf_Die e, t;
	Dwarf_Word size = 0;
	int tag;

	rdwarf_through_refs(a, l);
	t = l->type;
	tag = rdwarf_tag(&t);
	if (!c->index || c->index->kind != AST_NUM) {
		snprintf(err, errlen, "an index into target memory must be a constant "
			 "(the kernel fetches it before the handler runs)");
		return -1;
	}
	if ((tag != DW_TAG_pointer_type && tag != DW_TAG_array_type) ||
	    !rdwarf_type_of(&t, &e) || dwarf_aggregate_size(&e, &size) != 0) {
		fetch_not_indexable(c->index->num, err, errlen);
		return -1;
	}
	if (tag == DW_TAG_pointer_type)
		rdwarf_deref(a, l);
	else if (!l->mem) {
		snprintf(err, errlen, "'[%" PRId64 "]': the array is not in memory", c->index->num);
		return -1;
	}
	l->off += (Dwarf_Word)c->index->num * size;
	l->type = e;
	l->name = arena_printf(a, "%s_%" PRId64, l->name, c->index->num);
	l->shown = arena_printf(a, "%s[%" PRId64 "]", l->shown, c->index->num);
	return 0;
}

/* The longest fetch argument body the kernel takes (MAX_ARGSTR_LEN). */
#define RDWARF_ARG_MAX 63

static int rdwarf_finish_fetch(struct arena *a, struct rdwarf_loc *l, const struct ast_chain *chain,
			   struct fetch *out, char *err, size_t errlen);

/* The final fetch for @l, checked against the kernel's length limit. */
static int rdwarf_finish(struct arena *a, struct rdwarf_loc *l, const struct ast_chain *chain,
		     struct fetch *out, char *err, size_t errlen)
{
	if (rdwarf_finish_fetch(a, l, chain, out, err, errlen) != 0)
		return -1;
	if (strlen(out->arg) > RDWARF_ARG_MAX) {
		snprintf(err, errlen, "reading '%s' takes a fetch argument of %zu characters "
			 "(\"%s\"); the kernel's limit is %d", l->shown, strlen(out->arg),
			 out->arg, RDWARF_ARG_MAX);
		return -1;
	}
	return 0;
}

bool rdwarf_is_text(Dwarf_Die *t)
{
	const char *n = dwarf_diename(t);

	return rdwarf_is_char(t) && !(n && !strcmp(n, "unsigned char"));
}

/*
 * &x: "VALUE:u64@OFF", the address being VALUE + OFF (the bytecode adds
 * OFF), as resolve_btf.c gives it.
 */
static int rdwarf_addr(struct arena *a, const struct rdwarf_loc *l, struct fetch *out,
		       char *err, size_t errlen)
{
	out->is_string = false;
	if (l->fileoff && l->ip_rel && !l->bits) {
		out->arg = arena_printf(a, "%%ip:u64@%" PRId64, (int64_t)l->off + l->ip_delta);
		return 0;
	}
	if (!l->mem || l->bits || l->fileoff) {
		snprintf(err, errlen, "'%s' has no address (%s)", l->shown, l->bits ?
			 "a bitfield" : l->fileoff && !l->kernel ?
			 "a global: its address is known at a uprobe's entry, not at a .return; "
			 "write @entry(&...)" : l->fileoff ? "a global: ktap cannot take its address" :
			 "it is in a register");
		return -1;
	}
	out->arg = arena_printf(a, "%s:u64@%" PRId64, l->expr, (int64_t)l->off);
	return 0;
}

/* The final fetch for @l: a scalar, or a string for char * and char[]. */
static int rdwarf_finish_fetch(struct arena *a, struct rdwarf_loc *l, const struct ast_chain *chain,
			   struct fetch *out, char *err, size_t errlen)
{
	Dwarf_Die t, e;
	int tag;
	enum ast_mem mem = chain->mem;
	const char *ty;

	out->name = l->name;
	if (mem == AST_MEM_ADDR)
		return rdwarf_addr(a, l, out, err, errlen);
	if (!chain->raw)
		rdwarf_through_refs(a, l);
	t = l->type;
	tag = rdwarf_tag(&t);
	if (mem && tag == DW_TAG_array_type && l->mem) {	/* the array is its address */
		fetch_mem_at(a, rdwarf_memref(a, l), mem, l->kernel, out);
		return 0;
	}
	if (mem) {
		if (tag != DW_TAG_pointer_type && !rdwarf_scalar(a, &t)) {
			snprintf(err, errlen, "'%s' is not an address", l->shown);
			return -1;
		}
		fetch_mem_chain(a, rdwarf_value(a, l), chain, l->kernel, out);
		return 0;
	}
	if (tag == DW_TAG_array_type && l->mem && rdwarf_type_of(&t, &e) && rdwarf_is_char(&e)) {
		out->arg = arena_printf(a, "%s:string", rdwarf_memref(a, l));
		out->is_string = true;
		return 0;
	}
	if (tag == DW_TAG_pointer_type && !chain->raw && rdwarf_type_of(&t, &e) &&
	    rdwarf_is_text(&e)) {
		out->arg = arena_printf(a, "+0(%s):string", rdwarf_value(a, l));
		out->is_string = true;
		return 0;
	}
	if (l->bits) {
		out->arg = arena_printf(a, "%s:b%d@%d/%d", rdwarf_value(a, l),
					l->bits & 0xffff, l->bitoff, (l->bits >> 16) * 8);
		out->is_string = false;
		return 0;
	}
	if (tag == DW_TAG_array_type && l->mem && !l->fileoff && !l->bits) {
		/* an array read as a value is its address, as stap's
		   translate_final_fetch gives it (c_translate_addressof):
		   the base's value plus the offset, added in user space */
		struct fetch_calc *k = rdwarf_shift(a, (int64_t)l->off);

		k->v[2].op = FETCH_C_ADD;
		k->bits = 64;
		out->arg = arena_printf(a, "%s:u64", l->expr);
		out->is_string = false;
		out->calc = k;
		return 0;
	}
	ty = rdwarf_scalar(a, &t);
	if (!ty) {
		snprintf(err, errlen, "'%s' is a %s: read one of its members or elements",
			 l->shown, tag == DW_TAG_structure_type ? "struct" :
			 tag == DW_TAG_union_type ? "union" : tag == DW_TAG_array_type ?
			 "array" : "value ktap cannot fetch (float?)");
		return -1;
	}
	out->arg = arena_printf(a, "%s:%s", rdwarf_value(a, l), ty);
	out->is_string = false;
	return 0;
}

/* Parameter @name of @fn: its position and type. */
static int rdwarf_param(Dwarf_Die *fn, const char *name, unsigned *pos, Dwarf_Die *type)
{
	Dwarf_Die child;
	unsigned i = 0;

	if (dwarf_child(fn, &child) != 0)
		return -1;
	do {
		const char *n;

		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		n = dwarf_diename(&child);
		if (n && !strcmp(n, name)) {
			*pos = i;
			return rdwarf_type_of(&child, type) ? 0 : -1;
		}
		i++;
	} while (dwarf_siblingof(&child, &child) == 0);
	return -1;
}

/* The integer argument registers parameter DIE @p takes (cc_param_regs()),
   and the 8-byte words it fills in memory. */
static int rdwarf_param_regs(Dwarf_Die *p, const struct cc_machine *cc, unsigned *words)
{
	Dwarf_Attribute at;
	Dwarf_Word enc = 0, size = 8;
	Dwarf_Die t;
	int tag;

	*words = 1;
	if (!rdwarf_type_of(p, &t) || dwarf_aggregate_size(&t, &size) != 0)
		return 1;
	*words = size > 8 ? (unsigned)((size + 7) / 8) : 1;
	tag = dwarf_tag(&t);
	if (tag == DW_TAG_base_type && dwarf_attr(&t, DW_AT_encoding, &at))
		dwarf_formudata(&at, &enc);
	return cc_param_regs(cc, enc == DW_ATE_float || enc == DW_ATE_complex_float,
			     tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
			     tag == DW_TAG_class_type, (int64_t)size);
}

/*
 * The argument slot of formal parameter @pos of @fn for cc_arg()
 * (cc_param_slot(): a struct by value before it takes one register per
 * 8 bytes, a double none), or -1 when it is itself floating-point.
 */
static int rdwarf_param_slot(Dwarf_Die *fn, unsigned pos, const struct cc_machine *cc)
{
	Dwarf_Die child;
	int regs[64];
	unsigned words[64], i = 0;

	if (pos >= 64 || dwarf_child(fn, &child) != 0)
		return (int)(cc_nregs(cc) + pos);
	do {
		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		regs[i] = rdwarf_param_regs(&child, cc, &words[i]);
		if (i++ == pos)
			break;
	} while (dwarf_siblingof(&child, &child) == 0);
	if (i <= pos)
		return (int)pos;
	return regs[pos] == 0 ? -1 : (int)cc_param_slot(cc, regs, words, pos);
}

/* The calling convention of @fn's file (or kernel), or NULL + @err. */
static const struct cc_machine *rdwarf_cc(const struct fetch_site *fn, char *err, size_t errlen)
{
	if (fn->file && fn->file->cc)
		return fn->file->cc;
	/* A kernel function without a file (no types at all): the running kernel's. */
	if (!fn->file && fn->kernel && cc_host())
		return cc_host();
	snprintf(err, errlen, "%s is for ELF machine %u, whose calling convention ktap "
		 "does not know (it knows x86_64 and aarch64)", fn->path,
		 fn->file ? fn->file->e_machine : 0);
	return NULL;
}

/*
 * Variable @var (its DIE, @frame its function's) read through its DWARF
 * location at @fn->addr; @shown names it in messages.
 */
int rdwarf_var_loc(struct arena *a, const struct fetch_site *fn, Dwarf_Die *var,
		      Dwarf_Die *frame, const char *shown, struct rdwarf_loc *l, char *err,
		      size_t errlen)
{
	struct dwloc_at at = { fn->file->elf, fn->file->dw, frame, fn->addr, fn->file->cc };
	struct dwloc loc;
	char why[256];

	if (!rdwarf_type_of(var, &l->type)) {
		snprintf(err, errlen, "'%s' has no type in the debug information", shown);
		return -1;
	}
	if (dwloc_var(a, &at, var, &loc, why, sizeof(why)) != DWLOC_OK) {
		snprintf(err, errlen, "target variable '%s' is not available at this address "
			 "(pc: 0x%" PRIx64 " in %s): %s", shown, fn->addr, fn->name, why);
		return -1;
	}
	l->expr = loc.expr;
	l->off = (Dwarf_Word)loc.off;
	l->mem = loc.kind == DWLOC_MEM || loc.kind == DWLOC_FILE;
	l->fileoff = loc.kind == DWLOC_FILE;
	/* "@+OFF" is OFF from where the probe's file is mapped, and %ip at
	   a uprobe is that base plus the probe's offset: &global is
	   %ip + OFF - offset (not at a uretprobe, whose %ip is the caller's) */
	l->ip_rel = l->fileoff && !fn->kernel && !fn->btf;
	l->ip_delta = -(int64_t)fn->offset;
	l->calc = loc.kind == DWLOC_CALC ? loc.calc : NULL;
	l->pieces = loc.kind == DWLOC_PIECES ? loc.pieces : NULL;
	l->npieces = loc.kind == DWLOC_PIECES ? loc.npieces : 0;
	return 0;
}

/* $return: the return register, typed by the function's DWARF. */
static int rdwarf_return(const struct fetch_site *fn, bool ret, struct rdwarf_loc *l, char *err,
		     size_t errlen)
{
	const struct cc_machine *cc;

	l->name = "ret";
	if (!ret) {
		snprintf(err, errlen, "$return is only available in .return probes");
		return -1;
	}
	if (!(cc = rdwarf_cc(fn, err, errlen)))
		return -1;
	l->expr = cc->ret;
	if (!fn->die)
		return 1;
	if (!rdwarf_type_of(fn->die, &l->type)) {
		snprintf(err, errlen, "function %s returns nothing", fn->name);
		return -1;
	}
	return 0;
}

/* $var that is not a parameter at a function's entry: by scope and location. */
static int rdwarf_scoped(struct arena *a, const struct fetch_site *fn, const char *var, bool ret,
		     struct rdwarf_loc *l, char *err, size_t errlen)
{
	Dwarf_Die vd, frame;
	unsigned pos;
	bool file_scope;

	if (ret) {
		Dwarf_Die t;

		/*
		 * A variable of the file (a global, @var("counter")) lives at
		 * its address, still there when the function returns.
		 */
		if (rdwarf_param(fn->die, var + 1, &pos, &t) != 0 &&
		    rdwarf_lookup(fn, var + 1, &vd, &frame, &file_scope) && file_scope) {
			int r = rdwarf_var_loc(a, fn, &vd, &frame, var, l, err, errlen);

			l->ip_rel = false;	/* a uretprobe's %ip is the caller's */
			return r;
		}
		if (rdwarf_param(fn->die, var + 1, &pos, &t) == 0)
			snprintf(err, errlen, "parameter %s is not available in a return probe "
				 "(its register is reused): use @entry(%s)", var, var);
		else
			snprintf(err, errlen, "function %s has no parameter '%s'", fn->name,
				 var + 1);
		return -1;
	}
	if (!rdwarf_lookup(fn, var + 1, &vd, &frame, NULL)) {
		if (fn->stmt)
			snprintf(err, errlen, "no variable '%s' in scope at this address "
				 "(pc: 0x%" PRIx64 " in %s)", var + 1, fn->addr, fn->name);
		else
			snprintf(err, errlen, "function %s has no parameter '%s'", fn->name,
				 var + 1);
		return -1;
	}
	return rdwarf_var_loc(a, fn, &vd, &frame, var, l, err, errlen);
}

/*
 * The starting point of $var: $return, $argN, or a variable.  At a
 * function's entry a parameter is in its calling-convention register
 * (exact there at any optimisation level); anything else, and every
 * variable at a statement probe, is read through its DWARF location.
 * 0, 1 (raw: no type), or -1 + @err.
 */
int rdwarf_base(struct arena *a, const struct fetch_site *fn, const char *var, bool ret,
		   struct rdwarf_loc *l, char *err, size_t errlen)
{
	const struct cc_machine *cc;
	unsigned pos;
	char *end;
	long n;
	int slot;

	memset(l, 0, sizeof(*l));
	l->kernel = fn->kernel;
	l->name = arena_strdup(a, var + 1);
	l->shown = var;
	if (!strcmp(var, "$return"))
		return rdwarf_return(fn, ret, l, err, errlen);
	if (!strncmp(var, "$arg", 4) && (n = strtol(var + 4, &end, 10)) > 0 && !*end) {
		if (fn->stmt) {
			snprintf(err, errlen, "%s is only available at a function's entry: "
				 "name the variable instead", var);
			return -1;
		}
		if (!(cc = rdwarf_cc(fn, err, errlen)))
			return -1;
		l->expr = cc_arg(a, cc, (unsigned)n - 1);
		return 1;	/* raw: no type */
	}
	if (!fn->die && fn->kernel) {
		snprintf(err, errlen, "no type information for %s (no BTF or DWARF describes "
			 "it): use $arg1, $arg2 ... (raw registers)", fn->name);
		return -1;
	}
	if (!fn->die) {
		snprintf(err, errlen, "%s has no debug information for %s: use $arg1, $arg2 ... "
			 "(raw registers), or build it with -g", fn->path, var);
		return -1;
	}
	if (fn->stmt || ret || rdwarf_param(fn->die, var + 1, &pos, &l->type) != 0)
		return rdwarf_scoped(a, fn, var, ret, l, err, errlen);
	/* A struct passed by value is in registers in parts, or on the
	   stack: where its DWARF location says (DW_OP_piece ...). */
	if (rdwarf_is_aggregate(&l->type))
		return rdwarf_scoped(a, fn, var, ret, l, err, errlen);
	if (!(cc = rdwarf_cc(fn, err, errlen)))
		return -1;
	if ((slot = rdwarf_param_slot(fn->die, pos, cc)) < 0) {
		snprintf(err, errlen, "parameter %s is floating-point: it is passed in a vector "
			 "register, which fetch arguments cannot read", var);
		return -1;
	}
	l->expr = cc_arg(a, cc, (unsigned)slot);
	return 0;
}

/* Follow @chain from @l, then make the fetch. */
/*
 * A value DWARF computes from a register (@l->calc): the register, a
 * 64-bit fetch, and the program that gives the value, cut to the
 * variable's integer type.  Nothing can be read through it.
 */
static int rdwarf_calc(struct arena *a, struct rdwarf_loc *l, const struct ast_chain *chain,
		       struct fetch *out, char *err, size_t errlen)
{
	const char *type = rdwarf_scalar(a, &l->type);

	if (chain->n || chain->mem || !type) {
		snprintf(err, errlen, "'%s' is a value the program computes from a register "
			 "(DWARF's DW_OP_stack_value): it %s", l->shown, !type ?
			 "is not an integer or a pointer" : "has no memory to read through");
		return -1;
	}
	l->calc->is_signed = type[0] == 's';
	l->calc->bits = (unsigned)atoi(type + 1);
	out->name = l->name;
	out->arg = arena_printf(a, "%s:u64", l->expr);
	out->is_string = false;
	out->calc = l->calc;
	return 0;
}

static int rdwarf_walk(struct arena *a, struct rdwarf_loc *l, const struct ast_chain *chain,
		   struct fetch *out, char *err, size_t errlen)
{
	unsigned i;

	if (l->calc)
		return rdwarf_calc(a, l, chain, out, err, errlen);
	for (i = 0; i < chain->n; i++) {
		const struct ast_comp *c = &chain->v[i];

		if ((c->is_index ? rdwarf_step_index(a, l, c, err, errlen) :
				   rdwarf_step_member(a, l, c, err, errlen)) != 0)
			return -1;
		if (l->calc) {	/* a member in a register's upper bytes */
			struct ast_chain rest = *chain;

			rest.n -= i + 1;
			rest.v += i + 1;
			return rdwarf_calc(a, l, &rest, out, err, errlen);
		}
	}
	return rdwarf_finish(a, l, chain, out, err, errlen);
}

const struct fetch_site *rdwarf_sdt_scope(struct arena *a, const struct fetch_site *fn)
{
	struct fetch_site *at = arena_alloc(a, sizeof(*at));

	*at = *fn;
	at->sdt = NULL;
	at->stmt = true;
	at->die = NULL;		/* so the frame is the one at the address, or none */
	at->die = rdwarf_frame_at(a, at);
	return at;
}

/* $argN (N digits): a marker's or a function's raw argument, not $argc. */
bool rdwarf_is_argn(const char *var)
{
	return !strncmp(var, "$arg", 4) && var[4] >= '0' && var[4] <= '9' &&
	       strspn(var + 4, "0123456789") == strlen(var + 4);
}

int rdwarf_fetch(struct arena *a, const struct fetch_site *fn, const char *var,
	     const struct ast_chain *chain, bool ret, struct fetch *out,
	     char *err, size_t errlen)
{
	struct rdwarf_loc l;
	int r;

	out->calc = NULL;
	if (fn->btf)
		return rbtf_fetch(a, fn->btf, fn->proto, fn->name, var, chain, ret, out, err,
				errlen);
	if (fn->sdt && (rdwarf_is_argn(var) || !fn->file->dw))
		return rsdt_fetch(a, fn, var, chain, out, err, errlen);
	if (fn->sdt)	/* stap's: another $var is the program's, in scope there */
		return rdwarf_fetch(a, rdwarf_sdt_scope(a, fn), var, chain, ret, out, err, errlen);
	r = rdwarf_base(a, fn, var, ret, &l, err, errlen);
	if (r < 0)
		return -1;
	if (chain->pretty) {
		snprintf(err, errlen, "pretty printing ('%s$') is not available here", var);
		return -1;
	}
	if (r == 1) {	/* untyped: a raw 64-bit register */
		if (chain->n) {
			snprintf(err, errlen, "%s has no type: '->' and '[]' need debug "
				 "information (or @cast)", var);
			return -1;
		}
		out->name = l.name;
		if (chain->mem) {
			fetch_mem_chain(a, l.expr, chain, fn->kernel, out);
			return 0;
		}
		out->arg = arena_printf(a, "%s:s64", l.expr);
		out->is_string = false;
		return 0;
	}
	return rdwarf_walk(a, &l, chain, out, err, errlen);
}

/* A definition of tag @want named @n at the top of a CU of @dw. */
static bool rdwarf_find_type(Dwarf *dw, int want, const char *n, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	Dwarf_Die cu, child;
	size_t hsize;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				const char *cn = dwarf_diename(&child);

				if (dwarf_tag(&child) == want && cn && !strcmp(cn, n) &&
				    !dwarf_hasattr(&child, DW_AT_declaration)) {
					*out = child;
					return want != DW_TAG_typedef ||
					       dwarf_peel_type(out, out) == 0;
				}
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	return false;
}

/*
 * A struct, union or typedef named @name anywhere in @dw: "struct x" and
 * "union x" by tag; a bare name ("file"), as stap looks one up, a
 * typedef, else a struct, else a union of that name.
 */
static bool rdwarf_named_type(Dwarf *dw, const char *name, Dwarf_Die *out)
{
	if (!strncmp(name, "struct ", 7))
		return rdwarf_find_type(dw, DW_TAG_structure_type, name + 7, out);
	if (!strncmp(name, "union ", 6))
		return rdwarf_find_type(dw, DW_TAG_union_type, name + 6, out);
	return rdwarf_find_type(dw, DW_TAG_typedef, name, out) ||
	       rdwarf_find_type(dw, DW_TAG_structure_type, name, out) ||
	       rdwarf_find_type(dw, DW_TAG_union_type, name, out);
}

int rdwarf_cast_base(const struct fetch_site *fn, const char *type, struct rdwarf_loc *l,
		     char *err, size_t errlen)
{
	memset(l, 0, sizeof(*l));
	l->kernel = fn->kernel;
	l->mem = true;
	if (!fn->file || !fn->file->dw || !rdwarf_named_type(fn->file->dw, type, &l->type)) {
		snprintf(err, errlen, "no type \"%s\" in the debug information of %s", type,
			 fn->path);
		return -1;
	}
	return 0;
}

int rdwarf_cast(struct arena *a, const struct fetch_site *fn, const char *value,
	    const char *name, const char *type, const struct ast_chain *chain,
	    struct fetch *out, char *err, size_t errlen)
{
	struct rdwarf_loc l;

	if (fn->btf)
		return rbtf_cast(a, fn->btf, value, name, type, chain, out, err, errlen);
	if (rdwarf_cast_base(fn, type, &l, err, errlen) != 0)
		return -1;
	l.expr = value;
	l.name = arena_printf(a, "%s_cast", name);
	l.shown = arena_printf(a, "@cast(..., \"%s\")", type);
	return rdwarf_walk(a, &l, chain, out, err, errlen);
}

unsigned rdwarf_params(struct arena *a, const struct fetch_site *fn, const char ***names)
{
	Dwarf_Die child;
	unsigned n = 0;
	size_t cap = 0;

	*names = NULL;
	if (fn->btf)
		return rbtf_params(a, fn->btf, fn->proto, names);
	if (!fn->die || dwarf_child(fn->die, &child) != 0)
		return 0;
	do {
		if (dwarf_tag(&child) != DW_TAG_formal_parameter || !dwarf_diename(&child))
			continue;
		*names = arena_grow(a, *names, n, &cap, sizeof(**names));
		(*names)[n++] = arena_strdup(a, dwarf_diename(&child));
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}
