/*
 * session.c - session set-up, target facts, and pass 1 over the tapset
 * library and the script (see session.h).  The environment is read here
 * and nowhere else (session_target); the target's description comes
 * from target.c.
 */
#include "session.h"
#include "arena.h"
#include "lexer.h"
#include "parse.h"
#include "tapset.h"
#include "../runtime/ksym.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef KTAP_TAPSET_DIR
#define KTAP_TAPSET_DIR "/usr/local/share/ktap/tapset"
#endif


void session_init(struct ktap_session *s, FILE *err)
{
	memset(s, 0, sizeof(*s));
	s->arena = arena_new();
	src_init(&s->src);
	diag_init(&s->diag, &s->src, err);
	s->opt.last_pass = 5;
	s->opt.target_pid = -1;
}

void session_free(struct ktap_session *s)
{
	target_cleanup(&s->target);
	free(s->kconfig);
	relf_files_free(&s->up);
	src_release(&s->src);
	arena_free(s->arena);
	memset(s, 0, sizeof(*s));
}

/* Load the target's kernel configuration once (target.h). */
static void session_load_kconfig(struct ktap_session *s)
{
	s->kconfig_loaded = true;
	s->kconfig = target_read_config(&s->target);
}

/*
 * Value of CONFIG_ option @name (pp_facts.config): "y", "m", a string
 * or number as the .config writes it (quotes kept, as stap keeps
 * them), and "" when the option is unset
 * ("# CONFIG_X is not set", or absent), which is what stap compares.
 */
static const char *session_config(void *ctx, const char *name)
{
	struct ktap_session *s = ctx;
	size_t n = strlen(name);
	const char *p;

	if (!s->kconfig_loaded)
		session_load_kconfig(s);
	for (p = s->kconfig; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		if (strncmp(p, name, n) == 0 && p[n] == '=') {
			const char *v = p + n + 1, *e = strchr(v, '\n');

			/* raw, quotes and all, as stap keeps it */
			return arena_strndup(s->arena, v, e ? (size_t)(e - v) : strlen(v));
		}
	}
	return "";
}

