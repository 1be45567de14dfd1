/*
 * interp.c - the bytecode interpreter (see interp.h).
 *
 * One C call of vm_exec per function activation (MAXNESTING bounds the
 * depth).  Values live on one value stack; each activation's locals on a
 * locals stack.  A runtime error unwinds activations by returning
 * RT_ERROR until one with an active try/catch takes it, or the handler
 * ends and the error is reported as stap does:
 *   ERROR: division by 0 near operator '/' at f.stp:3:9
 *
 * MAXSTRINGLEN: every string a handler computes (literals, fields,
 * builtins' and sprintf's results, values read from globals) reaches the
 * program through the value stack, so vm_push() is where strings are cut
 * to c->strmax bytes, once for all of them.  Only the writes that skip
 * the stack cut for themselves: concatenation (in place, and into
 * compound assignments) and a catch's message.  Printing a histogram is
 * not a string value in stap and is never cut.
 */
#include "interp.h"
#include "rt_builtins.h"
#include "store.h"
#include "ksym.h"

#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RT_STACK 4096
#define RT_LOCALS 8192
#define RT_MAX_TRY 16

struct vm_try {
	unsigned catch_pc;
	unsigned msg_slot;
	unsigned sp;
};

struct vm_frame {
	const struct ir_code *code;
	struct rt_value *locals;
	unsigned pc;
	struct vm_try tries[RT_MAX_TRY];
	unsigned ntries;
	struct st_iter **iters;	/* iterators opened here, by slot */
	const struct ir_foreach **fes;	/* and what they iterate */
};

static enum rt_status vm_exec(struct rt_ctx *c, const struct ir_code *code,
			      struct rt_value *args, unsigned nargs,
			      struct rt_value *ret);

/* Report an error nobody caught, as stap does, and count it. */
static void vm_report(struct rt_ctx *c)
{
	const struct ir_loc *l = c->errloc < c->prog->nlocs ?
				 &c->prog->locs[c->errloc] : NULL;

	if (c->lim.suppress_errors) {
		c->suppressed++;
		return;
	}
	rt_report(c, RT_REPORT_ERROR, l, "%s", c->errmsg);
	if (++c->errors > c->lim.maxerrors) {
		c->failed = true;
		c->exiting = true;
	}
}

/* ---- helpers for the instruction cases ---- */

static inline struct rt_value *vm_top(struct rt_ctx *c)
{
	return &c->stack[c->sp - 1];
}

static inline void vm_push(struct rt_ctx *c, struct rt_value v)
{
	c->stack[c->sp++] = rt_clip(v, c->strmax);
}

static inline struct rt_value vm_pop(struct rt_ctx *c)
{
	return c->stack[--c->sp];
}

static struct rt_value vm_zero(enum rt_type t)
{
	return t == RT_STRING ? rt_str("", 0) : rt_long(0);
}

/* json: remember which histogram IR_HIST's keys (on the stack at sp)
   name, for print() of its text (rt_builtins.c). */
static void vm_hist_last(struct rt_ctx *c, const struct ir_insn *in)
{
	unsigned k;

	c->hist_last.g = in->a;
	c->hist_last.nkeys = in->n < 9 ? in->n : 9;
	for (k = 0; k < c->hist_last.nkeys; k++)
		c->hist_last.keys[k] = c->stack[c->sp + k];
}

/* @e of an operation on global @g: stap's message for it. */
static enum rt_status vm_store_err(struct rt_ctx *c, enum st_err e, uint32_t loc, unsigned g)
{
	int64_t size = g < c->prog->nglobals ? c->prog->globals[g].maxentries : 0;

	switch (e) {
	case ST_OK: return RT_OK;
	case ST_FULL:	/* an array declared with [N] overflows N */
		if (size > 0)
			return rt_error(c, loc, "Array overflow, check size limit (%" PRId64 ")",
					size);
		return rt_error(c, loc, "Array overflow, check MAXMAPENTRIES");
	case ST_EMPTY:
		return rt_error(c, loc, "empty aggregate");
	case ST_BUSY:
		return rt_error(c, loc, "cannot modify an array while iterating over it");
	}
	return RT_OK;
}

