/*
 * resolve_btf.c - pass 2 for kernel.function("NAME") and kprobe.function():
 * the function's parameters and the layout of what they point to, from
 * the kernel's BTF (/sys/kernel/btf/vmlinux, through libbpf), turned into
 * kprobe fetch arguments.  Same model as resolve_dwarf.c: arguments are read at
 * the function's entry from the calling convention's registers; members,
 * indexes and bitfields are offsets from BTF; char * and char[] are
 * strings (in kernel memory); $return is $retval.
 */
#define _GNU_SOURCE
#include "resolve_btf.h"
#include "arena.h"
#include "resolve_cconv.h"
#include "diag.h"

#include <bpf/btf.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Where the value being built is (see resolve_dwarf.h's struct rdwarf_loc). */
struct rbtf_loc {
	const char *expr;
	bool mem;
	uint64_t off;
	uint32_t type;		/* BTF type id, peeled */
	const char *name;
	const char *shown;	/* the expression as written so far, for messages */
	int bits, bitoff, csize;
};

/* Skip typedefs and qualifiers. */
static uint32_t rbtf_peel(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_typedef(t) || btf_is_mod(t))) {
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	return id;
}

struct btf *rbtf_load(const char *path, char *err, size_t errlen)
{
	struct btf *btf;

	if (!path) {
		snprintf(err, errlen, "the target has no BTF for the kernel");
		return NULL;
	}
	btf = btf__parse(path, NULL);
	if (!btf) {	/* libbpf 1.x: NULL with errno set */
		snprintf(err, errlen, "cannot read the kernel's BTF (%s): %s",
			 path, strerror(errno));
		return NULL;
	}
	return btf;
}

struct btf *rbtf_load_module(const char *dir, const char *name, struct btf *base,
			     char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct btf *btf;

	if (name[0] == '<') {
		/* stap's "<header.h>" module: types it compiles from a C header */
		snprintf(err, errlen, "the types of \"%s\" come from compiling a C header, which "
			 "ktap never does: it reads types from BTF and DWARF; name the type's "
			 "module (\"kernel\", or a -g binary's path)", name);
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	btf = base ? btf__parse_split(path, base) : NULL;
	if (!btf)
		snprintf(err, errlen, "no BTF for module \"%s\" (%s: %s): is it loaded?", name,
			 path, strerror(errno));
	return btf;
}

void rbtf_free(struct btf *btf)
{
	btf__free(btf);
}

int rbtf_find(struct btf *btf, const char *name, int32_t *proto, char *err, size_t errlen)
{
	int32_t id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -1;
	const struct btf_type *t;

	if (id < 0) {
		snprintf(err, errlen, "no kernel function \"%s\" in the kernel's BTF", name);
		return -1;
	}
	t = btf__type_by_id(btf, (uint32_t)id);
	*proto = (int32_t)t->type;
	return 0;
}

static bool rbtf_is_char(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, rbtf_peel(btf, id));

	return t && btf_is_int(t) && t->size == 1;
}

/* A char * is a string; an unsigned char * (bytes) is an address. */
static bool rbtf_is_text(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, rbtf_peel(btf, id));
	const char *n = t ? btf__name_by_offset(btf, t->name_off) : NULL;

	return rbtf_is_char(btf, id) && !(n && !strcmp(n, "unsigned char"));
}

static const char *rbtf_value(struct arena *a, const struct rbtf_loc *l)
{
	return l->mem ? arena_printf(a, "%+" PRId64 "(%s)", (int64_t)l->off, l->expr) : l->expr;
}

/* Member @name of struct/union @id (anonymous members searched too). */
static bool rbtf_member(const struct btf *btf, uint32_t id, const char *name,
		      uint32_t *mtype, uint64_t *bitoff, int *bits)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m = btf_members(t);
	unsigned i, n = btf_vlen(t);

	for (i = 0; i < n; i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		uint32_t sub = rbtf_peel(btf, m->type);
		const struct btf_type *st = btf__type_by_id(btf, sub);

		if (mn && *mn && !strcmp(mn, name)) {
			*mtype = m->type;
			*bitoff = btf_member_bit_offset(t, i);
			*bits = (int)btf_member_bitfield_size(t, i);
			return true;
		}
		if ((!mn || !*mn) && st && (btf_is_struct(st) || btf_is_union(st)) &&
		    rbtf_member(btf, sub, name, mtype, bitoff, bits)) {
			*bitoff += btf_member_bit_offset(t, i);
			return true;
		}
	}
	return false;
}

