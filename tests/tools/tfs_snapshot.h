/*
 * tfs_snapshot.h - for the live tests: the tracefs state a ktap run must
 * leave unchanged.  Not part of ktap itself.
 */
#ifndef KTAP_TEST_TFS_SNAPSHOT_H
#define KTAP_TEST_TFS_SNAPSHOT_H

/*
 * tfs_snapshot - a text dump of: the instance list, top-level tracing_on,
 * current_tracer, buffer_size_kb, trace_clock, set_event, every
 * top-level events/SYS/EVENT/{enable,filter,trigger} that is not in its
 * default state, and dynamic_events; objects of ktap sessions running
 * now (their lock is held) are left out.  Compare before and after.
 * @root: tracing dir or NULL.  Returns a malloc'd string (caller frees),
 * or NULL with errno set.  Takes ~50 ms (it reads ~7,500 files).
 */
char *tfs_snapshot(const char *root);

#endif
