#!/bin/sh
# progress-live.sh - -v's progress line on a live run (TAP).  Root and
# tracefs only; otherwise skipped.
#
# A shell loop runs tests/tools/ktap-getppid (10 getppid(2) calls) every
# 10 ms; ktap -v -T 3 counts the calls per thread.  stderr has a line a
# second (runtime/run_progress.c), at least 2: "Progress: Ns: R
# events/s, L lost, maps: c=E", the seconds counting up from 1, a
# plausible rate (the loop makes a few hundred calls a second: between
# 50 and 100000), and the map's entries growing and never more than the
# threads seen.  Without -v: no progress line.  tracefs is as it was
# afterwards.  Runs under the live-test lock (require_live).
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
GP=$KTAP_BUILDDIR/tests/tools/ktap-getppid
T=/sys/kernel/tracing

require_live "live tests need root (run make check as root)"
[ -d $T/events/syscalls/sys_enter_getppid ] ||
	skip_all "no tracefs with syscall events at $T"
require_tools "$GP"

tfs_guard_begin
LOOP="sh -c 'while :; do $GP 10; sleep 0.01; done'"
SCRIPT='global c; probe kernel.trace("syscalls:sys_enter_getppid") {
	if (execname() == "ktap-getppid") c[tid()]++ }
probe end { n = 0; foreach (t in c) n += c[t]; printf("%d calls\n", n) }'

run_ktap "$TMP" "$TMP/out" "$TMP/err" -v -T 3 -c "$LOOP" -e "$SCRIPT"
grep '^Progress:' "$TMP/err" >"$TMP/lines"
n=$(wc -l <"$TMP/lines")
if [ "$rc" -eq 0 ] && [ "$n" -ge 2 ] && [ "$n" -le 4 ]; then
	ok "-v -T 3: $n progress lines"
else
	not_ok "-v -T 3: 2 to 4 progress lines (got $n, exit status $rc)"
	diag_file "$TMP/err"
fi

# Every line's form and numbers.
bad=
sec=0 prev=0
while read -r line; do
	s=$(printf '%s\n' "$line" |
		sed -n 's/^Progress: \([0-9]*\)s: \([0-9]*\) events\/s, \([0-9]*\) lost, maps: c=\([0-9]*\)$/\1 \2 \3 \4/p')
	if [ -z "$s" ]; then
		bad="$bad [form: $line]"
		continue
	fi
	# shellcheck disable=SC2086
	set -- $s
	sec=$((sec + 1))
	[ "$1" = "$sec" ] || bad="$bad [second $1, expected $sec]"
	[ "$2" -ge 50 ] && [ "$2" -le 100000 ] || bad="$bad [rate $2]"
	[ "$4" -ge "$prev" ] && [ "$4" -ge 1 ] || bad="$bad [entries $4 after $prev]"
	prev=$4
done <"$TMP/lines"
if [ -z "$bad" ] && [ "$sec" -ge 2 ]; then
	ok "progress lines: seconds 1..$sec, plausible rates, growing map"
else
	not_ok "progress lines:$bad"
	diag_file "$TMP/lines"
fi
if grep -q '^[0-9]* calls$' "$TMP/out" && [ "$(sed 's/ calls//' "$TMP/out")" -ge 100 ]; then
	ok "the script's own output is intact"
else
	not_ok "the script's own output is intact"
	diag_file "$TMP/out"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" -T 2 -c "$LOOP" -e "$SCRIPT"
if [ "$rc" -eq 0 ] && ! grep -q '^Progress' "$TMP/err"; then
	ok "without -v: no progress line"
else
	not_ok "without -v: no progress line (exit status $rc)"
	diag_file "$TMP/err"
fi
tfs_guard_end "tracefs as it was"
done_testing
