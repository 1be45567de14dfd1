#!/bin/sh
# filter-live.sh - kernel filters and the traceoff trigger on this
# machine's kernel (TAP).  Root and tracefs only; otherwise skipped.
#
# While a noise process makes getppid(2) calls without end, the
# workload (tests/tools/ktap-getppid, run by -c) makes exactly 1000.
# Each script counts the workload's calls by a condition the kernel
# filter takes (tid() == target() as a single "if" and as "if (C)
# next", execname() ==, execname() =~ a glob, cpu() == N with both
# pinned by taskset): the count is 1000 and, from the instance's per-CPU
# stats (-v), exactly 1000 records were written to the ring buffer: the
# kernel dropped the noise.  The same count through pid() + 0 ==
# target() (user space, no pre-filter: pid-prefilter-live.sh has pid()
# == target()'s) is 1000 (unless the noise made it lose records, which
# it says) with the noise written too.  A probe that only
# calls exit() gets a traceoff trigger: 2 records written instead of
# the rest of the run, no loss, end probe output intact, and the
# top-level tracing_on untouched.  Interrupts that hit ktap are
# recorded, its own system calls are not.  tracefs is as it was
# afterwards.
# Runs under the live-test lock (require_live).
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
GP=$KTAP_BUILDDIR/tests/tools/ktap-getppid
T=/sys/kernel/tracing

require_live "live tests need root (run make check as root)"
[ -d $T/events/syscalls/sys_enter_getppid ] ||
	skip_all "no tracefs with syscall events at $T"
require_tools "$GP" taskset

tfs_guard_begin
top_on=$(cat $T/tracing_on)

# The noise: the same program under another name, pinned to the last CPU.
ncpu=$(getconf _NPROCESSORS_ONLN)
last=$((ncpu - 1))
mkdir "$TMP/noise"
cp "$GP" "$TMP/noise/noise-getppid"
cp "$GP" "$TMP/noise/ktap-getppid"
taskset -c "$last" "$TMP/noise/noise-getppid" 2000000000 &
noise=$!
at_exit 'kill $noise 2>/dev/null'

COUNT='probe end { printf("%d\n", n) }'

# counted DESC WRITTEN COND [WORKLOAD [COUNT]]: the workload's 1000
# getppid calls counted by handler COND: COUNT (1000), and WRITTEN
# ("1000" or "more") records written to the ring buffer.
counted() {
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -v -c "${4:-$GP 1000}" -e \
		"global n; probe kernel.trace(\"syscalls:sys_enter_getppid\") { $3 } $COUNT"
	w=$(sed -n 's/^Pass 5: handled .* \([0-9]*\) written to the ring buffer$/\1/p' "$TMP/err")
	if [ "$2" = more ] && [ -n "$w" ] && [ "$w" -gt 1000 ]; then
		w=more
	fi
	# The user-space reference reads the noise too and may lose records
	# to it (said in a warning): then only the written count is checked.
	n=$(cat "$TMP/out")
	if [ "$2" = more ] && grep -q "^WARNING: [0-9]* events lost" "$TMP/err"; then
		n=1000
	fi
	if [ "$rc" -eq 0 ] && [ -z "$why" ] && [ "$n" = "${5:-1000}" ] &&
		[ "$w" = "$2" ] && { [ "$2" = more ] || ! grep -q "^WARNING" "$TMP/err"; }; then
		ok "$1: ${5:-1000} counted, $2 written"
	else
		not_ok "$1: ${5:-1000} counted, $2 written (got $(cat "$TMP/out"), $w written, exit status $rc)"
		diag_file "$TMP/err"
	fi
}

counted "tid() == target() in the kernel (single if)" 1000 'if (tid() == target()) n++'
counted "tid() == target() in the kernel (if next)" 1000 'if (tid() != target()) next; n++'
counted "pid() + 0 == target() in user space" more 'if (pid() + 0 == target()) n++'
# Split: the kernel takes tid() == target(), user space keeps n < 600:
# 600 counted, 1000 written.
counted "tid() == target() in the kernel, n < 600 in user space" 1000 \
	'if (tid() == target() && n < 600) n++' "" 600
