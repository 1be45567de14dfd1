/*
 * ktap-getppid.c - the workload of the live tests and benchmarks: call
 * getppid(2) N times.
 *
 *   ktap-getppid [-w] [-r] [-t THREADS] N
 *
 * -w waits for SIGUSR1 before starting (for `ktap -x PID`: the test
 * signals once ktap says it is armed); with -t the threads exist before
 * the wait (each holds at a barrier until the signal), so `-x PID` meets
 * a process that already has them.  -t runs N calls in each of
 * THREADS threads.  -r reports "N calls in NS ns (NS/call)" on stderr,
 * for the benchmarks.  The raw syscall is used so libc cannot cache it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_barrier_t start;		/* -w -t: the threads wait here */
static int start_barrier;

static void *calls(void *arg)
{
	long i, n = *(long *)arg;

	if (start_barrier)
		pthread_barrier_wait(&start);
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	return NULL;
}

static void wait_usr1(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigwait(&set, &sig);
}

int main(int argc, char **argv)
{
	int opt, threads = 1, i;
	int wait = 0, report = 0;
	struct timespec t0, t1;
	double ns;
	pthread_t tid[64];
	long n;

	while ((opt = getopt(argc, argv, "wrt:")) != -1) {
		if (opt == 'w')
			wait = 1;
		else if (opt == 'r')
			report = 1;
		else if (opt == 't')
			threads = atoi(optarg);
		else
			goto usage;
	}
	if (optind != argc - 1 || threads < 1 || threads > 64)
		goto usage;
	n = atol(argv[optind]);
	if (wait && threads > 1) {
		sigset_t set;	/* blocked in the threads too: main's to take */

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		start_barrier = 1;
		pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
		for (i = 0; i < threads; i++)
			if (pthread_create(&tid[i], NULL, calls, &n) != 0)
				return 1;
	}
	if (wait)
		wait_usr1();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (threads == 1) {
		calls(&n);
	} else {
		for (i = 0; !start_barrier && i < threads; i++)
			if (pthread_create(&tid[i], NULL, calls, &n) != 0)
				return 1;
		if (start_barrier)
			pthread_barrier_wait(&start);
		for (i = 0; i < threads; i++)
			pthread_join(tid[i], NULL);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
	if (report)
		fprintf(stderr, "%ld calls in %.0f ns (%.1f ns/call)\n", n * threads, ns,
			ns / (double)(n * threads));
	return 0;
usage:
	fprintf(stderr, "usage: ktap-getppid [-w] [-t THREADS] N\n");
	return 2;
}
