/*
 * fileio.c - see fileio.h.
 */
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

char *fio_read_fd(int fd, size_t *lenp)
{
	size_t cap = 4096, len = 0;
	char *buf = NULL, *nb;
	ssize_t n;
	int e;

	for (;;) {
		if (!buf || cap - len < 2048) {
			cap = buf ? cap * 2 : cap;
			if (!(nb = realloc(buf, cap)))
				goto fail;
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
fail:
	e = errno;
	free(buf);
	errno = e;
	return NULL;
}

char *fio_read(const char *path, size_t *lenp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = fio_read_fd(fd, lenp);
	e = errno;
	close(fd);
	errno = e;
	return buf;
}