/* The name of a member of struct/union @id (anonymous members' too)
   closest to @name, into *@best at distance *@bestd, for "did you mean". */
static void rbtf_closest_member(const struct btf *btf, uint32_t id, const char *name,
				const char **best, unsigned *bestd)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m = btf_members(t);
	unsigned i, n = btf_vlen(t), d;

	for (i = 0; i < n; i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		uint32_t sub = rbtf_peel(btf, m->type);
		const struct btf_type *st = btf__type_by_id(btf, sub);

		if (mn && *mn) {
			if ((d = diag_distance(name, mn)) < *bestd)
				*bestd = d, *best = mn;
		} else if (st && (btf_is_struct(st) || btf_is_union(st))) {
			rbtf_closest_member(btf, sub, name, best, bestd);
		}
	}
}

/* The error for member @name missing from struct/union @t (type @id). */
static void rbtf_no_member(const struct btf *btf, const struct rbtf_loc *l,
			   const struct btf_type *t, const char *name, char *err, size_t errlen)
{
	const char *best = NULL;
	unsigned bestd = 99;

	rbtf_closest_member(btf, l->type, name, &best, &bestd);
	fetch_no_member_in(l->shown, btf_is_union(t) ? "union" : "struct",
			   btf__name_by_offset(btf, t->name_off), name,
			   diag_is_typo_of(name, bestd) ? best : NULL, err, errlen);
}

static int rbtf_step_member(struct arena *a, const struct btf *btf, struct rbtf_loc *l,
			  const struct ast_comp *c, char *err, size_t errlen)
{
	const struct btf_type *t = btf__type_by_id(btf, l->type);
	uint64_t bitoff;
	uint32_t mtype;
	int bits;

	if (t && btf_is_ptr(t)) {
		l->expr = rbtf_value(a, l);
		l->mem = true;
		l->off = 0;
		l->type = rbtf_peel(btf, t->type);
		t = btf__type_by_id(btf, l->type);
	}
	if (fetch_check_member(c->name, t && (btf_is_struct(t) || btf_is_union(t)), l->mem,
			       err, errlen) != 0)
		return -1;
	if (!rbtf_member(btf, l->type, c->name, &mtype, &bitoff, &bits)) {
		rbtf_no_member(btf, l, t, c->name, err, errlen);
		return -1;
	}
	l->type = rbtf_peel(btf, mtype);
	l->name = arena_printf(a, "%s_%s", l->name, c->name);
	l->shown = arena_printf(a, "%s->%s", l->shown, c->name);
	l->bits = bits;
	if (bits) {
		const struct btf_type *mt = btf__type_by_id(btf, l->type);

		l->csize = mt ? (int)mt->size : 4;
		l->off += (bitoff / (8 * (uint64_t)l->csize)) * (uint64_t)l->csize;
		l->bitoff = (int)(bitoff % (8 * (uint64_t)l->csize));
	} else {
		l->off += bitoff / 8;
	}
	return 0;
}

static int rbtf_step_index(struct arena *a, const struct btf *btf, struct rbtf_loc *l,
			 const struct ast_comp *c, char *err, size_t errlen)
{
	const struct btf_type *t = btf__type_by_id(btf, l->type);
	uint32_t elem;
	int64_t size;

	if (!c->index || c->index->kind != AST_NUM) {
		snprintf(err, errlen, "an index into kernel memory must be a constant "
			 "(the kernel fetches it before the handler runs)");
		return -1;
	}
	if (!t || !(btf_is_ptr(t) || btf_is_array(t))) {
		fetch_not_indexable(c->index->num, err, errlen);
		return -1;
	}
	elem = btf_is_ptr(t) ? t->type : btf_array(t)->type;
	size = btf__resolve_size(btf, elem);
	if (size <= 0) {
		snprintf(err, errlen, "'[%" PRId64 "]': elements of unknown size", c->index->num);
		return -1;
	}
	if (btf_is_ptr(t)) {
		l->expr = rbtf_value(a, l);
		l->mem = true;
		l->off = 0;
	}
	l->off += (uint64_t)c->index->num * (uint64_t)size;
	l->type = rbtf_peel(btf, elem);
	l->name = arena_printf(a, "%s_%" PRId64, l->name, c->index->num);
	l->shown = arena_printf(a, "%s[%" PRId64 "]", l->shown, c->index->num);
	return 0;
}

