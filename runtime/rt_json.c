/*
 * rt_json.c - pass 5: --format json (doc/json.md).  The script's output
 * and the run's warnings and errors as JSON Lines, one object per line,
 * encoded by json-c; the text renderings stay where they are and this
 * file only wraps or re-renders through the same walks (store.h's
 * st_print_globals() and st_hist_each()).
 *
 * JSON strings are UTF-8: bytes that are not valid UTF-8 (a script can
 * print any byte) become U+FFFD, so every line parses.
 */
#include "rt_ctx.h"
#include "store.h"

#include <inttypes.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at @s (@n bytes left), 0: invalid. */
static size_t rj_utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* A JSON string of @len bytes of @s, invalid UTF-8 replaced. */
static json_object *rj_str(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	struct rt_buf b = { 0 };
	json_object *o;
	size_t i = 0, n;

	while (i < len && (n = rj_utf8_len(u + i, len - i)) != 0)
		i += n;
	if (i == len)
		return json_object_new_string_len(s, (int)len);
	buf_add(&b, s, i);
	while (i < len) {
		n = rj_utf8_len(u + i, len - i);
		if (n)
			buf_add(&b, s + i, n);
		else
			buf_adds(&b, "\xef\xbf\xbd");
		i += n ? n : 1;
	}
	o = json_object_new_string_len(b.p, (int)b.len);
	buf_free(&b);
	return o;
}

static json_object *rj_value(struct rt_value v)
{
	if (v.type == RT_STRING)
		return rj_str(v.s, v.len);
	return json_object_new_int64(v.l);
}

/* A new object {"type": @type}. */
static json_object *rj_new(const char *type)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "type", json_object_new_string(type));
	return o;
}

static void rj_add(json_object *o, const char *key, json_object *v)
{
	json_object_object_add(o, key, v);
}

/* Append @o as one line to @out and free it. */
static void rj_emit(json_object *o, struct rt_buf *out)
{
	buf_adds(out, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						     JSON_C_TO_STRING_NOSLASHESCAPE));
	buf_addc(out, '\n');
	json_object_put(o);
}

void rt_out_chunk(struct rt_ctx *c, size_t mark)
{
	json_object *o;

	if (!c->json || c->out.len <= mark)
		return;
	o = rj_new("printf");
	rj_add(o, "data", rj_str(c->out.p + mark, c->out.len - mark));
	c->out.len = mark;
	rj_emit(o, &c->out);
}

/* "file", "line", "col" and "near" of @l (none: nothing). */
static void rj_loc(json_object *o, const struct ir_loc *l)
{
	if (!l || !l->file)
		return;
	rj_add(o, "file", json_object_new_string(l->file));
	rj_add(o, "line", json_object_new_int64(l->line));
	rj_add(o, "col", json_object_new_int64(l->col));
	if (l->near)
		rj_add(o, "near", json_object_new_string(l->near));
}

void rt_report(struct rt_ctx *c, enum rt_report_kind kind, const struct ir_loc *l,
	       const char *fmt, ...)
{
	const char *word = kind == RT_REPORT_ERROR ? "ERROR" : "WARNING";
	char msg[1024];
	json_object *o;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!c->json) {
		rt_flush(c);
		if (l && l->near)
			fprintf(stderr, "%s: %s near %s at %s:%u:%u\n", word, msg, l->near,
				l->file, l->line, l->col);
		else
			fprintf(stderr, "%s: %s\n", word, msg);
		return;
	}
	o = rj_new(kind == RT_REPORT_ERROR ? "error" : "warning");
	rj_add(o, "message", json_object_new_string(msg));
	rj_loc(o, l && l->near ? l : NULL);
	rj_emit(o, &c->out);
}

void rt_lost(struct rt_ctx *c, const char *what, const char *probe, uint64_t count)
{
	json_object *o;

	if (!c->json) {
		rt_flush(c);
		if (probe)
			fprintf(stderr, "WARNING: Skipped due to missed %s on '%s': %" PRIu64 "\n",
				what, probe, count);
		else
			fprintf(stderr, "WARNING: %" PRIu64 " %s lost\n", count, what);
		return;
	}
	o = rj_new("lost");
	rj_add(o, "what", json_object_new_string(what));
	if (probe)
		rj_add(o, "probe", json_object_new_string(probe));
	rj_add(o, "count", json_object_new_int64((int64_t)count));
	rj_emit(o, &c->out);
}

