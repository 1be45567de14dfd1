/*
 * tfs_probe.c - pass 5, kernel side: asking the kernel whether it takes
 * a trigger, for what its tracefs README does not say.
 *
 * Some hist features have no line in the README (common_comm as a hist
 * key, Linux 6.16: "tracing: Add common_comm to histograms").  The
 * target description (compiler/target.c) asks the kernel itself: in an
 * instance of ktap's own, made and removed here as a session's is
 * (tfs_create(), tfs_destroy(): a sweep removes it if ktap dies between
 * the two), the trigger is written to an event's trigger file and
 * removed with the instance.  Nothing is enabled; the top level and
 * other instances are never touched.
 */
#include "tfs.h"

#include <errno.h>
#include <stdio.h>

int tfs_try_trigger(const char *event, const char *trigger)
{
	char name[64], err[256], path[256];
	struct tfs *t;
	int ok;

	tfs_unique_name(name, sizeof(name));
	t = tfs_create(name, NULL, err, sizeof(err));
	if (!t)
		return -1;
	snprintf(path, sizeof(path), "events/%s/trigger", event);
	ok = tfs_write(t, path, trigger, false) == 0;
	if (tfs_destroy(t, err, sizeof(err)) != 0)
		return -1;
	return ok;
}
