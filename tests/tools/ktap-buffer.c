/*
 * ktap-buffer.c - byte buffers at known addresses, for the buffer reads
 * (tests/harness/buffer-live.sh: %m, %M, kernel_buffer_quoted(),
 * user_buffer_quoted()).
 *
 *   ktap-buffer [N]
 *
 * Fills a 600-byte buffer with byte i = (7 * i + 3) & 255, its first 8
 * bytes "ab\0c\"\n\x80\xff", then calls take(buf, 8), take(buf, 600) and
 * take(buf, 0), in that order.  With N: take(buf, 600) N times instead,
 * then the time per call on stderr ("N calls (X ns/call)"), for
 * bench/buffer-bench.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void take(const unsigned char *buf, int len) __attribute__((noinline));

void take(const unsigned char *buf, int len)
{
	__asm__ volatile("" : : "r"(buf), "r"(len) : "memory");
}

int main(int argc, char **argv)
{
	static unsigned char a[600];
	struct timespec t0, t1;
	unsigned i;
	long n;

	for (i = 0; i < sizeof(a); i++)
		a[i] = (unsigned char)(7 * i + 3);
	memcpy(a, "ab\0c\"\n\x80\xff", 8);
	if (argc > 1) {
		n = atol(argv[1]);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (i = 0; i < (unsigned long)n; i++)
			take(a, 600);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		fprintf(stderr, "%ld calls (%.1f ns/call)\n", n,
			((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / (n ? n : 1));
		return 0;
	}
	take(a, 8);
	take(a, 600);
	take(a, 0);
	return 0;
}
