#!/bin/sh
# tracedat.sh - trace-cmd recordings (TAP, doc/trace-cmd.md).
#
# ktap -i over tests/fixtures/getppid-6.1.dat (trace-cmd record in the
# 6.1 VM, tests/vm/record-tracedat.sh): -T and exit() on the recording's
# clock, the errors (not a recording, a missing file, an alias on an
# event the recording lacks, -c/-x/--target with -i).  (The exact output
# of a script over it is tests/golden/run/tracedat_counts, its -p3 plan
# tests/golden/p3/tracedat, the missing-event error
# tests/golden/diag/tracedat_missing.)
#
# As root, on the live kernel: ktap --record FILE writes the events a
# getppid workload's run reads; ktap -i FILE prints byte for byte what
# the live run printed; trace-cmd report of FILE shows the workload's
# N sys_enter_getppid records; tracefs is as it was before (the -i runs
# touch nothing); a script that reads no events records nothing, and a
# path that cannot be written fails before anything is armed.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
GP=$KTAP_BUILDDIR/tests/tools/ktap-getppid
FIX=$KTAP_SRCDIR/tests/fixtures
DAT=getppid-6.1.dat
KP='kernel.trace("ktapfix:getppid_k")'

# --- -i over the fixture: the recording's clock ---
run_ktap "$FIX" "$TMP/out" "$TMP/err" -T 1 -i "$DAT" \
	-e "global k; probe $KP { k++ } probe end { printf(\"%d\\n\", k) }"
expect_text "-i -T 1: stops one second of the recording's clock after its start" 11

run_ktap "$FIX" "$TMP/out" "$TMP/err" -i "$DAT" \
	-e "global k; probe $KP { k++; if (k == 5) exit() } probe end { printf(\"%d\\n\", k) }"
expect_text "-i: exit() in a handler ends the run at that record" 5

run_ktap "$FIX" "$TMP/out" "$TMP/err" -i "$DAT" \
	-e "global k; probe begin { exit() } probe $KP { k++ } probe end { printf(\"%d\\n\", k) }"
expect_text "-i: exit() in begin reads no record" 0

run_ktap "$FIX" "$TMP/out" "$TMP/err" -i "$DAT" \
	-e "global k; probe $KP { k++ } probe timer.ms(500) { printf(\"%d \", k) } probe end { printf(\"%d\\n\", k) }"
expect_text "-i: timer.ms(500) ticks on the recording's clock, not the wall clock" \
	"11 11 31 31 61"

# --- errors ---
run_ktap "$FIX" "$TMP/out" "$TMP/err" -i tracefs/README -e 'probe begin {}'
check_err "-i of a file that is no recording" \
	"ktap: error: -i tracefs/README: not a trace-cmd recording (trace.dat) libtracecmd can read"

run_ktap "$FIX" "$TMP/out" "$TMP/err" -i no-such.dat -e 'probe begin {}'
check_err "-i of a missing file" "ktap: error: -i no-such.dat: No such file or directory"

run_ktap "$FIX" "$TMP/out" "$TMP/err" -p2 -i "$DAT" -e 'probe syscall.open { n++ } global n'
if [ "$rc" -eq 1 ] && grep -q 'error: no tracepoint matches "syscalls:sys_enter_open" (the recording getppid-6.1.dat has no such event)' "$TMP/err"; then
	ok "-i: syscall.open on a recording without sys_enter_open names the recording"
else
	not_ok "-i: syscall.open on a recording without sys_enter_open names the recording"
	diag_file "$TMP/err"
fi

run_ktap "$FIX" "$TMP/out" "$TMP/err" -p3 -i "$DAT" -e 'probe kprobe.function("do_sys_open") { n++ } global n'
check_err "-i: a probe that needs a kprobe ktap would create is an error" \
	"ktap: error: probe kprobe.function(\"do_sys_open\") needs a kprobe event ktap would create in the kernel, and -i $DAT is a recording: record a kprobe or uprobe event with it (trace-cmd record -e GROUP:EVENT) and probe kernel.trace(\"GROUP:EVENT\")"

for clash in "-c true" "-x 1" "--target $FIX/target-6.1"; do
	# shellcheck disable=SC2086
	run_ktap "$FIX" "$TMP/out" "$TMP/err" -i "$DAT" $clash -e 'probe begin {}'
	if [ "$rc" -eq 1 ] && grep -q "^ktap: error: -i $DAT does not go with ${clash%% *}" "$TMP/err"; then
		ok "-i with ${clash%% *} is a usage error"
	else
		not_ok "-i with ${clash%% *} is a usage error (exit status $rc)"
		diag_file "$TMP/err"
	fi
done

# --- --record on the live kernel ---
# (skip, not skip_all: cases have run already)
if [ "$(id -u)" -ne 0 ] || [ ! -d /sys/kernel/tracing/events/syscalls ]; then
	skip "--record round trip" "needs root and tracefs with syscall events"
	done_testing
	exit 0
fi
if [ ! -x "$GP" ] || [ ! -x "$TFS_SNAP" ] || ! command -v trace-cmd >/dev/null 2>&1; then
	skip "--record round trip" "needs tests/tools built and trace-cmd installed"
	done_testing
	exit 0
fi
tfs_guard_begin

N=4321
script='global c
probe kernel.trace("syscalls:sys_enter_getppid") { c[execname(), pid()]++ }
probe end { foreach ([e, p] in c-) printf("%s %d %d\n", e, p, c[e, p]) }'
run_ktap "$TMP" "$TMP/live" "$TMP/err" --record "$TMP/r.dat" -c "$GP $N" -e "$script"
pid=$(awk -v n="$N" '$1 == "ktap-getppid" && $3 == n { print $2 }' "$TMP/live")
if [ "$rc" -eq 0 ] && [ -z "$why" ] && [ -n "$pid" ] && [ -s "$TMP/r.dat" ]; then
	ok "--record: the live run counts the workload's $N calls and writes the file"
else
	not_ok "--record: the live run counts the workload's $N calls and writes the file (exit status $rc)"
	diag_file "$TMP/live"
	explain "$TMP/err"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" -i "$TMP/r.dat" -e "$script"
expect_same "-i of the recorded file prints what the live run printed, byte for byte" \
	"$TMP/live" "$TMP/out"

trace-cmd report -i "$TMP/r.dat" >"$TMP/report" 2>"$TMP/report.err"
got=$(grep -c "^ *ktap-getppid-$pid .*sys_enter_getppid" "$TMP/report")
if [ "$got" = "$N" ]; then
	ok "trace-cmd report of the file: $N sys_enter_getppid records of ktap-getppid-$pid"
else
	not_ok "trace-cmd report of the file: $N sys_enter_getppid records of ktap-getppid-$pid (got $got)"
	diag_file "$TMP/report.err"
	diag_file "$TMP/report" 10
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" --record "$TMP/none.dat" -e 'probe begin { exit() }'
if [ "$rc" -eq 1 ] && [ ! -e "$TMP/none.dat" ] &&
	grep -q "nothing was recorded" "$TMP/err"; then
	ok "--record of a script that reads no events: an error, no file"
else
	not_ok "--record of a script that reads no events: an error, no file (exit status $rc)"
	diag_file "$TMP/err"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" --record "$TMP/no/such/dir.dat" -c "$GP 1" -e "$script"
check_err "--record to a path that cannot be written fails before the run" \
	"ktap: error: --record $TMP/no/such/dir.dat: No such file or directory"

tfs_guard_end "tracefs is as before: --record and -i leave nothing behind"
done_testing
