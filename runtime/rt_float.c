/*
 * rt_float.c - pass 5: stap's floating-point tapset (floatingpoint.stp)
 * as builtins.  The script language has only 64-bit integers, so stap
 * carries a double in a long: its IEEE 754 bits.  long_to_fp(),
 * string_to_fp() and fp32_to_fp64() make such values, fp_add() ...
 * fp_sqrt() compute on them, fp_eq()/fp_lt()/fp_le() compare them,
 * fp_to_long() and fp_to_string() turn them back into a number or text.
 *
 * stap computes with a software floating-point library in its module;
 * ktap computes in user space with the machine's doubles (the same
 * IEEE 754 results: the operations are correctly rounded either way).
 */
#include "rt_float.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum rtf_id {
#define BI(id, name, ret, args, flags) RTF_##id,
#include "builtins.def"
#undef BI
};

bool rt_float_is_builtin(unsigned id)
{
	return id >= RTF_FP_ADD && id <= RTF_FP32_TO_FP64;
}

static double rtf_d(int64_t bits)
{
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

static struct rt_value rtf_bits(double d)
{
	int64_t bits;

	memcpy(&bits, &d, sizeof(bits));
	return rt_long(bits);
}

/* fp32_to_fp64(): the low 32 bits as a float. */
static struct rt_value rtf_from_f32(int64_t v)
{
	uint32_t bits = (uint32_t)v;
	float f;

	memcpy(&f, &bits, sizeof(f));
	return rtf_bits((double)f);
}

/*
 * fp_to_long(@x, @mode, @exact): @mode as stap's (softfloat's) rounding
 * modes: 0 nearest even, 1 toward zero, 2 down, 3 up, 4 nearest with
 * ties away from zero, 6 toward zero then odd when inexact.  With
 * @exact, an inexact result is an error (softfloat's inexact exception).
 */
static enum rt_status rtf_to_long(struct rt_ctx *c, double x, int64_t mode, int64_t exact,
				  struct rt_value *ret)
{
	double r;

	switch (mode) {
	case 0: r = nearbyint(x); break;	/* the default mode: ties to even */
	case 1: case 6: r = trunc(x); break;
	case 2: r = floor(x); break;
	case 3: r = ceil(x); break;
	case 4: r = round(x); break;
	default:
		return rt_error(c, 0, "fp_to_long: rounding mode %lld is not 0-4 or 6",
				(long long)mode);
	}
	if (isnan(r) || r >= 9223372036854775808.0 || r < -9223372036854775808.0)
		return rt_error(c, 0, "fp_to_long: %g does not fit in a long", x);
	if (exact && r != x)
		return rt_error(c, 0, "fp_to_long: %.17g is not an integer (inexact)", x);
	*ret = rt_long((int64_t)r);
	if (mode == 6 && r != x && !(ret->l & 1))	/* odd: away from zero */
		ret->l += x > 0 ? 1 : -1;
	return RT_OK;
}

/* fp_to_string(@x, @precision): @precision digits after the point. */
static enum rt_status rtf_to_string(struct rt_ctx *c, double x, int64_t precision,
				    struct rt_value *ret)
{
	char buf[512];
	int n;

	if (precision < 0 || precision > 100)
		return rt_error(c, 0, "fp_to_string: precision %lld is not 0-100",
				(long long)precision);
	n = snprintf(buf, sizeof(buf), "%.*f", (int)precision, x);
	*ret = rt_scratch_str(c, buf, n > 0 && (size_t)n < sizeof(buf) ? (size_t)n : 0);
	return RT_OK;
}

/* string_to_fp(@s): a decimal number, all of @s. */
static enum rt_status rtf_from_string(struct rt_ctx *c, struct rt_value s,
				      struct rt_value *ret)
{
	char buf[128], *end;
	double d;

	if (s.len == 0 || s.len >= sizeof(buf))
		return rt_error(c, 0, "string_to_fp: \"%.*s\" is not a number", (int)s.len, s.s);
	memcpy(buf, s.s, s.len);
	buf[s.len] = '\0';
	d = strtod(buf, &end);
	if (*end || end == buf)
		return rt_error(c, 0, "string_to_fp: \"%s\" is not a number", buf);
	*ret = rtf_bits(d);
	return RT_OK;
}

enum rt_status rt_float_builtin(struct rt_ctx *c, unsigned id, struct rt_value *a,
				unsigned n, struct rt_value *ret)
{
	double x = n > 0 ? rtf_d(a[0].l) : 0, y = n > 1 ? rtf_d(a[1].l) : 0;

	switch (id) {
	case RTF_FP_ADD: *ret = rtf_bits(x + y); break;
	case RTF_FP_SUB: *ret = rtf_bits(x - y); break;
	case RTF_FP_MUL: *ret = rtf_bits(x * y); break;
	case RTF_FP_DIV: *ret = rtf_bits(x / y); break;
	case RTF_FP_REM: *ret = rtf_bits(remainder(x, y)); break;
	case RTF_FP_SQRT: *ret = rtf_bits(sqrt(x)); break;
	case RTF_FP_EQ: *ret = rt_long(x == y); break;
	case RTF_FP_LT: *ret = rt_long(x < y); break;
	case RTF_FP_LE: *ret = rt_long(x <= y); break;
	case RTF_FP_TO_LONG: return rtf_to_long(c, x, a[1].l, a[2].l, ret);
	case RTF_FP_TO_STRING: return rtf_to_string(c, x, a[1].l, ret);
	case RTF_STRING_TO_FP: return rtf_from_string(c, a[0], ret);
	case RTF_LONG_TO_FP: *ret = rtf_bits((double)a[0].l); break;
	default: *ret = rtf_from_f32(a[0].l); break;
	}
	return RT_OK;
}
