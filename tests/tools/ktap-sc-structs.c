/*
 * ktap-sc-structs.c - system calls taking structs in user memory with
 * known contents, for the syscall tapset's struct decoders
 * (tapset/aux_syscalls_structs.stp: tests/harness/syscalls.sh here,
 * where they show as addresses, tests/vm/guest-structs.sh in the VM,
 * where the kernel fetches them).
 *
 *   ktap-sc-structs PATH
 *
 * Raw syscall(2) calls between getppid(2) calls (the markers), in
 * this order (what stap's argstr of each is):
 *   nanosleep({0, 1000000}, NULL)             [0.001000000], 0x0
 *   nanosleep(NULL, NULL) = -EFAULT           NULL, 0x0
 *   clock_nanosleep(CLOCK_MONOTONIC, 0, {0, 2000}, NULL)
 *   select(0, NULL, NULL, NULL, {0, 1500})    ..., [0.001500]
 *   pselect6(0, NULL, NULL, NULL, {0, 2500}, NULL)
 *   ppoll(NULL, 0, {0, 3000}, NULL, 8)
 *   rt_sigaction(SIGUSR1, {0x1234, SA_RESTART|SA_RESTORER, 0x5678,
 *                [SIGINT|SIGTERM]}, NULL, 8), then SIG_DFL back
 *   rt_sigaction(SIGUSR2, {SIG_IGN}, NULL, 8), then SIG_DFL back
 *   rt_sigprocmask(SIG_BLOCK, [SIGUSR1], NULL, 8), then SIG_UNBLOCK
 *   socket(AF_INET, SOCK_DGRAM, 0) = 3; connect(3, 127.0.0.1:9, 16)
 *   sendto(3, "x", 1, 0, 127.0.0.1:9, 16)
 *   socket(AF_INET6, SOCK_DGRAM, 0) = 4; connect(4, [::1]:9, 28)
 *   socket(AF_UNIX, SOCK_STREAM, 0) = 5; connect(5, "/nonexistent/ktap.sock", 110)
 *   socket(AF_INET, SOCK_DGRAM, 0) = 6; bind(6, 127.0.0.1:0, 16)
 *   futex(&w, FUTEX_WAIT, 1, {0, 1000}) (w is 0: EAGAIN at once)
 *   futex(&w, FUTEX_WAKE_OP, 1, 1, &w2, FUTEX_OP(SET, 1, CMP_GT, 0))
 *   setitimer(ITIMER_VIRTUAL, {{1, 500}, {0, 0}}, NULL) (disarms)
 *   setrlimit(RLIMIT_CORE, {0, 0})
 *   prlimit64(0, RLIMIT_NOFILE, NULL, &old)
 *   utimensat(AT_FDCWD, PATH, {{0, UTIME_OMIT}, {0, UTIME_NOW}}, 0)
 *   timerfd_create(CLOCK_MONOTONIC, 0) = 7;
 *   timerfd_settime(7, TFD_TIMER_ABSTIME, {{0, 0}, {0, 0}}, NULL)
 *   newfstatat(7, "", &st, AT_EMPTY_PATH)     an empty user string
 * then a second getppid(2), then these, with the structs a call writes
 * filled first (stap decodes them at the entry), then a third getppid(2):
 *   sigaltstack({&stack, 0, 65536}, NULL); sigaltstack(NULL, &old);
 *   sigaltstack({NULL, SS_DISABLE, 0}, NULL)
 *   sched_getattr(0, {48, 0, 0, -5, 0, 1, 2, 3}, 48, 0)
 *   sched_setattr(0, {48, SCHED_OTHER, 0, 0, 0, 0, 0, 0}, 0) (no check:
 *                                             may be refused; nice 0)
 *   rt_sigprocmask(SIG_BLOCK, [SIGUSR1|SIGUSR2], NULL, 8)
 *   rt_sigqueueinfo(getpid(), SIGUSR1, {SIGUSR1, SI_QUEUE, pid 1234, uid 5678})
 *   rt_tgsigqueueinfo(getpid(), gettid(), SIGUSR2,
 *                     {SIGUSR2, SI_TIMER, tid 0x10, overrun -1})
 *   rt_sigtimedwait([SIGUSR1], {SIGCHLD, CLD_EXITED, pid 1, uid 2,
 *                   status 3}, {0, 0}, 8) = SIGUSR1
 *   rt_sigtimedwait([SIGUSR2], {SIGSEGV, SEGV_MAPERR, addr 0x1000},
 *                   {0, 0}, 8) = SIGUSR2
 *   rt_sigprocmask(SIG_UNBLOCK, [SIGUSR1|SIGUSR2], NULL, 8)
 *   times({1, 2, 3, 4})
 *   sysinfo({5, [1, 2, 3], 4, 5, 6, 7, 8, 9, procs 10})
 *   adjtimex({modes 0, offset 5, freq 3, maxerror 4, esterror 2,
 *            status 7, constant 1, precision 6, tolerance 9, tick 8})
 *                                             modes 0: reads only
 *   clock_adjtime(CLOCK_REALTIME, the same) (no check: may be refused)
 *   setxattr(PATH, "user.ktap", "val\0", 4, XATTR_CREATE),
 *   lsetxattr(PATH, "user.ktap", "\001ab", 3, 0),
 *   fsetxattr(-1, "user.ktap", 60 digits "0123456789..." , 60,
 *             XATTR_REPLACE) (no checks: tmpfs may lack user xattrs)
 *   io_getevents(0, 0, 0, NULL, {0, 4000}) = -EINVAL
 * Descriptors from 3 up are closed first (close_range).  PATH must
 * exist.  Exit status 0 when every call did what is listed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/sysinfo.h>
#include <sys/timex.h>
#include <sys/times.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

/* The kernel's struct sigaction of rt_sigaction(2) on x86_64. */
struct k_sigaction {
	unsigned long handler, flags, restorer, mask;
};

