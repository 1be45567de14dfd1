/*
 * target.c - the description of the machine ktap compiles for (see
 * target.h): filled from the live machine or from a target directory,
 * and written to one by --save-target.
 */
#define _GNU_SOURCE
#include "target.h"
#include "arena.h"
#include "../runtime/tfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

/* Where a kernel's tracefs is mounted, in the order ktap looks. */
static const char *const tgt_tracefs_dirs[] = {
	"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
};

/* How the tracefs README shows each feature. */
static const struct {
	unsigned bit;
	const char *name;		/* for -v and --save-target */
	const char *readme;		/* text only that feature's README has */
	const char *file;		/* or a control file that exists */
} tgt_features[] = {
	{ TGT_KPROBES, "kprobes", "kprobe_events", "kprobe_events" },
	{ TGT_UPROBES, "uprobes", "uprobe_events", "uprobe_events" },
	{ TGT_DYNAMIC_EVENTS, "dynamic_events", "dynamic_events", "dynamic_events" },
	{ TGT_HIST, "hist", "hist:keys", NULL },
	{ TGT_SYNTH, "synthetic_events", "synthetic_events", "synthetic_events" },
	{ TGT_EPROBES, "eprobes", "e[:[<group>/]", NULL },
	{ TGT_STACKTRACE, "stacktrace", "stacktrace", NULL },
	{ TGT_SNAPSHOT, "snapshot", "snapshot", NULL },
	/* >= 6.4 (6.1: "the special string 'stacktrace'") */
	{ TGT_HIST_COMMON_STACK, "common_stacktrace", "common_stacktrace", NULL },
	/* >= 6.10 with CONFIG_FPROBE_EVENTS */
	{ TGT_TPROBES, "tprobes", "t[:[<group>/][<event>]] <tracepoint>", NULL },
	/* >= 6.10: the README's "kernel return probes support: $retval,
	   $arg<N>, $comm" (6.1 has no such line) */
	{ TGT_RETPROBE_ARGS, "retprobe_args", "return probes support: $retval, $arg<N>", NULL },
	/* no README text: target_hist_comm() asks the kernel, a saved
	   target's ktap-target lists it */
	{ TGT_HIST_COMM, "hist_common_comm", NULL, NULL },
};
#define TGT_NFEATURES (sizeof(tgt_features) / sizeof(tgt_features[0]))

static bool tgt_exists(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0;
}

