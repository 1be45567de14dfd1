/*
 * target.h - what ktap compiles for: one description of the target
 * machine, filled once at session set-up (session.c).
 *
 * In:  the live machine (uname, tracefs, /sys/kernel/btf, the kernel
 *      configuration) or a target directory written by --save-target,
 *      plus the environment overrides the session read (struct tgt_env).
 * Out: struct ktap_target, which the passes read instead of looking at
 *      the machine themselves: nothing below the session calls getenv(),
 *      access() or reads /proc.
 *
 * A target directory (--target DIR) looks like a tracefs mount with a
 * few more files, so that an old KTAP_TRACEFS copy is one too:
 *
 *   DIR/README, DIR/available_events, DIR/events/SYS/EVENT/format
 *   DIR/ktap-target         "release=R", "arch=A" and "cpus=LIST" lines
 *   DIR/config              the kernel configuration (optional)
 *   DIR/btf/vmlinux         the kernel's BTF (optional; modules beside it)
 *   DIR/available_filter_functions   (optional)
 */
#ifndef KTAP_TARGET_H
#define KTAP_TARGET_H

#include <stdbool.h>
#include <stdio.h>

struct arena;

/* Tracefs features, as the target's tracefs README lists them. */
enum tgt_feature {
	TGT_KPROBES = 1u << 0,		/* kprobe_events */
	TGT_UPROBES = 1u << 1,		/* uprobe_events */
	TGT_DYNAMIC_EVENTS = 1u << 2,	/* dynamic_events */
	TGT_HIST = 1u << 3,		/* hist triggers */
	TGT_SYNTH = 1u << 4,		/* synthetic_events */
	TGT_EPROBES = 1u << 5,		/* event probes (e:) */
	TGT_STACKTRACE = 1u << 6,	/* the stacktrace event trigger */
	TGT_SNAPSHOT = 1u << 7,		/* the snapshot trigger */
	TGT_HIST_COMMON_STACK = 1u << 8, /* hist's stack key is spelled common_stacktrace */
	TGT_TPROBES = 1u << 9,		/* tracepoint probe events (t:, >= 6.10) */
};

/*
 * The environment variables ktap reads, read once by the session (each
 * NULL when unset).  They override what the target says.
 */
struct tgt_env {
	const char *tracefs;		/* KTAP_TRACEFS: tracing directory */
	const char *btf;		/* KTAP_BTF: vmlinux BTF file */
	const char *debuginfo_path;	/* KTAP_DEBUGINFO_PATH: dirs, ':' */
	const char *kconfig;		/* KTAP_KCONFIG: kernel .config file */
	const char *exec_path;		/* PATH: for process("NAME") */
	const char *tmpdir;		/* TMPDIR: -i's scratch directory */
};

struct ktap_target {
	const char *dir;		/* --target DIR, or NULL: this machine */
	const char *release;		/* kernel release (uname -r) */
	const char *arch;		/* machine (uname -m) */
	const char *cpus;		/* possible CPUs ("0-3"), for KRETACTIVE */
	/*
	 * Where event formats, available_events and the README are read:
	 * the mounted tracefs, DIR, or KTAP_TRACEFS; "" when there is none,
	 * and then @tracefs_problem says why ("not mounted", ...).
	 */
	const char *tracefs;
	const char *tracefs_problem;
	bool tracefs_denied;		/* it exists, but this user cannot read it */
	unsigned features;		/* enum tgt_feature bits */
	const char *kconfig_path;	/* the kernel configuration, or NULL */
	const char *btf;		/* vmlinux BTF file, or NULL */
	const char *btf_dir;		/* modules' BTF files (NAME) */
	const char *debuginfo_path;	/* extra DWARF places, or NULL */
	const char *exec_path;		/* search path for process("NAME") */
	const char *filter_functions;	/* available_filter_functions */
	bool root;			/* can create tracefs objects */
	/*
	 * -i FILE: the trace-cmd recording the script reads instead of the
	 * kernel (target_tracedat.c), else NULL.  Its event formats are in
	 * @tracefs, a directory of ktap's own (@scratch, removed by
	 * target_cleanup()); @recording_cpus is its CPU count.
	 */
	const char *recording;
	const char *scratch;
	int recording_cpus;
};

/*
 * Describe this machine (@release/@arch override uname when non-NULL,
 * as -r/-a do) with @env's overrides.  Strings live in @a.
 */
void target_live(struct ktap_target *t, struct arena *a, const struct tgt_env *env,
		 const char *release, const char *arch);

/*
 * Describe the machine saved in @dir (--target).  Returns 0, or -1 with
 * a message in @err when @dir is not a target directory.
 */
int target_load(struct ktap_target *t, struct arena *a, const struct tgt_env *env,
		const char *dir, char *err, size_t errlen);

/*
 * Describe the machine trace-cmd recording @file was made on (-i), as
 * far as the file tells: its event formats (copied into a scratch
 * directory shaped like a target directory), CPUs and no tracefs
 * features (nothing is created in a kernel); the release and
 * architecture are this machine's unless @release/@arch say otherwise.
 * Returns 0, or -1 with a message in @err (not a trace-cmd file, ...).
 */
int target_tracedat(struct ktap_target *t, struct arena *a, const struct tgt_env *env,
		    const char *file, const char *release, const char *arch,
		    char *err, size_t errlen);

/* Remove what describing @t left on disk (target_tracedat's scratch). */
void target_cleanup(struct ktap_target *t);

/*
 * --save-target: copy what describes @t (README, available_events, every
 * event format, BTF, configuration) into directory @dir.  Returns 0, or
 * -1 after printing why to @err.
 */
int target_save(const struct ktap_target *t, const char *dir, FILE *err);

static inline bool target_has(const struct ktap_target *t, unsigned features)
{
	return (t->features & features) == features;
}

/*
 * The kernel configuration's text (decompressed when gzipped), or NULL
 * when the target has none.  Malloc'd; the caller frees it.
 */
char *target_read_config(const struct ktap_target *t);

/* "kprobes hist ..." for -v and the tests; static storage. */
const char *target_feature_names(unsigned features, char *buf, size_t len);

#endif
