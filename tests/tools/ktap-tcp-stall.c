/*
 * ktap-tcp-stall.c - a real TCP retransmission on the loopback device,
 * for the VM tests of the tcp tapset.
 *
 *   ktap-tcp-stall FILE [SECONDS [fill]]
 *
 * Listens on 127.0.0.1 (a free port) with a backlog of 0 and never
 * accepts.  A first client connects (the handshake completes and fills
 * the accept queue) and writes 1234 bytes; a second client's SYN is then
 * dropped by the listener (its accept queue is full), so the kernel
 * retransmits that SYN after the initial RTO of 1 s, in TCP_SYN_SENT.
 * Writes "LISTEN_PORT FIRST_PORT SECOND_PORT" to FILE once the second
 * connect is under way, then waits SECONDS (default 1.5) and exits.
 *
 * With "fill", the first client then writes until its send buffer is
 * full (the listener never reads): the write blocks in the kernel's
 * sk_stream_wait_memory() until its send time-out of SECONDS ends it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int tcp_port(int fd)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);

	if (getsockname(fd, (struct sockaddr *)&a, &len) != 0)
		return -1;
	return ntohs(a.sin_port);
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/*
 * fill_send_buffer: write to FD, whose peer never reads, until a write
 * blocks on the full send buffer and the send time-out TS ends it.
 */
static void fill_send_buffer(int fd, const struct timespec *ts)
{
	struct timeval tv = { ts->tv_sec, ts->tv_nsec / 1000 };
	static char big[1 << 16];

	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0)
		die("SO_SNDTIMEO");
	while (write(fd, big, sizeof(big)) == (ssize_t)sizeof(big))
		;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	double secs = argc > 2 ? atof(argv[2]) : 1.5;
	struct timespec ts = { (time_t)secs, (long)((secs - (long)secs) * 1e9) };
	char buf[1234];
	int l, c1, c2;
	FILE *f;

	if (argc < 2) {
		fprintf(stderr, "usage: ktap-tcp-stall FILE [SECONDS]\n");
		return 2;
	}
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(l, 0) != 0)
		die("listen");
	a.sin_port = htons((unsigned short)tcp_port(l));
	c1 = socket(AF_INET, SOCK_STREAM, 0);
	if (c1 < 0 || connect(c1, (struct sockaddr *)&a, sizeof(a)) != 0)
		die("connect");
	memset(buf, 'x', sizeof(buf));
	if (write(c1, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		die("write");
	c2 = socket(AF_INET, SOCK_STREAM, 0);
	if (c2 < 0 || fcntl(c2, F_SETFL, O_NONBLOCK) != 0)
		die("socket");
	if (connect(c2, (struct sockaddr *)&a, sizeof(a)) == 0 || errno != EINPROGRESS)
		die("second connect");
	f = fopen(argv[1], "w");
	if (!f)
		die(argv[1]);
	fprintf(f, "%d %d %d\n", ntohs(a.sin_port), tcp_port(c1), tcp_port(c2));
	fclose(f);
	if (argc > 3 && strcmp(argv[3], "fill") == 0)
		fill_send_buffer(c1, &ts);
	else
		nanosleep(&ts, NULL);
	return 0;
}
