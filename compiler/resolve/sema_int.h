/*
 * sema_int.h - the working state of pass 2 and the functions its files
 * share (not a public API: pass 2's result is sem.h, its driver sema.h).
 */
#ifndef KTAP_SEMA_INT_H
#define KTAP_SEMA_INT_H

#include "sema.h"
#include "kplan.h"
#include "resolve_tpfmt.h"
#include "target.h"

struct fetch;
struct fetch_site;
struct btf;
struct tpf_event;
struct diag_sink;

/* A probe alias: one of its names, and the declaration. */
struct sema_alias {
	const struct ast_ppoint *name;
	const struct ast_probe *decl;
	bool expanded;			/* a probe used it (sema_libprobe.c) */
};

struct sema_ctx {
	struct arena *arena;
	struct diag_sink *diag;
	const struct sema_input *in;
	struct sem_prog *prog;
	struct sema_alias *aliases;
	unsigned naliases;
	size_t acap;
	const struct ast_func **fdecls;	/* every function declared */
	unsigned nfdecls;
	unsigned nscript_fdecls;	/* the script's come first */
	size_t fdcap;
	/* Which of fdecls[0..ncurrent) call task_current(), themselves or
	   through the functions they call (sema_spec.c, made when needed). */
	bool *fdecl_current;
	unsigned ncurrent;
	/* While typing a body: the scope new locals go to. */
	struct sem_probe *probe;
	struct sem_func *func;
	/* While typing the operand of an @entry(): the entry event whose
	   fields its target variables are (it runs at the function's entry). */
	struct tpf_event *entry;
	/* Typing of a subexpression (sema_type.c's, set by sema_types()):
	   sema_target.c calls it for an index, an @entry operand or a
	   @cast's address, so it needs no call back into sema_type.c. */
	enum sem_type (*type_expr)(struct sema_ctx *c, struct ast_expr *e);
	bool changed;			/* inference made progress */
	bool report;			/* final round: report problems */
	bool skipping;			/* --skip-badvars' muted round (sema_type.c) */
	unsigned alias_depth;
	bool syscall_warned;		/* user strings shown as addresses */
	bool tracefs_said;		/* "no tracefs to read" reported */
	/* Probe-point resolution: a 'never' point was seen (a script may
	   consist of those); the kernel feature the last optional point
	   dropped for lack of (for the error when nothing else resolved). */
	bool saw_never;
	const char *missing;
	const char *missing_mods;	/* the modules 'missing' names, "a, b" */
	const char *dropped_missing;	/* what a dropped optional point lacked */
	const char *dropped_syscalls;	/* stap's calls this kernel lacks, "a, b" */
	const char *dropped_why;	/* "POINT: WHY" of a point this kernel cannot have */
	/* What elision dropped of the script's own statements (the local
	   assigned, or NULL for an expression), said when the program
	   elaborates: beside an error, stap stops before it elides. */
	struct sema_elided {
		struct src_span at;
		const char *name;
	} *elided;
	unsigned nelided;
	size_t elcap;
	/* The variables of the probe being elided that sema_autocast() read
	   through (p of p->member): read as the script wrote it, no warning
	   when their assignment goes. */
	const char **autocast;
	unsigned nautocast;
	size_t accap;
	/* Bodies of the script's probes that resolved to nothing (optional
	   points, never): globals are typed from them too, as stap does. */
	struct sema_dropped {
		const struct ast_stmt *body;
		/* a 'never' probe: a probe of the script that never runs, so
		   its writes count (stap prints such a global at exit) */
		bool never;
	} *dropped;
	unsigned ndropped;
	unsigned nevers;		/* 'never' points seen */
	const char **init_fns;		/* sema_point_init_text()'s list */
	unsigned ninit_fns;
	bool init_loaded;
	bool dropped_never;		/* walking a 'never' body (sema_check.c) */
	size_t dcap;
	/* While typing an expression statement: its expression, whose
	   value nothing uses (x += 1 alone is no read of x: sema_type.c) */
	const struct ast_expr *unused;
	/* task_current()'s fetch on CPU 0, once found (sema_current.c), or
	   why it cannot be: found once, kallsyms is read once per compile */
	const char *current_root;
	const char *current_why;
};

/*
 * With no tracefs to read, whether that was reported already: it is
 * reported once per run, not once per probe point (syscall.*).
 */
