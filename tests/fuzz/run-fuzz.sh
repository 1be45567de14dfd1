#!/bin/sh
# run-fuzz.sh BINARY SECONDS - run the libFuzzer target of passes 1-3 (make fuzz).
#
# Seeds: tests/golden/**/*.stp, tests/fuzz/corpus/*.stp (replayed first)
# and $KTAP_SHARED/corpus/parse/**/*.stp when present, copied into a
# temporary corpus directory (so the tree is not touched); the keyword
# dictionary is tests/fuzz/stap.dict.  Crash, leak
# and timeout reproducers are written to tests/fuzz/ of the build tree as
# crash-*, leak-*, timeout-*; replay one with `BINARY FILE`.
# Exits non-zero when the fuzzer finds a problem.
set -u
bin=$1
secs=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
srcdir=${KTAP_SRCDIR:-$(cd "$here/../.." && pwd)}
shared=${KTAP_SHARED:-$srcdir/../shared}

corpus=$(mktemp -d "${TMPDIR:-/tmp}/ktap-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$corpus"' EXIT

n=0
# The kept crashers first: replayed once (a regression fails here at
# once), then they seed the fuzzer like the rest.
"$bin" "$here"/corpus/* >/dev/null 2>&1 || {
	echo "fuzz: a kept input of tests/fuzz/corpus fails again:" >&2
	"$bin" "$here"/corpus/* 2>&1 | tail -40 >&2
	exit 1
}
for d in "$srcdir/tests/golden" "$shared/corpus/parse" "$here/corpus"; do
	[ -d "$d" ] || continue
	for f in $(find "$d" -type f -name '*.stp' | sort); do
		n=$((n + 1))
		cp "$f" "$corpus/seed-$n.stp"
	done
done
echo "fuzz: $n seed scripts, $secs s"

mkdir -p tests/fuzz
# One worker: the fuzzer must not hold both cores of a CI machine for long.
# -timeout 20 s: the slowest kept inputs (the preprocessor's 10^6-token
# budget) take 0.6 s under the sanitizers, but 5 s was reached on a
# loaded machine (fuzzed at nice 19 beside other builds).
"$bin" -max_total_time="$secs" -max_len=4096 -timeout=20 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix=tests/fuzz/ \
	-dict="$here/stap.dict" "$corpus"
rc=$?
if [ $rc -ne 0 ]; then
	echo "fuzz: FAILED (exit status $rc); reproducers:" >&2
	ls -1 tests/fuzz/crash-* tests/fuzz/leak-* tests/fuzz/timeout-* \
		tests/fuzz/oom-* 2>/dev/null >&2
fi
exit $rc
