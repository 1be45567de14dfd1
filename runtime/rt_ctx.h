/*
 * rt_ctx.h - pass 5: the state of one run that the interpreter and the
 * builtins share, and the few services both use (errors, scratch
 * strings, output).
 *
 * The runner (run.c) owns the context: it sets it up with rt_init()
 * (interp.h), feeds it events and timer ticks, and calls rt_run_probe()
 * for each handler to run.  The interpreter (interp.c) and the builtins
 * (rt_builtins.c) both work on it; this header is all they share, so
 * neither depends on the other's file.
 */
#ifndef KTAP_RT_CTX_H
#define KTAP_RT_CTX_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "buf.h"
#include "ir.h"
#include "scratch.h"
#include "value.h"

/* Subexpressions matched() can return: the whole match and 31 groups. */
#define RT_MATCH_MAX 32

struct rt_store;
struct ksym_table;
struct ksym_names;
struct usym_ctx;
struct st_stat;

/* The record a probe handler runs for (NULL fields for begin/end/timers). */
struct rt_event {
	uint64_t ts;		/* ns, trace clock */
	int cpu;
	int tid;		/* common_pid */
	const void *data;	/* the raw record */
	int size;
	void *tep_event;	/* struct tep_event *, for the runner's callbacks */
	/* The stacks recorded with it (reader_stack.c); n = 0: none. */
	const uint64_t *kstack, *ustack;
	unsigned nkstack, nustack;
};

/* What the context builtins know of a thread (its process, its ids). */
struct rt_proc {
	int tid, tgid, ppid;
	int uid, euid, gid, egid;
	char comm[16];
	bool renamed;		/* exec'd or renamed while ktap ran */
};

/* Runtime limits, stap's -D names. */
struct rt_limits {
	unsigned maxmapentries;	/* MAXMAPENTRIES, 2048 */
	unsigned maxaction;	/* MAXACTION, statements per handler, 1000 */
	/* MAXACTION_INTERRUPTIBLE: the budget of handlers stap runs with
	   interrupts enabled (begin, end, error; ktap's timers, which run in
	   ktap's own process); 0 means stap's default, 10 x maxaction. */
	unsigned maxaction_interruptible;
	bool no_action_limit;	/* stap's --suppress-time-limits: neither */
	unsigned maxerrors;	/* MAXERRORS, 0 */
	unsigned maxnesting;	/* MAXNESTING, function call depth, 10 */
	unsigned maxstringlen;	/* MAXSTRINGLEN, 512 (strings hold 511 bytes) */
	bool timing;		/* STP_TIMING (-t): time each probe's handler */
	/* STP_MAX_BUCKETS: most @hist_linear buckets, under- and overflow
	   included; 0 means stap's 128. */
	unsigned max_buckets;
	int hist_elision;	/* HIST_ELISION, 2 (stap's: -1 elides nothing) */
	/* STP_PROCFS_BUFSIZE: a procfs file's contents without .maxsize(N);
	   0 means stap's default, MAXSTRINGLEN. */
	unsigned procfs_bufsize;
	/* stap's --suppress-handler-errors: a handler's uncaught error ends
	   that handler quietly (try { ... } catch { next }), uncounted. */
	bool suppress_errors;
	/* stap's --no-global-var-display: no globals printed at the end. */
	bool no_autoprint;
};

enum rt_status {
	RT_OK,
	RT_NEXT,		/* the handler ended ('next' or its end) */
	RT_ERROR,		/* a runtime error: message in ctx->errmsg */
	RT_RETURN,
};

