/*
 * buf.c - growable byte buffer (see buf.h).
 */
#include "buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void buf_reserve(struct rt_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (need <= b->cap)
		return;
	b->cap = b->cap ? b->cap : 256;
	while (b->cap < need)
		b->cap *= 2;
	b->p = realloc(b->p, b->cap);
	if (!b->p) {
		fprintf(stderr, "ktap: out of memory\n");
		abort();
	}
}

void buf_add(struct rt_buf *b, const char *s, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

void buf_addc(struct rt_buf *b, char c)
{
	buf_reserve(b, 1);
	b->p[b->len++] = c;
}

void buf_adds(struct rt_buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_vprintf(struct rt_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n <= 0)
		return;
	buf_reserve(b, (size_t)n);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void buf_printf(struct rt_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void buf_free(struct rt_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

const char *buf_cstr(struct rt_buf *b)
{
	buf_reserve(b, 0);
	b->p[b->len] = '\0';
	return b->p;
}
