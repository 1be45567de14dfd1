/*
 * ktap-nfsio.c - a known sequence of file operations on an NFS mount,
 * for the nfs.fop.* and nfs.aop.* checks (tests/vm/guest-nfs-fop.sh).
 *
 *   ktap-nfsio DIR
 *
 * DIR/ra and DIR/rw must exist, each holding "hello\n" (6 bytes), their
 * dentries cached (stat them first), their pages not.  It makes:
 *   open(DIR/f, O_WRONLY|O_CREAT|O_TRUNC, 0644); write "abc" (3 bytes);
 *   fsync; close
 *   open(DIR/f, O_RDWR); lseek(1, SEEK_SET); read 16 bytes: "bc";
 *   mmap 3 bytes (PROT_READ, MAP_SHARED) at offset 0, read its first
 *   byte ('a'), munmap; fcntl(F_SETLK) a write lock on bytes 0-2, then
 *   F_SETLK F_UNLCK; fcntl(F_SETFL, O_NONBLOCK); close
 *   open(DIR/ra, O_RDONLY); read 16 bytes: "hello\n"; close
 *   open(DIR/rw, O_RDWR); pwrite "J" at offset 1 (the page is read
 *   first: the file is open for reading too); close
 * Exit status 0 when every call did what is listed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static char path[4096];

static const char *in(const char *dir, const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

int main(int argc, char **argv)
{
	struct flock fl;
	char buf[16];
	char *p;
	int fd, bad = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: ktap-nfsio DIR\n");
		return 2;
	}
	fd = open(in(argv[1], "f"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	bad |= fd < 0;
	bad |= write(fd, "abc", 3) != 3;
	bad |= fsync(fd) != 0;
	bad |= close(fd) != 0;

	fd = open(in(argv[1], "f"), O_RDWR);
	bad |= fd < 0;
	bad |= lseek(fd, 1, SEEK_SET) != 1;
	bad |= read(fd, buf, sizeof(buf)) != 2 || memcmp(buf, "bc", 2);
	p = mmap(NULL, 3, PROT_READ, MAP_SHARED, fd, 0);
	bad |= p == MAP_FAILED;
	if (p != MAP_FAILED) {
		bad |= *(volatile char *)p != 'a';
		bad |= munmap(p, 3) != 0;
	}
	memset(&fl, 0, sizeof(fl));
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	fl.l_start = 0;
	fl.l_len = 3;
	bad |= fcntl(fd, F_SETLK, &fl) != 0;
	fl.l_type = F_UNLCK;
	bad |= fcntl(fd, F_SETLK, &fl) != 0;
	bad |= fcntl(fd, F_SETFL, O_NONBLOCK) != 0;
	bad |= close(fd) != 0;

	fd = open(in(argv[1], "ra"), O_RDONLY);
	bad |= fd < 0;
	bad |= read(fd, buf, sizeof(buf)) != 6 || memcmp(buf, "hello\n", 6);
	bad |= close(fd) != 0;

	fd = open(in(argv[1], "rw"), O_RDWR);
	bad |= fd < 0;
	bad |= pwrite(fd, "J", 1, 1) != 1;
	bad |= close(fd) != 0;
	return bad;
}
