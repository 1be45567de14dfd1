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
UDP=$KTAP_BUILDDIR/tests/tools/ktap-udp

require_live "live tests need root (run make check as root)"
[ -d /sys/kernel/tracing/events/raw_syscalls ] ||
	skip_all "no tracefs with raw_syscalls events at /sys/kernel/tracing"
require_tools "$GP" "$SC" "$UDP" "$TFS_SNAP"

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

# --- process.begin/end, process.thread.begin/end: the target's tree ---
procs='global names
probe process.begin { names["begin", execname(), pid() == target()]++ }
probe process.end { names["end", execname(), pid() == target()]++ }
probe process.thread.begin {
	names["thread.begin", execname(), pid() == target() && tid() != pid()]++ }
probe process.thread.end {
	names["thread.end", execname(), pid() == target() && tid() != pid()]++ }
probe end { foreach ([k, n, t] in names) printf("%s %s %d %d\n", k, n, t, names[k, n, t]) }'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "$procs" -c "$GP -t 4 10"
sort "$TMP/out" >"$TMP/out.1"
mv "$TMP/out.1" "$TMP/out"
expect_text "process.begin/end once for the -c command, thread.begin/end for its 4 threads" \
	"begin ktap-getppid 1 1
end ktap-getppid 1 1
thread.begin ktap-getppid 1 4
thread.end ktap-getppid 1 4"

# sh forks twice and each child execs: begin at each fork (the shell's
# name) and exec (the program's), end at each exit; nothing outside.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "$procs" -c "sh -c '$GP 1; $GP 2; :'"
sort "$TMP/out" >"$TMP/out.1"
mv "$TMP/out.1" "$TMP/out"
expect_text "process.begin/end over sh's two children, and nothing else" \
	"begin ktap-getppid 0 2
begin sh 0 2
begin sh 1 1
end ktap-getppid 0 2
end sh 1 1"

# The whole tree below the target, as stap's target set: sh runs a sh
# (begin at its fork and exec) that forks a child (begin) that execs
# ktap-getppid (a grandchild: its begin and end are reported),
# and target_set_pid() is true in the tree and false outside it.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "$procs
probe begin { printf(\"%d %d\\n\", target_set_pid(target()), target_set_pid(1)) }" \
	-c "sh -c 'sh -c \"$GP 1; :\"; :'"
sort "$TMP/out" >"$TMP/out.1"
mv "$TMP/out.1" "$TMP/out"
expect_text "process.begin/end of a grandchild; target_set_pid() of the target and of init" \
	"1 0
begin ktap-getppid 0 1
begin sh 0 3
begin sh 1 1
end ktap-getppid 0 1
end sh 0 1
end sh 1 1"

# process("PATH").begin/end: by the program's name; process(PID).end (of
# this shell, which outlives the run; stap refuses PIDs below 2).
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'global b, e, t
probe process("'"$GP"'").begin { b++ }
probe process("/no/such/dir/ktap-getppid").end { e++ }
probe process("/bin/sh").thread.begin { b += 100 }
probe process($1).end { t++ }
probe end { printf("%d %d %d\n", b, e, t) }' -c "sh -c '$GP 1; $GP -t 2 2; :'" $$
expect_text "process(\"PATH\").begin/end: the two execs of ktap-getppid under sh, none of sh's threads" \
	"2 2 0"

# process("PATH").syscall[.return] (raw_syscalls): $syscall, $arg1, $return;
# ktap-getppid's 3 getppid() calls (110 on x86_64), each returning its
# parent's pid, ppid(); process.syscall of the target only (-c).
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'global n, r, bad, any
probe process("'"$GP"'").syscall { if ($syscall == 110) { n++; bad += $arg1 != 0 } }
probe process("'"$GP"'").syscall.return { if ($syscall == 110) { r++; bad += $return != ppid() } }
probe process.syscall { any += pid() != target() }
probe end { printf("%d %d %d %d\n", n, r, bad, any) }' -c "$GP 3"
expect_text "process(\"PATH\").syscall/.syscall.return: \$syscall, \$arg1, \$return; process.syscall of the target only" \
	"3 3 0 0"

# $args[N] of a tracepoint's array field (raw_syscalls' unsigned long
# args[6]): ktap-syscalls' write(3, "ktap\n", 5) and close(-1); a guard on
# an element stays in ktap (a kernel filter cannot index), so the counts
# are exact with and without lowering.
for nl in "" --no-lower; do
	run_ktap "$TMP" "$TMP/out" "$TMP/err" $nl -e 'global w, c
probe kernel.trace("raw_syscalls:sys_enter") {
	if (pid() != target() || $args[0] != 3) next
	if ($id == 1) w = $args[2]
}
probe kernel.trace("raw_syscalls:sys_enter") { if (pid() == target() && $id == 3) c[$args[0] & 0xffffffff]++ }
probe end { printf("%d %d %d\n", w, c[3], c[0xffffffff]) }' -c "$KTAP_BUILDDIR/tests/tools/ktap-syscalls $TMP/sc"
	expect_text "kernel.trace(\"raw_syscalls:sys_enter\") \$args[N]${nl:+ ($nl)}: write's length, close(3) and close(-1)" \
		"5 1 1"
done

# $comm[N] of a char array field is the byte, as stap's $next_comm[0];
# @cast() of a tracepoint argument the record also holds ($timer of
# timer_start) reads through the argument.  Five sleeps: a switch whose
# next task is ktap itself is not recorded (ktap's own filter), and one
# sleep may switch out only that way (seen in CI).
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'probe kernel.trace("sched:sched_switch") {
	if ($prev_comm == "sleep") {
		printf("%d %d %d %d\n", $prev_comm[0], $prev_comm[4], $prev_comm[5], $prev_comm[15]); exit() } }' \
	-c "sh -c 'sleep 0.1; sleep 0.1; sleep 0.1; sleep 0.1; sleep 0.1'"
expect_text "\$prev_comm[N] of sched_switch: the bytes of \"sleep\", then zeros" "115 112 0 0"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'probe kernel.trace("timer:timer_start") {
	printf("%d\n", @cast($timer, "timer_list", "kernel<linux/timer.h>")->function == $function &&
	       @cast($timer, "struct timer_list")->function == $timer->function); exit() }' \
	-c "sleep 2"
