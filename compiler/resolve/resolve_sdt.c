/*
 * resolve_sdt.c - pass 2: SDT markers from .note.stapsdt (see
 * resolve_sdt.h).  Each note (owner "stapsdt", type 3) holds three
 * addresses - the marker's nop, the link-time address of .stapsdt.base,
 * the semaphore (0: none) - then "provider\0name\0args\0", the
 * arguments being space-separated "[-]SIZE@OPERAND" in the assembler's
 * syntax.  A file prelinked since has its .stapsdt.base elsewhere: both
 * the nop and the semaphore move with it.
 *
 * In: an opened ELF.  Out: markers and fetch arguments in the arena.
 */
#include "resolve_sdt.h"
#include "arena.h"
#include "resolve_elf.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RSDT_NOTE_TYPE 3

/* The section named @want, or NULL. */
static Elf_Scn *sdt_section(Elf *elf, const char *want, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstr;

	if (elf_getshdrstrndx(elf, &shstr) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstr, sh->sh_name);
		if (n && !strcmp(n, want))
			return scn;
	}
	return NULL;
}

/* The space-separated operands of @s, in @m. */
static void sdt_split_args(struct arena *a, const char *s, struct rsdt_mark *m)
{
	const char *p;
	unsigned n = 0;

	for (p = s; *p; ) {
		p += strspn(p, " ");
		if (*p)
			n++;
		p += strcspn(p, " ");
	}
	m->args = arena_alloc(a, (n ? n : 1) * sizeof(*m->args));
	m->nargs = 0;
	for (p = s; *p; ) {
		size_t len;

		p += strspn(p, " ");
		len = strcspn(p, " ");
		if (len)
			m->args[m->nargs++] = arena_strndup(a, p, len);
		p += len;
	}
}

/*
 * The note @desc (@len bytes) as a marker: false when it is malformed or
 * its addresses are outside the file's loaded segments.
 */
static bool sdt_note(struct arena *a, Elf *elf, const char *desc, size_t len, bool have_base,
		     uint64_t base_addr, struct rsdt_mark *m)
{
	size_t w = gelf_getclass(elf) == ELFCLASS32 ? 4 : 8;
	uint64_t addr[3] = {0, 0, 0};
	const char *prov, *name, *args;
	unsigned i;

	if (len < 3 * w + 3)
		return false;
	for (i = 0; i < 3; i++) {
		if (w == 4) {
			uint32_t v;

			memcpy(&v, desc + i * w, 4);
			addr[i] = v;
		} else {
			memcpy(&addr[i], desc + i * w, 8);
		}
	}
	prov = desc + 3 * w;
	name = memchr(prov, 0, len - 3 * w) ? prov + strlen(prov) + 1 : NULL;
	if (!name || name >= desc + len || !memchr(name, 0, (size_t)(desc + len - name)))
		return false;
	args = name + strlen(name) + 1;
	if (args >= desc + len || !memchr(args, 0, (size_t)(desc + len - args)))
		args = "";
	if (have_base) {	/* prelinked: everything moved with .stapsdt.base */
		addr[0] += base_addr - addr[1];
		if (addr[2])
			addr[2] += base_addr - addr[1];
	}
	m->provider = arena_strdup(a, prov);
	m->name = arena_strdup(a, name);
	m->sem_offset = 0;
	m->pc = addr[0];
	if (!relf_offset(elf, addr[0], &m->offset) ||
	    (addr[2] && !relf_offset(elf, addr[2], &m->sem_offset)))
		return false;
	sdt_split_args(a, args, m);
	return true;
}

int rsdt_marks(struct arena *a, Elf *elf, const char *provider, const char *name,
	       struct rsdt_mark **out, char *err, size_t errlen)
{
	GElf_Shdr sh, bsh;
	Elf_Scn *scn = sdt_section(elf, ".note.stapsdt", &sh);
	bool have_base = sdt_section(elf, ".stapsdt.base", &bsh) != NULL;
	Elf_Data *d;
	GElf_Nhdr nh;
	size_t off = 0, noff, doff;
	unsigned n = 0, cap = 0;

	*out = NULL;
	if (!scn || sh.sh_type != SHT_NOTE) {
		snprintf(err, errlen, "no .note.stapsdt section");
		return -1;
	}
	d = elf_getdata(scn, NULL);
	while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
		const char *owner = (const char *)d->d_buf + noff;
		struct rsdt_mark m;

