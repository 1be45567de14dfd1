/*
 * sema_cast_btf.c - pass 2: where a @cast() in a probe reads its type
 * from (BTF of the kernel or a named module, or the probed function's
 * own), for sema_target.c.
 * A leaf: calls no other sema_*.c file.
 */
#include "sema_int.h"
#include "fetch.h"
#include "resolve_elf.h"

#include <string.h>

/*
 * The BTF @e's type comes from in a kernel probe: the named module's
 * (stap's third argument), the kernel's for "kernel" and "kernel<h>",
 * else the probed function's own (which includes the kernel's).
 */
const struct btf *sema_cast_btf(struct sema_ctx *c, const struct fetch_site *uf,
				const struct ast_expr *e, char *err, size_t errlen)
{
	const char *m = e->module;

	if ((!m || !*m) && uf && (uf->btf || !uf->kernel))
		return uf->btf;
	/* A kprobe.function() has no types of its own: stap's default
	   module for a kernel probe is the kernel. */
	if (!m || !*m)
		m = "kernel";
	if (!strcmp(m, "kernel") || !strncmp(m, "kernel<", 7))
		return relf_kernel_btf(c->in->up, c->arena, NULL, err, errlen);
	if (strchr(m, ':'))	/* stap's search path: the first with the type */
		return relf_kernel_btf_of(c->in->up, c->arena, m, e->str, err, errlen);
	return relf_kernel_btf(c->in->up, c->arena, m, err, errlen);
}

/*
 * Whether @e's type comes from BTF: in a kernel probe with BTF, and in a
 * kernel probe without DWARF of its own (kprobe.function()) when the
 * type is the kernel's or a module's.
 */
bool sema_cast_by_btf(const struct fetch_site *uf, const struct ast_expr *e)
{
	if (!uf || uf->btf)
		return true;
	return uf->kernel && (!uf->file || !uf->file->dw);
}
