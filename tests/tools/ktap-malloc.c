/*
 * ktap-malloc.c - a workload for examples/malloc_sizes.stp's test: makes
 * the malloc() calls its arguments ask for and nothing else (no stdio).
 *   ktap-malloc COUNTxSIZE...     e.g. ktap-malloc 100x24 10x4096
 * Each block is freed at once.  Exit status 2 on a malformed argument.
 */
#include <stdlib.h>

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		char *end;
		long n = strtol(argv[i], &end, 10), size;

		if (*end != 'x' || n < 0)
			return 2;
		size = strtol(end + 1, &end, 10);
		if (*end || size < 0)
			return 2;
		while (n-- > 0) {
			/* volatile: the compiler may not pair and drop the calls */
			void *volatile p = malloc((size_t)size);

			free(p);
		}
	}
	return 0;
}
