/*
 * ir.h - what the compiler hands to the runtime: the plan of one run.
 *
 * The kernel side is a list of typed tracefs objects (kplan.h: dynamic
 * events, enable, filter, trigger in ktap's own instance) and the events
 * whose records the runtime handles.  The user side is bytecode for a small stack machine: one code
 * block per probe and per function, over globals, locals and the fields
 * of the current event.  The runtime never includes compiler headers;
 * this file is the whole contract.
 */
#ifndef KTAP_RT_IR_H
#define KTAP_RT_IR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kplan.h"
#include "value.h"

enum ir_op {
#define IR(name, mnem, operands) IR_##name,
#include "ir.def"
#undef IR
	IR__COUNT
};

/* Compound assignment sub-operations (OPL/OPG/AOP b), | IR_SUB_OLD. */
enum ir_sub {
	IR_SUB_ADD, IR_SUB_SUB, IR_SUB_MUL, IR_SUB_DIV, IR_SUB_MOD,
	IR_SUB_SHL, IR_SUB_SHR, IR_SUB_AND, IR_SUB_OR, IR_SUB_XOR,
	IR_SUB_CAT, IR_SUB_USHR,
};
#define IR_SUB_OLD 0x100	/* result is the old value (postfix ++/--) */

/* Builtin function ids (IR_BI's a), shared by the compiler and runtime. */
enum ir_builtin {
#define BI(id, name, ret, args, flags) IR_BI_##id,
#include "builtins.def"
#undef BI
	IR_BI__COUNT
};

enum ir_stat { IR_STAT_COUNT, IR_STAT_SUM, IR_STAT_MIN, IR_STAT_MAX,
	       IR_STAT_AVG, IR_STAT_VARIANCE,
	       IR_STAT_SUM_NONEMPTY };	/* @sum under --compatible < 1.5 */
enum ir_hist { IR_HIST_LOG, IR_HIST_LINEAR };

struct ir_insn {
	uint8_t op;
	uint8_t n;
	uint16_t a;
	int32_t b;
};

/* Where an instruction came from, for "ERROR: ... near X at F:L:C". */
struct ir_loc {
	const char *file;
	unsigned line, col;
	const char *near;	/* "operator '/'", "identifier 'c'" */
};

struct ir_code {
	struct ir_insn *insns;
	uint32_t *locs;		/* index into ir_prog.locs, per insn */
	unsigned n;
	size_t cap;
	unsigned nlocals;	/* frame size: locals and iterators */
	enum rt_type *local_types;	/* zero values for the frame */
};

struct ir_global {
	const char *name;
	enum rt_type type;	/* scalar type or array value type */
	bool is_array;
	unsigned nkeys;
	enum rt_type keys[9];
	int64_t maxentries;	/* 0: MAXMAPENTRIES */
	bool wrap;
	bool autoprint;		/* written, never read: printed at exit */
	struct rt_value init;	/* initial value (type 0: none) */
	int64_t lin_start, lin_stop, lin_step;	/* @hist_linear buckets */
	bool hist_log, hist_linear;
	int variance_shift;	/* @variance(x, N)'s bit-shift N */
};

struct ir_foreach {
	unsigned global;
	bool hist;		/* iterate a histogram's buckets */
	enum ir_hist hist_kind;
	unsigned nkeys;
	int sort_key;		/* 0 none, -1 value, k: key k */
	int sort_dir;
	enum ir_stat sort_stat;
	bool has_limit;
	uint32_t slice_mask;	/* bit k: key k is a '*' (others pushed) */
	bool has_slice;
	bool want_value;
};

enum ir_probe_kind {
	IR_P_BEGIN, IR_P_END, IR_P_ERROR, IR_P_EVENT, IR_P_TIMER,
	IR_P_INPUT_CHAR, IR_P_INPUT_LINE,	/* ktap's stdin (run_input.c) */
	IR_P_PROMETHEUS,	/* a scrape of --prometheus (run_prom.c) */
	IR_P_PROCFS_READ,	/* a reader opened a procfs file (run_fifo.c) */
	IR_P_PROCFS_WRITE,	/* a writer wrote to one */
};

struct ir_field {
	const char *name;	/* as in the event's format */
	enum rt_type type;
};

