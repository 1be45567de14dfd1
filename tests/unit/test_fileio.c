/*
 * test_fileio.c - the one whole-file reader (runtime/fileio.c) that the
 * compiler (scripts, stdin, event formats) and the runtime (tracefs,
 * /proc) share: exact contents of files larger than its first buffer,
 * of pipes and of files whose st_size is 0; errno when it fails.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fileio.h"

/* 100,000 bytes of a pattern that shows misplaced blocks, with NULs. */
static char *pattern(size_t n)
{
	char *p = malloc(n);
	size_t i;

	assert_non_null(p);
	for (i = 0; i < n; i++)
		p[i] = (char)(i % 251);
	return p;
}

static void test_file(void **state)
{
	char path[] = "/tmp/ktap-fileio-XXXXXX", *want = pattern(100000), *got;
	int fd = mkstemp(path);
	size_t len = 1;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, want, 100000), 100000);
	close(fd);
	got = fio_read(path, &len);
	unlink(path);
	assert_non_null(got);
	assert_int_equal(len, 100000);
	assert_memory_equal(got, want, 100000);
	assert_int_equal(got[len], '\0');
	free(got);
	free(want);
}

static void test_empty(void **state)
{
	size_t len = 1;
	char *got = fio_read("/dev/null", &len);

	(void)state;
	assert_non_null(got);
	assert_int_equal(len, 0);
	assert_string_equal(got, "");
	free(got);
}

/* st_size 0, as tracefs files have. */
static void test_proc(void **state)
{
	char *got = fio_read("/proc/self/status", NULL);

	(void)state;
	assert_non_null(got);
	assert_non_null(strstr(got, "Name:"));
	free(got);
}

static void test_missing(void **state)
{
	size_t len = 7;

	(void)state;
	errno = 0;
	assert_null(fio_read("/nonexistent/ktap-fileio", &len));
	assert_int_equal(errno, ENOENT);
	assert_int_equal(len, 7);
}

/* A pipe (stdin of `ktap -`) and the fd left open for its owner. */
static void test_pipe(void **state)
{
	char *want = pattern(70000), *got;
	int p[2];
	size_t len = 0;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		_exit(write(p[1], want, 70000) == 70000 ? 0 : 1);
	}
	close(p[1]);
	got = fio_read_fd(p[0], &len);
	assert_non_null(got);
	assert_int_equal(len, 70000);
	assert_memory_equal(got, want, 70000);
	assert_true(fcntl(p[0], F_GETFD) >= 0);
	close(p[0]);
	waitpid(pid, NULL, 0);
	free(got);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_proc),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_pipe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
