#!/bin/sh
# input.sh - input.char and input.line on ktap's standard input (TAP):
# exact characters and lines, exit() from a line, a line longer than
# MAXSTRINGLEN, and end of input ending no session.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

# Its runs start pass 5 (begin probes: an instance as root).
live_lock

# run_in INPUT ARGS...: run_ktap with INPUT (text) on stdin.
run_in() {
	printf '%s' "$1" >"$TMP/in"
	shift
	(cd "$TMP" && exec timeout -k 5 "$KTAP_TIMEOUT" "$KTAP" "$@") \
		<"$TMP/in" >"$TMP/out" 2>"$TMP/err" 9<&-
	rc=$?
	why=
	[ $rc -eq 124 ] && why="timed out after ${KTAP_TIMEOUT}s"
}

run_in 'ab
cd
quit
xx
' -e 'global n, c
probe input.line { if (line == "quit\n") exit(); else printf("[%s]", line) }
probe input.char { n++; if (char == "\n") c++ }
probe end { printf("%d %d\n", n, c) }'
expect_text "input.line and input.char: each line, each character, until exit()" "[ab
][cd
]11 3"

run_in "$(printf '%0600d' 0)
" -e 'probe input.line { printf("%d %s\n", strlen(line), substr(line, 0, 3)); exit() }'
expect_text "input.line: a 601-byte line is cut to MAXSTRINGLEN-1 bytes" "511 000"

run_in 'no newline' -e 'global n
probe input.line { println("no line") }
probe input.char { n++ }
probe timer.ms(300) { printf("%d\n", n); exit() }'
expect_text "end of input ends nothing; a last line without a newline fires no input.line" "10"

done_testing