static inline bool sema_tracefs_said(struct sema_ctx *c)
{
	bool said = c->tracefs_said;

	if (*c->in->target->tracefs)
		return false;
	c->tracefs_said = true;
	return said;
}

/*
 * Who calls whom (no file calls back into one above it):
 *   sema.c (driver) -> sema_probe.c -> sema_syscall.c -> sema_elide.c
 *   sema_probe.c -> sema_process.c (process() points) -> sema_emit.c
 *   sema.c -> sema_type.c -> sema_spec.c;  sema.c -> sema_check.c
 *   sema_type.c -> sema_target.c -> sema_tparg.c, sema_entry.c, sema_spec.c (typing calls target
 *   resolution; it types subexpressions back through c->type_expr)
 *   all of them -> sema_sym.c, sema_point.c, sema_timer.c, sema_plt.c (leaves)
 */

/* ---- sema_sym.c: builtins, globals, functions, probes ---- */

#define BF_EVENT 1u	/* builtins.def flags, see there */
#define BF_SIDE 2u
#define BF_FORMAT 4u
#define BF_PASS2 8u

/* A builtin's signature (runtime/builtins.def). */
struct sema_bi {
	const char *name;
	char ret;			/* 'l', 's', 'v' */
	const char *args;		/* one letter per argument, '*' repeats */
	unsigned flags;			/* BF_* */
};

/* The id of builtin @name, or -1; its signature. */
int sema_builtin(const char *name);
const struct sema_bi *sema_builtin_info(int id);
/* Whether builtin @id has side effects (BF_SIDE). */
bool sema_builtin_has_side_effects(int id);
struct sem_sym *sema_global(struct sema_ctx *c, const char *name);
/*
 * sema_vardef.c: the right-hand side of the one assignment of variable
 * @use that reaches it on the probe's straight-line path, so an address
 * read through the variable can be fetched at the probe; else NULL.
 */
struct ast_expr *sema_var_def(struct sema_ctx *c, const struct ast_expr *use);
/* stap's autocast: 'p->m' of a variable set from a typed value (sema_vardef.c). */
void sema_autocast(struct sema_ctx *c, struct sem_probe *sp);
enum sem_type sema_autocast_error(struct sema_ctx *c, struct ast_expr *e);
bool sema_autocast_read(const struct sema_ctx *c, const char *name);
/* The statements of @s in the order they run, blocks flattened, in *@v. */
unsigned sema_stmt_flatten(struct arena *a, struct ast_stmt *s, struct ast_stmt ***v);
/* Does @s assign, increment, delete or loop over the variable @name? */
bool sema_stmt_writes(struct ast_stmt *s, const char *name);
/* The closest known name to @name, for "did you mean" (or NULL). */
const char *sema_suggest(struct sema_ctx *c, const char *name, bool funcs);
/* An error at @at, only in the reporting round (typing runs in rounds
   until nothing changes; earlier rounds may lack types). */
