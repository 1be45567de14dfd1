/*
 * resolve_elf.c - opening ELF files, their debug files and the kernel's
 * BTF for pass 2 (see resolve_elf.h).
 */
#define _GNU_SOURCE
#include "resolve_elf.h"
#include "arena.h"
#include "fetch.h"
#include "resolve_btf.h"
#include "resolve_cconv.h"
#include "resolve_dwloc.h"
#include "resolve_kdebug.h"
#include "target.h"

#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void relf_files_free(struct relf_files *f)
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
		rbtf_free(f->mods[i]);
	free(f->mods);
	free(f->mod_names);
	f->mods = NULL;
	f->mod_names = NULL;
	f->nmods = 0;
	rbtf_types_free(&f->types);
	rbtf_free(f->btf);
	f->btf = NULL;
	f->btf_tried = false;
}

/* Module @name's BTF, loaded once; NULL + @err. */
static struct btf *relf_module_btf(struct relf_files *f, const char *name, char *err,
				 size_t errlen)
{
	struct btf *b, **v;
	const char **nv;
	unsigned i;

	for (i = 0; i < f->nmods; i++)
		if (!strcmp(f->mod_names[i], name))
			return f->mods[i];
	b = rbtf_load_module(f->target->btf_dir, name, f->btf, err, errlen);
	v = b ? realloc(f->mods, (f->nmods + 1) * sizeof(*v)) : NULL;
	nv = v ? realloc(f->mod_names, (f->nmods + 1) * sizeof(*nv)) : NULL;
	if (v)
		f->mods = v;
	if (!nv) {
		rbtf_free(b);
		return NULL;
	}
	f->mod_names = nv;
	f->mods[f->nmods] = b;
	f->mod_names[f->nmods++] = name;
	return b;
}

/* @cmd as an absolute path: itself if it has a '/', else from @path, else
   the working directory's. */
static char *relf_locate(const char *path, const char *cmd)
{
	const char *p, *e;
	char buf[PATH_MAX];
	struct stat st;

	if (strchr(cmd, '/'))
		return realpath(cmd, NULL);
	for (p = path; *p; p = *e ? e + 1 : e) {
		e = strchrnul(p, ':');
		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(e - p), p, cmd);
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111))
			return realpath(buf, NULL);
	}
	/* Not on PATH: a file of that name in the working directory, as
	   stap takes process("prog.x") run beside it. */
	if (stat(cmd, &st) == 0 && S_ISREG(st.st_mode))
		return realpath(cmd, NULL);
	errno = ENOENT;
	return NULL;
}

/* Open @path as @u's debug file if it has DWARF. */
static bool relf_try_debug(struct relf_file *u, const char *path)
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
static void relf_debug_file(struct relf_file *u)
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
		if (relf_try_debug(u, path))
			return;
	}
	link = dwelf_elf_gnu_debuglink(u->elf, &crc);
	if (!link)
		return;
	snprintf(dir, sizeof(dir), "%s", u->path);
	*strrchr(dir, '/') = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, link);
	if (strcmp(path, u->path) != 0 && relf_try_debug(u, path))
		return;
	snprintf(path, sizeof(path), "%s/.debug/%s", dir, link);
	if (relf_try_debug(u, path))
		return;
	snprintf(path, sizeof(path), "/usr/lib/debug%s/%s", dir, link);
	relf_try_debug(u, path);
}

static bool relf_is_rel(Elf *elf)
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
static Dwarf *relf_rel_dwarf(struct relf_file *u)
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

struct relf_file *relf_open(struct relf_files *f, const char *path, char *err,
			       size_t errlen)
{
	char *abs = relf_locate(f->target->exec_path, path);
	struct relf_file *u, **v;
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
	u->dw = relf_is_rel(u->elf) ? relf_rel_dwarf(u) : dwarf_begin_elf(u->elf, DWARF_C_READ, NULL);
	if (!u->dw)
		relf_debug_file(u);
	return u;
}

