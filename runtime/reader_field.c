/*
 * reader_field.c - the fields of a record (see reader.h): a field of an
 * event by name, as libtraceevent describes the event's format ("NAME",
 * one element "NAME[N]", all of an array's bytes "NAME[]"), and its value
 * in a record, in the record's byte order.
 */
#include "reader.h"
#include "reader_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

/* How libtraceevent's flags and type map to a field kind. */
static void rdr_field_kind(struct rdr_field *f, const struct tep_format_field *tf)
{
	bool chars = (tf->flags & TEP_FIELD_IS_STRING) || strstr(tf->type, "char");

	f->is_signed = tf->flags & TEP_FIELD_IS_SIGNED;
	f->dynamic = tf->flags & TEP_FIELD_IS_DYNAMIC;
	f->relative = tf->flags & TEP_FIELD_IS_RELATIVE;
	f->elem = tf->elementsize ? tf->elementsize : 1;
	if (f->dynamic || (tf->flags & TEP_FIELD_IS_ARRAY)) {
		f->type = chars ? RDR_F_STR : RDR_F_ARRAY;
		if (chars)
			f->elem = 1;
	} else if (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) {
		f->type = RDR_F_NUM;
		f->elem = f->size;
	} else {
		f->type = RDR_F_ARRAY;	/* odd-sized: bytes */
		f->elem = 1;
	}
	if (f->elem != 1 && f->elem != 2 && f->elem != 4 && f->elem != 8)
		f->elem = 1;
}

/*
 * "NAME[N]": element N of array field NAME, an integer of the array's
 * element size (the compiler asks for one only of a fixed array of
 * integers: sema_target.c's tg_element); 0, or -1 when it is not one.
 */
static int rdr_element(struct rdr_field *f, struct tep_event *ev, const char *name)
{
	const char *br = strchr(name, '[');
	struct tep_format_field *tf;
	char base[128];
	unsigned long n;
	char *end;

	if (!br || (size_t)(br - name) >= sizeof(base))
		return -1;
	memcpy(base, name, (size_t)(br - name));
	base[br - name] = 0;
	n = strtoul(br + 1, &end, 10);
	tf = tep_find_any_field(ev, base);
	if (!tf || strcmp(end, "]") != 0 || tf->offset < 0 || !(tf->flags & TEP_FIELD_IS_ARRAY) ||
	    (tf->flags & TEP_FIELD_IS_DYNAMIC) || tf->arraylen <= 0 || n >= (unsigned)tf->arraylen ||
	    tf->size % tf->arraylen)
		return -1;
	f->size = (unsigned)(tf->size / tf->arraylen);
	if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
		return -1;
	f->offset = (unsigned)tf->offset + (unsigned)n * f->size;
	f->elem = f->size;
	f->type = RDR_F_NUM;
	f->is_signed = tf->flags & TEP_FIELD_IS_SIGNED;
	return 0;
}

/*
 * "NAME[]" (@n: NAME's length): all the bytes of the fixed array field
 * NAME as one string, zero bytes too (the compiler's byte buffers,
 * sema_buffer.c); 0, or -1 when there is no such field.
 */
static int rdr_bytes(struct rdr_field *f, struct tep_event *ev, const char *name, size_t n)
{
	struct tep_format_field *tf;
	char base[128];

	if (n >= sizeof(base))
		return -1;
	memcpy(base, name, n);
	base[n] = 0;
	tf = tep_find_any_field(ev, base);
	if (!tf || tf->offset < 0 || tf->size <= 0 || (tf->flags & TEP_FIELD_IS_DYNAMIC))
		return -1;
	f->offset = (unsigned)tf->offset;
	f->size = (unsigned)tf->size;
	f->elem = 1;
	f->type = RDR_F_STR;
	f->raw = true;
	return 0;
}

/* The companion NAME_z of string field @name of event @index, if the
   event has one (a kprobe's user string: rdr_field_faulted()). */
static struct rdr_field *rdr_first_byte(struct rdr *r, unsigned index, const char *name)
{
	char zname[64];
	const struct rdr_field *z;

	if ((size_t)snprintf(zname, sizeof(zname), "%s_z", name) >= sizeof(zname) ||
	    !tep_find_any_field(r->events[index], zname))
		return NULL;
	z = rdr_field(r, index, zname);
	return z && z->type == RDR_F_NUM && z->size == 1 ? (struct rdr_field *)z : NULL;
}

