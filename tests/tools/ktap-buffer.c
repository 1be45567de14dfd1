/*
 * ktap-buffer.c - byte buffers at known addresses, for the buffer reads
 * (tests/harness/buffer-live.sh: %m, %M, kernel_buffer_quoted(),
 * user_buffer_quoted()).
 *
 *   ktap-buffer
 *
 * Fills a 600-byte buffer with byte i = (7 * i + 3) & 255, its first 8
 * bytes "ab\0c\"\n\x80\xff", then calls take(buf, 8), take(buf, 600) and
 * take(buf, 0), in that order.
 */
#include <string.h>

void take(const unsigned char *buf, int len) __attribute__((noinline));

void take(const unsigned char *buf, int len)
{
	__asm__ volatile("" : : "r"(buf), "r"(len) : "memory");
}

int main(void)
{
	static unsigned char a[600];
	unsigned i;

	for (i = 0; i < sizeof(a); i++)
		a[i] = (unsigned char)(7 * i + 3);
	memcpy(a, "ab\0c\"\n\x80\xff", 8);
	take(a, 8);
	take(a, 600);
	take(a, 0);
	return 0;
}