/* The whole of file @path, NUL-terminated (malloc'd), or NULL. */
static char *tgt_slurp(const char *path, size_t *lenp)
{
	gzFile f = gzopen(path, "rb");	/* also reads plain files */
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int n;

	if (!f)
		return NULL;
	do {
		if (cap - len < 8192) {
			cap = cap ? cap * 2 : 65536;
			buf = xrealloc(buf, cap + 1);
		}
		n = gzread(f, buf + len, (unsigned)(cap - len));
		len += n > 0 ? (size_t)n : 0;
	} while (n > 0);
	gzclose(f);
	if (n < 0) {
		free(buf);
		errno = EIO;
		return NULL;
	}
	if (!buf)
		buf = xmalloc(1);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

/* Features from @dir's README (or its control files, for old copies). */
static unsigned tgt_features_of(const char *dir)
{
	char path[PATH_MAX];
	char *readme;
	unsigned i, f = 0;

	if (!*dir)
		return 0;
	snprintf(path, sizeof(path), "%s/README", dir);
	readme = tgt_slurp(path, NULL);
	for (i = 0; i < TGT_NFEATURES; i++)
		if ((readme && tgt_features[i].readme &&
		     strstr(readme, tgt_features[i].readme) &&
		     /* a copy's own README is no tracefs README */
		     strstr(readme, "tracing mini-HOWTO")) ||
		    (tgt_features[i].file && tgt_exists(dir, tgt_features[i].file)))
			f |= tgt_features[i].bit;
	free(readme);
	return f;
}

const char *target_feature_names(unsigned features, char *buf, size_t len)
{
	size_t used = 0;
	unsigned i;

	buf[0] = '\0';
	for (i = 0; i < TGT_NFEATURES; i++)
		if ((features & tgt_features[i].bit) && used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
						 used ? " " : "", tgt_features[i].name);
	return buf;
}

/*
 * The mounted tracefs, or "" with *@problem saying why.  Root mounts
 * it where it is missing, so that every probe kind finds it the same.
 */
static const char *tgt_find_tracefs(const char **problem, bool *denied_out)
{
	unsigned i;
	bool denied = false;

	for (i = 0; i < sizeof(tgt_tracefs_dirs) / sizeof(tgt_tracefs_dirs[0]); i++) {
		if (tgt_exists(tgt_tracefs_dirs[i], "events"))
			return tgt_tracefs_dirs[i];
		/* only tracefs's own place: debugfs is 0700 everywhere */
		denied |= i == 0 && errno == EACCES;
	}
	if (!denied && geteuid() == 0 &&
	    mount("nodev", tgt_tracefs_dirs[0], "tracefs", 0, NULL) == 0 &&
	    tgt_exists(tgt_tracefs_dirs[0], "events"))
		return tgt_tracefs_dirs[0];
	*denied_out = denied;
	*problem = denied ?
		"tracefs (/sys/kernel/tracing) is not readable by this user: ktap "
		"needs root (or CAP_SYS_ADMIN/CAP_PERFMON and read access to tracefs) "
		"to read event formats; or use --target DIR, a copy made with "
		"'ktap --save-target DIR' as root" :
		"tracefs is not mounted (as root: mount -t tracefs nodev "
		"/sys/kernel/tracing)";
	return "";
}

/* The kernel configuration of @release on this machine, or NULL. */
static const char *tgt_live_config(struct arena *a, const char *release, bool own)
{
	const char *places[3];
	unsigned i, n = 0;

	if (own)
		places[n++] = "/proc/config.gz";
	places[n++] = arena_printf(a, "/boot/config-%s", release);
	places[n++] = arena_printf(a, "/lib/modules/%s/build/.config", release);
	for (i = 0; i < n; i++)
		if (access(places[i], R_OK) == 0)
			return places[i];
	return NULL;
}

/* "@dir/@name" in @a. */
static const char *tgt_join(struct arena *a, const char *dir, const char *name)
{
	return arena_printf(a, "%s/%s", dir, name);
}

/* Overrides from the environment, after the target's own values. */
static void tgt_apply_env(struct ktap_target *t, struct arena *a, const struct tgt_env *env)
{
	if (env->tracefs) {
		t->asked = true;	/* a copy's formats: no kernel to ask */
		t->tracefs = env->tracefs;
		t->tracefs_problem = NULL;
		t->tracefs_denied = false;
		t->features = tgt_features_of(t->tracefs);
		t->filter_functions = NULL;
	}
	if (env->btf)
		t->btf = env->btf;
	if (env->kconfig)
		t->kconfig_path = env->kconfig;
	if (env->tracefs && tgt_exists(env->tracefs, "kallsyms"))
		t->kallsyms = tgt_join(a, env->tracefs, "kallsyms");
	t->debuginfo_path = env->debuginfo_path;
	t->exec_path = env->exec_path ? env->exec_path : "/usr/bin:/bin";
}

/*
 * Features the README shows but the kernel's configuration turned off:
 * newer kernels print the eprobe syntax whatever CONFIG_EPROBE_EVENTS
 * (its own option since 6.2; 6.1 builds eprobes with the probe events),
 * and refuse "e:" without it.  A kernel whose configuration is not
 * known keeps what its README says.
 */
static void tgt_config_off(struct ktap_target *t)
{
	char *config = (t->features & TGT_EPROBES) ? target_read_config(t) : NULL;

	if (config && strstr(config, "# CONFIG_EPROBE_EVENTS is not set"))
		t->features &= ~(unsigned)TGT_EPROBES;
	free(config);
}

/* The first line of file @path (arena), "0" when unreadable. */
static const char *tgt_first_line(struct arena *a, const char *path)
{
	char *text = tgt_slurp(path, NULL);
	const char *line = arena_strndup(a, text ? text : "0",
					 text ? strcspn(text, "\n") : 1);

	free(text);
	return line;
}

void target_live(struct ktap_target *t, struct arena *a, const struct tgt_env *env,
		 const char *release, const char *arch)
{
	struct utsname u;

	memset(t, 0, sizeof(*t));
	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	t->release = arena_strdup(a, release ? release : u.release);
	t->arch = arena_strdup(a, arch ? arch : u.machine);
	t->root = geteuid() == 0;
	t->cpus = tgt_first_line(a, "/sys/devices/system/cpu/possible");
	t->tracefs = env->tracefs ? "" : tgt_find_tracefs(&t->tracefs_problem,
							      &t->tracefs_denied);
	t->features = tgt_features_of(t->tracefs);
	t->kconfig_path = tgt_live_config(a, t->release, !release || !strcmp(release, u.release));
	t->btf = "/sys/kernel/btf/vmlinux";
	t->btf_dir = "/sys/kernel/btf";
	t->kallsyms = "/proc/kallsyms";
	tgt_apply_env(t, a, env);
	tgt_config_off(t);
	if (*t->tracefs && tgt_exists(t->tracefs, "available_filter_functions"))
		t->filter_functions = arena_printf(a, "%s/available_filter_functions",
						   t->tracefs);
}

/* The features a saved target's "features=" @list names that only
   asking the kernel tells (no README text, no control file). */
static unsigned tgt_asked_features(const char *list)
{
	unsigned i, f = 0;
	size_t n;
	const char *p;

	for (i = 0; list && i < TGT_NFEATURES; i++) {
		if (tgt_features[i].readme || tgt_features[i].file)
			continue;
		n = strlen(tgt_features[i].name);
		for (p = list; (p = strstr(p, tgt_features[i].name)); p += n)
			if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
				f |= tgt_features[i].bit;
	}
	return f;
}

bool target_hist_comm(struct ktap_target *t)
{
	if (!t->asked && t->root && *t->tracefs && (t->features & TGT_HIST) &&
	    tfs_try_trigger("sched/sched_process_exec", "hist:keys=common_comm") == 1)
		t->features |= TGT_HIST_COMM;
	t->asked = true;
	return target_has(t, TGT_HIST_COMM);
}

/* "KEY=VALUE" of @text, or NULL. */
static const char *tgt_key(struct arena *a, const char *text, const char *key)
{
	size_t n = strlen(key);
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (strncmp(p, key, n) == 0 && p[n] == '=')
			return arena_strndup(a, p + n + 1, strcspn(p + n + 1, "\n"));
	return NULL;
}

int target_load(struct ktap_target *t, struct arena *a, const struct tgt_env *env,
		const char *dir, char *err, size_t errlen)
{
	char *desc;
	const char *path;

	memset(t, 0, sizeof(*t));
	if (!tgt_exists(dir, "events") || !tgt_exists(dir, "available_events")) {
		snprintf(err, errlen, "--target %s: not a target directory (no events/ "
			 "or available_events; 'ktap --save-target DIR' writes one)", dir);
		return -1;
	}
	t->dir = dir;
	t->tracefs = dir;
	desc = tgt_slurp(arena_printf(a, "%s/ktap-target", dir), NULL);
	t->release = tgt_key(a, desc, "release");
	t->arch = tgt_key(a, desc, "arch");
	t->cpus = tgt_key(a, desc, "cpus");
	t->features = tgt_asked_features(tgt_key(a, desc, "features"));
	t->asked = true;
	free(desc);
	if (!t->cpus)
		t->cpus = "0";
	if (!t->release || !t->arch) {
		snprintf(err, errlen, "--target %s: %s/ktap-target does not give the "
			 "kernel's release= and arch=", dir, dir);
		return -1;
	}
	t->features |= tgt_features_of(dir);
	path = arena_printf(a, "%s/config", dir);
	t->kconfig_path = access(path, R_OK) == 0 ? path : NULL;
	path = arena_printf(a, "%s/btf/vmlinux", dir);
	t->btf = access(path, R_OK) == 0 ? path : NULL;
	t->btf_dir = arena_printf(a, "%s/btf", dir);
	if (tgt_exists(dir, "kallsyms"))
		t->kallsyms = tgt_join(a, dir, "kallsyms");
	t->root = geteuid() == 0;
	tgt_apply_env(t, a, env);
	tgt_config_off(t);
	if (tgt_exists(t->tracefs, "available_filter_functions"))
		t->filter_functions = arena_printf(a, "%s/available_filter_functions",
						   t->tracefs);
	return 0;
}

/* ---- kernel symbols by name ---- */

/*
 * Line @line of a kallsyms text as "ADDR TYPE NAME[\t[MODULE]]": its
 * address, and its name in @name (cut at the tab).  False when the line
 * is not one.
 */
static bool tgt_ksym_line(char *line, uint64_t *addr, const char **name)
{
	char *end, *n;

	errno = 0;
	*addr = strtoull(line, &end, 16);
	if (errno || end == line || *end != ' ' || !end[1] || end[2] != ' ')
		return false;
	n = end + 3;
	n[strcspn(n, "\t\n")] = '\0';
	*name = n;
	return true;
}

int target_kernel_symbols(const struct ktap_target *t, const char *const *names, unsigned n,
			  uint64_t *addrs, char *err, size_t errlen)
{
	FILE *f = t->kallsyms ? fopen(t->kallsyms, "r") : NULL;
	char *line = NULL;
	size_t cap = 0;
	bool *seen = calloc(n ? n : 1, sizeof(*seen)), hidden = false;
	unsigned i;

	memset(addrs, 0, n * sizeof(*addrs));
	if (!f || !seen) {
		snprintf(err, errlen, t->kallsyms ? "cannot read %s: %s" :
			 "the target directory %s has no kallsyms (saved by an older ktap: "
			 "save it again with 'ktap --save-target DIR')",
			 t->kallsyms ? t->kallsyms : t->dir, strerror(errno));
		free(seen);
		if (f)
			fclose(f);
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		const char *name;
		uint64_t addr;

		if (!tgt_ksym_line(line, &addr, &name))
			continue;
		for (i = 0; i < n; i++)
			if (!seen[i] && strcmp(name, names[i]) == 0) {
				seen[i] = true;
				addrs[i] = addr;
				hidden |= addr == 0;
			}
	}
	free(line);
	free(seen);
	fclose(f);
	if (hidden) {
		snprintf(err, errlen, "kernel addresses are hidden: %s shows every address as 0 "
			 "(kernel.kptr_restrict is set, or ktap is not root or lacks CAP_SYSLOG); "
			 "run as root with kernel.kptr_restrict=0 or 1", t->kallsyms);
		return -1;
	}
	return 0;
}

static int tgt_name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

bool target_name_in(const char *const *names, unsigned n, const char *name)
{
	return n && bsearch(&name, names, n, sizeof(*names), tgt_name_cmp);
}

unsigned target_init_functions(const struct ktap_target *t, struct arena *a, const char ***names)
{
	FILE *f = t->kallsyms ? fopen(t->kallsyms, "r") : NULL;
	const char **v = NULL, *name;
	uint64_t addr, lo = 0, hi = 0;
	char *line = NULL;
	size_t cap = 0, lcap = 0, n = 0;

	/* vmlinux's symbols come in address order: the init text's
	   functions are the lines between its two markers */
	while (f && getline(&line, &lcap, f) > 0 && !hi) {
		if (!tgt_ksym_line(line, &addr, &name))
			continue;
		if (!strcmp(name, "_sinittext"))
			lo = addr;
		else if (!strcmp(name, "_einittext"))
			hi = addr;
		else if (lo && addr >= lo && strchr("tT", name[-2])) {	/* "ADDR T NAME" */
			v = arena_grow(a, v, n, &cap, sizeof(*v));
			v[n++] = arena_strdup(a, name);
		}
	}
	free(line);
	if (f)
		fclose(f);
	if (!hi || !lo)		/* no markers (a saved target's few lines), or hidden */
		n = 0;
	if (n)
		qsort(v, n, sizeof(*v), tgt_name_cmp);
	*names = v;
	return (unsigned)n;
}

unsigned target_modules(const struct ktap_target *t, struct arena *a, const char *pattern,
			const char ***names)
{
	DIR *d = t->btf_dir ? opendir(t->btf_dir) : NULL;
	struct dirent *e;
	size_t cap = 0;
	unsigned n = 0;

	*names = NULL;
	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "vmlinux") ||
		    fnmatch(pattern, e->d_name, 0) != 0)
			continue;
		*names = arena_grow(a, *names, n, &cap, sizeof(**names));
		(*names)[n++] = arena_strdup(a, e->d_name);
	}
	closedir(d);
	if (n)
		qsort(*names, n, sizeof(**names), tgt_name_cmp);
	return n;
}