struct rt_ctx {
	const struct ir_prog *prog;
	struct rt_store *store;
	struct rt_limits lim;
	uint32_t strmax;	/* the longest string value, rt_strmax(MAXSTRINGLEN) */
	FILE *outf;		/* where the script's output goes */
	/* -o FILE: its name, and the number of switch_file() calls so far
	   (output goes to FILE, then FILE.1, FILE.2 ...); NULL: stdout */
	const char *out_name;
	unsigned out_fnum;
	int out_errno;		/* the first write error on outf, 0: none */
	struct rt_buf out;	/* output not yet written */
	bool json;		/* --format json: JSON Lines (rt_json.c) */
	/* json: the last histogram text made (IR_HIST), so that printing
	   that very string prints the histogram's buckets instead */
	struct {
		const char *s;
		unsigned g, nkeys;
		struct rt_value keys[9];
	} hist_last;
	struct rt_scratch scratch;
	/* The handler running now. */
	const struct ir_probe *probe;
	const struct rt_event *ev;
	/* Runner callbacks. */
	struct rt_value (*field)(struct rt_ctx *c, unsigned idx);
	/* Did the kernel fail to copy string field @idx (a fetch argument's
	   string, faulted)?  NULL: never. */
	bool (*field_fault)(struct rt_ctx *c, unsigned idx);
	/* @entry: value @idx kept by the entry of the call this return ends. */
	struct rt_value (*entry_get)(struct rt_ctx *c, unsigned idx);
	/* @entry: keep @n values (the entry probe's) for this thread's return. */
	void (*entry_push)(struct rt_ctx *c, const struct rt_value *v, unsigned n);
	struct rt_value (*parms)(struct rt_ctx *c);
	/* Thread @tid's process information (never NULL). */
	const struct rt_proc *(*proc)(struct rt_ctx *c, int tid);
	/* 'delete g' of a global kept in kernel hists: clear them (or NULL). */
	void (*hist_clear)(struct rt_ctx *c, unsigned g);
	/* Make sure process @tgid's maps are in usym (NULL: no usym);
	   @refresh: read them again if the process still lives (an address
	   was in no mapping: mapped since, e.g. libc after the exec). */
	void (*maps)(struct rt_ctx *c, int tgid, bool refresh);
	void *runner;
	/* Session state the script can see or change. */
	int target_pid;
	bool exiting;		/* exit() was called */
	bool aborting;		/* abort(): no end probes either */
	bool failed;		/* too many errors */
	struct rt_value input;	/* input.char/.line: what was read (run_input.c) */
	/* A scrape of --prometheus (run_prom.c): the answer being built,
	   NULL outside the prometheus probes; the running probe's $value
	   is what follows prom_mark. */
	struct rt_buf *prom_body;
	size_t prom_mark;
	unsigned errors;
	/* errors --suppress-handler-errors silenced: counted in the final
	   "Number of errors" as stap does, but no error of the run */
	unsigned suppressed;
	/* Per handler run. */
	uint64_t actions;
	uint64_t action_limit;	/* MAXACTION or MAXACTION_INTERRUPTIBLE */
	unsigned depth;
	char errmsg[512];
	uint32_t errloc;
	struct rt_value *stack;	/* value stack */
	unsigned sp, stack_size;
	struct rt_value *locals;	/* frames' locals, stacked */
	unsigned lp, locals_size;
	void **iterv;		/* foreach iterators, parallel to locals */
	const void **fev;	/* and their descriptors */
	/* tokenize() and =~ state */
	char *tok_str;
	size_t tok_pos;
	char *match_str;	/* the last successful =~'s subject */
	int match_off[2 * RT_MATCH_MAX];	/* its groups' [start, end), -1: unmatched */
	unsigned match_n;	/* groups in its regex, the whole match included */
	bool match_ok;		/* whether the last =~ or !~ matched */
	/* $value of the procfs read probe running (run_fifo.c): the file's
	   contents so far, at most pfs_max bytes */
	char *pfs_buf;
	size_t pfs_len, pfs_cap, pfs_max;
	void *regexes;		/* compiled regexes, by index */
	struct st_stat **timing;	/* -t: per probe, handler ns; or NULL */
	int64_t boot_offset_ns;	/* CLOCK_REALTIME - trace clock */
	/* jiffies(): the kernel's jiffies at trace-clock time _ns, read once
	   from /proc/timer_list (rt_procfs.c); _ns 0: not read yet */
	int64_t jiffies_base, jiffies_base_ns;
	/* Symbols (rt_stack.c): the session's kallsyms table (NULL: none
	   loaded) and the processes' maps; said once when hidden. */
	const struct ksym_table *ksym;
	/* kallsyms by name, built by run_hist.c the first time a stack key
	   is read (about 20 ms for 120,000 symbols); freed by rt_fini() */
	struct ksym_names *ksym_names;
	struct usym_ctx *usym;
	bool ksym_warned;
};

/* Write buffered output to outf. */
void rt_flush(struct rt_ctx *c);

/*
 * rt_json.c.  An output chunk: what one output call (printf, print,
 * log...) appended to c->out since @mark (c->out.len before it); in
 * json mode it becomes one {"type":"printf","data":...} line.
 */
void rt_out_chunk(struct rt_ctx *c, size_t mark);

enum rt_report_kind { RT_REPORT_WARNING, RT_REPORT_ERROR };

/*
 * A run-time warning or error, at @l (NULL, or no "near": none): text
 * mode prints "WARNING: msg" / "ERROR: msg near X at F:L:C" on stderr
 * after the output so far; json mode appends a {"type":"warning"} or
 * {"type":"error"} object to the output.
 */
void rt_report(struct rt_ctx *c, enum rt_report_kind kind, const struct ir_loc *l,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* @count @what ("events") lost, or kprobe hits @what ("kprobe") missed
   on @probe (non-NULL): a warning, or a {"type":"lost"} object. */
void rt_lost(struct rt_ctx *c, const char *what, const char *probe, uint64_t count);

/* json: the globals printed at exit; global @g's histogram (@keys of
   its element, or NULL). */
void rt_json_globals(struct rt_ctx *c);
void rt_json_hist(struct rt_ctx *c, unsigned g, const struct rt_value *keys);

/* A runtime error at instruction location @loc ("near ... at F:L:C"). */
enum rt_status rt_error(struct rt_ctx *c, uint32_t loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Copy @len bytes into scratch memory as a NUL-terminated string value
 * (uncut: MAXSTRINGLEN applies where the value enters the value stack).
 */
struct rt_value rt_scratch_str(struct rt_ctx *c, const char *s, size_t len);

/*
 * The thread the handler runs for: the event's, or ktap itself in
 * begin, end and timer probes (filled into @self).  Never NULL.
 */
const struct rt_proc *rt_current(struct rt_ctx *c, struct rt_proc *self);

#endif
