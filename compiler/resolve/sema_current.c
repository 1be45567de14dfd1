/*
 * sema_current.c - pass 2: task_current(), the running task's address.
 *
 * On x86-64 the kernel's 'current' is a per-CPU variable: current_task
 * (up to 6.1 and again from 6.15), or the current_task member of
 * pcpu_hot (6.2 to 6.14).  On CPU N it is the word at the variable's
 * per-CPU offset plus __per_cpu_offset[N], which a fetch argument of a
 * kprobe or of an eprobe reads as "+OFF(@__per_cpu_offset+8N)" (kallsyms
 * gives both; a kernel without CONFIG_KALLSYMS_ALL has neither).
 *
 * A fetch argument cannot know which CPU it runs on, so every fetch read
 * through 'current' is made once per CPU id: task_current() becomes a
 * resolved target whose fetch is CPU 0's ("+OFF(@__per_cpu_offset)"),
 * the rest of pass 2 reads through it like through a target variable
 * (@cast(task_current(), "task_struct")->prio, the tapset's task_*()
 * functions), and sema_point_dyn_field() adds the other CPUs' copies of
 * each such field next to it; the runtime reads the copy of the CPU the
 * record was written on (IR_PCPUFIELD), which is the CPU whose 'current'
 * the probe ran in.  This is the value at the probe, read by the kernel;
 * nothing is read after the fact.
 *
 * In:  a call task_current() (no script function of that name) in a
 *      probe body, or in a function specialised for one (sema_spec.c).
 * Out: the node as a resolved target (str "task_current()", module
 *      "task_current=FETCH"), or one error saying what the kernel lacks.
 */
