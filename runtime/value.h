/*
 * value.h - the values a ktap handler computes with.
 *
 * SystemTap has two scalar types, 64-bit signed long and string, plus
 * statistics aggregates that only live in globals.  A value is a small
 * tagged struct passed by value.  Strings are (pointer, length) views:
 * who owns the bytes depends on where the value lives (a handler's
 * scratch arena, an array entry, a constant pool); code that keeps a
 * string beyond the current handler run copies it.
 *
 * This header belongs to the runtime (pass 5); the compiler may include
 * it, the runtime never includes compiler headers.
 */
#ifndef KTAP_RT_VALUE_H
#define KTAP_RT_VALUE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/*
 * stap's MAXSTRINGLEN default.  stap keeps strings in char[MAXSTRINGLEN]
 * buffers with their NUL, so a string value holds at most MAXSTRINGLEN-1
 * bytes; longer ones are cut (rt_clip).
 */
#define RT_MAXSTRINGLEN 512

enum rt_type {
	RT_LONG = 1,
	RT_STRING = 2,
	RT_STATS = 3,		/* only as an array's value type */
};

struct rt_value {
	enum rt_type type;
	uint32_t len;		/* RT_STRING: bytes, excluding any NUL */
	union {
		int64_t l;
		const char *s;	/* RT_STRING: not necessarily NUL-terminated */
	};
};

static inline struct rt_value rt_long(int64_t l)
{
	struct rt_value v = { .type = RT_LONG, .len = 0, .l = l };

	return v;
}

static inline struct rt_value rt_str(const char *s, uint32_t len)
{
	struct rt_value v = { .type = RT_STRING, .len = len, .s = s };

	return v;
}

static inline struct rt_value rt_cstr(const char *s)
{
	return rt_str(s, (uint32_t)strlen(s));
}

/* @v cut to at most @max bytes if it is a string (a view: no copy). */
static inline struct rt_value rt_clip(struct rt_value v, uint32_t max)
{
	if (v.type == RT_STRING && v.len > max)
		v.len = max;
	return v;
}

/* The longest string value under MAXSTRINGLEN @maxstringlen. */
static inline uint32_t rt_strmax(unsigned maxstringlen)
{
	return maxstringlen ? maxstringlen - 1 : 0;
}

#endif
