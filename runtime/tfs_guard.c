/*
 * tfs_guard.c - the guardian of a session (see tfs_guard.h).
 *
 * In: the session (its tracing root, name and lock).  Out: a process
 * that removes the session's kernel objects once ktap is gone.
 */
#define _GNU_SOURCE
#include "tfs_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

/* How long the guardian retries while the dead ktap's files close. */
#define TFS_GUARD_TRIES 100
#define TFS_GUARD_TICK_MS 10

/* Close every fd from 3 up except @a and @b (a < b). */
static void tfs_guard_close_others(int a, int b)
{
	if (a > 3)
		close_range(3, (unsigned)a - 1, 0);
	if (b > a + 1)
		close_range((unsigned)a + 1, (unsigned)b - 1, 0);
	close_range((unsigned)b + 1, ~0U, 0);
}

/* @fd moved to 3 or above (ktap may run with stdin or stdout closed). */
static int tfs_guard_high(int fd)
{
	return fd >= 3 ? fd : fcntl(fd, F_DUPFD, 3);
}

/* The guardian's own set-up: quiet, alone, immune to group signals. */
static void tfs_guard_detach(int *rdp, int *lockp)
{
	int rd = tfs_guard_high(*rdp), lock = tfs_guard_high(*lockp);
	static const int group_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP };
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	sigset_t none;
	size_t i;

	for (i = 0; i < sizeof(group_sigs) / sizeof(group_sigs[0]); i++)
		signal(group_sigs[i], SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		if (null > 1)
			close(null);
	}
	tfs_guard_close_others(rd < lock ? rd : lock, rd < lock ? lock : rd);
	prctl(PR_SET_NAME, "ktap-guardian");
	*rdp = rd;
	*lockp = lock;
}

/* In the guardian: wait for ktap's end, remove what is left, exit. */
static void tfs_guard_run(const char *root, const char *name, int rd, int lock)
{
	struct timespec tick = { 0, TFS_GUARD_TICK_MS * 1000000L };
	char buf[64], err[TFS_ERRLEN];
	ssize_t n;
	int i, rc = -1;

	tfs_guard_detach(&rd, &lock);
	do
		n = read(rd, buf, sizeof(buf));
	while (n > 0 || (n < 0 && errno == EINTR));
	/* The dead process's other files may close a moment after the
	   pipe: rmdir says EBUSY until they have. */
	for (i = 0; i < TFS_GUARD_TRIES && rc != 0; i++) {
		rc = tfs_remove_session(root, name, err, sizeof(err));
		if (rc != 0)
			nanosleep(&tick, NULL);
	}
	if (rc != 0)
		fprintf(stderr, "ktap-guardian: %s\n", err);
	_exit(rc ? 1 : 0);
}

int tfs_guard_start(const struct tfs *t)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[1]);
		tfs_guard_run(tfs_root(t), tfs_name(t), fds[0], tfs_lock_fd(t));
	}
	close(fds[0]);
	return fds[1];
}
