#!/bin/sh
# golden-pass.sh - pass-2 and pass-3 golden tests (TAP).
#
# For each tests/golden/p2/NAME.stp and tests/golden/p3/NAME.stp:
# `ktap -p2 NAME.stp` (or -p3, plus options from the first line), run in
# its directory with KTAP_TRACEFS pointing at tests/fixtures/tracefs (so
# kernel.trace probes resolve the same way everywhere, without root),
# exits 0 and prints exactly NAME.p2 / NAME.p3.
# KTAP_GOLDEN_UPDATE=1 rewrites the expected files from ktap's output.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

KTAP_TRACEFS=$KTAP_SRCDIR/tests/fixtures/tracefs
export KTAP_TRACEFS

all=
for pass in p2 p3; do
	all="$all$(list_stp "$KTAP_SRCDIR/tests/golden/$pass")
"
done
all=$(echo "$all" | sed '/^$/d')
[ -n "$all" ] || skip_all "no golden files in tests/golden/p2 or p3"
plan "$(echo "$all" | wc -l)"

for f in $all; do
	dir=${f%/*}
	pass=${dir##*/}
	name=${f##*/}
	desc="$pass/$name"
	expected=${f%.stp}.$pass
	first=$(head -n 1 "$f")
	case $first in
	"#!"*) opts=$(ktap_opts "$f") ;;
	*) opts=-$pass ;;
	esac
	# shellcheck disable=SC2086
	run_ktap "$dir" "$TMP/out" "$TMP/err" $opts "$name"
	if [ "$rc" -ne 0 ] || [ -n "$why" ]; then
		not_ok "$desc (ktap $opts)"
		explain "$TMP/err"
		continue
	fi
	if [ "${KTAP_GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$TMP/out" "$expected"
		ok "$desc # updated ${expected##*/}"
	elif [ ! -f "$expected" ]; then
		not_ok "$desc: missing ${expected##*/} (make check KTAP_GOLDEN_UPDATE=1 writes it)"
		diag_file "$TMP/out" 40
	elif cmp -s "$expected" "$TMP/out"; then
		ok "$desc"
	else
		not_ok "$desc: stdout differs from ${expected##*/} (expected vs actual)"
		diag_diff "$expected" "$TMP/out"
	fi
done
