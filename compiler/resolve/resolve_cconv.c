/*
 * resolve_cconv.c - see resolve_cconv.h.  The rows of resolve_cconv.def become three flat
 * tables, searched linearly (they are short and read a few times per
 * probe).
 */
#include "resolve_cconv.h"
#include "arena.h"

#include <elf.h>
#include <string.h>

struct cc_reg {
	enum cc_id id;
	unsigned n;
	const char *name;
};

static const struct cc_machine cc_machines[] = {
#define CC_MACHINE(id, em, uname, ret, sp, stack0) { CC_##id, em, uname, ret, sp, stack0 },
#define CC_ARG(id, n, reg)
#define CC_DWREG(id, n, reg)
#include "resolve_cconv.def"
#undef CC_MACHINE
#undef CC_ARG
#undef CC_DWREG
};

static const struct cc_reg cc_args[] = {
#define CC_MACHINE(id, em, uname, ret, sp, stack0)
#define CC_ARG(id, n, reg) { CC_##id, n, reg },
#define CC_DWREG(id, n, reg)
#include "resolve_cconv.def"
#undef CC_MACHINE
#undef CC_ARG
#undef CC_DWREG
};

static const struct cc_reg cc_dwregs[] = {
#define CC_MACHINE(id, em, uname, ret, sp, stack0)
#define CC_ARG(id, n, reg)
#define CC_DWREG(id, n, reg) { CC_##id, n, reg },
#include "resolve_cconv.def"
#undef CC_MACHINE
#undef CC_ARG
#undef CC_DWREG
};

#define CC_LEN(v) (sizeof(v) / sizeof((v)[0]))

/* Register @n of @id in table @v (@len rows), or NULL. */
static const char *cc_find(const struct cc_reg *v, size_t len, enum cc_id id, unsigned n)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (v[i].id == id && v[i].n == n)
			return v[i].name;
	return NULL;
}

const struct cc_machine *cc_for_elf(unsigned e_machine)
{
	size_t i;

	for (i = 0; i < CC_LEN(cc_machines); i++)
		if (cc_machines[i].e_machine == e_machine)
			return &cc_machines[i];
	return NULL;
}

/* The machine ktap was built for is the one it runs on: no uname() (it
   was called for every fetch of a kernel function's argument). */
const struct cc_machine *cc_host(void)
{
#if defined(__x86_64__)
	return cc_for_elf(EM_X86_64);
#elif defined(__aarch64__)
	return cc_for_elf(EM_AARCH64);
#else
	return NULL;
#endif
}

unsigned cc_nregs(const struct cc_machine *m)
{
	unsigned n = 0;

	while (cc_find(cc_args, CC_LEN(cc_args), m->id, n))
		n++;
	return n;
}

const char *cc_arg(struct arena *a, const struct cc_machine *m, unsigned pos)
{
	unsigned n = cc_nregs(m);

	if (pos < n)
		return cc_find(cc_args, CC_LEN(cc_args), m->id, pos);
	return arena_printf(a, "+%u(%s)", m->stack0 + 8 * (pos - n), m->sp);
}

const char *cc_dwreg(const struct cc_machine *m, unsigned regno)
{
	return cc_find(cc_dwregs, CC_LEN(cc_dwregs), m->id, regno);
}

int cc_param_regs(const struct cc_machine *m, bool is_float, bool composite, int64_t size)
{
	if (is_float)
		return 0;
	if (!composite)
		return size > 8 ? 2 : 1;
	if (size <= 16)
		return (int)((size + 7) / 8);
	return m->id == CC_X86_64 ? -1 : 1;
}

unsigned cc_param_slot(const struct cc_machine *m, const int *regs, const unsigned *words,
		       unsigned i)
{
	unsigned k, slot = 0, stack = 0, nregs = cc_nregs(m);

	for (k = 0; k <= i; k++) {
		int n = regs[k];

		if (n < 0 || slot + (unsigned)n > nregs) {	/* on the stack */
			if (k == i)
				return nregs + stack;
			if (m->id != CC_X86_64 && n > 0)
				slot = nregs;
			stack += n < 0 ? words[k] : (unsigned)n;
			continue;
		}
		if (k == i)
			return slot;
		slot += (unsigned)n;
	}
	return nregs + stack;
}
