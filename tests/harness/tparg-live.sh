#!/bin/sh
# tparg-live.sh - stap's tracepoint arguments in kernel.trace() probes,
# read from the record fields that hold them (compiler/resolve/
# sema_tparg.c), on this machine's kernel (TAP).  Exact values from
# known workloads: tests/tools/ktap-values renames itself with
# prctl(PR_SET_NAME) (after the exec of -c, which renames it first), and
# a shell script forks one /bin/true and writes its pid.  Root only.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
KV=$KTAP_BUILDDIR/tests/tools/ktap-values

require_live "live tests need root (run make check as root)"
[ -d /sys/kernel/tracing/events/task/task_rename ] ||
	skip_all "no task:task_rename tracepoint in /sys/kernel/tracing"
require_tools "$KV"
tfs_guard_begin

# 1. task_rename(task, comm): $task->comm is the old name, $comm the
# new one, task_execname($task) reads $task->comm, task_tid($task) and
# $task->pid the renamed thread.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$KV" -e '
probe kernel.trace("task:task_rename") {
	if (pid() != target())
		next
	printf("%s %s %s %d %d\n", $task->comm, kernel_string($comm), task_execname($task),
	       $task->pid == target(), task_tid($task) == tid())
}'
{
	echo "ktap ktap-values ktap 1 1"
	echo "ktap-values kv-x ktap-values 1 1"
	for n in kv-a kv-b kv-a kv-c kv-a; do
		echo "kv-x $n kv-x 1 1"
		echo "$n kv-x $n 1 1"
	done
} >"$TMP/want"
if [ "$rc" -eq 0 ] && cmp -s "$TMP/want" "$TMP/out"; then
	ok "task_rename: \$task->comm, \$comm, task_execname(\$task), \$task->pid, task_tid(\$task)"
else
	not_ok "task_rename arguments (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/out"
	diag_file "$TMP/err"
fi

# 2. sched_process_fork(parent, child): $child->pid is the pid fork
# returned, both comms the shell's.
printf '#!/bin/sh\n/bin/true &\necho $! >%s/child\nwait\n' "$TMP" >"$TMP/fork.sh"
chmod +x "$TMP/fork.sh"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$TMP/fork.sh" -e '
probe kernel.trace("sched:sched_process_fork") {
	if ($parent->pid != target())
		next
	printf("%d %s %s %d\n", $child->pid, kernel_string($parent->comm), $child->comm,
	       task_tid($parent) == tid())
}'
echo "$(cat "$TMP/child" 2>/dev/null) fork.sh fork.sh 1" >"$TMP/want"
if [ "$rc" -eq 0 ] && cmp -s "$TMP/want" "$TMP/out"; then
	ok "sched_process_fork: \$child->pid is the forked pid; \$parent->comm, \$child->comm"
else
	not_ok "sched_process_fork arguments (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/out"
	diag_file "$TMP/err"
fi

# 3. what the record does not hold is refused at compile time, tracefs
# untouched
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e '
probe kernel.trace("sched:sched_switch") { println($prev->se->vruntime) }'
if [ "$rc" -eq 1 ] && [ "$(grep -c error: "$TMP/err")" -eq 1 ] &&
	grep -q '^<input>:2:52: error: \$prev->se->vruntime: sched:sched_switch records no field for it; reading tracepoint arguments needs tracepoint probe events' "$TMP/err"; then
	ok "an argument member no field records: one located error"
else
	not_ok "unrecorded member (exit status $rc)"
	diag_file "$TMP/err"
fi
# 4. a member of an argument whose pointer the record holds: an eprobe's
# work (tests/vm/guest-ktap.sh 10h); this kernel has none (its config
# has CONFIG_EPROBE_EVENTS unset, though its README shows the syntax),
# and the one error says so.
if zcat /proc/config.gz 2>/dev/null | grep -qx '# CONFIG_EPROBE_EVENTS is not set'; then
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -e '
probe kernel.trace("timer:timer_start") { println($timer->expires) }'
	if [ "$rc" -eq 1 ] && [ "$(grep -c error: "$TMP/err")" -eq 1 ] &&
		grep -q '^<input>:2:51: error: \$timer->expires: timer:timer_start records the pointer but not what it points to; reading through it needs event probes' "$TMP/err"; then
		ok "a member through a recorded pointer, no eprobes: one located error"
	else
		not_ok "member through a recorded pointer without eprobes (exit status $rc)"
		diag_file "$TMP/err"
	fi
else
	skip "a member through a recorded pointer, no eprobes" "this kernel may have eprobes"
fi
tfs_guard_end "tracefs is as it was"
done_testing
