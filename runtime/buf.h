/*
 * buf.h - a growable byte buffer, for output and string building.
 */
#ifndef KTAP_RT_BUF_H
#define KTAP_RT_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct rt_buf {
	char *p;
	size_t len;
	size_t cap;
};

/* Append @n bytes of @s. */
void buf_add(struct rt_buf *b, const char *s, size_t n);
void buf_addc(struct rt_buf *b, char c);
void buf_adds(struct rt_buf *b, const char *s);
void buf_printf(struct rt_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void buf_vprintf(struct rt_buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Forget the contents, keep the storage. */
static inline void buf_reset(struct rt_buf *b) { b->len = 0; }
/* Free the storage (the struct itself is the caller's). */
void buf_free(struct rt_buf *b);
/* NUL-terminate (not counted in len) and return the bytes. */
const char *buf_cstr(struct rt_buf *b);

#endif
