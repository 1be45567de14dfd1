/*
 * resolve_sym.c - finding probe points' functions and statements for
 * pass 2: ELF symbols, DWARF subprograms and line tables, the kernel's
 * BTF and available_filter_functions; wildcards (see resolve_sym.h).
 */
#define _GNU_SOURCE
#include "resolve_sym.h"
#include "arena.h"
#include "resolve_btf.h"
#include "resolve_dwarf.h"
#include "resolve_tpfmt.h"
#include "target.h"

#include <dwarf.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Does source path @src end with @want at a path component boundary? */
static bool rsym_path_suffix(const char *src, const char *want)
{
	size_t n = strlen(src), m = strlen(want);

	return n >= m && !strcmp(src + n - m, want) && (n == m || src[n - m - 1] == '/');
}

/*
 * Does source file @src match @want, the FILE of "NAME@FILE"?  A path
 * suffix ("read_write.c", "fs/read_write.c") or a glob ("fs/x*.c").
 */
static bool rsym_file_matches(const char *src, const char *want)
{
	char glob[PATH_MAX];

	if (!src)
		return false;
	if (rsym_path_suffix(src, want) || fnmatch(want, src, 0) == 0)
		return true;
	snprintf(glob, sizeof(glob), "*/%s", want);
	return fnmatch(glob, src, 0) == 0;
}

/*
 * One walk over the functions (with code) of a DWARF file: the first
 * named @name, or with @names every one whose name matches glob @name;
 * with @file only those declared in a matching source file.
 */
struct rsym_search {
	const char *name;
	const char *file;
	Dwarf_Die found;
	bool ok;
	struct arena *a;	/* with @names: where the list grows */
	const char **names;
	size_t n, cap;
};

static int rsym_func_cb(Dwarf_Die *die, void *arg)
{
	struct rsym_search *s = arg;
	const char *n = dwarf_diename(die);
	Dwarf_Attribute at;
	Dwarf_Word inl = 0;

	/* a wildcard also matches a function only inlined (the abstract
	   instance its copies refer to: DW_AT_inline, no address), but
	   NAME@FILE names a function's own copy */
	if (s->a && !s->file && !dwarf_hasattr(die, DW_AT_low_pc) &&
	    dwarf_attr(die, DW_AT_inline, &at))
		dwarf_formudata(&at, &inl);
	if (!n || (!dwarf_hasattr(die, DW_AT_low_pc) &&
		   inl != DW_INL_inlined && inl != DW_INL_declared_inlined) ||
	    (s->file && !rsym_file_matches(dwarf_decl_file(die), s->file)))
		return DWARF_CB_OK;
	if (s->a) {
		if (fnmatch(s->name, n, 0) == 0) {
			s->names = arena_grow(s->a, s->names, s->n, &s->cap, sizeof(*s->names));
			s->names[s->n++] = arena_strdup(s->a, n);
		}
		return DWARF_CB_OK;
	}
	if (strcmp(n, s->name) != 0)
		return DWARF_CB_OK;
	s->found = *die;
	s->ok = true;
	return DWARF_CB_ABORT;
}

static void rsym_search_cus(Dwarf *dw, struct rsym_search *s)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die cu;

	while (!s->ok && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, &cu))
			dwarf_getfuncs(&cu, rsym_func_cb, s, 0);
		off = next;
	}
}

/* Function @name (declared in a file matching @file, if not NULL). */
static bool rsym_subprogram(Dwarf *dw, const char *name, const char *file, Dwarf_Die *out)
{
	struct rsym_search s = { .name = name, .file = file };

	rsym_search_cus(dw, &s);
	if (s.ok)
		*out = s.found;
	return s.ok;
}

/* "NAME@FILE": NAME in *@name, FILE in *@file (NULL without '@'). */
static void rsym_split_at(struct arena *a, const char *spec, const char **name,
			const char **file)
{
	const char *at = strchr(spec, '@');

	*name = at ? arena_strndup(a, spec, (size_t)(at - spec)) : spec;
	*file = at ? at + 1 : NULL;
}

/* Keep DWARF subprogram @die as @out's. */
static void rsym_keep_die(struct arena *a, struct fetch_site *out, const Dwarf_Die *die)
{
	out->die = arena_alloc(a, sizeof(Dwarf_Die));
	memcpy(out->die, die, sizeof(*die));
}