		if (nh.n_type != RSDT_NOTE_TYPE || nh.n_namesz != sizeof("stapsdt") ||
		    memcmp(owner, "stapsdt", sizeof("stapsdt")) != 0 ||
		    !sdt_note(a, elf, (const char *)d->d_buf + doff, nh.n_descsz, have_base,
			      bsh.sh_addr, &m))
			continue;
		if ((provider && fnmatch(provider, m.provider, 0) != 0) ||
		    fnmatch(name, m.name, 0) != 0)
			continue;
		if (n == cap) {
			struct rsdt_mark *v = arena_alloc(a, (cap = cap ? 2 * cap : 16) * sizeof(*v));

			if (n)
				memcpy(v, *out, n * sizeof(*v));
			*out = v;
		}
		(*out)[n++] = m;
	}
	return (int)n;
}

/* x86_64 registers of every width, by the name the uprobe fetch uses. */
static const struct sdt_reg {
	const char *fetch, *names[4];
} sdt_regs[] = {
	{"ax", {"rax", "eax", "ax", "al"}}, {"bx", {"rbx", "ebx", "bx", "bl"}},
	{"cx", {"rcx", "ecx", "cx", "cl"}}, {"dx", {"rdx", "edx", "dx", "dl"}},
	{"si", {"rsi", "esi", "si", "sil"}}, {"di", {"rdi", "edi", "di", "dil"}},
	{"bp", {"rbp", "ebp", "bp", "bpl"}}, {"sp", {"rsp", "esp", "sp", "spl"}},
	{"r8", {"r8", "r8d", "r8w", "r8b"}}, {"r9", {"r9", "r9d", "r9w", "r9b"}},
	{"r10", {"r10", "r10d", "r10w", "r10b"}}, {"r11", {"r11", "r11d", "r11w", "r11b"}},
	{"r12", {"r12", "r12d", "r12w", "r12b"}}, {"r13", {"r13", "r13d", "r13w", "r13b"}},
	{"r14", {"r14", "r14d", "r14w", "r14b"}}, {"r15", {"r15", "r15d", "r15w", "r15b"}},
	{"ip", {"rip", "eip", NULL, NULL}},
};

/* Register @name (@len chars, no '%') as the fetch names it, and its
   width (*@width: 8, 4, 2 or 1 bytes); NULL. */
static const char *sdt_reg_width(const char *name, size_t len, int *width)
{
	static const int widths[4] = { 8, 4, 2, 1 };
	size_t i, j;

	for (i = 0; i < sizeof(sdt_regs) / sizeof(sdt_regs[0]); i++)
		for (j = 0; j < 4; j++)
			if (sdt_regs[i].names[j] && strlen(sdt_regs[i].names[j]) == len &&
			    !strncmp(sdt_regs[i].names[j], name, len)) {
				*width = widths[j];
				return sdt_regs[i].fetch;
			}
	return NULL;
}

static const char *sdt_reg(const char *name, size_t len)
{
	int width;

	return sdt_reg_width(name, len, &width);
}

/*
 * A register operand "%sil", "%ah", "4@%r8d": the fetch and its type.
 * Without a size prefix the register's own width is the size (stap's
 * rule: "%sil" is one byte, not all of rsi); %ah..%dh are bits 8-15 of
 * rax..rdx, a bitfield of the register.  False when @name is none.
 */
static bool sdt_reg_operand(struct arena *a, const char *name, bool sized, const char **loc,
			    const char **type)
{
	static const char *const high[] = { "ah", "bh", "ch", "dh" };
	static const char *const types[] = { [1] = "s8", [2] = "s16", [4] = "s32", [8] = "s64" };
	const char *reg;
	int width;
	size_t i;

	for (i = 0; i < 4; i++)
		if (!strcmp(name, high[i])) {
			*loc = arena_printf(a, "%%%cx", high[i][0]);
			*type = "b8@8/64";
			return true;
		}
	if (!(reg = sdt_reg_width(name, strlen(name), &width)))
		return false;
	*loc = arena_printf(a, "%%%s", reg);
	if (!sized)
		*type = types[width];
	return true;
}

/* Any defined symbol @name's address (data too, unlike relf_symbol()). */
static bool sdt_symbol(Elf *elf, const char *name, GElf_Addr *addr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		Elf_Data *d;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB &&
						sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; d && i < n; i++) {
			const char *s;

			if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			s = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (s && !strcmp(s, name)) {
				*addr = sym.st_value;
				return true;
			}
		}
	}
	return false;
}

