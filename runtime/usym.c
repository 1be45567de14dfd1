/* usym.c - user-space symbolisation from cached process maps (runtime).
 *
 * In:  /proc/PID/maps texts (given by the session), then (pid, address).
 * Out: symbols and stap-format strings (usym.h).
 *
 * One libdwfl session (Dwfl) per process, reported from the cached maps
 * text with dwfl_linux_proc_maps_report(), which computes each module's
 * range and load bias from the mappings; files are opened by path
 * (dwfl_linux_proc_find_elf) and debug files found by
 * dwfl_standard_find_debuginfo, both on the first lookup in a module.
 * Processes live in a list searched from the front, the last one used
 * moved there (backtraces come in runs of one process).  libdwfl finds a
 * symbol by scanning the module's whole symbol table (about 50 us in
 * libc), so each process keeps a direct-mapped cache of its last lookups:
 * stack frames repeat (the same call sites over and over).
 */
#define _GNU_SOURCE
#include "usym.h"

#include <elf.h>
#include <elfutils/libdwfl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#define USYM_CACHE 1024 /* entries per process, a power of 2 */

struct usym_cached {
	uint64_t addr;
	int rc;                      /* usym_lookup's result; 2: empty slot */
	struct usym_info info;
};

struct usym_vma {
	uint64_t lo, hi;
};

struct usym_proc {
	struct usym_proc *next;
	int pid;
	Dwfl *dwfl;
	struct usym_vma *vmas;       /* the mappings, in maps order */
	size_t n_vmas;
	struct usym_cached *cache;   /* USYM_CACHE slots, allocated on first use */
};

struct usym_ctx {
	char *debuginfo_path;        /* NULL: libdwfl's default */
	Dwfl_Callbacks cb;
	struct usym_proc *procs;
	const unsigned char *vdso;   /* ktap's own vDSO image (not owned) */
	size_t vdso_len;
};

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/*
 * The vDSO mapped in ktap itself, which the kernel maps unchanged into
 * every process of ktap's ABI (64-bit): an ELF image in memory, whose
 * length its headers give (the section headers come last).  A process's
 * [vdso] mapping has no file behind it, so its symbols come from here.
 */
static const unsigned char *own_vdso(size_t *len)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Phdr *ph;
	size_t end;

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64)
		return NULL;
	end = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	ph = (const Elf64_Phdr *)((const unsigned char *)eh + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > end)
			end = ph[i].p_offset + ph[i].p_filesz;
	*len = end;
	return (const unsigned char *)eh;
}

/*
 * The [vdso] line of @maps reported as a module, from ktap's own image
 * (libdwfl reports only mappings of files) when the mapping is the size
 * of that image: the same ABI's vDSO.  Its name is the x86_64 vDSO's
 * soname, as ldd and gdb name it ("[[vdso]]" would read badly in
 * usymdata()'s "[MODULE]").
 */
static void report_vdso(const struct usym_ctx *ctx, Dwfl *dwfl, const char *maps, size_t len)
{
	for (const char *l = maps; ctx->vdso && l < maps + len;) {
		const char *nl = memchr(l, '\n', (size_t)(maps + len - l));
		const char *e = nl ? nl : maps + len;
		unsigned long long lo, hi;
		int fd;

		if (e - l > 7 && !memcmp(e - 7, " [vdso]", 7) && sscanf(l, "%llx-%llx", &lo, &hi) == 2 &&
		    hi - lo >= ctx->vdso_len && hi - lo < ctx->vdso_len + 4096 &&
		    (fd = memfd_create("ktap-vdso", MFD_CLOEXEC)) >= 0) {
			if (write(fd, ctx->vdso, ctx->vdso_len) != (ssize_t)ctx->vdso_len ||
			    !dwfl_report_elf(dwfl, "linux-vdso.so.1", "linux-vdso.so.1", fd, lo, false))
				close(fd);	/* else libdwfl owns it */
			return;
		}
		l = e + 1;
	}
}

