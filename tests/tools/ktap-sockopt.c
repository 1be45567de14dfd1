/*
 * ktap-sockopt.c - known setsockopt(2) calls on TCP sockets, for the
 * tcp.ipv4.setsockopt tests (tests/vm/guest-scripts.sh).
 *
 *   ktap-sockopt [v6]
 *
 * On an AF_INET TCP socket, in this order:
 *   setsockopt(fd, SOL_TCP, TCP_NODELAY, &1, 4)        = 0
 *   setsockopt(fd, SOL_TCP, TCP_KEEPCNT, &-1, 4)       = -EINVAL
 *   setsockopt(fd, SOL_IP, IP_TOS, &0x10, 4)           = 0
 *   setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &1, 4)    = 0 (the socket
 *                                                        layer's own)
 * then on an AF_INET6 TCP socket:
 *   setsockopt(fd6, SOL_TCP, TCP_NODELAY, &1, 4)       = 0
 * and with the argument "v6" (the tcp.ipv6.setsockopt tests), then
 *   setsockopt(fd6, SOL_IPV6, IPV6_V6ONLY, &1, 4)      = 0
 *   setsockopt(fd6, SOL_IPV6, IPV6_UNICAST_HOPS, &300, 4) = -EINVAL
 * Exit status 0 when every call returned what is listed.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int set(int fd, int level, int name, int value, int want)
{
	int r = setsockopt(fd, level, name, &value, sizeof(value));

	if ((r == 0 ? 0 : -errno) != want) {
		fprintf(stderr, "ktap-sockopt: setsockopt(%d, %d, %d) = %d, errno %d\n", fd, level,
			name, r, errno);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), fd6 = socket(AF_INET6, SOCK_STREAM, 0), bad = 0;

	if (fd < 0 || fd6 < 0) {
		perror("ktap-sockopt: socket");
		return 1;
	}
	bad |= set(fd, SOL_TCP, TCP_NODELAY, 1, 0);
	bad |= set(fd, SOL_TCP, TCP_KEEPCNT, -1, -EINVAL);
	bad |= set(fd, SOL_IP, IP_TOS, 0x10, 0);
	bad |= set(fd, SOL_SOCKET, SO_KEEPALIVE, 1, 0);
	bad |= set(fd6, SOL_TCP, TCP_NODELAY, 1, 0);
	if (argc > 1 && strcmp(argv[1], "v6") == 0) {
		bad |= set(fd6, SOL_IPV6, IPV6_V6ONLY, 1, 0);
		bad |= set(fd6, SOL_IPV6, IPV6_UNICAST_HOPS, 300, -EINVAL);
	}
	close(fd);
	close(fd6);
	return bad;
}
