/*
 * ktap-dlopen.c - a library mapped after the process started: the
 * workload of the tests of user symbols in libraries dlopen()ed late.
 *
 *   ktap-dlopen [MS]
 *
 * calls getppid(2) (an event ktap sees before the library is there),
 * sleeps MS milliseconds (300 if not given), dlopen()s libm.so.6,
 * passes the address of its cos() to found() and sleeps MS again (ktap
 * reads a process's maps from /proc: after its exit they are gone).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static __attribute__((noinline)) void found(void *fn)
{
	__asm__ volatile("" : : "r"(fn) : "memory");
}

int main(int argc, char **argv)
{
	long ms = argc == 2 ? atol(argv[1]) : 300;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	void *lib, *fn;

	syscall(SYS_getppid);
	nanosleep(&ts, NULL);
	lib = dlopen("libm.so.6", RTLD_NOW);
	fn = lib ? dlsym(lib, "cos") : NULL;
	if (!fn) {
		fprintf(stderr, "ktap-dlopen: %s\n", dlerror());
		return 1;
	}
	found(fn);
	nanosleep(&ts, NULL);
	return 0;
}
