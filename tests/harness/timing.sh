#!/bin/sh
# timing.sh - -t, stap's per-probe timing report (TAP, no root: begin,
# end and timer probes, and a replayed recording).
#
# The report is stap's ("----- probe hit report:", then per probe that
# ran: PP, (FILE:L:C), hits, min/avg/max/variance of the handler's time,
# from: POINT, index); hits, locations and order are checked exactly,
# the times (ns, so they vary) for their shape and min <= avg <= max.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

KTAP_TRACEFS=$KTAP_SRCDIR/tests/fixtures/tracefs
export KTAP_TRACEFS

cat >"$TMP/t.stp" <<'STP'
global n
probe begin { n = 1 }
probe timer.ms(1) { if (++n == 4) exit() }
probe never { n++ }
probe end { printf("n=%d\n", n) }
STP

# The report with the times replaced by T; fails (prints nothing) when a
# line's times are not numbers with min <= avg <= max.
times_out() {
	awk '
	/nsecs: / {
		if (!match($0, /nsecs: [0-9]+min\/[0-9]+avg\/[0-9]+max, variance: [0-9]+,/)) { bad = 1; next }
		t = substr($0, RSTART + 7, RLENGTH - 7)
		split(t, v, /[^0-9]+/)
		if (v[1] + 0 > v[2] + 0 || v[2] + 0 > v[3] + 0) bad = 1
		sub(/nsecs: [0-9]+min\/[0-9]+avg\/[0-9]+max, variance: [0-9]+,/, "nsecs: T,")
	}
	{ out = out $0 "\n" }
	END { if (!bad) printf "%s", out }' "$1"
}

run_ktap "$TMP" "$TMP/out" "$TMP/err" -t t.stp
times_out "$TMP/out" >"$TMP/got"
cat >"$TMP/want" <<'EOF2'
n=4
----- probe hit report: 
begin, (t.stp:2:1), hits: 1, nsecs: T, from: begin, index: 0
timer.ms(1), (t.stp:3:1), hits: 3, nsecs: T, from: timer.ms(1), index: 1
end, (t.stp:5:1), hits: 1, nsecs: T, from: end, index: 2
----- refresh report:
EOF2
if [ "$rc" -eq 0 ] && cmp -s "$TMP/want" "$TMP/got"; then
	ok "-t: stap's probe hit report after the end probes' output"
else
	not_ok "-t (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/got"
	diag_file "$TMP/out"
fi

run_ktap "$TMP" "$TMP/out2" "$TMP/err" -D STP_TIMING t.stp
times_out "$TMP/out2" >"$TMP/got"
if [ "$rc" -eq 0 ] && cmp -s "$TMP/want" "$TMP/got" && [ ! -s "$TMP/err" ]; then
	ok "-D STP_TIMING is -t, as in stap"
else
	not_ok "-D STP_TIMING (exit status $rc)"
	diag_file "$TMP/out2"
	diag_file "$TMP/err"
fi

run_ktap "$TMP" "$TMP/out3" "$TMP/err" t.stp
if [ "$rc" -eq 0 ] && [ "$(cat "$TMP/out3")" = "n=4" ]; then
	ok "no report without -t"
else
	not_ok "without -t (exit status $rc)"
	diag_file "$TMP/out3"
fi

run_ktap "$TMP" "$TMP/out4" "$TMP/err" -t -o "$TMP/file.txt" t.stp
times_out "$TMP/file.txt" >"$TMP/got"
if [ "$rc" -eq 0 ] && cmp -s "$TMP/want" "$TMP/got" && [ ! -s "$TMP/out4" ]; then
	ok "-t -o FILE: the report goes with the script's output"
else
	not_ok "-t -o FILE (exit status $rc)"
	diag_file "$TMP/file.txt"
fi

cat >"$TMP/r.stp" <<'STP'
global calls
probe kernel.trace("syscalls:sys_enter_getppid"),
      kernel.trace("sched:sched_process_exec") { calls++ }
probe end { printf("%d\n", calls) }
STP
run_ktap "$TMP" "$TMP/out5" "$TMP/err" -t --replay "$KTAP_SRCDIR/tests/fixtures/getppid" r.stp
times_out "$TMP/out5" >"$TMP/got"
cat >"$TMP/want" <<'EOF2'
101
----- probe hit report: 
kernel.trace("syscalls:sys_enter_getppid"), (r.stp:2:1), hits: 100, nsecs: T, from: kernel.trace("syscalls:sys_enter_getppid"), index: 0
kernel.trace("sched:sched_process_exec"), (r.stp:2:1), hits: 1, nsecs: T, from: kernel.trace("sched:sched_process_exec"), index: 1
end, (r.stp:4:1), hits: 1, nsecs: T, from: end, index: 2
----- refresh report:
EOF2
if [ "$rc" -eq 0 ] && cmp -s "$TMP/want" "$TMP/got"; then
	ok "-t on recorded events: hits per probe point"
else
	not_ok "-t on recorded events (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/got"
	diag_file "$TMP/out5"
fi
done_testing
