/*
 * token.c - token vectors and token names (see token.h).
 */
#include "token.h"
#include "arena.h"

#include <stdio.h>
#include <string.h>

static const struct {
	const char *name;
	unsigned len;
	enum tok_class cls;
} tok_info[] = {
#define TOK(name, spelling, cls) { spelling, sizeof(spelling) - 1, cls },
#include "token.def"
#undef TOK
};

void tok_push(struct arena *a, struct tok_vec *vec, const struct token *t)
{
	vec->v = arena_grow(a, vec->v, vec->n, &vec->cap, sizeof(*vec->v));
	vec->v[vec->n++] = *t;
}

const char *tok_kind_name(enum tok_kind k)
{
	return k < TOK__COUNT ? tok_info[k].name : "?";
}

enum tok_class tok_kind_class(enum tok_kind k)
{
	return k < TOK__COUNT ? tok_info[k].cls : TC_SPECIAL;
}

enum tok_kind tok_keyword(const char *s, unsigned n)
{
	unsigned k;

	/* Every identifier comes through here: compare lengths and first
	   bytes before anything else. */
	if (n < 2 || n > 15)
		return TOK_EOF;
	for (k = 0; k < TOK__COUNT; k++) {
		if (tok_info[k].len != n || tok_info[k].name[0] != s[0] ||
		    (tok_info[k].cls != TC_KW && tok_info[k].cls != TC_AT))
			continue;
		if (memcmp(tok_info[k].name, s, n) == 0)
			return (enum tok_kind)k;
	}
	if (n == 7 && memcmp(s, "@define", 7) == 0)
		return TOK_AT_DEFINE;
	return TOK_EOF;
}

/* Copy at most 24 printable characters of @s, C-escaped, into @out. */
static void tok_snippet(const char *s, unsigned len, char *out, unsigned size)
{
	unsigned i, o = 0;

	for (i = 0; i < len && o + 5 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		if (i == 24) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		if (c == '\n' || c == '\t' || c == '"' || c == '\\') {
			out[o++] = '\\';
			out[o++] = c == '\n' ? 'n' : c == '\t' ? 't' : (char)c;
		} else if (c < 32 || c >= 127) {
			o += (unsigned)snprintf(out + o, size - o, "\\x%02x", c);
		} else {
			out[o++] = (char)c;
		}
	}
	out[o] = '\0';
}

const char *tok_describe(const struct token *t, char *buf, unsigned size)
{
	char snip[64];

	switch (t->kind) {
	case TOK_IDENT:
		snprintf(buf, size, "identifier '%.*s'", (int)t->len, t->text);
		break;
	case TOK_PPNAME:
		snprintf(buf, size, "'%.*s'", (int)t->len, t->text);
		break;
	case TOK_TARGET:
	case TOK_AT_MACRO:
		snprintf(buf, size, "'%.*s'", (int)t->len, t->text);
		break;
	case TOK_NUMBER:
		snprintf(buf, size, "number %.*s", (int)t->len, t->text);
		break;
	case TOK_STRING:
		tok_snippet(t->text, t->len, snip, sizeof(snip));
		snprintf(buf, size, "string \"%s\"", snip);
		break;
	default:
		if (tok_kind_class(t->kind) == TC_KW ||
		    tok_kind_class(t->kind) == TC_AT)
			snprintf(buf, size, "'%s'", tok_kind_name(t->kind));
		else
			snprintf(buf, size, "%s", tok_kind_name(t->kind));
		break;
	}
	return buf;
}