/* l OP r for compound assignments and arithmetic; errors for / and %. */
static enum rt_status vm_arith(struct rt_ctx *c, int sub, int64_t l, int64_t r,
			       int64_t *out, uint32_t loc)
{
	uint64_t ul = (uint64_t)l, ur = (uint64_t)r;

	switch (sub & 0xff) {
	case IR_SUB_ADD: *out = (int64_t)(ul + ur); break;
	case IR_SUB_SUB: *out = (int64_t)(ul - ur); break;
	case IR_SUB_MUL: *out = (int64_t)(ul * ur); break;
	case IR_SUB_DIV:
	case IR_SUB_MOD:
		if (r == 0)
			return rt_error(c, loc, "division by 0");
		if (r == -1)	/* INT64_MIN / -1 overflows in C */
			*out = (sub & 0xff) == IR_SUB_DIV ? (int64_t)(0 - ul) : 0;
		else
			*out = (sub & 0xff) == IR_SUB_DIV ? l / r : l % r;
		break;
	/* stap clamps the count to 0..64: a negative count shifts nothing
	   (its testsuite's arith.stp: 120 << -2 is 120), 64 and more shift
	   every bit out. */
	case IR_SUB_SHL: *out = r < 0 ? l : r > 63 ? 0 : (int64_t)(ul << r); break;
	case IR_SUB_SHR: *out = r < 0 ? l : r > 63 ? (l < 0 ? -1 : 0) : l >> r; break;
	case IR_SUB_USHR: *out = r < 0 ? l : r > 63 ? 0 : (int64_t)(ul >> r); break;
	case IR_SUB_AND: *out = l & r; break;
	case IR_SUB_OR: *out = l | r; break;
	case IR_SUB_XOR: *out = l ^ r; break;
	default: *out = 0; break;
	}
	return RT_OK;
}

static struct rt_value vm_concat(struct rt_ctx *c, struct rt_value a,
				 struct rt_value b)
{
	size_t len = (size_t)a.len + b.len;
	char *p;

	if (len > c->strmax)
		len = c->strmax;
	p = rt_scratch_alloc(&c->scratch, len + 1);
	memcpy(p, a.s, a.len < len ? a.len : len);
	if (a.len < len)
		memcpy(p + a.len, b.s, len - a.len);
	p[len] = '\0';
	return rt_str(p, (uint32_t)len);
}

/*
 * A string read from the store points into it, and a later write to the
 * same element frees it (x = a[k]; a[k] = "..."; print(x)): values that
 * go onto the stack get their own copy in the handler's scratch memory.
 */
static struct rt_value vm_own(struct rt_ctx *c, struct rt_value v)
{
	return v.type == RT_STRING && v.len ? rt_scratch_str(c, v.s, v.len) : v;
}

/* Combine @cur with @v by sub-operation @sub; string ops only concat. */
static enum rt_status vm_combine(struct rt_ctx *c, int sub, struct rt_value cur,
				 struct rt_value v, struct rt_value *out, uint32_t loc)
{
	int64_t r = 0;
	enum rt_status st;

	if ((sub & 0xff) == IR_SUB_CAT) {
		*out = vm_concat(c, cur, v);
		return RT_OK;
	}
	st = vm_arith(c, sub, cur.l, v.l, &r, loc);
	*out = rt_long(r);
	return st;
}

static int vm_strcmp(struct rt_value a, struct rt_value b)
{
	size_t n = a.len < b.len ? a.len : b.len;
	int r = memcmp(a.s, b.s, n);

	if (r)
		return r;
	return a.len < b.len ? -1 : a.len > b.len;
}

/* ---- regular expressions (=~, !~, matched()) ---- */

/*
 * s =~ re and s !~ re.  Like stap, every use replaces the state that
 * matched() and ngroups() read: a failed match makes them errors, and a
 * successful one counts every group of the regex, matched or not.
 */
static enum rt_status vm_match(struct rt_ctx *c, unsigned idx, bool negate,
			       uint32_t loc)
{
	regex_t *re = &((regex_t *)c->regexes)[idx];
	struct rt_value s = vm_pop(c);
	regmatch_t m[RT_MATCH_MAX];
	char *str = rt_scratch_alloc(&c->scratch, s.len + 1);
	int r;
	unsigned i;

	memcpy(str, s.s, s.len);
	str[s.len] = '\0';
	r = regexec(re, str, RT_MATCH_MAX, m, 0);
	c->match_ok = r == 0;
	if (r == 0) {
		free(c->match_str);
		c->match_str = strdup(str);
		c->match_n = re->re_nsub + 1 < RT_MATCH_MAX ? (unsigned)re->re_nsub + 1 :
			     RT_MATCH_MAX;
		for (i = 0; i < c->match_n; i++) {
			c->match_off[2 * i] = (int)m[i].rm_so;
			c->match_off[2 * i + 1] = (int)m[i].rm_eo;
		}
	}
	(void)loc;
	vm_push(c, rt_long((r == 0) != negate));
	return RT_OK;
}

/* ---- instruction groups ---- */

static enum rt_status vm_binop(struct rt_ctx *c, enum ir_op op, uint32_t loc)
{
	struct rt_value r = vm_pop(c), *l = vm_top(c);
	int64_t out = 0;
	enum rt_status st = RT_OK;

