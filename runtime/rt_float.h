/*
 * rt_float.h - pass 5: stap's floating-point builtins (fp_add() ...
 * string_to_fp()) on IEEE 754 doubles whose bits a long carries.
 * rt_builtins.c dispatches to it.
 */
#ifndef KTAP_RT_FLOAT_H
#define KTAP_RT_FLOAT_H

#include "rt_ctx.h"

/* Is builtin @id one of this file's? */
bool rt_float_is_builtin(unsigned id);

/* Run builtin @id on its @n @args into *ret. */
enum rt_status rt_float_builtin(struct rt_ctx *c, unsigned id, struct rt_value *args,
				unsigned n, struct rt_value *ret);

#endif