struct ir_probe {
	enum ir_probe_kind kind;
	const char *pp;
	/* pn(): the point as the script names it, wildcards expanded
	   (the alias's name for a point an alias gives), as stap's */
	const char *pn;
	int64_t priority;	/* begin/end order */
	unsigned event;		/* IR_P_EVENT: index into ir_prog.events */
	int64_t period_ns, randomize_ns;
	/* IR_P_PROCFS_READ/_WRITE: the file's name, its .maxsize(N) (0:
	   STP_PROCFS_BUFSIZE) and .umask(N) (-1: stap's default) */
	const char *procfs_file;
	int64_t procfs_max, procfs_umask;
	struct ir_field *fields;	/* fields the code reads (FIELD a) */
	unsigned nfields;
	/*
	 * @entry: a .return probe reads values (ENTRY a) that a probe on its
	 * function's entry event computed and kept (EPUSH) for the thread.
	 * That entry probe has entry_of = 1 + this probe's index.
	 */
	unsigned entry_of;
	enum rt_type *entry_types;	/* the return probe's values, for zeros */
	unsigned nentry;
	struct ir_code code;
	/* -t's report: where the script names the point (ir_prog.locs) and
	   how it writes it (stap's "from:"). */
	uint32_t loc;
	const char *written;
	bool lowered;		/* runs in the kernel only (hist triggers) */
	/* A begin or end probe on @event's record, which the runtime makes
	   itself (a getppid(2) call) just before it runs the probe */
	bool trigger;
};

struct ir_func {
	const char *name;
	unsigned nparams;
	enum rt_type ret;
	struct ir_code code;
};

/*
 * Events the runtime reads to know processes (execname(), pid() ...)
 * exactly, also for processes that are gone when their records are read.
 */
enum ir_track {
	IR_TRACK_FORK = 1,	/* task:task_newtask: pid, comm, clone_flags */
	IR_TRACK_EXEC = 2,	/* sched:sched_process_exec: pid, filename */
	IR_TRACK_RENAME = 4,	/* task:task_rename: pid, newcomm */
};

/* One event ktap enables, and the probes its records run. */
struct ir_event {
	const char *system, *name;
	unsigned track;		/* enum ir_track bits */
	/* A kprobe or kretprobe ktap defines: the probe point as the script
	   names it, for the missed-hits warning at the end of the run. */
	const char *kprobe_pp;
	bool kretprobe;
	const char *filter;	/* kernel filter, or NULL */
	/* Only hist triggers use it: not enabled, its records never come. */
	bool hist_only;
	bool streamed;		/* pass 3: a user-space probe reads it */
	/* IR_STACK_KERNEL/USER: the stacks its handlers read (the reader
	   pairs them with its records); stack_rec: this is the ftrace
	   kernel_stack (IR_STACK_KERNEL) or user_stack record itself. */
	unsigned stacks, stack_rec;
	/* A uprobe on a function's first instruction: where the return
	   address is ("+0(%sp)"), the frame the kernel's frame-pointer walk
	   of the user stack misses there; NULL otherwise. */
	const char *uentry_ra;
	/* A tracepoint: its kernel stacks start at the probe point (the
	   frames of the event's own trace function, and of the tracepoint's
	   iterator, are dropped: run.c). */
	bool kstack_tp;
	/* The event of trigger probes (ir_probe.trigger): ktap's own record
	   only (filter common_pid == $KTAP); no probe runs on it as an event. */
	bool trigger;
	unsigned *probes;
	unsigned nprobes;
	size_t pcap;
};

/*
 * A global whose updates run in the kernel as a hist trigger (issue 12):
 * the runtime reads the trigger's hist file into the store before end,
 * timer and error probes run (run_hist.c).  Several of these may name
 * one global (several probes): their entries are summed.
 */
enum ir_hkey_kind {
	IR_HK_FIELD,		/* an event field, as its value */
	IR_HK_TID,		/* common_pid: tid() */
	IR_HK_PID,		/* common_pid, to the tgid by process tracking */
	IR_HK_EXECNAME,		/* common_pid, to the comm by process tracking */
	IR_HK_CPU,		/* common_cpu */
	IR_HK_NONE,		/* common_cpu of a scalar: not a script key */
	IR_HK_CONST,		/* a constant (probefunc() of a kprobe): no column */
	IR_HK_KSTACK,		/* backtrace(): the stacktrace key's frames, back to
				   stap's hex addresses through kallsyms */
	IR_HK_SYSCALL,		/* syscall_name(FIELD): the field's number, named
				   through runtime/syscall_table.c when read ("" for
				   a number it lacks, as the builtin) */
};