expect_text "@cast(\$timer, \"timer_list\")->function of timer_start: the recorded function" "1"

# p2_error DESC SCRIPT TEXT: ktap -p2 -e SCRIPT exits 1 and its first
# message, without the FILE:LINE:COL: prefix, is TEXT.
p2_error() {
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e "$2"
	sed 's/^[^:]*:[0-9]*:[0-9]*: //;q' "$TMP/err" >"$TMP/out"
	if [ "$rc" -eq 1 ]; then rc=0; fi
	expect_text "$1" "$3"
}

# The scheduler aliases' task pointers (task, prev_task, next_task, as
# stap's tapset has them): task_execname() of one is the comm the record
# holds; the address itself is an error at the script's read.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'probe scheduler.ctxswitch {
	if (task_execname(prev_task) == "sleep" && prev_task_name == "sleep") {
		printf("%s %d\n", task_execname(prev_task), task_execname(next_task) == next_task_name)
		exit() } }' -c "sh -c 'sleep 0.1; sleep 0.1; sleep 0.1; sleep 0.1; sleep 0.1'"
expect_text "scheduler.ctxswitch: task_execname(prev_task), task_execname(next_task) are the recorded comms" "sleep 1"
p2_error "scheduler.wakeup: reading the task pointer itself says why, at the script's read" \
	'probe scheduler.wakeup { println(task) }' \
	"error: \$p: sched:sched_wakeup records no field for it; reading tracepoint arguments needs tracepoint probe events (Linux 6.10+ with CONFIG_FPROBE_EVENTS), which this kernel does not have"

# --- scheduler.cpu_off/cpu_on: both on one sched_switch record, cpu_off
#     first whatever the script's order; cpu_on's context the task
#     switched in; twenty sleeps make the switches (ktap's own are left
#     out, and an idle machine may make fewer than 10 in 0.2 s) ---
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'global last, bad, good
probe scheduler.cpu_on {
	if (last != "off" || tid() != $next_pid || pid() != $next_pid ||
	    execname() != $next_comm || idle != ($next_pid == 0) || name != "cpu_on")
		bad++
	else
		good++
	last = "on"
}
probe scheduler.cpu_off {
	if (tid() != $prev_pid || idle != ($prev_pid == 0) || name != "cpu_off") bad++
	last = "off"
}
probe end { printf("%d %d\n", bad, good > 10) }' \
	-c "sh -c 'i=0; while [ \$i -lt 20 ]; do sleep 0.01; i=\$((i + 1)); done'"
expect_text "scheduler.cpu_on: after cpu_off on each record, tid()/pid()/execname() of the task switched in" "0 1"

p2_error "scheduler.cpu_on's task_prev: an error saying what to use instead" \
	'probe scheduler.cpu_on { println(task_prev) }' \
	"error: scheduler.cpu_on: 'task_prev' is not available: a sched_switch record has no task_struct pointers: use \$prev_pid, \$prev_comm, \$prev_prio"