	switch (op) {
	case IR_ADD: st = vm_arith(c, IR_SUB_ADD, l->l, r.l, &out, loc); break;
	case IR_SUB: st = vm_arith(c, IR_SUB_SUB, l->l, r.l, &out, loc); break;
	case IR_MUL: st = vm_arith(c, IR_SUB_MUL, l->l, r.l, &out, loc); break;
	case IR_DIV: st = vm_arith(c, IR_SUB_DIV, l->l, r.l, &out, loc); break;
	case IR_MOD: st = vm_arith(c, IR_SUB_MOD, l->l, r.l, &out, loc); break;
	case IR_SHL: st = vm_arith(c, IR_SUB_SHL, l->l, r.l, &out, loc); break;
	case IR_SHR: st = vm_arith(c, IR_SUB_SHR, l->l, r.l, &out, loc); break;
	case IR_USHR: st = vm_arith(c, IR_SUB_USHR, l->l, r.l, &out, loc); break;
	case IR_BAND: out = l->l & r.l; break;
	case IR_BOR: out = l->l | r.l; break;
	case IR_BXOR: out = l->l ^ r.l; break;
	case IR_LT: out = l->l < r.l; break;
	case IR_GT: out = l->l > r.l; break;
	case IR_LE: out = l->l <= r.l; break;
	case IR_GE: out = l->l >= r.l; break;
	case IR_EQ: out = l->l == r.l; break;
	case IR_NE: out = l->l != r.l; break;
	case IR_SLT: out = vm_strcmp(*l, r) < 0; break;
	case IR_SGT: out = vm_strcmp(*l, r) > 0; break;
	case IR_SLE: out = vm_strcmp(*l, r) <= 0; break;
	case IR_SGE: out = vm_strcmp(*l, r) >= 0; break;
	case IR_SEQ: out = vm_strcmp(*l, r) == 0; break;
	case IR_SNE: out = vm_strcmp(*l, r) != 0; break;
	case IR_CAT:
		*l = vm_concat(c, *l, r);
		return RT_OK;
	default: out = 0; break;
	}
	*l = rt_long(out);
	return st;
}

/* AGET/ASET/AOP/AIN/ADEL: the keys are the top @n values (below a value
   for ASET/AOP). */
static enum rt_status vm_array(struct rt_ctx *c, const struct ir_insn *in,
			       uint32_t loc)
{
	struct rt_store *s = c->store;
	struct rt_value v, cur, *keys;
	enum rt_status st = RT_OK;

	switch (in->op) {
	case IR_AGET:
		c->sp -= in->n;
		vm_push(c, vm_own(c, st_aget(s, in->a, &c->stack[c->sp])));
		return RT_OK;
	case IR_ASET:
		v = vm_pop(c);
		c->sp -= in->n;
		st = vm_store_err(c, st_aset(s, in->a, &c->stack[c->sp], v), loc, in->a);
		vm_push(c, v);
		return st;
	case IR_AOP:
		v = vm_pop(c);
		c->sp -= in->n;
		keys = &c->stack[c->sp];
		if ((st = vm_store_err(c, st_aref(s, in->a, keys, &cur), loc, in->a)) != RT_OK)
			return st;
		if ((st = vm_combine(c, in->b, cur, v, &v, loc)) != RT_OK)
			return st;
		st = vm_store_err(c, st_aset(s, in->a, keys, v), loc, in->a);
		vm_push(c, (in->b & IR_SUB_OLD) ? cur : v);
		return st;
	case IR_AIN:
		c->sp -= in->n;
		vm_push(c, rt_long(st_ain(s, in->a, &c->stack[c->sp], (uint32_t)in->b)));
		return RT_OK;
	case IR_ADEL:
		c->sp -= in->n;
		return vm_store_err(c, st_adel(s, in->a, &c->stack[c->sp], (uint32_t)in->b), loc, in->a);
	case IR_ACLEAR:
		if (c->hist_clear)	/* kept in a kernel hist: ':clear' it too */
			c->hist_clear(c, in->a);
		return vm_store_err(c, st_aclear(s, in->a), loc, in->a);
	default:
		return RT_OK;
	}
}

