/*
 * test_usym.c - runtime/usym.c on a real -g program mapped by a process.
 *
 * A child runs tests/tools/ktap-uprobe-target (built -g -O0 by make
 * check) under ptrace, so it stops right after its exec with the program
 * and the dynamic loader mapped; the test takes its /proc/PID/maps text
 * (as the session does when it first sees a process), kills the child and
 * then symbolises addresses of handle(), walk() and main() computed from
 * the program's own .symtab (read here with libelf) and the load address
 * in the maps: the exited process is still symbolised.  A stripped copy
 * with a .gnu_debuglink to a separate debug file (objcopy) checks debug
 * files; without that file only the module is known.
 *
 * Needs $KTAP_BUILDDIR/tests/tools/ktap-uprobe-target and ptrace; skips
 * without them (objcopy: that test alone).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../runtime/usym.h"

static const char *target(void)
{
	static char path[4096];
	const char *b = getenv("KTAP_BUILDDIR");
	snprintf(path, sizeof(path), "%s/tests/tools/ktap-uprobe-target", b && *b ? b : ".");
	return path;
}

/* st_value and st_size of function NAME in PATH's .symtab, or fail. */
static void elf_sym(const char *path, const char *name, uint64_t *value, uint64_t *size)
{
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(elf);
	int found = 0;
	for (Elf_Scn *scn = NULL; !found && (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		gelf_getshdr(scn, &sh);
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			gelf_getsym(d, (int)i, &s);
			if (strcmp(elf_strptr(elf, sh.sh_link, s.st_name), name) == 0) {
				*value = s.st_value;
				*size = s.st_size;
				found = 1;
				break;
			}
		}
	}
	elf_end(elf);
	close(fd);
	if (!found)
		fail_msg("no symbol %s in %s", name, path);
}

/* Runs PROG stopped after its exec; returns its maps text in BUF (size
 * *LEN) and its pid, killed and reaped.  -1 if ptrace is not allowed. */
static int maps_of_exited(const char *prog, char *buf, size_t *len)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
			_exit(126);
		execl(prog, prog, (char *)NULL);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, 0);
	if (!WIFSTOPPED(st))
		return -1;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	*len = fread(buf, 1, *len - 1, fp);
	buf[*len] = '\0';
	fclose(fp);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return pid;
}

/* The start of the first mapping of PATH in MAPS (its load address). */
static uint64_t base_of(const char *maps, const char *path)
{
	const char *l = maps;
	while (l && *l) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		size_t pl = strlen(path);
		if (n > pl && strncmp(l + n - pl, path, pl) == 0 && l[n - pl - 1] == ' ')
			return strtoull(l, NULL, 16);
		l = nl ? nl + 1 : NULL;
	}
	fail_msg("%s not mapped", path);
	return 0;
}

/* The mapping of MAPS holding ADDR. */
static void vma_of(const char *maps, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	for (const char *l = maps; l && *l;) {
		unsigned long long a, b;
		if (sscanf(l, "%llx-%llx", &a, &b) == 2 && addr >= a && addr < b) {
			*lo = a;
			*hi = b;
			return;
		}
		l = strchr(l, '\n');
		l = l ? l + 1 : NULL;
	}
	fail_msg("0x%llx not mapped", (unsigned long long)addr);
}

