/*
 * resolve_list.h - pass 2 for -L: the target variables of a probe site
 * with their C types, "$name:type", from DWARF or BTF.
 */
#ifndef KTAP_RESOLVE_LIST_H
#define KTAP_RESOLVE_LIST_H

#include "fetch.h"

struct arena;

/*
 * "$name:type" for each parameter of @fn, for -L (at a statement: every
 * variable in scope with a location there); returns how many.
 */
unsigned rlist_decls(struct arena *a, const struct fetch_site *fn, const char ***decls);

#endif