/* The value of symbol @name (a function) in .symtab or .dynsym. */
bool relf_symbol(Elf *elf, const char *name, GElf_Addr *addr)
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
bool relf_offset(Elf *elf, GElf_Addr addr, uint64_t *off)
{
	int64_t o;

	if (!dwloc_file_offset(elf, addr, addr, &o))
		return false;
	*off = (uint64_t)o;
	return true;
}

/* The file with the DWARF of the kernel or of @module; NULL + @err. */
struct relf_file *relf_open_kdwarf(struct relf_files *f, const char *module, char *err,
				      size_t errlen)
{
	char where[1024], *path = kd_find(f->target, module, where, sizeof(where));
	struct relf_file *u;

	if (!path) {
		snprintf(err, errlen, "no DWARF of %s found (looked in %s)",
			 module ? module : "the kernel", where);
		return NULL;
	}
	u = relf_open(f, path, err, errlen);
	free(path);
	return u;
}

struct btf *relf_kernel_btf(struct relf_files *f, struct arena *a, const char *module,
			  char *err, size_t errlen)
{
	if (!f->btf_tried) {
		f->btf_tried = true;
		f->btf = rbtf_load(f->target->btf, err, errlen);
	}
	if (!f->btf) {
		if (!*err)
			snprintf(err, errlen, "the kernel's BTF is not available");
		return NULL;
	}
	return module ? relf_module_btf(f, arena_strdup(a, module), err, errlen) : f->btf;
}

struct btf *relf_kernel_btf_of(struct relf_files *f, struct arena *a, const char *modules,
			      const char *type, char *err, size_t errlen)
{
	const char *p = modules;
	struct btf *btf;
	int64_t size;

	while (*p) {
		size_t n = strcspn(p, ":");
		const char *one = arena_strndup(a, p, n);

		btf = relf_kernel_btf(f, a, strcmp(one, "kernel") ? one : NULL, err, errlen);
		if (btf && rbtf_sizeof(btf, type, &size, err, errlen) == 0)
			return btf;
		p += n + (p[n] == ':');
	}
	snprintf(err, errlen, "no module of \"%s\" has a type \"%s\" in its BTF", modules, type);
	return NULL;
}

/* Function symbols of @elf matching @pattern. */
size_t relf_match(struct arena *a, Elf *elf, const char *pattern,
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
	return k;
}

const char *relf_dwarf_path(const struct fetch_site *fn)
{
	if (!fn->file)
		return fn->path;
	return fn->file->debug_path ? fn->file->debug_path : fn->file->path;
}

/* Does @path begin as an ELF file does? */
static bool relf_is_elf(const char *path)
{
	char m[4] = { 0 };
	FILE *f = fopen(path, "rb");
	bool elf = f && fread(m, 1, 4, f) == 4 && !memcmp(m, "\177ELF", 4);

	if (f)
		fclose(f);
	return elf;
}

unsigned relf_glob(struct arena *a, const char *pattern, const char ***paths)
{
	struct stat sb;
	unsigned n = 0;
	glob_t g;
	size_t i;

	*paths = NULL;
	if (glob(pattern, 0, NULL, &g) != 0)
		return 0;
	*paths = arena_alloc(a, (g.gl_pathc + 1) * sizeof(**paths));
	for (i = 0; i < g.gl_pathc; i++)
		if (stat(g.gl_pathv[i], &sb) == 0 && S_ISREG(sb.st_mode) &&
		    relf_is_elf(g.gl_pathv[i]))
			(*paths)[n++] = arena_printf(a, "%s", g.gl_pathv[i]);
	globfree(&g);
	return n;
}

/* The dynamic entries @tag of @elf (DT_NEEDED names, a DT_RUNPATH), in
   order, into *@v (in @a); their number. */