struct ir_hkey {
	enum ir_hkey_kind kind;
	bool is_string;
	bool is_signed;		/* sign-extend from @size bytes */
	unsigned size;
	int col;		/* the hist's key column; -1 for IR_HK_CONST */
	const char *cstr;	/* IR_HK_CONST: the string (is_string), or */
	int64_t cnum;		/* the number */
};

enum ir_hval {
	IR_HV_COUNT,		/* a[k] = hitcount * mult (a[k]++, += N) */
	IR_HV_SUM,		/* a[k] = the value column (+= EXPR) */
	IR_HV_STAT,		/* <<<: @count = hitcount, @sum = the value column */
	IR_HV_STATX,		/* <<<: the value is the last key (exact) */
	IR_HV_DROPS,		/* nothing stored: only the hist's Dropped is reported */
	IR_HV_UNMATCHED,	/* nothing stored: an @entry pair's returns less its
				   matches (hreads[pair]'s hits) are reported */
};

#define IR_HREAD_KEYS 10	/* stap's 9 keys of an array, and the value */

struct ir_hread {
	unsigned global;
	unsigned obj;		/* the trigger: its index in kplan */
	const char *system, *event;
	/* the script's keys (several may read one column), then a scalar's
	   common_cpu or an exact statistic's value */
	struct ir_hkey keys[IR_HREAD_KEYS];
	unsigned nkeys;
	enum ir_hval val;
	int64_t mult;		/* IR_HV_COUNT */
	/* IR_HV_SUM, IR_HV_STAT: the sum is value column 1, +- column 2
	   (sign2 1 or -1, 0: none), + vconst per hit. */
	int sign2;
	int64_t vconst;
	int64_t div;		/* IR_HV_STATX: the value key is .buckets=div, the
				   value its low end / div (0, 1: none) */
	unsigned pair;		/* IR_HV_UNMATCHED: the statistic's hreads index */
};
/* ir_event.stacks and ir_prog.stacks bits (lower_stack.c). */
#define IR_STACK_KERNEL 1u	/* the kernel_stack record (stacktrace trigger) */
#define IR_STACK_USER 2u	/* the user_stack record (userstacktrace option) */
#define IR_STACK_KSYMS 4u	/* kallsyms: kernel symbols (symdata() too) */
#define IR_STACK_MAPS 8u	/* processes' maps: user symbols */
/* The fetch argument holding ir_event.uentry_ra's return address. */
#define IR_STACK_RA_FIELD "__ktap_ra"

struct fmt_spec;

struct ir_prog {
	struct rt_value *consts;
	unsigned nconsts;
	size_t ccap;
	struct ir_global *globals;
	unsigned nglobals;
	struct ir_func *funcs;
	unsigned nfuncs;
	struct ir_probe *probes;
	unsigned nprobes;
	struct ir_event *events;
	unsigned nevents;
	size_t ecap;
	struct ir_foreach *foreachs;
	unsigned nforeachs;
	size_t fecap;
	struct fmt_spec **formats;
	unsigned nformats;
	size_t fmcap;
	const char **regexes;
	unsigned nregexes;
	size_t rcap;
	struct ir_loc *locs;
	unsigned nlocs;
	size_t lcap;
	struct kp_plan kplan;	/* the kernel objects, in the order applied */
	bool uses_target;	/* filters mention $TARGET */
	struct ir_hread *hreads;	/* globals kept in kernel hists */
	unsigned nhreads;
	size_t hrcap;
	bool hist_track;	/* a hist key needs process tracking */
	unsigned stacks;	/* IR_STACK_* bits of the whole program */
};

/* -p3: print the plan (kernel writes, then the code). */
void ir_dump(FILE *out, const struct ir_prog *p);

/* Its user-space part only (-i: nothing is written to a kernel). */
void ir_dump_user(FILE *out, const struct ir_prog *p);
const char *ir_op_name(enum ir_op op);
const char *ir_builtin_name(unsigned id);

#endif
