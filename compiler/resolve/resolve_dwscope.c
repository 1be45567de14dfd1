/*
 * resolve_dwscope.c - the DWARF scopes at a probe's address: which
 * variables a process() or kernel.function() probe sees ($var, $$vars,
 * -L), in C's order (the innermost block out to the file's globals),
 * and the function whose frame base their locations use.  Its own file:
 * scope lookup is apart from turning a variable into a fetch argument
 * (resolve_dwarf.c).
 */
#define _GNU_SOURCE
#include "resolve_dwarf.h"
#include "arena.h"
#include "resolve_elf.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/*
 * The scopes holding @fn->addr, innermost first (free() them); how many.
 * An inlined copy's entry (@fn->die its DW_TAG_inlined_subroutine) may
 * lie in none of the copy's ranges (GCC's entry_pc starts an empty one):
 * the copy is then the innermost scope all the same, and the compile
 * unit the next, as dwarf_getscopes() has it inside the copy: the
 * caller's scopes are not the copy's (GCC PR51410, stap's global_var
 * test: a caller's local 'value' hides no global of the inlined code).
 */
int rdwarf_scopes(const struct fetch_site *fn, Dwarf_Die **scopes)
{
	Dwarf_Die cu, *v;
	int n, i;

	*scopes = NULL;
	if (!fn->file || !fn->file->dw || !dwarf_addrdie(fn->file->dw, fn->addr, &cu))
		return 0;
	n = dwarf_getscopes(&cu, fn->addr, scopes);
	if (n < 0)
		n = 0;
	if (!fn->die || dwarf_tag(fn->die) != DW_TAG_inlined_subroutine)
		return n;
	for (i = 0; i < n; i++)
		if (dwarf_dieoffset(&(*scopes)[i]) == dwarf_dieoffset(fn->die))
			return n;
	v = realloc(*scopes, (size_t)(n + 1) * sizeof(*v));
	if (!v)
		return n;
	if (n > 0)	/* the compile unit, last */
		v[1] = v[n - 1];
	v[0] = *(Dwarf_Die *)fn->die;
	*scopes = v;
	return n > 0 ? 2 : 1;
}

/* A variable or parameter (a definition, not an extern declaration). */
bool rdwarf_is_var(Dwarf_Die *d)
{
	int tag = dwarf_tag(d);

	return (tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) &&
	       dwarf_diename(d) && !dwarf_hasattr(d, DW_AT_declaration);
}

/*
 * The frame @fn->addr is in, into @out: the innermost subprogram of
 * @scopes; inside an inlined copy (@scopes or @fn->die), whose scopes
 * end at the compile unit, the function it was inlined into (its frame
 * base is the copy's; an SDT marker in a copy finds its variables so).
 * False: none.
 */
bool rdwarf_frame(const struct fetch_site *fn, Dwarf_Die *scopes, int n, Dwarf_Die *out)
{
	Dwarf_Die *up;
	int i, m;

	for (i = 0; i < n; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
			*out = scopes[i];
			return true;
		}
	for (i = 0; i < n; i++)	/* inside a copy: the function it is in */
		if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine)
			break;
	if (i < n)
		*out = scopes[i];
	else if (fn->die)
		*out = *(Dwarf_Die *)fn->die;
	else
		return false;
	if (dwarf_tag(out) != DW_TAG_inlined_subroutine ||
	    (m = dwarf_getscopes_die(out, &up)) <= 0)
		return true;
	for (i = 0; i < m; i++)
		if (dwarf_tag(&up[i]) == DW_TAG_subprogram) {
			*out = up[i];
			break;
		}
	free(up);
	return true;
}

/*
 * Variable @name visible at @fn->addr: the innermost scope's first,
 * then the enclosing blocks, the function, and the file's globals and
 * statics (the compile unit) last, as C's scoping and stap's lookup.
 */
/* Variable @name among the children of @scope, into @var. */
static bool rdwarf_child_var(Dwarf_Die *scope, const char *name, Dwarf_Die *var)
{
	Dwarf_Die child;

	if (dwarf_child(scope, &child) != 0)
		return false;
	do {
		if (rdwarf_is_var(&child) && !strcmp(dwarf_diename(&child), name)) {
			*var = child;
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/*
 * @name in inlined copy @scope: its own DIE, else the abstract
 * function's, where GCC leaves a variable the copy has no DIE for (one
 * of a constant value, DW_AT_const_value).
 */
static bool rdwarf_scope_var(Dwarf_Die *scope, const char *name, Dwarf_Die *var)
{
	Dwarf_Attribute attr;
	Dwarf_Die origin;

	if (rdwarf_child_var(scope, name, var))
		return true;
	return dwarf_tag(scope) == DW_TAG_inlined_subroutine &&
	       dwarf_attr(scope, DW_AT_abstract_origin, &attr) &&
	       dwarf_formref_die(&attr, &origin) && rdwarf_child_var(&origin, name, var);
}

bool rdwarf_lookup(const struct fetch_site *fn, const char *name, Dwarf_Die *var,
		      Dwarf_Die *frame, bool *file_scope)
{
	Dwarf_Die *scopes;
	int i, n = rdwarf_scopes(fn, &scopes);
	bool found = false;

	for (i = 0; i < n && !found; i++)
		found = rdwarf_scope_var(&scopes[i], name, var);
	if (found)
		rdwarf_frame(fn, scopes, n, frame);
	/* the loop's i++ ran once after the match: scopes[n - 1] is the CU */
	if (file_scope)
		*file_scope = found && i == n;
	free(scopes);
	return found;
}

Dwarf_Die *rdwarf_frame_at(struct arena *a, const struct fetch_site *fn)
{
	Dwarf_Die *scopes, frame, *copy = NULL;
	int n = rdwarf_scopes(fn, &scopes);

	if (rdwarf_frame(fn, scopes, n, &frame)) {
		copy = arena_alloc(a, sizeof(*copy));
		*copy = frame;
	}
	free(scopes);
	return copy;
}

/*
 * Calls @fn(@d, @arg) for each variable and parameter in scope at
 * @f->addr, innermost scope first, not the file's globals (stap's order
 * for $$vars and -L).
 */
void rdwarf_each_var(const struct fetch_site *f, void (*fn)(Dwarf_Die *d, Dwarf_Die *frame,
							   void *arg), void *arg)
{
	Dwarf_Die *scopes, child, frame;
	int i, n = rdwarf_scopes(f, &scopes);

	memset(&frame, 0, sizeof(frame));
	rdwarf_frame(f, scopes, n, &frame);
	for (i = 0; i < n && dwarf_tag(&scopes[i]) != DW_TAG_compile_unit; i++) {
		if (dwarf_child(&scopes[i], &child) != 0)
			continue;
		do {
			if (rdwarf_is_var(&child))
				fn(&child, &frame, arg);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	free(scopes);
}
