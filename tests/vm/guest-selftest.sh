#!/bin/sh
# guest-selftest.sh - the guest half of tests/vm/vm-selftest.sh.
#
# Runs inside the ktap test VM as /tests/run-in-vm.sh (busybox sh) and
# prints one unnumbered TAP line per check ("ok - ..." / "not ok - ...");
# vm-selftest.sh numbers them, adds its own and plans from the count.  The
# last line, "# guest checks done", tells it the script ran to its end.
# Exit status: the number of failed checks (0: all passed).

T=/sys/kernel/tracing
INST=$T/instances/ktap_selftest
PROBE=/tests/tracefs-probe
failed=0

# Minimal TAP helpers of its own: this runs in the initramfs (busybox sh),
# where tests/vm/guest-lib.sh (packed for the ktap VM tests only) is not.
ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; failed=$((failed + 1)); }
skip() { echo "ok - $1 # SKIP $2"; }
diag() { echo "# $*"; }
# check DESCRIPTION COMMAND...: one TAP line for COMMAND's status.
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
# write FILE TEXT: append TEXT to a tracefs FILE; on failure show why
# (the kernel's tracing/error_log).
write() {
	if echo "$2" >> "$1" 2> /tmp/write.err; then
		return 0
	fi
	diag "echo '$2' >> $1: $(cat /tmp/write.err)"
	if [ -s $T/error_log ]; then
		tail -n 4 $T/error_log | while IFS= read -r l; do diag "error_log: $l"; done
	fi
	return 1
}

diag "kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"

# --- mounts ---------------------------------------------------------------
check "tracefs mounted on $T" \
	grep -q " $T tracefs " /proc/mounts
check "debugfs mounted on /sys/kernel/debug" \
	grep -q " /sys/kernel/debug debugfs " /proc/mounts
n=$(wc -l < $T/available_events)
check "available_events lists events ($n)" [ "$n" -gt 100 ]

# --- kprobe event in an instance -----------------------------------------
sym=''
for s in do_sys_openat2 do_sys_open; do
	if awk -v s="$s" '$3 == s { found = 1; exit } END { exit !found }' /proc/kallsyms; then
		sym=$s
		break
	fi
done
check "openat kprobe target in /proc/kallsyms (${sym:-none})" [ -n "$sym" ]
check "kprobe_events accepts p:ktaptest/open $sym dfd=%di" \
	write $T/kprobe_events "p:ktaptest/open $sym dfd=%di"
check "event ktaptest/open appears with a dfd field" \
	grep -q 'field:.* dfd;' $T/events/ktaptest/open/format
check "instance ktap_selftest created, with the kprobe event" \
	sh -c "mkdir $INST && test -d $INST/events/ktaptest/open"
echo 1 > $INST/events/ktaptest/open/enable
cat /etc/hostname > /dev/null
echo 0 > $INST/events/ktaptest/open/enable
n=$(grep -c ' open: (.*dfd=' $INST/trace)
check "open of /etc/hostname recorded in the instance's trace ($n records)" \
	[ "$n" -ge 1 ]
if [ "$n" -ge 1 ]; then diag "$(grep -m 1 ' open: (' $INST/trace)"; fi
n=$(grep -c ' open: (' $T/trace)
check "top-level trace untouched by the instance ($n records)" [ "$n" -eq 0 ]
rmdir $INST 2> /dev/null
check "instance ktap_selftest removed" [ ! -e $INST ]
write $T/kprobe_events "-:ktaptest/open"
check "kprobe ktaptest/open removed" \
	sh -c "! grep -q ktaptest $T/kprobe_events && test ! -e $T/events/ktaptest"

# --- uprobe event -----------------------------------------------------------
off=$($PROBE --offset 2> /dev/null)
if [ -n "$off" ] && write $T/uprobe_events "p:ktaptest/up $PROBE:$off"; then
	ok "uprobe_events accepts p:ktaptest/up $PROBE:$off"
	echo > $T/trace
	echo 1 > $T/events/ktaptest/up/enable
	$PROBE --target
	echo 0 > $T/events/ktaptest/up/enable
	n=$(grep -c ' up: (' $T/trace)
	check "uprobe fires when tracefs-probe runs ($n records)" [ "$n" -ge 1 ]
	echo > $T/trace
	write $T/uprobe_events "-:ktaptest/up"
	check "uprobe ktaptest/up removed" \
		sh -c "! grep -q ktaptest $T/uprobe_events && test ! -e $T/events/ktaptest"
else
	not_ok "uprobe_events accepts p:ktaptest/up $PROBE:${off:-(no offset)}"
	not_ok "uprobe fires when tracefs-probe runs"
	not_ok "uprobe ktaptest/up removed"
fi

# --- hist trigger and synthetic event ----------------------------------------
trig=$T/events/sched/sched_switch/trigger
hist=$T/events/sched/sched_switch/hist
check "sched_switch trigger accepts hist:keys=prev_pid:vals=hitcount" \
	write $trig 'hist:keys=prev_pid:vals=hitcount'
sleep 0.3
n=$(grep -c 'hitcount:' $hist)
check "sched_switch hist shows entries ($n)" [ "$n" -ge 1 ]
if [ "$n" -ge 1 ]; then diag "$(grep -m 1 '^{.*hitcount:' $hist)"; fi
write $trig '!hist:keys=prev_pid:vals=hitcount'
check "hist trigger removed" sh -c "! grep -q '^hist' $trig"
check "synthetic_events accepts ktaptest_lat u64 lat" \
	write $T/synthetic_events 'ktaptest_lat u64 lat'
write $T/synthetic_events '!ktaptest_lat'
check "synthetic event ktaptest_lat removed" \
	sh -c "! grep -q ktaptest_lat $T/synthetic_events && test ! -e $T/events/synthetic/ktaptest_lat"

# --- BTF ----------------------------------------------------------------
n=$(wc -c < /sys/kernel/btf/vmlinux 2> /dev/null)
check "/sys/kernel/btf/vmlinux exists (${n:-0} bytes)" [ "${n:-0}" -gt 0 ]

# --- host programs with their shared libraries --------------------------------
out=$($PROBE 2>&1)
diag "tracefs-probe: $out"
case $out in
"tracing_dir=$T events="*) ok "tracefs-probe (libtracefs, libtraceevent) runs" ;;
*) not_ok "tracefs-probe (libtracefs, libtraceevent) runs" ;;
esac
if [ -e /usr/bin/curl ]; then
	out=$(/usr/bin/curl --version 2>&1 | head -n 1)
	diag "curl: $out"
	case $out in
	"curl "*) ok "curl (many shared libraries) runs" ;;
	*) not_ok "curl (many shared libraries) runs" ;;
	esac
else
	skip "curl (many shared libraries) runs" "no curl on the host"
fi

echo "# guest checks done"
exit $failed
