/*
 * ktap-plt.c - the workload of the process().plt() tests: calls into
 * libc through the PLT a known number of times.
 *
 *   ktap-plt N
 *
 * calls getpid() N times and puts() N times (to stdout), then
 * getppid() once.  Built with -fno-builtin so that the compiler keeps
 * every call (puts stays puts; nothing is folded or cached).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc == 2 ? atol(argv[1]) : -1, i;
	long sum = 0;

	if (n < 0) {
		fprintf(stderr, "usage: ktap-plt N\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		sum += getpid();
		puts("ktap-plt");
	}
	return getppid() > 0 && sum >= 0 ? 0 : 1;
}
