/*
 * syscall_table.c - system-call numbers and names (stap's
 * syscall_name()/syscall_num() tables), for the architecture ktap is
 * built for, which is the one whose kernel it traces.  Only x86_64 has
 * a table: elsewhere every lookup fails, and the compiler says so for
 * scripts that use the names (tapset/syscall_any.stp).  32-bit (compat)
 * tasks have other numbers; they are looked up in the 64-bit table, as
 * ktap cannot tell them apart in a raw_syscalls record.
 */
#include "syscall_table.h"

#include <string.h>

struct sct_entry {
	int64_t nr;
	const char *name;
};

static const struct sct_entry sct_table[] = {
#if defined(__x86_64__)
#define SC(nr, name) { nr, #name },
#include "syscalls_x86_64.def"
#undef SC
#endif
	{ -1, NULL }
};

#define SCT_N (sizeof(sct_table) / sizeof(sct_table[0]) - 1)

int sct_available(void)
{
	return SCT_N > 0;
}

/* The table is sorted by number: a binary search. */
const char *sct_name(int64_t nr)
{
	size_t lo = 0, hi = SCT_N;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sct_table[mid].nr == nr)
			return sct_table[mid].name;
		if (sct_table[mid].nr < nr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *sct_entry(size_t i, int64_t *nr)
{
	if (i >= SCT_N)
		return NULL;
	*nr = sct_table[i].nr;
	return sct_table[i].name;
}

int64_t sct_number(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < SCT_N; i++)
		if (strlen(sct_table[i].name) == len && !memcmp(sct_table[i].name, name, len))
			return sct_table[i].nr;
	return -1;
}
