#!/bin/sh
# json.sh - --format json (doc/json.md), TAP.  Every line of the output
# parses with jq as one object with a "type", and what the objects say
# equals the text output of the same deterministic script: jq renders
# printf chunks, scalars, statistics and arrays back to the text ktap
# prints at exit, histogram buckets to the text's rows (label, count),
# warnings and errors to the stderr lines of the text run.  Bytes that
# are not UTF-8 become U+FFFD; -o FILE gets the lines too; --format
# refuses other names.  Live (root, the live-test lock): a tracepoint
# count of exactly 100 getppid calls of tests/tools/ktap-getppid, as a
# scalar and as an array element; tracefs is as it was afterwards.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
GP=$KTAP_BUILDDIR/tests/tools/ktap-getppid

require_tools jq
# Its runs start pass 5 (begin probes: an instance as root).
live_lock

# json_lines FILE: every line is a JSON object with a string "type".
json_lines() {
	[ -s "$1" ] && jq -e -s 'all(type == "object" and (.type | type) == "string")' \
		"$1" >/dev/null 2>&1 &&
		[ "$(jq -c . "$1" | wc -l)" -eq "$(wc -l <"$1")" ]
}

# The text ktap prints for printf chunks and the globals at exit: keys
# in decimal, values as stap's %#x (non-negative ones here: jq's numbers
# are doubles, which cannot hold a negative's 64-bit two's complement).
RENDER='def v: if type == "string" then "\"" + . + "\"" else tostring end;
def hexd: if . < 16 then "0123456789abcdef"[.:.+1]
	else ((. / 16 | floor) | hexd) + ("0123456789abcdef"[(. % 16):(. % 16) + 1]) end;
def val: if type == "string" then v else "0x" + hexd end;
def k: "[" + (map(v) | join(",")) + "]";
def st: " @count=\(.count) @min=\(.min) @max=\(.max) @sum=\(.sum) @avg=\(.avg)\n";
if .type == "printf" then .data
elif .type == "scalar" then "\(.name)=\(.value | val)\n"
elif .type == "stat" then
	(if .count == 0 then "\(.name) @count=0x0\n" else .name + st end)
elif .type == "array" then .name as $n |
	(.data | map($n + (.key | k) +
		(if has("value") then "=" + (.value | val) + "\n" else st end)) | join(""))
else empty end'

cat >"$TMP/globals.stp" <<'SCRIPT'
global c, t, x, e, n, u
probe begin {
	c["a", 1] = 3; c["b\tq", 2] = 7; c["é", -4] = 5
	t["k"] <<< 4; t["k"] <<< 10; t["j"] <<< -3
	x = "hi\there \"quoted\""
	n = 12
	e <<< 1; delete e
	u = "ü"
	printf("x=%d\n", 3)
	printf("no newline, ")
	println("a", 1)
	print("b\n")
	printd(",", "p", "q")
	exit()
}
SCRIPT

run_ktap "$TMP" "$TMP/text" "$TMP/text.err" "$TMP/globals.stp"
trc=$rc
run_ktap "$TMP" "$TMP/json" "$TMP/json.err" --format json "$TMP/globals.stp"
if [ "$trc" -eq 0 ] && [ "$rc" -eq 0 ] && json_lines "$TMP/json"; then
	ok "arrays, statistics, scalars and printf chunks: every line parses"
else
	not_ok "globals.stp --format json (exit status $rc, text $trc)"
	diag_file "$TMP/json"
	diag_file "$TMP/json.err"
fi
jq -j "$RENDER" "$TMP/json" >"$TMP/json.text" 2>&1
if cmp -s "$TMP/text" "$TMP/json.text"; then
	ok "arrays, statistics, scalars and printf chunks: the values of the text output"
else
	not_ok "globals.stp: JSON values differ from the text output"
	diag_diff "$TMP/text" "$TMP/json.text"
fi

