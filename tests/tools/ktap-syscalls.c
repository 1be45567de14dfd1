/*
 * ktap-syscalls.c - a known sequence of system calls, for the syscall
 * probe tests (tests/harness/syscalls.sh, tests/vm/guest-ktap.sh).
 *
 *   ktap-syscalls PATH
 *
 * Between two getppid(2) calls (the markers) it makes exactly:
 *   openat(AT_FDCWD, PATH, O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0640) = fd
 *   write(fd, "ktap\n", 5) = 5
 *   close(fd) = 0
 *   close(-1) = -EBADF
 *   openat(AT_FDCWD, "/nonexistent/ktap", O_RDONLY) = -ENOENT
 *   kill(0, 0) = 0
 * Raw syscall(2) calls, so libc adds or caches nothing.  Descriptors
 * from 3 up are closed first (close_range), so fd is 3.  Exit status 0 when every call
 * did what is listed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long fd, w, c1, c2, e2, o2, e3, k;

	if (argc != 2) {
		fprintf(stderr, "usage: ktap-syscalls PATH\n");
		return 2;
	}
	syscall(SYS_close_range, 3, ~0U, 0);
	syscall(SYS_getppid);
	fd = syscall(SYS_openat, AT_FDCWD, argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		     0640);
	w = syscall(SYS_write, fd, "ktap\n", 5);
	c1 = syscall(SYS_close, fd);
	c2 = syscall(SYS_close, -1);
	e2 = errno;
	o2 = syscall(SYS_openat, AT_FDCWD, "/nonexistent/ktap", O_RDONLY);
	e3 = errno;
	k = syscall(SYS_kill, 0, 0);
	syscall(SYS_getppid);
	return fd >= 0 && w == 5 && c1 == 0 && c2 == -1 && e2 == EBADF && o2 == -1 &&
	       e3 == ENOENT && k == 0 ? 0 : 1;
}
