/*
 * run_input.h - pass 5: stap's input.char and input.line, on ktap's
 * standard input.
 */
#ifndef KTAP_RT_RUN_INPUT_H
#define KTAP_RT_RUN_INPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "interp.h"

struct run_input {
	bool open;		/* the plan has input probes and stdin is not at EOF */
	char *line;		/* input.line: the line so far */
	size_t len, cap;
};

/* @in for @p: open when it has input.char or input.line probes. */
void run_input_init(struct run_input *in, const struct ir_prog *p);

/* The descriptor to poll (0), or -1 when there is nothing to read. */
int run_input_fd(const struct run_input *in);

/*
 * Read what stdin has and run the input probes of @c's program on it:
 * each byte runs the input.char probes (char: that byte) and, at a
 * newline, the input.line probes (line: the line with its newline, at
 * most MAXSTRINGLEN-1 bytes of it), in the script's order.  EOF or an
 * error closes the input (stap's session goes on).
 */
void run_input_read(struct run_input *in, struct rt_ctx *c);

void run_input_free(struct run_input *in);

#endif
