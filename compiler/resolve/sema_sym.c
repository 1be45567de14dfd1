/*
 * sema_sym.c - pass 2: the tables every step of the pass looks names up
 * in: builtins (runtime/builtins.def), globals, declared and used
 * functions, the program's probes; and close-name suggestions for
 * "unknown name" errors.
 *
 * In: the sema_ctx the driver (sema.c) filled with declarations.  Out:
 * symbols and sem_func/sem_probe entries of c->prog.  A leaf of pass 2:
 * it calls no other sema_*.c file.
 */
#include "sema_int.h"
#include "arena.h"
#include "diag.h"
#include "resolve_tpfmt.h"

#include <stdarg.h>
#include <string.h>

static const struct sema_bi sema_bi_table[] = {
#define BI(id, name, ret, args, flags) { name, ret, args, flags },
#include "../runtime/builtins.def"
#undef BI
};

#define SEMA_NBUILTINS (sizeof(sema_bi_table) / sizeof(sema_bi_table[0]))

const char *sem_type_name(enum sem_type t)
{
	switch (t) {
	case SEM_LONG: return "long";
	case SEM_STRING: return "string";
	case SEM_STATS: return "stats";
	default: return "unknown";
	}
}

int sema_builtin(const char *name)
{
	unsigned i;

	for (i = 0; i < SEMA_NBUILTINS; i++)
		if (strcmp(sema_bi_table[i].name, name) == 0)
			return (int)i;
	return -1;
}

const struct sema_bi *sema_builtin_info(int id)
{
	return &sema_bi_table[id];
}

bool sema_builtin_has_side_effects(int id)
{
	return (sema_bi_table[id].flags & BF_SIDE) != 0;
}

static void sema_consider(const char *cand, const char *name,
			  const char **best, unsigned *bestd)
{
	unsigned d = diag_distance(name, cand);

	if (d < *bestd) {
		*bestd = d;
		*best = cand;
	}
}

/*
 * The closest known name to @name (functions and builtins, or globals),
 * or NULL when nothing is close enough to be a likely typo.
 */
const char *sema_suggest(struct sema_ctx *c, const char *name, bool funcs)
{
	const char *best = NULL;
	unsigned bestd = 99, i;

	if (funcs) {
		for (i = 0; i < c->nfdecls; i++)
			sema_consider(c->fdecls[i]->name, name, &best, &bestd);
		for (i = 0; i < SEMA_NBUILTINS; i++)
			sema_consider(sema_bi_table[i].name, name, &best, &bestd);
	} else {
		for (i = 0; i < c->prog->nglobals; i++)
			sema_consider(c->prog->globals[i]->name, name, &best, &bestd);
	}
	return diag_is_typo_of(name, bestd) ? best : NULL;
}

const char *sema_suggest_field(const struct tpf_event *ev, const char *name)
{
	const char *best = NULL;
	unsigned bestd = 99, i;

	for (i = 0; i < ev->nfields; i++)
		if (!ev->fields[i].common)
			sema_consider(ev->fields[i].name, name, &best, &bestd);
	return diag_is_typo_of(name, bestd) ? best : NULL;
}

struct sem_sym *sema_global(struct sema_ctx *c, const char *name)
{
	unsigned i;

	for (i = 0; i < c->prog->nglobals; i++)
		if (strcmp(c->prog->globals[i]->name, name) == 0)
			return c->prog->globals[i];
	return NULL;
}

const struct ast_func *sema_func_decl(struct sema_ctx *c, const char *name)
{
	unsigned i;

	for (i = 0; i < c->nfdecls; i++)
		if (!strcmp(c->fdecls[i]->name, name))
			return c->fdecls[i];
	return NULL;
}

/* The function @name, marked used (and created on first use), or NULL. */
struct sem_func *sema_func_add(struct sema_ctx *c, const struct ast_func *f,
			       const char *name)
{
	struct sem_prog *p = c->prog;
	struct sem_func *sf = arena_alloc(c->arena, sizeof(*sf));
	unsigned k;

	sf->ast = f;
	sf->name = name;
	sf->ret = f->type == AST_TYPE_LONG ? SEM_LONG :
		  f->type == AST_TYPE_STRING ? SEM_STRING : SEM_UNKNOWN;
	sf->used = true;
	sf->index = p->nfuncs;
	for (k = 0; k < f->nparams; k++) {
		struct sem_sym *s = arena_alloc(c->arena, sizeof(*s));

		s->name = f->params[k].name;
		s->kind = SEM_PARAM;
		s->span = f->params[k].span;
		s->type = f->params[k].type == AST_TYPE_LONG ? SEM_LONG :
			  f->params[k].type == AST_TYPE_STRING ? SEM_STRING :
			  SEM_UNKNOWN;
		s->slot = k;
		s->written = true;
		sf->locals = arena_grow(c->arena, sf->locals, sf->nlocals,
					&sf->lcap, sizeof(*sf->locals));
		sf->locals[sf->nlocals++] = s;
	}
	sf->nparams = f->nparams;
	p->funcs = arena_grow(c->arena, p->funcs, p->nfuncs, &p->fcap,
			      sizeof(*p->funcs));
	p->funcs[p->nfuncs++] = sf;
	c->changed = true;
	return sf;
}