/*
 * "NAME@FILE" in @u: the function declared in FILE, at the address its
 * DWARF gives (a static function's name may be in several files).
 */
static int rsym_find_in_file(struct relf_file *u, struct arena *a, const char *name,
			   const char *file, struct fetch_site *out, GElf_Addr *addr,
			   char *err, size_t errlen)
{
	Dwarf_Die die;
	Dwarf_Addr lo;

	if (!u->dw) {
		snprintf(err, errlen, "\"%s@%s\" needs debug information, which %s has not "
			 "(build it with -g)", name, file, u->path);
		return -1;
	}
	if (!rsym_subprogram(u->dw, name, file, &die) || dwarf_lowpc(&die, &lo) != 0) {
		snprintf(err, errlen, "no function \"%s\" in a source file matching \"%s\" "
			 "in %s", name, file, u->path);
		return -1;
	}
	rsym_keep_die(a, out, &die);
	*addr = lo;
	return 0;
}

int rsym_find(struct relf_files *f, struct arena *a, const char *path, const char *spec,
	    struct fetch_site *out, char *err, size_t errlen)
{
	struct relf_file *u = relf_open(f, path, err, errlen);
	const char *name, *file;
	Dwarf_Die die;
	GElf_Addr addr;

	if (!u)
		return -1;
	memset(out, 0, sizeof(*out));
	rsym_split_at(a, spec, &name, &file);
	if (file) {
		if (rsym_find_in_file(u, a, name, file, out, &addr, err, errlen) != 0)
			return -1;
	} else if (!relf_symbol(u->elf, name, &addr) &&
		   /* C++: the symbol's name is mangled, the DWARF's is not */
		   !(u->dw && rsym_subprogram(u->dw, name, NULL, &die) &&
		     dwarf_lowpc(&die, &addr) == 0)) {
		snprintf(err, errlen, "no function \"%s\" in %s", name, u->path);
		return -1;
	}
	if (!relf_offset(u->elf, addr, &out->offset)) {
		snprintf(err, errlen, "function \"%s\" of %s is not in a loaded segment",
			 name, u->path);
		return -1;
	}
	out->path = arena_strdup(a, u->path);
	out->name = arena_strdup(a, name);
	out->file = u;
	out->addr = addr;
	if (!file && u->dw && rsym_subprogram(u->dw, name, NULL, &die))
		rsym_keep_die(a, out, &die);
	return 0;
}

/* Kernel function @name from the kernel's or module @module's BTF. */
static int rsym_find_btf(struct relf_files *f, struct arena *a, const char *module,
		       const char *name, struct fetch_site *out, char *err, size_t errlen)
{
	struct btf *btf = relf_kernel_btf(f, a, module, err, errlen);

	if (!btf || rbtf_find(btf, name, &out->proto, err, errlen) != 0)
		return -1;
	out->btf = btf;
	return 0;
}

/*
 * Kernel function @name (declared in @file, if not NULL) from the DWARF
 * of vmlinux or module @module, wherever kd_find() finds it.  @err may
 * hold BTF's complaint already: it is kept when there is no DWARF file
 * at all and the DWARF was only a fallback.
 */
static int rsym_find_kdwarf(struct relf_files *f, struct arena *a, const char *module,
			  const char *name, const char *file, struct fetch_site *out,
			  char *err, size_t errlen)
{
	char why[512];
	struct relf_file *u;
	Dwarf_Die die;

	snprintf(why, sizeof(why), "%s", err);
	u = relf_open_kdwarf(f, module, err, errlen);
	if (!u) {
		if (file)	/* "no DWARF of ... found" */
			snprintf(why, sizeof(why), "\"%s@%s\" needs DWARF: %s", name, file, err);
		else if (module && *why)
			snprintf(why + strlen(why), sizeof(why) - strlen(why), "; %s", err);
		if (*why)	/* else BTF's own reason stands */
			snprintf(err, errlen, "%s", why);
		return -1;
	}
	if (!u->dw || !rsym_subprogram(u->dw, name, file, &die)) {
		snprintf(err, errlen, "no function \"%s\"%s%s%s in the DWARF of %s (%s)", name,
			 file ? " in a source file matching \"" : "", file ? file : "",
			 file ? "\"" : "", module ? module : "the kernel", u->path);
		return -1;
	}
	rsym_keep_die(a, out, &die);
	out->file = u;
	return 0;
}

