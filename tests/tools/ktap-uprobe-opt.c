/*
 * ktap-uprobe-opt.c - an optimised (-g -O2) program for the uprobe
 * tests: its variables live in registers and location lists, and one
 * is optimized out, which DWARF says (tests/harness/uprobe.sh).
 *
 * sum() adds 1, 2, 3, 4 through a loop whose body calls an opaque
 * function, so the loop stays a loop and its counter a register.
 * twice() has no copy of its own: main()'s two calls of it are inlined
 * (DW_TAG_inlined_subroutine), for .function("twice") and .inline; its
 * label twice_done is in each copy, for .label() of an inlined function.
 * span() and area() take structs by value in registers: DWARF gives
 * span's as two pieces (DW_OP_reg5; DW_OP_piece 8; DW_OP_reg4;
 * DW_OP_piece 8) and area's whole in one register, y in its upper half.
 */
#include <stdio.h>

long sum(const int *v, int n) __attribute__((noinline));
int step(int x) __attribute__((noinline));

int step(int x)
{
	__asm__ volatile("" : : : "memory");
	return x;
}

long sum(const int *v, int n)
{
	long total = 0;
	int scaled = n * 3;	/* used only by nothing: optimized out */
	int i;

	(void)scaled;
	for (i = 0; i < n; i++)
		total += step(v[i]); /* sum: loop body */
	return total;
}

static inline __attribute__((always_inline)) int twice(int x)
{
	__asm__ volatile("" : : "r"(x) : "memory");	/* x in a register here */
twice_done: __attribute__((unused))	/* a label in each inlined copy */
	return x * 2;
}

struct range { long lo; long hi; };
struct dims { int x; int y; };
long span(struct range r, int k) __attribute__((noinline));
long area(struct dims d) __attribute__((noinline));

long span(struct range r, int k)
{
	return (r.hi - r.lo) * k;
}

long area(struct dims d)
{
	return (long)d.x * d.y;
}

int main(void)
{
	static const int v[] = { 1, 2, 3, 4 };
	int *volatile p = (int *)v;

	printf("%ld\n", sum(p, 4));
	printf("%d %d\n", twice(p[1]), twice(p[2]));
	printf("%ld %ld\n", span((struct range){ p[0] - 6, p[3] + 3 }, 3),
	       area((struct dims){ p[2] + 2, -p[3] - 3 }));
	return 0;
}
