/*
 * arena.h - bump allocator for everything one compilation owns.
 *
 * The AST, tokens, interned names and pass-2 types live in one arena per
 * compilation and are released together by arena_free().  Allocation never
 * returns NULL: running out of memory while compiling a script is not a
 * condition the compiler can recover from, so xmalloc-style helpers print a
 * message and abort (as Lua's allocator "throws").
 */
#ifndef KTAP_ARENA_H
#define KTAP_ARENA_H

#include <stdarg.h>
#include <stddef.h>

struct arena;

/* A new, empty arena.  Free with arena_free(). */
struct arena *arena_new(void);

/* Release every block of @a (NULL is a no-op). */
void arena_free(struct arena *a);

/* @n zeroed bytes, aligned for any type, valid until arena_free(). */
void *arena_alloc(struct arena *a, size_t n);
/* The same, the arena as a void * (@a): the shape of the allocator
   callbacks fmt_compile() and the like take. */
void *arena_alloc_cb(void *a, size_t n);

/* Copies of strings, NUL-terminated, owned by the arena. */
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
char *arena_vprintf(struct arena *a, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/*
 * Grow an arena-owned array: returns a copy of @old (@n elements of @size
 * bytes) with room for at least @n + 1 elements.  Growth is geometric, so
 * appending in a loop stays linear; @cap tracks the capacity.
 */
void *arena_grow(struct arena *a, void *old, size_t n, size_t *cap,
		 size_t size);

/* Bytes handed out so far (for -v statistics and the benchmarks). */
size_t arena_used(const struct arena *a);

/* malloc/calloc/realloc/strdup that abort with a message on failure. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#endif