int rsym_find_kernel(struct relf_files *f, struct arena *a, const char *module,
		   const char *spec, struct fetch_site *out, char *err, size_t errlen)
{
	const char *name, *file;

	memset(out, 0, sizeof(*out));
	rsym_split_at(a, spec, &name, &file);
	/* BTF when it describes the function; DWARF for NAME@FILE and the rest. */
	if ((file || rsym_find_btf(f, a, module, name, out, err, errlen) != 0) &&
	    rsym_find_kdwarf(f, a, module, name, file, out, err, errlen) != 0)
		return -1;
	out->name = arena_strdup(a, name);
	out->path = module ? arena_strdup(a, module) : "kernel";
	out->kernel = true;
	return 0;
}

static int rsym_cmp(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Sort @v (@n names) and drop duplicates; returns the new count. */
static size_t rsym_sort_unique(const char **v, size_t n)
{
	size_t i, k = 0;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), rsym_cmp);
	for (i = 1; i < n; i++)
		if (strcmp(v[i], v[k]) != 0)
			v[++k] = v[i];
	return k + 1;
}

/*
 * Whether a line of available_filter_functions, "NAME" or "NAME [MOD]",
 * is @module's function (the kernel's when NULL); @line is cut to NAME.
 */
static bool rsym_ftrace_in(char *line, const char *module)
{
	char *tag = line + strcspn(line, " \t\n");
	bool in;

	tag += strspn(tag, " \t");
	if (*tag != '[')
		in = !module;
	else
		in = module && !strncmp(tag + 1, module, strlen(module)) &&
		     tag[1 + strlen(module)] == ']';
	line[strcspn(line, " \t\n")] = '\0';
	return in;
}

/*
 * Kernel functions kprobes can attach to: the target's
 * available_filter_functions (@list; NULL when it has none), the
 * kernel's or @module's.
 */
static int rsym_match_ftrace(struct arena *a, const char *list, const char *module,
			     const char *pattern, const char ***names)
{
	char line[512];
	FILE *fp = list ? fopen(list, "r") : NULL;
	size_t k = 0, cap = 0;

	if (!fp)
		return -1;
	*names = NULL;
	while (fgets(line, sizeof(line), fp)) {
		if (!rsym_ftrace_in(line, module) || !line[0] || fnmatch(pattern, line, 0) != 0)
			continue;
		*names = arena_grow(a, *names, k, &cap, sizeof(**names));
		(*names)[k++] = arena_strdup(a, line);
	}
	fclose(fp);
	return (int)rsym_sort_unique(*names, k);
}

/*
 * "NAME@FILE" or "NAME" with globs: every function of @u's DWARF whose
 * name matches NAME, declared in a file matching FILE, as "NAME@FILE"
 * again (FILE keeps a static function apart from its namesakes
 * elsewhere), or as "NAME".
 */
static int rsym_match_dwarf(struct arena *a, struct relf_file *u, const char *pattern,
			  const char ***names, char *err, size_t errlen)
{
	struct rsym_search s = { .a = a };
	size_t i, n;

	rsym_split_at(a, pattern, &s.name, &s.file);
	if (!u->dw) {
		snprintf(err, errlen, "\"%s\" needs debug information, which %s has not",
			 pattern, u->path);
		return -1;
	}
	rsym_search_cus(u->dw, &s);
	n = s.n ? rsym_sort_unique(s.names, s.n) : 0;
	for (i = 0; i < n && s.file; i++)
		s.names[i] = arena_printf(a, "%s@%s", s.names[i], s.file);
	*names = s.names;
	return (int)n;
}

int rsym_find_kernel_raw(const struct relf_files *f, struct arena *a, const char *module,
			 const char *name, struct fetch_site *out, char *err, size_t errlen)
{
	const char **names;

	memset(out, 0, sizeof(*out));
	if (strpbrk(name, "@*?[")) {
		snprintf(err, errlen, "\"%s\" needs the kernel's DWARF", name);
		return -1;
	}
	/* Unreadable list (not root): the kernel will say at run time. */
	if (rsym_match_ftrace(a, f->target->filter_functions, module, name, &names) == 0) {
		snprintf(err, errlen, "no kernel function \"%s\" that kprobes can trace "
			 "(it is not in available_filter_functions)", name);
		return -1;
	}
	out->name = arena_strdup(a, name);
	out->path = module ? arena_strdup(a, module) : "kernel";
	out->kernel = true;
	return 0;
}

