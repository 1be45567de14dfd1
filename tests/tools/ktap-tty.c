/*
 * ktap-tty.c - a known conversation on a pseudo-terminal and known
 * window sizes on a terminal, for the tty.* probe tests
 * (tests/vm/guest-scripts.sh).
 *
 *   ktap-tty TTY FILE
 *
 * Makes exactly these calls, raw (no stdio, which could ask whether a
 * descriptor is a terminal):
 *   m = open("/dev/ptmx", O_RDWR | O_NOCTTY)    a new pty pair, number N
 *   ioctl(m, TIOCSPTLCK, &0)                    unlock the slave
 *   ioctl(m, TIOCGPTN, &N)
 *   s = open("/dev/pts/N", O_RDWR | O_NOCTTY)
 *   write(m, "ktap\n", 5)                       the slave receives a line
 *   poll(s, POLLIN) until it is there
 *   read(s, buf, 64) = 5
 *   write(s, "ok\n", 3)
 *   close(s), close(m)
 *   t = open(TTY, O_RDWR | O_NOCTTY | O_NONBLOCK)
 *   ioctl(t, TIOCGWINSZ, &w0)                   its size: R C X Y
 *   ioctl(t, TIOCSWINSZ, {30, 90, 640, 480})
 *   ioctl(t, TIOCSWINSZ, {31, 91, 641, 481})
 *   ioctl(t, TIOCSWINSZ, &w0)                   back as it was
 *   close(t)
 * then writes "N R C X Y\n" to FILE (rows, columns, x and y pixels).
 * Exit status 0 when every call did what is listed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

static int fail(const char *what)
{
	perror(what);
	return 1;
}

int main(int argc, char **argv)
{
	struct winsize w0, a = { 30, 90, 640, 480 }, b = { 31, 91, 641, 481 };
	struct pollfd p;
	unsigned int n;
	int m, s, t, f, len, zero = 0;
	char path[64], buf[64];

	if (argc != 3) {
		fprintf(stderr, "usage: ktap-tty TTY FILE\n");
		return 2;
	}
	m = open("/dev/ptmx", O_RDWR | O_NOCTTY);
	if (m < 0)
		return fail("ktap-tty: /dev/ptmx");
	if (ioctl(m, TIOCSPTLCK, &zero) != 0 || ioctl(m, TIOCGPTN, &n) != 0)
		return fail("ktap-tty: ptmx ioctl");
	snprintf(path, sizeof(path), "/dev/pts/%u", n);
	s = open(path, O_RDWR | O_NOCTTY);
	if (s < 0)
		return fail(path);
	if (write(m, "ktap\n", 5) != 5)
		return fail("ktap-tty: write to the master");
	p.fd = s;
	p.events = POLLIN;
	if (poll(&p, 1, 10000) != 1)
		return fail("ktap-tty: poll");
	if (read(s, buf, sizeof(buf)) != 5 || memcmp(buf, "ktap\n", 5) != 0)
		return fail("ktap-tty: read from the slave");
	if (write(s, "ok\n", 3) != 3)
		return fail("ktap-tty: write to the slave");
	if (close(s) != 0 || close(m) != 0)
		return fail("ktap-tty: close");

	t = open(argv[1], O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (t < 0)
		return fail(argv[1]);
	if (ioctl(t, TIOCGWINSZ, &w0) != 0 || ioctl(t, TIOCSWINSZ, &a) != 0 ||
	    ioctl(t, TIOCSWINSZ, &b) != 0 || ioctl(t, TIOCSWINSZ, &w0) != 0)
		return fail("ktap-tty: window size");
	if (close(t) != 0)
		return fail("ktap-tty: close");

	f = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (f < 0)
		return fail(argv[2]);
	len = snprintf(buf, sizeof(buf), "%u %u %u %u %u\n", n, w0.ws_row, w0.ws_col,
		       w0.ws_xpixel, w0.ws_ypixel);
	if (write(f, buf, (size_t)len) != len || close(f) != 0)
		return fail(argv[2]);
	return 0;
}
