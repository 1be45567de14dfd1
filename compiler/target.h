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
 *   DIR/kallsyms            the kernel symbols ktap looks up by name
 *                           (TGT_SAVED_KSYMS; optional), as /proc/kallsyms
 */
#ifndef KTAP_TARGET_H
#define KTAP_TARGET_H

#include <stdbool.h>
#include <stdint.h>
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
	/* hist keys on common_comm (6.16): no README line says so, the
	   kernel is asked (target_hist_comm()) */
	TGT_HIST_COMM = 1u << 10,
	/* kretprobes fetch $argN, the arguments saved at the entry (6.10+) */
	TGT_RETPROBE_ARGS = 1u << 11,
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
	const char *procfs_dir;		/* KTAP_PROCFS_DIR: procfs probes' files */
	const char *stap_examples;	/* KTAP_STAP_EXAMPLES: --example's directory */
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
	/*
	 * Kernel symbols by name (target_kernel_symbols): /proc/kallsyms
	 * live, DIR/kallsyms of a target directory (or of KTAP_TRACEFS when
	 * it has one), NULL when a target directory has none.
	 */
	const char *kallsyms;
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
	bool asked;			/* the kernel was asked (TGT_HIST_COMM) */
};

/*
 * Can the target's hists key on common_comm (the task's name when the
 * event happened)?  A --target DIR says so in its ktap-target's
 * features= (--save-target writes it); this machine's kernel is asked
 * once, as root, by trying "hist:keys=common_comm" in an instance of
 * ktap's own that is removed at once (runtime/tfs_probe.c): the tracefs
 * README has no line for it.  False without hist triggers, without
 * root, and with KTAP_TRACEFS.
 */
bool target_hist_comm(struct ktap_target *t);

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
int target_save(struct ktap_target *t, const char *dir, FILE *err);

static inline bool target_has(const struct ktap_target *t, unsigned features)
{
	return (t->features & features) == features;
}

/*
 * The kernel configuration's text (decompressed when gzipped), or NULL
 * when the target has none.  Malloc'd; the caller frees it.
 */
char *target_read_config(const struct ktap_target *t);

/*
 * The kernel symbols a saved target keeps in DIR/kallsyms: the ones the
 * passes look up by name: the scheduler tick's handler for timer.profile,
 * named differently across kernels (sema_timer.c), and the per-CPU
 * 'current' task_current() reads (sema_current.c).
 */
#define TGT_SAVED_KSYMS { "tick_sched_timer", "tick_nohz_handler", \
			  "current_task", "pcpu_hot", "__per_cpu_offset" }

/*
 * Look up @n kernel symbols by name in the target's kallsyms: @addrs[i]
 * is @names[i]'s address, 0 when the kernel has no such symbol (the
 * first of equal names: functions precede modules' in kallsyms).
 * Returns 0, or -1 with why in @err: no kallsyms for this target, it
 * cannot be read, or it hides the addresses (kptr_restrict, or not
 * root: every address reads 0).
 */
/*
 * The functions of the kernel's init text (between _sinittext and
 * _einittext in the target's kallsyms), which the kernel frees after
 * boot: sorted in @names (@a), their count; 0 when kallsyms is missing,
 * hides addresses, or lacks the markers (a saved target's few lines).
 */
unsigned target_init_functions(const struct ktap_target *t, struct arena *a,
			       const char ***names);
/* Whether @name is one of the @n sorted @names (as target_init_functions()
   gives them). */
bool target_name_in(const char *const *names, unsigned n, const char *name);

int target_kernel_symbols(const struct ktap_target *t, const char *const *names, unsigned n,
			  uint64_t *addrs, char *err, size_t errlen);

/*
 * The loaded modules whose names match the glob @pattern, sorted: those
 * with BTF (the files beside vmlinux's: a live kernel's /sys/kernel/btf,
 * a saved target's DIR/btf).  How many, their names in *@names (in @a);
 * 0 when none or no such directory.
 */
unsigned target_modules(const struct ktap_target *t, struct arena *a, const char *pattern,
			const char ***names);

/*
 * The number of CPU ids the kernel has per-CPU data for (nr_cpu_ids):
 * the highest possible CPU ("0-3,8": 8) plus one; 1 when unknown.
 */
unsigned target_cpu_ids(const struct ktap_target *t);

/* "kprobes hist ..." for -v and the tests; static storage. */
const char *target_feature_names(unsigned features, char *buf, size_t len);

#endif
