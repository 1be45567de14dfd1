/*
 * uprobe.c - see uprobe.h.
 */
#define _GNU_SOURCE
#include "uprobe.h"
#include "arena.h"
#include "kdebug.h"
#include "cconv.h"
#include "dwloc.h"
#include "kprobe.h"
#include "target.h"
#include "tpfmt.h"

#include <bpf/btf.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct up_file {
	char *path;
	int fd;
	Elf *elf;
	Dwarf *dw;		/* NULL: no debug information */
	/*
	 * A relocatable file's (a kernel module's) DWARF must be relocated
	 * before it is read, which libdwfl does; it then owns @dw.
	 */
	Dwfl *dwfl;
	/* A separate debug file the DWARF came from, when not @path. */
	char *debug_path;
	int debug_fd;
	Elf *debug_elf;
	const struct cc_machine *cc;	/* NULL: a machine ktap does not know */
	unsigned e_machine;
};

void up_files_free(struct up_files *f)
{
	unsigned i;

	for (i = 0; i < f->n; i++) {
		if (f->v[i]->dwfl)
			dwfl_end(f->v[i]->dwfl);
		else if (f->v[i]->dw)
			dwarf_end(f->v[i]->dw);
		if (f->v[i]->elf)
			elf_end(f->v[i]->elf);
		if (f->v[i]->fd >= 0)
			close(f->v[i]->fd);
		if (f->v[i]->debug_elf)
			elf_end(f->v[i]->debug_elf);
		if (f->v[i]->debug_fd > 0)
			close(f->v[i]->debug_fd);
		free(f->v[i]->debug_path);
		free(f->v[i]->path);
		free(f->v[i]);
	}
	free(f->v);
	f->v = NULL;
	f->n = 0;
	for (i = 0; i < f->nmods; i++)
		kp_free(f->mods[i]);
	free(f->mods);
	free(f->mod_names);
	f->mods = NULL;
	f->mod_names = NULL;
	f->nmods = 0;
	kp_free(f->btf);
	f->btf = NULL;
	f->btf_tried = false;
}

/* Module @name's BTF, loaded once; NULL + @err. */
static struct btf *up_module_btf(struct up_files *f, const char *name, char *err,
				 size_t errlen)
{
	struct btf *b, **v;
	const char **nv;
	unsigned i;

	for (i = 0; i < f->nmods; i++)
		if (!strcmp(f->mod_names[i], name))
			return f->mods[i];
	b = kp_load_module(f->target->btf_dir, name, f->btf, err, errlen);
	v = b ? realloc(f->mods, (f->nmods + 1) * sizeof(*v)) : NULL;
	nv = v ? realloc(f->mod_names, (f->nmods + 1) * sizeof(*nv)) : NULL;
	if (v)
		f->mods = v;
	if (!nv) {
		kp_free(b);
		return NULL;
	}
	f->mod_names = nv;
	f->mods[f->nmods] = b;
	f->mod_names[f->nmods++] = name;
	return b;
}

/* @cmd as an absolute path: itself if it has a '/', else from @path. */
static char *up_locate(const char *path, const char *cmd)
{
	const char *p, *e;
	char buf[PATH_MAX];

	if (strchr(cmd, '/'))
		return realpath(cmd, NULL);
	for (p = path; *p; p = *e ? e + 1 : e) {
		e = strchrnul(p, ':');
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(e - p), p, cmd);
		if (access(buf, X_OK) == 0)
			return realpath(buf, NULL);
	}
	errno = ENOENT;
	return NULL;
}

/* Open @path as @u's debug file if it has DWARF. */
static bool up_try_debug(struct up_file *u, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	Dwarf *dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;

	if (!dw) {
		if (elf)
			elf_end(elf);
		if (fd >= 0)
			close(fd);
		return false;
	}
	u->dw = dw;
	u->debug_elf = elf;
	u->debug_fd = fd;
	u->debug_path = strdup(path);
	return true;
}

/*
 * Debug information installed apart from the binary, where gdb looks:
 * /usr/lib/debug/.build-id/xx/rest.debug (Debian's -dbgsym packages),
 * then the .gnu_debuglink name next to the binary, in its .debug/
 * directory, and under /usr/lib/debug/<its directory>.
 */
static void up_debug_file(struct up_file *u)
{
	const unsigned char *id;
	const char *link;
	char path[PATH_MAX * 2], dir[PATH_MAX], hex[128 + 1];
	ssize_t n = dwelf_elf_gnu_build_id(u->elf, (const void **)&id);
	GElf_Word crc;
	ssize_t i;

	if (n > 1 && n <= 64) {
		for (i = 0; i < n; i++)
			sprintf(hex + 2 * i, "%02x", id[i]);
		snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex,
			 hex + 2);
		if (up_try_debug(u, path))
			return;
	}
	link = dwelf_elf_gnu_debuglink(u->elf, &crc);
	if (!link)
		return;
	snprintf(dir, sizeof(dir), "%s", u->path);
	*strrchr(dir, '/') = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, link);
	if (strcmp(path, u->path) != 0 && up_try_debug(u, path))
		return;
	snprintf(path, sizeof(path), "%s/.debug/%s", dir, link);
	if (up_try_debug(u, path))
		return;
	snprintf(path, sizeof(path), "/usr/lib/debug%s/%s", dir, link);
	up_try_debug(u, path);
}

static bool up_is_rel(Elf *elf)
{
	GElf_Ehdr eh;

	return gelf_getehdr(elf, &eh) && eh.e_type == ET_REL;
}

/*
 * The DWARF of relocatable file @u (a .ko): in such a file, references
 * from .debug_info into .debug_str and the like are relocations that
 * plain libdw does not apply (every name would read as the same string),
 * so the file is reported to libdwfl as an offline module, which does.
 */
static Dwarf *up_rel_dwarf(struct up_file *u)
{
	static const Dwfl_Callbacks cbs = {
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
	};
	Dwfl_Module *m;
	Dwarf_Addr bias;
	Dwarf *dw;

	u->dwfl = dwfl_begin(&cbs);
	if (!u->dwfl)
		return NULL;
	m = dwfl_report_offline(u->dwfl, u->path, u->path, -1);
	dwfl_report_end(u->dwfl, NULL, NULL);
	dw = m ? dwfl_module_getdwarf(m, &bias) : NULL;
	if (!dw) {
		dwfl_end(u->dwfl);
		u->dwfl = NULL;
	}
	return dw;
}

static struct up_file *up_open(struct up_files *f, const char *path, char *err,
			       size_t errlen)
{
	char *abs = up_locate(f->target->exec_path, path);
	struct up_file *u, **v;
	unsigned i;

	if (!abs) {
		snprintf(err, errlen, "cannot find \"%s\": %s", path, strerror(errno));
		return NULL;
	}
	for (i = 0; i < f->n; i++) {
		if (!strcmp(f->v[i]->path, abs)) {
			free(abs);
			return f->v[i];
		}
	}
	elf_version(EV_CURRENT);
	u = calloc(1, sizeof(*u));
	v = realloc(f->v, (f->n + 1) * sizeof(*v));
	if (!u || !v) {
		free(u);
		free(abs);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	f->v = v;
	u->path = abs;
	u->fd = open(abs, O_RDONLY | O_CLOEXEC);
	u->elf = u->fd >= 0 ? elf_begin(u->fd, ELF_C_READ, NULL) : NULL;
	f->v[f->n++] = u;
	if (!u->elf || elf_kind(u->elf) != ELF_K_ELF) {
		snprintf(err, errlen, "\"%s\" is not an ELF file%s%s", abs,
			 u->fd < 0 ? ": " : "", u->fd < 0 ? strerror(errno) : "");
		return NULL;
	}
	{
		GElf_Ehdr eh;

		if (gelf_getehdr(u->elf, &eh)) {
			u->e_machine = eh.e_machine;
			u->cc = cc_for_elf(eh.e_machine);
		}
	}
	u->dw = up_is_rel(u->elf) ? up_rel_dwarf(u) : dwarf_begin_elf(u->elf, DWARF_C_READ, NULL);
	if (!u->dw)
		up_debug_file(u);
	return u;
}

/* The value of symbol @name (a function) in .symtab or .dynsym. */
static bool up_symbol(Elf *elf, const char *name, GElf_Addr *addr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;
	size_t i, n;

	for (int pass = 0; pass < 2; pass++) {
		while ((scn = elf_nextscn(elf, scn)) != NULL) {
			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) || !sh.sh_entsize)
				continue;
			d = elf_getdata(scn, NULL);
			n = sh.sh_size / sh.sh_entsize;
			for (i = 0; d && i < n; i++) {
				const char *s;

				if (!gelf_getsym(d, (int)i, &sym) || sym.st_value == 0 ||
				    sym.st_shndx == SHN_UNDEF ||
				    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
				     GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC))
					continue;
				s = elf_strptr(elf, sh.sh_link, sym.st_name);
				if (s && !strcmp(s, name)) {
					*addr = sym.st_value;
					return true;
				}
			}
		}
	}
	return false;
}