#define K_SA_RESTORER 0x04000000UL

static int failed;

static void check(const char *what, long got, long want)
{
	if (got != want) {
		fprintf(stderr, "ktap-sc-structs: %s = %ld, not %ld\n", what, got, want);
		failed = 1;
	}
}

static void sc_times(void)
{
	struct timespec ts = { 0, 1000000 };
	struct timeval tv = { 0, 1500 };

	check("nanosleep", syscall(SYS_nanosleep, &ts, NULL), 0);
	check("nanosleep NULL", syscall(SYS_nanosleep, NULL, NULL), -1);
	ts.tv_nsec = 2000;
	check("clock_nanosleep", syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL), 0);
	check("select", syscall(SYS_select, 0, NULL, NULL, NULL, &tv), 0);
	ts.tv_nsec = 2500;
	check("pselect6", syscall(SYS_pselect6, 0, NULL, NULL, NULL, &ts, NULL), 0);
	ts.tv_nsec = 3000;
	check("ppoll", syscall(SYS_ppoll, NULL, 0, &ts, NULL, 8), 0);
}

static void sc_signals(void)
{
	struct k_sigaction act = { 0x1234, SA_RESTART | K_SA_RESTORER, 0x5678,
				   (1UL << (SIGINT - 1)) | (1UL << (SIGTERM - 1)) };
	struct k_sigaction dfl = { 0, 0, 0, 0 }, ign = { 1, 0, 0, 0 };
	unsigned long set = 1UL << (SIGUSR1 - 1);

	check("rt_sigaction USR1", syscall(SYS_rt_sigaction, SIGUSR1, &act, NULL, 8), 0);
	check("rt_sigaction USR1 back", syscall(SYS_rt_sigaction, SIGUSR1, &dfl, NULL, 8), 0);
	check("rt_sigaction USR2", syscall(SYS_rt_sigaction, SIGUSR2, &ign, NULL, 8), 0);
	check("rt_sigaction USR2 back", syscall(SYS_rt_sigaction, SIGUSR2, &dfl, NULL, 8), 0);
	check("rt_sigprocmask", syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, 8), 0);
	check("rt_sigprocmask back", syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &set, NULL, 8), 0);
}