static unsigned relf_dyn_strings(struct arena *a, Elf *elf, Elf64_Sxword tag, const char ***v)
{
	Elf_Scn *scn = NULL;
	unsigned n = 0;
	size_t cap = 0;

	*v = NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Dyn dyn;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !(d = elf_getdata(scn, NULL)) || !sh.sh_entsize)
			continue;
		for (i = 0; i < sh.sh_size / sh.sh_entsize && gelf_getdyn(d, (int)i, &dyn); i++) {
			const char *s;

			if (dyn.d_tag != tag || !(s = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val)))
				continue;
			*v = arena_grow(a, *v, n, &cap, sizeof(**v));
			(*v)[n++] = arena_strdup(a, s);
		}
	}
	return n;
}

/* Library @name as the dynamic linker finds it for @u: @u's DT_RUNPATH
   or DT_RPATH ($ORIGIN its directory), then the system's directories
   for @u's machine; NULL when none has it. */
static const char *relf_find_lib(struct arena *a, const struct relf_file *u, const char *name)
{
	/* a trailing '/': the machine's multiarch directory in it */
	static const char *const sys[] = { "/lib/", "/usr/lib/", "/lib64", "/usr/lib64",
					   "/lib", "/usr/lib" };
	const char *triplet = u->e_machine == EM_AARCH64 ? "aarch64-linux-gnu" :
			      "x86_64-linux-gnu";
	const char **runpath, *dir, *sep, *path;
	char origin[PATH_MAX];
	unsigned n, i;

	if (strchr(name, '/'))
		return relf_is_elf(name) ? name : NULL;
	snprintf(origin, sizeof(origin), "%s", u->path);
	*strrchr(origin, '/') = '\0';
	n = relf_dyn_strings(a, u->elf, DT_RUNPATH, &runpath);
	if (!n)
		n = relf_dyn_strings(a, u->elf, DT_RPATH, &runpath);
	for (i = 0; i < n; i++)
		for (dir = runpath[i]; *dir; dir = *sep ? sep + 1 : sep) {
			int len;

			sep = strchr(dir, ':');
			if (!sep)
				sep = dir + strlen(dir);
			len = (int)(sep - dir);
			path = !strncmp(dir, "$ORIGIN", 7) ?
			       arena_printf(a, "%s%.*s/%s", origin, len - 7, dir + 7, name) :
			       arena_printf(a, "%.*s/%s", len, dir, name);
			if (relf_is_elf(path))
				return path;
		}
	for (i = 0; i < sizeof(sys) / sizeof(sys[0]); i++) {
		size_t l = strlen(sys[i]);

		path = arena_printf(a, "%s%s/%s", sys[i], sys[i][l - 1] == '/' ? triplet : "", name);
		if (relf_is_elf(path))
			return path;
	}
	return NULL;
}

unsigned relf_needed(struct relf_files *f, struct arena *a, const char *path,
		     const char ***libs, char *err, size_t errlen)
{
	struct relf_file *u = relf_open(f, path, err, errlen);
	const char **v = NULL, **names, *lib;
	unsigned n = 0, i, j, k, nn;
	size_t cap = 0;

	*libs = NULL;
	if (!u)
		return 0;
	/* breadth first: the executable's libraries, then theirs */
	for (k = 0; k <= n && n < RELF_MAX_LIBS; k++) {
		struct relf_file *from = k ? relf_open(f, v[k - 1], err, errlen) : u;

		if (!from)
			continue;
		nn = relf_dyn_strings(a, from->elf, DT_NEEDED, &names);
		for (i = 0; i < nn && n < RELF_MAX_LIBS; i++) {
			if (!(lib = relf_find_lib(a, from, names[i])))
				continue;
			for (j = 0; j < n && strcmp(v[j], lib) != 0; j++)
				;
			if (j < n)
				continue;
			v = arena_grow(a, v, n, &cap, sizeof(*v));
			v[n++] = lib;
		}
	}
	*libs = v;
	return n;
}
