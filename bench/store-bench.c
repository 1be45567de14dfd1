/*
 * store-bench.c - how fast the store runs c[execname()]++.
 *
 *   store-bench [MILLIONS]
 *
 * One operation is what the interpreter's AOP does for c[k]++: st_aref()
 * then st_aset() of the same key.  Keys are 50 process names (separate
 * buffers, as execname() values are), visited three ways: round robin
 * (every lookup a different key from the last), in runs of 8 (a busy
 * process firing again), and one key only.  Reports operations per
 * second for each, best of 3 runs of MILLIONS (default 20) million.
 *
 * Build (not built by make):
 *   gcc -O2 -std=gnu11 -Iruntime -o bench/store-bench bench/store-bench.c \
 *     runtime/store*.c runtime/buf.c
 */
#include "store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NKEYS 50

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* c[k]++ for @n operations, key i / @run % NKEYS; returns seconds. */
static double run(struct rt_store *s, char **names, long n, long run_len)
{
	struct rt_value key, cur;
	double t0 = now();
	long i;

	for (i = 0; i < n; i++) {
		key = rt_cstr(names[(i / run_len) % NKEYS]);
		if (st_aref(s, 0, &key, &cur) != ST_OK ||
		    st_aset(s, 0, &key, rt_long(cur.l + 1)) != ST_OK) {
			fprintf(stderr, "store-bench: store error\n");
			exit(1);
		}
	}
	return now() - t0;
}

static void bench(const char *what, char **names, long n, long run_len)
{
	struct ir_global g = { .name = "c", .type = RT_LONG, .is_array = true,
			       .nkeys = 1, .keys = { RT_STRING } };
	struct ir_prog p = { .globals = &g, .nglobals = 1 };
	double best = 1e9, t;
	int r;

	for (r = 0; r < 3; r++) {
		struct rt_store *s = st_new(&p, 2048, RT_MAXSTRINGLEN);

		t = run(s, names, n, run_len);
		best = t < best ? t : best;
		st_free(s);
	}
	printf("%-12s %6.1f M ops/s (%.1f ns/op)\n", what, n / best / 1e6, best / n * 1e9);
}

int main(int argc, char **argv)
{
	static const char *const base[] = { "systemd", "kworker/0:1", "bash", "sshd",
					    "Xorg", "firefox", "gcc", "cc1", "make", "ld" };
	long n = (argc > 1 ? atol(argv[1]) : 20) * 1000000L;
	char *names[NKEYS];
	int i;

	for (i = 0; i < NKEYS; i++) {
		names[i] = malloc(32);
		snprintf(names[i], 32, "%s-%d", base[i % 10], i);
	}
	bench("round robin", names, n, 1);
	bench("runs of 8", names, n, 8);
	bench("one key", names, n, n);
	for (i = 0; i < NKEYS; i++)
		free(names[i]);
	return 0;
}
