/*
 * sym-bench.c - ktap's symbolisation throughput.
 *
 *   sym-bench [MILLIONS]
 *
 * Kernel: loads /proc/kallsyms (timed: what the session pays once when a
 * script reads kernel stacks), then formats addresses picked among the
 * table's text symbols the way print_backtrace() prints a frame
 * (KSYM_FMT_FULL), MILLIONS (default 2) million times: frames per second.
 * User: caches this process's own /proc/self/maps with usym and formats
 * addresses of a few functions of this program and of libc
 * (KSYM_FMT_FULL, as print_ubacktrace()), 1/10 as many times; the first
 * lookup in each file opens it with libdwfl (timed separately).
 * kptr_restrict hiding the addresses is reported and the kernel part
 * skipped.
 *
 * Build (not built by make):
 *   gcc -O2 -std=gnu11 -Iruntime -o bench/sym-bench bench/sym-bench.c \
 *     runtime/ksym.c runtime/usym.c runtime/fileio.c -ldw -lelf
 */
#define _GNU_SOURCE
#include "fileio.h"
#include "ksym.h"
#include "usym.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Up to @max text addresses from kallsyms (every 97th 't'/'T' line). */
static size_t text_addrs(uint64_t *v, size_t max)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], type;
	unsigned long long a;
	size_t n = 0, i = 0;

	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c", &a, &type) == 2 && (type == 't' || type == 'T') &&
		    i++ % 97 == 0)
			v[n++] = a + 5;
	fclose(f);
	return n;
}

static void kernel(long iters)
{
	static uint64_t addrs[4096];
	struct ksym_table *t;
	char err[256], buf[512];
	double t0 = now_s(), t1;
	size_t n, sink = 0;
	long i;

	if (ksym_load("/proc/kallsyms", &t, err, sizeof(err)) != 0) {
		printf("kernel: %s\n", err);
		return;
	}
	t1 = now_s();
	printf("kernel: kallsyms loaded in %.1f ms (%zu symbols)\n", (t1 - t0) * 1e3,
	       ksym_count(t));
	if (ksym_hidden(t) || !(n = text_addrs(addrs, 4096))) {
		printf("kernel: %s\n", ksym_hidden_message());
		ksym_free(t);
		return;
	}
	t0 = now_s();
	for (i = 0; i < iters; i++)
		sink += (size_t)ksym_format(t, addrs[(size_t)i % n], KSYM_FMT_FULL, 0, buf,
					    sizeof(buf));
	t1 = now_s();
	printf("kernel: %.2f M frames/s formatted (print_backtrace() lines, %zu addresses, %zu bytes)\n",
	       (double)iters / (t1 - t0) / 1e6, n, sink);
	ksym_free(t);
}

static void user(long iters)
{
	uint64_t addrs[] = { (uint64_t)(uintptr_t)&kernel, (uint64_t)(uintptr_t)&user,
			     (uint64_t)(uintptr_t)&printf, (uint64_t)(uintptr_t)&memcpy,
			     (uint64_t)(uintptr_t)&fopen };
	struct usym_ctx *u = usym_new(NULL);
	char err[256], buf[1024], *maps;
	size_t len, sink = 0, k;
	double t0, t1;
	long i;

	maps = fio_read("/proc/self/maps", &len);
	if (!u || !maps || usym_add_process(u, getpid(), maps, len, err, sizeof(err)) != 0) {
		printf("user: no maps\n");
		return;
	}
	t0 = now_s();
	for (k = 0; k < sizeof(addrs) / sizeof(addrs[0]); k++)
		usym_format(u, getpid(), addrs[k], KSYM_FMT_FULL, 0, buf, sizeof(buf));
	t1 = now_s();
	printf("user: first lookups (files opened with libdwfl) %.1f ms\n", (t1 - t0) * 1e3);
	t0 = now_s();
	for (i = 0; i < iters; i++)
		sink += (size_t)usym_format(u, getpid(), addrs[(size_t)i % 5], KSYM_FMT_FULL, 0,
					    buf, sizeof(buf));
	t1 = now_s();
	printf("user: %.2f M frames/s formatted (print_ubacktrace() lines, %zu bytes)\n",
	       (double)iters / (t1 - t0) / 1e6, sink);
	free(maps);
	usym_free(u);
}

int main(int argc, char **argv)
{
	long m = argc > 1 ? atol(argv[1]) : 2;

	kernel(m * 1000000);
	user(m * 100000);
	return 0;
}
