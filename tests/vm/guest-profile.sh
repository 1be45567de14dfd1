#!/bin/sh
# guest-profile.sh - the guest half of tests/vm/vm-profile.sh:
# timer.profile on Debian's 6.1 kernel, where the tick's hrtimer handler
# is tick_sched_timer (6.18's is tick_nohz_handler) and hist triggers
# exist.  ktap-spin keeps every online vCPU busy for 2 s (guest time):
# each must tick CONFIG_HZ (250) times a second, +-20%, counted in user
# space (--no-lower) and by a hist trigger (lowered: -v says so), and
# the spinner's ticks carry its name.
# shellcheck disable=SC2034  # read by vm-selftest.sh
guest_plan=5

. /tests/guest-lib.sh
HZ=250
ncpu=$(grep -c '^processor' /proc/cpuinfo)

# As guest-hist-lower.sh: the first enabled event allocates the
# top-level buffer, so "before" is taken after a first run.
bounded 60 ktap --no-lower -e 'probe timer.profile { exit() }' >/dev/null 2>&1
ktap-tfs-snapshot >$T/before

# percpu OPTS...: ticks per CPU (every task) over ktap-spin 2000 into
# $T/out, and the names of the spinner's ticks.
percpu() {
	bounded 60 ktap "$@" -c "ktap-spin 2000" -e 'global c, e
	probe timer.profile { c[cpu()]++ }
	probe timer.profile { if (pid() == target()) e[execname()]++ }
	probe end { foreach (k+ in c) printf("cpu %d %d\n", k, c[k]); foreach (n in e) printf("%s\n", n) }' \
		>$T/out 2>$T/err
	rc=$?
}
for mode in --no-lower -v; do
	percpu $mode
	bad=$(awk -v w=$((HZ * 2)) '/^cpu / && ($3 < w * 0.8 || $3 > w * 1.2)' $T/out)
	if [ "$rc" -eq 0 ] && [ "$(grep -c '^cpu ' $T/out)" -eq "$ncpu" ] && [ -z "$bad" ] &&
		grep -qx ktap-spin $T/out; then
		ok "6.1 $mode: each of $ncpu vCPUs ticked about HZ * 2 s = $((HZ * 2)) times ($(grep '^cpu ' $T/out | tr '\n' ' ')), the spinner by name"
	else
		not_ok "6.1 $mode: ticks per vCPU (exit status $rc)"
		diag $T/out $T/err
	fi
	if [ "$mode" = -v ]; then
		if grep -q "probe timer.profile.tick runs in the kernel" $T/err; then
			ok "6.1: timer.profile's counts are a hist trigger with the tick filter"
		else
			not_ok "6.1: timer.profile's counts were not lowered"
			diag $T/err
		fi
	fi
done

# the tick handler the plan filters on is 6.1's tick_sched_timer
addr=$(awk '$3 == "tick_sched_timer" { print $1; exit }' /proc/kallsyms)
bounded 60 ktap -p3 -e 'probe timer.profile { }' >$T/out 2>$T/err
if [ -n "$addr" ] && grep -q "function == $(printf '%u' "0x$addr")" $T/out; then
	ok "6.1: the filter is on tick_sched_timer's address (0x$addr)"
else
	not_ok "6.1: the tick filter (tick_sched_timer at '$addr')"
	diag $T/out $T/err
fi

ktap-tfs-snapshot >$T/after
if cmp -s $T/before $T/after; then
	ok "6.1: tracefs is as it was"
else
	not_ok "6.1: tracefs changed"
	diff $T/before $T/after | diag /dev/stdin
fi
guest_done
