/*
 * resolve_kdebug.c - see resolve_kdebug.h.
 */
#define _GNU_SOURCE
#include "resolve_kdebug.h"
#include "target.h"

#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Module trees are shallow (kernel/fs/ext4/ext4.ko); this bounds a loop. */
#define KD_MAX_DEPTH 8

/* What one search looks for. */
struct kd_want {
	const char *names[4];	/* file names that qualify */
	unsigned n;
};

/* Whether the ELF file at @path has a .debug_info section. */
static bool kd_has_dwarf(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
		while (!found && (scn = elf_nextscn(elf, scn)) != NULL) {
			GElf_Shdr sh;
			const char *name;

			if (gelf_getshdr(scn, &sh) &&
			    (name = elf_strptr(elf, shstrndx, sh.sh_name)) != NULL)
				found = strcmp(name, ".debug_info") == 0 ||
					strcmp(name, ".zdebug_info") == 0;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

static bool kd_wanted(const struct kd_want *w, const char *name)
{
	unsigned i;

	for (i = 0; i < w->n; i++)
		if (!strcmp(w->names[i], name))
			return true;
	return false;
}

/* A wanted file with DWARF under @dir (depth-first), malloc'ed, or NULL. */
static char *kd_walk(const char *dir, const struct kd_want *w, int depth)
{
	DIR *d = depth < KD_MAX_DEPTH ? opendir(dir) : NULL;
	struct dirent *e;
	char *found = NULL;

	if (!d)
		return NULL;
	while (!found && (e = readdir(d)) != NULL) {
		char path[PATH_MAX];

		if (e->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >=
		    sizeof(path))
			continue;
		if (e->d_type == DT_DIR)
			found = kd_walk(path, w, depth + 1);
		else if ((e->d_type == DT_REG || e->d_type == DT_UNKNOWN) &&
			 kd_wanted(w, e->d_name) && kd_has_dwarf(path))
			found = strdup(path);
	}
	closedir(d);
	return found;
}

/* @path itself if it is a file with DWARF. */
static char *kd_file(const char *path)
{
	/* kd_has_dwarf() opens it: an unreadable file has none */
	return kd_has_dwarf(path) ? strdup(path) : NULL;
}

/* Append "@what" to the list of places looked at. */
static void kd_note(char *where, size_t len, const char *what)
{
	size_t used;

	if (!where || !len)
		return;
	used = strlen(where);
	if (used + 1 < len)
		snprintf(where + used, len - used, "%s%s", used ? ", " : "", what);
}

/* The places the target's debuginfo path (KTAP_DEBUGINFO_PATH) names. */
static char *kd_env(const char *env, const struct kd_want *w, char *where, size_t wherelen)
{
	char *copy, *dir, *save = NULL, *found = NULL;

	if (!env || !*env || !(copy = strdup(env)))
		return NULL;
	for (dir = strtok_r(copy, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		kd_note(where, wherelen, dir);
		found = kd_walk(dir, w, 0);
	}
	free(copy);
	return found;
}

/* Where vmlinux with DWARF is: a directory (before R) and a name (after). */
static const char *const kd_vmlinux_places[][2] = {
	{ "/usr/lib/debug/boot", "vmlinux-" }, { "/usr/lib/debug/lib/modules/", "/vmlinux" },
	{ "/boot", "vmlinux-" }, { "/lib/modules/", "/vmlinux" },
	{ "/lib/modules/", "/build/vmlinux" },
};

static char *kd_vmlinux(const char *r, char *where, size_t wherelen)
{
	char path[PATH_MAX], *found = NULL;
	unsigned i;

	for (i = 0; i < sizeof(kd_vmlinux_places) / sizeof(kd_vmlinux_places[0]) && !found;
	     i++) {
		const char *dir = kd_vmlinux_places[i][0], *name = kd_vmlinux_places[i][1];

		if (name[0] == '/')	/* ".../R/vmlinux" */
			snprintf(path, sizeof(path), "%s%s%s", dir, r, name);
		else			/* ".../vmlinux-R" */
			snprintf(path, sizeof(path), "%s/%s%s", dir, name, r);
		kd_note(where, wherelen, path);
		found = kd_file(path);
	}
	return found;
}

static char *kd_module(const char *r, const struct kd_want *w, char *where,
		       size_t wherelen)
{
	const char *const dirs[] = { "/usr/lib/debug/lib/modules", "/lib/modules" };
	char path[PATH_MAX], *found = NULL;
	unsigned i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !found; i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], r);
		kd_note(where, wherelen, path);
		found = kd_walk(path, w, 0);
	}
	return found;
}

char *kd_find(const struct ktap_target *t, const char *module, char *where,
	      size_t wherelen)
{
	struct kd_want w = { { NULL }, 0 };
	char names[4][NAME_MAX + 16], *found;
	unsigned i;

	if (where && wherelen)
		*where = '\0';
	if (!module) {
		snprintf(names[0], sizeof(names[0]), "vmlinux");
		snprintf(names[1], sizeof(names[1]), "vmlinux-%.200s", t->release);
		w.n = 2;
	} else {
		/* "nf_conntrack" is nf_conntrack.ko; "9pnet-virtio" may be either. */
		char alt[NAME_MAX + 1];

		snprintf(alt, sizeof(alt), "%.200s", module);
		for (i = 0; alt[i]; i++)
			alt[i] = alt[i] == '-' ? '_' : alt[i] == '_' ? '-' : alt[i];
		snprintf(names[0], sizeof(names[0]), "%.200s.ko", module);
		snprintf(names[1], sizeof(names[1]), "%.200s.ko.debug", module);
		snprintf(names[2], sizeof(names[2]), "%s.ko", alt);
		snprintf(names[3], sizeof(names[3]), "%s.ko.debug", alt);
		w.n = 4;
	}
	for (i = 0; i < w.n; i++)
		w.names[i] = names[i];
	found = kd_env(t->debuginfo_path, &w, where, wherelen);
	if (!found)
		found = module ? kd_module(t->release, &w, where, wherelen) :
				 kd_vmlinux(t->release, where, wherelen);
	return found;
}