/* A virtual address to its offset in the file, through the PT_LOADs. */
static bool up_offset(Elf *elf, GElf_Addr addr, uint64_t *off)
{
	int64_t o;

	if (!dwloc_file_offset(elf, addr, addr, &o))
		return false;
	*off = (uint64_t)o;
	return true;
}

/* Does source path @src end with @want at a path component boundary? */
static bool up_path_suffix(const char *src, const char *want)
{
	size_t n = strlen(src), m = strlen(want);

	return n >= m && !strcmp(src + n - m, want) && (n == m || src[n - m - 1] == '/');
}

/*
 * Does source file @src match @want, the FILE of "NAME@FILE"?  A path
 * suffix ("read_write.c", "fs/read_write.c") or a glob ("fs/x*.c").
 */
static bool up_file_matches(const char *src, const char *want)
{
	char glob[PATH_MAX];

	if (!src)
		return false;
	if (up_path_suffix(src, want) || fnmatch(want, src, 0) == 0)
		return true;
	snprintf(glob, sizeof(glob), "*/%s", want);
	return fnmatch(glob, src, 0) == 0;
}

/*
 * One walk over the functions (with code) of a DWARF file: the first
 * named @name, or with @names every one whose name matches glob @name;
 * with @file only those declared in a matching source file.
 */
struct up_search {
	const char *name;
	const char *file;
	Dwarf_Die found;
	bool ok;
	struct arena *a;	/* with @names: where the list grows */
	const char **names;
	size_t n, cap;
};

static int up_func_cb(Dwarf_Die *die, void *arg)
{
	struct up_search *s = arg;
	const char *n = dwarf_diename(die);

	if (!n || !dwarf_hasattr(die, DW_AT_low_pc) ||
	    (s->file && !up_file_matches(dwarf_decl_file(die), s->file)))
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

static void up_search_cus(Dwarf *dw, struct up_search *s)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die cu;

	while (!s->ok && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, &cu))
			dwarf_getfuncs(&cu, up_func_cb, s, 0);
		off = next;
	}
}

/* Function @name (declared in a file matching @file, if not NULL). */
static bool up_subprogram(Dwarf *dw, const char *name, const char *file, Dwarf_Die *out)
{
	struct up_search s = { .name = name, .file = file };

	up_search_cus(dw, &s);
	if (s.ok)
		*out = s.found;
	return s.ok;
}

/* "NAME@FILE": NAME in *@name, FILE in *@file (NULL without '@'). */
static void up_split_at(struct arena *a, const char *spec, const char **name,
			const char **file)
{
	const char *at = strchr(spec, '@');

	*name = at ? arena_strndup(a, spec, (size_t)(at - spec)) : spec;
	*file = at ? at + 1 : NULL;
}

/* Keep DWARF subprogram @die as @out's. */
static void up_keep_die(struct arena *a, struct up_func *out, const Dwarf_Die *die)
{
	out->die = arena_alloc(a, sizeof(Dwarf_Die));
	memcpy(out->die, die, sizeof(*die));
}

/*
 * "NAME@FILE" in @u: the function declared in FILE, at the address its
 * DWARF gives (a static function's name may be in several files).
 */
static int up_find_in_file(struct up_file *u, struct arena *a, const char *name,
			   const char *file, struct up_func *out, GElf_Addr *addr,
			   char *err, size_t errlen)
{
	Dwarf_Die die;
	Dwarf_Addr lo;

	if (!u->dw) {
		snprintf(err, errlen, "\"%s@%s\" needs debug information, which %s has not "
			 "(build it with -g)", name, file, u->path);
		return -1;
	}
	if (!up_subprogram(u->dw, name, file, &die) || dwarf_lowpc(&die, &lo) != 0) {
		snprintf(err, errlen, "no function \"%s\" in a source file matching \"%s\" "
			 "in %s", name, file, u->path);
		return -1;
	}
	up_keep_die(a, out, &die);
	*addr = lo;
	return 0;
}

int up_find(struct up_files *f, struct arena *a, const char *path, const char *spec,
	    struct up_func *out, char *err, size_t errlen)
{
	struct up_file *u = up_open(f, path, err, errlen);
	const char *name, *file;
	Dwarf_Die die;
	GElf_Addr addr;

	if (!u)
		return -1;
	memset(out, 0, sizeof(*out));
	up_split_at(a, spec, &name, &file);
	if (file) {
		if (up_find_in_file(u, a, name, file, out, &addr, err, errlen) != 0)
			return -1;
	} else if (!up_symbol(u->elf, name, &addr)) {
		snprintf(err, errlen, "no function \"%s\" in %s", name, u->path);
		return -1;
	}
	if (!up_offset(u->elf, addr, &out->offset)) {
		snprintf(err, errlen, "function \"%s\" of %s is not in a loaded segment",
			 name, u->path);
		return -1;
	}
	out->path = arena_strdup(a, u->path);
	out->name = arena_strdup(a, name);
	out->file = u;
	out->addr = addr;
	if (!file && u->dw && up_subprogram(u->dw, name, NULL, &die))
		up_keep_die(a, out, &die);
	return 0;
}

/* The file with the DWARF of the kernel or of @module; NULL + @err. */
static struct up_file *up_open_kdwarf(struct up_files *f, const char *module, char *err,
				      size_t errlen)
{
	char where[1024], *path = kd_find(f->target, module, where, sizeof(where));
	struct up_file *u;

	if (!path) {
		snprintf(err, errlen, "no DWARF of %s found (looked in %s)",
			 module ? module : "the kernel", where);
		return NULL;
	}
	u = up_open(f, path, err, errlen);
	free(path);
	return u;
}

struct btf *up_kernel_btf(struct up_files *f, struct arena *a, const char *module,
			  char *err, size_t errlen)
{
	if (!f->btf_tried) {
		f->btf_tried = true;
		f->btf = kp_load(f->target->btf, err, errlen);
	}
	if (!f->btf) {
		if (!*err)
			snprintf(err, errlen, "the kernel's BTF is not available");
		return NULL;
	}
	return module ? up_module_btf(f, arena_strdup(a, module), err, errlen) : f->btf;
}

