/*
 * rt_ctx.c - pass 5: the services the interpreter and the builtins share
 * (see rt_ctx.h): runtime errors, strings in scratch memory, output.
 */
#include "rt_ctx.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

struct rt_value rt_scratch_str(struct rt_ctx *c, const char *s, size_t len)
{
	char *p = rt_scratch_alloc(&c->scratch, len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return rt_str(p, (uint32_t)len);
}

void rt_flush(struct rt_ctx *c)
{
	if (c->out.len) {
		if (fwrite(c->out.p, 1, c->out.len, c->outf) != c->out.len && !c->out_errno)
			c->out_errno = errno ? errno : EIO;
		buf_reset(&c->out);
	}
	if (fflush(c->outf) != 0 && !c->out_errno)
		c->out_errno = errno ? errno : EIO;
}

enum rt_status rt_error(struct rt_ctx *c, uint32_t loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->errmsg, sizeof(c->errmsg), fmt, ap);
	va_end(ap);
	c->errloc = loc;
	return RT_ERROR;
}

/*
 * The thread the handler runs for.  begin, end and timer probes run in
 * ktap itself (as stap's run in stapio), so they see ktap's own ids.
 */
const struct rt_proc *rt_current(struct rt_ctx *c, struct rt_proc *self)
{
	if (c->ev && c->proc)
		return c->proc(c, c->ev->tid);
	*self = (struct rt_proc){ .tid = getpid(), .tgid = getpid(), .ppid = getppid(),
				  .uid = (int)getuid(), .euid = (int)geteuid(),
				  .gid = (int)getgid(), .egid = (int)getegid(),
				  .comm = "ktap" };
	return self;
}
