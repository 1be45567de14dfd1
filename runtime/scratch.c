/*
 * scratch.c - per-handler bump allocator (see scratch.h).
 */
#include "scratch.h"

#include <stdio.h>
#include <stdlib.h>

#define RT_SCRATCH_BLOCK 65536

struct rt_scratch_block {
	struct rt_scratch_block *next;
	size_t size, used;
	char data[];
};

void *rt_scratch_alloc(struct rt_scratch *s, size_t n)
{
	struct rt_scratch_block *b = s->head;
	void *p;

	n = (n + 7) & ~(size_t)7;
	if (!b || b->size - b->used < n) {
		size_t size = n > RT_SCRATCH_BLOCK ? n : RT_SCRATCH_BLOCK;

		b = malloc(sizeof(*b) + size);
		if (!b) {
			fprintf(stderr, "ktap: out of memory\n");
			abort();
		}
		b->size = size;
		b->used = 0;
		b->next = s->head;
		s->head = b;
	}
	p = b->data + b->used;
	b->used += n;
	s->total += n;
	return p;
}

void rt_scratch_reset(struct rt_scratch *s)
{
	struct rt_scratch_block *b = s->head, *next;

	if (!b)
		return;
	/* Keep the oldest block (the last in the chain). */
	while (b->next) {
		next = b->next;
		free(b);
		b = next;
	}
	b->used = 0;
	s->head = b;
	s->total = 0;
}

void rt_scratch_free(struct rt_scratch *s)
{
	struct rt_scratch_block *b = s->head, *next;

	for (; b; b = next) {
		next = b->next;
		free(b);
	}
	s->head = NULL;
	s->total = 0;
}
