/*
 * run_prom.c - pass 5: --prometheus, ktap's Prometheus exporter (see
 * run_prom.h and doc/prometheus.md).
 *
 * Two threads share a request.  libmicrohttpd's thread (one, polling
 * every connection) parses the HTTP request; for GET /metrics it puts
 * the request on a queue, suspends the connection and wakes the session
 * loop through an eventfd.  The loop takes the request between two
 * events, runs the prometheus probes into a buffer, hands the buffer
 * over and resumes the connection; libmicrohttpd's thread then sends
 * it.  So the loop never waits on a client (a slow or half-sent request
 * only holds a connection of the server's thread, closed after
 * RP_CONN_TIMEOUT seconds of silence), and the probes see the globals
 * only from the loop, between events: each answer is one consistent
 * state, as a timer probe's is.
 *
 * The lock guards the queue, each request's state and the count of
 * suspended connections.  A request lives from the first call of the
 * access handler to libmicrohttpd's "completed" notice, which frees it;
 * a suspended connection cannot complete, so the loop's pointer to a
 * request it took stays valid until it answers.
 */
#define _GNU_SOURCE
#include "run_prom.h"
#include "buf.h"
#include "interp.h"
#include "rt_ctx.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#define RP_CONN_LIMIT 64	/* open connections, slow ones included */
#define RP_CONN_TIMEOUT 10	/* seconds a silent connection stays open */
#define RP_STOP_WAIT_S 1	/* the stop's wait for its 503s to go out */
/* The text exposition format's type (Prometheus's "0.0.4"). */
#define RP_METRICS_TYPE "text/plain; version=0.0.4"
#define RP_TEXT_TYPE "text/plain; charset=utf-8"

enum rp_state {
	RP_NEW,		/* headers read, not handed over yet */
	RP_WAITING,	/* on the queue; connection suspended */
	RP_TAKEN,	/* the loop runs the probes for it */
	RP_DONE,	/* answered; connection resumed */
};

struct run_prom_req {
	struct run_prom_req *next;
	struct MHD_Connection *conn;
	enum rp_state state;
	uint64_t at;		/* when it was handed over */
	unsigned status;	/* RP_DONE: the answer */
	char *body;
	size_t len;
};

#define RP_MAX_TIDS 8

struct run_prom {
	struct MHD_Daemon *mhd;
	int efd;		/* readable: a request waits */
	pthread_mutex_t lock;
	pthread_cond_t idle;	/* signalled when suspended drops to 0 */
	struct run_prom_req *head, **tail;
	unsigned suspended;	/* handed over and not completed yet */
	bool closing;		/* run_prom_stop(): new requests get 503 */
	int tids[RP_MAX_TIDS];	/* the server's threads, 0-terminated */
};

static uint64_t rp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

/* ---- the address ---- */

static bool rp_port(const char *s, in_port_t *port)
{
	unsigned long v = 0;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (s[i] < '0' || s[i] > '9' || i >= 5)
			return false;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (i == 0 || v > 65535)
		return false;
	*port = htons((uint16_t)v);
	return true;
}

int run_prom_parse(const char *spec, struct sockaddr_storage *sa, socklen_t *len,
		   char *err, size_t cap)
{
	struct sockaddr_in *v4 = (struct sockaddr_in *)sa;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)sa;
	const char *port = spec, *colon = strrchr(spec, ':');
	char host[INET6_ADDRSTRLEN] = "127.0.0.1";
	size_t n = 0;
	bool ok;

	memset(sa, 0, sizeof(*sa));
	if (spec[0] == '[') {		/* [IPv6]:PORT */
		const char *close = strchr(spec, ']');

		n = close ? (size_t)(close - spec - 1) : sizeof(host);
		port = close && close[1] == ':' ? close + 2 : "";
		if (n < sizeof(host))
			memcpy(host, spec + 1, n);
	} else if (colon) {		/* IPv4:PORT */
		n = (size_t)(colon - spec);
		port = colon + 1;
		if (n < sizeof(host))
			memcpy(host, spec, n);
	}
	if (n < sizeof(host) && (spec[0] == '[' || colon))
		host[n] = '\0';
	if (spec[0] == '[') {
		v6->sin6_family = AF_INET6;
		ok = n < sizeof(host) && rp_port(port, &v6->sin6_port) &&
		     inet_pton(AF_INET6, host, &v6->sin6_addr) == 1;
		*len = sizeof(*v6);
	} else {
		v4->sin_family = AF_INET;
		ok = n < sizeof(host) && rp_port(port, &v4->sin_port) &&
		     inet_pton(AF_INET, host, &v4->sin_addr) == 1;
		*len = sizeof(*v4);
	}
	if (!ok)
		snprintf(err, cap, "--prometheus expects [ADDR:]PORT (ADDR a numeric IPv4 "
			 "address or an IPv6 one in brackets, PORT from 0 to 65535), got '%s'",
			 spec);
	return ok ? 0 : -1;
}