# One chunk per output call; a statistic's fields; an empty one's count.
jq -c 'select(.type == "printf") | .data' "$TMP/json" >"$TMP/chunks"
printf '%s\n' '"x=3\n"' '"no newline, "' '"a1\n"' '"b\n"' '"p,q"' >"$TMP/want"
if cmp -s "$TMP/want" "$TMP/chunks" &&
	jq -e -s '(map(select(.name == "t"))[0].data[0] ==
		{"key": ["k"], "count": 2, "sum": 14, "min": 4, "max": 10, "avg": 7}) and
		(map(select(.name == "e"))[0] == {"type": "stat", "name": "e", "count": 0}) and
		(map(select(.name == "n"))[0].value == 12)' "$TMP/json" >/dev/null; then
	ok "one printf object per output call; statistics' fields; an empty statistic"
else
	not_ok "printf chunks or statistics objects"
	diag_diff "$TMP/want" "$TMP/chunks"
	diag_file "$TMP/json"
fi

# Histograms: the rows of the text (label, count) from the buckets.
cat >"$TMP/hist.stp" <<'SCRIPT'
global s, lin, a
probe begin {
	s <<< 1; s <<< 5; s <<< 100; s <<< 7; s <<< 0; s <<< -3; s <<< 3000
	lin <<< 3; lin <<< 25; lin <<< 99; lin <<< -5; lin <<< 41
	a["x", 2] <<< 16; a["x", 2] <<< 17
	print(@hist_log(s))
	print(@hist_linear(lin, 0, 50, 10))
	print(@hist_log(a["x", 2]))
}
# A string of the next handler may sit where the last histogram's text
# was: it is still a string.
probe begin {
	x = sprintf("%s", "abcdefghijklmnopqrstuvwxyz0123456789")
	print(x)
	exit()
}
SCRIPT
run_ktap "$TMP" "$TMP/text" "$TMP/text.err" "$TMP/hist.stp"
awk '/\|/ && !/^ *value \|/ { l = $1; sub(/^>.*/, ">", l); print l, $NF }' \
	"$TMP/text" >"$TMP/want"
run_ktap "$TMP" "$TMP/json" "$TMP/json.err" --format json "$TMP/hist.stp"
jq -r 'select(.type == "hist") | .kind as $k | .data[] |
	(if $k == "log" then (if .min < 0 then .max else .min end | tostring)
	 elif (has("min") | not) then "<\(.max + 1)"
	 elif (has("max") | not) then ">"
	 else (.min | tostring) end) + " " + (.count | tostring)' \
	"$TMP/json" >"$TMP/rows" 2>&1
if [ "$rc" -eq 0 ] && json_lines "$TMP/json" && [ -s "$TMP/want" ] &&
	cmp -s "$TMP/want" "$TMP/rows" &&
	jq -e -s 'length == 4 and .[3] == {"type": "printf",
		"data": "abcdefghijklmnopqrstuvwxyz0123456789"} and .[2].key == ["x", 2] and
		(.[0].data | map(select(.min == 4))[0] == {"min": 4, "max": 7, "count": 2}) and
		(.[0].data | map(select(.min == -3))[0] == {"min": -3, "max": -2, "count": 1}) and
		(.[1].data[-1] == {"min": 60, "count": 1})' "$TMP/json" >/dev/null; then
	ok "@hist_log/@hist_linear: the text's rows, with each bucket's range; later strings stay strings"
else
	not_ok "histograms (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/rows"
	diag_file "$TMP/json"
fi

# Warnings and errors: the text run's stderr lines, located, on stdout.
cat >"$TMP/warn.stp" <<'SCRIPT'
probe begin { printf("before\n"); warn("careful") }
probe begin { z = 0; printf("%d\n", 1 / z) }
SCRIPT
run_ktap "$TMP" "$TMP/text" "$TMP/text.err" -w warn.stp
trc=$rc
grep -E '^(WARNING|ERROR): ' "$TMP/text.err" >"$TMP/want"
run_ktap "$TMP" "$TMP/json" "$TMP/json.err" -w --format json warn.stp
jq -r 'select(.type == "warning" or .type == "error") |
	(.type | ascii_upcase) + ": " + .message +
	(if has("near") then " near \(.near) at \(.file):\(.line):\(.col)" else "" end)' \
	"$TMP/json" >"$TMP/msgs" 2>&1
