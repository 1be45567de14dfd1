/*
 * sema_addr.c - pass 2: '&' of a target: &$p->m, &@cast(A, "T")->m,
 * &@cast(N, "T")[K] (stap's @offsetof and @cast_sizeof) and &@var("v")->m.
 *
 * In: the '&' node met by typing (sema_type.c).  Out: the
 * node resolved in place: a constant, the script value plus a member's
 * offset (no memory read), or a fetch of the last pointer on the way
 * plus the offset (module "NAME_addr=FETCHARG", num the offset).  Its
 * own file: the address forms, the .return probe's entry values among
 * them, are one job apart from reading targets (sema_target.c).
 */
#include "sema_int.h"
#include "arena.h"
#include "diag.h"
#include "fetch.h"
#include "resolve_dwarf.h"
#include "resolve_btf.h"
#include "resolve_elf.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/*
 * &@cast(N, "T"[, "module"])->member (stap's @offsetof(T, member)) and
 * &@cast(N, "T")[K] (@cast_sizeof(T) with N = 0, K = 1): N plus the
 * member's offset, or N + K * sizeof(T), known now from the kernel's
 * BTF, so a constant.  Members reached through a pointer are an error
 * (the address would need a read).
 */
static enum sem_type ad_const(struct sema_ctx *c, struct ast_expr *e)
{
	static const char here[] = "%ktap_base";	/* no register has this name */
	const struct fetch_site *uf = sema_target_event(c) ? sema_target_event(c)->dyn_func : NULL;
	struct ast_expr *x = e->a;
	const struct btf *btf = NULL;
	const struct ast_comp *k = &x->chain.v[0];
	char err[512] = "";
	struct fetch f;
	int64_t size;
	const char *at;

	if (uf && !x->module)
		btf = uf->btf;
	else if (!x->module || !strcmp(x->module, "kernel") || !strncmp(x->module, "kernel<", 7))
		btf = relf_kernel_btf(c->in->up, c->arena, NULL, err, sizeof(err));
	else
		btf = relf_kernel_btf(c->in->up, c->arena, x->module, err, sizeof(err));
	if (!btf) {
		sema_err(c, e->span, "%s", *err ? err : "this @cast() needs a kernel type (BTF)");
		return SEM_UNKNOWN;
	}
	if (x->chain.n == 1 && k->is_index && k->index && k->index->kind == AST_NUM) {
		if (rbtf_sizeof(btf, x->str, &size, err, sizeof(err)) != 0) {
			sema_err(c, x->span, "%s", err);
			return SEM_UNKNOWN;
		}
		e->num = x->a->num + k->index->num * size;
	} else {
		x->chain.mem = AST_MEM_ADDR;
		if (rbtf_cast_at(c->arena, &c->in->up->types, btf, here, 0, "c", x->str, &x->chain, &f, err,
				 sizeof(err)) != 0) {
			x->chain.mem = AST_MEM_NONE;
			sema_err(c, x->span, "%s", err);
			return SEM_UNKNOWN;
		}
		x->chain.mem = AST_MEM_NONE;
		at = strrchr(f.arg, '@');
		if (!at || strncmp(f.arg, here, strlen(here)) || f.arg[strlen(here)] != ':') {
			sema_err(c, e->span, "'&' of a member reached through a pointer needs the "
			       "pointer read at run time: only &@cast(N, \"T\")->member of "
			       "members inside T is a constant");
			return SEM_UNKNOWN;
		}
		e->num = x->a->num + strtoll(at + 1, NULL, 10);
	}
	e->kind = AST_NUM;
	c->changed = true;
	return SEM_LONG;
}

/* @cast(X, "T")[I] with I not a number: an address computed at run time. */
static bool ad_runtime_index(const struct ast_expr *x)
{
	return x->kind == AST_CAST && x->chain.n == 1 && x->chain.v[0].is_index &&
	       x->chain.v[0].index && x->chain.v[0].index->kind != AST_NUM;
}

/*
 * &@cast(X, "T")->member where no fetch reads X (a tracepoint's or
 * timer's probe, X a value of the handler): X plus the member's offset,
 * with no memory read, so X may be any value (&@cast(X, "T") is X, and
 * &@cast(X, "T")[I] is X + I * sizeof(T)).  A member reached through a
 * pointer is ad_const()'s error.
 */
static enum sem_type ad_value(struct sema_ctx *c, struct ast_expr *e)
{
	struct ast_expr *base = e->a->a, *off, *index = NULL;
	struct ast_comp *k;

	if (!e->a->chain.n) {
		*e = *base;
		c->changed = true;
		return SEM_LONG;
	}
	k = &e->a->chain.v[0];
	if (ad_runtime_index(e->a)) {
		index = k->index;	/* &@cast(X, "T")[I]: X + I * sizeof(T) */
		k->index = ast_num(c->arena, 1, index->span);
	}
	e->a->a = ast_num(c->arena, 0, base->span);
	if (ad_const(c, e) == SEM_UNKNOWN) {
		e->a->a = base;
		if (index)
			k->index = index;
		return SEM_UNKNOWN;
	}
	off = ast_num(c->arena, e->num, e->span);	/* the offset, or the size */
	if (index)
		off = ast_binary(c->arena, AST_BINARY, AST_OP_MUL, index, off, e->span);
	e->kind = AST_BINARY;
	e->op = AST_OP_ADD;
	e->a = base;
	e->b = off;
	c->changed = true;
	return SEM_LONG;
}

/*
 * &@cast(X, "T")->m in a .return probe where X is an entry value: stap's
 * target variable there (sema_entry_param() makes X @entry(X)), or an
 * @entry() written out.  The address is X plus the offset, no memory
 * read, so the entry's value serves (a fetch at the return would read X
 * as the return has it).  True when @x's base is, or now is, @entry().
 */
static bool ad_entry_base(struct sema_ctx *c, const struct tpf_event *ev, struct ast_expr *x)
{
	struct ast_expr *b = x->kind == AST_CAST ? x->a : NULL;

	if (!b || !ev || !ev->dyn_func || !ev->dyn_return || c->entry)
		return false;
	if (b->kind == AST_TARGET && !b->module && !b->chain.pretty && !b->chain.mem)
		sema_entry_param(c, b, ev);
	return b->kind == AST_ENTRY;
}

/*
 * &@cast(@entry(X), "T")->m: X plus m's offset, which the type gives as
 * the offset from an immediate 0 (a member reached through a pointer
 * would need the pointer read: an error).
 */
static enum sem_type ad_entry(struct sema_ctx *c, struct tpf_event *ev,
				      struct ast_expr *e)
{
	struct ast_expr *x = e->a, *base = x->a;
	struct fetch f;
	const char *at;
	int rc;

	x->a = ast_num(c->arena, 0, base->span);
	x->chain.mem = AST_MEM_ADDR;
	rc = sema_target_cast_fetch(c, ev, x, &f);
	x->chain.mem = AST_MEM_NONE;
	x->a = base;
	if (rc != 0)
		return SEM_UNKNOWN;
	at = strrchr(f.arg, '@');
	if (!at || strncmp(f.arg, "\\0:", 3) != 0) {
		sema_err(c, e->span, "'&' of a member reached through a pointer needs the "
			 "pointer read at the return, where %s is only the entry's value: "
			 "read it inside @entry()", sema_spec_text(c->arena, base));
		return SEM_UNKNOWN;
	}
	*e = *ast_binary(c->arena, AST_BINARY, AST_OP_ADD, base,
			 ast_num(c->arena, strtoll(at + 1, NULL, 10), e->span), e->span);
	c->changed = true;
	return c->type_expr(c, e);
}

/*
 * &$p->member, &@cast(A, "T")->member: the member's address, which is
 * the fetched value of the last pointer on the way plus the member's
 * offset.  The node stays '&x' (for -p2); module holds "NAME=FETCHARG"
 * of that pointer and num the offset, which the bytecode adds.
 */
enum sem_type sema_addr_of(struct sema_ctx *c, struct ast_expr *e)
{
	struct tpf_event *ev = sema_target_event(c);
	struct ast_expr *x = e->a;
	struct fetch f;
	char err[512];
	int rc;

	if (x->kind == AST_ATVAR && !sema_atvar_as_target(c, x))	/* &@var("v")->m */
		return SEM_UNKNOWN;
	if (sema_is_const_addr(e) && !ad_runtime_index(x))
		return ad_const(c, e);
	if ((!ev || !ev->dyn_func || ad_runtime_index(x)) && x->kind == AST_CAST)
		return ad_value(c, e);
	if (x->kind == AST_CAST && ad_entry_base(c, ev, x))
		return ad_entry(c, ev, e);
	if (!ev || !ev->dyn_func || (x->kind != AST_TARGET && x->kind != AST_CAST) ||
	    (!x->chain.n && x->kind == AST_CAST)) {
		sema_err(c, e->span, "'&' takes a target variable in memory: &$p->member or "
		       "&@cast(ADDR, \"T\")->member in a kernel.function() or process() probe");
		return SEM_UNKNOWN;
	}
	x->chain.mem = AST_MEM_ADDR;
	rc = x->kind == AST_CAST ? sema_target_cast_fetch(c, ev, x, &f) :
	     rdwarf_fetch(c->arena, ev->dyn_func, x->str, &x->chain, ev->dyn_return, &f, err,
		      sizeof(err));
	x->chain.mem = AST_MEM_NONE;
	if (rc != 0) {
		if (x->kind == AST_TARGET)
			sema_err(c, x->span, "%s", err);
		return SEM_UNKNOWN;
	}
	/* rbtf_finish gave "EXPR:u64@OFF" for an address. */
	e->num = strtoll(strrchr(f.arg, '@') + 1, NULL, 10);
	e->module = arena_printf(c->arena, "%s_addr=%.*s", f.name,
				 (int)(strrchr(f.arg, '@') - f.arg), f.arg);
	e->ref = sema_point_dyn_field(c, ev, &(struct fetch){ strchr(e->module, '=') + 1,
							  arena_printf(c->arena, "%s_addr", f.name),
							  false, NULL });
	return SEM_LONG;
}