static int rbtf_finish(struct arena *a, const struct btf *btf, struct rbtf_loc *l,
		     const struct ast_chain *chain, struct fetch *out, char *err,
		     size_t errlen)
{
	const struct btf_type *t = btf__type_by_id(btf, l->type);
	enum ast_mem mem = chain->mem;

	out->name = l->name;
	out->is_string = false;
	if (mem == AST_MEM_ADDR) {	/* "VALUE:u64@OFF": the address is VALUE + OFF */
		if (!l->mem || l->bits) {
			snprintf(err, errlen, "'%s' has no address (%s)", l->shown,
				 l->bits ? "a bitfield" : "it is in a register");
			return -1;
		}
		out->arg = arena_printf(a, "%s:u64@%" PRIu64, l->expr, l->off);
		return 0;
	}
	if (mem && t && btf_is_array(t) && l->mem) {	/* the array is its address */
		fetch_mem_at(a, arena_printf(a, "%+" PRId64 "(%s)", (int64_t)l->off, l->expr), mem, true,
			     out);
		return 0;
	}
	if (mem) {
		if (!t || !(btf_is_ptr(t) || btf_is_int(t) || btf_is_enum(t))) {
			snprintf(err, errlen, "'%s' is not an address", l->shown);
			return -1;
		}
		fetch_mem_chain(a, rbtf_value(a, l), chain, true, out);
		return 0;
	}
	if (l->bits) {
		out->arg = arena_printf(a, "%+" PRId64 "(%s):b%d@%d/%d", (int64_t)l->off, l->expr,
					l->bits, l->bitoff, l->csize * 8);
		return 0;
	}
	if (t && btf_is_array(t) && l->mem && rbtf_is_char(btf, btf_array(t)->type)) {
		out->arg = arena_printf(a, "%+" PRId64 "(%s):string", (int64_t)l->off, l->expr);
		out->is_string = true;
		return 0;
	}
	if (t && btf_is_ptr(t) && !chain->raw && rbtf_is_text(btf, t->type)) {
		out->arg = arena_printf(a, "+0(%s):string", rbtf_value(a, l));
		out->is_string = true;
		return 0;
	}
	if (t && btf_is_ptr(t)) {
		out->arg = arena_printf(a, "%s:u64", rbtf_value(a, l));
		return 0;
	}
	if (t && (btf_is_int(t) || btf_is_enum(t)) &&
	    (t->size == 1 || t->size == 2 || t->size == 4 || t->size == 8)) {
		bool sign = btf_is_enum(t) || (btf_int_encoding(t) & BTF_INT_SIGNED);

		out->arg = arena_printf(a, "%s:%c%u", rbtf_value(a, l), sign ? 's' : 'u',
					t->size * 8);
		return 0;
	}
	snprintf(err, errlen, "'%s' is a %s: read one of its members or elements", l->shown,
		 t && btf_is_struct(t) ? "struct" : t && btf_is_union(t) ? "union" :
		 t && btf_is_array(t) ? "array" : "value ktap cannot fetch");
	return -1;
}

/* Parameter @name of prototype @proto: position and type. */
static int rbtf_param(const struct btf *btf, int32_t proto, const char *name,
		    unsigned *pos, uint32_t *type)
{
	const struct btf_type *t = btf__type_by_id(btf, (uint32_t)proto);
	const struct btf_param *p = btf_params(t);
	unsigned i, n = btf_vlen(t);

	for (i = 0; i < n; i++, p++) {
		const char *pn = btf__name_by_offset(btf, p->name_off);

		if (pn && !strcmp(pn, name)) {
			*pos = i;
			*type = rbtf_peel(btf, p->type);
			return 0;
		}
	}
	return -1;
}

/* The integer argument registers a parameter of type @id takes (cc_param_regs()). */
static int rbtf_param_regs(const struct btf *btf, const struct cc_machine *cc, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, rbtf_peel(btf, id));
	__s64 size = btf__resolve_size(btf, id);

	if (!t || size < 0)
		return 1;
	return cc_param_regs(cc, btf_is_float(t), btf_is_composite(t), size);
}

