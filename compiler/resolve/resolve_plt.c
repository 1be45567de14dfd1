/*
 * resolve_plt.c - pass 2: a program's PLT stubs (see resolve_plt.h).
 *
 * A call to an imported function goes to a stub that jumps through the
 * function's GOT slot: `jmp *SLOT(%rip)`, ff 25 and a 32-bit
 * displacement, after an endbr64 (f3 0f 1e fa) and a bnd prefix (f2)
 * when the program was linked for IBT.  The dynamic relocation that
 * fills the slot names the function: R_X86_64_JUMP_SLOT in .rela.plt
 * for .plt stubs (lazy binding) and .plt.sec ones (IBT's second PLT),
 * R_X86_64_GLOB_DAT in .rela.dyn for .plt.got ones (functions whose
 * address is also taken).  So each stub is decoded, not assumed from its
 * index, and the slot it jumps through gives its name: this holds for
 * lazy and -z now binding, with and without IBT, whatever the order of
 * the relocations.  .plt's stubs that only push an index and jump to the
 * resolver (IBT's first PLT) and PLT0 decode to no slot and are skipped.
 *
 * In: the ELF file.  Out: entries in the caller's arena.
 */
#include "resolve_plt.h"
#include "resolve_elf.h"
#include "arena.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The GOT slots the dynamic relocations name: slot address -> name. */
struct plt_slots {
	struct plt_slot {
		uint64_t got;
		const char *name;
	} *v;
	size_t n, cap;
};

static void plt_slot_add(struct arena *a, struct plt_slots *s, uint64_t got, const char *name)
{
	s->v = arena_grow(a, s->v, s->n, &s->cap, sizeof(*s->v));
	s->v[s->n].got = got;
	s->v[s->n++].name = name;
}

/* The JUMP_SLOT and GLOB_DAT relocations of every SHT_RELA section. */
static void plt_collect_slots(struct arena *a, Elf *elf, struct plt_slots *s)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, symsh;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Scn *symscn;
		Elf_Data *rd, *sd;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize ||
		    !(symscn = elf_getscn(elf, sh.sh_link)) || !gelf_getshdr(symscn, &symsh) ||
		    !(rd = elf_getdata(scn, NULL)) || !(sd = elf_getdata(symscn, NULL)))
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			const char *name;
			unsigned type;

			if (!gelf_getrela(rd, (int)i, &r))
				continue;
			type = (unsigned)GELF_R_TYPE(r.r_info);
			if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
			    GELF_R_SYM(r.r_info) == 0 ||
			    !gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym) ||
			    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
			     GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC &&
			     GELF_ST_TYPE(sym.st_info) != STT_NOTYPE) ||
			    !(name = elf_strptr(elf, symsh.sh_link, sym.st_name)) || !*name)
				continue;
			plt_slot_add(a, s, r.r_offset, name);
		}
	}
}

/*
 * The GOT slot the stub at @p (@len bytes, at address @addr) jumps
 * through, or 0 when it does not start with [endbr64] [bnd] jmp *X(%rip).
 */
static uint64_t plt_stub_slot(const unsigned char *p, size_t len, uint64_t addr)
{
	static const unsigned char endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t k = 0;
	int32_t disp;

	if (len >= sizeof(endbr64) && memcmp(p, endbr64, sizeof(endbr64)) == 0)
		k += sizeof(endbr64);
	if (k < len && p[k] == 0xf2)	/* bnd */
		k++;
	if (k + 6 > len || p[k] != 0xff || p[k + 1] != 0x25)
		return 0;
	memcpy(&disp, p + k + 2, sizeof(disp));	/* little-endian, as x86_64 */
	return addr + k + 6 + (uint64_t)(int64_t)disp;
}

static const char *plt_slot_name(const struct plt_slots *s, uint64_t got)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->v[i].got == got)
			return s->v[i].name;
	return NULL;
}

static bool plt_is_stub_section(Elf *elf, size_t shstrndx, const GElf_Shdr *sh)
{
	const char *name = elf_strptr(elf, shstrndx, sh->sh_name);

	return name && sh->sh_type == SHT_PROGBITS && (sh->sh_flags & SHF_EXECINSTR) &&
	       (!strcmp(name, ".plt") || !strcmp(name, ".plt.sec") || !strcmp(name, ".plt.got"));
}

static int plt_by_addr(const void *x, const void *y)
{
	const struct rplt_entry *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* Every stub of section @scn whose function matches @pattern, into @v. */
static void plt_scan(struct arena *a, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
		     const struct plt_slots *slots, const char *pattern,
		     struct rplt_entry **v, size_t *n, size_t *cap)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t esize = sh->sh_entsize ? sh->sh_entsize : 16, at;

	for (at = 0; d && d->d_buf && at + esize <= d->d_size; at += esize) {
		uint64_t addr = sh->sh_addr + at, got, off;
		const char *name;

		got = plt_stub_slot((const unsigned char *)d->d_buf + at, esize, addr);
		if (!got || !(name = plt_slot_name(slots, got)) || fnmatch(pattern, name, 0) != 0 ||
		    !relf_offset(elf, addr, &off))
			continue;
		*v = arena_grow(a, *v, *n, cap, sizeof(**v));
		(*v)[*n].name = name;
		(*v)[*n].addr = addr;
		(*v)[(*n)++].offset = off;
	}
}

int rplt_entries(struct arena *a, Elf *elf, const char *pattern, struct rplt_entry **out,
		 char *err, size_t errlen)
{
	struct plt_slots slots = { 0 };
	struct rplt_entry *v = NULL;
	size_t n = 0, cap = 0, shstrndx;
	bool any = false;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;

	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 ||
	    elf_getshdrstrndx(elf, &shstrndx) != 0) {
		snprintf(err, errlen, "PLT probes are implemented for x86_64 programs only");
		return -1;
	}
	plt_collect_slots(a, elf, &slots);
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || !plt_is_stub_section(elf, shstrndx, &sh))
			continue;
		any = true;
		plt_scan(a, elf, scn, &sh, &slots, pattern, &v, &n, &cap);
	}
	if (!any) {
		snprintf(err, errlen, "it has no PLT (.plt, .plt.sec or .plt.got section): "
			 "a static program, or one linked with -fno-plt");
		return -1;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), plt_by_addr);
	*out = v;
	return (int)n;
}