static enum rt_status vm_stats(struct rt_ctx *c, const struct ir_insn *in,
			       uint32_t loc)
{
	struct rt_store *s = c->store;
	struct rt_value v;
	int64_t out = 0;
	enum rt_status st;
	struct rt_buf b = { 0 };

	switch (in->op) {
	case IR_SADD:
	case IR_ASADD:
		v = vm_pop(c);
		c->sp -= in->n;
		st = vm_store_err(c, st_stat_add(s, in->a, in->op == IR_ASADD ?
						 &c->stack[c->sp] : NULL, v.l), loc, in->a);
		vm_push(c, v);
		return st;
	case IR_SGET:
	case IR_ASGET:
		c->sp -= in->n;
		st = vm_store_err(c, st_stat_get(s, in->a, in->n ? &c->stack[c->sp] : NULL,
						 (enum ir_stat)in->b, &out), loc, in->a);
		vm_push(c, rt_long(out));
		return st;
	case IR_HIST:
		c->sp -= in->n;
		/* stap: printing the histogram of nothing is an error. */
		st_stat_get(s, in->a, in->n ? &c->stack[c->sp] : NULL, IR_STAT_COUNT, &out);
		if (out == 0) {
			vm_push(c, rt_str("", 0));
			return rt_error(c, loc, "empty aggregate");
		}
		st_hist_text(s, in->a, in->n ? &c->stack[c->sp] : NULL,
			     (enum ir_hist)in->b, &b);
		vm_hist_last(c, in);
		/* Not through vm_push: a histogram is never cut. */
		c->stack[c->sp++] = rt_scratch_str(c, b.p ? b.p : "", b.len);
		c->hist_last.s = c->stack[c->sp - 1].s;
		buf_free(&b);
		return RT_OK;
	case IR_HBUCKET:	/* a bucket of nothing is an error too (stap) */
		v = vm_pop(c);
		c->sp -= in->n;
		st_stat_get(s, in->a, in->n ? &c->stack[c->sp] : NULL, IR_STAT_COUNT, &out);
		vm_push(c, rt_long(out ? st_hist_bucket(s, in->a, in->n ? &c->stack[c->sp] : NULL,
							(enum ir_hist)in->b, v.l) : 0));
		return out ? RT_OK : rt_error(c, loc, "empty aggregate");
	default:
		return RT_OK;
	}
}

/* FEINIT: take the slice keys and the limit off the stack. */
static void vm_feinit(struct rt_ctx *c, struct vm_frame *f, const struct ir_insn *in)
{
	const struct ir_foreach *fe = &c->prog->foreachs[in->b];
	int64_t limit = -1;
	const struct rt_value *slice = NULL, *hk = NULL;
	unsigned nslice = fe->has_slice ? c->prog->globals[fe->global].nkeys : 0;

	if (fe->has_limit)
		limit = vm_pop(c).l;
	c->sp -= nslice;
	if (nslice)
		slice = &c->stack[c->sp];
	if (fe->hist && c->prog->globals[fe->global].is_array) {
		c->sp -= c->prog->globals[fe->global].nkeys;
		hk = &c->stack[c->sp];
	}
	if (f->iters[in->a])
		st_iter_free(f->iters[in->a]);
	f->iters[in->a] = st_iter_new(c->store, fe, slice, limit, hk);
	f->fes[in->a] = fe;
}

/* FENEXT: push the next entry's keys and value, or jump when done. */
static bool vm_fenext(struct rt_ctx *c, struct vm_frame *f, const struct ir_insn *in)
{
	const struct ir_foreach *fe = f->fes[in->a];
	struct rt_value keys[9], value;
	unsigned i;

	if (!f->iters[in->a] || !st_iter_next(f->iters[in->a], keys, &value))
		return false;
	for (i = 0; i < fe->nkeys; i++)
		vm_push(c, vm_own(c, keys[i]));
	if (fe->want_value)
		vm_push(c, vm_own(c, value));
	return true;
}

/* Locals: scalars of one activation (OPL/STL/LDL). */
static enum rt_status vm_local_op(struct rt_ctx *c, struct vm_frame *f,
				  const struct ir_insn *in, uint32_t loc)
{
	struct rt_value v = vm_pop(c), cur = f->locals[in->a], r;
	enum rt_status st = vm_combine(c, in->b, cur, v, &r, loc);

	f->locals[in->a] = r;
	vm_push(c, (in->b & IR_SUB_OLD) ? cur : r);
	return st;
}

static enum rt_status vm_global_op(struct rt_ctx *c, const struct ir_insn *in,
				   uint32_t loc)
{
	struct rt_value v = vm_pop(c), cur = vm_own(c, st_get(c->store, in->a)), r;
	enum rt_status st = vm_combine(c, in->b, cur, v, &r, loc);

	st_set(c->store, in->a, r);
	/* The old value of a string global may have been overwritten. */
	vm_push(c, vm_own(c, (in->b & IR_SUB_OLD) ? cur : st_get(c->store, in->a)));
	return st;
}