/* An environment variable, NULL when unset or empty. */
static const char *session_getenv(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

void session_color(struct ktap_session *s)
{
	switch (s->opt.color) {
	case KTAP_COLOR_ALWAYS: s->diag.color = true; break;
	case KTAP_COLOR_NEVER: s->diag.color = false; break;
	case KTAP_COLOR_AUTO:
		s->diag.color = !session_getenv("NO_COLOR") &&
				isatty(fileno(s->diag.out));
		break;
	}
}

int session_target(struct ktap_session *s)
{
	char err[PATH_MAX + 256];
	const char *eager = session_getenv("KTAP_TAPSET_EAGER");

	/* Every environment variable ktap reads is read here (--help). */
	s->env.tracefs = session_getenv("KTAP_TRACEFS");
	s->env.btf = session_getenv("KTAP_BTF");
	s->env.debuginfo_path = session_getenv("KTAP_DEBUGINFO_PATH");
	s->env.kconfig = session_getenv("KTAP_KCONFIG");
	s->env.exec_path = session_getenv("PATH");
	s->env.tmpdir = session_getenv("TMPDIR");
	s->env.procfs_dir = session_getenv("KTAP_PROCFS_DIR");
	s->env.stap_examples = session_getenv("KTAP_STAP_EXAMPLES");
	if (s->opt.replay_dir)		/* --replay: the recording is the tracefs */
		s->env.tracefs = s->opt.replay_dir;
	s->tapset_eager = eager && *eager != '0';
	s->up.target = &s->target;
	if (s->opt.input_file) {	/* -i: the recording's machine */
		if (target_tracedat(&s->target, s->arena, &s->env, s->opt.input_file,
				    s->opt.release, s->opt.arch, err, sizeof(err)) == 0)
			return 0;
		diag_plain(&s->diag, DIAG_ERROR, "%s", err);
		return -1;
	}
	if (!s->opt.target_dir) {
		target_live(&s->target, s->arena, &s->env, s->opt.release, s->opt.arch);
		return 0;
	}
	if (target_load(&s->target, s->arena, &s->env, s->opt.target_dir, err,
			sizeof(err)) != 0) {
		diag_plain(&s->diag, DIAG_ERROR, "%s", err);
		return -1;
	}
	if (s->opt.release)
		s->target.release = s->opt.release;
	if (s->opt.arch)
		s->target.arch = s->opt.arch;
	return 0;
}

void session_facts(struct ktap_session *s)
{
	const char *release, *dash;

	if (!s->target.release)
		session_target(s);
	release = s->target.release;
	dash = strchr(release, '-');
	s->facts.kernel_vr = arena_strdup(s->arena, release);
	s->facts.kernel_v = dash ? arena_strndup(s->arena, release,
						 (size_t)(dash - release)) :
				   s->facts.kernel_vr;
	s->facts.arch = arena_strdup(s->arena, s->target.arch);
	s->facts.runtime = "kernel";
	s->facts.systemtap_v = s->opt.compatible ? s->opt.compatible : KTAP_SYSTEMTAP_V;
	s->facts.privilege = "stapdev";
	s->facts.guru = s->opt.guru;
	s->facts.config = session_config;
	s->facts.config_ctx = s;
	s->facts.args = s->opt.args;
	s->facts.nargs = s->opt.nargs;
}

static bool session_is_dir(const char *path)
{
	struct stat st;

	return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The directory of the running program (arena), or NULL. */
static const char *session_exe_dir(struct ktap_session *s)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	return slash ? arena_strndup(s->arena, exe, (size_t)(slash - exe)) : NULL;
}

/*
 * An uninstalled ktap runs from its build tree (which holds
 * config.status): it then uses the tapset of its source tree.  An
 * installed one looks beside itself first (a moved or DESTDIR install),
 * then where configure's --prefix put the tapset.
 */
const char *session_tapset_dir(struct ktap_session *s, const char **tried)
{
	const char *env = session_getenv("KTAP_TAPSET");
	const char *exe = session_exe_dir(s), *places[4];
	unsigned n = 0, i;

	if (env)
		places[n++] = env;
#ifdef KTAP_SRCDIR_TAPSET
	if (!env && exe && access(arena_printf(s->arena, "%s/config.status", exe), F_OK) == 0)
		places[n++] = KTAP_SRCDIR_TAPSET;
#endif
	if (!env && exe)
		places[n++] = arena_printf(s->arena, "%s/../share/ktap/tapset", exe);
	if (!env)
		places[n++] = KTAP_TAPSET_DIR;
	*tried = "";
	for (i = 0; i < n; i++) {
		if (session_is_dir(places[i]))
			return places[i];
		*tried = arena_printf(s->arena, "%s%s%s", *tried, i ? ", " : "", places[i]);
	}
	return NULL;
}

static void session_add_library(struct ktap_session *s, struct ast_file *f)
{
	s->library = arena_grow(s->arena, s->library, s->nlibrary, &s->libcap,
				sizeof(*s->library));
	s->library[s->nlibrary++] = f;
}

/*
 * Lex, preprocess and parse file @id.  @out receives the preprocessed
 * tokens (what the file refers to); NULL for a macro file.
 */
static struct ast_file *session_parse_file(struct ktap_session *s, uint32_t id,
					   bool library, bool macros_only,
					   struct tok_vec *out)
{
	struct tok_vec raw = { 0 }, pp_out = { 0 };
	struct pp_ctx pp = { s->arena, &s->diag, &s->src, &s->facts, &s->macros };

	if (!out)
		out = &pp_out;
	lex_file(s->arena, &s->diag, &s->src, id, &raw);
	pp_run(&pp, &raw, out, macros_only);
	if (macros_only)
		return NULL;
	return parse_tokens(s->arena, &s->diag, &s->src, id, out->v, out->n,
			    s->opt.guru, library);
}

static int session_cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *@suffix files of @dir, in name order (@n of them; arena storage). */
static char **session_list_dir(struct ktap_session *s, const char *dir,
			       const char *suffix, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t cap = 0, sl = strlen(suffix);

	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);

		if (l <= sl || strcmp(e->d_name + l - sl, suffix) != 0)
			continue;
		names = arena_grow(s->arena, names, *n, &cap, sizeof(*names));
		names[(*n)++] = arena_printf(s->arena, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(names, *n, sizeof(*names), session_cmp_names);
	return names;
}

/* Read tapset file @path into the source map; its id, or 0 (warned). */
static uint32_t session_load_tapset(struct ktap_session *s, const char *path)
{
	uint32_t id = src_load(&s->src, path);

	if (!id) {
		diag_plain(&s->diag, DIAG_WARNING, "cannot read tapset file %s: %s",
			   path, strerror(errno));
		return 0;
	}
	s->src.files[id]->tapset = true;
	return id;
}

/* Parse every *@suffix file of @dir, in name order. */
static void session_parse_dir(struct ktap_session *s, const char *dir,
			      const char *suffix, bool macros_only)
{
	size_t n, i;
	char **names = session_list_dir(s, dir, suffix, &n);

	for (i = 0; i < n; i++) {
		uint32_t id = session_load_tapset(s, names[i]);
		struct ast_file *f;

		if (!id)
			continue;
		f = session_parse_file(s, id, true, macros_only, NULL);
		if (f)
			session_add_library(s, f);
	}
}

/* The tapset directories in search order: -I dirs, then the library. */
static void session_parse_library(struct ktap_session *s, bool macros_only)
{
	unsigned i;

	for (i = 0; i < s->opt.ninclude; i++)
		session_parse_dir(s, s->opt.include[i], macros_only ? ".stpm" : ".stp",
				  macros_only);
	if (s->tapset_dir)
		session_parse_dir(s, s->tapset_dir, macros_only ? ".stpm" : ".stp",
				  macros_only);
}

/*
 * Read @path whole into *@buf (grown as needed, *@cap bytes); its
 * length, or -1 with errno set.  The scan does not need the source map's
 * line index, which src_load() builds: files not pulled in never get one.
 */
static ssize_t session_read(const char *path, char **buf, size_t *cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	size_t len = 0;
	ssize_t r;

	if (fd < 0)
		return -1;
	do {
		if (len == *cap) {
			*cap = *cap ? *cap * 2 : 64 * 1024;
			*buf = xrealloc(*buf, *cap);
		}
		r = read(fd, *buf + len, *cap - len);
		len += r > 0 ? (size_t)r : 0;
	} while (r > 0 || (r < 0 && errno == EINTR));
	err = errno;
	close(fd);
	errno = err;
	return r < 0 ? -1 : (ssize_t)len;
}

static void session_index_dir(struct ktap_session *s, struct tapset_index *ix,
			      const char *dir, char **buf, size_t *cap)
{
	size_t n, i;
	char **names = session_list_dir(s, dir, ".stp", &n);

	for (i = 0; i < n; i++) {
		ssize_t len = session_read(names[i], buf, cap);

		if (len < 0)
			diag_plain(&s->diag, DIAG_WARNING, "cannot read tapset file %s: %s",
				   names[i], strerror(errno));
		else
			tapset_add(ix, names[i], *buf, (size_t)len);
	}
}

/* Is token @k of @m a declaration keyword (not '.function', '->global')? */
static bool session_declares(const struct pp_macro *m, size_t k)
{
	enum tok_kind t = m->body[k].kind;

	if (t != TOK_PROBE && t != TOK_FUNCTION && t != TOK_GLOBAL && t != TOK_PRIVATE)
		return false;
	return k == 0 || (m->body[k - 1].kind != TOK_DOT && m->body[k - 1].kind != TOK_ARROW);
}

/*
 * A library macro whose body declares something could make a tapset
 * file provide names its text does not show: then parse everything.
 */
static bool session_macros_declare(const struct ktap_session *s)
{
	size_t i, k;

	for (i = 0; i < s->macros.n; i++)
		for (k = 0; s->macros.v[i].library && k < s->macros.v[i].nbody; k++)
			if (session_declares(&s->macros.v[i], k))
				return true;
	return false;
}

/*
 * Parse the tapset files the script needs, then those the files parsed
 * need, until nothing new (tapset.h).  s->library ends in the order of
 * the eager parse (directories in search order, names sorted), so pass 2
 * sees the same declarations in the same order.
 */
static void session_pull(struct ktap_session *s, const struct tok_vec *script)
{
	struct tapset_index *ix = tapset_new(s->arena);
	struct ast_file **parsed;
	char *buf = NULL;
	size_t cap = 0;
	unsigned i;
	int next;

	for (i = 0; i < s->opt.ninclude; i++)
		session_index_dir(s, ix, s->opt.include[i], &buf, &cap);
	if (s->tapset_dir)
		session_index_dir(s, ix, s->tapset_dir, &buf, &cap);
	free(buf);
	s->ntapset = tapset_count(ix);
	parsed = arena_alloc(s->arena, (s->ntapset + 1) * sizeof(*parsed));
	if (session_macros_declare(s))
		tapset_need_all(ix);
	tapset_exclude(ix, s->script);
	tapset_need_tokens(ix, script->v, script->n);
	tapset_need_points(ix, s->script);
	while ((next = tapset_next(ix)) >= 0) {
		struct tok_vec out = { 0 };
		uint32_t id = session_load_tapset(s, tapset_path(ix, (unsigned)next));

		if (!id)
			continue;
		parsed[next] = session_parse_file(s, id, true, false, &out);
		tapset_need_tokens(ix, out.v, out.n);
		tapset_need_points(ix, parsed[next]);
	}
	for (i = 0; i < s->ntapset; i++)
		if (parsed[i])
			session_add_library(s, parsed[i]);
}

/*
 * Whether pass 1 loads the tapset lazily.  -p1 parses all of it, as
 * stap's pass 1 does (it is how a tapset's syntax is checked), and the
 * dumps list all of it; KTAP_TAPSET_EAGER=1 (tests, benchmarks) too.
 */
static bool session_lazy(const struct ktap_session *s)
{
	return !s->opt.dump && s->opt.last_pass > 1 && !s->tapset_eager;
}

/*
 * --example NAME: the file NAME under stap's examples directory (one
 * level of subdirectories, as the catalogue is laid out), or NULL.
 */
static const char *session_find_example(struct ktap_session *s, const char *name)
{
	const char *dir = s->env.stap_examples && *s->env.stap_examples ?
			  s->env.stap_examples : "/usr/share/systemtap/examples";
	const char *path = arena_printf(s->arena, "%s/%s", dir, name), *found = NULL;
	DIR *d;
	struct dirent *e;

	if (access(path, R_OK) == 0)
		return path;
	if (!(d = opendir(dir)))
		return NULL;
	while (!found && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		path = arena_printf(s->arena, "%s/%s/%s", dir, e->d_name, name);
		if (access(path, R_OK) == 0)
			found = path;
	}
	closedir(d);
	return found;
}

/* The main script's source id (-e, a file, --example NAME), or 0 after reporting. */
static uint32_t session_main_source(struct ktap_session *s)
{
	const char *file = s->opt.script_file;
	uint32_t id;

	if (s->opt.script_text)
		return src_add(&s->src, "<input>", s->opt.script_text, strlen(s->opt.script_text));
	if (s->opt.example && file && !strchr(file, '/')) {
		const char *path = session_find_example(s, file);

		if (!path) {
			diag_plain(&s->diag, DIAG_ERROR, "--example %s: no such script among "
				   "stap's examples (%s; package systemtap-doc)", file,
				   s->env.stap_examples && *s->env.stap_examples ?
				   s->env.stap_examples : "/usr/share/systemtap/examples");
			return 0;
		}
		s->opt.script_file = file = path;
	}
	id = src_load(&s->src, file);
	if (!id)
		diag_plain(&s->diag, DIAG_ERROR, "cannot read script %s: %s", file,
			   strerror(errno));
	return id;
}

/*
 * -E SCRIPT: run beside the main script (stap's meaning), parsed as
 * "<input>" sources of their own whose declarations join the script's.
 */
static void session_parse_extra(struct ktap_session *s, bool lazy)
{
	unsigned i, k;

	for (i = 0; i < s->opt.nextra_scripts; i++) {
		const char *text = s->opt.extra_scripts[i];
		uint32_t id = src_add(&s->src, "<input>", text, strlen(text));
		struct tok_vec toks = { 0 };
		struct ast_file *f = session_parse_file(s, id, false, false, &toks);

		for (k = 0; f && s->script && k < f->n; k++) {
			s->script->decls = arena_grow(s->arena, s->script->decls, s->script->n,
						      &s->script->cap, sizeof(*s->script->decls));
			s->script->decls[s->script->n++] = f->decls[k];
		}
		if (lazy)
			session_pull(s, &toks);
	}
}

int session_parse(struct ktap_session *s)
{
	struct tok_vec toks = { 0 };
	uint32_t id;

	/* None found: the driver says so when the script fails for it. */
	s->tapset_dir = session_tapset_dir(s, &s->tapset_tried);
	session_parse_library(s, true);		/* macros first: scripts use them */
	if (!(id = session_main_source(s)))
		return -1;
	s->script = session_parse_file(s, id, false, false, &toks);
	session_parse_extra(s, session_lazy(s));
	if (session_lazy(s))
		session_pull(s, &toks);
	else
		session_parse_library(s, false);
	return s->diag.errors ? -1 : 0;
}

struct ksym_table *session_ksyms(const struct ktap_session *s)
{
	struct ksym_table *t = NULL;
	char err[256];

	if (!s->ir || !(s->ir->stacks & IR_STACK_KSYMS))
		return NULL;
	if (ksym_load("/proc/kallsyms", &t, err, sizeof(err)) != 0) {
		fprintf(stderr, "WARNING: kernel addresses print as hex: %s\n", err);
		return NULL;
	}
	return t;
}

/*
 * The executable of the target process (-c CMD's first word, found as
 * process("NAME") is; -x PID's /proc/PID/exe), for process.function()
 * and the like without a path; NULL without -c or -x.
 */
const char *session_target_exe(struct ktap_session *s)
{
	char link[64], exe[PATH_MAX];
	ssize_t n;

	if (s->opt.command) {
		const char *c = s->opt.command + strspn(s->opt.command, " \t");

		return *c ? arena_strndup(s->arena, c, strcspn(c, " \t")) : NULL;
	}
	if (s->opt.target_pid <= 0)
		return NULL;
	snprintf(link, sizeof(link), "/proc/%d/exe", s->opt.target_pid);
	n = readlink(link, exe, sizeof(exe) - 1);
	return n > 0 ? arena_strndup(s->arena, exe, (size_t)n) : NULL;
}
