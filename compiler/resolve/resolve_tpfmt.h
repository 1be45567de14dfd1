/*
 * resolve_tpfmt.h - trace event formats, read from tracefs at compile time.
 *
 * Pass 2 needs each tracepoint's fields (name, C type, size, signedness)
 * to type $field expressions, and the list of available events to expand
 * wildcards.  Only the formats of events a script names are read, from
 * the tracing directory @dir the target names (target.h: the mounted
 * tracefs, a --target directory, or $KTAP_TRACEFS).
 */
#ifndef KTAP_RESOLVE_TPFMT_H
#define KTAP_RESOLVE_TPFMT_H

#include <stdbool.h>
#include <stddef.h>

struct arena;
struct kp_dynevent;

enum tpf_kind {
	TPF_INT,		/* integer or pointer: a long in the script */
	TPF_CHARS,		/* char[N]: a string */
	TPF_DATALOC_STR,	/* __data_loc char[]: a string */
	TPF_OTHER,		/* arrays, dynamic arrays of other types */
};

struct tpf_field {
	const char *name;
	const char *ctype;	/* as written: "const char *", "pid_t" */
	unsigned offset, size;
	bool is_signed;
	bool common;		/* common_* header field */
	bool pointer;		/* a pointer: the value is an address */
	enum tpf_kind kind;
	const char *fetch;	/* dynamic events: the fetch argument */
	unsigned nelem;		/* TYPE NAME[N]: N, else 0 */
	/* Element N of an array of integers, "NAME[N]" (sema_target.c adds
	   one per element a script reads): read by ktap, never a kernel
	   filter's or hist's field, whose syntax has no index. */
	bool element;
	/* A byte buffer a dynamic event fetches ("+0(%si):u8[16]", sema_buffer.c):
	   read whole as a string, "NAME[]" (also an element: never the kernel's). */
	bool bytes;
	/* A fetch through task_current() (sema_current.c): this is CPU 0's
	   and the next @percpu - 1 fields are the other CPUs' copies; the
	   record's CPU picks one (so, like an element, never the kernel's). */
	unsigned percpu;
	/* Pass 2 resolved a read of it: ktap's eprobe or tprobe on a
	   tracepoint fetches only such fields of the tracepoint's. */
	bool used;
};

struct tpf_event {
	const char *system, *name;
	unsigned id;
	struct tpf_field *fields;
	unsigned nfields;
	/*
	 * A dynamic event ktap defines (kprobe or uprobe): the kernel object
	 * (runtime/kplan.h; its fetch arguments are this event's fields,
	 * added as pass 2 meets target variables, copied in by pass 3), and
	 * the function it probes (struct fetch_site *).
	 */
	struct kp_dynevent *dyn;
	const void *dyn_func;
	bool dyn_return;
	struct tpf_event *dyn_entry;	/* .return with @entry: its entry probe */
	const struct tpf_event *dyn_tp;	/* an eprobe or tprobe: its tracepoint */
	bool all_used;		/* $$vars or $$parms reads every field */
	size_t fcap;
};

/*
 * Read @dir/events/@system/@name/format.  Returns NULL (errno set) when the
 * event does not exist or cannot be read.  Allocated in @a.
 */
struct tpf_event *tpf_load(struct arena *a, const char *dir, const char *system,
			   const char *name);

/* Parse the text of a format file (exposed for tests). */
struct tpf_event *tpf_parse(struct arena *a, const char *system,
			    const char *text);

/*
 * Every "system:event" of @dir/available_events matching the glob patterns
 * (@system may be NULL for any).  Returns the count; *out is an
 * arena-allocated array of "system:event" strings, sorted.  Another ktap
 * session's group (ktap_*) matches only a @system that names one.
 */
unsigned tpf_match(struct arena *a, const char *dir, const char *system,
		   const char *event, char ***out);

const struct tpf_field *tpf_field(const struct tpf_event *e, const char *name);

#endif
