/*
 * resolve_btf.h - kernel functions and their parameters from the kernel's BTF
 * (resolve_btf.c), as kprobe fetch arguments.
 */
#ifndef KTAP_RESOLVE_BTF_H
#define KTAP_RESOLVE_BTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ast.h"
#include "fetch.h"

struct arena;
struct btf;

/* The BTF at @path, or the running kernel's (@path NULL); NULL + @err. */
struct btf *rbtf_load(const char *path, char *err, size_t errlen);
void rbtf_free(struct btf *btf);
/* Module @name's BTF (/sys/kernel/btf/NAME), split over @base. */
struct btf *rbtf_load_module(const char *dir, const char *name, struct btf *base,
			     char *err, size_t errlen);

/* The prototype (BTF type id) of kernel function @name; 0 or -1 + @err. */
int rbtf_find(struct btf *btf, const char *name, int32_t *proto, char *err, size_t errlen);

/* Like rdwarf_fetch(), for function @fname with prototype @proto. */
int rbtf_fetch(struct arena *a, const struct btf *btf, int32_t proto, const char *fname,
	     const char *var, const struct ast_chain *chain, bool ret,
	     struct fetch *out, char *err, size_t errlen);

/*
 * Argument @var ("$prev") of a tracepoint whose probe function (its
 * stub, "__bpf_trace_CLASS") has prototype @proto, then @chain, as a
 * tracepoint probe event's fetch: "+2416($arg2):s32" (the stub's first
 * parameter, __data, is not an argument: $arg1 is the next one).
 */
int rbtf_tp_fetch(struct arena *a, const struct btf *btf, int32_t proto, const char *var,
		  const struct ast_chain *chain, struct fetch *out, char *err, size_t errlen);

/* @cast(VALUE, "struct T")->chain on BTF (see rdwarf_cast). */
int rbtf_cast(struct arena *a, const struct btf *btf, const char *value, const char *name,
	    const char *type, const struct ast_chain *chain, struct fetch *out,
	    char *err, size_t errlen);

/* rbtf_cast() of the struct at @value + @off (stap's "kernel<...>" or a module's BTF). */
/* sizeof(@type) of a struct, union or typedef; 0, or -1 + @err. */
int rbtf_sizeof(const struct btf *btf, const char *type, int64_t *size, char *err,
		size_t errlen);
/*
 * Type ids by name, remembered per BTF: libbpf finds a name by scanning
 * every type (a kernel has 100,000 and more), and the tapset's unrolled
 * walks (fullpath_struct_path()) name the same few types thousands of
 * times.  Owned by the caller (relf_files), freed by rbtf_types_free().
 */
struct rbtf_types {
	const struct btf **btf;
	char **name;
	int32_t *id;
	unsigned n, cap;
};

void rbtf_types_free(struct rbtf_types *t);

/* rbtf_cast() at offset @off of @value, with @type's id looked up
   through @cache (NULL: no cache). */
int rbtf_cast_at(struct arena *a, struct rbtf_types *cache, const struct btf *btf,
		 const char *value, int64_t off, const char *name, const char *type,
		 const struct ast_chain *chain, struct fetch *out, char *err, size_t errlen);


/* The type id (peeled) @chain ends at from struct, union or typedef
   @type (@cast(A, "type")->chain), or -1 + @err. */
int rbtf_cast_type(const struct btf *btf, const char *type, const struct ast_chain *chain,
		   uint32_t *id, char *err, size_t errlen);

/* The type id (peeled) @var->@chain ends at (not followed if a pointer), or -1 + @err. */
int rbtf_chain_type(struct arena *a, const struct btf *btf, int32_t proto, const char *fname,
		  const char *var, const struct ast_chain *chain, bool ret, uint32_t *type,
		  char *err, size_t errlen);

/* Every BTF function whose name matches @pattern, sorted (see rsym_match). */
int rbtf_match(struct arena *a, const struct btf *btf, const char *pattern,
	     const char ***names);

/* The C spelling of type @id ("struct file *", "size_t"). */
/*
 * Default kretprobe instances (maxactive) for a return probe without
 * .maxactive(N), as stap sizes them: max(15, 6 * possible CPUs), within
 * the kernel's 1..4096.  @possible: the text of
 * /sys/devices/system/cpu/possible ("0-3,8") as the session read it
 * (target.h), NULL for one CPU.
 */
unsigned rbtf_kretactive(const char *possible);
#define RBTF_MAXACTIVE_MAX 4096	/* KRETPROBE_MAXACTIVE_MAX, trace_kprobe.c */

const char *rbtf_type_name(struct arena *a, const struct btf *btf, uint32_t id);
/* The size in bytes of type @id (a pointer's is the pointer's), or -1. */
int64_t rbtf_type_size(const struct btf *btf, uint32_t id);

/* "$name:type" of each parameter (for -L). */
unsigned rbtf_param_decls(struct arena *a, const struct btf *btf, int32_t proto,
			const char ***decls);

/* The names of the parameters that can be fetched (for $$parms). */
unsigned rbtf_params(struct arena *a, const struct btf *btf, int32_t proto,
		   const char ***names);

#endif
