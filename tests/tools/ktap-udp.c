/*
 * ktap-udp.c - a known amount of loopback traffic, for the netdev.*
 * tests (tests/harness/probes-live.sh).
 *
 *   ktap-udp N SIZE
 *   ktap-udp -d N
 *   ktap-udp -s N SIZE
 *   ktap-udp -w N SIZE
 *   ktap-udp -6 N SIZE
 *
 * Sends N UDP datagrams of SIZE payload bytes from one socket to another
 * on 127.0.0.1 and reads each back: N packets on "lo" each way, of SIZE
 * + 28 bytes (IPv4 and UDP headers) as received, SIZE + 42 as queued
 * for transmission (with lo's 14-byte Ethernet header).  Exit status 0
 * when every datagram came back whole.  With -d, N times: connects a
 * socket to 127.0.0.1 (a bound socket's port) and disconnects it
 * (connect(2) with AF_UNSPEC, the kernel's udp_disconnect()).  With -s,
 * the sending socket is connected first and the datagrams go by send()
 * and come back by recv() (on x86_64 libc makes them sendto() and
 * recvfrom() without an address).  With -w, the same connected
 * exchange by write() and read() (the socket's file operations, the
 * kernel's sock_write_iter() and sock_read_iter()).  With -6, the same
 * over IPv6's loopback, ::1, connected (the kernel's udpv6_sendmsg()).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* connect @fd to @a, then dissolve the association, @n times. */
static int disconnects(int fd, const struct sockaddr_in *a, long n)
{
	struct sockaddr un;
	long i;

	memset(&un, 0, sizeof(un));
	un.sa_family = AF_UNSPEC;
	for (i = 0; i < n; i++)
		if (connect(fd, (const struct sockaddr *)a, sizeof(*a)) != 0 ||
		    connect(fd, &un, sizeof(un)) != 0) {
			perror("ktap-udp: connect");
			return 1;
		}
	return 0;
}

/* -6: N datagrams of SIZE bytes over IPv6's loopback (::1), connected. */
static int udp6(long n, long size, char *buf)
{
	struct sockaddr_in6 a;
	socklen_t alen = sizeof(a);
	int rx = socket(AF_INET6, SOCK_DGRAM, 0), tx = socket(AF_INET6, SOCK_DGRAM, 0);
	long i;

	memset(&a, 0, sizeof(a));
	a.sin6_family = AF_INET6;
	a.sin6_addr = in6addr_loopback;
	if (rx < 0 || tx < 0 || bind(rx, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    getsockname(rx, (struct sockaddr *)&a, &alen) != 0 ||
	    connect(tx, (struct sockaddr *)&a, sizeof(a)) != 0) {
		perror("ktap-udp: IPv6 socket");
		return 1;
	}
	memset(buf, 'k', (size_t)size);
	for (i = 0; i < n; i++)
		if (send(tx, buf, (size_t)size, 0) != size || recv(rx, buf, (size_t)size, 0) != size) {
			perror("ktap-udp: send/recv");
			return 1;
		}
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a;
	socklen_t alen = sizeof(a);
	static char buf[65536];
	long i, n, size = 0;
	int rx, tx;

	int dis = argc == 3 && !strcmp(argv[1], "-d");
	int wr = argc == 4 && !strcmp(argv[1], "-w");
	int con = (argc == 4 && !strcmp(argv[1], "-s")) || wr;

	if (argc == 4 && !strcmp(argv[1], "-6") && (n = atol(argv[2])) > 0 &&
	    (size = atol(argv[3])) > 0 && size <= 60000)
		return udp6(n, size, buf);

	if (argc != 3 + con || (n = atol(argv[1 + dis + con])) <= 0 ||
	    (!dis && ((size = atol(argv[2 + con])) <= 0 || size > 60000))) {
		fprintf(stderr, "usage: ktap-udp N SIZE | ktap-udp -d N | ktap-udp -s N SIZE | ktap-udp -w N SIZE | ktap-udp -6 N SIZE\n");
		return 2;
	}
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (rx < 0 || tx < 0 || bind(rx, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    getsockname(rx, (struct sockaddr *)&a, &alen) != 0) {
		perror("ktap-udp: socket");
		return 1;
	}
	if (dis)
		return disconnects(tx, &a, n);
	memset(buf, 'k', (size_t)size);
	if (con && connect(tx, (struct sockaddr *)&a, sizeof(a)) != 0) {
		perror("ktap-udp: connect");
		return 1;
	}
	for (i = 0; wr && i < n; i++) {
		if (write(tx, buf, (size_t)size) != size || read(rx, buf, sizeof(buf)) != size) {
			perror("ktap-udp: write/read");
			return 1;
		}
	}
	for (i = 0; con && !wr && i < n; i++) {
		if (send(tx, buf, (size_t)size, 0) != size || recv(rx, buf, sizeof(buf), 0) != size) {
			perror("ktap-udp: send/recv");
			return 1;
		}
	}
	for (i = 0; !con && i < n; i++) {
		if (sendto(tx, buf, (size_t)size, 0, (struct sockaddr *)&a, sizeof(a)) != size ||
		    recv(rx, buf, sizeof(buf), 0) != size) {
			perror("ktap-udp: send/recv");
			return 1;
		}
	}
	return 0;
}