unsigned target_cpu_ids(const struct ktap_target *t)
{
	const char *s = t->cpus ? t->cpus : "0";
	unsigned long top = 0, v;
	char *end;

	while (*s) {
		v = strtoul(s, &end, 10);
		if (end == s)
			break;
		top = v > top ? v : top;
		s = end + (*end == ',' || *end == '-');
	}
	return top < 4096 ? (unsigned)top + 1 : 4096;
}

/* DIR/kallsyms: the lines of TGT_SAVED_KSYMS from the target's kallsyms. */
static int tgt_save_ksyms(const struct ktap_target *t, const char *dir, FILE *err)
{
	static const char *const names[] = TGT_SAVED_KSYMS;
	const unsigned n = sizeof(names) / sizeof(names[0]);
	uint64_t addrs[sizeof(names) / sizeof(names[0])];
	char msg[512], path[PATH_MAX];
	FILE *f;
	unsigned i;

	/* Hidden addresses or no kallsyms: the saved target has none either,
	   and says so when it is used. */
	if (target_kernel_symbols(t, names, n, addrs, msg, sizeof(msg)) != 0)
		return 0;
	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	if (!(f = fopen(path, "w"))) {
		fprintf(err, "ktap: error: writing %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++)
		if (addrs[i])
			fprintf(f, "%016llx t %s\n", (unsigned long long)addrs[i], names[i]);
	if (fclose(f) != 0) {
		fprintf(err, "ktap: error: writing %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- --save-target ---- */

static int tgt_write(const char *path, const char *data, size_t len, FILE *err)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		fprintf(err, "ktap: error: writing %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	return 0;
}

/* Copy @from (gunzipped when gzipped) to @to; a missing @from is fine
   when @optional. */
static int tgt_copy(const char *from, const char *to, bool optional, FILE *err)
{
	size_t len;
	char *data = tgt_slurp(from, &len);
	int r;

	if (!data) {
		if (optional)
			return 0;
		fprintf(err, "ktap: error: reading %s: %s\n", from, strerror(errno));
		return -1;
	}
	r = tgt_write(to, data, len, err);
	free(data);
	return r;
}

static int tgt_mkdir(const char *path, FILE *err)
{
	if (mkdir(path, 0755) != 0 && errno != EEXIST) {
		fprintf(err, "ktap: error: mkdir %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* events/SYS/EVENT/format for every event of @src. */
static int tgt_save_formats(const char *src, const char *dir, FILE *err)
{
	char from[PATH_MAX], to[PATH_MAX];
	struct dirent *s, *e;
	DIR *sd, *ed;
	int r = 0;

	snprintf(from, sizeof(from), "%s/events", src);
	if (!(sd = opendir(from))) {
		fprintf(err, "ktap: error: reading %s: %s\n", from, strerror(errno));
		return -1;
	}
	while (r == 0 && (s = readdir(sd)) != NULL) {
		if (s->d_name[0] == '.')
			continue;
		snprintf(from, sizeof(from), "%s/events/%s", src, s->d_name);
		if (!(ed = opendir(from)))
			continue;	/* a file: enable, header_page, ... */
		snprintf(to, sizeof(to), "%s/events/%s", dir, s->d_name);
		r = tgt_mkdir(to, err);
		while (r == 0 && (e = readdir(ed)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(from, sizeof(from), "%s/events/%s/%s/format", src,
				 s->d_name, e->d_name);
			if (access(from, R_OK) != 0)
				continue;
			snprintf(to, sizeof(to), "%s/events/%s/%s", dir, s->d_name, e->d_name);
			r = tgt_mkdir(to, err);
			strncat(to, "/format", sizeof(to) - strlen(to) - 1);
			if (r == 0)
				r = tgt_copy(from, to, false, err);
		}
		closedir(ed);
	}
	closedir(sd);
	return r;
}

int target_save(struct ktap_target *t, const char *dir, FILE *err)
{
	char to[PATH_MAX], from[PATH_MAX], feat[256];
	char *desc;
	int r;

	if (!*t->tracefs) {
		fprintf(err, "ktap: error: --save-target: %s\n", t->tracefs_problem);
		return -1;
	}
	if (tgt_mkdir(dir, err) != 0)
		return -1;
	snprintf(to, sizeof(to), "%s/events", dir);
	if (tgt_mkdir(to, err) != 0)
		return -1;
	target_hist_comm(t);	/* asked before it is saved */
	if (asprintf(&desc, "release=%s\narch=%s\ncpus=%s\nfeatures=%s\n", t->release,
		     t->arch, t->cpus,
		     target_feature_names(t->features, feat, sizeof(feat))) < 0)
		return -1;
	snprintf(to, sizeof(to), "%s/ktap-target", dir);
	r = tgt_write(to, desc, strlen(desc), err);
	free(desc);
	snprintf(from, sizeof(from), "%s/README", t->tracefs);
	snprintf(to, sizeof(to), "%s/README", dir);
	if (r == 0)
		r = tgt_copy(from, to, false, err);
	snprintf(from, sizeof(from), "%s/available_events", t->tracefs);
	snprintf(to, sizeof(to), "%s/available_events", dir);
	if (r == 0)
		r = tgt_copy(from, to, false, err);
	if (r == 0)
		r = tgt_save_formats(t->tracefs, dir, err);
	if (r == 0)
		r = tgt_save_ksyms(t, dir, err);
	snprintf(to, sizeof(to), "%s/config", dir);
	if (r == 0 && t->kconfig_path)
		r = tgt_copy(t->kconfig_path, to, true, err);
	snprintf(to, sizeof(to), "%s/btf", dir);
	if (r == 0 && t->btf && access(t->btf, R_OK) == 0 && (r = tgt_mkdir(to, err)) == 0) {
		snprintf(to, sizeof(to), "%s/btf/vmlinux", dir);
		r = tgt_copy(t->btf, to, true, err);
	}
	return r;
}

char *target_read_config(const struct ktap_target *t)
{
	return t->kconfig_path ? tgt_slurp(t->kconfig_path, NULL) : NULL;
}