#include "sema_int.h"
#include "arena.h"
#include "fetch.h"
#include "resolve_btf.h"
#include "resolve_elf.h"
#include "resolve_tpfmt.h"
#include "target.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* More CPU ids than this: the copies would not fit an event's 128 fetch
   arguments (the kernel's MAX_TRACE_ARGS) next to the script's own. */
#define CUR_MAX_CPUS 64

/* Whether @e is a call of the builtin task_current(). */
bool sema_current_call(struct sema_ctx *c, const struct ast_expr *e)
{
	return e->kind == AST_CALL && e->args.n == 0 && !strcmp(e->str, "task_current") &&
	       !sema_func_decl(c, "task_current");
}

/*
 * The offset of 'current' in the per-CPU area: current_task's symbol
 * value, or pcpu_hot's plus its member current_task's offset (BTF).
 * 0, or -1 with why in @err.
 */
static int cur_offset(struct sema_ctx *c, uint64_t *off, char *err, size_t errlen)
{
	static const char *const names[] = { "current_task", "pcpu_hot", "__per_cpu_offset" };
	uint64_t addrs[3];
	struct ast_comp m = { .name = "current_task" };
	struct ast_chain chain = { .v = &m, .n = 1 };
	const struct btf *btf;
	struct fetch f;

	if (target_kernel_symbols(c->in->target, names, 3, addrs, err, errlen) != 0)
		return -1;
	if (!addrs[2] || (!addrs[0] && !addrs[1])) {
		snprintf(err, errlen, "kallsyms has no %s (the kernel's per-CPU data is listed "
			 "only with CONFIG_KALLSYMS_ALL)",
			 addrs[2] ? "current_task or pcpu_hot" : "__per_cpu_offset");
		return -1;
	}
	if (addrs[0]) {
		*off = addrs[0];
		return 0;
	}
	btf = relf_kernel_btf(c->in->up, c->arena, NULL, err, errlen);
	if (!btf || rbtf_cast(c->arena, btf, "0", "cur", "pcpu_hot", &chain, &f, err,
			      errlen) != 0)
		return -1;
	*off = addrs[1] + (uint64_t)strtoll(f.arg, NULL, 10);	/* "+OFF(0):u64" */
	return 0;
}

/* CPU 0's fetch of 'current' ("+0x1fb80(@__per_cpu_offset)"), or NULL + @err. */
static const char *cur_find_root(struct sema_ctx *c, char *err, size_t errlen)
{
	uint64_t off;

	if (strcmp(c->in->target->arch, "x86_64") != 0) {
		snprintf(err, errlen, "ktap reads the running task from x86-64's per-CPU "
			 "current_task; on %s it is kept where no fetch argument reads it",
			 c->in->target->arch);
		return NULL;
	}
	if (target_cpu_ids(c->in->target) > CUR_MAX_CPUS) {
		snprintf(err, errlen, "it is read once per possible CPU, and this kernel has "
			 "%u CPU ids (at most %d fit an event's fetch arguments)",
			 target_cpu_ids(c->in->target), CUR_MAX_CPUS);
		return NULL;
	}
	if (cur_offset(c, &off, err, errlen) != 0)
		return NULL;
	return arena_printf(c->arena, "+0x%" PRIx64 "(" FETCH_PERCPU_BASE ")", off);
}

/* cur_find_root()'s answer, found once per compile (typing asks again
   in every round, and each search reads all of kallsyms). */
static const char *cur_root(struct sema_ctx *c, char *err, size_t errlen)
{
	if (!c->current_root && !c->current_why) {
		c->current_root = cur_find_root(c, err, errlen);
		if (!c->current_root)
			c->current_why = arena_strdup(c->arena, err);
	}
	if (c->current_why)
		snprintf(err, errlen, "%s", c->current_why);
	return c->current_root;
}

/*
 * Why the probe being typed cannot read 'current', or NULL when it can:
 * a kprobe or kretprobe (its own fetch arguments), a tracepoint when the
 * kernel has eprobes (an eprobe on it reads memory).
 */
static const char *cur_unreadable(struct sema_ctx *c)
{
	const struct sem_probe *pr = c->func ? c->func->site : c->probe;
	const struct tpf_event *ev = c->entry ? c->entry : pr ? pr->event : NULL;
	const struct fetch_site *site = ev ? ev->dyn_func : NULL;

	if (c->func && !c->func->site)
		return "a function reads it only where the probe passes it in (an argument "
		       "of the function, which is then made for that probe)";
	if (!ev && sema_trigger_probe(c))
		return SEMA_TRIGGER_WHY;
	if (!ev)
		return "this probe has no event to read it with (a kernel.function() probe "
		       "has, and a tracepoint probe where the kernel has eprobes)";
	if (pr && pr->other_task)	/* sema_context.c */
		return "this probe runs in a task other than the one that wrote its record "
		       "(scheduler.cpu_on: the task switched in, which sched_switch records by "
		       "pid and name, not by address)";
	if (site)
		return site->kernel ? NULL : "a process() probe's uprobe reads user memory, "
					     "not the kernel's";
	if (ev->dyn && !sema_point_on_tp(ev))
		return "a kernel statement probe reads registers only";
	if (c->entry)
		return "@entry() of a tracepoint pair is read from the entry's record";
	if (!target_has(c->in->target, TGT_EPROBES))
		return "a tracepoint probe reads it through an event probe (eprobes: Linux "
		       "5.15+, CONFIG_EPROBE_EVENTS since 6.2), which this kernel does not "
		       "have; a kernel.function() probe (kprobes) can read it";
	return NULL;
}

int sema_current_address(struct sema_ctx *c, struct ast_expr *e)
{
	const char *why = cur_unreadable(c), *root;
	char err[512];

	if (!sema_current_call(c, e))
		return 0;
	if (why) {
		sema_err(c, e->op_span, "task_current() is the kernel's per-CPU 'current', "
			 "which the kernel must read as part of the event: %s", why);
		return -1;
	}
	if (!(root = cur_root(c, err, sizeof(err)))) {
		sema_err(c, e->op_span, "task_current() cannot be read on this kernel: %s", err);
		return -1;
	}
	e->kind = AST_TARGET;
	e->str = "task_current()";
	e->module = arena_printf(c->arena, "task_current=%s:u64", root);
	e->args.n = 0;
	memset(&e->chain, 0, sizeof(e->chain));
	c->changed = true;
	return 1;
}

const char *sema_current_copy(struct sema_ctx *c, const char *arg, unsigned k)
{
	const char *tok = FETCH_PERCPU_BASE ")", *at;
	char *out = arena_printf(c->arena, "%s", "");

	while ((at = strstr(arg, tok)) != NULL) {
		out = arena_printf(c->arena, "%s%.*s" FETCH_PERCPU_BASE "+%u)", out,
				   (int)(at - arg), arg, 8 * k);
		arg = at + strlen(tok);
	}
	return arena_printf(c->arena, "%s%s", out, arg);
}

unsigned sema_current_copies(struct sema_ctx *c, const char *arg)
{
	return strstr(arg, FETCH_PERCPU_BASE ")") ? target_cpu_ids(c->in->target) : 1;
}

int sema_current_in(struct sema_ctx *c, struct ast_expr *x)
{
	if (x->kind == AST_CAST)
		return sema_current_in(c, x->a);
	if (x->kind == AST_BINARY)
		return sema_current_in(c, x->a) < 0 || sema_current_in(c, x->b) < 0 ? -1 : 0;
	return sema_current_address(c, x) < 0 ? -1 : 0;
}

bool sema_current_reads(const struct ast_expr *x)
{
	if (x->kind == AST_CAST)
		return sema_current_reads(x->a);
	if (x->kind == AST_BINARY)
		return sema_current_reads(x->a) || sema_current_reads(x->b);
	return x->kind == AST_TARGET && x->module && strstr(x->module, FETCH_PERCPU_BASE);
}
