/*
 * source.h - the script text ktap was given, and where things are in it.
 *
 * Every token, AST node and IR instruction carries a struct src_span: a
 * file id and a byte range.  Line and column are computed from a line map
 * only when a diagnostic is printed.  Tokens that come out of a macro
 * expansion also carry an expansion id, so a diagnostic can say which
 * macro invocation produced the code it points at.
 */
#ifndef KTAP_SOURCE_H
#define KTAP_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A byte range [start, end) in file @file; @exp is 0 or an expansion id. */
struct src_span {
	uint32_t file;
	uint32_t start;
	uint32_t end;
	uint32_t exp;
};

struct src_file {
	char *name;		/* as the user named it ("<input>" for -e) */
	char *text;		/* NUL-terminated contents */
	size_t len;
	uint32_t *lines;	/* byte offset of each line start */
	uint32_t nlines;
	bool tapset;		/* came from the tapset library */
};

/* One macro expansion: which macro, invoked where, inside which other. */
struct src_expansion {
	const char *macro;	/* name without '@' (owned by the map) */
	struct src_span call;	/* the invocation; call.exp is the parent */
};

struct src_map {
	struct src_file **files;	/* index 0 is unused: 0 means "none" */
	uint32_t nfiles;
	struct src_expansion *exps;	/* index 0 is unused */
	uint32_t nexps;
	uint32_t expcap;
};

void src_init(struct src_map *m);
/* Free every file and expansion held by @m (not @m itself). */
void src_release(struct src_map *m);

/*
 * Add a file whose contents are @text (@len bytes; copied).  Returns the
 * new file id (>= 1).
 */
uint32_t src_add(struct src_map *m, const char *name, const char *text,
		 size_t len);

/*
 * Read @path and add it.  Returns the file id, or 0 with errno set when
 * the file cannot be read.
 */
uint32_t src_load(struct src_map *m, const char *path);

/* Record an expansion of @macro invoked at @call; returns its id. */
uint32_t src_add_expansion(struct src_map *m, const char *macro,
			   struct src_span call);

const struct src_file *src_file(const struct src_map *m, uint32_t id);

/* 1-based line and column (in bytes) of byte offset @off in file @id. */
void src_linecol(const struct src_map *m, uint32_t id, uint32_t off,
		 unsigned *line, unsigned *col);

/* The text of line @line (1-based) of file @id and its length. */
const char *src_line_text(const struct src_map *m, uint32_t id,
			  unsigned line, size_t *len);

/* A span covering @a through @b (same file assumed; else @a). */
struct src_span src_join(struct src_span a, struct src_span b);

#endif
