/*
 * tfs_guard.h - pass 5, kernel side: the guardian of a session.
 *
 * ktap cleans up after itself on every exit it sees (exit(), -T,
 * signals, errors), but not after SIGKILL or the OOM killer.  The
 * guardian is a small process forked as soon as the instance exists: it
 * holds the session's lock and the read end of a pipe whose write end
 * only ktap holds.  The moment ktap is gone, however it died, the pipe
 * reads EOF and the guardian removes the instance and the session's
 * dynamic events, then exits.  After a normal exit there is nothing left
 * to remove and it exits at once.
 */
#ifndef KTAP_RT_TFS_GUARD_H
#define KTAP_RT_TFS_GUARD_H

#include "tfs.h"

/*
 * tfs_guard_start - fork the guardian of @t.  It keeps only the pipe,
 * the lock and stderr (stdin and stdout are /dev/null, every other file
 * is closed, so it holds no file of the instance and no pipe of ktap's
 * caller) and ignores the signals a terminal or a shell pipeline sends
 * to the whole process group.  Returns the pipe's write end
 * (close-on-exec) for ktap to keep until it exits, or -1 with errno set.
 */
int tfs_guard_start(const struct tfs *t);

#endif
