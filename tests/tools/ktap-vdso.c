/*
 * ktap-vdso.c - a system call made from the vDSO: the workload of the
 * tests of user symbols in the [vdso] mapping.
 *
 *   ktap-vdso [MS]
 *
 * calls clock_gettime() with a clock the vDSO does not serve (6667), so
 * that the vDSO's fallback makes the clock_gettime(2) system call (its
 * user address is in the vDSO), then getuid(2) (from libc), and sleeps
 * MS milliseconds (300 if not given): ktap reads a process's maps from
 * /proc, and after its exit they are gone.
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long ms = argc == 2 ? atol(argv[1]) : 300;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	if (clock_gettime((clockid_t)6667, &ts) == 0)
		return 1;	/* no such clock: EINVAL, from the kernel */
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000;
	(void)getuid();
	nanosleep(&ts, NULL);
	return 0;
}
