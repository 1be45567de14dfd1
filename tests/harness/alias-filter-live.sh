#!/bin/sh
# alias-filter-live.sh - guards on a probe alias's locals as kernel
# filters, on this machine's kernel (TAP).  Root and tracefs only.
#
# syscall_any sets name = syscall_name($id): a guard on name is the
# event filter "id == N" (lower_bind.c, lower_fold.c).  While a noise
# process makes getppid(2) calls without end, the workload
# (tests/tools/ktap-getppid, run by -c) makes exactly 1000.  Counted
# through syscall_any by name and execname() the count is 1000 and,
# from the instance's per-CPU stats (-v), exactly 1000 records were
# written: the kernel dropped every other call and the noise.  With
# --no-lower (no hist triggers; filters stay) the same.  The reference,
# name . "" == "getppid" (no filter can say it), counts the same 1000
# from every system call of the workload written.  syscall.getppid's name = "getppid" is true
# for every event: nothing to filter.  tracefs is as it was afterwards.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
GP=$KTAP_BUILDDIR/tests/tools/ktap-getppid
T=/sys/kernel/tracing

require_live "live tests need root (run make check as root)"
[ -d $T/events/raw_syscalls/sys_enter ] ||
	skip_all "no tracefs with raw_syscalls events at $T"
[ "$(uname -m)" = x86_64 ] || skip_all "syscall_name() has a table on x86_64 only"
require_tools "$GP"

tfs_guard_begin
mkdir "$TMP/noise"
cp "$GP" "$TMP/noise/noise-getppid"
"$TMP/noise/noise-getppid" 2000000000 &
noise=$!
at_exit 'kill $noise 2>/dev/null'

COUNT='probe end { printf("%d\n", n) }'

# counted DESC WRITTEN PROBE [OPTION]: the workload's 1000 getppid calls
# counted by PROBE: 1000, and WRITTEN ("1000" or "more") records
# written to the ring buffer.
counted() {
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -v $4 -c "$GP 1000" -e "global n; $3 $COUNT"
	w=$(sed -n 's/^Pass 5: handled .* \([0-9]*\) written to the ring buffer$/\1/p' "$TMP/err")
	if [ "$2" = more ] && [ -n "$w" ] && [ "$w" -gt 1000 ]; then
		w=more
	fi
	if [ "$rc" -eq 0 ] && [ -z "$why" ] && [ "$(cat "$TMP/out")" = 1000 ] &&
		[ "$w" = "$2" ] && ! grep -q "^WARNING" "$TMP/err"; then
		ok "$1: 1000 counted, $2 written"
	else
		not_ok "$1: 1000 counted, $2 written (got $(cat "$TMP/out"), $w written, exit status $rc)"
		diag_file "$TMP/err"
	fi
}

BYNAME='probe syscall_any { if (name == "getppid" && execname() == "ktap-getppid") n++ }'
counted "syscall_any name == in the kernel" 1000 "$BYNAME"
if grep -q '^  kernel: *name == "getppid"  \[as syscall_name(\$id) == "getppid"\]  ->  id == [0-9]*$' "$TMP/err"; then
	ok "-v says name == \"getppid\" went to the kernel as an id test"
else
	not_ok "-v says name == \"getppid\" went to the kernel as an id test"
	diag_file "$TMP/err"
fi
counted "the same with --no-lower" 1000 "$BYNAME" --no-lower
counted "name tested in user space" more \
	'probe syscall_any { if (name . "" == "getppid" && execname() == "ktap-getppid") n++ }'

counted "syscall_any name =~ and tid() == target() in the kernel" 1000 \
	'probe syscall_any { if (name !~ "^getppid$" || tid() != target()) next; n++ }'
counted "syscall.getppid name == (true for every event)" 1000 \
	'probe syscall.getppid { if (name == "getppid" && tid() == target()) n++ }'

kill $noise
wait $noise 2>/dev/null
tfs_guard_end "tracefs as it was"
done_testing