static enum rt_status vm_call(struct rt_ctx *c, const struct ir_insn *in,
			      uint32_t loc)
{
	const struct ir_func *fn = &c->prog->funcs[in->b];
	struct rt_value ret;
	enum rt_status st;

	if (c->depth >= c->lim.maxnesting)
		return rt_error(c, loc, "MAXNESTING exceeded");
	c->sp -= in->n;
	c->depth++;
	st = vm_exec(c, &fn->code, &c->stack[c->sp], in->n, &ret);
	c->depth--;
	if (st == RT_RETURN || st == RT_OK) {
		vm_push(c, ret);
		return RT_OK;
	}
	return st;
}

static enum rt_status vm_print(struct rt_ctx *c, const struct ir_insn *in,
			       uint32_t loc)
{
	struct rt_buf b = { 0 };
	enum rt_status st;
	size_t mark = c->out.len;

	c->sp -= in->n;
	st = rt_format(c, in->b, &c->stack[c->sp], in->n,
		       in->op == IR_PRINTF ? &c->out : &b, loc);
	if (in->op == IR_PRINTF) {
		rt_out_chunk(c, mark);
		vm_push(c, rt_long(0));
	} else {
		vm_push(c, rt_scratch_str(c, b.p ? b.p : "", b.len));
		buf_free(&b);
	}
	return st;
}

/* A string the kernel copied for kernel_string()/user_string(), which
   stap reports when the memory cannot be read (or gives the default). */
static enum rt_status vm_sfield(struct rt_ctx *c, const struct ir_insn *in, uint32_t loc)
{
	bool fault = c->field_fault && c->field_fault(c, in->a);
	struct rt_value d;

	if (in->op == IR_SFIELDOR && in->n == 2) {	/* the field cut, or d */
		struct rt_value cut[3], ret = rt_str("", 0);
		enum rt_status st = RT_OK;

		c->sp -= 2;
		cut[1] = c->stack[c->sp];
		cut[2] = c->stack[c->sp + 1];
		d = vm_pop(c);
		if (!fault) {
			cut[0] = c->field(c, in->a);
			st = rt_builtin(c, IR_BI_SUBSTR, cut, 3, &ret);
		}
		vm_push(c, fault ? d : ret);
		return st;
	}
	if (in->op == IR_SFIELDOR) {
		d = vm_pop(c);
		vm_push(c, fault ? d : c->field(c, in->a));
		return RT_OK;
	}
	if (fault)
		return rt_error(c, loc, "%s string copy fault", in->n == 2 ? "kernel" : "user");
	vm_push(c, c->field(c, in->a));
	return RT_OK;
}

static enum rt_status vm_bi(struct rt_ctx *c, const struct ir_insn *in, uint32_t loc)
{
	struct rt_value ret = rt_long(0);
	enum rt_status st;

	c->sp -= in->n;
	st = rt_builtin(c, in->a, &c->stack[c->sp], in->n, &ret);
	if (st == RT_ERROR && !c->errloc)
		c->errloc = loc;
	vm_push(c, ret);
	return st;
}

/* An error inside a try block: jump to its catch. */
static bool vm_catch(struct rt_ctx *c, struct vm_frame *f)
{
	struct vm_try *t;

	if (!f->ntries)
		return false;
	t = &f->tries[--f->ntries];
	c->sp = t->sp;
	f->locals[t->msg_slot] = rt_clip(rt_scratch_str(c, c->errmsg, strlen(c->errmsg)),
					 c->strmax);
	f->pc = t->catch_pc;
	return true;
}

/*
 * A read through task_current(): the copy of the CPU the record was
 * written on, where the probe ran (compiler/resolve/sema_current.c);
 * 0 for a CPU past the copies (none: they are all possible CPUs).
 */
static enum rt_status vm_pcpu_field(struct rt_ctx *c, const struct ir_insn *in)
{
	int cpu = c->ev ? c->ev->cpu : 0;

	vm_push(c, cpu >= 0 && cpu < in->n ? c->field(c, in->a + (unsigned)cpu) : rt_long(0));
	return RT_OK;
}

/* Instructions that touch frames, control flow or the stack directly. */
static enum rt_status vm_step(struct rt_ctx *c, struct vm_frame *f,
			      const struct ir_insn *in, uint32_t loc,
			      struct rt_value *ret)
{
	struct rt_value v;