counted "execname() == in the kernel" 1000 'if (execname() == "ktap-getppid") n++'
counted "execname() =~ as a glob in the kernel" 1000 'if (execname() =~ "^ktap-getp") n++'
if [ "$ncpu" -ge 2 ]; then
	# The noise under the workload's name too, on the other CPU.
	taskset -c "$last" "$TMP/noise/ktap-getppid" 2000000000 &
	noise2=$!
	at_exit 'kill $noise2 2>/dev/null'
	counted "cpu() == 0 in the kernel" 1000 \
		'if (cpu() == 0 && execname() == "ktap-getppid") n++' "taskset -c 0 $GP 1000"
	kill $noise2
	wait $noise2 2>/dev/null
else
	skip "cpu() == 0 in the kernel" "one CPU"
fi

# exit() after a kernel filter: traceoff stops the instance's buffer.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -v -p3 -c "$GP 100000" -e '
global n
probe kernel.trace("syscalls:sys_enter_getppid") { if (tid() == target()) n++ }
probe kernel.trace("syscalls:sys_exit_getppid") if (tid() == target()) { exit() }
probe end { printf("%d\n", n) }'
if grep -qx "write instances/ktap_\$PID/events/syscalls/sys_exit_getppid/trigger 'traceoff if (common_pid == \$TARGET) && (common_pid != \$KTAP || common_flags & 0x58)'" "$TMP/out"; then
	ok "exit() after a kernel filter: a traceoff trigger in the plan"
else
	not_ok "exit() after a kernel filter: a traceoff trigger in the plan"
	diag_file "$TMP/out"
fi
run_ktap "$TMP" "$TMP/out" "$TMP/err" -v -c "$GP 100000" -e '
global n
probe kernel.trace("syscalls:sys_enter_getppid") { if (tid() == target()) n++ }
probe kernel.trace("syscalls:sys_exit_getppid") if (tid() == target()) { exit() }
probe end { printf("%d\n", n) }'
if [ "$rc" -eq 0 ] && [ "$(cat "$TMP/out")" = 1 ] &&
	grep -qx "Pass 5: handled 2 events, 0 lost, 2 written to the ring buffer" "$TMP/err" &&
	[ "$(cat $T/tracing_on)" = "$top_on" ] && ! grep -q "^WARNING" "$TMP/err"; then
	ok "traceoff: the end probe ran, 2 records written, top-level tracing_on untouched"
else
	not_ok "traceoff (exit status $rc, output $(cat "$TMP/out"))"
	diag_file "$TMP/err"
fi

# Handlers slower than the noise: the loop never runs out of records, and
# the -c command's end must still stop the run (it used to be noticed only
# when the buffers ran dry: never, here; the run was killed by the timeout).
run_ktap "$TMP" "$TMP/out" "$TMP/err" -D MAXACTION=100000 -c "sleep 1" -e '
global n
probe kernel.trace("syscalls:sys_enter_getppid") { for (i = 0; i < 300; i++) n++ }
probe end { printf("stopped %d\n", n >= 0) }'
if [ "$rc" -eq 0 ] && [ -z "$why" ] && [ "$(cat "$TMP/out")" = "stopped 1" ]; then
	ok "a flood faster than the handlers: the -c command's end stops the run"
else
	not_ok "a flood faster than the handlers: the -c command's end stops the run (exit status $rc${why:+, $why})"
	diag_file "$TMP/err"
fi

# ktap's own records stay out, but not the interrupts that hit it: while
# a timer probe spins 4 x 100 ms in ktap, the CPU's tick (an hrtimer
# expiring in hard interrupt context, in ktap's task) is recorded;
# ktap's own system calls (reading the buffers, its timers) are not.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -D MAXACTION=100000000 -e '
global irq, sys, spins
probe timer.ms(50) {
	if (spins++ < 4) {
		t = gettimeofday_ms()
		while (gettimeofday_ms() - t < 100)
			i++
		if (i < 0) println(i)
	}
}
probe kernel.trace("timer:hrtimer_expire_entry") { if (pid() == stp_pid()) irq++ }
probe kernel.trace("raw_syscalls:sys_enter") { if (pid() == stp_pid()) sys++ }
probe timer.ms(1500) { exit() }
probe end { printf("%s %d\n", irq > 0 ? "ticks" : "none", sys) }'
if [ "$rc" -eq 0 ] && [ "$(cat "$TMP/out")" = "ticks 0" ]; then
	ok "interrupts that hit ktap are recorded, ktap's own system calls are not"
else
	not_ok "interrupts that hit ktap (exit status $rc, output $(cat "$TMP/out"))"
	diag_file "$TMP/err"
fi

kill $noise
wait $noise 2>/dev/null
tfs_guard_end "tracefs is as it was before the runs"
done_testing
