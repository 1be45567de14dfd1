#!/bin/sh
# corpus.sh - the shared parse corpus (SystemTap's parseok/parseko) (TAP).
#
# $KTAP_SHARED/corpus/parse/ok/*.stp: each must exit 0 with the options of
#   its first line, and its -p1 output must re-parse to the same output
#   (leading "# " lines excepted): two cases per script.
# $KTAP_SHARED/corpus/parse/ko/*.stp: each must exit 1 with a located
#   "file:line:col: error: " line on stderr and no sanitizer report.
# A run killed by a signal (status >= 128) or timed out always fails.
# Skipped when the corpus is absent (it is not part of the tree).
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

corpus=${KTAP_SHARED:-$KTAP_SRCDIR/../shared}/corpus/parse
[ -d "$corpus" ] || skip_all "shared corpus not found"

okfiles=$(list_stp "$corpus/ok")
kofiles=$(list_stp "$corpus/ko")
n_ok=0 n_ko=0
[ -n "$okfiles" ] && n_ok=$(echo "$okfiles" | wc -l)
[ -n "$kofiles" ] && n_ko=$(echo "$kofiles" | wc -l)
[ $((n_ok + n_ko)) -gt 0 ] || skip_all "shared corpus is empty"

for f in $okfiles; do
	name=${f##*/}
	desc="ok/$name"
	opts=$(ktap_opts "$f")
	# shellcheck disable=SC2086
	run_ktap "$corpus/ok" "$TMP/out" "$TMP/err" $opts "$name"
	if [ "$rc" -ne 0 ] || [ -n "$why" ]; then
		not_ok "$desc: expected exit status 0 (ktap $opts)"
		explain "$TMP/err"
		skip "$desc round trip" "first run failed"
		continue
	fi
	ok "$desc"
	round_trip "$desc round trip" "$opts" "$TMP/out"
done

for f in $kofiles; do
	name=${f##*/}
	desc="ko/$name"
	opts=$(ktap_opts "$f")
	# shellcheck disable=SC2086
	run_ktap "$corpus/ko" "$TMP/out" "$TMP/err" $opts "$name"
	if [ "$rc" -ne 1 ] || [ -n "$why" ]; then
		not_ok "$desc: expected exit status 1 (ktap $opts)"
		explain "$TMP/err"
	elif ! grep -Eq '^[^:]+:[0-9]+:[0-9]+: error: ' "$TMP/err"; then
		not_ok "$desc: no 'file:line:col: error: ' line on stderr"
		explain "$TMP/err"
	else
		ok "$desc"
	fi
done
done_testing
