/*
 * scratch.h - memory for strings computed while one handler runs.
 *
 * A bump allocator over a chain of blocks.  rt_scratch_reset() after
 * each handler keeps the first block, so steady-state handlers allocate
 * nothing.  Strings that must outlive the handler (globals, array
 * entries) are copied by their owner.
 */
#ifndef KTAP_RT_SCRATCH_H
#define KTAP_RT_SCRATCH_H

#include <stddef.h>

struct rt_scratch_block;

struct rt_scratch {
	struct rt_scratch_block *head;
	size_t total;			/* bytes handed out since the reset */
};

void *rt_scratch_alloc(struct rt_scratch *s, size_t n);
void rt_scratch_reset(struct rt_scratch *s);
void rt_scratch_free(struct rt_scratch *s);

#endif
