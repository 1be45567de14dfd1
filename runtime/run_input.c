/*
 * run_input.c - pass 5: input.char and input.line (stap's procfs
 * "__stdin" aliases): ktap's standard input, read when poll() says it
 * is readable, handed to the probes a byte or a line at a time.
 */
#include "run_input.h"
#include "rt_ctx.h"

#include <stdlib.h>
#include <unistd.h>

static bool ri_has(const struct ir_prog *p, enum ir_probe_kind kind)
{
	unsigned i;

	for (i = 0; i < p->nprobes; i++)
		if (p->probes[i].kind == kind)
			return true;
	return false;
}

void run_input_init(struct run_input *in, const struct ir_prog *p)
{
	*in = (struct run_input){ 0 };
	in->open = ri_has(p, IR_P_INPUT_CHAR) || ri_has(p, IR_P_INPUT_LINE);
}

int run_input_fd(const struct run_input *in)
{
	return in->open ? 0 : -1;
}

/* Run every probe of @kind with @text as its input (exit() stops none
   of the others on this input, as the rest of a record's probes). */
static void ri_run(struct rt_ctx *c, enum ir_probe_kind kind, const char *text, size_t len)
{
	unsigned i;

	c->input = rt_str(text, (uint32_t)len);
	for (i = 0; i < c->prog->nprobes && !c->aborting; i++)
		if (c->prog->probes[i].kind == kind)
			rt_run_probe(c, i, NULL);
	c->input = (struct rt_value){ 0 };
}

/* Keep @ch of a line: at most MAXSTRINGLEN-1 bytes, the rest dropped. */
static void ri_keep(struct run_input *in, const struct rt_ctx *c, char ch)
{
	size_t max = c->strmax ? c->strmax : 511;

	if (in->len >= max)
		return;
	if (in->len == in->cap) {
		size_t cap = in->cap ? in->cap * 2 : 128;
		char *p = realloc(in->line, cap);

		if (!p)
			return;
		in->line = p;
		in->cap = cap;
	}
	in->line[in->len++] = ch;
}

void run_input_read(struct run_input *in, struct rt_ctx *c)
{
	char buf[4096];
	ssize_t n, i;

	n = read(0, buf, sizeof(buf));
	if (n <= 0) {
		in->open = false;
		return;
	}
	for (i = 0; i < n && !c->exiting; i++) {
		ri_run(c, IR_P_INPUT_CHAR, &buf[i], 1);
		ri_keep(in, c, buf[i]);
		if (buf[i] == '\n') {
			ri_run(c, IR_P_INPUT_LINE, in->line, in->len);
			in->len = 0;
		}
	}
}

void run_input_free(struct run_input *in)
{
	free(in->line);
	*in = (struct run_input){ 0 };
}