struct usym_ctx *usym_new(const char *debuginfo_path)
{
	struct usym_ctx *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return NULL;
	if (debuginfo_path && !(ctx->debuginfo_path = strdup(debuginfo_path))) {
		free(ctx);
		return NULL;
	}
	ctx->cb.find_elf = dwfl_linux_proc_find_elf;
	ctx->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	ctx->cb.debuginfo_path = ctx->debuginfo_path ? &ctx->debuginfo_path : NULL;
	ctx->vdso = own_vdso(&ctx->vdso_len);
	return ctx;
}

static void proc_free(struct usym_proc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	free(p->cache);
	free(p->vmas);
	free(p);
}

void usym_free(struct usym_ctx *ctx)
{
	if (!ctx)
		return;
	while (ctx->procs) {
		struct usym_proc *n = ctx->procs->next;
		proc_free(ctx->procs);
		ctx->procs = n;
	}
	free(ctx->debuginfo_path);
	free(ctx);
}

/* The record of PID, moved to the front; NULL if none. */
static struct usym_proc *find_proc(struct usym_ctx *ctx, int pid)
{
	for (struct usym_proc **pp = &ctx->procs; *pp; pp = &(*pp)->next) {
		struct usym_proc *p = *pp;
		if (p->pid != pid)
			continue;
		*pp = p->next;
		p->next = ctx->procs;
		ctx->procs = p;
		return p;
	}
	return NULL;
}

int usym_has_process(const struct usym_ctx *ctx, int pid)
{
	for (const struct usym_proc *p = ctx->procs; p; p = p->next)
		if (p->pid == pid)
			return 1;
	return 0;
}

void usym_forget_process(struct usym_ctx *ctx, int pid)
{
	if (find_proc(ctx, pid)) {
		struct usym_proc *p = ctx->procs;
		ctx->procs = p->next;
		proc_free(p);
	}
}

/* A maps line starts "HEX-HEX perms": refuse anything else up front,
 * since libdwfl's reader stops quietly at the first bad line. */
