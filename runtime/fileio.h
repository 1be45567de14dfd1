/*
 * fileio.h - whole-file reads: read until EOF (tracefs and /proc files
 * have st_size 0, stdin may be a pipe).  The one file reader of both the
 * compiler (scripts, tapset files, event formats) and the runtime.
 */
#ifndef KTAP_RT_FILEIO_H
#define KTAP_RT_FILEIO_H

#include <stddef.h>

/*
 * The contents of @path as a NUL-terminated malloc'd string (its length
 * in *@lenp when not NULL), or NULL with errno set.
 */
char *fio_read(const char *path, size_t *lenp);

/* The same for the rest of open file @fd, which stays open. */
char *fio_read_fd(int fd, size_t *lenp);

#endif
