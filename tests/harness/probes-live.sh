#!/bin/sh
# probes-live.sh - the probe points stap's scripts use that map onto
# tracepoints (TAP): syscall_any[.return] (raw_syscalls), process.begin/
# end and process.thread.* (sched/task tracepoints), scheduler.cpu_on/
# cpu_off (sched_switch), irq_handler.* (irq), netdev.* (net).  Exact
# counts against known workloads.  Root and tracefs only; otherwise
# skipped.  tracefs is as it was afterwards.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
GP=$KTAP_BUILDDIR/tests/tools/ktap-getppid
SC=$KTAP_BUILDDIR/tests/tools/ktap-syscalls

require_live "live tests need root (run make check as root)"
[ -d /sys/kernel/tracing/events/raw_syscalls ] ||
	skip_all "no tracefs with raw_syscalls events at /sys/kernel/tracing"
require_tools "$GP" "$SC" "$TFS_SNAP"

tfs_guard_begin

# --- syscall_any: the number's name from ktap's table ---
if [ "$(uname -m)" = x86_64 ]; then
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'global n
probe syscall_any { if (pid() == target() && name == "getppid") n++ }
probe end { printf("%d\n", n) }' -c "$GP 100"
	expect_text "syscall_any: name == \"getppid\" counts exactly 100 calls" "100"

	run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'global n, r
probe nd_syscall_any.return {
	if (pid() == target() && syscall_nr == syscall_num("getppid")) {
		n++; if (retval == ppid() && name == "getppid") r++ } }
probe end { printf("%d %d\n", n, r) }' -c "$GP 77"
	expect_text "nd_syscall_any.return: syscall_nr, name and retval of 77 getppid calls" "77 77"

	# The table against the kernel: the calls of ktap-syscalls between its
	# two getppid markers, named from their numbers, entry and return.
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'global on, calls, rets
probe syscall_any {
	if (pid() != target()) next
	if (name == "getppid") { on = !on; next }
	if (on) calls[name]++
}
probe syscall_any.return {
	if (pid() == target() && on && name != "getppid") rets[name, retval]++
}
probe end {
	foreach ([s] in calls) printf("%s %d\n", s, calls[s])
	foreach ([s, r] in rets) printf("%s = %d %d\n", s, r, rets[s, r])
}' -c "$SC $TMP/file"
	sort "$TMP/out" >"$TMP/out.1"
	mv "$TMP/out.1" "$TMP/out"
	expect_text "syscall_any and .return: every call of ktap-syscalls by name, with retval" \
		"close 2
close = -9 1
close = 0 1
kill 1
kill = 0 1
openat 2
openat = -2 1
openat = 3 1
write 1
write = 5 1"
else
	skip "syscall_any on this architecture" "ktap's system-call table is x86_64's"
fi

tfs_guard_end "tracefs is as it was before the runs"
done_testing
