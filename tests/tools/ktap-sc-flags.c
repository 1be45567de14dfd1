/*
 * ktap-sc-flags.c - system calls with known flag, command and number
 * arguments, for the decoders of tapset/aux_syscalls_flags.stp behind
 * stap's argstr (tests/harness/syscall-flags.sh).
 *
 *   ktap-sc-flags PATH
 *
 * Raw syscall(2) calls between two getppid(2) calls (the markers), in
 * this order, with stap's argstr of each (ADDR an address):
 *   openat(PATH, O_RDWR) = 3 (not a decoder's)
 *   dup3(2, 10, O_CLOEXEC)                     2, 10, O_CLOEXEC
 *   flock(3, LOCK_SH|LOCK_NB), flock(3, LOCK_UN)
 *   fadvise64(3, 0, 0, POSIX_FADV_SEQUENTIAL)
 *   sync_file_range(3, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE)
 *   preadv2(3, iov, 1, 0, RWF_HIPRI)           3, ADDR, 1, 0x0, RWF_HIPRI
 *   mmap of one page; madvise(ADDR, 4096, MADV_DONTNEED);
 *   msync(ADDR, 4096, MS_SYNC|MS_INVALIDATE)   ..., MS_INVALIDATE|MS_SYNC
 *   getpriority(PRIO_PROCESS, 0), getpriority(PRIO_USER, 0)
 *   ioprio_get(IOPRIO_WHO_PROCESS, 0)
 *   getrusage(RUSAGE_CHILDREN, &ru)
 *   waitid(P_ALL, 0, &info, WNOHANG|WEXITED, NULL) (no child: ECHILD)
 *   socket(AF_UNIX, SOCK_STREAM, 0) = 4; shutdown(4, SHUT_WR) (ENOTCONN)
 *   timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK|TFD_CLOEXEC) = 5
 *   memfd_create("ktap", MFD_CLOEXEC|MFD_ALLOW_SEALING) = 6
 *   getrandom(buf, 16, GRND_NONBLOCK)
 *   membarrier(MEMBARRIER_CMD_QUERY, 0)
 *   umount2("/nonexistent/ktap", MNT_DETACH) (fails)
 *   semget(IPC_PRIVATE, 1, IPC_CREAT|0600), removed after the markers
 * Descriptors from 3 up are closed first (close_range).  PATH must
 * exist.  Exit status 0 when every call that must succeed did.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int failed;

/* A call that must succeed: report it and fail the run otherwise. */
static long must(const char *what, long r)
{
	if (r < 0) {
		perror(what);
		failed = 1;
	}
	return r;
}

/* The calls on PATH's descriptor (3). */
static void sc_file(const char *path)
{
	char b[8];
	struct iovec iov = { b, sizeof(b) };

	if (must("openat", syscall(SYS_openat, AT_FDCWD, path, O_RDWR)) != 3)
		failed = 1;
	must("dup3", syscall(SYS_dup3, 2, 10, O_CLOEXEC));
	syscall(SYS_close, 10);
	must("flock", syscall(SYS_flock, 3, LOCK_SH | LOCK_NB));
	must("flock", syscall(SYS_flock, 3, LOCK_UN));
	must("fadvise64", syscall(SYS_fadvise64, 3, 0, 0, POSIX_FADV_SEQUENTIAL));
	must("sync_file_range", syscall(SYS_sync_file_range, 3, 0, 0,
					SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE));
	syscall(SYS_preadv2, 3, &iov, 1, 0, 0, RWF_HIPRI);	/* may be EOPNOTSUPP */
}

static void sc_memory(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		failed = 1;
		return;
	}
	must("madvise", syscall(SYS_madvise, p, 4096, MADV_DONTNEED));
	must("msync", syscall(SYS_msync, p, 4096, MS_SYNC | MS_INVALIDATE));
	munmap(p, 4096);
}

static void sc_process(void)
{
	struct rusage ru;
	siginfo_t info;

	syscall(SYS_getpriority, PRIO_PROCESS, 0);
	syscall(SYS_getpriority, PRIO_USER, 0);
	must("ioprio_get", syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, 0));
	must("getrusage", syscall(SYS_getrusage, RUSAGE_CHILDREN, &ru));
	syscall(SYS_waitid, P_ALL, 0, &info, WNOHANG | WEXITED, NULL);	/* ECHILD */
}

static void sc_others(void)
{
	char buf[16] = "";	/* stap shows it as a string: "" with kprobes */

	if (must("socket", syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0)) != 4)
		failed = 1;
	syscall(SYS_shutdown, 4, SHUT_WR);	/* ENOTCONN */
	must("timerfd_create", syscall(SYS_timerfd_create, CLOCK_MONOTONIC,
				       TFD_NONBLOCK | TFD_CLOEXEC));
	must("memfd_create", syscall(SYS_memfd_create, "ktap", MFD_CLOEXEC | MFD_ALLOW_SEALING));
	must("getrandom", syscall(SYS_getrandom, buf, sizeof(buf), GRND_NONBLOCK));
	syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0);
	syscall(SYS_umount2, "/nonexistent/ktap", MNT_DETACH);	/* fails */
}

int main(int argc, char **argv)
{
	long sem;

	if (argc != 2) {
		fprintf(stderr, "usage: ktap-sc-flags PATH\n");
		return 2;
	}
	syscall(SYS_close_range, 3, ~0U, 0);
	syscall(SYS_getppid);
	sc_file(argv[1]);
	sc_memory();
	sc_process();
	sc_others();
	sem = must("semget", syscall(SYS_semget, IPC_PRIVATE, 1, IPC_CREAT | 0600));
	syscall(SYS_getppid);
	if (sem >= 0)
		syscall(SYS_semctl, sem, 0, IPC_RMID, 0);
	return failed;
}
