#!/bin/sh
# guest-latency-lower.sh - the guest half of tests/vm/vm-latency-lower.sh:
# latency pairs lowered to hist variables, a synthetic event and onmatch
# on the 6.1 kernel (issue 12).
#
# Runs as /tests/run-in-vm.sh (busybox sh).  The workload, ktap-values,
# makes exactly 480 read(999, ...) calls; the script measures each from
# sys_enter_read (guarded by fd == 999) to sys_exit_read by tid().  The
# lowered run (-v must say the pair runs in the kernel) and the
# --no-lower run must both count 480 and both histograms must hold 480
# values (latencies differ between runs; counts do not), and a lowered
# run must end without a WARNING (its filtered hist triggers removed in
# order, then the synthetic event).  Then the shapes: keyed statistics,
# (clock - t) / 1000, a .return's @entry, examples/sched_latency.stp
# (with and without -c), gettimeofday_us/ms() pairs (the kernel's
# against user space's in one run).  Then a lowered run is killed with SIGKILL: its
# guardian must remove the instance and the synthetic event.  tracefs
# must be the same before and after.
# shellcheck disable=SC2034  # read by vm-selftest.sh
guest_plan=13

. /tests/guest-lib.sh

cat >$T/lat.stp <<'STP'
global start, lat
probe kernel.trace("syscalls:sys_enter_read") { if ($fd != 999) next; start[tid()] = local_clock_ns() }
probe kernel.trace("syscalls:sys_exit_read") {
	if (tid() in start) { lat <<< local_clock_ns() - start[tid()]; delete start[tid()] }
}
probe end { printf("count %d\n", @count(lat)); print(@hist_log(lat)) }
STP

# both SCRIPT: SCRIPT lowered (-v) into $T/low, $T/low.err (exit in lrc)
# and with --no-lower into $T/ref, $T/ref.err (exit in rrc), on ktap-values.
both() {
	bounded 60 ktap -v -c ktap-values "$1" >$T/low 2>$T/low.err
	lrc=$?
	bounded 60 ktap --no-lower -c ktap-values "$1" >$T/ref 2>$T/ref.err
	rrc=$?
}
# say_both: the two runs' output, when a check failed.
say_both() {
	echo "# lowered:"; diag $T/low; diag $T/low.err
	echo "# --no-lower:"; diag $T/ref; diag $T/ref.err
}

# total FILE: the sum of the histogram rows' counts.
total() { awk '$2 ~ /^\|/ && $NF ~ /^[0-9]+$/ { s += $NF } END { print s + 0 }' "$1"; }

# The "before" state is taken after a first run with an enabled event:
# kernel 6.1 allocates the top-level buffer at its full size the first
# time any event is enabled, instances included (as guest-hist-lower.sh).
bounded 60 ktap --no-lower -e 'global n probe kernel.trace("syscalls:sys_enter_getppid") { n++ }' \
	-c "ktap-getppid 1" >/dev/null 2>&1
ktap-tfs-snapshot >$T/before

bounded 60 ktap -v -c ktap-values $T/lat.stp >$T/low 2>$T/low.err
lrc=$?
ktap-tfs-snapshot >$T/after-low
bounded 60 ktap --no-lower -c ktap-values $T/lat.stp >$T/ref 2>$T/ref.err
rrc=$?
ktap-tfs-snapshot >$T/after-ref
if [ "$lrc" -eq 0 ] && grep -q "latency pair .* runs in the kernel" $T/low.err &&
	! grep -q WARNING $T/low.err && grep -q '^count 480$' $T/low && [ "$(total $T/low)" = 480 ]; then
	ok "lowered latency pair: 480 reads counted, 480 in the histogram"
else
	not_ok "lowered latency pair (exit $lrc, histogram total $(total $T/low))"
	diag $T/low; diag $T/low.err
fi
if [ "$rrc" -eq 0 ] && grep -q '^count 480$' $T/ref && [ "$(total $T/ref)" = 480 ]; then
	ok "--no-lower latency pair: 480 reads counted, 480 in the histogram"
else
	not_ok "--no-lower latency pair (exit $rrc, histogram total $(total $T/ref))"
	diag $T/ref; diag $T/ref.err
fi
if [ "$(head -n 1 $T/low)" = "$(head -n 1 $T/ref)" ] && [ "$(total $T/low)" = "$(total $T/ref)" ]; then
	ok "lowered and --no-lower: the same count and histogram total"