void sema_err(struct sema_ctx *c, struct src_span at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const char *sema_suggest_field(const struct tpf_event *ev, const char *name);
/* A new call of @fn with the arguments @a and @b (NULL: only @a), made
   by a rewrite of pass 2. */
struct ast_expr *sema_call(struct sema_ctx *c, const char *fn, struct ast_expr *a,
			   struct ast_expr *b, struct src_span at);
/* A call @e of a stap function ktap knows and refuses (task_current(),
   task_backtrace() ...): its error reported, true. */
bool sema_unprovided(struct sema_ctx *c, const struct ast_expr *e);
/* sema_overload.c: functions of one name and arity chained by "next"
   (stap's runtime overloading), after every declaration is collected. */
void sema_overloads(struct sema_ctx *c);
/* A declaration of script or tapset function @name (of any arity), or NULL. */
const struct ast_func *sema_func_decl(struct sema_ctx *c, const char *name);
/* The declaration of @name a call with @nargs arguments resolves to (stap
   overloads functions by their number of parameters); another of the
   name when none has that many (the call's arity error), or NULL. */
const struct ast_func *sema_func_decl_n(struct sema_ctx *c, const char *name, unsigned nargs);
/* Used function @name for @nargs arguments (created on first use), or NULL. */
struct sem_func *sema_func_use(struct sema_ctx *c, const char *name, unsigned nargs);
/* A new used function for declaration @f, named @name. */
struct sem_func *sema_func_add(struct sema_ctx *c, const struct ast_func *f,
			       const char *name);
/* A new probe of the program, at the end. */
struct sem_probe *sema_new_probe(struct sema_ctx *c);

/* ---- sema_point.c: facts about probe points ---- */

/* A point ktap refuses (sema_refused_point.c): its error reported, -1;
   0 when @p is none of them. */
int sema_refused_point(struct sema_ctx *c, const struct ast_ppoint *p);
/* process.function("NAME") and the like without a path: @p with the
   target's executable (-c, -x); @p for others; NULL after an error. */
const struct ast_ppoint *sema_point_target_exe(struct sema_ctx *c, const struct ast_ppoint *p);
/* sema_cast_btf.c: the BTF @cast() @e reads its type from in a kernel
   probe at @uf (NULL with the reason in @err), and whether its type
   comes from BTF at all (else the probed program's DWARF). */
const struct btf *sema_cast_btf(struct sema_ctx *c, const struct fetch_site *uf,
				const struct ast_expr *e, char *err, size_t errlen);
bool sema_cast_by_btf(const struct fetch_site *uf, const struct ast_expr *e);
/* sema_buffer.c: __kernel_buffer(ADDR, N) and __user_buffer(ADDR, N),
   the N bytes at ADDR read by the kernel: @e rewritten and typed, or -1
   when it is not such a call; printf's %m/%M of a number made one (true
   when @e was rewritten). */
int sema_buffer_call(struct sema_ctx *c, struct ast_expr *e);
bool sema_buffer_format(struct sema_ctx *c, struct ast_expr *e);
/* sema_target.c: the memory reference of address @arg of @call's read
   ("+8(%di)", "+u8(%di)"), its fetch's name in *@name; NULL on error. */
const char *sema_target_mem_ref(struct sema_ctx *c, const struct ast_expr *call,
				struct ast_expr *arg, bool user, const char **name);
/* sema_netfilter.c: stap's netfilter.hook("H").pf("P") primitive.  Is
   @p one?  Its tapset alias point (checked), with *@body and *@cond
   copies whose $hooknum, $skb, $in and $out are the alias's locals; NULL
   after an error. */
bool sema_netfilter_is(const struct ast_ppoint *p);
const struct ast_ppoint *sema_netfilter_point(struct sema_ctx *c, const struct ast_ppoint *p,
					      struct ast_stmt **body, struct ast_expr **cond);
/* Fetch @f as a field of dynamic event @ev (sema_point.c): its index. */
int sema_point_dyn_field(struct sema_ctx *c, struct tpf_event *ev, const struct fetch *f);
/* The tracepoint @ev reads: @ev, or the one its eprobe or tprobe is on. */
const struct tpf_event *sema_point_tracepoint(const struct tpf_event *ev);
/* Is @ev ktap's eprobe or tprobe on a tracepoint (its dyn_tp)? */
static inline bool sema_point_on_tp(const struct tpf_event *ev)
{
	return ev && ev->dyn && (ev->dyn->kind == KP_EPROBE || ev->dyn->kind == KP_TPROBE);
}
/* sema_glob.c: wildcards in component names ('*', '?', [..] within a
   component, '**' across), against alias names and built-in points. */
bool sema_glob_has(const struct ast_ppoint *p);
bool sema_glob_alias_matches(const struct ast_ppoint *name, const struct ast_ppoint *p);
/* Is @q (no wildcards) the name of an alias? */
bool sema_glob_is_alias(struct sema_ctx *c, const struct ast_ppoint *q);
/* The built-in points @p matches, as concrete points; how many. */
unsigned sema_glob_builtins(struct sema_ctx *c, const struct ast_ppoint *p,
			    struct ast_ppoint ***points);
/* Is component @k of @p named @name? */
bool sema_point_is(const struct ast_ppoint *p, unsigned k, const char *name);
/* @s made an event or argument name in place: [A-Za-z0-9_], no leading digit. */
void sema_point_ident(char *s);
/* @p as -p1 prints it. */
const char *sema_point_text(struct sema_ctx *c, const struct ast_ppoint *p);
/* Report a point that does not resolve here (E0626), for @why. */
void sema_point_unresolved(struct sema_ctx *c, struct src_span at, const char *why);
/* Whether kernel function @name is in the init text the kernel freed
   after boot (target_init_functions(), read once). */
bool sema_point_init_text(struct sema_ctx *c, const char *name);
/* "FILE:L:C: POINT" of point @p, for the kernel's refusals at run time. */
const char *sema_point_origin(struct sema_ctx *c, const struct ast_ppoint *p);
/* The dynamic event @kind of @ev (group and name are @ev's) on @target,
   defined for probe point @origin ("FILE:L:C: POINT"). */
struct kp_dynevent *sema_point_dynevent(struct sema_ctx *c, const struct tpf_event *ev,
					enum kp_probe kind, const char *target,
					const char *origin);
/*
 * An optional point ('?', '!') whose dynamic events the target cannot
 * create (target_has(), target.h) does not resolve, so a tapset alias
 * can fall back to a tracepoint; a plain point still resolves (its -p3
 * plan prints anywhere) and the kernel's refusal is reported at run time.
 *
 * SEMA_NO_TRACEFS(c): three "%s" arguments, " (why there is no tracefs
 * to read)" when the target has none, " (the recording FILE has no such
 * event)" for -i, else "".
 */
#define SEMA_NO_TRACEFS(c) \
	(c)->in->target->recording ? " (the recording " : \
	*(c)->in->target->tracefs ? "" : " (", \
	(c)->in->target->recording ? (c)->in->target->recording : \
	*(c)->in->target->tracefs ? "" : (c)->in->target->tracefs_problem, \
	(c)->in->target->recording ? " has no such event)" : \
	*(c)->in->target->tracefs ? "" : ")"

/* ---- sema_timer.c: timer.* ---- */

/* What a timer.* point resolves to. */
struct sema_timer {
	enum sem_probe_kind kind;	/* SEM_P_TIMER, or SEM_P_TRACE (timer.profile) */
	bool none;			/* an optional point that resolved to nothing */
	const char *pp;
	int64_t period_ns, randomize_ns;	/* SEM_P_TIMER */
	struct tpf_event *event;	/* SEM_P_TRACE: the tick's tracepoint */
	struct ast_expr *cond;		/* and the condition on its record */
	const char *family;		/* -l's name, or NULL */
};

/*
 * timer.UNIT(N)[.randomize(M)] and timer.profile[.tick] (@optional:
 * report nothing about the latter): 0 when @p is not a timer, 1 with
 * @t, -1 after an error.
 */
int sema_timer_point(struct sema_ctx *c, const struct ast_ppoint *p, bool optional,
		     struct sema_timer *t);

/* ---- sema_plt.c: process().plt() ---- */

struct fetch_site;

/*
 * process("PATH").plt[("NAME")][.return] (@optional: report nothing):
 * 0 when @p is not one; 1 with the stubs' sites in *@sites (*@nsites,
 * 0 when an optional point matched none) and *@ret for .return; -1
 * after an error.
 */
int sema_plt_point(struct sema_ctx *c, const struct ast_ppoint *p, bool optional,
		   struct fetch_site ***sites, unsigned *nsites, bool *ret);

/* ---- sema_probe.c: probe points to probes ---- */

void sema_resolve_probe(struct sema_ctx *c, const struct ast_probe *probe);

/* What the resolution of one user point carries down the alias chain. */
struct point_state {
	const struct ast_probe *user;	/* the user's probe */
	const struct ast_ppoint *written; /* the point as the user wrote it */
	struct ast_stmt *body;		/* the body so far */
	struct ast_expr *cond;		/* conditions so far, and-ed */
	bool optional;
	/* A member of a wildcard's expansion (point_glob()): an alias that
	   is only an error (its body a bare __ktap_missing()) matches
	   nothing there, as it does where optional. */
	bool glob;
};

/* ---- sema_calc.c ---- */

/* $var @e whose value DWARF computes from a register (@f->calc): the
   register's field and the computation, typed; called by sema_target.c. */
enum sem_type sema_calc_expr(struct sema_ctx *c, struct ast_expr *e, const struct fetch *f);

/* ---- sema_emit.c: what the point resolvers share ---- */

/* Emit a probe of @kind, or one on a dynamic event at site @uf (a uprobe
   with @path, else a kprobe); an event name; @a and @b and-ed; the
   string argument of component @i; the functions a .function() argument
   names; what follows it (0, 1 .call, 2 .return, -1 else). */
struct sem_probe *point_emit(struct sema_ctx *c, struct point_state *st,
			     enum sem_probe_kind kind, const char *pp);
/* The dynamic event of a kprobe (@path NULL) or uprobe on @uf, entry or
   (@ret) return, for a probe point the script wrote as @written. */
struct tpf_event *sema_dyn_event(struct sema_ctx *c, struct fetch_site *uf, const char *path,
				 bool ret, const struct ast_ppoint *written);
void point_emit_dyn(struct sema_ctx *c, struct point_state *st, struct fetch_site *uf,
		    const char *path, bool ret, const char *pp);
const char *point_event_name(struct sema_ctx *c, const char *name);
struct ast_expr *point_and(struct sema_ctx *c, struct ast_expr *a, struct ast_expr *b);
const char *point_str_arg(struct sema_ctx *c, const struct ast_ppoint *p, unsigned i);
unsigned point_functions(struct sema_ctx *c, struct point_state *st, const struct ast_expr *arg,
			 const char *path, const char *module, const char ***names);
int point_fn_suffix(const struct ast_ppoint *p, unsigned at, int64_t *maxactive);
/* The number argument of component @k of @p into *@v; false: none. */
bool point_num_arg(const struct ast_ppoint *p, unsigned k, int64_t *v);
/* A point's resolution error, said once however many points meet it. */

/* ---- sema_process.c: process() points (uprobes) ---- */

/* What a process("GLOB") or .library() point stands for: points to
   resolve with @st, and what to say (at @at) when none resolves. */
struct point_expansion {
	const struct ast_ppoint **v;
	unsigned n;
	struct point_state st;
	const char *none;
	struct src_span at;
};

/* process("GLOB") and process("EXE").library("LIB"): the points of the
   files they name into @x; 0 when @p is neither, -1 after an error. */
int point_process_paths(struct sema_ctx *c, const struct point_state *st,
			const struct ast_ppoint *p, struct point_expansion *x);
/* process(...).function/.statement/.mark/.plt; 0 when @p is none. */
int point_process_points(struct sema_ctx *c, struct point_state *st, const struct ast_ppoint *p);
/* sema_libprobe.c: the tapset files' own probes (not aliases) of the
   files whose globals the script names, resolved after the script's. */
void sema_library_probes(struct sema_ctx *c);
/* A probe whose alias names another task as its context (sema_context.c):
   tid(), pid() and execname() read that task's fields. */
void sema_context_rewrite(struct sema_ctx *c, struct sem_probe *sp);
/* sema_prom.c: $value of a prometheus probe into its builtins. */
void sema_prom_rewrite(struct sema_ctx *c, struct sem_probe *sp);
/* A procfs point: its file, .maxsize(N) (0: none), .umask(N) (-1: none),
   and whether it is a .write probe. */
struct sema_pfs_point {
	const char *name;
	int64_t max, umask;
	bool write;
};
/* 1: @p is a procfs point, parsed into @out; 0: it is not; -1: a bad one
   (said). */
int sema_procfs_point(struct sema_ctx *c, const struct ast_ppoint *p,
		      struct sema_pfs_point *out);
/* $value of a procfs read probe: builtins on the file's contents
   (sema_procfs.c). */
void sema_procfs_value(struct sema_ctx *c, struct sem_probe *sp);
/* A procfs file with both read and write probes is an error. */
void sema_procfs_check(struct sema_ctx *c);
/* ... and run after the other probes of their record. */
void sema_context_order(struct sema_ctx *c);
/* Is @name a function the script or the tapset defines (not a builtin)? */
bool sema_defines_func(struct sema_ctx *c, const char *name);

/* ---- sema_type.c: names and types ---- */

void sema_types(struct sema_ctx *c);

/* ---- sema_pretty.c: pretty-printed target variables ---- */

struct rpretty_item;
struct fetch_site;
/* @e becomes the concatenation of @v (@n pieces), then is typed again. */
enum sem_type sema_pretty_items(struct sema_ctx *c, struct ast_expr *e,
				const struct rpretty_item *v, unsigned n);
/* $var$ or $var$$ @e at @site (@ret: in its .return), as stap prints it. */
enum sem_type sema_pretty_var(struct sema_ctx *c, struct ast_expr *e,
			      const struct fetch_site *site, bool ret);

/* ---- sema_check.c: stap's checks on the typed program ---- */

/* Is @name the tapset's marker of a variable this kernel cannot give
   (__ktap_missing(VAR, WHY), __ktap_missing_str() for a string)? */
bool sema_is_missing_marker(const char *name);
void sema_check(struct sema_ctx *c);

/* ---- sema_format.c: printf/sprintf formats against their arguments ---- */

void sema_format_check(struct sema_ctx *c, const struct ast_expr *call);
/* Before typing: seed the types of globals that only the dropped
   probes' bodies (c->dropped) give a type. */
void sema_check_dropped(struct sema_ctx *c);

/* ---- sema_spec.c: functions reading memory through parameters ---- */

/* The memory read kernel_long() ... stand for, or AST_MEM_NONE. */
enum ast_mem sema_mem_fn(const char *name);
/* user_string_n(), kernel_string_quoted() ... rewritten into the core
   read and text functions (@e in place); false when @e is none. */
bool sema_mem_sugar(struct sema_ctx *c, struct ast_expr *e);
/*
 * Call @e of a function that reads memory through a parameter: its copy
 * for this call site, or NULL when the call needs none.  *@failed when
 * the call cannot be specialised (reported in the last round).
 */
struct sem_func *sema_spec_call(struct sema_ctx *c, struct ast_expr *e, bool *failed);
/* Does function @f read memory through its parameter @k (itself or in
   a function it passes it to)? */
bool sema_spec_reads_param(struct sema_ctx *c, const struct ast_func *f, unsigned k);
/* A call of a function that only returns a fetchable address of its
   fetchable arguments: that address expression (a new tree); else @e. */
struct ast_expr *sema_spec_inline(struct sema_ctx *c, struct ast_expr *e);
/* Is @name __kernel_buffer or __user_buffer (sema_buffer.c's readers)? */
bool sema_is_buffer_fn(const char *name);
/* A '&' of @cast(NUMBER, ...): stap's @offsetof and @cast_sizeof. */
bool sema_is_const_addr(const struct ast_expr *e);
/* The canonical text of a fetchable expression, for names and -p2. */
const char *sema_spec_text(struct arena *a, const struct ast_expr *e);
/* Once typed: a call in a probe of its copy that only returns a field
   of the probe's event (task_pid<task=$prev>) becomes that field. */
void sema_spec_fold(struct sema_ctx *c);

/* ---- sema_badvars.c: --skip-badvars ---- */

/*
 * Is @e what stap substitutes 0 for when it cannot be read: a target
 * ($var, @cast, @var, &...), or a memory read through one (or through
 * the 0 one became)?
 */
bool sema_badvar_kind(struct ast_expr *e);
/* Replace @e, which reported an error, with 0 or ""; its type. */
enum sem_type sema_skip_badvar(struct sema_ctx *c, struct ast_expr *e);

/* ---- sema_elide.c ---- */

/* Mark an alias body's (cloned) statements elidable (silently); drop
   from @sp what has no effect (stap's optimizer before typing). */
void sema_elide_mark(struct ast_stmt *s);
void sema_elide(struct sema_ctx *c, struct sem_probe *sp);
/* The same in the bodies of the functions something calls. */
void sema_elide_funcs(struct sema_ctx *c);
/* First: which globals are used both as scalars and as arrays. */
void sema_elide_shapes(struct sema_ctx *c);
/* stap's @probewrite(x) in @sp: 1 when a statement of the user's handler
   (not an alias's) writes x, else 0, as a constant (before elision). */
void sema_probewrite(struct sema_ctx *c, struct sem_probe *sp);
/* Last, without errors: warn of the script's statements elided. */
void sema_elide_warn(struct sema_ctx *c);

/* sema_list.c: for -L, what @sp's alias body sets, before elision. */
void sema_list_vars(struct sema_ctx *c, struct sem_probe *sp);

/* ---- sema_target.c: target variables, called by typing ---- */
/* $var, $p->m, $var$, $$vars, @cast, @entry, &x, @var, @defined: @e
   resolved in place (fetch fields added to the probe's event), its type. */
enum sem_type sema_target_expr(struct sema_ctx *c, struct ast_expr *e);
/* sema_target.c's helpers that sema_addr.c ('&' of a target) shares. */
struct tpf_event *sema_target_event(struct sema_ctx *c);
int sema_target_cast_fetch(struct sema_ctx *c, struct tpf_event *ev, struct ast_expr *e,
			   struct fetch *f);
bool sema_atvar_as_target(struct sema_ctx *c, struct ast_expr *e);
enum sem_type sema_addr_of(struct sema_ctx *c, struct ast_expr *e);
/* kernel_string(A) ... on a fetchable address A: its type, or -1 when
   @e is not such a call. */
/*
 * sema_elide.c: if (@defined($x)) { ... $x ... } - once an if's condition
 * is constant (@defined() decided), the branch that never runs is dropped
 * before it is typed, as stap's elaboration drops it (its tapset's idiom
 * for a member only some kernels have).
 */
void sema_prune_if(struct arena *a, struct ast_stmt *s);

/* ---- sema_entry.c: @entry() ---- */

/* @entry(EXPR) @e typed against the entry's event (sema_target.c's case). */
enum sem_type sema_entry_expr(struct sema_ctx *c, struct ast_expr *e);
/* $param (or a chain of it) @e in a .return probe of event @ev, readable
   at the entry only: @e made @entry(@e), true (stap's entry value). */
bool sema_entry_param(struct sema_ctx *c, struct ast_expr *e, const struct tpf_event *ev);
/* Whether $var->chain of .return probe @ev reads at the function's entry
   (a parameter): the rule sema_entry_param() and @defined() share. */
bool sema_entry_reads(struct sema_ctx *c, const struct tpf_event *ev, const char *var,
		      const struct ast_chain *chain);
/* Whether kernel .return probe @ev fetches its function's arguments as
   the entry had them ($argN in a kretprobe: Linux 6.10+). */
bool sema_entry_retargs(const struct sema_ctx *c, const struct tpf_event *ev);
/* An entry event of return event @ev that is not (yet) its entry probe. */
struct tpf_event *sema_entry_event(struct sema_ctx *c, const struct tpf_event *ev);
/* "$argN" for fetch text @reg, argument N's register at a function's
   entry ("%di" on x86_64), else NULL. */
const char *sema_entry_arg_reg(const char *reg);

/* sema_spec.c: does @s (or @cond) call task_current(), itself or through
   the functions it calls? */
bool sema_spec_reads_current(struct sema_ctx *c, struct ast_stmt *s, struct ast_expr *cond);

/* sema_trigger.c: a begin or end probe that reads kernel memory gets its
   own event, a kprobe ktap fires itself (see there).  Whether @sp has it
   now (made here, where the kernel can), and the event of the probe
   being typed where it is such a probe (else NULL). */
bool sema_trigger_attach(struct sema_ctx *c, struct sem_probe *sp);
struct tpf_event *sema_trigger_event(struct sema_ctx *c);
/* Is the probe being typed a begin or end probe (which could have had
   one)?  Then its errors say SEMA_TRIGGER_WHY. */
static inline bool sema_trigger_probe(const struct sema_ctx *c)
{
	const struct sem_probe *pr = c->func ? c->func->site : c->probe;

	return pr && (pr->kind == SEM_P_BEGIN || pr->kind == SEM_P_END);
}
#define SEMA_TRIGGER_WHY "a begin or end probe reads it with a kprobe that ktap fires " \
	"itself (on getppid(2)), which needs kprobes and the getppid function in " \
	"available_filter_functions"

/* ---- sema_current.c: task_current(), the running task's address ---- */

/* @e is a call of the builtin task_current() (no script function). */
bool sema_current_call(struct sema_ctx *c, const struct ast_expr *e);
/* task_current() @e made a resolved target reading the per-CPU 'current'
   in this probe: 1; -1 after reporting why it cannot; 0: not the call. */
int sema_current_address(struct sema_ctx *c, struct ast_expr *e);
/* task_current() calls in address @x (itself, a @cast of it, either plus
   a constant) made resolved targets: 0, or -1 after reporting why not. */
int sema_current_in(struct sema_ctx *c, struct ast_expr *x);
/* Whether address @x reads through task_current() (after sema_current_in). */
bool sema_current_reads(const struct ast_expr *x);
/* How many fields fetch @arg needs: one per CPU id when it reads through
   'current', else 1; and CPU @k's copy of it. */
unsigned sema_current_copies(struct sema_ctx *c, const char *arg);
const char *sema_current_copy(struct sema_ctx *c, const char *arg, unsigned k);

/* task_pid(task_current()) ... made the context function (sema_spec.c). */
bool sema_current_task(struct sema_ctx *c, struct ast_expr *e);
/* The numbers of arguments memory reader @name takes (bit N: N), or 0
   (sema_spec.c). */
unsigned sema_mem_arities(const char *name);
/* "kernel_string() takes 1 or 2 arguments, 3 given": @set has a bit per
   arity sema_mem_arities() allows. */
void sema_mem_arity_err(struct sema_ctx *c, const struct ast_expr *e, unsigned set);
int sema_target_mem_call(struct sema_ctx *c, struct ast_expr *e);
/* probefunc() where the probed function is known: true when @e became
   its name (a constant). */
bool sema_target_probefunc(struct sema_ctx *c, struct ast_expr *e);
/* Before typing @e where a number is wanted: a string target becomes
   its pointer ($msg) or its address (&$r->tag). */
void sema_target_as_number(struct sema_ctx *c, struct ast_expr *e);

/* ---- sema_tparg.c: a tracepoint's arguments in kernel.trace() ---- */
struct rtparg_event;
/* @ev's entry in the table of tracepoint arguments, or NULL. */
const struct rtparg_event *sema_tparg_event(const struct tpf_event *ev);
/* Is target @e a tracepoint argument ($prev, $prev->pid) of @ev's probe?
   (A plain $name that is also a record field is the field.) */
bool sema_tparg_applies(struct sema_ctx *c, const struct tpf_event *ev, const struct ast_expr *e);
/* Such a target: rewritten into the record field that holds it, typed;
   or reported. */
/* Fetch @f (through task_current()) as a field of the probe's eprobe;
   @e becomes its target. */
enum sem_type sema_tparg_fetched(struct sema_ctx *c, struct ast_expr *e, const struct fetch *f);
enum sem_type sema_tparg_target(struct sema_ctx *c, struct tpf_event *ev, struct ast_expr *e);
/* @defined() of such a target: whether it resolves. */
bool sema_tparg_defined(struct sema_ctx *c, const struct tpf_event *ev, const struct ast_expr *e);
/* @cast(ARG, "T")->chain in a probe with a table entry (see sema_tparg_event). */
enum sem_type sema_tparg_cast(struct sema_ctx *c, struct tpf_event *ev, struct ast_expr *e);
/* "$preempt, $prev, ..." of @ev's tracepoint, or NULL (for hints). */
/* @defined(@cast(ARG, "T")->chain): the cast reads a field the record holds. */
bool sema_tparg_cast_defined(struct sema_ctx *c, const struct tpf_event *ev,
			     const struct ast_expr *e);
const char *sema_tparg_arg_list(struct sema_ctx *c, const struct tpf_event *ev);
/* kernel_string(ARG->chain) where the record holds the string: its type,
   or -1 when @e is not such a call. */
int sema_tparg_mem_call(struct sema_ctx *c, struct tpf_event *ev, struct ast_expr *e);

/* ---- sema_regs.c: returnval(), returnstr(), int_arg(N) ... ---- */
/* Such a call resolved into a fetch of the probe's event: its type, or
   -1 when @e is not one (or has the wrong number of arguments). */
int sema_regs_call(struct sema_ctx *c, struct ast_expr *e);
/* Is @name one of them (not a script function of that name)? */
bool sema_regs_fn(struct sema_ctx *c, const char *name);

/* N of int_arg(N), pointer_arg(N) and the like with a literal N (the
   script's own function of the name is not one); else 0. */
unsigned sema_regs_arg_number(struct sema_ctx *c, const struct ast_expr *e);
/* Such a call @e used as an address that another fetch reads through:
   resolved into the register's target, with no field of its own. */
void sema_regs_address(struct sema_ctx *c, struct ast_expr *e);

/* ---- sema_syscall.c, sema_syscall_prologue.c: the syscall.NAME family ---- */
/* The system calls matching glob @pattern: syscall tracepoints and tapset
   aliases syscall.NAME[.return]; sorted, in *@names (arena). */
unsigned sema_syscall_names(struct sema_ctx *c, const char *pattern, bool ret,
			    const char ***names);
/* True when @name is a system call stap's tapset names on some
   architecture or kernel (sema_syscall_stap.def). */
bool sema_syscall_stap_known(const char *name);
/* Is field @f one of the call's arguments (not common, not the number)? */
bool sema_syscall_is_arg(const struct tpf_field *f);
/* The generic prologue of system call @name on its tracepoint @ev:
   stap's variables, every statement elidable. */
struct ast_stmt *sema_syscall_prologue(struct sema_ctx *c, const struct tpf_event *ev,
				       const char *name, bool ret, struct src_span at);
/* After elision: a syscall probe that reads user memory becomes a kprobe
   on the system call's wrapper, or (no kprobes) gets stap's fallback. */
void sema_syscall_fetch(struct sema_ctx *c, struct sem_probe *sp);
/* $syscall, $return, $argN of a process().syscall[.return] probe @e
   renamed in place to the raw_syscalls record's fields. */
void sema_process_syscall_var(struct sema_ctx *c, const struct tpf_event *ev,
			      struct ast_expr *e);

#endif