	switch ((enum ir_op)in->op) {
	case IR_NOP: return RT_OK;
	case IR_PUSHC: vm_push(c, c->prog->consts[in->b]); return RT_OK;
	case IR_PUSHI: vm_push(c, rt_long(in->b)); return RT_OK;
	case IR_POP: c->sp--; return RT_OK;
	case IR_DUP: v = *vm_top(c); vm_push(c, v); return RT_OK;
	case IR_LDL: vm_push(c, f->locals[in->a]); return RT_OK;
	case IR_STL: f->locals[in->a] = *vm_top(c); return RT_OK;
	case IR_LDG: vm_push(c, vm_own(c, st_get(c->store, in->a))); return RT_OK;
	case IR_STG: st_set(c->store, in->a, *vm_top(c)); return RT_OK;
	case IR_OPL: return vm_local_op(c, f, in, loc);
	case IR_OPG: return vm_global_op(c, in, loc);
	case IR_FIELD: vm_push(c, c->field(c, in->a)); return RT_OK;
	case IR_SFIELD:
	case IR_SFIELDOR: return vm_sfield(c, in, loc);
	case IR_PCPUFIELD: return vm_pcpu_field(c, in);
	case IR_ENTRY: vm_push(c, c->entry_get(c, in->a)); return RT_OK;
	case IR_EPUSH:
		c->sp -= in->a;
		c->entry_push(c, &c->stack[c->sp], in->a);
		return RT_OK;
	case IR_PARMS: vm_push(c, c->parms(c)); return RT_OK;
	case IR_NEG: vm_top(c)->l = (int64_t)(0 - (uint64_t)vm_top(c)->l); return RT_OK;
	case IR_BNOT: vm_top(c)->l = ~vm_top(c)->l; return RT_OK;
	case IR_LNOT: vm_top(c)->l = !vm_top(c)->l; return RT_OK;
	case IR_MATCH: return vm_match(c, (unsigned)in->b, in->a, loc);
	case IR_JMP: f->pc = (unsigned)in->b; return RT_OK;
	case IR_JZ: if (vm_pop(c).l == 0) f->pc = (unsigned)in->b; return RT_OK;
	case IR_JNZ: if (vm_pop(c).l != 0) f->pc = (unsigned)in->b; return RT_OK;
	case IR_DELG:
		if (c->hist_clear)
			c->hist_clear(c, in->a);
		st_reset(c->store, in->a);
		return RT_OK;
	case IR_DELL: f->locals[in->a] = vm_zero(f->code->local_types[in->a]); return RT_OK;
	case IR_CALL: return vm_call(c, in, loc);
	case IR_RET: *ret = vm_pop(c); return RT_RETURN;
	case IR_RETV: return RT_RETURN;
	case IR_BI: return vm_bi(c, in, loc);
	case IR_PRINTF: case IR_SPRINTF: return vm_print(c, in, loc);
	case IR_FEINIT: vm_feinit(c, f, in); return RT_OK;
	case IR_FENEXT: if (!vm_fenext(c, f, in)) f->pc = (unsigned)in->b; return RT_OK;
	case IR_FEEND:
		st_iter_free(f->iters[in->a]);
		f->iters[in->a] = NULL;
		return RT_OK;
	case IR_TRY:
		if (f->ntries == RT_MAX_TRY)
			return rt_error(c, loc, "try blocks nested too deeply");
		f->tries[f->ntries++] = (struct vm_try){ (unsigned)in->b, in->a, c->sp };
		return RT_OK;
	case IR_TRYEND: f->ntries--; return RT_OK;
	case IR_NEXT: return RT_NEXT;
	case IR_TICK:
		if (++c->actions > c->action_limit)
			return rt_error(c, loc, "MAXACTION exceeded");
		return RT_OK;
	case IR_AGET: case IR_ASET: case IR_AOP: case IR_AIN: case IR_ADEL:
	case IR_ACLEAR:
		return vm_array(c, in, loc);
	case IR_SADD: case IR_ASADD: case IR_SGET: case IR_ASGET: case IR_HIST:
	case IR_HBUCKET:
		return vm_stats(c, in, loc);
	default:
		return vm_binop(c, (enum ir_op)in->op, loc);
	}
}

static void vm_frame_end(struct vm_frame *f)
{
	unsigned i;

	for (i = 0; i < f->code->nlocals; i++)
		if (f->iters[i])
			st_iter_free(f->iters[i]);
}

/*
 * Run @code with @nargs arguments as its first locals.  Returns RT_NEXT
 * or RT_RETURN normally, RT_ERROR with ctx->errmsg set otherwise.
 */
static enum rt_status vm_exec(struct rt_ctx *c, const struct ir_code *code,
			      struct rt_value *args, unsigned nargs,
			      struct rt_value *ret)
{
	struct vm_frame f;
	unsigned i, n = code->nlocals;
	enum rt_status st = RT_OK;

