/*
 * ktap-uprobe-target.c - the program the uprobe tests probe, built with
 * -g -O0 at check time so its DWARF describes every parameter and the
 * structures behind them (tests/harness/uprobe.sh).
 *
 * Calls handle() three times (k = 0, 1, 2) with a struct holding an int,
 * a string pointer, an embedded struct, a pointer to a struct, a char
 * array and two bitfields, then malloc(12345) and srandom(12345) once
 * each through libc (srandom because sanitizers replace malloc).  Then,
 * for @entry: fact(4) (recursive, so returns pair with their own
 * entries) and nap(), which sleeps 20 ms.
 */
/*
 * configure's CFLAGS (-O2) come after the per-program -O0 on automake's
 * command line, so optimisation is switched off here too: the probed
 * call must stay a call, and every field the tests read must be stored.
 */
#pragma GCC optimize("O0")

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct inner {
	int x;
	long y;
};

struct req {
	int id;
	const char *name;
	struct inner in;
	struct inner *ip;
	char tag[8];
	unsigned flags : 3;
	unsigned mode : 5;
};

long handle(struct req *r, int n, const char *msg) __attribute__((noinline));

long handle(struct req *r, int n, const char *msg)
{
	return r->id * 10 + n + (long)strlen(msg) + r->in.y + r->ip->x + r->flags;
}

long fact(int n) __attribute__((noinline));

long fact(int n)
{
	return n <= 1 ? 1 : n * fact(n - 1);
}

int nap(int ms) __attribute__((noinline));

int nap(int ms)
{
	return usleep((useconds_t)ms * 1000);
}

int main(void)
{
	struct inner i2 = { 7, 70 };
	struct req r = { 42, "alpha", { 5, 50 }, &i2, "tagged", 5, 17 };
	long s = 0;
	void *p;
	int k;

	for (k = 0; k < 3; k++)
		s += handle(&r, k, "hello");
	p = malloc(12345);
	srandom(12345);
	s += fact(4) + nap(20);
	printf("%ld %d\n", s, p != NULL);
	free(p);
	return 0;
}
