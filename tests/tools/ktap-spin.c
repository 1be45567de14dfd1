/*
 * ktap-spin.c - the workload of the timer.profile tests: keep every
 * online CPU busy in user space for a while.
 *
 *   ktap-spin MS
 *
 * One thread per online CPU, each pinned to its CPU, spins in
 * ktap_spin_loop() for MS milliseconds (measured by each thread from its
 * own start), then the program exits.  Each CPU's scheduler tick then
 * interrupts this program about CONFIG_HZ times a second, in
 * ktap_spin_loop() (its user stack's innermost frame), when no other
 * task runs there: at exit, the program prints the CPU time it got
 * ("cpu_ms=N", user + system, getrusage) on stderr, which its share of
 * the ticks must match.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static long spin_ms;

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Busy until @end: no system call on the way (the vDSO reads the clock). */
static __attribute__((noinline)) void ktap_spin_loop(long long end)
{
	volatile unsigned long n = 0;

	while (now_ns() < end)
		for (int i = 0; i < 1000; i++)
			n++;
}

static void *spin(void *arg)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)(long)arg, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		perror("ktap-spin: sched_setaffinity");
	ktap_spin_loop(now_ns() + spin_ms * 1000000LL);
	return NULL;
}

int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), i;
	pthread_t *t;
	struct rusage ru;

	if (argc != 2 || (spin_ms = atol(argv[1])) <= 0 || ncpu <= 0) {
		fprintf(stderr, "usage: ktap-spin MS\n");
		return 2;
	}
	t = calloc((size_t)ncpu, sizeof(*t));
	for (i = 1; i < ncpu; i++)
		pthread_create(&t[i], NULL, spin, (void *)i);
	spin((void *)0);
	for (i = 1; i < ncpu; i++)
		pthread_join(t[i], NULL);
	free(t);
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		fprintf(stderr, "cpu_ms=%lld\n",
			(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000LL +
			(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000);
	return 0;
}