else
	not_ok "lowered and --no-lower counts differ"
	diag $T/low; diag $T/ref
fi

# A statistic keyed by execname() and a signed field of the exit event
# (the keys ride along as synthetic fields): byte-identical output.
cat >$T/keyed.stp <<'STP'
global start, lat
probe kernel.trace("syscalls:sys_enter_read") { if ($fd != 999) next; start[tid()] = local_clock_ns() }
probe kernel.trace("syscalls:sys_exit_read") {
	if (tid() in start) { lat[execname(), $ret] <<< local_clock_ns() - start[tid()]; delete start[tid()] }
}
probe end { foreach ([e, r] in lat) printf("%s %d %d\n", e, r, @count(lat[e, r])) }
STP
both $T/keyed.stp
if [ "$lrc" -eq 0 ] && [ "$rrc" -eq 0 ] && grep -q "latency pair .* runs in the kernel" $T/low.err &&
	[ "$(cat $T/ref)" = "kv-x -9 480" ] && cmp -s $T/low $T/ref; then
	ok "keyed latency statistic: lowered and --no-lower print the same ($(cat $T/ref))"
else
	not_ok "keyed latency statistic: lowered (exit $lrc) and --no-lower (exit $rrc) differ"
	say_both
fi

# (CLOCK() - t) / 1000: the kernel's x/1000 is not exact below 2^20
# (6.1 div_by_mult_and_shift), the key lat.buckets=1000 is.  Two pairs on
# the same events see the same timestamps: the divided statistic's
# extremes must be the undivided one's divided, in both runs.
cat >$T/div.stp <<'STP'
global s1, s2, l1, l2
probe kernel.trace("syscalls:sys_enter_read") { if ($fd != 999) next; s1[tid()] = local_clock_ns() }
probe kernel.trace("syscalls:sys_enter_read") { if ($fd != 999) next; s2[tid()] = local_clock_ns() }
probe kernel.trace("syscalls:sys_exit_read") {
	if (tid() in s1) { l1 <<< local_clock_ns() - s1[tid()]; delete s1[tid()] }
}
probe kernel.trace("syscalls:sys_exit_read") {
	if (tid() in s2) { l2 <<< (local_clock_ns() - s2[tid()]) / 1000; delete s2[tid()] }
}
probe end {
	printf("count %d %d\n", @count(l1), @count(l2))
	printf("min %s\n", @min(l1) / 1000 == @min(l2) ? "ok" : sprintf("%d %d", @min(l1), @min(l2)))
	printf("max %s\n", @max(l1) / 1000 == @max(l2) ? "ok" : sprintf("%d %d", @max(l1), @max(l2)))
}
STP
both $T/div.stp
printf 'count 480 480\nmin ok\nmax ok\n' >$T/want
if [ "$lrc" -eq 0 ] && [ "$rrc" -eq 0 ] && ! grep -q WARNING $T/low.err &&
	[ "$(grep -c 'latency pair .* runs in the kernel' $T/low.err)" = 2 ] &&
	cmp -s $T/low $T/want && cmp -s $T/ref $T/want; then
	ok "(clock - t) / 1000: lowered (.buckets=1000) and --no-lower print the same, exact"
else
	not_ok "(clock - t) / 1000: lowered (exit $lrc) and --no-lower (exit $rrc) differ"
	say_both
fi

# A .return probe's "CLOCK() - @entry(CLOCK())": its entry kprobe is
# the start, keyed on common_pid.  ktap-values's reads (its loader's
# too) all begin after ktap is armed and do not nest: the same count
# and no absurd value in both runs.
cat >$T/entry.stp <<'STP'
global lat
probe kprobe.function("ksys_read").return {
	if (tid() != target()) next	# common_pid: ktap-values has one thread
	lat <<< local_clock_ns() - @entry(local_clock_ns())
}
probe end { printf("count %d\nunder 1s %d\n", @count(lat), @count(lat) && @max(lat) < 1000000000) }
STP
both $T/entry.stp
if [ "$lrc" -eq 0 ] && [ "$rrc" -eq 0 ] && grep -q "latency pair .*'s entry -> .* runs in the kernel" $T/low.err &&
	! grep -q WARNING $T/low.err && grep -q '^under 1s 1$' $T/ref && cmp -s $T/low $T/ref; then
	ok "@entry(local_clock_ns()) pair: lowered and --no-lower print the same ($(head -n 1 $T/ref))"
