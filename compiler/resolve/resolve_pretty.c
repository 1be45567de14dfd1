/*
 * resolve_pretty.c - $var$, $var$$ and $$vars as stap prints them, from
 * DWARF or BTF types (see resolve_pretty.h).
 */
#include "resolve_pretty.h"
#include "arena.h"
#include "resolve_btf.h"
#include "resolve_dwarf.h"
#include "resolve_sdt.h"

#include <bpf/btf.h>
#include <dwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- pretty printing: $var$, $var$$, $$vars ---- */

/* The pieces being built for one pretty-printed string. */
struct rpretty_buf {
	struct arena *a;
	const struct fetch_site *fn;
	const char *var;
	const char *cast;	/* @cast(A, "cast")$: the items are casts (var NULL) */
	bool ret;
	bool full;		/* $$: nested structs and arrays expanded too */
	struct rpretty_item *v;
	unsigned n;
	size_t cap;
	unsigned nvals;
};

static void rpretty_push(struct rpretty_buf *p, struct rpretty_item it)
{
	p->v = arena_grow(p->a, p->v, p->n, &p->cap, sizeof(*p->v));
	p->v[p->n++] = it;
}

/* Text, merged with the text before it. */
static void rpretty_text(struct rpretty_buf *p, const char *s)
{
	if (p->n && p->v[p->n - 1].fmt == RPRETTY_TEXT)
		p->v[p->n - 1].text = arena_printf(p->a, "%s%s", p->v[p->n - 1].text, s);
	else
		rpretty_push(p, (struct rpretty_item){ .fmt = RPRETTY_TEXT, .text = s });
}

/* A value: @var with @chain, or "?" when the kernel cannot fetch it. */
static void rpretty_val(struct rpretty_buf *p, enum rpretty_fmt fmt, const struct ast_chain *chain)
{
	struct fetch f;
	char err[512];

	if ((p->cast ? rdwarf_cast(p->a, p->fn, "0", "c", p->cast, chain, &f, err, sizeof(err)) :
		       rdwarf_fetch(p->a, p->fn, p->var, chain, p->ret, &f, err, sizeof(err))) != 0) {
		rpretty_text(p, "?");
		return;
	}
	rpretty_push(p, (struct rpretty_item){ .fmt = fmt, .var = p->var, .chain = *chain });
	p->nvals++;
}

/*
 * A char or unsigned char pointer as a string.  A char * target already
 * fetches as text; an unsigned char * alone is an address (issue 10), so
 * its string is read at its value as kernel_string()/user_string() would.
 */
static void rpretty_chars(struct rpretty_buf *p, const struct ast_chain *c, bool text)
{
	struct ast_chain sc = *c;

	if (!text)
		sc.mem = p->fn->kernel ? AST_MEM_KSTRING : AST_MEM_USTRING;
	rpretty_val(p, RPRETTY_STRING, &sc);
}

/* @c with ->@member or [@index] appended (a new array: chains share nothing). */
static struct ast_chain rpretty_extend(struct arena *a, const struct ast_chain *c,
				  const char *member, int64_t index)
{
	struct ast_chain r = *c;
	struct src_span none = { 0 };

	r.v = NULL;
	r.n = 0;
	r.cap = 0;
	for (unsigned i = 0; i < c->n; i++) {
		if (c->v[i].is_index)
			ast_chain_index(a, &r, c->v[i].index, c->v[i].span);
		else
			ast_chain_member(a, &r, c->v[i].name, c->v[i].span);
	}
	if (member)
		ast_chain_member(a, &r, member, none);
	else
		ast_chain_index(a, &r, ast_num(a, index, none), none);
	return r;
}

static Dwarf_Word rpretty_encoding(Dwarf_Die *t)
{
	Dwarf_Attribute at;
	Dwarf_Word enc = (Dwarf_Word)-1;

	if (dwarf_attr_integrate(t, DW_AT_encoding, &at))
		dwarf_formudata(&at, &enc);
	return enc;
}

