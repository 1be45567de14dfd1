#!/bin/sh
# golden-diag.sh - diagnostic golden tests (TAP).
#
# For each tests/golden/diag/NAME.stp: `ktap OPTS NAME.stp`, run in
# tests/golden/diag/ (so file names in messages are relative and stable),
# must exit 1 and print exactly tests/golden/diag/NAME.err on stderr.
# OPTS come from the script's first line ("#! stap -p1"), default -p1.
# KTAP_GOLDEN_UPDATE=1 rewrites the .err files from ktap's output instead.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

# kernel.trace probes resolve against the fixture formats, as in golden-pass.sh.
KTAP_TRACEFS=$KTAP_SRCDIR/tests/fixtures/tracefs
export KTAP_TRACEFS

dir=$KTAP_SRCDIR/tests/golden/diag
files=$(list_stp "$dir")
[ -n "$files" ] || skip_all "no golden files in tests/golden/diag"
plan "$(echo "$files" | wc -l)"

for f in $files; do
	name=${f##*/}
	desc="diag/$name"
	opts=$(ktap_opts "$f")
	expected=${f%.stp}.err
	# shellcheck disable=SC2086
	run_ktap "$dir" "$TMP/out" "$TMP/err" $opts "$name"
	if [ "$rc" -ne 1 ] || [ -n "$why" ]; then
		not_ok "$desc: expected exit status 1 (ktap $opts)"
		explain "$TMP/err"
		continue
	fi
	if [ "${KTAP_GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$TMP/err" "$expected"
		ok "$desc # updated ${expected##*/}"
	elif [ ! -f "$expected" ]; then
		not_ok "$desc: missing ${expected##*/} (make check KTAP_GOLDEN_UPDATE=1 writes it)"
		diag_file "$TMP/err" 40
	elif cmp -s "$expected" "$TMP/err"; then
		ok "$desc"
	else
		not_ok "$desc: stderr differs from ${expected##*/} (expected vs actual)"
		diag_diff "$expected" "$TMP/err"
	fi
done