/* "127.0.0.1:9100", "[::1]:9100". */
static void rp_text(const struct sockaddr_storage *sa, char *out, size_t cap)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (sa->ss_family == AF_INET6) {
		const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof(host));
		snprintf(out, cap, "[%s]:%u", host, ntohs(v6->sin6_port));
	} else {
		const struct sockaddr_in *v4 = (const struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &v4->sin_addr, host, sizeof(host));
		snprintf(out, cap, "%s:%u", host, ntohs(v4->sin_port));
	}
}

/*
 * A listening socket on @sa (its port filled in when it was 0), or -1
 * with "ADDR:PORT: why" in @err.  An IPv6 address binds IPv6 only, so
 * that [::] is not also every IPv4 address: bind only where asked.
 */
static int rp_listen(struct sockaddr_storage *sa, socklen_t len, char *err, size_t cap)
{
	int one = 1, fd = socket(sa->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char where[INET6_ADDRSTRLEN + 8];
	socklen_t got = len;

	rp_text(sa, where, sizeof(where));
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    (sa->ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) != 0) ||
	    bind(fd, (struct sockaddr *)sa, len) != 0 || listen(fd, 64) != 0 ||
	    getsockname(fd, (struct sockaddr *)sa, &got) != 0) {
		snprintf(err, cap, "--prometheus %s: %s", where, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* ---- libmicrohttpd's thread ---- */

/* A fixed answer (@text lives forever); @allow: a 405's Allow header. */
static enum MHD_Result rp_reply(struct MHD_Connection *conn, unsigned status,
				const char *text, bool allow)
{
	struct MHD_Response *resp =
		MHD_create_response_from_buffer(strlen(text), (void *)text,
						MHD_RESPMEM_PERSISTENT);
	enum MHD_Result r;

	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, RP_TEXT_TYPE);
	if (allow)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	r = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return r;
}

/* The request's headers are in: GET or HEAD of /metrics waits for its turn. */
static enum MHD_Result rp_first(struct MHD_Connection *conn, const char *url,
				const char *method, void **con_cls)
{
	struct run_prom_req *q;

	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return rp_reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				"ktap: only GET and HEAD of /metrics\n", true);
	if (!strcmp(url, "/"))
		return rp_reply(conn, MHD_HTTP_OK, "ktap: the metrics are at /metrics\n", false);
	if (strcmp(url, "/metrics"))
		return rp_reply(conn, MHD_HTTP_NOT_FOUND, "ktap: no such page: the metrics "
				"are at /metrics\n", false);
	q = calloc(1, sizeof(*q));
	if (!q)
		return MHD_NO;
	q->conn = conn;
	*con_cls = q;
	return MHD_YES;
}

/* Queue @q for the loop, suspended until it is answered. */
static enum MHD_Result rp_hand_over(struct run_prom *p, struct run_prom_req *q)
{
	uint64_t one = 1;

