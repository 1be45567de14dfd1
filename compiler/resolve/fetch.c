/*
 * fetch.c - pass 2: fetch arguments of memory, and the chain-step
 * diagnostics the DWARF and BTF walkers share (see fetch.h).
 */
#include "fetch.h"
#include "arena.h"

#include <inttypes.h>
#include <stdio.h>

void fetch_mem(struct arena *a, const char *value, enum ast_mem mem, bool kernel,
	       struct fetch *out)
{
	fetch_mem_at(a, arena_printf(a, "+0(%s)", value), mem, kernel, out);
}

void fetch_mem_chain(struct arena *a, const char *value, const struct ast_chain *chain,
		     bool kernel, struct fetch *out)
{
	bool user = chain->user_mem && kernel && chain->mem != AST_MEM_USTRING;

	fetch_mem_at(a, arena_printf(a, "+%s0(%s)", user ? "u" : "", value), chain->mem, kernel,
		     out);
}

void fetch_mem_at(struct arena *a, const char *at, enum ast_mem mem, bool kernel,
		  struct fetch *out)
{
	static const char *const types[] = {
		[AST_MEM_S64] = "s64", [AST_MEM_S32] = "s32", [AST_MEM_S16] = "s16",
		[AST_MEM_S8] = "s8", [AST_MEM_U64] = "u64", [AST_MEM_U32] = "u32",
		[AST_MEM_U16] = "u16", [AST_MEM_U8] = "u8",
	};
	const char *ty;

	out->is_string = mem == AST_MEM_KSTRING || mem == AST_MEM_USTRING;
	if (out->is_string)
		ty = mem == AST_MEM_USTRING && kernel ? "ustring" : "string";
	else
		ty = types[mem];
	out->arg = arena_printf(a, "%s:%s", at, ty);
	out->name = arena_printf(a, "%s_%s", out->name, out->is_string ? "str" : "mem");
}

int fetch_check_member(const char *member, bool is_struct, bool in_mem, char *err,
		       size_t errlen)
{
	if (!is_struct) {
		snprintf(err, errlen, "'->%s' on something that is not a struct or union "
			 "(or a pointer to one)", member);
		return -1;
	}
	if (!in_mem) {
		snprintf(err, errlen, "'->%s': the struct is passed by value", member);
		return -1;
	}
	return 0;
}

void fetch_no_member_in(const char *shown, const char *kind, const char *sname,
			const char *member, const char *hint, char *err, size_t errlen)
{
	int n;

	if (sname && *sname)
		n = snprintf(err, errlen, "%s %s has no member '%s'", kind, sname, member);
	else
		n = snprintf(err, errlen, "%s (an anonymous %s) has no member '%s'", shown, kind,
			     member);
	if (hint && n >= 0 && (size_t)n < errlen)
		snprintf(err + n, errlen - (size_t)n, "; did you mean '%s'?", hint);
}

void fetch_not_indexable(int64_t index, char *err, size_t errlen)
{
	snprintf(err, errlen, "'[%" PRId64 "]' on something that is not an array "
		 "or a pointer", index);
}
