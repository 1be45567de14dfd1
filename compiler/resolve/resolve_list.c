/*
 * resolve_list.c - "$name:type" declarations for -L (see resolve_list.h).
 */
#include "resolve_list.h"
#include "arena.h"
#include "resolve_btf.h"
#include "resolve_dwarf.h"
#include "resolve_sdt.h"

#include <dwarf.h>
#include <stdio.h>
#include <string.h>

/* The C spelling of DWARF type @t. */
static const char *rlist_type_name(struct arena *a, Dwarf_Die *t)
{
	Dwarf_Attribute at;
	Dwarf_Die sub;
	const char *n = dwarf_diename(t);
	bool has = dwarf_attr_integrate(t, DW_AT_type, &at) && dwarf_formref_die(&at, &sub);

	switch (dwarf_tag(t)) {
	case DW_TAG_pointer_type:
		return arena_printf(a, "%s *", has ? rlist_type_name(a, &sub) : "void");
	case DW_TAG_const_type:
		return arena_printf(a, "const %s", has ? rlist_type_name(a, &sub) : "void");
	case DW_TAG_volatile_type:
		return arena_printf(a, "volatile %s", has ? rlist_type_name(a, &sub) : "void");
	case DW_TAG_structure_type:
		return arena_printf(a, "struct %s", n ? n : "(anonymous)");
	case DW_TAG_union_type:
		return arena_printf(a, "union %s", n ? n : "(anonymous)");
	case DW_TAG_enumeration_type:
		return arena_printf(a, "enum %s", n ? n : "(anonymous)");
	case DW_TAG_array_type:
		return arena_printf(a, "%s[]", has ? rlist_type_name(a, &sub) : "?");
	default:
		return n ? n : "?";
	}
}

/* @d's type as -L prints it ("?" when it has none). */
static const char *rlist_decl_type(struct arena *a, Dwarf_Die *d)
{
	Dwarf_Attribute at;
	Dwarf_Die t;

	return dwarf_attr_integrate(d, DW_AT_type, &at) && dwarf_formref_die(&at, &t) ?
	       rlist_type_name(a, &t) : "?";
}

struct rlist_decls {
	struct arena *a;
	const struct fetch_site *fn;
	const char **v;
	unsigned n;
	size_t cap;
};

/* One "$name:type" for -L, when @d has a location at the address (stap's test). */
static void rlist_decl_cb(Dwarf_Die *d, Dwarf_Die *frame, void *arg)
{
	struct rlist_decls *s = arg;
	struct rdwarf_loc l;
	char err[256];

	memset(&l, 0, sizeof(l));
	if (rdwarf_var_loc(s->a, s->fn, d, frame, dwarf_diename(d), &l, err, sizeof(err)) != 0)
		return;
	s->v = arena_grow(s->a, s->v, s->n, &s->cap, sizeof(*s->v));
	s->v[s->n++] = arena_printf(s->a, "$%s:%s", dwarf_diename(d), rlist_decl_type(s->a, d));
}

/* -L at a statement: the variables in scope there that have a location. */
static unsigned rlist_scope_decls(struct arena *a, const struct fetch_site *fn, const char ***decls)
{
	struct rlist_decls s = { a, fn, NULL, 0, 0 };

	rdwarf_each_var(fn, rlist_decl_cb, &s);
	*decls = s.v;
	return s.n;
}

unsigned rlist_decls(struct arena *a, const struct fetch_site *fn, const char ***decls)
{
	Dwarf_Attribute at;
	Dwarf_Die child, t;
	unsigned n = 0;
	size_t cap = 0;

	*decls = NULL;
	if (fn->btf)
		return rbtf_param_decls(a, fn->btf, fn->proto, decls);
	if (fn->sdt) {		/* untyped operands: stap says long */
		*decls = arena_alloc(a, (fn->sdt->nargs + 1) * sizeof(**decls));
		for (n = 0; n < fn->sdt->nargs; n++)
			(*decls)[n] = arena_printf(a, "$arg%u:long", n + 1);
		return n;
	}
	if (fn->stmt)
		return rlist_scope_decls(a, fn, decls);
	if (!fn->die || dwarf_child(fn->die, &child) != 0)
		return 0;
	do {
		const char *pn = dwarf_diename(&child);

		if (dwarf_tag(&child) != DW_TAG_formal_parameter || !pn)
			continue;
		*decls = arena_grow(a, *decls, n, &cap, sizeof(**decls));
		(*decls)[n++] = arena_printf(a, "$%s:%s", pn,
			dwarf_attr_integrate(&child, DW_AT_type, &at) &&
			dwarf_formref_die(&at, &t) ? rlist_type_name(a, &t) : "?");
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}
