/*
 * ktap-values.c - a known set of values in tracepoint fields, for the
 * hist-lowering checks (tests/vm/guest-hist-lower.sh).
 *
 *   ktap-values
 *
 * Renames itself "kv-x", then for value number i of the list 0, 1,
 * 2^k - 1, 2^k, 2^k + 1 (k = 1..62), -1, -2, -3, -1000, makes 1 + i % 4
 * calls each of
 *   read(999, NULL, v)            (sys_enter_read: fd 999, count v)
 *   lseek(999, v, i % 3)          (sys_enter_lseek: fd 999, offset v signed)
 * which fail with EBADF before looking at their arguments.  Then it
 * renames itself from "kv-x" to "kv-a", "kv-b", "kv-a", "kv-c", "kv-a"
 * (back to "kv-x" between each), for task_rename's string fields.
 * Raw syscall(2) calls, so libc adds nothing.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static void calls(long v, unsigned i)
{
	unsigned r;

	for (r = 0; r < 1 + i % 4; r++) {
		syscall(SYS_read, 999, NULL, v);
		syscall(SYS_lseek, 999, v, (int)(i % 3));
	}
}

int main(void)
{
	static const char *const names[] = { "kv-a", "kv-b", "kv-a", "kv-c", "kv-a" };
	static const long neg[] = { -1, -2, -3, -1000 };
	unsigned i = 0, k;

	prctl(PR_SET_NAME, "kv-x");
	calls(0, i++);
	calls(1, i++);
	for (k = 1; k <= 62; k++) {
		calls((long)((UINT64_C(1) << k) - 1), i++);
		calls((long)(UINT64_C(1) << k), i++);
		calls((long)((UINT64_C(1) << k) + 1), i++);
	}
	for (k = 0; k < sizeof(neg) / sizeof(neg[0]); k++)
		calls(neg[k], i++);
	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		prctl(PR_SET_NAME, names[k]);
		prctl(PR_SET_NAME, "kv-x");
	}
	return 0;
}