const struct ast_func *sema_func_decl_n(struct sema_ctx *c, const char *name, unsigned nargs)
{
	unsigned i;

	for (i = 0; i < c->nfdecls; i++)
		if (c->fdecls[i]->nparams == nargs && !strcmp(c->fdecls[i]->name, name))
			return c->fdecls[i];
	return sema_func_decl(c, name);
}

struct sem_func *sema_func_use(struct sema_ctx *c, const char *name, unsigned nargs)
{
	struct sem_prog *p = c->prog;
	const struct ast_func *f = sema_func_decl_n(c, name, nargs);
	unsigned i;

	for (i = 0; f && i < p->nfuncs; i++)
		if (!p->funcs[i]->site && p->funcs[i]->ast == f)
			return p->funcs[i];
	return f ? sema_func_add(c, f, f->name) : NULL;
}

struct sem_probe *sema_new_probe(struct sema_ctx *c)
{
	struct sem_prog *p = c->prog;
	struct sem_probe *sp = arena_alloc(c->arena, sizeof(*sp));

	sp->index = p->nprobes;
	p->probes = arena_grow(c->arena, p->probes, p->nprobes, &p->pcap,
			       sizeof(*p->probes));
	p->probes[p->nprobes++] = sp;
	return sp;
}

/*
 * stap tapset functions that ktap knows and refuses, each with why and
 * what to use instead: they need kernel memory that no fetch argument
 * of a probe's event can reach, or they change the kernel (stap's guru
 * mode, which ktap does not have).  A name ending in '*' is a prefix.
 */