static void sc_sockets(void)
{
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(9) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6, .sin6_port = htons(9) };
	struct sockaddr_un un = { .sun_family = AF_UNIX };

	in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	in6.sin6_addr = in6addr_loopback;
	strcpy(un.sun_path, "/nonexistent/ktap.sock");
	check("socket 4", syscall(SYS_socket, AF_INET, SOCK_DGRAM, 0), 3);
	check("connect 4", syscall(SYS_connect, 3, &in, sizeof(in)), 0);
	check("sendto", syscall(SYS_sendto, 3, "x", 1, 0, &in, sizeof(in)), 1);
	check("socket 6", syscall(SYS_socket, AF_INET6, SOCK_DGRAM, 0), 4);
	syscall(SYS_connect, 4, &in6, sizeof(in6));	/* ::1 may be down: no check */
	check("socket unix", syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0), 5);
	check("connect unix", syscall(SYS_connect, 5, &un, sizeof(un)), -1);
	check("socket 4b", syscall(SYS_socket, AF_INET, SOCK_DGRAM, 0), 6);
	in.sin_port = 0;
	check("bind", syscall(SYS_bind, 6, &in, sizeof(in)), 0);
}

static void sc_others(const char *path)
{
	static int w, w2;
	struct timespec ts = { 0, 1000 };
	struct timespec tms[2] = { { 0, UTIME_OMIT }, { 0, UTIME_NOW } };
	struct itimerval itv = { { 1, 500 }, { 0, 0 } };
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };
	struct rlimit rl = { 0, 0 }, old;
	struct stat st;

	check("futex wait", syscall(SYS_futex, &w, FUTEX_WAIT, 1, &ts, NULL, 0), -1);
	check("futex wake_op", syscall(SYS_futex, &w, FUTEX_WAKE_OP, 1, 1, &w2,
					FUTEX_OP(FUTEX_OP_SET, 1, FUTEX_OP_CMP_GT, 0)), 0);
	check("setitimer", syscall(SYS_setitimer, ITIMER_VIRTUAL, &itv, NULL), 0);
	check("setrlimit", syscall(SYS_setrlimit, RLIMIT_CORE, &rl), 0);
	check("prlimit64", syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &old), 0);
	check("utimensat", syscall(SYS_utimensat, AT_FDCWD, path, tms, 0), 0);
	check("timerfd_create", syscall(SYS_timerfd_create, CLOCK_MONOTONIC, 0), 7);
	check("timerfd_settime", syscall(SYS_timerfd_settime, 7, TFD_TIMER_ABSTIME, &its, NULL), 0);
	check("newfstatat", syscall(SYS_newfstatat, 7, "", &st, AT_EMPTY_PATH), 0);
}

/* The kernel's struct sched_attr (SCHED_ATTR_SIZE_VER0: 48 bytes). */
struct k_sched_attr {
	unsigned int size, policy;
	unsigned long long flags;
	int nice;
	unsigned int priority;
	unsigned long long runtime, deadline, period;
};

static void sc_stacks_sched(void)
{
	static char stack[65536];
	stack_t ss = { .ss_sp = stack, .ss_flags = 0, .ss_size = sizeof(stack) }, old;
	stack_t off = { .ss_sp = NULL, .ss_flags = SS_DISABLE, .ss_size = 0 };
	struct k_sched_attr ga = { 48, 0, 0, -5, 0, 1, 2, 3 }, sa = { 48, 0, 0, 0, 0, 0, 0, 0 };

	check("sigaltstack", syscall(SYS_sigaltstack, &ss, NULL), 0);
	check("sigaltstack old", syscall(SYS_sigaltstack, NULL, &old), 0);
	check("sigaltstack off", syscall(SYS_sigaltstack, &off, NULL), 0);
	check("sched_getattr", syscall(SYS_sched_getattr, 0, &ga, 48, 0), 0);
	syscall(SYS_sched_setattr, 0, &sa, 0);
}