/*
 * "SYM[+-N](%rip)": the memory at SYM+N, as "@+OFFSET".  The kernel
 * reads OFFSET as a file offset in the probed file's text mapping
 * (probe address - probe offset + OFFSET), so for data in another
 * segment OFFSET is the distance from that mapping's start, not the
 * data's own file offset.
 */
static int sdt_rip(struct arena *a, Elf *elf, const struct rsdt_mark *m, const char *disp,
		   size_t len, const char **loc, char *err, size_t errlen)
{
	size_t symlen = strcspn(disp, "+-");
	const char *sym = arena_strndup(a, disp, symlen < len ? symlen : len);
	long long add = symlen < len ? strtoll(disp + symlen, NULL, 0) : 0;
	GElf_Addr addr;

	if (!sdt_symbol(elf, sym, &addr) || addr + (uint64_t)add < m->pc - m->offset) {
		snprintf(err, errlen, "SDT operand refers to '%s', which is not a symbol "
			 "loaded from the file", sym);
		return -1;
	}
	*loc = arena_printf(a, "@+0x%llx",
			    (unsigned long long)(addr + (uint64_t)add - (m->pc - m->offset)));
	return 0;
}

/* The fetch type of size prefix "-4@": "s32"; "" (no prefix): "s64". */
static const char *sdt_type(const char *op, const char **rest)
{
	const char *at = strchr(op, '@');
	long size;

	if (!at) {
		*rest = op;
		return "s64";
	}
	*rest = at + 1;
	size = strtol(op, NULL, 10);
	switch (size) {
	case 1: return "u8";
	case -1: return "s8";
	case 2: return "u16";
	case -2: return "s16";
	case 4: return "u32";
	case -4: return "s32";
	case 8: return "u64";
	default: return "s64";
	}
}

int rsdt_operand(struct arena *a, Elf *elf, const struct rsdt_mark *m, const char *op,
		 const char **loc, const char **type, char *err, size_t errlen)
{
	const char *rest, *reg, *open;
	size_t len;

	*type = sdt_type(op, &rest);
	if (rest[0] == '$') {		/* a constant */
		*loc = arena_printf(a, "\\%lld", strtoll(rest + 1, NULL, 0));
		return 0;
	}
	if (rest[0] == '%' && sdt_reg_operand(a, rest + 1, rest != op, loc, type))
		return 0;
	open = strchr(rest, '(');
	len = open ? strcspn(open + 1, ")") : 0;
	if (open && open[1] == '%' && open[1 + len] == ')' &&
	    (reg = sdt_reg(open + 2, len - 1)) != NULL) {
		if (!strcmp(reg, "ip"))
			return sdt_rip(a, elf, m, rest, (size_t)(open - rest), loc, err, errlen);
		if (open == rest || rest[0] == '-' || (rest[0] >= '0' && rest[0] <= '9')) {
			long long disp = open == rest ? 0 : strtoll(rest, NULL, 0);

			*loc = arena_printf(a, "%s%lld(%%%s)", disp < 0 ? "" : "+", disp, reg);
			return 0;
		}
	}
	snprintf(err, errlen, "SDT operand \"%s\" is not one ktap can fetch "
		 "(registers, OFFSET(%%REG), SYM(%%rip) and $CONSTANT are)", op);
	return -1;
}

int rsdt_fetch(struct arena *a, const struct fetch_site *fn, const char *var,
	       const struct ast_chain *chain, struct fetch *out, char *err, size_t errlen)
{
	const struct rsdt_mark *m = fn->sdt;
	const char *loc, *type;
	char *end;
	long i = strncmp(var, "$arg", 4) ? 0 : strtol(var + 4, &end, 10);

	if (i <= 0 || *end || (unsigned long)i > m->nargs) {
		snprintf(err, errlen, "marker %s:%s has %u argument%s: no '%s' ($arg1..$argN, "
			 "$$name, $$provider, $$parms)", m->provider, m->name, m->nargs,
			 m->nargs == 1 ? "" : "s", var);
		return -1;
	}
	if (chain->n) {
		snprintf(err, errlen, "%s of an SDT marker has no type: '->' and '[]' need "
			 "@cast", var);
		return -1;
	}
	if (rsdt_operand(a, fn->file->elf, m, m->args[i - 1], &loc, &type, err, errlen) != 0)
		return -1;
	out->name = arena_printf(a, "arg%ld", i);
	if (chain->mem) {
		fetch_mem(a, loc, chain->mem, false, out);
		return 0;
	}
	out->arg = arena_printf(a, "%s:%s", loc, type);
	out->is_string = false;
	return 0;
}
