/*
 * ktap-nfsproc.c - a known sequence of file operations on an NFS mount,
 * for the nfs.proc.* checks (tests/vm/guest-nfs-proc.sh).
 *
 *   ktap-nfsproc DIR NAME N
 *
 * In DIR (the mount), with umask 0:
 *   stat(DIR/NAME)                      a file made on the server: LOOKUP
 *   mknod(DIR/ktap-np-c, S_IFREG|0640)  the client's CREATE
 *   open it O_WRONLY, write N bytes ('k'), sync_file_range(WRITE|
 *   WAIT_AFTER) (an UNSTABLE WRITE: no fsync's FILE_SYNC), fsync (its
 *   COMMIT), close
 *   open it O_RDONLY|O_DIRECT, read N bytes (a READ past the page
 *   cache), close
 *   rename(DIR/ktap-np-c, DIR/ktap-np-d)
 *   unlink(DIR/ktap-np-d)
 * Exit status 0 when every call did what is listed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static char buf[65536] __attribute__((aligned(4096)));

static int fail(const char *what)
{
	perror(what);
	return 1;
}

int main(int argc, char **argv)
{
	char named[4096], c[4096], d[4096];
	struct stat st;
	long n;
	int fd;

	if (argc != 4 || (n = atol(argv[3])) <= 0 || n > (long)sizeof(buf)) {
		fprintf(stderr, "usage: ktap-nfsproc DIR NAME N (N at most %zu)\n", sizeof(buf));
		return 2;
	}
	snprintf(named, sizeof(named), "%s/%s", argv[1], argv[2]);
	snprintf(c, sizeof(c), "%s/ktap-np-c", argv[1]);
	snprintf(d, sizeof(d), "%s/ktap-np-d", argv[1]);
	umask(0);
	if (stat(named, &st) != 0)
		return fail(named);
	if (mknod(c, S_IFREG | 0640, makedev(0, 0)) != 0)
		return fail("mknod");
	fd = open(c, O_WRONLY);
	if (fd < 0)
		return fail("open for writing");
	memset(buf, 'k', (size_t)n);
	if (write(fd, buf, (size_t)n) != n)
		return fail("write");
	if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) != 0)
		return fail("sync_file_range");
	if (fsync(fd) != 0 || close(fd) != 0)
		return fail("fsync, close");
	fd = open(c, O_RDONLY | O_DIRECT);
	if (fd < 0)
		return fail("open for reading");
	if (read(fd, buf, (size_t)n) != n)
		return fail("read");
	if (close(fd) != 0)
		return fail("close");
	if (rename(c, d) != 0)
		return fail("rename");
	if (unlink(d) != 0)
		return fail("unlink");
	return 0;
}
