/*
 * ktap-signals.c - known signal traffic, for the signal.* tests
 * (tests/harness/tapset-live.sh, tests/vm/guest-scripts.sh).
 *
 *   ktap-signals
 *
 * In this order, in the process itself (one thread):
 *   sigaction(SIGUSR1, handler, mask {SIGUSR2}, SA_RESTART)
 *   sigaction(SIGUSR2, handler, mask {}, SA_RESTART)
 *   sigprocmask(SIG_BLOCK, {SIGUSR2})
 *   kill(getpid(), SIGUSR2)              = 0 (stays pending: blocked)
 *   sigpending()                         = 0, SIGUSR2 in the set
 *   tgkill(getpid(), gettid(), SIGUSR1)  = 0 (the handler runs)
 *   tkill(gettid(), SIGUSR1)             = 0 (the handler runs)
 *   sigprocmask(SIG_UNBLOCK, {SIGUSR2})  (its handler runs)
 *   sigprocmask(SIG_BLOCK, {SIGALRM})
 *   a POSIX timer (CLOCK_MONOTONIC, SIGALRM) fires once, 50 ms after it
 *   is set, while the process spins for 100 ms without a system call
 *   (the timer's interrupt then finds it on the CPU, a known context);
 *   sigwaitinfo() takes its SIGALRM
 *   sigaction(SIGSEGV, handler, mask {}, SA_NODEFER), then a write to 0:
 *   the SIGSEGV's handler jumps back
 * then a child process sets an alternate signal stack it cannot write
 * (read-only memory), takes SIGUSR1 on it (sigaction SA_ONSTACK), sets
 * SIGSEGV's action back to the default and raises SIGUSR1: the kernel cannot set up the handler's frame and kills the
 * child with SIGSEGV (force_sigsegv()).  The parent waits for it, then
 *   kill(child, 0)                       = -ESRCH (it is gone)
 * Exit status 0 when every step did what is listed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t usr1, usr2;
static sigjmp_buf back;

static void on_usr(int sig)
{
	if (sig == SIGUSR1)
		usr1++;
	else
		usr2++;
}

static pid_t self;

static void on_segv(int sig)
{
	(void)sig;
	if (getpid() != self)
		_exit(4);
	siglongjmp(back, 1);
}

static int fail(const char *what)
{
	fprintf(stderr, "ktap-signals: %s\n", what);
	return 1;
}

static void handle(int sig, void (*fn)(int), int mask_sig, int flags)
{
	struct sigaction sa = { .sa_handler = fn, .sa_flags = flags };

	sigemptyset(&sa.sa_mask);
	if (mask_sig)
		sigaddset(&sa.sa_mask, mask_sig);
	sigaction(sig, &sa, NULL);
}

static void mask(int how, int sig)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(how, &s, NULL);
}

/* The child: SIGUSR1's handler on a stack it cannot write. */
static void bad_stack(void)
{
	size_t size = 65536;
	void *mem = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	stack_t ss = { .ss_sp = mem, .ss_size = size };

	if (mem == MAP_FAILED || sigaltstack(&ss, NULL) != 0)
		_exit(2);
	handle(SIGUSR1, on_usr, 0, SA_ONSTACK);
	handle(SIGSEGV, SIG_DFL, 0, 0);
	syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1);
	_exit(3);
}

/* Busy for @ms milliseconds, reading the clock through the vDSO only. */
static void spin_ms(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

int main(void)
{
	struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGALRM };
	struct itimerspec its = { .it_value = { 0, 50000000 } };
	sigset_t set;
	timer_t timer;
	siginfo_t si;
	pid_t child;
	int status;

	self = getpid();
	handle(SIGUSR1, on_usr, SIGUSR2, SA_RESTART);
	handle(SIGUSR2, on_usr, 0, SA_RESTART);
	mask(SIG_BLOCK, SIGUSR2);
	if (kill(getpid(), SIGUSR2) != 0)
		return fail("kill(self, SIGUSR2)");
	if (sigpending(&set) != 0 || !sigismember(&set, SIGUSR2) || usr2)
		return fail("sigpending(): SIGUSR2 not pending");
	if (syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1) != 0 || usr1 != 1)
		return fail("tgkill(self, SIGUSR1)");
	if (syscall(SYS_tkill, gettid(), SIGUSR1) != 0 || usr1 != 2)
		return fail("tkill(self, SIGUSR1)");
	mask(SIG_UNBLOCK, SIGUSR2);
	if (usr2 != 1)
		return fail("SIGUSR2 not taken when unblocked");

	mask(SIG_BLOCK, SIGALRM);
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	if (timer_create(CLOCK_MONOTONIC, &ev, &timer) != 0 ||
	    timer_settime(timer, 0, &its, NULL) != 0)
		return fail("timer_create()/timer_settime()");
	spin_ms(100);
	if (sigwaitinfo(&set, &si) != SIGALRM || si.si_code != SI_TIMER)
		return fail("sigwaitinfo(): no SIGALRM from the timer");
	timer_delete(timer);

	handle(SIGSEGV, on_segv, 0, SA_NODEFER);
	if (!sigsetjmp(back, 0)) {
		*(volatile int *)(uintptr_t)0 = 1;
		return fail("no SIGSEGV");
	}

	child = fork();
	if (child < 0)
		return fail("fork()");
	if (child == 0)
		bad_stack();
	if (waitpid(child, &status, 0) != child || !WIFSIGNALED(status) ||
	    WTERMSIG(status) != SIGSEGV)
		return fail("the child was not killed by SIGSEGV");
	if (kill(child, 0) != -1 || errno != ESRCH)
		return fail("kill(reaped child, 0) did not fail with ESRCH");
	return 0;
}