/*
 * The register slot of parameter @i of @proto (0-based) under @cc
 * (cc_param_slot()): 6.1's tcp_setsockopt() passes its 16-byte
 * sockptr_t in two registers, so its optlen is the sixth, not the fifth.
 */
static unsigned rbtf_param_slot(const struct btf *btf, const struct cc_machine *cc,
				int32_t proto, unsigned i)
{
	const struct btf_type *t = btf__type_by_id(btf, (uint32_t)proto);
	const struct btf_param *p = btf_params(t);
	int regs[64];
	unsigned words[64], k;

	if (i >= btf_vlen(t) || i >= 64)
		return cc_nregs(cc);
	for (k = 0; k <= i; k++) {
		__s64 size = btf__resolve_size(btf, p[k].type);

		regs[k] = rbtf_param_regs(btf, cc, p[k].type);
		words[k] = size > 8 ? (unsigned)((size + 7) / 8) : 1;
	}
	return cc_param_slot(cc, regs, words, i);
}

/* Follow @chain from @l, then make the fetch. */
static int rbtf_walk(struct arena *a, const struct btf *btf, struct rbtf_loc *l,
		   const struct ast_chain *chain, struct fetch *out, char *err,
		   size_t errlen)
{
	unsigned i;

	for (i = 0; i < chain->n; i++) {
		const struct ast_comp *c = &chain->v[i];

		if ((c->is_index ? rbtf_step_index(a, btf, l, c, err, errlen) :
				   rbtf_step_member(a, btf, l, c, err, errlen)) != 0)
			return -1;
	}
	return rbtf_finish(a, btf, l, chain, out, err, errlen);
}

int rbtf_fetch(struct arena *a, const struct btf *btf, int32_t proto, const char *fname,
	     const char *var, const struct ast_chain *chain, bool ret,
	     struct fetch *out, char *err, size_t errlen)
{
	const struct cc_machine *cc = cc_host();
	struct rbtf_loc l;
	unsigned pos;
	char *end;
	long n;

	memset(&l, 0, sizeof(l));
	l.name = arena_strdup(a, var + 1);
	l.shown = var;
	if (!cc) {
		snprintf(err, errlen, "ktap does not know the calling convention of this "
			 "machine (it knows x86_64 and aarch64)");
		return -1;
	}
	if (chain->pretty) {
		snprintf(err, errlen, "pretty printing ('%s$') is not supported yet", var);
		return -1;
	}
	if (!strcmp(var, "$return")) {
		const struct btf_type *t = btf__type_by_id(btf, (uint32_t)proto);

		if (!ret) {
			snprintf(err, errlen, "$return is only available in .return probes");
			return -1;
		}
		if (!t->type) {
			snprintf(err, errlen, "function %s returns nothing", fname);
			return -1;
		}
		l.expr = "$retval";
		l.name = "ret";
		l.type = rbtf_peel(btf, t->type);
	} else if (!strncmp(var, "$arg", 4) && (n = strtol(var + 4, &end, 10)) > 0 && !*end &&
		   (unsigned)n <= cc_nregs(cc)) {
		if (chain->n) {
			snprintf(err, errlen, "%s has no type: '->' and '[]' need the "
				 "parameter's name", var);
			return -1;
		}
		out->name = l.name;
		out->is_string = false;
		if (chain->mem)
			fetch_mem_chain(a, cc_arg(a, cc, (unsigned)n - 1), chain, true, out);
		else
			out->arg = arena_printf(a, "%s:s64", cc_arg(a, cc, (unsigned)n - 1));
		return 0;
	} else if (rbtf_param(btf, proto, var + 1, &pos, &l.type) == 0) {
		if (ret) {
			snprintf(err, errlen, "parameter %s is not available in a return probe "
				 "(its register is reused): use @entry(%s)", var, var);
			return -1;
		}
		pos = rbtf_param_slot(btf, cc, proto, pos);
		if (pos >= cc_nregs(cc) &&
		    btf_is_composite(btf__type_by_id(btf, rbtf_peel(btf, l.type)))) {
			snprintf(err, errlen, "parameter %s is a struct passed on the stack; "
				 "only a scalar or pointer there can be fetched", var);
			return -1;
		}
		/* Past the argument registers: a stack slot, +N(%sp) at the
		   entry (the kernel's own $argN for N > 6 reads the same). */
		l.expr = cc_arg(a, cc, pos);
	} else {
		snprintf(err, errlen, "function %s has no parameter '%s'", fname, var + 1);
		return -1;
	}
	return rbtf_walk(a, btf, &l, chain, out, err, errlen);
}