static void sc_siginfo(void)
{
	unsigned long set = (1UL << (SIGUSR1 - 1)) | (1UL << (SIGUSR2 - 1));
	unsigned long one = 1UL << (SIGUSR1 - 1), two = 1UL << (SIGUSR2 - 1);
	struct timespec zero = { 0, 0 };
	siginfo_t q, t, w1, w2;

	memset(&q, 0, sizeof(q));
	q.si_signo = SIGUSR1;
	q.si_code = SI_QUEUE;
	q.si_pid = 1234;
	q.si_uid = 5678;
	memset(&t, 0, sizeof(t));
	t.si_signo = SIGUSR2;
	t.si_code = SI_TIMER;
	((int *)&t)[4] = 0x10;		/* si_tid */
	((int *)&t)[5] = -1;		/* si_overrun */
	memset(&w1, 0, sizeof(w1));
	w1.si_signo = SIGCHLD;
	w1.si_code = CLD_EXITED;
	w1.si_pid = 1;
	w1.si_uid = 2;
	w1.si_status = 3;
	memset(&w2, 0, sizeof(w2));
	w2.si_signo = SIGSEGV;
	w2.si_code = SEGV_MAPERR;
	w2.si_addr = (void *)0x1000;
	check("rt_sigprocmask block", syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, 8), 0);
	check("rt_sigqueueinfo", syscall(SYS_rt_sigqueueinfo, getpid(), SIGUSR1, &q), 0);
	check("rt_tgsigqueueinfo", syscall(SYS_rt_tgsigqueueinfo, getpid(), syscall(SYS_gettid),
					   SIGUSR2, &t), 0);
	check("rt_sigtimedwait 1", syscall(SYS_rt_sigtimedwait, &one, &w1, &zero, 8), SIGUSR1);
	check("rt_sigtimedwait 2", syscall(SYS_rt_sigtimedwait, &two, &w2, &zero, 8), SIGUSR2);
	check("rt_sigprocmask unblock", syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &set, NULL, 8), 0);
}

/* Known values in a struct timex of modes 0 (adjtimex only reads then). */
static void fill_timex(struct timex *tx)
{
	memset(tx, 0, sizeof(*tx));
	tx->offset = 5;
	tx->freq = 3;
	tx->maxerror = 4;
	tx->esterror = 2;
	tx->status = 7;
	tx->constant = 1;
	tx->precision = 6;
	tx->tolerance = 9;
	tx->tick = 8;
}

static void sc_reads(const char *path)
{
	struct tms tm = { 1, 2, 3, 4 };
	struct sysinfo si;
	struct timex tx;
	struct timespec ts = { 0, 4000 };
	char digits[61];
	int i;

	memset(&si, 0, sizeof(si));
	si.uptime = 5;
	si.loads[0] = 1;
	si.loads[1] = 2;
	si.loads[2] = 3;
	si.totalram = 4;
	si.freeram = 5;
	si.sharedram = 6;
	si.bufferram = 7;
	si.totalswap = 8;
	si.freeswap = 9;
	si.procs = 10;
	fill_timex(&tx);
	for (i = 0; i < 60; i++)
		digits[i] = (char)('0' + i % 10);
	digits[60] = 0;
	check("times", syscall(SYS_times, &tm) == -1, 0);
	check("sysinfo", syscall(SYS_sysinfo, &si), 0);
	check("adjtimex", syscall(SYS_adjtimex, &tx) < 0, 0);
	fill_timex(&tx);
	syscall(SYS_clock_adjtime, CLOCK_REALTIME, &tx);
	syscall(SYS_setxattr, path, "user.ktap", "val", 4, XATTR_CREATE);
	syscall(SYS_lsetxattr, path, "user.ktap", "\001ab", 3, 0);
	syscall(SYS_fsetxattr, -1, "user.ktap", digits, 60, XATTR_REPLACE);
	check("io_getevents", syscall(SYS_io_getevents, 0, 0, 0, NULL, &ts), -1);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: ktap-sc-structs PATH\n");
		return 2;
	}
	syscall(SYS_close_range, 3, ~0U, 0);
	syscall(SYS_getppid);
	sc_times();
	sc_signals();
	sc_sockets();
	sc_others(argv[1]);
	syscall(SYS_getppid);
	sc_stacks_sched();
	sc_siginfo();
	sc_reads(argv[1]);
	syscall(SYS_getppid);
	return failed;
}