	if (c->lp + n > c->locals_size || c->sp + 64 > c->stack_size)
		return rt_error(c, 0, "script too deeply nested (out of stack)");
	memset(&f, 0, sizeof(f));
	f.code = code;
	f.locals = &c->locals[c->lp];
	f.iters = (struct st_iter **)&c->iterv[c->lp];
	f.fes = (const struct ir_foreach **)&c->fev[c->lp];
	memset(f.iters, 0, n * sizeof(*f.iters));
	c->lp += n;
	for (i = 0; i < n; i++)
		f.locals[i] = i < nargs ? args[i] : vm_zero(code->local_types[i]);
	*ret = rt_long(0);
	while (f.pc < code->n) {
		const struct ir_insn *in = &code->insns[f.pc];
		uint32_t loc = code->locs[f.pc];

		f.pc++;
		st = vm_step(c, &f, in, loc, ret);
		if (st == RT_OK)
			continue;
		if (st == RT_ERROR && vm_catch(c, &f))
			continue;
		break;
	}
	vm_frame_end(&f);
	c->lp -= n;
	return st;
}

/*
 * The statement budget of probe @p: stap gives handlers that run with
 * interrupts enabled (begin, end, error) MAXACTION_INTERRUPTIBLE; ktap's
 * timers run in ktap's process like those, so they get it too.  Event
 * handlers stand for stap's kernel probes and get MAXACTION.
 */
static uint64_t rt_action_limit(const struct rt_ctx *c, const struct ir_probe *p)
{
	if (c->lim.no_action_limit)
		return UINT64_MAX;
	if (p->kind == IR_P_EVENT)
		return c->lim.maxaction;
	if (c->lim.maxaction_interruptible)
		return c->lim.maxaction_interruptible;
	return (uint64_t)c->lim.maxaction * 10;
}

static uint64_t rt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

unsigned rt_run_probe(struct rt_ctx *c, unsigned idx, const struct rt_event *ev)
{
	const struct ir_probe *p = &c->prog->probes[idx];
	uint64_t start = c->timing ? rt_now_ns() : 0;
	struct rt_value ret;
	enum rt_status st;

	c->probe = p;
	c->ev = ev;
	c->sp = 0;
	c->lp = 0;
	c->depth = 0;
	c->actions = 0;
	c->action_limit = rt_action_limit(c, p);
	c->errloc = 0;
	st = vm_exec(c, &p->code, NULL, 0, &ret);
	if (st == RT_ERROR)
		vm_report(c);
	if (c->timing)
		st_stat_push(c->timing[idx], (int64_t)(rt_now_ns() - start));
	rt_scratch_reset(&c->scratch);
	/* its text was in the scratch memory just reset, which the next
	   handler's strings reuse: no later string is that histogram */
	c->hist_last.s = NULL;
	if (c->out.len >= 65536)
		rt_flush(c);
	c->probe = NULL;
	c->ev = NULL;
	return c->errors;
}

static int rt_compile_regexes(struct rt_ctx *c)
{
	regex_t *re = calloc(c->prog->nregexes + 1, sizeof(*re));
	unsigned i;

	if (!re)
		return -1;
	for (i = 0; i < c->prog->nregexes; i++) {
		int r = regcomp(&re[i], c->prog->regexes[i], REG_EXTENDED);

		if (r != 0) {
			char msg[256];

			regerror(r, &re[i], msg, sizeof(msg));
			fprintf(stderr, "ERROR: invalid regular expression \"%s\": %s\n",
				c->prog->regexes[i], msg);
			while (i-- > 0)
				regfree(&re[i]);
			free(re);
			return -1;
		}
	}
	c->regexes = re;
	return 0;
}

static int rt_timing_init(struct rt_ctx *c)
{
	unsigned i;

	c->timing = calloc(c->prog->nprobes + 1, sizeof(*c->timing));
	if (!c->timing)
		return -1;
	for (i = 0; i < c->prog->nprobes; i++)
		c->timing[i] = st_stat_new();
	return 0;
}

/*
 * stap checks @hist_linear's bucket count when its module starts
 * (_stp_stat_calc_buckets), against STP_MAX_BUCKETS, which -D can
 * raise; pass 2 checked the rest of the range.
 */
static int rt_check_buckets(const struct rt_ctx *c)
{
	unsigned max = c->lim.max_buckets ? c->lim.max_buckets : 128, i;
	const struct ir_global *g;

	for (i = 0; i < c->prog->nglobals; i++) {
		g = &c->prog->globals[i];
		if (!g->hist_linear || g->lin_step == 0 ||
		    (g->lin_stop - g->lin_start) / g->lin_step + 3 <= (int64_t)max)
			continue;
		fprintf(stderr, "ERROR: @hist_linear of '%s' has %" PRId64 " buckets, (stop - start)"
			" / interval + 3 with under- and overflow: more than STP_MAX_BUCKETS, %u"
			" (-D STP_MAX_BUCKETS=N raises it)\n", g->name,
			(g->lin_stop - g->lin_start) / g->lin_step + 3, max);
		return -1;
	}
	return 0;
}

