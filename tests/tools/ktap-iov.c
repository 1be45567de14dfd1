/*
 * ktap-iov.c - a known writev(2) and readv(2), for the vfs.writev and
 * vfs.readv checks (tests/vm/guest-vfs2.sh); busybox makes neither.
 *
 *   ktap-iov FILE
 *
 * Creates FILE (truncated), writev()s 3 segments of 3, 5 and 2 bytes
 * ("abc" "defgh" "ij": 10 bytes), closes it, opens it again and
 * readv()s it into 2 segments of 4 and 16 bytes (20 asked, 10 read).
 * Exit status 0 when every call did that.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char a[4], b[16], s1[] = "abc", s2[] = "defgh", s3[] = "ij";
	struct iovec w[3] = { { s1, 3 }, { s2, 5 }, { s3, 2 } };
	struct iovec r[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: ktap-iov FILE\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || writev(fd, w, 3) != 10 || close(fd) != 0) {
		perror("writev");
		return 1;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || readv(fd, r, 2) != 10 || close(fd) != 0 ||
	    memcmp(a, "abcd", 4) != 0 || memcmp(b, "efghij", 6) != 0) {
		perror("readv");
		return 1;
	}
	return 0;
}