static int looks_like_maps(const char *s, size_t len)
{
	size_t i = 0, h1 = 0, h2 = 0;
	while (i < len && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
		i++, h1++;
	if (i >= len || s[i++] != '-')
		return 0;
	while (i < len && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
		i++, h2++;
	return h1 > 0 && h2 > 0 && i < len && s[i] == ' ';
}

/* Every "LO-HI " line start of MAPS into P->vmas (for the offsets stap
 * prints when an address has no symbol: from its mapping's start). */
static int read_vmas(struct usym_proc *p, const char *maps, size_t len)
{
	size_t cap = 0;
	for (const char *l = maps; l < maps + len;) {
		const char *nl = memchr(l, '\n', (size_t)(maps + len - l));
		const char *e = nl ? nl : maps + len;
		char tmp[40];
		size_t n = (size_t)(e - l) < sizeof(tmp) - 1 ? (size_t)(e - l) : sizeof(tmp) - 1;
		memcpy(tmp, l, n);
		tmp[n] = '\0';
		unsigned long long lo, hi;
		if (sscanf(tmp, "%llx-%llx", &lo, &hi) == 2 && lo < hi) {
			if (p->n_vmas == cap) {
				cap = cap ? 2 * cap : 32;
				struct usym_vma *v = realloc(p->vmas, cap * sizeof(*v));
				if (!v)
					return -1;
				p->vmas = v;
			}
			p->vmas[p->n_vmas++] = (struct usym_vma){lo, hi};
		}
		l = e + 1;
	}
	return 0;
}

int usym_add_process(struct usym_ctx *ctx, int pid, const char *maps, size_t len, char *err,
		     size_t errlen)
{
	if (len == 0 || !looks_like_maps(maps, len) || memchr(maps, '\0', len)) {
		seterr(err, errlen, "process %d: not a /proc/PID/maps text", pid);
		return -1;
	}
	struct usym_proc *p = calloc(1, sizeof(*p));
	if (!p || !(p->dwfl = dwfl_begin(&ctx->cb))) {
		free(p);
		seterr(err, errlen, "process %d: %s", pid, dwfl_errmsg(-1));
		return -1;
	}
	p->pid = pid;
	if (read_vmas(p, maps, len) < 0) {
		proc_free(p);
		seterr(err, errlen, "out of memory");
		return -1;
	}
	/* fmemopen() reads the caller's bytes in place: nothing is kept. */
	FILE *fp = fmemopen((void *)maps, len, "r");
	int rc = -1;
	if (fp) {
		dwfl_report_begin(p->dwfl);
		rc = dwfl_linux_proc_maps_report(p->dwfl, fp);
		fclose(fp);
		if (rc == 0)
			report_vdso(ctx, p->dwfl, maps, len);
		if (dwfl_report_end(p->dwfl, NULL, NULL) != 0)
			rc = -1;
	}
	if (rc != 0) {
		seterr(err, errlen, "process %d: cannot read its maps: %s", pid,
		       rc > 0 ? strerror(rc) : dwfl_errmsg(-1));
		proc_free(p);
		return -1;
	}
	usym_forget_process(ctx, pid);
	p->next = ctx->procs;
	ctx->procs = p;
	return 0;
}

/* The lookup itself, through libdwfl. */
static int dwfl_lookup(struct usym_proc *p, uint64_t addr, struct usym_info *info)
{
	Dwfl_Module *m = dwfl_addrmodule(p->dwfl, addr);
	if (!m)
		return -1;
	Dwarf_Addr bias, start, end;
	const char *mainfile = NULL;
	dwfl_module_getelf(m, &bias); /* opens the file: sets mainfile */
	const char *modname = dwfl_module_info(m, NULL, &start, &end, NULL, NULL, &mainfile, NULL);
	info->module = modname ? modname : mainfile;
	if (!info->module)
		return -1;
	GElf_Sym sym;
	GElf_Off off = 0;
	const char *name = dwfl_module_addrinfo(m, addr, &off, &sym, NULL, NULL, NULL);
	if (name && *name) {
		info->name = name;
		info->offset = off;
		info->size = sym.st_size;
		return 0;
	}
	/* As stap: the offset in the mapping holding ADDR, and its size. */
	info->name = NULL;
	info->offset = addr - start;
	info->size = end - start;
	for (size_t i = 0; i < p->n_vmas; i++)
		if (addr >= p->vmas[i].lo && addr < p->vmas[i].hi) {
			info->offset = addr - p->vmas[i].lo;
			info->size = p->vmas[i].hi - p->vmas[i].lo;
			break;
		}
	return 1;
}

int usym_lookup(struct usym_ctx *ctx, int pid, uint64_t addr, struct usym_info *info)
{
	struct usym_proc *p = find_proc(ctx, pid);
	if (!p)
		return -1;
	if (!p->cache && (p->cache = malloc(USYM_CACHE * sizeof(*p->cache))))
		for (size_t i = 0; i < USYM_CACHE; i++)
			p->cache[i].rc = 2;
	if (!p->cache)
		return dwfl_lookup(p, addr, info);
	/* Fibonacci hashing: frames are close together, so mix the bits. */
	struct usym_cached *c = &p->cache[(addr * 0x9e3779b97f4a7c15ull) >> 54];
	if (c->rc == 2 || c->addr != addr) {
		c->addr = addr;
		c->rc = dwfl_lookup(p, addr, &c->info);
	}
	if (c->rc >= 0)
		*info = c->info;
	return c->rc;
}

int usym_srcline(struct usym_ctx *ctx, int pid, uint64_t addr, const char **file, int *line)
{
	struct usym_proc *p = find_proc(ctx, pid);
	Dwfl_Module *m = p ? dwfl_addrmodule(p->dwfl, addr) : NULL;
	Dwfl_Line *l;
	Dwarf_Addr bias;

	if (!m)
		return -1;
	dwfl_module_getelf(m, &bias);	/* opens the file and its debug file */
	l = dwfl_module_getsrc(m, addr);
	*line = 0;
	*file = l ? dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL) : NULL;
	return *file && *line > 0 ? 0 : -1;
}

int usym_format(struct usym_ctx *ctx, int pid, uint64_t addr, enum ksym_fmt fmt, int inexact,
		char *buf, size_t len)
{
	struct usym_info in;
	int r = usym_lookup(ctx, pid, addr, &in);
	if (r < 0)
		return ksym_format_parts(NULL, NULL, addr, 0, 0, fmt, inexact, buf, len);
	return ksym_format_parts(in.name, in.module, addr, in.offset, in.size, fmt, inexact, buf, len);
}
