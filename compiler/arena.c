/*
 * arena.c - bump allocator (see arena.h).
 *
 * Blocks of at least 64 KiB are chained; a request larger than a block
 * gets a block of its own.  Nothing is freed individually.
 */
#include "arena.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK (64 * 1024)
#define ARENA_ALIGN 16

struct arena_block {
	struct arena_block *next;
	size_t size;
	size_t used;
	/* Flexible payload, aligned by the union trick below. */
	union {
		max_align_t align;
		unsigned char bytes[1];
	} data[];
};

struct arena {
	struct arena_block *head;
	size_t total;
};

static void oom(size_t n)
{
	fprintf(stderr, "ktap: out of memory (allocating %zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		oom(n);
	return q;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

struct arena *arena_new(void)
{
	return xcalloc(1, sizeof(struct arena));
}

void arena_free(struct arena *a)
{
	struct arena_block *b, *next;

	if (!a)
		return;
	for (b = a->head; b; b = next) {
		next = b->next;
		free(b);
	}
	free(a);
}

static struct arena_block *arena_add_block(struct arena *a, size_t need)
{
	size_t size = need > ARENA_BLOCK ? need : ARENA_BLOCK;
	struct arena_block *b = xmalloc(sizeof(*b) + size);

	b->size = size;
	b->used = 0;
	b->next = a->head;
	a->head = b;
	return b;
}

/* @n bytes, not cleared. */
static void *arena_alloc_raw(struct arena *a, size_t n)
{
	struct arena_block *b = a->head;
	size_t rounded = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
	void *p;

	if (rounded == 0)
		rounded = ARENA_ALIGN;
	if (!b || b->size - b->used < rounded)
		b = arena_add_block(a, rounded);
	p = (unsigned char *)b->data + b->used;
	b->used += rounded;
	a->total += rounded;
	return p;
}

void *arena_alloc(struct arena *a, size_t n)
{
	return memset(arena_alloc_raw(a, n), 0, n);
}

void *arena_alloc_cb(void *a, size_t n)
{
	return arena_alloc(a, n);
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc_raw(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_vprintf(struct arena *a, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;
	char *p;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		n = 0;
	p = arena_alloc(a, (size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = arena_vprintf(a, fmt, ap);
	va_end(ap);
	return p;
}

void *arena_grow(struct arena *a, void *old, size_t n, size_t *cap,
		 size_t size)
{
	void *p;

	if (old && n < *cap)
		return old;
	*cap = *cap ? *cap * 2 : 8;
	if (*cap <= n)
		*cap = n + 1;
	/* Only the copied part is defined; callers fill the rest. */
	p = arena_alloc_raw(a, *cap * size);
	if (old && n)
		memcpy(p, old, n * size);
	return p;
}

size_t arena_used(const struct arena *a)
{
	return a->total;
}
