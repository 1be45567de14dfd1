#!/bin/sh
# golden-p1.sh - pass-1 golden tests (TAP).
#
# For each tests/golden/p1/NAME.stp, two cases:
#   1. `ktap OPTS NAME.stp`, run in tests/golden/p1/, exits 0 and prints
#      exactly tests/golden/p1/NAME.p1 on stdout;
#   2. round trip: that output, saved to a file and run through ktap with
#      the same OPTS, prints the same tree (leading "# " lines excepted).
# OPTS come from the script's first line ("#! stap -gp1"), default -p1.
# KTAP_GOLDEN_UPDATE=1 rewrites the .p1 files from ktap's output instead.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

dir=$KTAP_SRCDIR/tests/golden/p1
files=$(list_stp "$dir")
[ -n "$files" ] || skip_all "no golden files in tests/golden/p1"
plan $(($(echo "$files" | wc -l) * 2))

for f in $files; do
	name=${f##*/}
	desc="p1/$name"
	opts=$(ktap_opts "$f")
	expected=${f%.stp}.p1
	# shellcheck disable=SC2086
	run_ktap "$dir" "$TMP/out" "$TMP/err" $opts "$name"
	if [ "$rc" -ne 0 ] || [ -n "$why" ]; then
		not_ok "$desc (ktap $opts)"
		explain "$TMP/err"
		skip "$desc round trip" "first run failed"
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
	round_trip "$desc round trip" "$opts" "$TMP/out"
done