static const struct {
	const char *name, *why;
} sema_unprovided_fns[] = {
	{ "pid2task", "finding a task by pid is a search of the kernel's pid table, "
	  "which no fetch argument can express; probe a function that takes the task "
	  "($p, $task) instead" },
#define SEMA_UTF "a fetch argument reads a string up to its first zero byte, and " \
	"UTF-16 and UTF-32 text has zero bytes in every ASCII character"
	{ "user_string_utf*", SEMA_UTF }, { "kernel_string_utf*", SEMA_UTF },
	{ "user_string_quoted_utf*", SEMA_UTF }, { "kernel_string_quoted_utf*", SEMA_UTF },
	{ "kernel_or_user_string_quoted_utf*", SEMA_UTF },
#define SEMA_GURU "it is one of stap's guru-mode functions (-g), which change the " \
	"kernel, stop it or write to its log: ktap has no guru mode"
	{ "set_kernel_*", SEMA_GURU }, { "set_user_*", SEMA_GURU }, { "set_int_arg", SEMA_GURU },
	{ "set_uint_arg", SEMA_GURU }, { "set_long_arg", SEMA_GURU },
	{ "set_ulong_arg", SEMA_GURU }, { "set_longlong_arg", SEMA_GURU },
	{ "set_ulonglong_arg", SEMA_GURU }, { "set_pointer_arg", SEMA_GURU },
	{ "set_s32_arg", SEMA_GURU }, { "set_u32_arg", SEMA_GURU }, { "set_s64_arg", SEMA_GURU },
	{ "set_u64_arg", SEMA_GURU }, { "printk", SEMA_GURU }, { "panic", SEMA_GURU },
	{ "raise", SEMA_GURU }, { "mdelay", SEMA_GURU }, { "udelay", SEMA_GURU },
	{ "dump_stack", "it prints to the kernel's log (stap's guru mode, -g); use "
	  "print_backtrace()" },
	{ "ftrace", "it writes into the kernel's global trace buffer, which ktap leaves "
	  "to its other users; use printf()" },
	{ "set_returnval", SEMA_GURU }, { "stp_print_binary", "it writes binary records "
	  "for stap's bulk transport, which ktap does not have; use printf()" },
	{ "kernel_string2_utf*", SEMA_UTF }, { "user_string2_utf*", SEMA_UTF },
#define SEMA_PATH "it walks a path's dentries up to the root, a chain of run-time " \
	"length; ktap's bounded walk, read at the probe, is fullpath_struct_path(PATH) " \
	"of a struct path's address (&$file->f_path) or task_dentry_path(TASK, " \
	"DENTRY, VFSMNT), and d_name() gives the last component"
	{ "d_path", SEMA_PATH },
	{ "fullpath_struct_nameidata", SEMA_PATH }, { "inode_path", SEMA_PATH },
	{ "task_cwd_path", SEMA_PATH },
	{ "reverse_path_walk", SEMA_PATH }, { "inode_name", SEMA_PATH },
	{ "task_fd_lookup", "it indexes the task's file table by the descriptor, and a "
	  "fetch argument reads at offsets fixed when the probe is made; read the file "
	  "where a function takes it ($file)" },
	{ "task_open_file_handles", "it counts the set bits of the task's file table, a "
	  "walk of run-time length that no fetch argument can do" },
	{ "module_size", "it gives the sizes of the kernel module stap builds, and ktap "
	  "builds none" },
#define SEMA_ANCESTRY "it walks a task's parents up to init (a chain of run-time " \
	"length), and a fetch argument reads a chain of fixed length; use " \
	"task_parent() a fixed number of times"
	{ "pstrace", SEMA_ANCESTRY }, { "task_ancestry", SEMA_ANCESTRY },
#define SEMA_KSTACK "it measures the kernel stack the probe handler runs on, which " \
	"only a kernel module's handler has: ktap's handlers run in user space"
	{ "stack_size", SEMA_KSTACK }, { "stack_used", SEMA_KSTACK },
	{ "stack_unused", SEMA_KSTACK },
	{ "print_regs", "tracefs records no register dump: read the registers you need "
	  "with register(\"rax\") ... in a kernel.function() or process() probe" },
	{ "regparm", "it selects the register arguments of i386 code, and x86_64 has one "
	  "calling convention (stap refuses it for 64-bit code too)" },
#define SEMA_32BIT "whether the task runs 32-bit code is in its thread flags, " \
	"which no event records"
	{ "probing_32bit_app", SEMA_32BIT }, { "uarch_bytes", SEMA_32BIT },
#define SEMA_INTERP "it walks the interpreter's frames and objects in the traced " \
	"process, a walk of run-time length that fetch arguments cannot do"
	{ "python*", SEMA_INTERP }, { "Py2Object_*", SEMA_INTERP },
	{ "Py3Object_*", SEMA_INTERP }, { "print_java_backtrace", SEMA_INTERP },
	{ "sprint_java_backtrace", SEMA_INTERP },
	{ "task_ns_*", "with a task other than task_current() it is one of stap's "
	  "guru-mode functions (-g): the pid namespace's level indexes the task's pid "
	  "numbers, which no fetch argument can do; task_ns_pid(task_current()) and "
	  "the like are supported" },
	{ "addr_to_node", "the NUMA node of an address comes from the kernel's page "
	  "frame tables, which no fetch argument reads" },
#define SEMA_FILELINE "ktap names a frame's function from the symbol tables, " \
	"not its source line; use print_backtrace() or print_ubacktrace()"
	{ "print_backtrace_fileline", SEMA_FILELINE },
	{ "print_ubacktrace_fileline", SEMA_FILELINE },
	{ "target_set_report", "ktap keeps no target set (stap's -c/-x target and its "
	  "descendants): use target() and the process.begin/end probes" },
};

/* Is @name the refused function @pat (a prefix when it ends in '*')? */
static bool sema_unprovided_is(const char *name, const char *pat)
{
	size_t n = strlen(pat);

	return pat[n - 1] == '*' ? !strncmp(name, pat, n - 1) : !strcmp(name, pat);
}

bool sema_unprovided(struct sema_ctx *c, const struct ast_expr *e)
{
	size_t i;

	if (!strcmp(e->str, "task_backtrace")) {
		/* stap's own is a warning stub since 1.6 */
		sema_err(c, e->op_span, "task_backtrace() is not supported: tracefs records "
		       "the stack of the task an event runs in, not of another task; "
		       "use backtrace() in a probe that runs in that task");
		return true;
	}
	for (i = 0; i < sizeof(sema_unprovided_fns) / sizeof(sema_unprovided_fns[0]); i++) {
		if (sema_unprovided_is(e->str, sema_unprovided_fns[i].name)) {
			sema_err(c, e->op_span, "%s() is not supported: %s", e->str,
				 sema_unprovided_fns[i].why);
			return true;
		}
	}
	return false;
}

struct ast_expr *sema_call(struct sema_ctx *c, const char *fn, struct ast_expr *a,
			   struct ast_expr *b, struct src_span at)
{
	struct ast_expr *e = ast_named(c->arena, AST_CALL, fn, at);

	e->op_span = at;
	ast_list_push(c->arena, &e->args, a);
	if (b)
		ast_list_push(c->arena, &e->args, b);
	return e;
}

void sema_err(struct sema_ctx *c, struct src_span at, const char *fmt, ...)
{
	va_list ap;

	if (!c->report)
		return;
	va_start(ap, fmt);
	diag_vreport(c->diag, DIAG_ERROR, at, fmt, ap);
	va_end(ap);
}
