#!/bin/sh
# golden.sh PASS - golden-file tests of one pass (TAP).
#
# PASS is p1, p2, p3, diag or run, or the path of a marker file
# tests/golden/PASS.golden (how make check names it: the .golden test
# extension runs this script on each marker, see tests/Makefile.am.inc).
# For each tests/golden/PASS/NAME.stp, `ktap OPTS NAME.stp` runs in that
# directory (so file names in messages are relative and stable), with
# KTAP_TRACEFS at tests/fixtures/tracefs (kernel.trace probes resolve the
# same way everywhere, without root; not for p1, which never looks).
# OPTS come from a first line "#! stap OPTS" (ktap_opts in lib.sh, where
# @FIXTURES@ stands for tests/fixtures); without one: -p1 for p1 and diag,
# -p2 / -p3 for p2 / p3, none for run.  Expected:
#   p1     exit 0, stdout is NAME.p1, and a second case: the round trip,
#          that output run through ktap again prints the same tree;
#   p2 p3  exit 0, stdout is NAME.p2 / NAME.p3;
#   diag   exit 1, stderr is NAME.err;
#   run    exit status the number in NAME.rc (0 without one), stdout is
#          NAME.out, stderr is NAME.err (empty without one).
# KTAP_GOLDEN_UPDATE=1 rewrites the expected files from ktap's output.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

pass=${1:?usage: golden.sh p1|p2|p3|diag|run}
pass=${pass##*/}
pass=${pass%.golden}
case $pass in
p1|diag) default_opts=-p1 ;;
p2|p3) default_opts=-$pass ;;
run) default_opts= ;;
*) echo "Bail out! golden.sh: unknown pass '$pass'"; exit 1 ;;
esac

fixtures=$KTAP_SRCDIR/tests/fixtures
if [ "$pass" != p1 ]; then
	KTAP_TRACEFS=$fixtures/tracefs
	export KTAP_TRACEFS
fi
dir=$KTAP_SRCDIR/tests/golden/$pass
files=$(list_stp "$dir")
[ -n "$files" ] || skip_all "no golden files in tests/golden/$pass"

# compare_file DESC WANT GOT WHAT: one case, WANT against GOT.
compare_file() {
	if [ ! -f "$2" ]; then
		not_ok "$1: missing ${2##*/} (make check KTAP_GOLDEN_UPDATE=1 writes it)"
		diag_file "$3" 40
	elif cmp -s "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1: $4 differs from ${2##*/} (expected vs actual)"
		diag_diff "$2" "$3"
	fi
}

# check_p1 / check_p23 / check_diag / check_run NAME BASE DESC OPTS: the
# case(s) of one script, after run_ktap left rc, why, $TMP/out, $TMP/err.
check_p1() {
	if [ "$rc" -ne 0 ] || [ -n "$why" ]; then
		not_ok "$3 (ktap $4)"
		explain "$TMP/err"
		skip "$3 round trip" "first run failed"
		return
	fi
	if [ "${KTAP_GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$TMP/out" "$2.p1"
		ok "$3 # updated ${2##*/}.p1"
	else
		compare_file "$3" "$2.p1" "$TMP/out" stdout
	fi
	round_trip "$3 round trip" "$4" "$TMP/out"
}

check_p23() {
	if [ "$rc" -ne 0 ] || [ -n "$why" ]; then
		not_ok "$3 (ktap $4)"
		explain "$TMP/err"
	elif [ "${KTAP_GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$TMP/out" "$2.$pass"
		ok "$3 # updated ${2##*/}.$pass"
	else
		compare_file "$3" "$2.$pass" "$TMP/out" stdout
	fi
}

check_diag() {
	if [ "$rc" -ne 1 ] || [ -n "$why" ]; then
		not_ok "$3: expected exit status 1 (ktap $4)"
		explain "$TMP/err"
	elif [ "${KTAP_GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$TMP/err" "$2.err"
		ok "$3 # updated ${2##*/}.err"
	else
		compare_file "$3" "$2.err" "$TMP/err" stderr
	fi
}

check_run() {
	want_rc=0
	[ -f "$2.rc" ] && want_rc=$(cat "$2.rc")
	if [ -n "$why" ]; then
		not_ok "$3"
		explain "$TMP/err"
		return
	fi
	if [ "${KTAP_GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$TMP/out" "$2.out"
		if [ -s "$TMP/err" ]; then cp "$TMP/err" "$2.err"; else rm -f "$2.err"; fi
		[ "$rc" -ne 0 ] && echo "$rc" >"$2.rc"
		ok "$3 # updated"
		return
	fi
	if [ -f "$2.err" ]; then cp "$2.err" "$TMP/want.err"; else : >"$TMP/want.err"; fi
	if [ "$rc" -ne "$want_rc" ]; then
		not_ok "$3: exit status $rc, expected $want_rc"
		explain "$TMP/err"
	elif [ ! -f "$2.out" ] || ! cmp -s "$2.out" "$TMP/out"; then
		compare_file "$3" "$2.out" "$TMP/out" stdout
	elif ! cmp -s "$TMP/want.err" "$TMP/err"; then
		not_ok "$3: stderr differs (expected vs actual)"
		diag_diff "$TMP/want.err" "$TMP/err"
	else
		ok "$3"
	fi
}

for f in $files; do
	name=${f##*/}
	opts=$default_opts
	case $(head -n 1 "$f") in
	"#!"*) opts=$(ktap_opts "$f" | sed "s|@FIXTURES@|$fixtures|g") ;;
	esac
	# shellcheck disable=SC2086
	run_ktap "$dir" "$TMP/out" "$TMP/err" $opts "$name"
	case $pass in
	p1) check_p1 "$name" "${f%.stp}" "$pass/$name" "$opts" ;;
	p2|p3) check_p23 "$name" "${f%.stp}" "$pass/$name" "$opts" ;;
	diag) check_diag "$name" "${f%.stp}" "$pass/$name" "$opts" ;;
	run) check_run "$name" "${f%.stp}" "$pass/$name" "$opts" ;;
	esac
done
done_testing