if [ "$trc" -eq 1 ] && [ "$rc" -eq 1 ] && json_lines "$TMP/json" &&
	[ "$(wc -l <"$TMP/want")" -eq 3 ] && cmp -s "$TMP/want" "$TMP/msgs" &&
	! grep -qE '^(WARNING|ERROR):' "$TMP/json.err" &&
	jq -e -s '.[0] == {"type": "printf", "data": "before\n"} and
		(map(select(.type == "error"))[0] | .line == 2 and .file == "warn.stp")' \
		"$TMP/json" >/dev/null; then
	ok "warn() and a run-time error: located objects in order, nothing on stderr"
else
	not_ok "warnings and errors (exit status $rc, text $trc)"
	diag_diff "$TMP/want" "$TMP/msgs"
	diag_file "$TMP/json"
	diag_file "$TMP/json.err"
fi

# Bytes that are not UTF-8 (printf prints any byte): U+FFFD, and -o FILE.
run_ktap "$TMP" "$TMP/out" "$TMP/err" --format json -o "$TMP/o.json" -e \
	'probe begin { printf("%s|%s\n", "\xff\xc3", "ok ü") exit() }'
if [ "$rc" -eq 0 ] && [ ! -s "$TMP/out" ] && json_lines "$TMP/o.json" &&
	[ "$(jq -r .data "$TMP/o.json")" = "$(printf '\357\277\275\357\277\275|ok \303\274')" ]; then
	ok "invalid UTF-8 becomes U+FFFD; -o FILE gets the JSON lines"
else
	not_ok "invalid UTF-8 or -o (exit status $rc)"
	diag_file "$TMP/o.json"
	diag_file "$TMP/err"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" --format yaml -e 'probe begin { exit() }'
if [ "$rc" -eq 1 ] && grep -q "ktap: error: --format expects text or json, got 'yaml'" "$TMP/err"; then
	ok "--format yaml is refused"
else
	not_ok "--format yaml (exit status $rc)"
	diag_file "$TMP/err"
fi

# Live: exactly the workload's 100 getppid calls, as text and as JSON.
T=/sys/kernel/tracing
if [ "$(id -u)" -ne 0 ] || [ ! -d $T/events/syscalls/sys_enter_getppid ] || [ ! -x "$GP" ]; then
	skip "live: 100 getppid calls as JSON" "needs root, syscall events and tests/tools"
else
	tfs_guard_begin
	LIVE='global n, by; probe kernel.trace("syscalls:sys_enter_getppid") {
		if (pid() == target()) { n++; by[execname(), target() > 0] <<< 2 } }'
	run_ktap "$TMP" "$TMP/text" "$TMP/text.err" -c "$GP 100" -e "$LIVE"
	trc=$rc
	run_ktap "$TMP" "$TMP/json" "$TMP/json.err" --format json -c "$GP 100" -e "$LIVE"
	jq -j "$RENDER" "$TMP/json" >"$TMP/json.text" 2>&1
	if [ "$trc" -eq 0 ] && [ "$rc" -eq 0 ] && json_lines "$TMP/json" &&
		cmp -s "$TMP/text" "$TMP/json.text" &&
		jq -e -s '(map(select(.name == "n"))[0].value == 100) and
			(map(select(.name == "by"))[0].data == [{"key": ["ktap-getppid", 1], "count": 100, "sum": 200, "min": 2, "max": 2, "avg": 2}])' \
			"$TMP/json" >/dev/null; then
		ok "live: 100 getppid calls counted, the JSON equal to the text"
	else
		not_ok "live tracepoint count as JSON (exit status $rc, text $trc)"
		diag_diff "$TMP/text" "$TMP/json.text"
		diag_file "$TMP/json.err"
	fi
	tfs_guard_end "live: tracefs is as it was"
fi

done_testing
