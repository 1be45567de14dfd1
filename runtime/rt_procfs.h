/*
 * rt_procfs.h - pass 5: the builtins of builtins.def that read the
 * running process from /proc (cmdline_str(), task_utime(),
 * proc_mem_size() ...), on the shared context of rt_ctx.h.
 * rt_builtins.c dispatches to it.
 */
#ifndef KTAP_RT_PROCFS_H
#define KTAP_RT_PROCFS_H

#include "rt_ctx.h"

/* Is builtin @id one of this file's? */
bool rt_procfs_is_builtin(unsigned id);

/* Run builtin @id on its @n @args into *ret. */
enum rt_status rt_procfs_builtin(struct rt_ctx *c, unsigned id, struct rt_value *args,
				 unsigned n, struct rt_value *ret);

#endif