int rt_init(struct rt_ctx *c, const struct ir_prog *prog, FILE *outf,
	    const struct rt_limits *lim)
{
	memset(c, 0, sizeof(*c));
	c->prog = prog;
	c->outf = outf;
	c->lim = (struct rt_limits){ .maxmapentries = 2048, .maxaction = 1000,
				  .maxnesting = 10, .maxstringlen = RT_MAXSTRINGLEN };
	if (lim)
		c->lim = *lim;
	c->strmax = rt_strmax(c->lim.maxstringlen);
	if (rt_check_buckets(c) != 0)
		return -1;
	c->target_pid = 0;
	c->stack_size = RT_STACK;
	c->locals_size = RT_LOCALS;
	c->stack = calloc(RT_STACK, sizeof(*c->stack));
	c->locals = calloc(RT_LOCALS, sizeof(*c->locals));
	c->iterv = calloc(RT_LOCALS, sizeof(*c->iterv));
	c->fev = calloc(RT_LOCALS, sizeof(*c->fev));
	c->store = st_new(prog, c->lim.maxmapentries, c->strmax);
	if (!c->stack || !c->locals || !c->store || !c->iterv || !c->fev)
		return -1;
	st_set_hist_elision(c->store, c->lim.hist_elision);
	if (c->lim.timing && rt_timing_init(c) != 0)
		return -1;
	return rt_compile_regexes(c);
}

void rt_fini(struct rt_ctx *c)
{
	unsigned i;

	if (c->regexes) {
		for (i = 0; i < c->prog->nregexes; i++)
			regfree(&((regex_t *)c->regexes)[i]);
		free(c->regexes);
	}
	for (i = 0; c->timing && i < c->prog->nprobes; i++)
		st_stat_free(c->timing[i]);
	free(c->timing);
	st_free(c->store);
	free(c->stack);
	free(c->locals);
	free(c->iterv);
	free(c->fev);
	free(c->tok_str);
	free(c->match_str);
	free(c->pfs_buf);
	buf_free(&c->out);
	rt_scratch_free(&c->scratch);
	ksym_names_free(c->ksym_names);
	memset(c, 0, sizeof(*c));
}

void rt_autoprint(struct rt_ctx *c)
{
	if (c->json)
		rt_json_globals(c);
	else
		st_autoprint(c->store, &c->out);
}

/*
 * stap's report (translate.cxx, STP_TIMING), per probe that ran:
 *   PP, (FILE:L:C), hits: N, nsecs: MINmin/AVGavg/MAXmax, variance: V, from: POINT, index: I
 * stap's user-space runtime says "nsecs" as ktap does; its kernel one
 * counts "cycles".  The entry halves of .return probes that read @entry
 * are ktap's own and not listed.  Then stap's "----- refresh report:"
 * header, with nothing under it.
 */
void rt_timing_report(struct rt_ctx *c)
{
	const struct ir_prog *p = c->prog;
	unsigned i;

	size_t mark = c->out.len;

	if (!c->timing)
		return;
	buf_adds(&c->out, "----- probe hit report: \n");
	for (i = 0; i < p->nprobes; i++) {
		const struct ir_probe *pr = &p->probes[i];
		const struct st_stat *t = c->timing[i];
		const struct ir_loc *l = pr->loc < p->nlocs ? &p->locs[pr->loc] : NULL;

		if (pr->entry_of || st_stat_result(t, IR_STAT_COUNT) == 0)
			continue;
		buf_printf(&c->out, "%s, (%s:%u:%u), hits: %" PRId64 ", nsecs: %" PRId64 "min/%"
			   PRId64 "avg/%" PRId64 "max, variance: %" PRId64 ", from: %s, index: %u\n",
			   pr->pp, l ? l->file : "?", l ? l->line : 0, l ? l->col : 0,
			   st_stat_result(t, IR_STAT_COUNT), st_stat_result(t, IR_STAT_MIN),
			   st_stat_result(t, IR_STAT_AVG), st_stat_result(t, IR_STAT_MAX),
			   st_stat_result(t, IR_STAT_VARIANCE),
			   pr->written ? pr->written : pr->pp, i);
	}
	/* stap 4.x's next section: its module-refresh timer's hits and the
	   globals' lock contention, neither of which ktap has. */
	buf_adds(&c->out, "----- refresh report:\n");
	rt_out_chunk(c, mark);
}
