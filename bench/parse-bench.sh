#!/bin/sh
# parse-bench.sh [KTAP] - pass-1 speed: time `ktap -p1 FILE > /dev/null` on a
# generated SystemTap script of 10,000 lines (globals, functions, probes
# with if/while/for/foreach/printf/arrays/statistics, string literals).
# Prints the best of 5 runs in ms.  `make bench` runs it on ./ktap.
#
# Environment: BENCH_LINES (10000), BENCH_RUNS (5), BENCH_GOAL_MS (50),
# BENCH_KEEP=FILE to keep the generated script, BENCH_STRICT=1 to fail
# when the goal is missed.
set -u
ktap=${1:-./ktap}
lines=${BENCH_LINES:-10000}
runs=${BENCH_RUNS:-5}
goal=${BENCH_GOAL_MS:-50}

[ -x "$ktap" ] || { echo "parse-bench: $ktap is not built (make first)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ktap-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
script=$tmp/bench.stp

# Blocks of about 60 lines while they fit in $lines, then comment lines
# to make the count exact.
awk -v lines="$lines" '
function L(s) { buf = buf s "\n"; nl++ }

# block(i): one block of the script into buf, nl counting its lines.
function block(i) {
	L("global counts_" i ", stats_" i ", names_" i "[128]")
	L("global total_" i " = 0, limit_" i " = " (i * 7 % 100 + 1))
	L("")
	L("function helper_" i "(x, y) {")
	L("\tif (x > y)")
	L("\t\treturn x - y")
	L("\telse if (x == y) {")
	L("\t\treturn 0")
	L("\t}")
	L("\ts = 0")
	L("\ti = 0")
	L("\twhile (i < 10) {")
	L("\t\ts += i * x + " i)
	L("\t\ti++")
	L("\t}")
	L("\tfor (j = 0; j < 3; j++)")
	L("\t\ts -= j << 1")
	L("\treturn s")
	L("}")
	L("")
	L("function label_" i ":string (n:long) {")
	L("\treturn sprintf(\"item-%d-%s\", n, \"block " i "\")")
	L("}")
	L("")
	L("/* block " i ": scheduler activity */")
	L("probe kernel.trace(\"sched:sched_switch\") {")
	L("\tcounts_" i "[execname(), pid()]++")
	L("\tstats_" i " <<< helper_" i "(pid(), tid())")
	L("\tnames_" i "[pid()] = label_" i "(pid())")
	L("\tif (counts_" i "[execname(), pid()] % 100 == 0 && pid() != 0) {")
	L("\t\tprintf(\"%s[%d]: %d switches\\n\", execname(), pid(),")
	L("\t\t       counts_" i "[execname(), pid()])")
	L("\t} else if (total_" i " > limit_" i ") {")
	L("\t\tnext")
	L("\t}")
	L("\ttotal_" i " += 1")
	L("}")
	L("")
	L("probe timer.s(" (i % 30 + 1) ") {")
	L("\tforeach ([name, p] in counts_" i "- limit 5) {")
	L("\t\tprintf(\"%-16s %6d %8d\\n\", name, p, counts_" i "[name, p])")
	L("\t}")
	L("\tif (@count(stats_" i ") > 0)")
	L("\t\tprintf(\"min %d max %d avg %d\\n\", @min(stats_" i "),")
	L("\t\t       @max(stats_" i "), @avg(stats_" i "))")
	L("\tmsg = \"tab\\there \\\"quoted\\\" block " i "\"")
	L("\tprintln(msg . \" \" . sprint(total_" i "))")
	L("\tdelete counts_" i "")
	L("}")
	L("")
	L("probe syscall_" i " = kernel.trace(\"syscalls:sys_enter_openat\") { fd = -1 }")
	L("probe begin {")
	L("\ttotal_" i " = (" i " * 3 + 1) % 17 ? 1 : 0")
	L("\tprintf(\"%s\\n\", label_" i "(" i "))")
	L("}")
	L("# end of block " i)
	L("")
}
BEGIN {
	n = 0
	for (i = 0; ; i++) {
		buf = ""; nl = 0
		block(i)
		if (n + nl > lines)
			break
		printf "%s", buf
		n += nl
	}
	for (; n < lines; n++)
		print "// padding"
}' >"$script" || exit 1

echo "parse-bench: $(wc -l <"$script") lines, $(wc -c <"$script") bytes"
[ -n "${BENCH_KEEP:-}" ] && cp "$script" "$BENCH_KEEP"

if ! "$ktap" -p1 "$script" >/dev/null 2>"$tmp/err"; then
	echo "parse-bench: ktap -p1 failed on the generated script:" >&2
	head -n 20 "$tmp/err" >&2
	exit 1
fi

best=
r=0
while [ $r -lt "$runs" ]; do
	t0=$(date +%s%N)
	"$ktap" -p1 "$script" >/dev/null 2>&1
	t1=$(date +%s%N)
	us=$(((t1 - t0) / 1000))
	if [ -z "$best" ] || [ $us -lt "$best" ]; then best=$us; fi
	r=$((r + 1))
done

ms=$(awk -v us="$best" 'BEGIN { printf "%.1f", us / 1000 }')
echo "parse-bench: ktap -p1, best of $runs: $ms ms (goal <= $goal ms)"
if [ "${BENCH_STRICT:-0}" = 1 ] && [ "$best" -gt $((goal * 1000)) ]; then
	echo "parse-bench: goal missed" >&2
	exit 1
fi
exit 0
