#!/bin/sh
# buffer-bench.sh - what a byte buffer costs an event, in one run.
#
#   sudo sh bench/buffer-bench.sh [KTAP] [BUFFER] [N]
#
# KTAP defaults to ./ktap, BUFFER to tests/tools/ktap-buffer (built by
# make check), N to 200000 calls of its take(buf, 600), a uprobe here.
# Each figure is the median of ROUNDS (default 5) runs, interleaved so
# that drift hits all alike, of the same probe printing
#   - none:  $len (a register);
#   - u8[8]: %.8M of $buf (an 8-byte array fetch argument);
#   - 512:   strlen(kernel_buffer_quoted($buf, $len)) (a length known at
#            run time: u64[64], 512 bytes per event, quoted in user space);
# per-call cost of the workload (its own ns/call), ktap's CPU time per
# event (its -v "Pass 5" line, without the -c child) and lost events.
# Needs root.  Prints a table bench/README.md quotes.
set -eu
KTAP=${1:-./ktap}
B=${2:-tests/tools/ktap-buffer}
N=${3:-200000}
ROUNDS=${ROUNDS:-5}
T=$(mktemp -d "${TMPDIR:-/tmp}/ktap-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT

[ "$(id -u)" -eq 0 ] || { echo "buffer-bench: needs root" >&2; exit 1; }
[ -x "$KTAP" ] && [ -x "$B" ] || { echo "buffer-bench: build ktap and $B first" >&2; exit 1; }
B=$(cd "$(dirname "$B")" && pwd)/$(basename "$B")
P="probe process(\"$B\").function(\"take\")"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
nscall() { sed -n 's/.*(\([0-9.]*\) ns\/call).*/\1/p' "$1" | tail -n 1; }

run() {	# run NAME BODY: one traced run, its figures appended to $T/NAME.*
	"$KTAP" -v -e "$P { $2 }" -c "$B $N" >/dev/null 2>"$T/e"
	nscall "$T/e" >>"$T/$1.ns"
	sed -n 's|^Pass 5: run completed in \([0-9]*\)usr/\([0-9]*\)sys.*|\1 \2|p' "$T/e" |
		awk -v n="$N" '{ printf "%.0f\n", ($1 + $2) * 1000000 / n }' >>"$T/$1.cpu"
	sed -n 's/^WARNING: \([0-9]*\) events lost$/\1/p' "$T/e" >>"$T/$1.lost"
	echo 0 >>"$T/$1.lost"
}

i=0
while [ $i -lt "$ROUNDS" ]; do
	"$B" "$N" 2>"$T/e"; nscall "$T/e" >>"$T/base.ns"
	run none 'printf("%d\n", $len)'
	run u8 'printf("%.8M\n", $buf)'
	run big 'printf("%d\n", strlen(kernel_buffer_quoted($buf, $len)))'
	i=$((i + 1))
done

echo "| probe body | ns/call | ktap CPU ns/event | lost |"
echo "|------------|---------|-------------------|------|"
echo "| untraced | $(median <"$T/base.ns") | | |"
for k in none u8 big; do
	case $k in none) d='$len' ;; u8) d='%.8M of $buf (u8[8])' ;; big) d='kernel_buffer_quoted($buf, $len) (u64[64])' ;; esac
	echo "| $d | $(median <"$T/$k.ns") | $(median <"$T/$k.cpu") | $(sort -n "$T/$k.lost" | tail -n 1) |"
done