const struct rdr_field *rdr_field(struct rdr *r, unsigned index, const char *name)
{
	struct tep_format_field *tf;
	struct rdr_field *f;
	size_t n;

	if (index >= r->nevents) {
		errno = EINVAL;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		errno = ENOMEM;
		return NULL;
	}
	f->swap = r->swap;
	n = strlen(name);
	if (n > 2 && !strcmp(name + n - 2, "[]")) {
		if (rdr_bytes(f, r->events[index], name, n - 2) != 0)
			goto none;
	} else if (strchr(name, '[')) {
		if (rdr_element(f, r->events[index], name) != 0)
			goto none;
	} else {
		tf = tep_find_any_field(r->events[index], name);
		if (!tf || tf->offset < 0 || tf->size <= 0)
			goto none;
		f->offset = (unsigned)tf->offset;
		f->size = (unsigned)tf->size;
		rdr_field_kind(f, tf);
	}
	f->next = r->fields;
	r->fields = f;
	if (f->type == RDR_F_STR && f->dynamic)
		f->first_byte = rdr_first_byte(r, index, name);
	return f;
none:
	free(f);
	errno = ENOENT;
	return NULL;
}

enum rdr_ftype rdr_field_type(const struct rdr_field *f)
{
	return f->type;
}

/* Where the field's bytes are in @rec: *@len bytes at the result, or NULL. */
static const char *rdr_field_bytes(const struct rdr_field *f,
				   const struct rdr_record *rec, uint32_t *len)
{
	const char *base = rec->data;
	uint32_t loc, off, n;

	if (rec->size < 0 || f->offset + f->size > (unsigned)rec->size)
		return NULL;
	if (!f->dynamic) {
		*len = f->size;
		return base + f->offset;
	}
	loc = (uint32_t)rdr_get(f->swap, base + f->offset, 4);
	off = loc & 0xffff;
	n = loc >> 16;
	if (f->relative)
		off += f->offset + f->size;
	if (off + n > (uint32_t)rec->size)
		return NULL;
	*len = n;
	return base + off;
}

/* Element @i (of f->elem bytes) of the bytes at @p (@len long) as a number. */
static int64_t rdr_elem_at(const struct rdr_field *f, const char *p, uint32_t len,
			   unsigned i)
{
	uint64_t v;

	if (!p || (uint64_t)(i + 1) * f->elem > len)
		return 0;
	v = rdr_get(f->swap, p + (size_t)i * f->elem, f->elem);
	return f->is_signed ? rdr_sext(v, f->elem) : (int64_t)v;
}

int64_t rdr_field_num(const struct rdr_field *f, const struct rdr_record *rec)
{
	const char *p;
	uint32_t len;
	uint64_t v;

	if (f->type == RDR_F_NUM) {
		if (f->offset + f->size > (unsigned)rec->size)
			return 0;
		v = rdr_get(f->swap, (const char *)rec->data + f->offset, f->size);
		return f->is_signed ? rdr_sext(v, f->size) : (int64_t)v;
	}
	p = rdr_field_bytes(f, rec, &len);
	return rdr_elem_at(f, p, len, 0);
}

uint32_t rdr_field_str(const struct rdr_field *f, const struct rdr_record *rec,
		       const char **s)
{
	const char *p;
	uint32_t len;

	*s = "";
	if (f->type == RDR_F_NUM)
		return 0;
	p = rdr_field_bytes(f, rec, &len);
	if (!p)
		return 0;
	*s = p;
	return f->raw ? len : (uint32_t)strnlen(p, len);
}

bool rdr_field_faulted(const struct rdr_field *f, const struct rdr_record *rec)
{
	uint32_t len;

	/* a copied string has its NUL at least: the kernel stores a
	   fetch argument's string it could not read with length 0, and
	   before Linux 6.5 an empty user string too, whose first byte
	   (read beside it) is then 0; a number it could not read stays
	   what the buffer held, rarely 0 */
	if (f->type != RDR_F_STR || !f->dynamic || !rdr_field_bytes(f, rec, &len) || len != 0)
		return false;
	return !f->first_byte || rdr_field_num(f->first_byte, rec) != 0;
}

int64_t rdr_field_elem(const struct rdr_field *f, const struct rdr_record *rec,
		       unsigned i)
{
	const char *p;
	uint32_t len;

	if (f->type == RDR_F_NUM)
		return i == 0 ? rdr_field_num(f, rec) : 0;
	p = rdr_field_bytes(f, rec, &len);
	return rdr_elem_at(f, p, len, i);
}

unsigned rdr_field_count(const struct rdr_field *f, const struct rdr_record *rec)
{
	uint32_t len;

	if (f->type == RDR_F_NUM)
		return 1;
	if (!rdr_field_bytes(f, rec, &len))
		return 0;
	return len / f->elem;
}
