/*
 * target_tracedat.c - the target description of a trace-cmd recording
 * (ktap -i FILE, see target.h).
 *
 * In: a trace.dat file, read with libtracecmd (its headers only: the
 * event formats and CPU count).  Out: struct ktap_target whose tracefs is
 * a scratch directory shaped like a --target directory, holding
 * events/SYS/EVENT/format for every event the recording has a format for
 * and their available_events list.  Passes 2 and 3 then read formats as
 * they do from any tracing directory, and a kernel.trace() point the
 * recording lacks is reported there as a missing event.
 *
 * The format files are written back from libtraceevent's parse (trace-cmd
 * keeps no copy of the text): the field lines only, which is all pass 2
 * reads (resolve_tpfmt.c).  No tracefs feature is set: a recording has
 * no kernel to create objects in.
 */
#define _GNU_SOURCE
#include "target.h"
#include "arena.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <trace-cmd.h>

/* "TYPE NAME" of a field as the kernel's format writes it: the brackets
   of a fixed array follow the name ("char comm[16]"), those of a
   __data_loc/__rel_loc type stay in the type. */
static void ttd_decl(FILE *f, const struct tep_format_field *fl)
{
	const char *br = strchr(fl->type, '[');

	if (br && !strstr(fl->type, "__data_loc") && !strstr(fl->type, "__rel_loc"))
		fprintf(f, "%.*s %s%s", (int)(br - fl->type), fl->type, fl->name, br);
	else
		fprintf(f, "%s %s", fl->type, fl->name);
}

/* libtraceevent marks a "long" field TEP_FIELD_IS_LONG without its sign. */
static int ttd_signed(const struct tep_format_field *fl)
{
	if (fl->flags & TEP_FIELD_IS_SIGNED)
		return 1;
	return (fl->flags & TEP_FIELD_IS_LONG) && !strstr(fl->type, "unsigned");
}

static void ttd_fields(FILE *f, const struct tep_format_field *fl)
{
	for (; fl; fl = fl->next) {
		fputs("\tfield:", f);
		ttd_decl(f, fl);
		fprintf(f, ";\toffset:%d;\tsize:%d;\tsigned:%d;\n", fl->offset, fl->size,
			ttd_signed(fl));
	}
}

/* @dir/events/SYS/EVENT/format for @e.  0 or -1 (errno). */
static int ttd_write_event(const char *dir, const struct tep_event *e)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/%s", dir, e->system);
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		return -1;
	snprintf(path, sizeof(path), "%s/events/%s/%s", dir, e->system, e->name);
	if (mkdir(path, 0755) != 0 && errno != EEXIST)
		return -1;
	strncat(path, "/format", sizeof(path) - strlen(path) - 1);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "name: %s\nID: %d\nformat:\n", e->name, e->id);
	ttd_fields(f, e->format.common_fields);
	fputc('\n', f);
	ttd_fields(f, e->format.fields);
	return fclose(f);
}

/* Every event of @tep into @dir, and available_events.  0 or -1. */
static int ttd_write_events(const char *dir, struct tep_handle *tep)
{
	struct tep_event **ev = tep_list_events(tep, TEP_EVENT_SORT_SYSTEM);
	char path[PATH_MAX];
	FILE *avail;
	int i, rc = 0;

	snprintf(path, sizeof(path), "%s/events", dir);
	if (!ev || mkdir(path, 0755) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/available_events", dir);
	avail = fopen(path, "w");
	if (!avail)
		return -1;
	for (i = 0; rc == 0 && ev[i]; i++) {
		/* names with a '/' cannot be a directory (none in practice) */
		if (!ev[i]->system || !ev[i]->name || strchr(ev[i]->system, '/') ||
		    strchr(ev[i]->name, '/'))
			continue;
		rc = ttd_write_event(dir, ev[i]);
		fprintf(avail, "%s:%s\n", ev[i]->system, ev[i]->name);
	}
	if (fclose(avail) != 0)
		rc = -1;
	return rc;
}

static int ttd_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void target_cleanup(struct ktap_target *t)
{
	if (t->scratch)
		nftw(t->scratch, ttd_rm, 16, FTW_DEPTH | FTW_PHYS);
	t->scratch = NULL;
}

/* The scratch directory with @tep's formats (arena), or NULL. */
static const char *ttd_scratch(struct arena *a, const char *tmp, struct tep_handle *tep)
{
	char *dir = arena_printf(a, "%s/ktap-tracedat.XXXXXX", tmp ? tmp : "/tmp");
	int e;

	if (!mkdtemp(dir))
		return NULL;
	if (ttd_write_events(dir, tep) == 0)
		return dir;
	e = errno;
	nftw(dir, ttd_rm, 16, FTW_DEPTH | FTW_PHYS);
	errno = e;
	return NULL;
}

int target_tracedat(struct ktap_target *t, struct arena *a, const struct tgt_env *env,
		    const char *file, const char *release, const char *arch,
		    char *err, size_t errlen)
{
	struct tracecmd_input *in;
	struct utsname u;

	memset(t, 0, sizeof(*t));
	if (access(file, R_OK) != 0) {
		snprintf(err, errlen, "-i %s: %s", file, strerror(errno));
		return -1;
	}
	tracecmd_set_loglevel(TEP_LOG_NONE);
	in = tracecmd_open_head(file, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!in) {
		snprintf(err, errlen, "-i %s: not a trace-cmd recording (trace.dat) "
			 "libtracecmd can read", file);
		return -1;
	}
	t->scratch = ttd_scratch(a, env->tmpdir, tracecmd_get_tep(in));
	t->recording_cpus = tep_get_cpus(tracecmd_get_tep(in));
	tracecmd_close(in);
	if (!t->scratch) {
		snprintf(err, errlen, "-i %s: cannot copy its event formats: %s", file,
			 strerror(errno));
		return -1;
	}
	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	t->recording = file;
	t->tracefs = t->scratch;
	t->release = arena_strdup(a, release ? release : u.release);
	t->arch = arena_strdup(a, arch ? arch : u.machine);
	t->cpus = arena_printf(a, "0-%d", t->recording_cpus > 0 ? t->recording_cpus - 1 : 0);
	t->debuginfo_path = env->debuginfo_path;
	t->exec_path = env->exec_path ? env->exec_path : "/usr/bin:/bin";
	return 0;
}
