/*
 * ktap-uprobe-target.c - the program the uprobe tests probe, built with
 * -g -O0 at check time so its DWARF describes every parameter and the
 * structures behind them (tests/harness/uprobe.sh).
 *
 * Calls handle() three times (k = 0, 1, 2) with a struct holding an int,
 * a string pointer, an embedded struct, a pointer to a struct, a char
 * array, two bitfields and an unsigned char pointer, then walk() once (a loop with locals in a
 * lexical block, for statement probes, and a global counter; labels
 * walk_step in the loop and walk_done after it, for .label() probes), then
 * malloc(12345) and srandom(12345) once each through libc (srandom
 * because sanitizers replace malloc).  Then, for @entry: fact(4)
 * (recursive, so returns pair with their own entries) and nap(), which
 * sleeps 20 ms.
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
	unsigned char *bytes;	/* bytes, not text: an address (here, &tag) */
};

struct point {
	int x;
	int y;
};

struct shape {
	const char *label;
	struct point origin;
	struct point *corner;
	int sides[3];
	union {
		int i;
		char c;
	} u;
};

/* Read by the tests through its DW_OP_addr location. */
int global_counter = 7;

/* A global ring of one: ring.next == &ring, for chains of dereferences. */
struct node {
	struct node *next;
	int v;
};
struct node ring = { &ring, 1 };

long handle(struct req *r, int n, const char *msg) __attribute__((noinline));
long walk(struct shape *s, int limit) __attribute__((noinline));

long handle(struct req *r, int n, const char *msg)
{
	return r->id * 10 + n + (long)strlen(msg) + r->in.y + r->ip->x + r->flags;
}

long walk(struct shape *s, int limit)
{
	long total = 0;
	int i;

	for (i = 0; i < limit; i++) {
		struct point step = { i, i * 10 };

walk_step: __attribute__((unused))
		total += step.x + step.y + s->origin.x; /* walk: loop body */
		global_counter++;
	}
walk_done: __attribute__((unused))
	return total;
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
	struct req r = { 42, "alpha", { 5, 50 }, &i2, "tagged", 5, 17, NULL };
	long s = 0;
	void *p;
	int k;

	struct shape sh = { "square", { 1, 2 }, NULL, { 4, 5, 6 }, { 65 } };

	r.bytes = (unsigned char *)r.tag;
	for (k = 0; k < 3; k++)
		s += handle(&r, k, "hello");
	s += walk(&sh, 3);
	p = malloc(12345);
	srandom(12345);
	s += fact(4) + nap(20);
	printf("%ld %d\n", s, p != NULL);
	free(p);
	return 0;
}
