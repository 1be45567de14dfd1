#!/bin/sh
# golden-run.sh - pass-5 golden tests (TAP): scripts that run without root.
#
# For each tests/golden/run/NAME.stp: `ktap NAME.stp` (plus options from a
# first line "#! ktap OPTS", where @FIXTURES@ stands for tests/fixtures),
# run in its directory.  Scripts either use only begin/end/timer probes
# (no tracefs needed) or replay a recording with --replay @FIXTURES@/DIR.
# Expected: stdout is NAME.out; stderr is NAME.err (empty when there is
# no NAME.err); the exit status is the number in NAME.rc (0 without one).
# KTAP_GOLDEN_UPDATE=1 rewrites NAME.out (and NAME.err when stderr is not
# empty) from ktap's output.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

KTAP_TRACEFS=$KTAP_SRCDIR/tests/fixtures/tracefs
export KTAP_TRACEFS
fixtures=$KTAP_SRCDIR/tests/fixtures

all=$(list_stp "$KTAP_SRCDIR/tests/golden/run")
[ -n "$all" ] || skip_all "no golden files in tests/golden/run"
plan "$(echo "$all" | wc -l)"

for f in $all; do
	dir=${f%/*}
	name=${f##*/}
	base=${f%.stp}
	desc="run/$name"
	opts=
	first=$(head -n 1 "$f")
	case $first in
	"#!"*) opts=$(ktap_opts "$f" | sed "s|@FIXTURES@|$fixtures|g") ;;
	esac
	# shellcheck disable=SC2086
	run_ktap "$dir" "$TMP/out" "$TMP/err" $opts "$name"
	want_rc=0
	[ -f "$base.rc" ] && want_rc=$(cat "$base.rc")
	if [ -n "$why" ]; then
		not_ok "$desc"
		explain "$TMP/err"
		continue
	fi
	if [ "${KTAP_GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$TMP/out" "$base.out"
		if [ -s "$TMP/err" ]; then cp "$TMP/err" "$base.err"; else rm -f "$base.err"; fi
		[ "$rc" -ne 0 ] && echo "$rc" >"$base.rc"
		ok "$desc # updated"
		continue
	fi
	[ -f "$base.err" ] && cp "$base.err" "$TMP/want.err" || : >"$TMP/want.err"
	if [ "$rc" -ne "$want_rc" ]; then
		not_ok "$desc: exit status $rc, expected $want_rc"
		explain "$TMP/err"
	elif [ ! -f "$base.out" ]; then
		not_ok "$desc: missing ${base##*/}.out (make check KTAP_GOLDEN_UPDATE=1 writes it)"
		diag_file "$TMP/out" 40
	elif ! cmp -s "$base.out" "$TMP/out"; then
		not_ok "$desc: stdout differs from ${base##*/}.out (expected vs actual)"
		diag_diff "$base.out" "$TMP/out"
	elif ! cmp -s "$TMP/want.err" "$TMP/err"; then
		not_ok "$desc: stderr differs (expected vs actual)"
		diag_diff "$TMP/want.err" "$TMP/err"
	else
		ok "$desc"
	fi
done