int rbtf_tp_fetch(struct arena *a, const struct btf *btf, int32_t proto, const char *var,
		  const struct ast_chain *chain, struct fetch *out, char *err, size_t errlen)
{
	struct rbtf_loc l;
	unsigned pos;

	memset(&l, 0, sizeof(l));
	l.name = arena_strdup(a, var + 1);
	l.shown = var;
	if (rbtf_param(btf, proto, var + 1, &pos, &l.type) != 0 || pos == 0) {
		snprintf(err, errlen, "the tracepoint has no argument '%s'", var + 1);
		return -1;
	}
	l.expr = arena_printf(a, "$arg%u", pos);
	return rbtf_walk(a, btf, &l, chain, out, err, errlen);
}

/* A struct, union or typedef named @type ("struct x", "x"), peeled; -1 when none. */
static int32_t rbtf_named_type(const struct btf *btf, const char *type)
{
	bool is_union = !strncmp(type, "union ", 6);
	const char *n = !strncmp(type, "struct ", 7) || is_union ? strchr(type, ' ') + 1 : type;
	int32_t id;

	if (n != type)
		return btf__find_by_name_kind(btf, n, is_union ? BTF_KIND_UNION : BTF_KIND_STRUCT);
	/* A bare name, as stap allows ("sock"): a typedef, else a struct or union. */
	id = btf__find_by_name_kind(btf, n, BTF_KIND_TYPEDEF);
	if (id < 0)
		id = btf__find_by_name_kind(btf, n, BTF_KIND_STRUCT);
	if (id < 0)
		id = btf__find_by_name_kind(btf, n, BTF_KIND_UNION);
	return id;
}

int rbtf_sizeof(const struct btf *btf, const char *type, int64_t *size, char *err,
		size_t errlen)
{
	int32_t id = rbtf_named_type(btf, type);

	if (id < 0 || (*size = btf__resolve_size(btf, (uint32_t)id)) < 0) {
		snprintf(err, errlen, "no type \"%s\" in the kernel's BTF", type);
		return -1;
	}
	return 0;
}

void rbtf_types_free(struct rbtf_types *t)
{
	unsigned i;

	for (i = 0; i < t->n; i++)
		free(t->name[i]);
	free(t->btf);
	free(t->name);
	free(t->id);
	memset(t, 0, sizeof(*t));
}

/* rbtf_named_type() through @t (when it can grow; else uncached). */
static int32_t rbtf_cached_type(struct rbtf_types *t, const struct btf *btf, const char *type)
{
	int32_t id;
	unsigned i;
	char *copy;

	for (i = 0; t && i < t->n; i++)
		if (t->btf[i] == btf && !strcmp(t->name[i], type))
			return t->id[i];
	id = rbtf_named_type(btf, type);
	if (!t || !(copy = strdup(type)))
		return id;
	if (t->n == t->cap) {
		unsigned cap = t->cap ? 2 * t->cap : 8;
		const struct btf **b = realloc(t->btf, cap * sizeof(*b));
		char **n = b ? realloc(t->name, cap * sizeof(*n)) : NULL;
		int32_t *d = n ? realloc(t->id, cap * sizeof(*d)) : NULL;

		if (b)
			t->btf = b;
		if (n)
			t->name = n;
		if (!d) {
			free(copy);
			return id;
		}
		t->id = d;
		t->cap = cap;
	}
	t->btf[t->n] = btf;
	t->name[t->n] = copy;
	t->id[t->n++] = id;
	return id;
}

int rbtf_cast(struct arena *a, const struct btf *btf, const char *value, const char *name,
	    const char *type, const struct ast_chain *chain, struct fetch *out,
	    char *err, size_t errlen)
{
	return rbtf_cast_at(a, NULL, btf, value, 0, name, type, chain, out, err, errlen);
}

