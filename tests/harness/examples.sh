#!/bin/sh
# examples.sh - every script in examples/ runs and reports what it should
# (TAP).  Root only (they trace the live kernel); skipped otherwise.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
GP=$KTAP_BUILDDIR/tests/tools/ktap-getppid
UT=$KTAP_BUILDDIR/tests/tools/ktap-uprobe-target
KM=$KTAP_BUILDDIR/tests/tools/ktap-malloc
EX=$KTAP_SRCDIR/examples

require_live "the examples trace the live kernel: run make check as root"
require_tools "$GP"

# proc_lifecycle.stp: a shell that runs ls; pids numbered in order of
# appearance, paths reduced to the command name.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c 'sh -c "ls >/dev/null; true"' "$EX/proc_lifecycle.stp"
awk '{
	for (i = 1; i <= NF; i++)
		while (match($i, /[0-9][0-9]+/)) {
			n = substr($i, RSTART, RLENGTH)
			if (!(n in id)) id[n] = "P" (++k)
			$i = substr($i, 1, RSTART - 1) id[n] substr($i, RSTART + RLENGTH)
		}
	sub(/ \/.*\//, " ")
	print
}' "$TMP/out" >"$TMP/norm"
cat >"$TMP/want" <<'EOW'
exec P1 sh
fork sh[P1] -> P2
exec P2 ls
exit ls[P2]
exit sh[P1]
EOW
if [ "$rc" -eq 0 ] && cmp -s "$TMP/want" "$TMP/norm"; then
	ok "proc_lifecycle.stp: exec, fork, exec, exit, exit of sh -c 'ls; true'"
else
	not_ok "proc_lifecycle.stp (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/norm"
	diag_file "$TMP/err"
fi

# syscalls_by_proc.stp: the workload's 5000 getppid calls (plus its
# start-up's: a few dozen, a few hundred in a sanitizer build, whose
# runtime may also fork a helper of the same name) under its own name,
# first in the list.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$GP 5000" "$EX/syscalls_by_proc.stp"
n=$(awk 'NR == 2 && $1 == "ktap-getppid" { print $3 }' "$TMP/out")
if [ "$rc" -eq 0 ] && head -n 1 "$TMP/out" | grep -q '^COMMAND *PID *SYSCALLS$' &&
	[ "${n:-0}" -ge 5000 ] && [ "${n:-0}" -lt 6000 ]; then
	ok "syscalls_by_proc.stp: ktap-getppid made $n system calls (5000 getppid + start-up)"
else
	not_ok "syscalls_by_proc.stp (exit status $rc, count ${n:-none})"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi

# func_latency.stp: handle() of the uprobe test program, called 3 times.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -o "$TMP/lat" -c "$UT" "$EX/func_latency.stp" "$UT" handle
hist=$(awk -F'|' 'NR > 2 && NF == 2 { split($2, a, " "); s += a[length(a)] } END { print s + 0 }' "$TMP/lat")
if [ "$rc" -eq 0 ] && grep -q '^handle: 3 calls, min [0-9]* ns, avg [0-9]* ns, max [0-9]* ns$' "$TMP/lat" &&
	grep -q '^ *value |-* count$' "$TMP/lat" && [ "$hist" = 3 ]; then
	ok "func_latency.stp: 3 calls of handle(), a @hist_log holding 3"
else
	not_ok "func_latency.stp (exit status $rc, histogram total $hist)"
	diag_file "$TMP/lat"
	diag_file "$TMP/err"
fi

# malloc_sizes.stp: the workload's own malloc() calls, and nothing of
# ktap's (the -c child only execs).  glibc's start-up adds a few small
# requests (under 128 bytes); the 24-, 4096-, 100000- and 1 MiB-byte ones
# are exactly the workload's, so their buckets are checked exactly.
LIBC=/lib/x86_64-linux-gnu/libc.so.6
if [ -r "$LIBC" ]; then
	run_ktap "$TMP" "$TMP/out" "$TMP/err" "$EX/malloc_sizes.stp" \
		-c "$KM 100x24 10x4096 3x100000 1x1048576"
	awk -F'|' '/^ *[0-9]+ \|/ { split($2, a, " "); n = a[length(a)]
		v = $1 + 0; if (v == 16 || v >= 4096) print v, n }' "$TMP/out" |
		awk '$2 > 0' >"$TMP/got"
	printf '16 100\n4096 10\n65536 3\n1048576 1\n' >"$TMP/want"
	lines=$(awk 'NR > 1 && NF == 4 && $1 != "" { n++ } /^$/ { exit } END { print n + 0 }' "$TMP/out")
	if [ "$rc" -eq 0 ] && cmp -s "$TMP/want" "$TMP/got" && [ "$lines" = 1 ] &&
		awk 'NR == 2 { exit !($1 == "ktap-malloc" && $3 >= 114 && $3 < 130) }' "$TMP/out"; then
		ok "malloc_sizes.stp: 114 requests of ktap-malloc in their @hist_log buckets, one process"
	else
		not_ok "malloc_sizes.stp (exit status $rc)"
		diag_diff "$TMP/want" "$TMP/got"
		diag_file "$TMP/out" 40
		diag_file "$TMP/err"
	fi
else
	skip "malloc_sizes.stp" "no $LIBC"
fi
done_testing