int rsym_match(struct relf_files *f, struct arena *a, const char *path, const char *module,
	     const char *pattern, const char ***names, char *err, size_t errlen)
{
	struct relf_file *u;
	struct fetch_site probe;
	int n;

	if (strchr(pattern, '@')) {
		u = path ? relf_open(f, path, err, errlen) : relf_open_kdwarf(f, module, err, errlen);
		return u ? rsym_match_dwarf(a, u, pattern, names, err, errlen) : -1;
	}
	if (path) {
		u = relf_open(f, path, err, errlen);
		/* A wildcard in a program with debug information matches
		   its DWARF functions, as stap's: the C runtime's _start,
		   _init ... have symbols but no DWARF, and are not its own. */
		if (u && u->dw && strpbrk(pattern, "*?["))
			return rsym_match_dwarf(a, u, pattern, names, err, errlen);
		return u ? (int)rsym_sort_unique(*names, relf_match(a, u->elf, pattern, names)) : -1;
	}
	n = rsym_match_ftrace(a, f->target->filter_functions, module, pattern, names);
	if (n >= 0)
		return n;
	/* No tracefs list (not root?): every function the BTF describes. */
	if (module) {
		const struct btf *mb = relf_kernel_btf(f, a, module, err, errlen);

		return mb ? rbtf_match(a, mb, pattern, names) : -1;
	}
	if (rsym_find_kernel(f, a, NULL, "schedule", &probe, err, errlen) != 0 && !f->btf)
		return -1;
	return rbtf_match(a, f->btf, pattern, names);
}

/* The function holding @fn->addr: its DIE and name. */
static void rsym_stmt_func(struct arena *a, struct fetch_site *fn)
{
	Dwarf_Die *frame = rdwarf_frame_at(a, fn);

	if (frame) {
		fn->die = frame;
		if (dwarf_diename(frame))
			fn->name = arena_strdup(a, dwarf_diename(frame));
	}
}

int rsym_line(struct relf_files *f, struct arena *a, const char *path, const char *file,
	    int line, struct fetch_site *out, char *err, size_t errlen)
{
	struct relf_file *u = relf_open(f, path, err, errlen);
	Dwarf_Off off = 0, next;
	Dwarf_Addr best = 0, addr;
	bool found = false;
	size_t hsize, i, n;
	Dwarf_Lines *lines;
	Dwarf_Die cu;

	if (!u)
		return -1;
	if (!u->dw) {
		snprintf(err, errlen, "%s has no debug information (build it with -g)", u->path);
		return -1;
	}
	while (dwarf_nextcu(u->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(u->dw, off + hsize, &cu) && dwarf_getsrclines(&cu, &lines, &n) == 0) {
			for (i = 0; i < n; i++) {
				Dwarf_Line *l = dwarf_onesrcline(lines, i);
				const char *src = dwarf_linesrc(l, NULL, NULL);
				int ln = 0;
				bool stmt = false;

				dwarf_lineno(l, &ln);
				dwarf_linebeginstatement(l, &stmt);
				if (ln != line || !stmt || !src || !rsym_path_suffix(src, file) ||
				    dwarf_lineaddr(l, &addr) != 0)
					continue;
				if (!found || addr < best)
					best = addr;
				found = true;
			}
		}
		off = next;
	}
	if (!found) {
		snprintf(err, errlen, "no statement at %s:%d in %s", file, line, u->path);
		return -1;
	}
	memset(out, 0, sizeof(*out));
	if (!relf_offset(u->elf, best, &out->offset)) {
		snprintf(err, errlen, "%s:%d is not in a loaded segment of %s", file, line, u->path);
		return -1;
	}
	out->path = arena_strdup(a, u->path);
	out->name = "?";
	out->file = u;
	out->addr = best;
	out->stmt = true;
	rsym_stmt_func(a, out);
	return 0;
}

