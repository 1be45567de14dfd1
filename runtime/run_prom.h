/*
 * run_prom.h - pass 5: --prometheus [ADDR:]PORT, ktap's Prometheus
 * exporter (doc/prometheus.md).
 *
 * An HTTP server (libmicrohttpd, in its own thread) takes each GET of
 * /metrics and hands it to the session loop through a descriptor the
 * loop polls; the loop answers it between two events by running the
 * prometheus probes, whose $value is the answer.  The loop never waits
 * for a client: it hands the answer over and the server's thread sends
 * it, at whatever speed the client reads.
 */
#ifndef KTAP_RT_RUN_PROM_H
#define KTAP_RT_RUN_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct rt_ctx;
struct rt_buf;
struct run_prom;

/*
 * "[ADDR:]PORT": a numeric IPv4 address or a bracketed IPv6 address
 * ("[::1]:9100"), 127.0.0.1 when there is none; PORT from 0 (any free
 * port) to 65535.  0, or -1 with the reason in @err.
 */
int run_prom_parse(const char *spec, struct sockaddr_storage *sa, socklen_t *len,
		   char *err, size_t cap);

/*
 * Listen on @spec (run_prom_parse's) and serve: NULL with the reason in
 * @err ("127.0.0.1:9100: Address already in use").  With @say, or when
 * the port was 0, "ktap: serving metrics at http://ADDR:PORT/metrics"
 * goes to stderr.  Requests wait for run_prom_next(); the loop needs
 * not run yet.  Free with run_prom_stop().
 */
struct run_prom *run_prom_start(const char *spec, bool say, char *err, size_t cap);

/* Answer the requests still waiting with 503, stop serving, free @p (NULL: nothing). */
void run_prom_stop(struct run_prom *p);

/* Is @tid a thread of the HTTP server (false for NULL)?  Its records
   are ktap's own and handled by no probe, as the main thread's are
   filtered out in the kernel. */
bool run_prom_own(const struct run_prom *p, int tid);

/* The descriptor that is readable when a request waits; -1 for NULL. */
/* @c's prometheus probes into @body (each one's $value appended); false
   when one ended in an error.  Also for the "__prometheus" file (run_fifo.c). */
bool run_prom_probes(struct rt_ctx *c, struct rt_buf *body);

int run_prom_fd(const struct run_prom *p);


/*
 * Answer every request waiting: for each, @state(@arg, AT) makes the
 * globals those of the request's time AT (with @catch_up; else AT is 0:
 * answer from the state as it is), then @c's prometheus probes run in
 * order, each appending its $value to the answer.  An error in one of
 * them answers 500.
 */
void run_prom_serve(struct run_prom *p, struct rt_ctx *c, void (*state)(void *arg, uint64_t at),
		    void *arg, bool catch_up);

#endif
