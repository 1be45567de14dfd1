/*
 * format.h - SystemTap's printf formats: compiled once, rendered per call.
 *
 * The compiler (lower.c) compiles every printf/sprintf format literal at
 * pass 3, so a bad directive or a wrong argument count/type is a
 * compile-time error at the right column; the runtime only renders.
 * The compiled form lives in memory from the caller's allocator (the
 * compiler's arena), so it needs no free function.
 *
 * Syntax (stap's, see printf(3stap)): %[flags][width][.precision]conv
 *   flags  - + 0 # space;  width/precision: digits or '*' (one long arg)
 *   conv   d i u x X o s c p b m M %
 * Long conversions take a long; s, m and M take a string (ktap has no
 * kernel memory to read from user space: %m prints a string's bytes and
 * %M their hex, precision bounding the byte count).  %b writes the raw
 * bytes of a long (width 1, 2, 4 or 8, default 8, host byte order).
 */
#ifndef KTAP_RT_FORMAT_H
#define KTAP_RT_FORMAT_H

#include <stddef.h>

#include "buf.h"
#include "value.h"

struct fmt_spec;

/* Where a format problem is, for the compiler's diagnostic. */
struct fmt_error {
	size_t offset;		/* byte offset in the format string */
	char msg[128];
};

typedef void *(*fmt_alloc_fn)(void *ctx, size_t size);

/*
 * Compile the @len bytes of @s.  NULL with @err filled on a bad format
 * ("invalid conversion '%y'", "incomplete format specifier at end").
 * All memory comes from @alloc(@actx, ...).
 */
struct fmt_spec *fmt_compile(const char *s, size_t len, fmt_alloc_fn alloc,
			     void *actx, struct fmt_error *err);

/* Number of arguments the format consumes ('*' counts one). */
unsigned fmt_nargs(const struct fmt_spec *f);
/* RT_LONG or RT_STRING: the type argument @i must have. */
enum rt_type fmt_arg_type(const struct fmt_spec *f, unsigned i);
/* Argument @i is the value of a %m or %M: the bytes its precision says
   (1 when none), or 0 when a '*' argument gives them; -1: it is not. */
int fmt_arg_memory(const struct fmt_spec *f, unsigned i);

/* %p directives as stap printed them before 1.3 (--compatible=1.2). */
void fmt_old_pointers(struct fmt_spec *f);

/*
 * Append the formatted text to @out.  @args must match fmt_nargs and
 * fmt_arg_type (the compiler checked).  Returns 0.
 */
int fmt_render(struct rt_buf *out, const struct fmt_spec *f,
	       const struct rt_value *args, unsigned nargs);

#endif