/* A number as stap prints it: %i, %u, '%c'; a bitfield always as a number. */
static void rpretty_base(struct rpretty_buf *p, Dwarf_Die *t, const struct ast_chain *c, bool bitfield)
{
	Dwarf_Word enc = rpretty_encoding(t);

	if (enc == DW_ATE_float || enc == DW_ATE_complex_float)
		rpretty_text(p, "?");
	else if (bitfield)
		rpretty_val(p, enc == DW_ATE_unsigned || enc == DW_ATE_unsigned_char ? RPRETTY_UINT :
			  RPRETTY_INT, c);
	else if (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char || enc == DW_ATE_UTF)
		rpretty_val(p, RPRETTY_CHAR, c);
	else
		rpretty_val(p, enc == DW_ATE_unsigned ? RPRETTY_UINT : RPRETTY_INT, c);
}

static void rpretty_type(struct rpretty_buf *p, Dwarf_Die *type, const struct ast_chain *c, bool top,
		    bool bitfield);

/* The members of struct/union @t: ".name=value, ..." (anonymous ones as stap). */
static void rpretty_members(struct rpretty_buf *p, Dwarf_Die *t, const struct ast_chain *c)
{
	Dwarf_Die child, mt;
	unsigned count = 0;

	if (dwarf_child(t, &child) != 0)
		return;
	do {
		const char *mn = dwarf_diename(&child);
		int mtag;

		if (dwarf_tag(&child) != DW_TAG_member || dwarf_hasattr(&child, DW_AT_declaration) ||
		    !rdwarf_type_of(&child, &mt))
			continue;
		if (count++)
			rpretty_text(p, ", ");
		if (p->nvals >= RPRETTY_MAX) {
			rpretty_text(p, "...");
			break;
		}
		mtag = dwarf_tag(&mt);
		if (mn) {
			struct ast_chain mc = rpretty_extend(p->a, c, mn, 0);

			rpretty_text(p, arena_printf(p->a, ".%s=", mn));
			rpretty_type(p, &mt, &mc, false, dwarf_hasattr(&child, DW_AT_bit_size));
			continue;
		}
		/* stap labels an anonymous union "<union>" and an anonymous struct "<class>". */
		rpretty_text(p, mtag == DW_TAG_union_type ? "<union>=" :
			   mtag == DW_TAG_structure_type ? "<class>=" : "=");
		rpretty_type(p, &mt, c, false, false);
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* An array: a string for chars; else its first element, as stap ("[1, ...]"). */
static void rpretty_array(struct rpretty_buf *p, Dwarf_Die *t, const struct ast_chain *c, bool top)
{
	Dwarf_Die e;
	struct ast_chain ec;

	if (!top && !p->full) {
		rpretty_text(p, "[...]");
		return;
	}
	if (!rdwarf_type_of(t, &e)) {
		rpretty_text(p, "?");
		return;
	}
	if (rdwarf_is_char(&e)) {
		rpretty_val(p, RPRETTY_STRING, c);
		return;
	}
	rpretty_text(p, "[");
	ec = rpretty_extend(p->a, c, NULL, 0);
	rpretty_type(p, &e, &ec, false, false);
	rpretty_text(p, ", ...]");
}

/* A pointer: a string for char *; followed at the top; else its value. */
static void rpretty_pointer(struct rpretty_buf *p, Dwarf_Die *t, const struct ast_chain *c, bool top)
{
	Dwarf_Die e;
	int etag;

	if (!rdwarf_type_of(t, &e)) {
		rpretty_val(p, RPRETTY_PTR, c);
		return;
	}
	/* stap's pretty printer (print_chars) shows char and unsigned char
	   pointers as strings, though the value of such a member alone is an
	   address (rdwarf_is_text). */
	if (rdwarf_is_char(&e)) {
		rpretty_chars(p, c, rdwarf_is_text(&e));
		return;
	}
	if (!top) {
		rpretty_val(p, RPRETTY_PTR, c);
		return;
	}
	etag = dwarf_tag(&e);
	if (etag == DW_TAG_structure_type || etag == DW_TAG_union_type) {
		rpretty_type(p, &e, c, true, false);	/* '->' follows the pointer itself */
	} else {
		struct ast_chain ec = rpretty_extend(p->a, c, NULL, 0);

		rpretty_type(p, &e, &ec, true, false);
	}
}

/* Value @c of DWARF type @type, as stap's pretty printer shows it. */
static void rpretty_type(struct rpretty_buf *p, Dwarf_Die *type, const struct ast_chain *c, bool top,
		    bool bitfield)
{
	Dwarf_Die t;

	if (dwarf_peel_type(type, &t) != 0)
		t = *type;
	switch (dwarf_tag(&t)) {
	case DW_TAG_base_type:
	case DW_TAG_enumeration_type:
		rpretty_base(p, &t, c, bitfield);
		break;
	case DW_TAG_array_type:
		rpretty_array(p, &t, c, top);
		break;
	case DW_TAG_pointer_type:
		rpretty_pointer(p, &t, c, top);
		break;
	case DW_TAG_subroutine_type:
		rpretty_text(p, "<function>:");
		rpretty_val(p, RPRETTY_PTR, c);
		break;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		rpretty_text(p, "{");
		if (top || p->full)
			rpretty_members(p, &t, c);
		else
			rpretty_text(p, "...");
		rpretty_text(p, "}");
		break;
	default:
		rpretty_text(p, "?");
	}
}

/* ---- the same for kernel functions, from BTF ---- */

/* @id without typedefs and qualifiers (0 is void). */
static uint32_t rpretty_btf_peel(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t;

	while (id && (t = btf__type_by_id(btf, id)) != NULL &&
	       (btf_is_mod(t) || btf_is_typedef(t)))
		id = t->type;
	return id;
}

static bool rpretty_btf_is_char(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, rpretty_btf_peel(btf, id));

	return t && btf_is_int(t) && t->size == 1;
}

static void rpretty_btf_type(struct rpretty_buf *p, const struct btf *btf, uint32_t id,
			const struct ast_chain *c, bool top, bool bitfield);

/* A number: %i, %u, '%c' (chars; a bitfield is always a number). */
static void rpretty_btf_base(struct rpretty_buf *p, const struct btf_type *t, const struct ast_chain *c,
			bool bitfield)
{
	bool is_signed = btf_is_int(t) ? (btf_int_encoding(t) & BTF_INT_SIGNED) != 0 :
			 btf_is_enum(t) ? btf_kflag(t) : false;

	if (btf_is_int(t) && t->size == 1 && !bitfield)
		rpretty_val(p, RPRETTY_CHAR, c);
	else
		rpretty_val(p, is_signed || btf_is_enum(t) ? RPRETTY_INT : RPRETTY_UINT, c);
}

/* The members of a struct or union, as rpretty_members() prints DWARF's. */
static void rpretty_btf_members(struct rpretty_buf *p, const struct btf *btf, const struct btf_type *t,
			   const struct ast_chain *c)
{
	const struct btf_member *m = btf_members(t);
	unsigned i, vlen = btf_vlen(t), count = 0;

	for (i = 0; i < vlen; i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		const struct btf_type *mt = btf__type_by_id(btf, rpretty_btf_peel(btf, m->type));

		if (count++)
			rpretty_text(p, ", ");
		if (p->nvals >= RPRETTY_MAX) {
			rpretty_text(p, "...");
			break;
		}
		if (mn && *mn) {
			struct ast_chain mc = rpretty_extend(p->a, c, mn, 0);

			rpretty_text(p, arena_printf(p->a, ".%s=", mn));
			rpretty_btf_type(p, btf, m->type, &mc, false,
				    btf_member_bitfield_size(t, i) != 0);
			continue;
		}
		rpretty_text(p, mt && btf_is_union(mt) ? "<union>=" :
			   mt && btf_is_struct(mt) ? "<class>=" : "=");
		rpretty_btf_type(p, btf, m->type, c, false, false);
	}
}

/* An array: a string for chars; else its first element ("[1, ...]"). */
static void rpretty_btf_array(struct rpretty_buf *p, const struct btf *btf, const struct btf_type *t,
			 const struct ast_chain *c, bool top)
{
	struct ast_chain ec;

	if (!top && !p->full) {
		rpretty_text(p, "[...]");
		return;
	}
	if (rpretty_btf_is_char(btf, btf_array(t)->type)) {
		rpretty_val(p, RPRETTY_STRING, c);
		return;
	}
	rpretty_text(p, "[");
	ec = rpretty_extend(p->a, c, NULL, 0);
	rpretty_btf_type(p, btf, btf_array(t)->type, &ec, false, false);
	rpretty_text(p, ", ...]");
}

/* A pointer: a string for char *; followed at the top; else its value. */
static void rpretty_btf_pointer(struct rpretty_buf *p, const struct btf *btf, const struct btf_type *t,
			   const struct ast_chain *c, bool top)
{
	uint32_t eid = rpretty_btf_peel(btf, t->type);
	const struct btf_type *e = eid ? btf__type_by_id(btf, eid) : NULL;
	struct ast_chain ec;

	if (!e) {
		rpretty_val(p, RPRETTY_PTR, c);
	} else if (rpretty_btf_is_char(btf, eid)) {	/* as for DWARF, above */
		rpretty_chars(p, c, strcmp(btf__name_by_offset(btf, e->name_off),
					   "unsigned char") != 0);
	} else if (!top) {
		rpretty_val(p, RPRETTY_PTR, c);
	} else if (btf_is_struct(e) || btf_is_union(e)) {
		rpretty_btf_type(p, btf, eid, c, true, false);	/* '->' follows the pointer */
	} else {
		ec = rpretty_extend(p->a, c, NULL, 0);
		rpretty_btf_type(p, btf, eid, &ec, true, false);
	}
}

/* Value @c of BTF type @id, as rpretty_type() prints a DWARF type. */
static void rpretty_btf_type(struct rpretty_buf *p, const struct btf *btf, uint32_t id,
			const struct ast_chain *c, bool top, bool bitfield)
{
	const struct btf_type *t = btf__type_by_id(btf, rpretty_btf_peel(btf, id));

	if (!t || btf_is_float(t))
		rpretty_text(p, "?");
	else if (btf_is_int(t) || btf_is_any_enum(t))
		rpretty_btf_base(p, t, c, bitfield);
	else if (btf_is_array(t))
		rpretty_btf_array(p, btf, t, c, top);
	else if (btf_is_ptr(t))
		rpretty_btf_pointer(p, btf, t, c, top);
	else if (btf_is_func_proto(t)) {
		rpretty_text(p, "<function>:");
		rpretty_val(p, RPRETTY_PTR, c);
	} else if (btf_is_struct(t) || btf_is_union(t)) {
		rpretty_text(p, "{");
		if (top || p->full)
			rpretty_btf_members(p, btf, t, c);
		else
			rpretty_text(p, "...");
		rpretty_text(p, "}");
	} else {
		rpretty_text(p, "?");
	}
}

/* $var$ / $var$$ on a kernel function, from BTF. */
static int rpretty_btf(struct rpretty_buf *p, const struct ast_chain *plain, char *err, size_t errlen)
{
	const struct fetch_site *fn = p->fn;
	uint32_t id;

	if (rbtf_chain_type(p->a, fn->btf, fn->proto, fn->name, p->var, plain, p->ret, &id, err,
			  errlen) != 0)
		return -1;
	rpretty_btf_type(p, fn->btf, id, plain, true, false);
	return 0;
}

/* Follow @plain from @l (DWARF), then print what it ends at. */
static int rpretty_dwarf_chain(struct rpretty_buf *p, struct rdwarf_loc *l,
			       const struct ast_chain *plain, char *err, size_t errlen)
{
	unsigned i;

	for (i = 0; i < plain->n; i++)
		if ((plain->v[i].is_index ? rdwarf_step_index(p->a, l, &plain->v[i], err, errlen) :
					    rdwarf_step_member(p->a, l, &plain->v[i], err, errlen)) != 0)
			return -1;
	rpretty_type(p, &l->type, plain, true, l->bits != 0);
	return 0;
}

int rpretty_var(struct arena *a, const struct fetch_site *fn, const char *var,
	      const struct ast_chain *chain, bool ret, struct rpretty_item **out,
	      unsigned *n, char *err, size_t errlen)
{
	struct rpretty_buf p = { a, fn, var, NULL, ret, chain->pretty > 1, NULL, 0, 0, 0 };
	struct ast_chain plain = *chain;
	struct rdwarf_loc l;

	plain.pretty = 0;
	if (fn->btf) {
		if (rpretty_btf(&p, &plain, err, errlen) != 0)
			return -1;
	} else {
		if (rdwarf_base(a, fn, var, ret, &l, err, errlen) != 0) {
			if (!*err)
				snprintf(err, errlen, "'%s$' needs type information", var);
			return -1;
		}
		if (l.calc) {	/* its value is computed in user space: use %d */
			snprintf(err, errlen, "'%s$': %s is a value computed from a register, "
				 "not in memory: print it with %%d", var, var);
			return -1;
		}
		if (rpretty_dwarf_chain(&p, &l, &plain, err, errlen) != 0)
			return -1;
	}
	*out = p.v;
	*n = p.n;
	return 0;
}

int rpretty_cast(struct arena *a, const struct fetch_site *fn, const char *type,
		 const struct ast_chain *chain, struct rpretty_item **out, unsigned *n,
		 char *err, size_t errlen)
{
	struct rpretty_buf p = { a, fn, NULL, type, false, chain->pretty > 1, NULL, 0, 0, 0 };
	struct ast_chain plain = *chain;
	struct rdwarf_loc l;
	uint32_t id;

	plain.pretty = 0;
	if (fn->btf) {
		if (rbtf_cast_type(fn->btf, type, &plain, &id, err, errlen) != 0)
			return -1;
		rpretty_btf_type(&p, fn->btf, id, &plain, true, false);
	} else {
		if (rdwarf_cast_base(fn, type, &l, err, errlen) != 0 ||
		    rpretty_dwarf_chain(&p, &l, &plain, err, errlen) != 0)
			return -1;
	}
	*out = p.v;
	*n = p.n;
	return 0;
}

struct rpretty_ctx {
	struct rpretty_buf *p;
	int want;		/* the tag to skip: $$parms skips variables ... */
	unsigned pretty;
	bool first;
};

/* "name=value" for one variable of $$vars (see rpretty_context). */
static void rpretty_ctx_cb(Dwarf_Die *d, Dwarf_Die *frame, void *arg)
{
	struct rpretty_ctx *s = arg;
	struct rpretty_buf *p = s->p;
	const char *name = dwarf_diename(d);
	struct ast_chain none = { 0 };
	struct rdwarf_loc l;
	Dwarf_Die t;
	char err[256];
	int tag;

	if (dwarf_tag(d) == s->want)
		return;
	rpretty_text(p, arena_printf(p->a, "%s%s=", s->first ? "" : " ", name));
	s->first = false;
	p->var = arena_printf(p->a, "$%s", name);
	memset(&l, 0, sizeof(l));
	if (!rdwarf_type_of(d, &t) || dwarf_peel_type(&t, &t) != 0) {
		rpretty_text(p, "?");
		return;
	}
	tag = dwarf_tag(&t);
	if (!s->pretty && (tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
			   tag == DW_TAG_class_type || tag == DW_TAG_array_type)) {
		rpretty_text(p, tag == DW_TAG_array_type ? "[...]" : "{...}");
		return;
	}
	if (rdwarf_base(p->a, p->fn, p->var, p->ret, &l, err, sizeof(err)) != 0 || l.calc) {
		rpretty_text(p, "?");	/* (a computed value: $var itself reads it) */
		return;
	}
	(void)frame;
	if (s->pretty) {
		p->full = s->pretty > 1;
		rpretty_type(p, &t, &none, true, false);
		return;
	}
	none.raw = true;	/* stap's %#x: a char * is an address here too */
	rpretty_val(p, RPRETTY_HEX, &none);
}

/* $$parms of a kernel function (BTF): each parameter in hex. */
static void rpretty_ctx_btf(struct rpretty_buf *p)
{
	const char **names;
	struct ast_chain raw = { .raw = true };
	unsigned i, n = rdwarf_params(p->a, p->fn, &names);

	for (i = 0; i < n; i++) {
		rpretty_text(p, arena_printf(p->a, "%s%s=", i ? " " : "", names[i]));
		p->var = arena_printf(p->a, "$%s", names[i]);
		rpretty_val(p, RPRETTY_HEX, &raw);
	}
}

/*
 * $$parms and $$vars of an SDT marker, as stap prints them:
 * "$arg1=%#x $arg2=%#x" ($$locals: nothing, a marker has none).
 */
static unsigned rpretty_sdt(struct rpretty_buf *p, const char *which,
			    struct rpretty_item **out)
{
	struct ast_chain raw = { .raw = true };
	unsigned i;

	if (strcmp(which, "$$parms") && strcmp(which, "$$vars"))
		return 0;
	for (i = 1; i <= p->fn->sdt->nargs; i++) {
		p->var = arena_printf(p->a, "$arg%u", i);
		rpretty_text(p, arena_printf(p->a, "%s%s=", i > 1 ? " " : "", p->var));
		rpretty_val(p, RPRETTY_HEX, &raw);
	}
	*out = p->v;
	return p->n;
}

unsigned rpretty_context(struct arena *a, const struct fetch_site *fn, const char *which,
		    unsigned pretty, bool ret, struct rpretty_item **out)
{
	struct rpretty_buf p = { a, fn, NULL, NULL, ret, pretty > 1, NULL, 0, 0, 0 };
	struct rpretty_ctx s = { &p, -1, pretty, true };

	*out = NULL;
	if (fn->sdt)
		return rpretty_sdt(&p, which, out);
	if (!strcmp(which, "$$return")) {	/* "return=%#x", or "" for void */
		struct ast_chain raw = { .raw = true };

		p.var = "$return";
		if (ret && (fn->btf || !fn->die || rdwarf_type_of(fn->die, &(Dwarf_Die){ 0 }))) {
			rpretty_text(&p, "return=");
			rpretty_val(&p, RPRETTY_HEX, &raw);
		}
		*out = p.v;
		return p.n;
	}
	/* At a return, as stap's: the parameters' snapshots at the entry
	   (each $param there is its entry value, sema_target.c), and no
	   locals, gone with the frame ($$vars is $$parms) */
	if (ret && !strcmp(which, "$$locals"))
		return 0;
	p.ret = false;
	if (!strcmp(which, "$$parms") || ret)
		s.want = DW_TAG_variable;
	else if (!strcmp(which, "$$locals"))
		s.want = DW_TAG_formal_parameter;
	if (fn->btf) {
		if (s.want != DW_TAG_formal_parameter)
			rpretty_ctx_btf(&p);
	} else if (fn->die) {
		rdwarf_each_var(fn, rpretty_ctx_cb, &s);
	}
	*out = p.v;
	return p.n;
}
