#!/bin/sh
# guest-tracedat.sh - the guest half of tests/vm/vm-tracedat.sh: ktap
# --record on Debian's 6.1 kernel, which has the hist triggers and
# kprobes this machine's kernel lacks (doc/trace-cmd.md).
#
# Runs as /tests/run-in-vm.sh (busybox sh).  An aggregation that 6.1
# would keep in a hist trigger is recorded in user space instead, so
# that ktap -i of the file prints byte for byte what the live run
# printed, and trace-cmd report (in the initramfs) shows the workload's
# records; a kprobe.function() probe's kprobe event (on
# __task_pid_nr_ns, which getppid() calls) is recorded with its ktap_
# group, filtered in the kernel to target(), and ktap -i reads the same
# number of records back as kernel.trace("ktap_*:*"); tracefs is as it
# was.
# shellcheck disable=SC2034  # read by vm-selftest.sh
guest_plan=6

. /tests/guest-lib.sh

# kernel 6.1 allocates the top-level buffer at its full size the first
# time any event is enabled: the "before" state is taken after one run.
bounded 60 ktap --no-lower -e 'global n probe kernel.trace("syscalls:sys_enter_getppid") { n++ }' \
	-c "ktap-getppid 1" >/dev/null 2>&1
ktap-tfs-snapshot >$T/before

cat >$T/agg.stp <<'STP'
global c
probe syscall.getppid { c[execname()]++ }
probe end { foreach (e in c-) printf("%s %d\n", e, c[e]) }
STP
bounded 60 ktap -v --record $T/agg.dat -c "ktap-getppid 300" $T/agg.stp >$T/live 2>$T/live.err
rc=$?
if [ "$rc" -eq 0 ] && grep -q '^ktap-getppid 300$' $T/live &&
	! grep -q "runs in the kernel" $T/live.err; then
	ok "--record: an aggregation 6.1 could lower stays in user space and counts 300 calls"
else
	not_ok "--record of an aggregation (exit status $rc)"
	diag $T/live; diag $T/live.err
fi
bounded 60 ktap -i $T/agg.dat $T/agg.stp >$T/out 2>$T/err
rc=$?
if [ "$rc" -eq 0 ] && cmp -s $T/live $T/out; then
	ok "-i of the recorded file prints what the live run printed"
else
	not_ok "-i of the recorded file (exit status $rc)"
	echo "# live:"; diag $T/live
	echo "# -i:"; diag $T/out; diag $T/err
fi
n=$(trace-cmd report -i $T/agg.dat 2>$T/err | grep -c '^ *ktap-getppid-[0-9]* .*sys_enter_getppid')
if [ "$n" = 300 ]; then
	ok "trace-cmd report in the guest: 300 sys_enter_getppid records of ktap-getppid"
else
	not_ok "trace-cmd report in the guest: $n sys_enter_getppid records of ktap-getppid, not 300"
	diag $T/err
fi

cat >$T/kp.stp <<'STP'
global n
probe kprobe.function("__task_pid_nr_ns") { if (pid() == target()) n++ }
probe end { printf("%d\n", n) }
STP
bounded 60 ktap --record $T/kp.dat -c "ktap-getppid 200" $T/kp.stp >$T/live 2>$T/live.err
lrc=$?
bounded 60 ktap -i $T/kp.dat -e 'global n probe kernel.trace("ktap_*:*") { n++ } probe end { printf("%d\n", n) }' \
	>$T/out 2>$T/err
rc=$?
kp=$(cat $T/live)
if [ "$lrc" -eq 0 ] && [ "$rc" -eq 0 ] && [ "$kp" -ge 200 ] && [ "$(cat $T/out)" = "$kp" ]; then
	ok "a kprobe recorded with its ktap_ group: -i reads its $kp records as kernel.trace(\"ktap_*:*\")"
else
	not_ok "a recorded kprobe (live exit $lrc, -i exit $rc)"
	echo "# live:"; diag $T/live; diag $T/live.err
	echo "# -i:"; diag $T/out; diag $T/err
fi
n=$(trace-cmd report -i $T/kp.dat 2>$T/err | grep -c '__task_pid_nr_ns')
if [ "$n" = "$kp" ]; then
	ok "trace-cmd report in the guest: the $kp records of the kprobe event"
else
	not_ok "trace-cmd report in the guest: $n records of the kprobe event, not $kp"
	trace-cmd report -i $T/kp.dat 2>&1 | head -5 | diag
fi

ktap-tfs-snapshot >$T/after
if cmp -s $T/before $T/after; then
	ok "tracefs is as before"
else
	not_ok "tracefs differs after the runs"
	diff $T/before $T/after | diag
fi
guest_done
