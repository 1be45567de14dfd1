/*
 * testutil.h - helpers shared by the cmocka tests (include after
 * <cmocka.h>).
 */
#ifndef KTAP_TESTUTIL_H
#define KTAP_TESTUTIL_H

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* A pid that is certainly dead: a reaped child's. */
static inline pid_t test_dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	assert_true(pid > 0);
	waitpid(pid, NULL, 0);
	return pid;
}

#endif
