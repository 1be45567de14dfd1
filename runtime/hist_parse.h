/* hist_parse.h - reads the text of a tracefs `hist` file (runtime).
 *
 * In:  the bytes of events/<sys>/<event>/hist: one or more hist triggers,
 *      each "# event histogram" / "# trigger info: hist:..." header, its
 *      entries "{ k1: v1, k2: v2 } hitcount: N  v1: N", optional per-entry
 *      onmax()/onchange() lines, an optional "Snapshot taken" block and the
 *      "Totals:" footer.  libtracefs has no such parser.
 * Out: a typed struct hist_parse_file: per trigger the key and value
 *      fields named by its trigger-info line, the entries with typed key
 *      parts, u64 values, tracked maxima and saved variables, and totals.
 *
 * Format reference: kernel/trace/trace_events_hist.c (hist_trigger_show,
 * hist_trigger_print_key/val, track_data_print) of Linux 6.1, checked on
 * the real files in tests/fixtures/hist-6.1/; newer kernels' spelling
 * "common_stacktrace" is read as well.
 *
 * Ownership: hist_parse_text() returns one struct hist_parse_file that owns
 * everything reachable from it (strings, arrays); hist_parse_free() frees
 * it all.  Nothing points into the caller's text, which may be freed as
 * soon as hist_parse_text() returns.  Memory is O(input size); lines over
 * HIST_PARSE_MAX_LINE bytes and inputs over HIST_PARSE_MAX_INPUT are errors.
 */
#ifndef KTAP_HIST_PARSE_H
#define KTAP_HIST_PARSE_H

#include <stddef.h>
#include <stdint.h>

#define HIST_PARSE_MAX_LINE 65536          /* bytes per line */
#define HIST_PARSE_MAX_INPUT (1u << 30)     /* bytes per file */
#define HIST_PARSE_MAX_KEYS 8               /* kernel: 3 (TRACING_MAP_KEYS_MAX) */
#define HIST_PARSE_MAX_VALS 16              /* kernel: 3 including hitcount */
#define HIST_PARSE_MAX_FRAMES 128           /* kernel: 16 (6.1), 31 (7.2) */
#define HIST_PARSE_MAX_SAVED 64             /* kernel: SYNTH_FIELDS_MAX */
#define HIST_PARSE_MAX_TRACKS 8             /* kernel: HIST_ACTIONS_MAX */

/* A field's modifier, from the trigger-info line (".hex" ...). */
enum hist_parse_mod {
	HIST_PARSE_MOD_NONE,       /* number or string (told apart per entry) */
	HIST_PARSE_MOD_HEX,
	HIST_PARSE_MOD_SYM,
	HIST_PARSE_MOD_SYM_OFFSET,
	HIST_PARSE_MOD_SYSCALL,
	HIST_PARSE_MOD_EXECNAME,
	HIST_PARSE_MOD_LOG2,
	HIST_PARSE_MOD_BUCKETS,
	HIST_PARSE_MOD_USECS,
	HIST_PARSE_MOD_PERCENT,    /* values only */
	HIST_PARSE_MOD_GRAPH,      /* values only */
	HIST_PARSE_MOD_STACKTRACE, /* the stacktrace / common_stacktrace key */
	HIST_PARSE_MOD_OTHER,      /* a modifier this parser does not know */
};

/* A key or value field as the trigger-info line names it. */
struct hist_parse_field {
	const char *spec;      /* as written there: "call_site.sym-offset" */
	const char *name;      /* as printed in entries: "call_site" */
	enum hist_parse_mod mod;
	uint64_t buckets;      /* N of .buckets=N, else 0 */
};

enum hist_parse_kind {
	HIST_PARSE_U64,        /* u (and str for .sym/.syscall/.execname) */
	HIST_PARSE_STR,        /* str: a string key, trailing blanks removed */
	HIST_PARSE_STACK,      /* frames */
};

