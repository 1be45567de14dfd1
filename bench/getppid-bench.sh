#!/bin/sh
# getppid-bench.sh - ktap against bpftrace against no tracing, in one run.
#
#   sudo sh bench/getppid-bench.sh [KTAP] [GETPPID] [N]
#
# KTAP defaults to ./ktap, GETPPID to tests/tools/ktap-getppid (built by
# make check), N to 2000000 calls.  Each figure is the median of ROUNDS
# (default 5) runs, interleaved A/B/C so that drift hits all alike:
#   - per-syscall cost of the workload untraced, under ktap counting
#     c[execname()]++ and under bpftrace counting @[comm] = count();
#   - ktap's own CPU time (user+sys, its -v "Pass 5" line, which leaves
#     out the -c child) per event, as events/s/core; lost events;
#   - start-up: wall time (average of 50 runs) and max RSS of
#     `probe begin { exit() }`;
#   - time to armed: from the shell starting ktap to its begin probe
#     running, for a one-tracepoint script (instance made, trace clock
#     set, event filtered and enabled, reader open).
# Needs root (tracefs, bpftrace).  Prints a table bench/README.md quotes.
set -eu
KTAP=${1:-./ktap}
GP=${2:-tests/tools/ktap-getppid}
N=${3:-2000000}
ROUNDS=${ROUNDS:-5}
TP='kernel.trace("syscalls:sys_enter_getppid")'
T=$(mktemp -d "${TMPDIR:-/tmp}/ktap-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT

[ "$(id -u)" -eq 0 ] || { echo "getppid-bench: needs root" >&2; exit 1; }
[ -x "$KTAP" ] && [ -x "$GP" ] || { echo "getppid-bench: build ktap and $GP first" >&2; exit 1; }

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# ns/call printed by ktap-getppid -r on stderr, from file $1
nscall() { sed -n 's/.*(\([0-9.]*\) ns\/call).*/\1/p' "$1" | tail -n 1; }

have_bpftrace=0
command -v bpftrace >/dev/null 2>&1 && have_bpftrace=1

: >"$T/base"; : >"$T/ktap"; : >"$T/bpf"; : >"$T/kcpu"; : >"$T/lost"
i=0
while [ $i -lt "$ROUNDS" ]; do
	"$GP" -r "$N" 2>"$T/e"; nscall "$T/e" >>"$T/base"
	"$KTAP" -v -e "global c; probe $TP { c[execname()]++ } probe end { }" \
		-c "$GP -r $N" >/dev/null 2>"$T/e"
	nscall "$T/e" >>"$T/ktap"
	sed -n 's|^Pass 5: run completed in \([0-9]*\)usr/\([0-9]*\)sys.*|\1 \2|p' "$T/e" |
		awk -v n="$N" '{ s = ($1 + $2) / 1000; if (s > 0) printf "%.0f\n", n / s }' >>"$T/kcpu"
	sed -n 's/^WARNING: \([0-9]*\) events lost$/\1/p' "$T/e" >>"$T/lost"
	if [ $have_bpftrace = 1 ]; then
		bpftrace -e 'tracepoint:syscalls:sys_enter_getppid { @[comm] = count(); }' \
			-c "$GP -r $N" >/dev/null 2>"$T/e" || :
		nscall "$T/e" >>"$T/bpf"
	fi
	i=$((i + 1))
done

# start-up and RSS of probe begin { exit() }; time to armed
now_us() { date +%s%6N; }
t0=$(now_us)
i=0
while [ $i -lt 50 ]; do
	"$KTAP" -e 'probe begin { exit() }' >/dev/null
	i=$((i + 1))
done
start_ms=$(echo "$t0 $(now_us)" | awk '{ printf "%.1f", ($2 - $1) / 50 / 1000 }')
/usr/bin/time -f '%M' -o "$T/time" "$KTAP" -e 'probe begin { exit() }' >/dev/null
rss=$(cat "$T/time")
: >"$T/armed"
i=0
while [ $i -lt 20 ]; do
	t0=$(now_us)
	"$KTAP" -e "probe $TP { } probe begin { printf(\"%d\\n\", gettimeofday_us()); exit() }" \
		>"$T/armed.out"
	echo "$t0 $(cat "$T/armed.out")" | awk '{ printf "%.1f\n", ($2 - $1) / 1000 }' >>"$T/armed"
	i=$((i + 1))
done

base=$(median <"$T/base")
kt=$(median <"$T/ktap")
echo "getppid x $N, median of $ROUNDS rounds"
printf '%-44s %s\n' "untraced ns/call" "$base"
printf '%-44s %s (+%s)\n' "ktap c[execname()]++ ns/call" "$kt" \
	"$(echo "$kt $base" | awk '{ printf "%.1f", $1 - $2 }')"
if [ $have_bpftrace = 1 ] && [ -s "$T/bpf" ]; then
	bt=$(median <"$T/bpf")
	printf '%-44s %s (+%s)\n' "bpftrace @[comm] = count() ns/call" "$bt" \
		"$(echo "$bt $base" | awk '{ printf "%.1f", $1 - $2 }')"
else
	printf '%-44s %s\n' "bpftrace" "not available"
fi
printf '%-44s %s\n' "ktap events/s per CPU-second of ktap" "$(median <"$T/kcpu")"
printf '%-44s %s\n' "ktap lost events (max over rounds)" \
	"$( (cat "$T/lost"; echo 0) | sort -n | tail -n 1)"
printf '%-44s %s ms\n' "start-up, probe begin { exit() } (mean of 50)" "$start_ms"
printf '%-44s %s KB\n' "max RSS, probe begin { exit() }" "$rss"
printf '%-44s %s ms\n' "one tracepoint: start to armed (median)" "$(median <"$T/armed")"
