#!/bin/sh
# stack-bench.sh - what a kernel stack per event costs.
#
#   sudo sh bench/stack-bench.sh [KTAP] [GETPPID] [N]
#
# KTAP defaults to ./ktap, GETPPID to tests/tools/ktap-getppid, N to
# 200000 calls.  Four ways of running the -c child, interleaved, ROUNDS
# (default 5) times, medians:
#   none    the workload untraced;
#   count   ktap counting the child's getppid calls (event + filter);
#   trigger the same handler reading backtrace() (the stacktrace trigger:
#           a kernel_stack record per event, paired by the reader; hex,
#           no symbols);
#   print   print_backtrace() of every event to /dev/null (symbolised
#           with kallsyms, stap's full line per frame).
# Per way: the workload's ns per getppid call (ktap-getppid -r), ktap's
# CPU (user+sys, its -v "Pass 5" line) per event in ns, events lost.
# Needs root.  Prints a table bench/README.md quotes.
set -eu
KTAP=${1:-./ktap}
GP=${2:-tests/tools/ktap-getppid}
N=${3:-200000}
ROUNDS=${ROUNDS:-5}
TP='kernel.trace("syscalls:sys_enter_getppid")'
T=$(mktemp -d "${TMPDIR:-/tmp}/ktap-stack-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT

[ "$(id -u)" -eq 0 ] || { echo "stack-bench: needs root" >&2; exit 1; }
[ -x "$KTAP" ] && [ -x "$GP" ] || { echo "stack-bench: build ktap and $GP first" >&2; exit 1; }

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
nscall() { sed -n 's/.*(\([0-9.]*\) ns\/call).*/\1/p' "$1" | tail -n 1; }

script_count="global n; probe $TP { if (tid() != target()) next; n++ } probe end { }"
script_trigger="global n; probe $TP { if (tid() != target()) next; if (backtrace() != \"\") n++ } probe end { }"
script_print="probe $TP { if (tid() != target()) next; print_backtrace() }"

run_way() {	# WAY SCRIPT
	"$KTAP" -v -o /dev/null -e "$2" -c "$GP -r $N" >/dev/null 2>"$T/e"
	nscall "$T/e" >>"$T/$1.ns"
	sed -n 's|^Pass 5: run completed in \([0-9]*\)usr/\([0-9]*\)sys.*|\1 \2|p' "$T/e" |
		awk -v n="$N" '{ printf "%.0f\n", ($1 + $2) * 1e6 / n }' >>"$T/$1.cpu"
	lost=$(sed -n 's/^WARNING: \([0-9]*\) events lost$/\1/p' "$T/e")
	echo "${lost:-0}" >>"$T/$1.lost"
}

i=0
while [ $i -lt "$ROUNDS" ]; do
	"$GP" -r "$N" 2>"$T/e"; nscall "$T/e" >>"$T/none.ns"
	run_way count "$script_count"
	run_way trigger "$script_trigger"
	run_way print "$script_print"
	i=$((i + 1))
done

printf '| way | workload ns/call | ktap CPU ns/event | lost |\n|-----|-----|-----|-----|\n'
printf '| none | %s | - | - |\n' "$(median <"$T/none.ns")"
for w in count trigger print; do
	printf '| %s | %s | %s | %s |\n' "$w" "$(median <"$T/$w.ns")" \
		"$(median <"$T/$w.cpu")" "$(median <"$T/$w.lost")"
done
