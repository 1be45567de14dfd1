#!/bin/sh
# guest-record-tracedat.sh - the guest half of tests/vm/record-tracedat.sh:
# `trace-cmd record` of a small getppid workload on Debian's 6.1 kernel
# (trace-cmd cannot record on the build machine: ftrace_enabled is
# locked there), copied to the shared directory (/mnt/host) as
# getppid.dat.  The recording: the getppid system call events, process
# creation and exec (what ktap's process tracking reads), and a kprobe
# event in a group of its own (ktapfix:getppid_k).  The workload spans
# a little over two seconds, so that timer.s(1) has ticks to show.
# trace-cmd saves /proc/kallsyms too (4 MB): an empty file is bound over
# it, to keep the fixture small.  One TAP-like line, which
# record-tracedat.sh shows.
T=/sys/kernel/tracing
: >/tmp/kallsyms
mount -o bind /tmp/kallsyms /proc/kallsyms 2>/tmp/err
if echo 'p:ktapfix/getppid_k __x64_sys_getppid' >>$T/kprobe_events 2>/tmp/err &&
	trace-cmd record -q -o /tmp/getppid.dat \
		-e syscalls:sys_enter_getppid -e syscalls:sys_exit_getppid \
		-e sched:sched_process_exec -e task:task_newtask \
		-e ktapfix:getppid_k \
		sh -c 'ktap-getppid 10; sleep 1; ktap-getppid 20; sleep 1; ktap-getppid 30' \
		>/tmp/out 2>>/tmp/err &&
	cp /tmp/getppid.dat /mnt/host/getppid.dat 2>>/tmp/err; then
	echo "ok - trace-cmd record in the guest ($(wc -c </tmp/getppid.dat) bytes)"
else
	echo "not ok - trace-cmd record in the guest"
	sed 's/^/# /' /tmp/err /tmp/out 2>/dev/null
fi
echo >$T/kprobe_events
