#!/bin/sh
# syscall-bench.sh - the cost of the syscall tapset over a bare tracepoint.
#
#   sudo sh bench/syscall-bench.sh [KTAP] [GETPPID] [N]
#
# Same workload and measures as getppid-bench.sh (median of ROUNDS runs,
# interleaved): ktap's own CPU time per event as events/s/core and the
# workload's ns per getppid(2), for
#   tp   kernel.trace("syscalls:sys_enter_getppid") { n++ }
#   sc   syscall.getppid { n++ }            (alias locals all elided)
#   scn  syscall.getppid { c[name]++ }      (name kept, the rest elided)
#   all  syscall.* { c[name]++ }            (360 tracepoints enabled)
#   arg  syscall.getppid { c[argstr]++ }    (argstr computed)
set -eu
KTAP=${1:-./ktap}
GP=${2:-tests/tools/ktap-getppid}
N=${3:-2000000}
ROUNDS=${ROUNDS:-5}
T=$(mktemp -d "${TMPDIR:-/tmp}/ktap-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT

[ "$(id -u)" -eq 0 ] || { echo "syscall-bench: needs root" >&2; exit 1; }
[ -x "$KTAP" ] && [ -x "$GP" ] || { echo "syscall-bench: build ktap and $GP first" >&2; exit 1; }

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
nscall() { sed -n 's/.*(\([0-9.]*\) ns\/call).*/\1/p' "$1" | tail -n 1; }

run() {	# run NAME SCRIPT
	"$KTAP" -v -e "$2" -c "$GP -r $N" >/dev/null 2>"$T/e"
	nscall "$T/e" >>"$T/$1.ns"
	sed -n 's|^Pass 5: run completed in \([0-9]*\)usr/\([0-9]*\)sys.*|\1 \2|p' "$T/e" |
		awk -v n="$N" '{ s = ($1 + $2) / 1000; if (s > 0) printf "%.0f\n", n / s }' >>"$T/$1.cpu"
}

names="tp sc scn all arg"
for k in $names; do : >"$T/$k.ns"; : >"$T/$k.cpu"; done
i=0
while [ $i -lt "$ROUNDS" ]; do
	run tp 'global n; probe kernel.trace("syscalls:sys_enter_getppid") { n++ } probe end { }'
	run sc 'global n; probe syscall.getppid { n++ } probe end { }'
	run scn 'global c; probe syscall.getppid { c[name]++ } probe end { }'
	run all 'global c; probe syscall.* { c[name]++ } probe end { }'
	run arg 'global c; probe syscall.getppid { c[argstr]++ } probe end { }'
	i=$((i + 1))
done
printf '%-5s %14s %12s\n' script events/s/core ns/call
for k in $names; do
	printf '%-5s %14s %12s\n' "$k" "$(median <"$T/$k.cpu")" "$(median <"$T/$k.ns")"
done