# --- scheduler.wait_task: strace's ptrace waits for its stopped tracee
#     (strace itself, then true after the exec), prio 120 (nice 0) ---
if command -v strace >/dev/null 2>&1; then
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'global n, bad
probe scheduler.wait_task {
	if (pid() == target()) {
		n++
		if (name != "wait_task" || task_priority != 120 || task_pid == pid() ||
		    (task_name != "strace" && task_name != "true"))
			bad++
	}
}
probe end { printf("%d %d\n", n > 0, bad) }' -c "strace -o /dev/null /bin/true"
	expect_text "scheduler.wait_task: strace waiting for its tracee" "1 0"
else
	skip "scheduler.wait_task" "no strace"
fi

# --- scheduler.kthread_stop(.return): umount of an ext4 file system
#     stops its workqueue's rescuer kernel thread ---
img=$KTAP_BUILDDIR/probes-live.ext4
mnt=$KTAP_BUILDDIR/probes-live.mnt
if command -v mkfs.ext4 >/dev/null 2>&1 && grep -qw ext4 /proc/filesystems &&
	truncate -s 16M "$img" && mkfs.ext4 -q "$img" 2>/dev/null && mkdir -p "$mnt"; then
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'global n, r, bad
probe scheduler.kthread_stop {
	if (execname() == "umount") {
		n++
		if (name != "kthread_stop" || thread_pid <= 0 || thread_name == "") bad++
	}
}
probe scheduler.kthread_stop.return {
	if (execname() == "umount") { r++; if (name != "kthread_stop" || return_value != 0) bad++ }
}
probe end { printf("%d %d %d\n", n > 0, r == n, bad) }' -c "sh -c 'mount -o loop $img $mnt && umount $mnt'"
	expect_text "scheduler.kthread_stop(.return): umount of ext4 stops its kernel threads" "1 1 0"
else
	skip "scheduler.kthread_stop" "no ext4 file system to mount (mkfs.ext4, loop)"
fi
rm -f "$img"
rmdir "$mnt" 2>/dev/null || :
p2_error "scheduler.kthread_stop's thread_priority: an error saying where a priority is" \
	'probe scheduler.kthread_stop { println(thread_priority) }' \
	"error: scheduler.kthread_stop: 'thread_priority' is not available: the sched_kthread_stop record has only the thread's pid and comm, and this kernel has no kprobes (a kprobe on kthread_stop() reads it): scheduler.wait_task and kernel.trace(\"sched:sched_wait_task\") record a priority"

# --- vm.kmalloc_node: a tracefs instance's ring buffer is allocated per
#     CPU on the CPU's node (kmem:kmalloc with node != -1 from 6.1) ---
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'global n, bad
probe vm.kmalloc_node {
	if (pid() == target()) {
		n++
		if (name != "kmalloc_node" || node < 0 || bytes_alloc < bytes_req || ptr == 0) bad++
	}
}
probe end { printf("%d %d\n", n > 0, bad) }' -c "mkdir /sys/kernel/tracing/instances/ktap-probes-live-node"
rmdir /sys/kernel/tracing/instances/ktap-probes-live-node 2>/dev/null || :
expect_text "vm.kmalloc_node: a tracefs instance's per-CPU buffers" "1 0"

# --- irq_handler.*, softirq.*: entry and exit pair up on each CPU over
#     direct disk writes (the disk's interrupts) ---
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'global open, bad, n
probe irq_handler.entry { if (cpu() in open) bad++; open[cpu()] = irq; if (dev_name != "") n++ }
probe irq_handler.exit {
	if (!(cpu() in open) || open[cpu()] != irq || ret < 0 || ret > 2) bad++
	delete open[cpu()]
}
probe softirq.entry, softirq.exit { if (vec_nr < 0 || vec_nr > 9) bad++ }
probe end { printf("%d %d\n", bad, n > 0) }' \
	-c "dd if=/dev/zero of=$KTAP_BUILDDIR/probes-live.dd bs=4096 count=50 oflag=direct status=none"
rm -f "$KTAP_BUILDDIR/probes-live.dd"
expect_text "irq_handler.entry/exit: irq and dev_name, each exit after its entry on its CPU" "0 1"

# --- netdev.transmit/receive: 50 datagrams of 1234 bytes over lo ---
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'global t, r
probe netdev.transmit { if (dev_name == "lo") t[length]++ }
probe netdev.receive { if (dev_name == "lo") r[length]++ }
probe end { printf("%d %d\n", t[1234 + 42], r[1234 + 28]) }' -c "$UDP 50 1234"
expect_text "netdev.transmit/receive: dev_name and length of 50 loopback datagrams each way" "50 50"

tfs_guard_end "tracefs is as it was before the runs"
done_testing
