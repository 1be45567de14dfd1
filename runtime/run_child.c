/*
 * run_child.c - pass 5: the -c command (see run_child.h).
 *
 * In: the command line of -c.  Out: a child process, released once the
 * probes are armed, and an answer to "did its exec work?".
 */
#define _GNU_SOURCE
#include "run_child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>

/*
 * Run CMD as stap does: split into words by wordexp(3) (quotes,
 * variables, globs; no command substitution) and exec'd directly, so
 * target() is the command's own pid.  A command with shell syntax
 * (pipes, ';', redirections) goes to /bin/sh -c "exec CMD" instead.
 * The words are made before the fork, so that the child does nothing
 * but exec: the target's traces (its system calls, its mallocs) hold no
 * work of ktap's.  Returns a NULL-terminated argv (freed by
 * run_child_free_argv()), or NULL when out of memory.
 */
static char **run_child_argv(const char *cmd)
{
	wordexp_t w;
	char **argv = NULL;
	size_t i;

	if (wordexp(cmd, &w, WRDE_NOCMD) == 0 && w.we_wordc > 0) {
		argv = calloc(w.we_wordc + 1, sizeof(*argv));
		for (i = 0; argv && i < w.we_wordc; i++)
			argv[i] = strdup(w.we_wordv[i]);
		wordfree(&w);
		return argv;
	}
	argv = calloc(4, sizeof(*argv));
	if (argv) {
		argv[0] = strdup("/bin/sh");
		argv[1] = strdup("-c");
		if (asprintf(&argv[2], "exec %s", cmd) < 0)
			argv[2] = NULL;
	}
	return argv;
}

static void run_child_free_argv(char **argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/*
 * In the child: stop until released (SIGCONT), exec.  A failed exec sends errno and
 * the program's name down @status (close-on-exec, so a successful exec
 * closes it with nothing written) and exits 127.
 */
static void run_child_exec(char **argv, const char *env, int status)
{
	sigset_t none;
	char msg[256];
	int e, n;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	raise(SIGSTOP);
	if (env)
		putenv((char *)env);	/* the child's own copy of the memory */
	execvp(argv[0], argv);
	e = errno;
	n = snprintf(msg, sizeof(msg), "%d %s", e, argv[0]);
	if (write(status, msg, n > 0 && (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1) < 0)
		_exit(127);
	_exit(127);
}

int run_child_spawn(struct run_child *c, const char *cmd, const char *env)
{
	char **argv = run_child_argv(cmd);
	int status[2] = { -1, -1 }, e;

	*c = (struct run_child){ .status = -1 };
	if (!argv || pipe2(status, O_CLOEXEC) != 0)
		goto fail;
	c->pid = fork();
	if (c->pid < 0)
		goto fail;
	if (c->pid == 0) {
		close(status[0]);
		run_child_exec(argv, env, status[1]);
	}
	run_child_free_argv(argv);
	close(status[1]);
	c->held = true;
	c->status = status[0];
	return 0;
fail:
	e = errno;
	c->pid = 0;
	for (int i = 0; i < 2; i++)
		if (status[i] >= 0)
			close(status[i]);
	run_child_free_argv(argv);
	errno = e;
	return -1;
}

/*
 * Wait until the child has stopped itself (it may not have got there
 * yet).  The stop's status is consumed here; the run's SIGCHLD handler
 * reaps with waitpid() without WUNTRACED, which reports exits only.
 */
static bool run_child_stopped(struct run_child *c)
{
	int st;
	pid_t p;

	do
		p = waitpid(c->pid, &st, WUNTRACED);
	while (p < 0 && errno == EINTR);
	return p == c->pid && WIFSTOPPED(st);
}

/*
 * A traced child goes on from its stop only when ktap says so: the
 * group stop SEIZE found it in (reported as PTRACE_EVENT_STOP), then
 * SIGCONT's delivery, which it is given.
 */
static void run_child_traced_cont(struct run_child *c)
{
	int st, i;
	pid_t p;

	for (i = 0; i < 4; i++) {
		do
			p = waitpid(c->pid, &st, __WALL);
		while (p < 0 && errno == EINTR);
		if (p != c->pid || !WIFSTOPPED(st))
			return;
		if (st >> 16 == PTRACE_EVENT_STOP) {
			ptrace(PTRACE_CONT, c->pid, NULL, NULL);
			continue;
		}
		ptrace(PTRACE_CONT, c->pid, NULL, (void *)(long)WSTOPSIG(st));
		if (WSTOPSIG(st) == SIGCONT)
			return;
	}
}

int run_child_release(struct run_child *c, char *why, size_t size)
{
	char msg[256];
	ssize_t n;
	int e;

	if (!c->held)
		return 0;
	c->held = false;
	if (!run_child_stopped(c))
		fprintf(stderr, "WARNING: could not start the -c command\n");
	/* a refusal (yama's ptrace_scope 3, a tracer of our own) costs only
	   the held exit: symbols of a program gone before ktap saw it */
	else if (c->hold_exit)
		c->traced = ptrace(PTRACE_SEIZE, c->pid, NULL,
				   (void *)(long)PTRACE_O_TRACEEXIT) == 0;
	if (kill(c->pid, SIGCONT) != 0)
		fprintf(stderr, "WARNING: could not start the -c command\n");
	else if (c->traced)
		run_child_traced_cont(c);
	/* EOF: the exec worked (close-on-exec); text: it failed. */
	do
		n = read(c->status, msg, sizeof(msg) - 1);
	while (n < 0 && errno == EINTR);
	close(c->status);
	c->status = -1;
	if (n <= 0)
		return 0;
	msg[n] = '\0';
	e = atoi(msg);
	snprintf(why, size, "cannot run '%s': %s", strchrnul(msg, ' ') + (strchr(msg, ' ') != NULL),
		 strerror(e));
	return -1;
}

bool run_child_stop(struct run_child *c, int status, bool *at_exit)
{
	int sig = WSTOPSIG(status);

	*at_exit = false;
	if (!c->traced || !WIFSTOPPED(status))
		return false;
	if (status >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
		*at_exit = true;
		return true;
	}
	/* a signal on its way (SIGCONT's first), or a group stop (event
	   PTRACE_EVENT_STOP), which ends here: the child goes on */
	if (status >> 16 == PTRACE_EVENT_STOP)
		sig = 0;
	ptrace(PTRACE_CONT, c->pid, NULL, (void *)(long)sig);
	return true;
}

void run_child_go(struct run_child *c)
{
	ptrace(PTRACE_CONT, c->pid, NULL, NULL);
}

/* Reap the child if it has ended within @ms milliseconds. */
static bool run_child_wait(struct run_child *c, int ms)
{
	struct timespec tick = { 0, 10 * 1000000 };
	int i;

	for (i = 0; i <= ms / 10; i++) {
		if (waitpid(c->pid, NULL, WNOHANG) != 0)
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
}

void run_child_end(struct run_child *c)
{
	if (c->status >= 0)
		close(c->status);
	c->status = -1;
	if (c->pid <= 0)
		return;
	if (c->traced)		/* a held exit, or a stop nobody waited for */
		ptrace(PTRACE_DETACH, c->pid, NULL, NULL);
	c->traced = false;
	kill(c->pid, SIGTERM);
	if (c->held)		/* never released: a stopped process acts on no SIGTERM */
		kill(c->pid, SIGCONT);
	c->held = false;
	if (!run_child_wait(c, RUN_CHILD_GRACE_MS)) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
	}
	c->pid = 0;
}
