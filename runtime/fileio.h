/*
 * fileio.h - whole-file reads for tracefs and /proc files, whose
 * st_size is 0: read until EOF.
 */
#ifndef KTAP_RT_FILEIO_H
#define KTAP_RT_FILEIO_H

#include <stddef.h>

/*
 * The contents of @path as a NUL-terminated malloc'd string (its length
 * in *@lenp when not NULL), or NULL with errno set.
 */
char *fio_read(const char *path, size_t *lenp);

#endif