/* One part of an entry's key.  By modifier:
 *   plain number, .hex, .usecs   u = the number
 *   string field                 kind STR, str (padding removed)
 *   .sym, .sym-offset            u = address, str = "name" / "name+0x1d/0x50"
 *                                (with " [module]" when the kernel prints it)
 *   .syscall                     u = syscall number, str = "sys_read"
 *   .execname                    u = pid, str = the comm
 *   .log2                        u = k of "~ 2^k", hi = 2^k (UINT64_MAX for
 *                                k >= 64); the kernel's bucket 2^k holds
 *                                (2^(k-1), 2^k], and 0 and 1 in 2^0
 *   .buckets=N                   u = low bound, hi = high bound (lo + N - 1)
 *   stacktrace                   kind STACK, frames "sym+0xoff/0xsize [mod]"
 */
struct hist_parse_key {
	enum hist_parse_kind kind;
	uint64_t u;
	uint64_t hi;
	const char *str;                /* NULL when none */
	size_t n_frames;
	const char *const *frames;
};

/* A variable saved by onmax(...).save(...) / onchange(...).save(...). */
struct hist_parse_saved {
	const char *name;
	int is_str;                      /* 1: str; 0: u */
	uint64_t u;
	const char *str;
};

/* One "\tmax: N  var: V ..." / "\tchanged: N ..." line of an entry. */
struct hist_parse_track {
	int changed;                     /* 0: onmax ("max:"), 1: onchange */
	uint64_t value;
	size_t n_saved;
	const struct hist_parse_saved *saved;
};

struct hist_parse_entry {
	unsigned line;                   /* 1-based line of its "{" */
	const struct hist_parse_key *keys;   /* the trigger's n_keys parts */
	const uint64_t *vals;            /* the trigger's n_vals values; .percent
	                                    in hundredths (12.34 -> 1234), .graph
	                                    the number of '#' */
	const unsigned char *shown;      /* per value: 1 printed, 0 not (the
	                                    kernel omits expression values) */
	size_t n_tracks;
	const struct hist_parse_track *tracks;
};

struct hist_parse_trigger {
	unsigned line;                   /* line of "# event histogram" */
	const char *info;                /* "hist:keys=...:size=2048" (no state) */
	int paused;                      /* [paused] rather than [active] */
	const char *name;                /* hist:NAME:keys=... or NULL */
	const char *sort;                /* "hitcount.descending" or NULL */
	uint64_t size;                   /* size= (0 when absent) */
	const char *filter;              /* text after " if ", or NULL */
	size_t n_keys;
	const struct hist_parse_field *keys;
	size_t n_vals;                   /* hitcount first, as listed */
	const struct hist_parse_field *vals;
	size_t n_entries;
	const struct hist_parse_entry *entries;
	int has_totals;
	uint64_t hits, total_entries, dropped;
	int has_snapshot;                /* "Snapshot taken" block */
	uint64_t snapshot_value;         /* its triggering value */
	const char *snapshot_key;        /* "{ common_pid: 192 }" text, or NULL */
};

struct hist_parse_arena;

struct hist_parse_file {
	size_t n_triggers;
	const struct hist_parse_trigger *triggers;
	struct hist_parse_arena *arena;  /* private: owns everything above */
};

/* Why parsing failed: 1-based line (0: not tied to a line) and a message. */
struct hist_parse_error {
	unsigned line;
	char msg[200];
};

/* Parses LEN bytes of TEXT (need not be NUL-terminated).  On success
 * returns 0 and sets *OUT (free with hist_parse_free); an empty text
 * gives a file with no trigger.  On malformed input returns -1, sets
 * *OUT to NULL and fills *ERR (if not NULL); never reads past TEXT+LEN. */
int hist_parse_text(const char *text, size_t len, struct hist_parse_file **out,
		    struct hist_parse_error *err);

/* Frees F and everything it owns; NULL is a no-op. */
void hist_parse_free(struct hist_parse_file *f);

/* The trigger's key/value index of field NAME (as printed), or -1. */
int hist_parse_key_index(const struct hist_parse_trigger *t, const char *name);
int hist_parse_val_index(const struct hist_parse_trigger *t, const char *name);

#endif