/* Statement probes in address order. */
static int rsym_site_cmp(const void *a, const void *b)
{
	const struct fetch_site *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Statement probes found in a DIE tree: the inlined copies of a function
 * (DW_TAG_inlined_subroutine, named through its abstract origin, looked
 * for in every function and block) or the labels of one function
 * (DW_TAG_label, in its lexical blocks), at their entry addresses.
 */
struct rsym_sites {
	struct arena *a;
	const struct fetch_site *tmpl;	/* path, file (and name) of what is probed */
	const char *pattern;		/* the copies' names, or the labels', a glob */
	bool inlines;
	struct fetch_site *v;
	unsigned n;
	size_t cap;
};

/* One site at @die (a label, an inlined copy), entered at @pc. */
static void rsym_site_add(struct rsym_sites *l, Dwarf_Die *die, Dwarf_Addr pc,
			  const char *name)
{
	struct fetch_site *out;

	l->v = arena_grow(l->a, l->v, l->n, &l->cap, sizeof(*l->v));
	out = &l->v[l->n];
	*out = *l->tmpl;
	if (!relf_offset(l->tmpl->file->elf, pc, &out->offset))
		return;
	out->addr = pc;
	out->stmt = true;	/* its variables: at this address */
	if (l->inlines) {
		out->name = arena_strdup(l->a, name);
		rsym_keep_die(l->a, out, die);	/* $$parms: the copy's */
	} else {
		out->label = arena_strdup(l->a, name);
		/* a label of an inlined copy: its variables are the copy's */
		if (!l->tmpl->die || dwarf_tag(l->tmpl->die) != DW_TAG_inlined_subroutine)
			rsym_stmt_func(l->a, out);
		out->name = l->tmpl->name;	/* the function's, not an inlined copy's */
	}
	l->n++;
}

static void rsym_sites_in(struct rsym_sites *l, Dwarf_Die *die, unsigned depth)
{
	Dwarf_Die child;
	Dwarf_Addr pc;
	const char *name;

	if (depth > 64 || dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		/* a label or copy the compiler dropped has no address */
		if (tag == (l->inlines ? DW_TAG_inlined_subroutine : DW_TAG_label) &&
		    (name = dwarf_diename(&child)) && fnmatch(l->pattern, name, 0) == 0 &&
		    dwarf_entrypc(&child, &pc) == 0)
			rsym_site_add(l, &child, pc, name);
		/* copies inlined into copies, blocks and functions */
		if (tag == DW_TAG_lexical_block || (l->inlines && (tag == DW_TAG_subprogram ||
							       tag == DW_TAG_inlined_subroutine)))
			rsym_sites_in(l, &child, depth + 1);
	} while (dwarf_siblingof(&child, &child) == 0);
}

int rsym_inlines(struct relf_files *f, struct arena *a, const char *path, const char *name,
		 struct fetch_site **out, char *err, size_t errlen)
{
	struct relf_file *u = relf_open(f, path, err, errlen);
	struct fetch_site tmpl, *v = NULL;
	unsigned i, n = 0;
	size_t cap = 0;

	*out = NULL;
	if (!u)
		return -1;
	if (!u->dw)
		return 0;	/* no DWARF, no inlined copies known */
	if (!u->inlines_read) {	/* one walk of the DWARF for every name */
		struct rsym_sites l = { a, &tmpl, "*", true, NULL, 0, 0 };
		Dwarf_Off off = 0, next;
		size_t hsize;
		Dwarf_Die cu;

		memset(&tmpl, 0, sizeof(tmpl));
		tmpl.path = arena_strdup(a, u->path);
		tmpl.file = u;
		while (dwarf_nextcu(u->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
			if (dwarf_offdie(u->dw, off + hsize, &cu))
				rsym_sites_in(&l, &cu, 0);
			off = next;
		}
		if (l.n)
			qsort(l.v, l.n, sizeof(*l.v), rsym_site_cmp);
		u->inlines = l.v;
		u->ninlines = l.n;
		u->inlines_read = true;
	}
	for (i = 0; i < u->ninlines; i++)
		if (!strcmp(u->inlines[i].name, name)) {
			v = arena_grow(a, v, n, &cap, sizeof(*v));
			v[n++] = u->inlines[i];
		}
	*out = v;
	return (int)n;
}

int rsym_labels(struct arena *a, const struct fetch_site *fn, const char *pattern,
		struct fetch_site **out, char *err, size_t errlen)
{
	struct rsym_sites l = { a, fn, pattern, false, NULL, 0, 0 };

	if (!fn->file || !fn->file->dw) {
		snprintf(err, errlen, "%s has no debug information (build it with -g): "
			 "labels are in the DWARF", fn->path);
		return -1;
	}
	if (!fn->die) {
		snprintf(err, errlen, "no DWARF for function \"%s\" in %s", fn->name, fn->path);
		return -1;
	}
	rsym_sites_in(&l, fn->die, 0);
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), rsym_site_cmp);
	*out = l.v;
	return (int)l.n;
}
