/*
 * kplan_perf.c - pass 5: the plan's KP_PERF objects (kplan.h), a
 * disabled perf event on a tracepoint that ktap holds open for the run.
 *
 * In: the object and the tracing directory (the event's id is read from
 * ROOT/events/SYS/EVENT/id).  Out: an fd (close-on-exec, counting
 * ktap's own thread, never enabled: it records nothing).  Opening it
 * registers the perf callback on the tracepoint, so the tracepoint calls
 * through its iterator; closing it (or ktap's exit, however it dies)
 * unregisters it again, so nothing needs sweeping.
 */
#define _GNU_SOURCE
#include "kplan.h"
#include "fileio.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int kplan_perf_hold(const struct kp_obj *o, const char *root, char *err, size_t errlen)
{
	struct perf_event_attr a;
	char path[4096], *text;
	size_t len = 0;
	long id;
	int fd;

	if (o->kind != KP_PERF) {
		snprintf(err, errlen, "kernel plan: not a perf event");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, o->u.perf.system,
		 o->u.perf.event);
	text = fio_read(path, &len);
	id = text ? strtol(text, NULL, 10) : -1;
	free(text);
	if (id < 0) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof(a);
	a.config = (unsigned long long)id;
	a.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		snprintf(err, errlen, "perf_event_open on tracepoint %s:%s: %s (the hist "
			 "stacktrace key needs it to start at the probe point; --no-lower "
			 "reads stacks without it)", o->u.perf.system, o->u.perf.event,
			 strerror(errno));
	return fd;
}