else
	not_ok "@entry pair: lowered (exit $lrc) and --no-lower (exit $rrc) differ"
	say_both
fi

# A full start hist loses start times: said, with the count.  t[128]
# sizes it to 128 entries; ktap-values's 480 reads have 190 distinct
# counts, whose calls beyond the first 128 keys are 157 (each value v
# number i is read 1 + i % 4 times).
cat >$T/full.stp <<'STP'
global t[128], lat
probe kernel.trace("syscalls:sys_enter_read") { if ($fd != 999) next; t[$count] = local_clock_ns() }
probe kernel.trace("syscalls:sys_exit_read") {
	if ($ret in t) { lat <<< local_clock_ns() - t[$ret]; delete t[$ret] }
}
probe end { printf("count %d\n", @count(lat)) }
STP
bounded 60 ktap -v -c ktap-values $T/full.stp >$T/low 2>$T/low.err
lrc=$?
if [ "$lrc" -eq 0 ] && grep -q "latency pair .* runs in the kernel" $T/low.err &&
	grep -q "^WARNING: the kernel's hist of t on syscalls:sys_enter_read was full: 157 events dropped (size=128;" $T/low.err; then
	ok "a full start hist (t[128]): 157 dropped start times warned about"
else
	not_ok "a full start hist (exit $lrc): no exact Dropped warning"
	diag $T/low; diag $T/low.err
fi

# examples/sched_latency.stp without -c: two start events (wakeup,
# wakeup_new) sharing one named hist, the string key next_comm and / 1000.
# Five "sleep 0.05" processes run meanwhile: each is woken new once and
# by its timer once, in both runs.
ex=/usr/share/ktap/examples/sched_latency.stp
# wakeups FILE: the wake-ups counted for "sleep" (0: none).
wakeups() { sed -n 's/^sleep: \([0-9]*\) wake-ups.*/\1/p' "$1" | grep . || echo 0; }
# sleeps: once ktap's instance has its sched_switch armed (no sleep
# process before), five "sleep 0.05".
sleeps() {
	_i=0
	while [ $_i -lt 5000 ] &&
		! grep -qs hist /sys/kernel/tracing/instances/ktap_*/events/sched/sched_switch/trigger &&
		! grep -qs 1 /sys/kernel/tracing/instances/ktap_*/events/sched/sched_switch/enable; do
		_i=$((_i + 1))
	done
	for _i in 1 2 3 4 5; do sleep 0.05; done
}
sleeps & bounded 60 ktap -v -T 3 $ex >$T/low 2>$T/low.err
lrc=$?
wait
sleeps & bounded 60 ktap --no-lower -T 3 $ex >$T/ref 2>$T/ref.err
rrc=$?
wait
if [ "$lrc" -eq 0 ] && [ "$rrc" -eq 0 ] && grep -q "latency pair .* runs in the kernel" $T/low.err &&
	! grep -q WARNING $T/low.err && [ "$(wakeups $T/low)" -ge 10 ] && [ "$(wakeups $T/ref)" -ge 10 ]; then
	ok "sched_latency.stp lowered: sleep $(wakeups $T/low) wake-ups (--no-lower $(wakeups $T/ref))"
else
	not_ok "sched_latency.stp lowered (exit $lrc) vs --no-lower (exit $rrc)"
	say_both
	diag /sys/kernel/tracing/error_log
fi

# With -c the "task_pid in ours" test stays in user space: so does the pair.
bounded 60 ktap -v -c 'sh -c "sleep 0.1; sleep 0.1"' $ex >$T/low 2>$T/low.err
lrc=$?
if [ "$lrc" -eq 0 ] && grep -q "latency pair .* stays in user space: .*condition needs user space (target() is set by -c or -x)" $T/low.err &&
	grep -q '^sleep: ' $T/low; then
	ok "sched_latency.stp -c: the pair stays in user space (-v says why) and measures sleep"
else
	not_ok "sched_latency.stp -c (exit $lrc)"
	diag $T/low; diag $T/low.err
fi

