/*
 * sema_point.c - pass 2: facts about probe points that every probe-point
 * family needs (sema_probe.c resolves points, sema_syscall.c turns
 * syscall probes into kprobes): a point's canonical text, where the user
 * wrote it, and whether this kernel's tracefs has a control file.
 *
 * In: an AST probe point, or a tracefs file name.  Out: text in the
 * pass's arena, or a yes/no.  A leaf: calls no other sema_*.c file.
 */
#include "sema_int.h"
#include "arena.h"
#include "diag.h"
#include "resolve_tpfmt.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* @p as -p1 prints it (the pp() text of a resolved point). */
const char *sema_point_text(struct sema_ctx *c, const struct ast_ppoint *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const char *s;

	if (!f)
		return "?";
	ast_print_ppoint(f, p);
	fclose(f);
	s = arena_strdup(c->arena, buf ? buf : "");
	free(buf);
	return s;
}

/* "FILE:L:C: POINT" of point @p, for messages at run time. */
const char *sema_point_origin(struct sema_ctx *c, const struct ast_ppoint *p)
{
	const struct src_file *f = src_file(c->diag->src, p->span.file);
	char where[32];

	return arena_printf(c->arena, "%s:%s: %s", f ? f->name : "?",
			    diag_where(c->diag, p->span, where, sizeof(where)),
			    sema_point_text(c, p));
}

/*
 * Whether the kernel (or the fixture directory standing for it) has the
 * tracefs control file @file, e.g. "kprobe_events".  An optional point
 * ('?', '!') whose dynamic events this kernel cannot create does not
 * resolve, so a tapset alias can fall back to a tracepoint; a plain
 * point still resolves (its -p3 plan prints anywhere) and the kernel's
 * refusal is reported at run time.
 */
bool sema_point_kernel_has(const char *file)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tpf_dir(), file);
	return access(path, F_OK) == 0;
}