static void fmt_is(struct usym_ctx *c, int pid, uint64_t addr, enum ksym_fmt fmt,
		   const char *want)
{
	char buf[1024];
	usym_format(c, pid, addr, fmt, 0, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_exited_process(void **state)
{
	(void)state;
	const char *prog = target();
	char real[4096];
	if (access(prog, X_OK) != 0 || !realpath(prog, real))
		skip();
	static char maps[65536];
	size_t len = sizeof(maps);
	int pid = maps_of_exited(real, maps, &len);
	if (pid < 0)
		skip();
	struct usym_ctx *c = usym_new(NULL);
	char err[256];
	if (usym_add_process(c, pid, maps, len, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	assert_true(usym_has_process(c, pid));
	uint64_t base = base_of(maps, real);

	uint64_t v, sz;
	elf_sym(real, "handle", &v, &sz);
	struct usym_info in;
	assert_int_equal(usym_lookup(c, pid, base + v + 3, &in), 0);
	assert_string_equal(in.name, "handle");
	assert_string_equal(in.module, real);
	assert_int_equal(in.offset, 3);
	assert_int_equal(in.size, sz);

	char want[4200];
	snprintf(want, sizeof(want), " 0x%llx : handle+0x3/0x%llx [%s]\n",
		 (unsigned long long)(base + v + 3), (unsigned long long)sz, real);
	fmt_is(c, pid, base + v + 3, KSYM_FMT_FULL, want);
	fmt_is(c, pid, base + v + 3, KSYM_FMT_SYMBOL, "handle");
	fmt_is(c, pid, base + v + 3, KSYM_FMT_SIMPLE, "handle+0x3 [ktap-uprobe-target]\n");

	elf_sym(real, "walk", &v, &sz);
	snprintf(want, sizeof(want), "walk+0x0/0x%llx [%s]", (unsigned long long)sz, real);
	fmt_is(c, pid, base + v, KSYM_FMT_DATA, want);
	elf_sym(real, "main", &v, &sz);
	snprintf(want, sizeof(want), "main+0x%llx/0x%llx [%s]", (unsigned long long)(sz - 1),
		 (unsigned long long)sz, real);
	fmt_is(c, pid, base + v + sz - 1, KSYM_FMT_DATA, want);

	/* The dynamic loader is mapped too (its .dynsym at least). */
	char ld[4200];
	const char *l = strstr(maps, "/ld-linux");
	if (l) {
		const char *s = l;
		while (s > maps && s[-1] != ' ')
			s--;
		snprintf(ld, sizeof(ld), "%.*s", (int)(strcspn(s, "\n")), s);
		assert_int_equal(usym_lookup(c, pid, base_of(maps, ld) + 0x10, &in) >= 0, 1);
		assert_string_equal(in.module, ld);
	}

	/* Unmapped: hex. */
	fmt_is(c, pid, 0x10, KSYM_FMT_FULL, " 0x10\n");
	fmt_is(c, pid, 0x10, KSYM_FMT_SYMBOL, "0x10");
	/* Forgotten, and unknown processes: hex. */
	usym_forget_process(c, pid);
	assert_false(usym_has_process(c, pid));
	assert_int_equal(usym_lookup(c, pid, base + v, &in), -1);
	usym_free(c);
}

/* A stripped program whose symbols are in a separate debug file. */
static void test_debug_file(void **state)
{
	(void)state;
	const char *prog = target();
	char real[4096];
	if (access(prog, X_OK) != 0 || !realpath(prog, real))
		skip();
	char dir[] = "/tmp/ktap-usym.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char cmd[16384];
	snprintf(cmd, sizeof(cmd),
		 "cp '%s' %s/prog && cd %s && objcopy --only-keep-debug prog prog.debug && "
		 "objcopy --strip-all --add-gnu-debuglink=prog.debug prog 2>/dev/null",
		 real, dir, dir);
	if (system(cmd) != 0) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		(void)system(cmd);
		skip();
	}
	char prog2[4200], dbg[4200];
	snprintf(prog2, sizeof(prog2), "%s/prog", dir);
	snprintf(dbg, sizeof(dbg), "%s/prog.debug", dir);
	static char maps[65536];
	size_t len = sizeof(maps);
	int pid = maps_of_exited(prog2, maps, &len);
	if (pid < 0)
		skip();
	uint64_t v, sz;
	elf_sym(real, "handle", &v, &sz);
	uint64_t base = base_of(maps, prog2);
	char want[4400];

	struct usym_ctx *c = usym_new(NULL);
	assert_int_equal(usym_add_process(c, pid, maps, len, NULL, 0), 0);
	snprintf(want, sizeof(want), "handle+0x2/0x%llx [%s]", (unsigned long long)sz, prog2);
	fmt_is(c, pid, base + v + 2, KSYM_FMT_DATA, want);
	usym_free(c);

	/* Without the debug file: the module, and (as stap) the offset in
	 * the mapping holding the address and that mapping's size. */
	unlink(dbg);
	c = usym_new(NULL);
	assert_int_equal(usym_add_process(c, pid, maps, len, NULL, 0), 0);
	struct usym_info in;
	assert_int_equal(usym_lookup(c, pid, base + v + 2, &in), 1);
	assert_null(in.name);
	uint64_t lo = 0, hi = 0;
	vma_of(maps, base + v + 2, &lo, &hi);
	assert_true(lo > base); /* the r-xp mapping, not the file's first */
	assert_int_equal(in.offset, base + v + 2 - lo);
	assert_int_equal(in.size, hi - lo);
	snprintf(want, sizeof(want), "0x%llx [%s+0x%llx/0x%llx]", (unsigned long long)(base + v + 2),
		 prog2, (unsigned long long)(base + v + 2 - lo), (unsigned long long)(hi - lo));
	fmt_is(c, pid, base + v + 2, KSYM_FMT_DATA, want);
	usym_free(c);
	unlink(prog2);
	rmdir(dir);
}

static void test_bad_maps(void **state)
{
	(void)state;
	struct usym_ctx *c = usym_new("/nonexistent");
	char err[256];
	assert_int_equal(usym_add_process(c, 5, "garbage\n", 8, err, sizeof(err)), -1);
	assert_string_equal(err, "process 5: not a /proc/PID/maps text");
	assert_int_equal(usym_add_process(c, 5, "", 0, err, sizeof(err)), -1);
	assert_false(usym_has_process(c, 5));
	/* A mapping of a file that does not exist: only hex comes back. */
	static const char m[] = "400000-401000 r-xp 00000000 08:01 1234 /nonexistent/prog\n";
	assert_int_equal(usym_add_process(c, 6, m, sizeof(m) - 1, err, sizeof(err)), 0);
	char buf[256];
	usym_format(c, 6, 0x400010, KSYM_FMT_SYMBOL, 0, buf, sizeof(buf));
	assert_string_equal(buf, "0x400010");
	usym_format(c, 7, 0x400010, KSYM_FMT_FULL, 0, buf, sizeof(buf));
	assert_string_equal(buf, " 0x400010\n");
	usym_free(c);
	usym_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exited_process),
		cmocka_unit_test(test_debug_file),
		cmocka_unit_test(test_bad_maps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
