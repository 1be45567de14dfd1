#!/bin/sh
# tapset-block-live.sh - the tapset's ioscheduler.*, ioscheduler_trace.*
# and workqueue.* probes on the live kernel (TAP, root), with exact
# counts: dd writes 8 blocks of 4096 bytes with O_DIRECT to a loop
# device (on a file in $TMP) whose I/O scheduler is mq-deadline, so
# each block is one request of 8 sectors that is inserted into the
# scheduler, issued and completed, and one work item of the loop
# driver's, queued by dd and run by a kworker.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

require_live "the tapset probes trace the live kernel: run make check as root"
require_tools losetup dd truncate
for e in block/block_rq_insert block/block_rq_issue block/block_rq_complete \
	 block/block_plug block/block_unplug workqueue/workqueue_queue_work \
	 workqueue/workqueue_execute_start; do
	[ -r "/sys/kernel/tracing/events/$e/format" ] ||
		skip_all "no ${e%%/*}:${e#*/} tracepoint (tracefs not mounted?)"
done

truncate -s 8M "$TMP/img" || skip_all "cannot make a file in $TMP"
LOOP=$(losetup -f --show "$TMP/img" 2>/dev/null) || skip_all "no loop device (losetup -f failed)"
at_exit "losetup -d '$LOOP'"
B=${LOOP##*/}
echo mq-deadline >"/sys/block/$B/queue/scheduler" 2>/dev/null ||
	skip_all "cannot select mq-deadline for $B"
MM=$(cat "/sys/block/$B/dev")
MAJ=${MM%:*} MIN=${MM#*:}
DD="dd if=/dev/zero of=$LOOP bs=4096 count=8 oflag=direct status=none"

# 1. The requests of the loop device, by probe point (pn()), name, rwbs
#    and size; the entry of elv_next_request has no disk: its record's
#    $dev.  The plugs and unplugs of dd: each O_DIRECT write plugs and
#    sends its one request (dd may plug once more, for other I/O: 8 or
#    more).
cat >"$TMP/rq.stp" <<EOS
global n
probe ioscheduler.elv_add_request, ioscheduler.elv_next_request.return,
      ioscheduler_trace.elv_issue_request, ioscheduler.elv_completed_request,
      ioscheduler_trace.elv_completed_request, ioscheduler_trace.elv_add_request {
	if (disk_major == $MAJ && disk_minor == $MIN)
		n[pn(), name, rwbs, size]++
}
probe ioscheduler.elv_next_request {
	if (MAJOR(\$dev) == $MAJ && MINOR(\$dev) == $MIN)
		n[pn(), name, "-", 0]++
}
probe ioscheduler_trace.plug { if (pid() == target()) p[pn(), name, comm, 0]++ }
probe ioscheduler_trace.unplug_io { if (pid() == target()) p[pn(), name, comm, nr_rq]++ }
global p
probe end {
	foreach ([q, a, b, c] in n+)
		printf("%s %s %s %d: %d\n", q, a, b, c, n[q, a, b, c])
	foreach ([x, a, b, c] in p+)
		printf("%s %s %s %d: 8 or more %d\n", x, a, b, c, p[x, a, b, c] >= 8)
}
EOS
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$DD" rq.stp
sort "$TMP/out" >"$TMP/got"
cat >"$TMP/want" <<'EOW'
ioscheduler.elv_add_request elv_add_request WS 4096: 8
ioscheduler.elv_completed_request elv_completed_request WS 4096: 8
ioscheduler.elv_next_request elv_next_request - 0: 8
ioscheduler.elv_next_request.return elv_next_request WS 4096: 8
ioscheduler_trace.elv_add_request elv_add_request WS 4096: 8
ioscheduler_trace.elv_completed_request elv_completed_request WS 4096: 8
ioscheduler_trace.elv_issue_request elv_issue_request WS 4096: 8
ioscheduler_trace.plug plug dd 0: 8 or more 1
ioscheduler_trace.unplug_io unplug_io dd 1: 8 or more 1
EOW
expect_same "ioscheduler.*, ioscheduler_trace.*: 8 O_DIRECT writes of 4096 bytes to a loop device are 8 requests inserted, issued, completed; 8 or more plugs and unplugs of 1" "$TMP/want" "$TMP/got"

# 2. workqueue: the loop driver's work items that dd queues (on the
#    workqueue "loopMINOR", unbound: cpu -1), and their execution, told by their work
#    address.  (Other work dd's writes queue, kblockd's queue runs, come
#    or not: left out.)
cat >"$TMP/wq.stp" <<EOS
global n, ours
probe workqueue.insert {
	if (pid() == target() && isinstr(symname(work_func), "loop_")) {
		ours[work] = 1
		n["insert", wq_name == "loop$MIN", cpu]++
	}
}
probe workqueue.execute {
	if (work in ours && isinstr(symname(work_func), "loop_"))
		n["execute", tid() != target(), 1]++
}
probe workqueue.create ?, workqueue.destroy ? { n["never", 0, 0]++ }
probe end { foreach ([a, b, c] in n+) printf("%s %d %d: %s\n", a, b, c, n[a, b, c] ? "some" : "none") }
EOS
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$DD" wq.stp
sort "$TMP/out" >"$TMP/got"
cat >"$TMP/want" <<'EOW'
execute 1 1: some
insert 1 -1: some
EOW
expect_same "workqueue.insert, workqueue.execute: work items of the loop driver for dd's writes (a pending item is queued once: the count depends on timing), on its unbound workqueue (cpu -1), run by a kworker; workqueue.create ? is none" "$TMP/want" "$TMP/got"

done_testing
