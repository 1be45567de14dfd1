#!/bin/sh
# tparg-gen.sh - scripts/gen-tparg.py, which writes compiler/resolve/
# resolve_tparg.def from the kernel's trace headers (TAP): on a made-up
# header with one case of each rule (tests/fixtures/tparg-src: exact
# copies kept; computed, cast, conditional, twice-written fields, byte
# arrays and wrapper macros left out), its output is exactly
# expected.def; and the checked-in table still has the entries the
# tests rely on.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

SRC=$KTAP_SRCDIR/tests/fixtures/tparg-src
require_tools python3

if python3 "$KTAP_SRCDIR/scripts/gen-tparg.py" "$SRC" >"$TMP/out" 2>"$TMP/err" &&
	cmp -s "$SRC/expected.def" "$TMP/out"; then
	ok "gen-tparg.py: the rules on tests/fixtures/tparg-src"
else
	not_ok "gen-tparg.py on tests/fixtures/tparg-src"
	diag_diff "$SRC/expected.def" "$TMP/out"
	diag_file "$TMP/err"
fi

def=$KTAP_SRCDIR/compiler/resolve/resolve_tparg.def
n=$(grep -c '^TPARG_EVENT(' "$def")
m=$(grep -c '^TPARG_MAP(' "$def")
if [ "$n" -gt 1000 ] && [ "$m" -gt 3000 ] &&
	grep -qx 'TPARG_MAP("sched_switch", "prev->pid", "prev_pid", 0)' "$def" &&
	grep -qx 'TPARG_MAP("task_rename", "comm", "newcomm", 1)' "$def" &&
	! grep -q '^TPARG_MAP("sched_switch", "prev_state"' "$def"; then
	ok "resolve_tparg.def: $n events, $m fields, sched_switch and task_rename as generated"
else
	not_ok "resolve_tparg.def ($n events, $m fields)"
fi
done_testing
