/*
 * ktap-args - one call of mixed(), whose integer parameters follow a
 * double (passed in a vector register), a struct of 8 bytes (one
 * integer register) and one of 24 (in memory on x86_64): $n and $m are
 * in the registers the calling convention gives them after those, not
 * in the ones their position in the list would give (uprobe.sh).
 */
#include <stdio.h>

struct point {
	int x, y;
};

struct big {
	long a, b, c;
};

long mixed(double d, struct point pt, int n, struct big b, int m) __attribute__((noinline));

long mixed(double d, struct point pt, int n, struct big b, int m)
{
	return (long)d + pt.x + pt.y + n + b.a + b.b + b.c + m;
}

int main(void)
{
	struct point pt = { 3, 4 };
	struct big b = { 5, 6, 7 };

	printf("%ld\n", mixed(1.5, pt, 9, b, 11));
	return 0;
}