/* Kernel function @name from the kernel's or module @module's BTF. */
static int up_find_btf(struct up_files *f, struct arena *a, const char *module,
		       const char *name, struct up_func *out, char *err, size_t errlen)
{
	struct btf *btf = up_kernel_btf(f, a, module, err, errlen);

	if (!btf || kp_find(btf, name, &out->proto, err, errlen) != 0)
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
static int up_find_kdwarf(struct up_files *f, struct arena *a, const char *module,
			  const char *name, const char *file, struct up_func *out,
			  char *err, size_t errlen)
{
	char why[512];
	struct up_file *u;
	Dwarf_Die die;

	snprintf(why, sizeof(why), "%s", err);
	u = up_open_kdwarf(f, module, err, errlen);
	if (!u) {
		if (file)	/* "no DWARF of ... found" */
			snprintf(why, sizeof(why), "\"%s@%s\" needs DWARF: %s", name, file, err);
		else if (module && *why)
			snprintf(why + strlen(why), sizeof(why) - strlen(why), "; %s", err);
		if (*why)	/* else BTF's own reason stands */
			snprintf(err, errlen, "%s", why);
		return -1;
	}
	if (!u->dw || !up_subprogram(u->dw, name, file, &die)) {
		snprintf(err, errlen, "no function \"%s\"%s%s%s in the DWARF of %s (%s)", name,
			 file ? " in a source file matching \"" : "", file ? file : "",
			 file ? "\"" : "", module ? module : "the kernel", u->path);
		return -1;
	}
	up_keep_die(a, out, &die);
	out->file = u;
	return 0;
}

int up_find_kernel(struct up_files *f, struct arena *a, const char *module,
		   const char *spec, struct up_func *out, char *err, size_t errlen)
{
	const char *name, *file;

	memset(out, 0, sizeof(*out));
	up_split_at(a, spec, &name, &file);
	/* BTF when it describes the function; DWARF for NAME@FILE and the rest. */
	if ((file || up_find_btf(f, a, module, name, out, err, errlen) != 0) &&
	    up_find_kdwarf(f, a, module, name, file, out, err, errlen) != 0)
		return -1;
	out->name = arena_strdup(a, name);
	out->path = module ? arena_strdup(a, module) : "kernel";
	out->kernel = true;
	return 0;
}

/* ---- types ---- */

static bool up_type_of(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute at;

	if (!dwarf_attr_integrate(die, DW_AT_type, &at) || !dwarf_formref_die(&at, type))
		return false;
	return dwarf_peel_type(type, type) == 0;
}

static int up_tag(Dwarf_Die *t)
{
	return dwarf_tag(t);
}

/* char, signed char, unsigned char */
static bool up_is_char(Dwarf_Die *t)
{
	Dwarf_Attribute at;
	Dwarf_Word enc = 0;

	if (up_tag(t) != DW_TAG_base_type || dwarf_bytesize(t) != 1)
		return false;
	if (dwarf_attr(t, DW_AT_encoding, &at))
		dwarf_formudata(&at, &enc);
	return enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char;
}

/* The fetch type ("s32", "u64") of scalar type @t, or NULL. */
static const char *up_scalar(struct arena *a, Dwarf_Die *t)
{
	Dwarf_Attribute at;
	Dwarf_Word enc = 0;
	int size, tag = up_tag(t);
	bool sign = false;

	if (tag == DW_TAG_pointer_type)
		return "u64";
	if (tag != DW_TAG_base_type && tag != DW_TAG_enumeration_type)
		return NULL;
	size = dwarf_bytesize(t);
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return NULL;
	if (dwarf_attr(t, DW_AT_encoding, &at))
		dwarf_formudata(&at, &enc);
	if (enc == DW_ATE_float)
		return NULL;
	sign = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	if (tag == DW_TAG_enumeration_type)
		sign = true;
	return arena_printf(a, "%c%d", sign ? 's' : 'u', size * 8);
}

/* Member @name of struct/union @t (anonymous members searched too). */
static bool up_member(Dwarf_Die *t, const char *name, Dwarf_Die *m, Dwarf_Word *off)
{
	Dwarf_Attribute at;
	Dwarf_Die child, sub;
	Dwarf_Word o;

	if (dwarf_child(t, &child) != 0)
		return false;
	do {
		const char *n;

		if (dwarf_tag(&child) != DW_TAG_member)
			continue;
		o = 0;
		if (dwarf_attr(&child, DW_AT_data_member_location, &at))
			dwarf_formudata(&at, &o);
		n = dwarf_diename(&child);
		if (n && !strcmp(n, name)) {
			*m = child;
			*off = o;
			return true;
		}
		if (!n && up_type_of(&child, &sub) && up_member(&sub, name, m, off)) {
			*off += o;
			return true;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* ---- fetch arguments ---- */

/*
 * Where the value being built is: in a register or computed address
 * (@mem false: @expr is the value), or in memory at @expr + @off.
 */
struct up_loc {
	const char *expr;
	bool mem;
	Dwarf_Word off;		/* signed, in two's complement */
	bool fileoff;		/* memory at file offset @off ("@+off"), no @expr */
	Dwarf_Die type;
	const char *name;	/* field name so far */
	int bits, bitoff;	/* a bitfield: its width and LSB in the container */
	bool kernel;		/* a kprobe's: user memory is read with "ustring" */
};

/* The memory @l is in, as a fetch: "+8(%di)", "-20(%bp)", "@+16400". */
static const char *up_memref(struct arena *a, const struct up_loc *l)
{
	if (l->fileoff)
		return arena_printf(a, "@+%" PRId64, (int64_t)l->off);
	return arena_printf(a, "%+" PRId64 "(%s)", (int64_t)l->off, l->expr);
}

/* The value of @l as an expression (loading it when it is in memory). */
static const char *up_value(struct arena *a, const struct up_loc *l)
{
	return l->mem ? up_memref(a, l) : l->expr;
}

/* Follow the pointer @l holds: @l becomes the memory it points to. */
static void up_deref(struct arena *a, struct up_loc *l)
{
	l->expr = up_value(a, l);
	l->mem = true;
	l->fileoff = false;
	l->off = 0;
}

/*
 * A bitfield member: the container is the member's type (DW_AT_byte_size
 * of it), DW_AT_data_bit_offset counts from the start of the struct, and
 * the kernel wants the bit offset from the container's least significant
 * bit (x86_64 and arm64 are little-endian, where these agree).
 */
static void up_bitfield(Dwarf_Die *m, Dwarf_Die *type, struct up_loc *l, Dwarf_Word base)
{
	Dwarf_Attribute at;
	Dwarf_Word dbo = 0, bits = 0;
	int csize = dwarf_bytesize(type);

	l->bits = 0;
	if (!dwarf_attr(m, DW_AT_bit_size, &at) || dwarf_formudata(&at, &bits) != 0 ||
	    csize <= 0)
		return;
	if (dwarf_attr(m, DW_AT_data_bit_offset, &at))
		dwarf_formudata(&at, &dbo);
	else
		dbo = (l->off - base) * 8;
	l->off = base + (dbo / ((Dwarf_Word)csize * 8)) * (Dwarf_Word)csize;
	l->bits = (int)bits;
	l->bitoff = (int)(dbo % ((Dwarf_Word)csize * 8));
	l->bits |= csize << 16;		/* container size, in bytes */
}

static int up_step_member(struct arena *a, struct up_loc *l, const struct ast_comp *c,
			  char *err, size_t errlen)
{
	Dwarf_Die m, s = l->type;
	Dwarf_Word off, base;
	int tag = up_tag(&s);

	if (tag == DW_TAG_pointer_type) {
		if (!up_type_of(&s, &s)) {
			snprintf(err, errlen, "'->%s' through a void pointer", c->name);
			return -1;
		}
		up_deref(a, l);
		tag = up_tag(&s);
	}
	if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type) {
		snprintf(err, errlen, "'->%s' on something that is not a struct or union "
			 "(or a pointer to one)", c->name);
		return -1;
	}
	if (!l->mem) {
		snprintf(err, errlen, "'->%s': the struct is passed by value", c->name);
		return -1;
	}
	if (!up_member(&s, c->name, &m, &off)) {
		snprintf(err, errlen, "struct %s has no member '%s'",
			 dwarf_diename(&s) ? dwarf_diename(&s) : "(anonymous)", c->name);
		return -1;
	}
	base = l->off;
	l->off += off;
	if (!up_type_of(&m, &l->type)) {
		snprintf(err, errlen, "member '%s' has no type", c->name);
		return -1;
	}
	up_bitfield(&m, &l->type, l, base);
	l->name = arena_printf(a, "%s_%s", l->name, c->name);
	return 0;
}

static int up_step_index(struct arena *a, struct up_loc *l, const struct ast_comp *c,
			 char *err, size_t errlen)
{
	Dwarf_Die e, t = l->type;
	Dwarf_Word size = 0;
	int tag = up_tag(&t);

	if (!c->index || c->index->kind != AST_NUM) {
		snprintf(err, errlen, "an index into target memory must be a constant "
			 "(the kernel fetches it before the handler runs)");
		return -1;
	}
	if ((tag != DW_TAG_pointer_type && tag != DW_TAG_array_type) ||
	    !up_type_of(&t, &e) || dwarf_aggregate_size(&e, &size) != 0) {
		snprintf(err, errlen, "'[%" PRId64 "]' on something that is not an array "
			 "or a pointer", c->index->num);
		return -1;
	}
	if (tag == DW_TAG_pointer_type)
		up_deref(a, l);
	else if (!l->mem) {
		snprintf(err, errlen, "'[%" PRId64 "]': the array is not in memory", c->index->num);
		return -1;
	}
	l->off += (Dwarf_Word)c->index->num * size;
	l->type = e;
	l->name = arena_printf(a, "%s_%" PRId64, l->name, c->index->num);
	return 0;
}

void up_mem_fetch(struct arena *a, const char *value, enum ast_mem mem, bool kernel,
		  struct up_fetch *out)
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
	out->arg = arena_printf(a, "+0(%s):%s", value, ty);
	out->name = arena_printf(a, "%s_%s", out->name, out->is_string ? "str" : "mem");
}

/* The longest fetch argument body the kernel takes (MAX_ARGSTR_LEN). */
#define UP_ARG_MAX 63

static int up_finish_fetch(struct arena *a, struct up_loc *l, const struct ast_chain *chain,
			   struct up_fetch *out, char *err, size_t errlen);

/* The final fetch for @l, checked against the kernel's length limit. */
static int up_finish(struct arena *a, struct up_loc *l, const struct ast_chain *chain,
		     struct up_fetch *out, char *err, size_t errlen)
{
	if (up_finish_fetch(a, l, chain, out, err, errlen) != 0)
		return -1;
	if (strlen(out->arg) > UP_ARG_MAX) {
		snprintf(err, errlen, "reading '%s' takes a fetch argument of %zu characters "
			 "(\"%s\"); the kernel's limit is %d", l->name, strlen(out->arg),
			 out->arg, UP_ARG_MAX);
		return -1;
	}
	return 0;
}

/* The final fetch for @l: a scalar, or a string for char * and char[]. */
static int up_finish_fetch(struct arena *a, struct up_loc *l, const struct ast_chain *chain,
			   struct up_fetch *out, char *err, size_t errlen)
{
	Dwarf_Die t = l->type, e;
	int tag = up_tag(&t);
	enum ast_mem mem = chain->mem;
	const char *ty;

	out->name = l->name;
	if (mem) {
		if (tag != DW_TAG_pointer_type && !up_scalar(a, &t)) {
			snprintf(err, errlen, "'%s' is not an address", l->name);
			return -1;
		}
		up_mem_fetch(a, up_value(a, l), mem, l->kernel, out);
		return 0;
	}
	if (tag == DW_TAG_array_type && l->mem && up_type_of(&t, &e) && up_is_char(&e)) {
		out->arg = arena_printf(a, "%s:string", up_memref(a, l));
		out->is_string = true;
		return 0;
	}
	if (tag == DW_TAG_pointer_type && !chain->raw && up_type_of(&t, &e) && up_is_char(&e)) {
		out->arg = arena_printf(a, "+0(%s):string", up_value(a, l));
		out->is_string = true;
		return 0;
	}
	if (l->bits) {
		out->arg = arena_printf(a, "%s:b%d@%d/%d", up_memref(a, l),
					l->bits & 0xffff, l->bitoff, (l->bits >> 16) * 8);
		out->is_string = false;
		return 0;
	}
	ty = up_scalar(a, &t);
	if (!ty) {
		snprintf(err, errlen, "'%s' is a %s: read one of its members or elements",
			 l->name, tag == DW_TAG_structure_type ? "struct" :
			 tag == DW_TAG_union_type ? "union" : tag == DW_TAG_array_type ?
			 "array" : "value ktap cannot fetch (float?)");
		return -1;
	}
	out->arg = arena_printf(a, "%s:%s", up_value(a, l), ty);
	out->is_string = false;
	return 0;
}

/* Parameter @name of @fn: its position and type. */
static int up_param(Dwarf_Die *fn, const char *name, unsigned *pos, Dwarf_Die *type)
{
	Dwarf_Die child;
	unsigned i = 0;

	if (dwarf_child(fn, &child) != 0)
		return -1;
	do {
		const char *n;

		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		n = dwarf_diename(&child);
		if (n && !strcmp(n, name)) {
			*pos = i;
			return up_type_of(&child, type) ? 0 : -1;
		}
		i++;
	} while (dwarf_siblingof(&child, &child) == 0);
	return -1;
}

/* The calling convention of @fn's file (or kernel), or NULL + @err. */
static const struct cc_machine *up_cc(const struct up_func *fn, char *err, size_t errlen)
{
	if (fn->file && fn->file->cc)
		return fn->file->cc;
	/* A kernel function without a file (no types at all): the running kernel's. */
	if (!fn->file && fn->kernel && cc_host())
		return cc_host();
	snprintf(err, errlen, "%s is for ELF machine %u, whose calling convention ktap "
		 "does not know (it knows x86_64 and aarch64)", fn->path,
		 fn->file ? fn->file->e_machine : 0);
	return NULL;
}

/* The scopes holding @fn->addr, innermost first (free() them); how many. */
static int up_scopes(const struct up_func *fn, Dwarf_Die **scopes)
{
	Dwarf_Die cu;
	int n;

	*scopes = NULL;
	if (!fn->file || !fn->file->dw || !dwarf_addrdie(fn->file->dw, fn->addr, &cu))
		return 0;
	n = dwarf_getscopes(&cu, fn->addr, scopes);
	return n > 0 ? n : 0;
}

/* A variable or parameter (a definition, not an extern declaration). */
static bool up_is_var(Dwarf_Die *d)
{
	int tag = dwarf_tag(d);

	return (tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) &&
	       dwarf_diename(d) && !dwarf_hasattr(d, DW_AT_declaration);
}

/* The frame @fn->addr is in: the innermost subprogram of @scopes. */
static Dwarf_Die *up_frame(const struct up_func *fn, Dwarf_Die *scopes, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			return &scopes[i];
	return fn->die;
}

/*
 * Variable @name visible at @fn->addr: the innermost scope's first,
 * then the enclosing blocks, the function, and the file's globals and
 * statics (the compile unit) last, as C's scoping and stap's lookup.
 */
static bool up_lookup(const struct up_func *fn, const char *name, Dwarf_Die *var,
		      Dwarf_Die *frame)
{
	Dwarf_Die *scopes, child;
	int i, n = up_scopes(fn, &scopes);
	bool found = false;

	for (i = 0; i < n && !found; i++) {
		if (dwarf_child(&scopes[i], &child) != 0)
			continue;
		do {
			if (up_is_var(&child) && !strcmp(dwarf_diename(&child), name)) {
				*var = child;
				found = true;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (found && up_frame(fn, scopes, n))
		*frame = *up_frame(fn, scopes, n);
	free(scopes);
	return found;
}

/*
 * Variable @var (its DIE, @frame its function's) read through its DWARF
 * location at @fn->addr; @shown names it in messages.
 */
static int up_var_loc(struct arena *a, const struct up_func *fn, Dwarf_Die *var,
		      Dwarf_Die *frame, const char *shown, struct up_loc *l, char *err,
		      size_t errlen)
{
	struct dwloc_at at = { fn->file->elf, fn->file->dw, frame, fn->addr, fn->file->cc };
	struct dwloc loc;
	char why[256];

	if (!up_type_of(var, &l->type)) {
		snprintf(err, errlen, "'%s' has no type in the debug information", shown);
		return -1;
	}
	if (dwloc_var(a, &at, var, &loc, why, sizeof(why)) != DWLOC_OK) {
		snprintf(err, errlen, "target variable '%s' is not available at this address "
			 "(pc: 0x%" PRIx64 " in %s): %s", shown, fn->addr, fn->name, why);
		return -1;
	}
	l->expr = loc.expr;
	l->off = (Dwarf_Word)loc.off;
	l->mem = loc.kind == DWLOC_MEM || loc.kind == DWLOC_FILE;
	l->fileoff = loc.kind == DWLOC_FILE;
	return 0;
}

/* $return: the return register, typed by the function's DWARF. */
static int up_return(const struct up_func *fn, bool ret, struct up_loc *l, char *err,
		     size_t errlen)
{
	const struct cc_machine *cc;

	l->name = "ret";
	if (!ret) {
		snprintf(err, errlen, "$return is only available in .return probes");
		return -1;
	}
	if (!(cc = up_cc(fn, err, errlen)))
		return -1;
	l->expr = cc->ret;
	if (!fn->die)
		return 1;
	if (!up_type_of(fn->die, &l->type)) {
		snprintf(err, errlen, "function %s returns nothing", fn->name);
		return -1;
	}
	return 0;
}

/* $var that is not a parameter at a function's entry: by scope and location. */
static int up_scoped(struct arena *a, const struct up_func *fn, const char *var, bool ret,
		     struct up_loc *l, char *err, size_t errlen)
{
	Dwarf_Die vd, frame;
	unsigned pos;

	if (ret) {
		Dwarf_Die t;

		if (up_param(fn->die, var + 1, &pos, &t) == 0)
			snprintf(err, errlen, "parameter %s is not available in a return probe "
				 "(its register is reused): use @entry(%s)", var, var);
		else
			snprintf(err, errlen, "function %s has no parameter '%s'", fn->name,
				 var + 1);
		return -1;
	}
	if (!up_lookup(fn, var + 1, &vd, &frame)) {
		if (fn->stmt)
			snprintf(err, errlen, "no variable '%s' in scope at this address "
				 "(pc: 0x%" PRIx64 " in %s)", var + 1, fn->addr, fn->name);
		else
			snprintf(err, errlen, "function %s has no parameter '%s'", fn->name,
				 var + 1);
		return -1;
	}
	return up_var_loc(a, fn, &vd, &frame, var, l, err, errlen);
}

/*
 * The starting point of $var: $return, $argN, or a variable.  At a
 * function's entry a parameter is in its calling-convention register
 * (exact there at any optimisation level); anything else, and every
 * variable at a statement probe, is read through its DWARF location.
 * 0, 1 (raw: no type), or -1 + @err.
 */
static int up_base(struct arena *a, const struct up_func *fn, const char *var, bool ret,
		   struct up_loc *l, char *err, size_t errlen)
{
	const struct cc_machine *cc;
	unsigned pos;
	char *end;
	long n;

	memset(l, 0, sizeof(*l));
	l->kernel = fn->kernel;
	l->name = arena_strdup(a, var + 1);
	if (!strcmp(var, "$return"))
		return up_return(fn, ret, l, err, errlen);
	if (!strncmp(var, "$arg", 4) && (n = strtol(var + 4, &end, 10)) > 0 && !*end) {
		if (fn->stmt) {
			snprintf(err, errlen, "%s is only available at a function's entry: "
				 "name the variable instead", var);
			return -1;
		}
		if (!(cc = up_cc(fn, err, errlen)))
			return -1;
		l->expr = cc_arg(a, cc, (unsigned)n - 1);
		return 1;	/* raw: no type */
	}
	if (!fn->die && fn->kernel) {
		snprintf(err, errlen, "no type information for %s (no BTF or DWARF describes "
			 "it): use $arg1, $arg2 ... (raw registers)", fn->name);
		return -1;
	}
	if (!fn->die) {
		snprintf(err, errlen, "%s has no debug information for %s: use $arg1, $arg2 ... "
			 "(raw registers), or build it with -g", fn->path, var);
		return -1;
	}
	if (fn->stmt || ret || up_param(fn->die, var + 1, &pos, &l->type) != 0)
		return up_scoped(a, fn, var, ret, l, err, errlen);
	if (!(cc = up_cc(fn, err, errlen)))
		return -1;
	l->expr = cc_arg(a, cc, pos);
	return 0;
}

/* Follow @chain from @l, then make the fetch. */
static int up_walk(struct arena *a, struct up_loc *l, const struct ast_chain *chain,
		   struct up_fetch *out, char *err, size_t errlen)
{
	unsigned i;

	for (i = 0; i < chain->n; i++) {
		const struct ast_comp *c = &chain->v[i];

		if ((c->is_index ? up_step_index(a, l, c, err, errlen) :
				   up_step_member(a, l, c, err, errlen)) != 0)
			return -1;
	}
	return up_finish(a, l, chain, out, err, errlen);
}

int up_fetch(struct arena *a, const struct up_func *fn, const char *var,
	     const struct ast_chain *chain, bool ret, struct up_fetch *out,
	     char *err, size_t errlen)
{
	struct up_loc l;
	int r;

	if (fn->btf)
		return kp_fetch(a, fn->btf, fn->proto, fn->name, var, chain, ret, out, err,
				errlen);
	r = up_base(a, fn, var, ret, &l, err, errlen);
	if (r < 0)
		return -1;
	if (chain->pretty) {
		snprintf(err, errlen, "pretty printing ('%s$') is not available here", var);
		return -1;
	}
	if (r == 1) {	/* untyped: a raw 64-bit register */
		if (chain->n) {
			snprintf(err, errlen, "%s has no type: '->' and '[]' need debug "
				 "information (or @cast)", var);
			return -1;
		}
		out->name = l.name;
		if (chain->mem) {
			up_mem_fetch(a, l.expr, chain->mem, fn->kernel, out);
			return 0;
		}
		out->arg = arena_printf(a, "%s:s64", l.expr);
		out->is_string = false;
		return 0;
	}
	return up_walk(a, &l, chain, out, err, errlen);
}

/* A struct, union or typedef named @name anywhere in @dw ("struct x"). */
static bool up_named_type(Dwarf *dw, const char *name, Dwarf_Die *out)
{
	int want = !strncmp(name, "struct ", 7) ? DW_TAG_structure_type :
		   !strncmp(name, "union ", 6) ? DW_TAG_union_type : DW_TAG_typedef;
	const char *n = want == DW_TAG_typedef ? name : strchr(name, ' ') + 1;
	Dwarf_Off off = 0, next;
	Dwarf_Die cu, child;
	size_t hsize;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &child) == 0) {
			do {
				const char *cn = dwarf_diename(&child);

				if (dwarf_tag(&child) == want && cn && !strcmp(cn, n) &&
				    !dwarf_hasattr(&child, DW_AT_declaration)) {
					*out = child;
					return want != DW_TAG_typedef ||
					       dwarf_peel_type(out, out) == 0;
				}
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		off = next;
	}
	return false;
}

int up_cast(struct arena *a, const struct up_func *fn, const char *value,
	    const char *name, const char *type, const struct ast_chain *chain,
	    struct up_fetch *out, char *err, size_t errlen)
{
	struct up_loc l;

	if (fn->btf)
		return kp_cast(a, fn->btf, value, name, type, chain, out, err, errlen);
	memset(&l, 0, sizeof(l));
	l.kernel = fn->kernel;
	if (!fn->file || !fn->file->dw || !up_named_type(fn->file->dw, type, &l.type)) {
		snprintf(err, errlen, "no type \"%s\" in the debug information of %s", type,
			 fn->path);
		return -1;
	}
	l.expr = value;
	l.mem = true;
	l.name = arena_printf(a, "%s_cast", name);
	return up_walk(a, &l, chain, out, err, errlen);
}

unsigned up_params(struct arena *a, const struct up_func *fn, const char ***names)
{
	Dwarf_Die child;
	unsigned n = 0;
	size_t cap = 0;

	*names = NULL;
	if (fn->btf)
		return kp_params(a, fn->btf, fn->proto, names);
	if (!fn->die || dwarf_child(fn->die, &child) != 0)
		return 0;
	do {
		if (dwarf_tag(&child) != DW_TAG_formal_parameter || !dwarf_diename(&child))
			continue;
		*names = arena_grow(a, *names, n, &cap, sizeof(**names));
		(*names)[n++] = arena_strdup(a, dwarf_diename(&child));
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

/* ---- wildcards and listing ---- */

static int up_cmp(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Sort @v (@n names) and drop duplicates; returns the new count. */
static size_t up_sort_unique(const char **v, size_t n)
{
	size_t i, k = 0;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), up_cmp);
	for (i = 1; i < n; i++)
		if (strcmp(v[i], v[k]) != 0)
			v[++k] = v[i];
	return k + 1;
}

/* Function symbols of @elf matching @pattern. */
static size_t up_match_elf(struct arena *a, Elf *elf, const char *pattern,
			   const char ***names)
{
	Elf_Scn *scn = NULL;
	size_t k = 0, cap = 0, i, n;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;

	*names = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; d && i < n; i++) {
			const char *s;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_value == 0 ||
			    sym.st_shndx == SHN_UNDEF || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
				continue;
			s = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!s || fnmatch(pattern, s, 0) != 0)
				continue;
			*names = arena_grow(a, *names, k, &cap, sizeof(**names));
			(*names)[k++] = arena_strdup(a, s);
		}
	}
	return up_sort_unique(*names, k);
}

/*
 * Kernel functions kprobes can attach to: the target's
 * available_filter_functions (@list; NULL when it has none).
 */
static int up_match_ftrace(struct arena *a, const char *list, const char *pattern,
			   const char ***names)
{
	char line[512];
	FILE *fp = list ? fopen(list, "r") : NULL;
	size_t k = 0, cap = 0;

	if (!fp)
		return -1;
	*names = NULL;
	while (fgets(line, sizeof(line), fp)) {
		line[strcspn(line, " \t\n")] = '\0';
		if (!line[0] || fnmatch(pattern, line, 0) != 0)
			continue;
		*names = arena_grow(a, *names, k, &cap, sizeof(**names));
		(*names)[k++] = arena_strdup(a, line);
	}
	fclose(fp);
	return (int)up_sort_unique(*names, k);
}

/*
 * "NAME@FILE" with globs: every function of @u's DWARF whose name
 * matches NAME, declared in a file matching FILE, as "NAME@FILE" again
 * (FILE keeps a static function apart from its namesakes elsewhere).
 */
static int up_match_dwarf(struct arena *a, struct up_file *u, const char *pattern,
			  const char ***names, char *err, size_t errlen)
{
	struct up_search s = { .a = a };
	size_t i, n;

	up_split_at(a, pattern, &s.name, &s.file);
	if (!u->dw) {
		snprintf(err, errlen, "\"%s\" needs debug information, which %s has not",
			 pattern, u->path);
		return -1;
	}
	up_search_cus(u->dw, &s);
	n = s.n ? up_sort_unique(s.names, s.n) : 0;
	for (i = 0; i < n; i++)
		s.names[i] = arena_printf(a, "%s@%s", s.names[i], s.file);
	*names = s.names;
	return (int)n;
}

int up_find_kernel_raw(const struct up_files *f, struct arena *a, const char *module,
		       const char *name, struct up_func *out, char *err, size_t errlen)
{
	const char **names;

	memset(out, 0, sizeof(*out));
	if (strpbrk(name, "@*?[")) {
		snprintf(err, errlen, "\"%s\" needs the kernel's DWARF", name);
		return -1;
	}
	/* Unreadable list (not root): the kernel will say at run time. */
	if (up_match_ftrace(a, f->target->filter_functions, name, &names) == 0) {
		snprintf(err, errlen, "no kernel function \"%s\" that kprobes can trace "
			 "(it is not in available_filter_functions)", name);
		return -1;
	}
	out->name = arena_strdup(a, name);
	out->path = module ? arena_strdup(a, module) : "kernel";
	out->kernel = true;
	return 0;
}

int up_match(struct up_files *f, struct arena *a, const char *path, const char *module,
	     const char *pattern, const char ***names, char *err, size_t errlen)
{
	struct up_file *u;
	struct up_func probe;
	int n;

	if (strchr(pattern, '@')) {
		u = path ? up_open(f, path, err, errlen) : up_open_kdwarf(f, module, err, errlen);
		return u ? up_match_dwarf(a, u, pattern, names, err, errlen) : -1;
	}
	if (path) {
		u = up_open(f, path, err, errlen);
		return u ? (int)up_match_elf(a, u->elf, pattern, names) : -1;
	}
	n = up_match_ftrace(a, f->target->filter_functions, pattern, names);
	if (n >= 0)
		return n;
	/* No tracefs list (not root?): every function the BTF describes. */
	if (up_find_kernel(f, a, NULL, "schedule", &probe, err, errlen) != 0 && !f->btf)
		return -1;
	return kp_match(a, f->btf, pattern, names);
}

/* The C spelling of DWARF type @t. */
static const char *up_type_name(struct arena *a, Dwarf_Die *t)
{
	Dwarf_Attribute at;
	Dwarf_Die sub;
	const char *n = dwarf_diename(t);
	bool has = dwarf_attr_integrate(t, DW_AT_type, &at) && dwarf_formref_die(&at, &sub);

	switch (dwarf_tag(t)) {
	case DW_TAG_pointer_type:
		return arena_printf(a, "%s *", has ? up_type_name(a, &sub) : "void");
	case DW_TAG_const_type:
		return arena_printf(a, "const %s", has ? up_type_name(a, &sub) : "void");
	case DW_TAG_volatile_type:
		return arena_printf(a, "volatile %s", has ? up_type_name(a, &sub) : "void");
	case DW_TAG_structure_type:
		return arena_printf(a, "struct %s", n ? n : "(anonymous)");
	case DW_TAG_union_type:
		return arena_printf(a, "union %s", n ? n : "(anonymous)");
	case DW_TAG_enumeration_type:
		return arena_printf(a, "enum %s", n ? n : "(anonymous)");
	case DW_TAG_array_type:
		return arena_printf(a, "%s[]", has ? up_type_name(a, &sub) : "?");
	default:
		return n ? n : "?";
	}
}

/* @d's type as -L prints it ("?" when it has none). */
static const char *up_decl_type(struct arena *a, Dwarf_Die *d)
{
	Dwarf_Attribute at;
	Dwarf_Die t;

	return dwarf_attr_integrate(d, DW_AT_type, &at) && dwarf_formref_die(&at, &t) ?
	       up_type_name(a, &t) : "?";
}

/*
 * Calls @fn(@d, @arg) for each variable and parameter in scope at
 * @f->addr, innermost scope first, not the file's globals (stap's order
 * for $$vars and -L).
 */
static void up_each_var(const struct up_func *f, void (*fn)(Dwarf_Die *d, Dwarf_Die *frame,
							   void *arg), void *arg)
{
	Dwarf_Die *scopes, child, frame;
	int i, n = up_scopes(f, &scopes);

	memset(&frame, 0, sizeof(frame));
	if (up_frame(f, scopes, n))
		frame = *up_frame(f, scopes, n);
	for (i = 0; i < n && dwarf_tag(&scopes[i]) != DW_TAG_compile_unit; i++) {
		if (dwarf_child(&scopes[i], &child) != 0)
			continue;
		do {
			if (up_is_var(&child))
				fn(&child, &frame, arg);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	free(scopes);
}

struct up_decls {
	struct arena *a;
	const struct up_func *fn;
	const char **v;
	unsigned n;
	size_t cap;
};

/* One "$name:type" for -L, when @d has a location at the address (stap's test). */
static void up_decl_cb(Dwarf_Die *d, Dwarf_Die *frame, void *arg)
{
	struct up_decls *s = arg;
	struct up_loc l;
	char err[256];

	memset(&l, 0, sizeof(l));
	if (up_var_loc(s->a, s->fn, d, frame, dwarf_diename(d), &l, err, sizeof(err)) != 0)
		return;
	s->v = arena_grow(s->a, s->v, s->n, &s->cap, sizeof(*s->v));
	s->v[s->n++] = arena_printf(s->a, "$%s:%s", dwarf_diename(d), up_decl_type(s->a, d));
}

/* -L at a statement: the variables in scope there that have a location. */
static unsigned up_scope_decls(struct arena *a, const struct up_func *fn, const char ***decls)
{
	struct up_decls s = { a, fn, NULL, 0, 0 };

	up_each_var(fn, up_decl_cb, &s);
	*decls = s.v;
	return s.n;
}

unsigned up_param_decls(struct arena *a, const struct up_func *fn, const char ***decls)
{
	Dwarf_Attribute at;
	Dwarf_Die child, t;
	unsigned n = 0;
	size_t cap = 0;

	*decls = NULL;
	if (fn->btf)
		return kp_param_decls(a, fn->btf, fn->proto, decls);
	if (fn->stmt)
		return up_scope_decls(a, fn, decls);
	if (!fn->die || dwarf_child(fn->die, &child) != 0)
		return 0;
	do {
		const char *pn = dwarf_diename(&child);

		if (dwarf_tag(&child) != DW_TAG_formal_parameter || !pn)
			continue;
		*decls = arena_grow(a, *decls, n, &cap, sizeof(**decls));
		(*decls)[n++] = arena_printf(a, "$%s:%s", pn,
			dwarf_attr_integrate(&child, DW_AT_type, &at) &&
			dwarf_formref_die(&at, &t) ? up_type_name(a, &t) : "?");
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

/* The function holding @fn->addr: its DIE and name. */
static void up_stmt_func(struct arena *a, struct up_func *fn)
{
	Dwarf_Die *scopes, *frame;
	int n = up_scopes(fn, &scopes);

	frame = up_frame(fn, scopes, n);
	if (frame) {
		fn->die = arena_alloc(a, sizeof(Dwarf_Die));
		memcpy(fn->die, frame, sizeof(*frame));
		if (dwarf_diename(frame))
			fn->name = arena_strdup(a, dwarf_diename(frame));
	}
	free(scopes);
}

int up_line(struct up_files *f, struct arena *a, const char *path, const char *file,
	    int line, struct up_func *out, char *err, size_t errlen)
{
	struct up_file *u = up_open(f, path, err, errlen);
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
				if (ln != line || !stmt || !src || !up_path_suffix(src, file) ||
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
	if (!up_offset(u->elf, best, &out->offset)) {
		snprintf(err, errlen, "%s:%d is not in a loaded segment of %s", file, line, u->path);
		return -1;
	}
	out->path = arena_strdup(a, u->path);
	out->name = "?";
	out->file = u;
	out->addr = best;
	out->stmt = true;
	up_stmt_func(a, out);
	return 0;
}

const char *up_dwarf_path(const struct up_func *fn)
{
	if (!fn->file)
		return fn->path;
	return fn->file->debug_path ? fn->file->debug_path : fn->file->path;
}

/* ---- pretty printing: $var$, $var$$, $$vars ---- */

/* The pieces being built for one pretty-printed string. */
struct up_pp {
	struct arena *a;
	const struct up_func *fn;
	const char *var;
	bool ret;
	bool full;		/* $$: nested structs and arrays expanded too */
	struct up_item *v;
	unsigned n;
	size_t cap;
	unsigned nvals;
};

static void pp_push(struct up_pp *p, struct up_item it)
{
	p->v = arena_grow(p->a, p->v, p->n, &p->cap, sizeof(*p->v));
	p->v[p->n++] = it;
}

/* Text, merged with the text before it. */
static void pp_text(struct up_pp *p, const char *s)
{
	if (p->n && p->v[p->n - 1].fmt == UP_FMT_TEXT)
		p->v[p->n - 1].text = arena_printf(p->a, "%s%s", p->v[p->n - 1].text, s);
	else
		pp_push(p, (struct up_item){ .fmt = UP_FMT_TEXT, .text = s });
}

/* A value: @var with @chain, or "?" when the kernel cannot fetch it. */
static void pp_val(struct up_pp *p, enum up_fmt fmt, const struct ast_chain *chain)
{
	struct up_fetch f;
	char err[512];

	if (up_fetch(p->a, p->fn, p->var, chain, p->ret, &f, err, sizeof(err)) != 0) {
		pp_text(p, "?");
		return;
	}
	pp_push(p, (struct up_item){ .fmt = fmt, .var = p->var, .chain = *chain });
	p->nvals++;
}

/* @c with ->@member or [@index] appended (a new array: chains share nothing). */
static struct ast_chain pp_extend(struct arena *a, const struct ast_chain *c,
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

static Dwarf_Word up_encoding(Dwarf_Die *t)
{
	Dwarf_Attribute at;
	Dwarf_Word enc = (Dwarf_Word)-1;

	if (dwarf_attr_integrate(t, DW_AT_encoding, &at))
		dwarf_formudata(&at, &enc);
	return enc;
}

/* A number as stap prints it: %i, %u, '%c'; a bitfield always as a number. */
static void pp_base(struct up_pp *p, Dwarf_Die *t, const struct ast_chain *c, bool bitfield)
{
	Dwarf_Word enc = up_encoding(t);

	if (enc == DW_ATE_float || enc == DW_ATE_complex_float)
		pp_text(p, "?");
	else if (bitfield)
		pp_val(p, enc == DW_ATE_unsigned || enc == DW_ATE_unsigned_char ? UP_FMT_UINT :
			  UP_FMT_INT, c);
	else if (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char || enc == DW_ATE_UTF)
		pp_val(p, UP_FMT_CHAR, c);
	else
		pp_val(p, enc == DW_ATE_unsigned ? UP_FMT_UINT : UP_FMT_INT, c);
}

static void pp_type(struct up_pp *p, Dwarf_Die *type, const struct ast_chain *c, bool top,
		    bool bitfield);

/* The members of struct/union @t: ".name=value, ..." (anonymous ones as stap). */
static void pp_members(struct up_pp *p, Dwarf_Die *t, const struct ast_chain *c)
{
	Dwarf_Die child, mt;
	unsigned count = 0;

	if (dwarf_child(t, &child) != 0)
		return;
	do {
		const char *mn = dwarf_diename(&child);
		int mtag;

		if (dwarf_tag(&child) != DW_TAG_member || dwarf_hasattr(&child, DW_AT_declaration) ||
		    !up_type_of(&child, &mt))
			continue;
		if (count++)
			pp_text(p, ", ");
		if (p->nvals >= UP_PRETTY_MAX) {
			pp_text(p, "...");
			break;
		}
		mtag = dwarf_tag(&mt);
		if (mn) {
			struct ast_chain mc = pp_extend(p->a, c, mn, 0);

			pp_text(p, arena_printf(p->a, ".%s=", mn));
			pp_type(p, &mt, &mc, false, dwarf_hasattr(&child, DW_AT_bit_size));
			continue;
		}
		/* stap labels an anonymous union "<union>" and an anonymous struct "<class>". */
		pp_text(p, mtag == DW_TAG_union_type ? "<union>=" :
			   mtag == DW_TAG_structure_type ? "<class>=" : "=");
		pp_type(p, &mt, c, false, false);
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* An array: a string for chars; else its first element, as stap ("[1, ...]"). */
static void pp_array(struct up_pp *p, Dwarf_Die *t, const struct ast_chain *c, bool top)
{
	Dwarf_Die e;
	struct ast_chain ec;

	if (!top && !p->full) {
		pp_text(p, "[...]");
		return;
	}
	if (!up_type_of(t, &e)) {
		pp_text(p, "?");
		return;
	}
	if (up_is_char(&e)) {
		pp_val(p, UP_FMT_STRING, c);
		return;
	}
	pp_text(p, "[");
	ec = pp_extend(p->a, c, NULL, 0);
	pp_type(p, &e, &ec, false, false);
	pp_text(p, ", ...]");
}

/* A pointer: a string for char *; followed at the top; else its value. */
static void pp_pointer(struct up_pp *p, Dwarf_Die *t, const struct ast_chain *c, bool top)
{
	Dwarf_Die e;
	int etag;

	if (!up_type_of(t, &e)) {
		pp_val(p, UP_FMT_PTR, c);
		return;
	}
	if (up_is_char(&e)) {
		pp_val(p, UP_FMT_STRING, c);
		return;
	}
	if (!top) {
		pp_val(p, UP_FMT_PTR, c);
		return;
	}
	etag = dwarf_tag(&e);
	if (etag == DW_TAG_structure_type || etag == DW_TAG_union_type) {
		pp_type(p, &e, c, true, false);	/* '->' follows the pointer itself */
	} else {
		struct ast_chain ec = pp_extend(p->a, c, NULL, 0);

		pp_type(p, &e, &ec, true, false);
	}
}

/* Value @c of DWARF type @type, as stap's pretty printer shows it. */
static void pp_type(struct up_pp *p, Dwarf_Die *type, const struct ast_chain *c, bool top,
		    bool bitfield)
{
	Dwarf_Die t;

	if (dwarf_peel_type(type, &t) != 0)
		t = *type;
	switch (dwarf_tag(&t)) {
	case DW_TAG_base_type:
	case DW_TAG_enumeration_type:
		pp_base(p, &t, c, bitfield);
		break;
	case DW_TAG_array_type:
		pp_array(p, &t, c, top);
		break;
	case DW_TAG_pointer_type:
		pp_pointer(p, &t, c, top);
		break;
	case DW_TAG_subroutine_type:
		pp_text(p, "<function>:");
		pp_val(p, UP_FMT_PTR, c);
		break;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		pp_text(p, "{");
		if (top || p->full)
			pp_members(p, &t, c);
		else
			pp_text(p, "...");
		pp_text(p, "}");
		break;
	default:
		pp_text(p, "?");
	}
}

/* ---- the same for kernel functions, from BTF ---- */

/* @id without typedefs and qualifiers (0 is void). */
static uint32_t pp_btf_peel(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t;

	while (id && (t = btf__type_by_id(btf, id)) != NULL &&
	       (btf_is_mod(t) || btf_is_typedef(t)))
		id = t->type;
	return id;
}

static bool pp_btf_is_char(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, pp_btf_peel(btf, id));

	return t && btf_is_int(t) && t->size == 1;
}

static void pp_btf_type(struct up_pp *p, const struct btf *btf, uint32_t id,
			const struct ast_chain *c, bool top, bool bitfield);

/* A number: %i, %u, '%c' (chars; a bitfield is always a number). */
static void pp_btf_base(struct up_pp *p, const struct btf_type *t, const struct ast_chain *c,
			bool bitfield)
{
	bool is_signed = btf_is_int(t) ? (btf_int_encoding(t) & BTF_INT_SIGNED) != 0 :
			 btf_is_enum(t) ? btf_kflag(t) : false;

	if (btf_is_int(t) && t->size == 1 && !bitfield)
		pp_val(p, UP_FMT_CHAR, c);
	else
		pp_val(p, is_signed || btf_is_enum(t) ? UP_FMT_INT : UP_FMT_UINT, c);
}

/* The members of a struct or union, as pp_members() prints DWARF's. */
static void pp_btf_members(struct up_pp *p, const struct btf *btf, const struct btf_type *t,
			   const struct ast_chain *c)
{
	const struct btf_member *m = btf_members(t);
	unsigned i, vlen = btf_vlen(t), count = 0;

	for (i = 0; i < vlen; i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		const struct btf_type *mt = btf__type_by_id(btf, pp_btf_peel(btf, m->type));

		if (count++)
			pp_text(p, ", ");
		if (p->nvals >= UP_PRETTY_MAX) {
			pp_text(p, "...");
			break;
		}
		if (mn && *mn) {
			struct ast_chain mc = pp_extend(p->a, c, mn, 0);

			pp_text(p, arena_printf(p->a, ".%s=", mn));
			pp_btf_type(p, btf, m->type, &mc, false,
				    btf_member_bitfield_size(t, i) != 0);
			continue;
		}
		pp_text(p, mt && btf_is_union(mt) ? "<union>=" :
			   mt && btf_is_struct(mt) ? "<class>=" : "=");
		pp_btf_type(p, btf, m->type, c, false, false);
	}
}

/* An array: a string for chars; else its first element ("[1, ...]"). */
static void pp_btf_array(struct up_pp *p, const struct btf *btf, const struct btf_type *t,
			 const struct ast_chain *c, bool top)
{
	struct ast_chain ec;

	if (!top && !p->full) {
		pp_text(p, "[...]");
		return;
	}
	if (pp_btf_is_char(btf, btf_array(t)->type)) {
		pp_val(p, UP_FMT_STRING, c);
		return;
	}
	pp_text(p, "[");
	ec = pp_extend(p->a, c, NULL, 0);
	pp_btf_type(p, btf, btf_array(t)->type, &ec, false, false);
	pp_text(p, ", ...]");
}

/* A pointer: a string for char *; followed at the top; else its value. */
static void pp_btf_pointer(struct up_pp *p, const struct btf *btf, const struct btf_type *t,
			   const struct ast_chain *c, bool top)
{
	uint32_t eid = pp_btf_peel(btf, t->type);
	const struct btf_type *e = eid ? btf__type_by_id(btf, eid) : NULL;
	struct ast_chain ec;

	if (!e) {
		pp_val(p, UP_FMT_PTR, c);
	} else if (pp_btf_is_char(btf, eid)) {
		pp_val(p, UP_FMT_STRING, c);
	} else if (!top) {
		pp_val(p, UP_FMT_PTR, c);
	} else if (btf_is_struct(e) || btf_is_union(e)) {
		pp_btf_type(p, btf, eid, c, true, false);	/* '->' follows the pointer */
	} else {
		ec = pp_extend(p->a, c, NULL, 0);
		pp_btf_type(p, btf, eid, &ec, true, false);
	}
}

/* Value @c of BTF type @id, as pp_type() prints a DWARF type. */
static void pp_btf_type(struct up_pp *p, const struct btf *btf, uint32_t id,
			const struct ast_chain *c, bool top, bool bitfield)
{
	const struct btf_type *t = btf__type_by_id(btf, pp_btf_peel(btf, id));

	if (!t || btf_is_float(t))
		pp_text(p, "?");
	else if (btf_is_int(t) || btf_is_any_enum(t))
		pp_btf_base(p, t, c, bitfield);
	else if (btf_is_array(t))
		pp_btf_array(p, btf, t, c, top);
	else if (btf_is_ptr(t))
		pp_btf_pointer(p, btf, t, c, top);
	else if (btf_is_func_proto(t)) {
		pp_text(p, "<function>:");
		pp_val(p, UP_FMT_PTR, c);
	} else if (btf_is_struct(t) || btf_is_union(t)) {
		pp_text(p, "{");
		if (top || p->full)
			pp_btf_members(p, btf, t, c);
		else
			pp_text(p, "...");
		pp_text(p, "}");
	} else {
		pp_text(p, "?");
	}
}

/* $var$ / $var$$ on a kernel function, from BTF. */
static int pp_btf(struct up_pp *p, const struct ast_chain *plain, char *err, size_t errlen)
{
	const struct up_func *fn = p->fn;
	uint32_t id;

	if (kp_chain_type(p->a, fn->btf, fn->proto, fn->name, p->var, plain, p->ret, &id, err,
			  errlen) != 0)
		return -1;
	pp_btf_type(p, fn->btf, id, plain, true, false);
	return 0;
}

int up_pretty(struct arena *a, const struct up_func *fn, const char *var,
	      const struct ast_chain *chain, bool ret, struct up_item **out,
	      unsigned *n, char *err, size_t errlen)
{
	struct up_pp p = { a, fn, var, ret, chain->pretty > 1, NULL, 0, 0, 0 };
	struct ast_chain plain = *chain;
	struct up_loc l;
	unsigned i;

	plain.pretty = 0;
	if (fn->btf) {
		if (pp_btf(&p, &plain, err, errlen) != 0)
			return -1;
	} else {
		if (up_base(a, fn, var, ret, &l, err, errlen) != 0) {
			if (!*err)
				snprintf(err, errlen, "'%s$' needs type information", var);
			return -1;
		}
		for (i = 0; i < plain.n; i++)
			if ((plain.v[i].is_index ? up_step_index(a, &l, &plain.v[i], err, errlen) :
						   up_step_member(a, &l, &plain.v[i], err, errlen)) != 0)
				return -1;
		pp_type(&p, &l.type, &plain, true, l.bits != 0);
	}
	*out = p.v;
	*n = p.n;
	return 0;
}

struct up_ctx {
	struct up_pp *p;
	int want;		/* the tag to skip: $$parms skips variables ... */
	unsigned pretty;
	bool first;
};

/* "name=value" for one variable of $$vars (see up_context). */
static void up_ctx_cb(Dwarf_Die *d, Dwarf_Die *frame, void *arg)
{
	struct up_ctx *s = arg;
	struct up_pp *p = s->p;
	const char *name = dwarf_diename(d);
	struct ast_chain none = { 0 };
	struct up_loc l;
	Dwarf_Die t;
	char err[256];
	int tag;

	if (dwarf_tag(d) == s->want)
		return;
	pp_text(p, arena_printf(p->a, "%s%s=", s->first ? "" : " ", name));
	s->first = false;
	p->var = arena_printf(p->a, "$%s", name);
	memset(&l, 0, sizeof(l));
	if (!up_type_of(d, &t) || dwarf_peel_type(&t, &t) != 0) {
		pp_text(p, "?");
		return;
	}
	tag = dwarf_tag(&t);
	if (!s->pretty && (tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
			   tag == DW_TAG_class_type || tag == DW_TAG_array_type)) {
		pp_text(p, tag == DW_TAG_array_type ? "[...]" : "{...}");
		return;
	}
	if (up_base(p->a, p->fn, p->var, p->ret, &l, err, sizeof(err)) != 0) {
		pp_text(p, "?");
		return;
	}
	(void)frame;
	if (s->pretty) {
		p->full = s->pretty > 1;
		pp_type(p, &t, &none, true, false);
		return;
	}
	none.raw = true;	/* stap's %#x: a char * is an address here too */
	pp_val(p, UP_FMT_HEX, &none);
}

/* $$parms of a kernel function (BTF): each parameter in hex. */
static void up_ctx_btf(struct up_pp *p)
{
	const char **names;
	struct ast_chain raw = { .raw = true };
	unsigned i, n = up_params(p->a, p->fn, &names);

	for (i = 0; i < n; i++) {
		pp_text(p, arena_printf(p->a, "%s%s=", i ? " " : "", names[i]));
		p->var = arena_printf(p->a, "$%s", names[i]);
		pp_val(p, UP_FMT_HEX, &raw);
	}
}

unsigned up_context(struct arena *a, const struct up_func *fn, const char *which,
		    unsigned pretty, bool ret, struct up_item **out)
{
	struct up_pp p = { a, fn, NULL, ret, pretty > 1, NULL, 0, 0, 0 };
	struct up_ctx s = { &p, -1, pretty, true };

	*out = NULL;
	if (!strcmp(which, "$$return")) {	/* "return=%#x", or "" for void */
		struct ast_chain raw = { .raw = true };

		p.var = "$return";
		if (ret && (fn->btf || !fn->die || up_type_of(fn->die, &(Dwarf_Die){ 0 }))) {
			pp_text(&p, "return=");
			pp_val(&p, UP_FMT_HEX, &raw);
		}
		*out = p.v;
		return p.n;
	}
	if (ret)	/* parameters need @entry() there, locals are gone */
		return 0;
	if (!strcmp(which, "$$parms"))
		s.want = DW_TAG_variable;
	else if (!strcmp(which, "$$locals"))
		s.want = DW_TAG_formal_parameter;
	if (fn->btf) {
		if (s.want != DW_TAG_formal_parameter)
			up_ctx_btf(&p);
	} else if (fn->die) {
		up_each_var(fn, up_ctx_cb, &s);
	}
	*out = p.v;
	return p.n;
}