	pthread_mutex_lock(&p->lock);
	if (p->closing) {
		pthread_mutex_unlock(&p->lock);
		return rp_reply(q->conn, MHD_HTTP_SERVICE_UNAVAILABLE, "ktap is stopping\n",
				false);
	}
	q->at = rp_now();
	q->state = RP_WAITING;
	*p->tail = q;
	p->tail = &q->next;
	p->suspended++;
	/* under the lock: the loop cannot resume it before it is suspended */
	MHD_suspend_connection(q->conn);
	pthread_mutex_unlock(&p->lock);
	if (write(p->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		perror("ktap: --prometheus: eventfd");
	return MHD_YES;
}

/* Resumed with its answer: send it. */
static enum MHD_Result rp_send(struct run_prom_req *q)
{
	struct MHD_Response *resp;
	enum MHD_Result r;

	resp = q->len ? MHD_create_response_from_buffer(q->len, q->body, MHD_RESPMEM_MUST_FREE) :
			MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return MHD_NO;
	if (q->len)
		q->body = NULL;		/* the response's now */
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				q->status == MHD_HTTP_OK ? RP_METRICS_TYPE : RP_TEXT_TYPE);
	r = MHD_queue_response(q->conn, q->status, resp);
	MHD_destroy_response(resp);
	return r;
}

static enum MHD_Result rp_access(void *cls, struct MHD_Connection *conn, const char *url,
				 const char *method, const char *version,
				 const char *upload_data, size_t *upload_size, void **con_cls)
{
	struct run_prom_req *q = *con_cls;

	if (!q)
		return rp_first(conn, url, method, con_cls);
	if (*upload_size) {		/* a body with the GET: ignored */
		*upload_size = 0;
		return MHD_YES;
	}
	return q->state == RP_NEW ? rp_hand_over(cls, q) : rp_send(q);
}

/* The connection's request is over (sent, or the client went away). */
static void rp_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct run_prom *p = cls;
	struct run_prom_req *q = *con_cls;

	if (!q)
		return;
	if (q->state != RP_NEW) {
		pthread_mutex_lock(&p->lock);
		if (--p->suspended == 0)
			pthread_cond_broadcast(&p->idle);
		pthread_mutex_unlock(&p->lock);
	}
	free(q->body);
	free(q);
	*con_cls = NULL;
}

/* ---- the session loop's side ---- */

/* Answer @q (taken off the queue, lock held) with @status and @body. */
static void rp_resume(struct run_prom_req *q, unsigned status, char *body, size_t len)
{
	q->status = status;
	q->body = body;
	q->len = body ? len : 0;
	q->state = RP_DONE;
	MHD_resume_connection(q->conn);
}

/*
 * The oldest request waiting for its answer and, in *@at, when it came
 * (CLOCK_MONOTONIC ns, the trace clock); NULL when none waits.
 */
static struct run_prom_req *rp_next(struct run_prom *p, uint64_t *at)
{
	struct run_prom_req *q;
	uint64_t n;

	if (read(p->efd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		perror("ktap: --prometheus: eventfd");
	pthread_mutex_lock(&p->lock);
	q = p->head;
	if (q) {
		p->head = q->next;
		if (!p->head)
			p->tail = &p->head;
		q->state = RP_TAKEN;
		*at = q->at;
	}
	pthread_mutex_unlock(&p->lock);
	return q;
}

/* Answer @q with @body (taken): 200, or 500 when @failed. */
static void rp_answer(struct run_prom *p, struct run_prom_req *q, struct rt_buf *body,
		      bool failed)
{
	static const char why[] = "ktap: a prometheus probe ended in an error (see ktap's "
				  "messages)\n";
	char *text = body->p;
	size_t len = body->len;

	if (failed) {
		free(text);
		len = sizeof(why) - 1;
		text = malloc(len);
		if (text)
			memcpy(text, why, len);
		else
			len = 0;
	}
	*body = (struct rt_buf){ 0 };
	pthread_mutex_lock(&p->lock);
	rp_resume(q, failed ? MHD_HTTP_INTERNAL_SERVER_ERROR : MHD_HTTP_OK, text, len);
	pthread_mutex_unlock(&p->lock);
}

bool run_prom_probes(struct rt_ctx *c, struct rt_buf *body)
{
	unsigned i, errors = c->errors;

	c->prom_body = body;
	for (i = 0; i < c->prog->nprobes && !c->aborting; i++) {
		if (c->prog->probes[i].kind != IR_P_PROMETHEUS)
			continue;
		c->prom_mark = body->len;	/* this probe's $value starts empty */
		rt_run_probe(c, i, NULL);
	}
	c->prom_body = NULL;
	return c->errors == errors;
}

void run_prom_serve(struct run_prom *p, struct rt_ctx *c, void (*state)(void *arg, uint64_t at),
		    void *arg, bool catch_up)
{
	struct rt_buf body = { 0 };
	struct run_prom_req *q;
	uint64_t at;

	if (!p)
		return;
	while ((q = rp_next(p, &at))) {
		state(arg, catch_up ? at : 0);
		rp_answer(p, q, &body, !run_prom_probes(c, &body));
	}
}

int run_prom_fd(const struct run_prom *p)
{
	return p ? p->efd : -1;
}

/* ---- start and stop ---- */

/* libmicrohttpd's thread, started with every signal blocked: the loop's
   signalfd must be the only taker of SIGINT, SIGTERM, SIGCHLD ... */
static struct MHD_Daemon *rp_daemon(struct run_prom *p, int lfd, int family)
{
	sigset_t all, old;
	struct MHD_Daemon *d;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME |
			     (family == AF_INET6 ? MHD_USE_IPv6 : 0),
			     0, NULL, NULL, rp_access, p,
			     MHD_OPTION_LISTEN_SOCKET, lfd,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)RP_CONN_LIMIT,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)RP_CONN_TIMEOUT,
			     MHD_OPTION_NOTIFY_COMPLETED, rp_completed, p,
			     MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return d;
}