# gettimeofday_us/ms() pairs truncate each wall-clock time, so their
# differences depend on ktap's wall-clock offset: the lowered pair
# (l1, whose synthetic event gets both shifted timestamps) and a twin
# kept in user space by @variance (l2) see the same reads in one run and
# must print the same statistics, value by value.  The ms pair's 0s and
# 1s (a read crossing a millisecond) come out the same only with the
# right offset.  CLOCK is filled in by sed.
cat >$T/wall.in <<'STP'
global s1, s2, l1, l2
probe kernel.trace("syscalls:sys_enter_read") { if ($fd != 999) next; s1[tid()] = CLOCK() }
probe kernel.trace("syscalls:sys_enter_read") { if ($fd != 999) next; s2[tid()] = CLOCK() }
probe kernel.trace("syscalls:sys_exit_read") {
	if (tid() in s1) { l1[tid()] <<< CLOCK() - s1[tid()]; delete s1[tid()] }
}
probe kernel.trace("syscalls:sys_exit_read") {
	if (tid() in s2) { l2[tid()] <<< CLOCK() - s2[tid()]; delete s2[tid()] }
}
probe end {
	foreach (k in l1) {
		printf("%d %d %d %d %d\n", k == target(), @count(l1[k]), @sum(l1[k]), @min(l1[k]), @max(l1[k]))
		print(@hist_linear(l1[k], 0, 20, 1))
	}
	foreach (k in l2) {
		printf("%d %d %d %d %d\n", k == target(), @count(l2[k]), @sum(l2[k]), @min(l2[k]), @max(l2[k]))
		print(@hist_linear(l2[k], 0, 20, 1))
	}
	if (@variance(l2[target()]) < 0)	# read (an unread v = ... is elided)
		println("negative variance")
}
STP
for clk in gettimeofday_us gettimeofday_ms; do
	sed "s/CLOCK/$clk/g" $T/wall.in >$T/wall.stp
	bounded 60 ktap -v -c ktap-values $T/wall.stp >$T/low 2>$T/low.err
	lrc=$?
	n=$(wc -l <$T/low)
	head -n $((n / 2)) $T/low >$T/low1
	tail -n $((n / 2)) $T/low >$T/low2
	if [ "$lrc" -eq 0 ] && [ "$(grep -c 'latency pair .* runs in the kernel' $T/low.err)" = 1 ] &&
		grep -q "latency pair .* stays in user space: @variance needs user space" $T/low.err &&
		! grep -q WARNING $T/low.err && grep -q '^1 480 ' $T/low1 && cmp -s $T/low1 $T/low2; then
		ok "$clk() pair: the kernel's statistic is user space's in the same run ($(head -n 1 $T/low1))"
	else
		not_ok "$clk() pair: lowered (exit $lrc) and user-space twin differ"
		diag $T/low; diag $T/low.err
		diag /sys/kernel/tracing/error_log
	fi
done

# SIGKILL: the guardian removes the session, synthetic event included.
ktap -c 'sleep 4' $T/lat.stp >/dev/null 2>$T/kill.err &
kpid=$!
i=0
while [ $i -lt 100 ] && ! grep -q ktap_ /sys/kernel/tracing/dynamic_events 2>/dev/null; do
	sleep 0.1; i=$((i + 1))
done
grep ktap_ /sys/kernel/tracing/dynamic_events >$T/synth
kill -9 $kpid
wait $kpid 2>/dev/null
i=0
while [ $i -lt 100 ] && grep -q ktap_ /sys/kernel/tracing/dynamic_events 2>/dev/null; do
	sleep 0.1; i=$((i + 1))
done
if grep -q '^s:synthetic/ktap_' $T/synth && ! grep -q ktap_ /sys/kernel/tracing/dynamic_events &&
	! ls /sys/kernel/tracing/instances | grep -q ktap_; then
	ok "SIGKILL: the guardian removed the instance and $(wc -l <$T/synth) synthetic event"
else
	not_ok "SIGKILL: the session's objects stayed"
	echo "# while running:"; diag $T/synth
	echo "# after:"; grep ktap_ /sys/kernel/tracing/dynamic_events | diag
	diag $T/kill.err
fi

ktap-tfs-snapshot >$T/after
if cmp -s $T/before $T/after; then
	ok "tracefs as before the runs"
else
	not_ok "tracefs changed"
	diff $T/before $T/after | diag
	for s in low ref; do
		cmp -s $T/before $T/after-$s || echo "# changed first by the $s run"
	done
fi
guest_done