int rbtf_cast_at(struct arena *a, struct rbtf_types *cache, const struct btf *btf,
		 const char *value, int64_t off, const char *name, const char *type,
		 const struct ast_chain *chain, struct fetch *out, char *err, size_t errlen)
{
	int32_t id = rbtf_cached_type(cache, btf, type);
	struct rbtf_loc l;

	if (id < 0) {
		snprintf(err, errlen, "no type \"%s\" in the kernel's BTF", type);
		return -1;
	}
	memset(&l, 0, sizeof(l));
	l.expr = value;
	l.mem = true;
	l.off = (uint64_t)off;
	l.type = rbtf_peel(btf, (uint32_t)id);
	l.name = arena_printf(a, "%s_cast", name);
	l.shown = arena_printf(a, "@cast(..., \"%s\")", type);
	if (chain->n && chain->v[0].is_index && chain->v[0].index &&
	    chain->v[0].index->kind == AST_NUM) {
		/* stap's @cast(P, "T")[N]: P is a T *, so element N of T's there */
		struct ast_chain rest = *chain;

		l.off += (uint64_t)(chain->v[0].index->num * btf__resolve_size(btf, l.type));
		rest.v++;
		rest.n--;
		return rbtf_walk(a, btf, &l, &rest, out, err, errlen);
	}
	return rbtf_walk(a, btf, &l, chain, out, err, errlen);
}

unsigned rbtf_params(struct arena *a, const struct btf *btf, int32_t proto,
		   const char ***names)
{
	const struct btf_type *t = btf__type_by_id(btf, (uint32_t)proto);
	const struct btf_param *p = btf_params(t);
	unsigned i, n = btf_vlen(t), k = 0;

	*names = arena_alloc(a, (n + 1) * sizeof(**names));
	for (i = 0; i < n && i < 6; i++, p++) {
		const char *pn = btf__name_by_offset(btf, p->name_off);

		if (pn && *pn)
			(*names)[k++] = arena_strdup(a, pn);
	}
	return k;
}

static int rbtf_cmp(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

int rbtf_match(struct arena *a, const struct btf *btf, const char *pattern,
	     const char ***names)
{
	const struct btf *base = btf__base_btf(btf);
	uint32_t i, n = btf__type_cnt(btf);
	size_t k = 0, cap = 0;

	*names = NULL;
	/* a module's BTF is split on vmlinux's: its own functions only */
	for (i = base ? btf__type_cnt(base) : 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);
		const char *fn;

		if (!btf_is_func(t))
			continue;
		fn = btf__name_by_offset(btf, t->name_off);
		if (!fn || fnmatch(pattern, fn, 0) != 0)
			continue;
		*names = arena_grow(a, *names, k, &cap, sizeof(**names));
		(*names)[k++] = fn;
	}
	if (k)
		qsort(*names, k, sizeof(**names), rbtf_cmp);
	return (int)k;
}

int64_t rbtf_type_size(const struct btf *btf, uint32_t id)
{
	__s64 n = btf__resolve_size(btf, id);

	return n < 0 ? -1 : (int64_t)n;
}

const char *rbtf_type_name(struct arena *a, const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *n;

	if (!id || !t)
		return "void";
	n = btf__name_by_offset(btf, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
		return arena_printf(a, "%s *", rbtf_type_name(a, btf, t->type));
	case BTF_KIND_CONST:
		return arena_printf(a, "const %s", rbtf_type_name(a, btf, t->type));
	case BTF_KIND_VOLATILE:
		return arena_printf(a, "volatile %s", rbtf_type_name(a, btf, t->type));
	case BTF_KIND_STRUCT:
		return arena_printf(a, "struct %s", n && *n ? n : "(anonymous)");
	case BTF_KIND_UNION:
		return arena_printf(a, "union %s", n && *n ? n : "(anonymous)");
	case BTF_KIND_ENUM:
		return arena_printf(a, "enum %s", n && *n ? n : "(anonymous)");
	case BTF_KIND_ARRAY:
		return arena_printf(a, "%s[%u]", rbtf_type_name(a, btf, btf_array(t)->type),
				    btf_array(t)->nelems);
	case BTF_KIND_TYPEDEF: case BTF_KIND_INT:
		return n && *n ? n : "?";
	default:
		return rbtf_type_name(a, btf, t->type);
	}
}