/* ---- the store: globals at exit, histograms ---- */

struct rj_globals {
	struct rt_buf *out;
	json_object *array;	/* the array being printed, or NULL */
};

static json_object *rj_keys(const struct rt_value *keys, unsigned nkeys)
{
	json_object *a = json_object_new_array();
	unsigned k;

	for (k = 0; k < nkeys; k++)
		json_object_array_add(a, rj_value(keys[k]));
	return a;
}

/* A scalar's or an array element's object: name or key first. */
static json_object *rj_item(struct rj_globals *g, const char *type, const char *name,
			    const struct rt_value *keys, unsigned nkeys)
{
	json_object *o;

	if (keys) {
		o = json_object_new_object();
		rj_add(o, "key", rj_keys(keys, nkeys));
		json_object_array_add(g->array, o);
		return o;
	}
	o = rj_new(type);
	rj_add(o, "name", json_object_new_string(name));
	return o;
}

static void rj_gl_value(void *arg, const char *name, const struct rt_value *keys,
			unsigned nkeys, struct rt_value v)
{
	json_object *o = rj_item(arg, "scalar", name, keys, nkeys);

	rj_add(o, "value", rj_value(v));
	if (!keys)
		rj_emit(o, ((struct rj_globals *)arg)->out);
}

static void rj_stat_fields(json_object *o, const struct st_values *sv)
{
	rj_add(o, "count", json_object_new_int64(sv->count));
	if (!sv->count)
		return;
	rj_add(o, "sum", json_object_new_int64(sv->sum));
	rj_add(o, "min", json_object_new_int64(sv->min));
	rj_add(o, "max", json_object_new_int64(sv->max));
	rj_add(o, "avg", json_object_new_int64(sv->avg));
}

static void rj_gl_stat(void *arg, const char *name, const struct rt_value *keys,
		       unsigned nkeys, const struct st_values *sv)
{
	json_object *o = rj_item(arg, "stat", name, keys, nkeys);

	rj_stat_fields(o, sv);
	if (!keys)
		rj_emit(o, ((struct rj_globals *)arg)->out);
}

static void rj_gl_array(void *arg, const char *name, bool end)
{
	struct rj_globals *g = arg;
	json_object *o;

	if (end) {
		o = rj_new("array");
		rj_add(o, "name", json_object_new_string(name));
		rj_add(o, "data", g->array);
		rj_emit(o, g->out);
		g->array = NULL;
		return;
	}
	g->array = json_object_new_array();
}

void rt_json_globals(struct rt_ctx *c)
{
	struct rj_globals g = { &c->out, NULL };
	struct st_printer p = { rj_gl_value, rj_gl_stat, rj_gl_array, &g };

	st_print_globals(c->store, &p);
}

static void rj_bucket(void *arg, const struct st_bucket *b)
{
	json_object *o = json_object_new_object();

	if (b->has_min)
		rj_add(o, "min", json_object_new_int64(b->min));
	if (b->has_max)
		rj_add(o, "max", json_object_new_int64(b->max));
	rj_add(o, "count", json_object_new_int64(b->count));
	json_object_array_add(arg, o);
}

void rt_json_hist(struct rt_ctx *c, unsigned g, const struct rt_value *keys)
{
	const struct ir_global *ig = &c->prog->globals[g];
	json_object *o = rj_new("hist"), *data = json_object_new_array();

	rj_add(o, "name", json_object_new_string(ig->name));
	if (keys)
		rj_add(o, "key", rj_keys(keys, ig->nkeys));
	rj_add(o, "kind", json_object_new_string(ig->hist_log ? "log" : "linear"));
	st_hist_each(c->store, g, keys, rj_bucket, data);
	rj_add(o, "data", data);
	rj_emit(o, &c->out);
}