/*
 * The threads libmicrohttpd started: every thread of ktap but the main
 * one, which was alone before (run_prom_start() runs before anything
 * else of pass 5).  Their system calls are ktap's own, left out of the
 * traces as the main thread's are (run_prom_own()).
 */
static void rp_threads(struct run_prom *p)
{
	struct dirent *d;
	DIR *task = opendir("/proc/self/task");
	unsigned n = 0;

	while (task && (d = readdir(task)) != NULL && n + 1 < RP_MAX_TIDS) {
		int tid = atoi(d->d_name);

		if (tid > 0 && tid != getpid())
			p->tids[n++] = tid;
	}
	if (task)
		closedir(task);
}

bool run_prom_own(const struct run_prom *p, int tid)
{
	unsigned i;

	for (i = 0; p && p->tids[i]; i++)
		if (p->tids[i] == tid)
			return true;
	return false;
}

struct run_prom *run_prom_start(const char *spec, bool say, char *err, size_t cap)
{
	struct sockaddr_storage sa;
	struct run_prom *p;
	char where[INET6_ADDRSTRLEN + 8];
	socklen_t len;
	bool any_port;
	int lfd;

	if (run_prom_parse(spec, &sa, &len, err, cap) != 0)
		return NULL;
	any_port = strcmp(spec + strlen(spec) - 2, ":0") == 0 || strcmp(spec, "0") == 0;
	if ((lfd = rp_listen(&sa, len, err, cap)) < 0)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p || (p->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
		snprintf(err, cap, "--prometheus: %s", strerror(errno));
		free(p);
		close(lfd);
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->idle, NULL);
	p->tail = &p->head;
	if (!(p->mhd = rp_daemon(p, lfd, sa.ss_family))) {
		snprintf(err, cap, "--prometheus: cannot start the HTTP server");
		close(lfd);
		run_prom_stop(p);
		return NULL;
	}
	rp_threads(p);
	rp_text(&sa, where, sizeof(where));
	if (say || any_port)
		fprintf(stderr, "ktap: serving metrics at http://%s/metrics\n", where);
	return p;
}

void run_prom_stop(struct run_prom *p)
{
	static char stopping[] = "ktap is stopping\n";
	struct run_prom_req *q;
	struct timespec until;
	MHD_socket lfd;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->closing = true;
	while ((q = p->head)) {
		p->head = q->next;
		rp_resume(q, MHD_HTTP_SERVICE_UNAVAILABLE, strdup(stopping),
			  sizeof(stopping) - 1);
	}
	/* libmicrohttpd must not stop with a connection suspended */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += RP_STOP_WAIT_S;
	while (p->suspended && pthread_cond_timedwait(&p->idle, &p->lock, &until) == 0)
		;
	pthread_mutex_unlock(&p->lock);
	if (p->mhd) {
		lfd = MHD_quiesce_daemon(p->mhd);
		MHD_stop_daemon(p->mhd);
		if (lfd != MHD_INVALID_SOCKET)
			close(lfd);
	}
	close(p->efd);
	pthread_cond_destroy(&p->idle);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
