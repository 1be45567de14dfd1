#!/bin/sh
# fuzz-corpus.sh - replay the fuzzer's kept inputs through passes 1-3 (TAP).
#
# tests/fuzz/corpus/* are inputs that once crashed ktap (found by the
# fuzzer or by hand).  Each runs as `ktap -p3 FILE` against the fixture
# tracefs: it must end with exit status 0 or 1 (accepted or a reported
# error), never a signal, a timeout or a sanitizer report.  `make fuzz`
# also seeds the fuzzer with them.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

KTAP_TRACEFS=$KTAP_SRCDIR/tests/fixtures/tracefs
export KTAP_TRACEFS

dir=$KTAP_SRCDIR/tests/fuzz/corpus
files=$(find "$dir" -type f | sort)
[ -n "$files" ] || skip_all "no inputs in tests/fuzz/corpus"

for f in $files; do
	desc="corpus/${f##*/}"
	run_ktap "$dir" "$TMP/out" "$TMP/err" -p3 "${f##*/}"
	if [ "$rc" -gt 1 ] || [ -n "$why" ]; then
		not_ok "$desc: exit status $rc"
		explain "$TMP/err"
	else
		ok "$desc"
	fi
done
done_testing