unsigned rbtf_param_decls(struct arena *a, const struct btf *btf, int32_t proto,
			const char ***decls)
{
	const struct btf_type *t = btf__type_by_id(btf, (uint32_t)proto);
	const struct btf_param *p = btf_params(t);
	unsigned i, n = btf_vlen(t), k = 0;

	*decls = arena_alloc(a, (n + 1) * sizeof(**decls));
	for (i = 0; i < n; i++, p++) {
		const char *pn = btf__name_by_offset(btf, p->name_off);

		if (pn && *pn)
			(*decls)[k++] = arena_printf(a, "$%s:%s", pn, rbtf_type_name(a, btf, p->type));
	}
	return k;
}

/* Follow @chain's members from type @id: the type it ends at, or -1 + @err. */
static int rbtf_follow(const struct btf *btf, uint32_t id, const struct ast_chain *chain,
		       uint32_t *type, char *err, size_t errlen)
{
	const struct btf_type *t;
	unsigned i;

	for (i = 0; i < chain->n; i++) {
		const struct ast_comp *c = &chain->v[i];
		uint64_t bitoff;
		int bits;

		t = btf__type_by_id(btf, id);
		if (t && (btf_is_ptr(t) || btf_is_array(t)))
			id = rbtf_peel(btf, btf_is_ptr(t) ? t->type : btf_array(t)->type);
		if (c->is_index)
			continue;
		if (!rbtf_member(btf, id, c->name, &id, &bitoff, &bits)) {
			snprintf(err, errlen, "no member '%s'", c->name);
			return -1;
		}
		id = rbtf_peel(btf, id);
	}
	*type = id;
	return 0;
}

int rbtf_cast_type(const struct btf *btf, const char *type, const struct ast_chain *chain,
		   uint32_t *id, char *err, size_t errlen)
{
	int32_t base = rbtf_named_type(btf, type);

	if (base < 0) {
		snprintf(err, errlen, "no type \"%s\" in the kernel's BTF", type);
		return -1;
	}
	return rbtf_follow(btf, rbtf_peel(btf, (uint32_t)base), chain, id, err, errlen);
}

int rbtf_chain_type(struct arena *a, const struct btf *btf, int32_t proto, const char *fname,
		  const char *var, const struct ast_chain *chain, bool ret, uint32_t *type,
		  char *err, size_t errlen)
{
	struct ast_chain plain = *chain;
	struct fetch out;
	uint32_t id;
	unsigned pos;

	plain.pretty = 0;
	plain.mem = AST_MEM_NONE;
	plain.n = 0;
	/* Validate the base, then follow the members by name. */
	if (strcmp(var, "$return") == 0) {
		if (!ret) {
			snprintf(err, errlen, "$return is only available in .return probes");
			return -1;
		}
		id = rbtf_peel(btf, btf__type_by_id(btf, (uint32_t)proto)->type);
	} else if (rbtf_param(btf, proto, var + 1, &pos, &id) != 0) {
		(void)rbtf_fetch(a, btf, proto, fname, var, &plain, ret, &out, err, errlen);
		return -1;
	}
	return rbtf_follow(btf, id, chain, type, err, errlen);
}

/* The number of CPUs in a cpulist ("0-3,8"): what num_possible_cpus() is. */
static unsigned rbtf_cpulist_count(const char *s)
{
	unsigned n = 0;
	char *end;

	while (*s) {
		unsigned long lo = strtoul(s, &end, 10), hi = lo;

		if (end == s)
			break;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		n += hi >= lo ? (unsigned)(hi - lo + 1) : 0;
		s = end + (*end == ',');
		if (*end && *end != ',')
			break;
	}
	return n;
}

unsigned rbtf_kretactive(const char *possible)
{
	unsigned ncpus, n;

	/* the session read the list (target.c); none: one CPU */
	ncpus = possible ? rbtf_cpulist_count(possible) : 1;
	if (!ncpus)
		ncpus = 1;
	/* stap's KRETACTIVE (runtime/linux/kprobes.c): a few per CPU, at least 15 */
	n = ncpus > RBTF_MAXACTIVE_MAX / 6 ? RBTF_MAXACTIVE_MAX : 6 * ncpus;
	return n < 15 ? 15 : n;
}
