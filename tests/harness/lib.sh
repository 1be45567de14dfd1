# shellcheck shell=sh
# tests/harness/lib.sh - shared helpers for the TAP harness scripts (POSIX sh).
#
# Sourced by every script of tests/harness/, which make check runs with the
# environment set in tests/Makefile.am.inc:
#   KTAP           the ktap binary (absolute path)
#   KTAP_SRCDIR    source tree
#   KTAP_SHARED    shared material (corpus)
#   KTAP_VALGRIND  valgrind command prefix, or empty
#   KTAP_TIMEOUT   seconds per ktap run (default 20; 300 under valgrind)
# Run one by hand from the build root:
#   KTAP=$PWD/ktap KTAP_SRCDIR=$PWD sh tests/harness/golden.sh p1
# A script prints its TAP lines with ok/not_ok/skip and ends with
# done_testing, which prints the plan from the count (no plan to keep up
# to date by hand).  A script that touches tracefs starts with
# require_live (root, and the lock of locks.sh that serialises such tests
# under make -j) and brackets its runs with tfs_guard_begin/tfs_guard_end.

: "${KTAP:?KTAP (the ktap binary) is not set; run through make check}"
: "${KTAP_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${KTAP_VALGRIND:=}"
: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
if [ -n "$KTAP_VALGRIND" ]; then
	: "${KTAP_TIMEOUT:=300}"
else
	: "${KTAP_TIMEOUT:=20}"
fi

if [ ! -x "$KTAP" ]; then
	echo "Bail out! $KTAP is not built"
	exit 1
fi

# tracefs may not be mounted on a fresh machine (libtracefs mounts it on
# first use, but the live tests look before ktap runs): mount it as root.
if [ "$(id -u)" -eq 0 ] && [ ! -e /sys/kernel/tracing/README ] &&
	! mountpoint -q /sys/kernel/tracing 2>/dev/null; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || :
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ktap-test.XXXXXX") || exit 1
# at_exit CMD: run the shell text CMD when the script exits, before $TMP
# is removed.  A script's own `trap ... EXIT` would replace the removal
# and leave $TMP behind (tests/harness/exit-cleanup.sh checks none does).
ktap_at_exit=
at_exit() { ktap_at_exit="$ktap_at_exit$1
"; }
trap 'eval "$ktap_at_exit"; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM HUP

# shellcheck source=tests/harness/locks.sh
. "$(dirname "$0")/locks.sh"

tap_n=0

# skip_all REASON: the whole script is skipped (before any test line).
# done_testing: the plan, "1..N" for the N lines printed, at the end.
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
done_testing() { echo "1..$tap_n"; }
# The plan is computed: a leftover "plan N" (from a merge) is an error.
plan() { echo "Bail out! plan $1: end the script with done_testing instead"; exit 1; }

# require_root REASON: skip the script unless run as root.
require_root() { [ "$(id -u)" -eq 0 ] || skip_all "$*"; }

# require_tools FILE|COMMAND...: skip the script unless every FILE (a
# path: built by make check) is executable and every COMMAND is in PATH.
require_tools() {
	for _t in "$@"; do
		case $_t in
		*/*) [ -x "$_t" ] || skip_all "tests/tools not built (${_t##*/})" ;;
		*) command -v "$_t" >/dev/null 2>&1 || skip_all "$_t is not installed" ;;
		esac
	done
}

# require_live REASON: root (else skip with REASON) and the live-test lock
# (live_lock in locks.sh), held until the script exits: tests that compare
# tracefs before and after must not overlap with each other.
require_live() {
	require_root "$*"
	live_lock
}

# tfs_guard_begin: snapshot tracefs (instances, dynamic events, enabled
# events: tests/tools/ktap-tfs-snapshot) before the runs; takes the
# live-test lock if require_live did not.
# tfs_guard_end DESC: one case, tracefs now is as it was at
# tfs_guard_begin (may be called more than once).  tfs_guard_same: the
# same comparison as a status, no TAP line, for a case that checks more;
# tfs_guard_after: only the snapshot after, into $TMP/tfs.after.
TFS_SNAP=$KTAP_BUILDDIR/tests/tools/ktap-tfs-snapshot
tfs_guard_begin() {
	live_lock
	if ! "$TFS_SNAP" >"$TMP/tfs.before"; then
		echo "Bail out! ktap-tfs-snapshot failed"
		exit 1
	fi
}
tfs_guard_after() { "$TFS_SNAP" >"$TMP/tfs.after"; }
tfs_guard_same() { tfs_guard_after && cmp -s "$TMP/tfs.before" "$TMP/tfs.after"; }
tfs_guard_end() {
	if tfs_guard_same; then
		ok "$1"
	else
		not_ok "$1"
		diag_diff "$TMP/tfs.before" "$TMP/tfs.after"
	fi
}

# The hint after an error of a probe point that does not resolve here.
POINT_HINT=" (a probe point ending in '?' is skipped where it does not resolve)"

# ok DESCRIPTION | not_ok DESCRIPTION | skip DESCRIPTION REASON
ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
not_ok() { tap_n=$((tap_n + 1)); echo "not ok $tap_n - $*"; }
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1 # SKIP $2"; }

# diag_file FILE [MAX]: show a file as TAP diagnostics (into the .log).
diag_file() {
	if [ -s "$1" ]; then
		head -n "${2:-30}" "$1" | sed 's/^/#   /'
	fi
}

# diag_diff EXPECTED ACTUAL: unified diff as TAP diagnostics.
diag_diff() {
	diff -u --label expected --label actual "$1" "$2" | head -n 60 | sed "s/^/# /"
}

# ktap_opts FILE: the options a script asks for on its first line,
# "#! stap OPTS", "#! ktap OPTS" or "#!/usr/bin/env stap OPTS"
# (what follows the program name, split on blanks, no quoting);
# "-p1" when the first line names none.
ktap_opts() {
	_first=
	IFS= read -r _first <"$1" || :
	_opts=
	case $_first in
	'#!'*)
		set -f
		# shellcheck disable=SC2086
		set -- ${_first#??}
		set +f
		if [ $# -gt 0 ] && [ "${1##*/}" = env ]; then shift; fi
		if [ $# -gt 0 ]; then
			case ${1##*/} in
			stap|ktap) shift; _opts=$*;;
			esac
		fi
		;;
	esac
	echo "${_opts:--p1}"
}

# run_ktap DIR OUT ERR ARGS...: run $KTAP ARGS in DIR (so that file names
# in its messages are the relative ones given), stdout to OUT, stderr to
# ERR, stdin from /dev/null, under timeout and optional valgrind.  Sets
# rc to the exit status and why to a reason when it is not a normal exit
# (timeout, signal, valgrind error).  OUT and ERR must be absolute.
# ktap does not get the live-test lock's fd (9, locks.sh): a run left
# behind must not keep the next test waiting.
run_ktap() {
	_dir=$1 _out=$2 _err=$3
	shift 3
	rm -f "$TMP/vg.log"
	set -f
	# shellcheck disable=SC2086
	if [ -n "$KTAP_VALGRIND" ]; then
		(cd "$_dir" && exec timeout -k 5 "$KTAP_TIMEOUT" \
			$KTAP_VALGRIND --log-file="$TMP/vg.log" "$KTAP" "$@") \
			>"$_out" 2>"$_err" </dev/null 9<&-
	else
		(cd "$_dir" && exec timeout -k 5 "$KTAP_TIMEOUT" "$KTAP" "$@") \
			>"$_out" 2>"$_err" </dev/null 9<&-
	fi
	rc=$?
	set +f
	why=
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		why="timed out after ${KTAP_TIMEOUT}s"
	elif [ $rc -ge 128 ]; then
		why="killed by signal $((rc - 128))"
	elif [ -n "$KTAP_VALGRIND" ] && [ $rc -eq 99 ]; then
		why="valgrind found errors"
	elif grep -q -e 'Sanitizer' -e 'runtime error' "$_err" 2>/dev/null; then
		why="sanitizer report"
	fi
}

# signal_ktap SIG PID: send SIG to the command that `timeout` (PID, a
# background run's $!) runs, not to timeout.  timeout passes a signal on
# with a SIGCONT after it, and a SIGCONT that lands while a sanitizer
# build's exit-time leak check holds the process stopped under ptrace
# cancels that stop: the check then waits for ever (seen under load:
# ktap killed by timeout's -k five seconds later, exit status 137).
signal_ktap() {
	_kids=$(ps -o pid= --ppid "$2")
	# shellcheck disable=SC2086  # a list of pids
	kill -"$1" ${_kids:-$2} 2>/dev/null
}

# expect_same DESC WANT GOT: ok when the last run exited 0 normally and
# file GOT equals file WANT; else the diff and the run's stderr ($TMP/err).
expect_same() {
	if [ "$rc" -eq 0 ] && [ -z "$why" ] && cmp -s "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1 (exit status $rc)"
		diag_diff "$2" "$3"
		explain "$TMP/err"
	fi
}

# check DESC: expect_same DESC $TMP/want $TMP/out (the usual pair).
check() { expect_same "$1" "$TMP/want" "$TMP/out"; }

# expect_text DESC TEXT: as check, with the expected output inline (TEXT
# and a newline).
expect_text() {
	printf '%s\n' "$2" >"$TMP/want"
	check "$1"
}

# check_err DESC WANT: the last run exited 1 and its stderr's first line
# ($TMP/err) is WANT.
check_err() {
	_got=$(head -n 1 "$TMP/err")
	if [ "$rc" -eq 1 ] && [ -z "$why" ] && [ "$_got" = "$2" ]; then
		ok "$1"
	else
		not_ok "$1 (exit status $rc)"
		echo "# want: $2"
		echo "# got:  $_got"
	fi
}

# check_err_has DESC TEXT: the last run exited 1 and its stderr ($TMP/err)
# holds TEXT (a fixed string).
check_err_has() {
	if [ "$rc" -eq 1 ] && [ -z "$why" ] && grep -qF -- "$2" "$TMP/err"; then
		ok "$1"
	else
		not_ok "$1 (exit status $rc)"
		echo "# want in stderr: $2"
		diag_file "$TMP/err"
	fi
}

# explain ERR: diagnostics after a failed run (reason, stderr, valgrind).
explain() {
	[ -n "$why" ] && echo "# $why"
	echo "# exit status $rc; stderr:"
	diag_file "$1"
	if [ -s "$TMP/vg.log" ]; then
		echo "# valgrind:"
		diag_file "$TMP/vg.log" 60
	fi
}

# strip_header FILE: FILE without its leading "# " comment lines
# (the -p1 header, which may name the file).
strip_header() {
	awk 'top && /^# / { next } { top = 0; print }' top=1 "$1"
}

# round_trip DESC OPTS OUT: feed the -p1 output OUT back to ktap with the
# same options; the new output must be the same modulo header lines.
round_trip() {
	_desc=$1 _opts=$2 _first_out=$3
	cp "$_first_out" "$TMP/rt.stp"
	# shellcheck disable=SC2086
	run_ktap "$TMP" "$TMP/rt.out" "$TMP/rt.err" $_opts rt.stp
	if [ "$rc" -ne 0 ] || [ -n "$why" ]; then
		not_ok "$_desc"
		echo "# re-parsing the -p1 output failed"
		explain "$TMP/rt.err"
		echo "# the -p1 output was:"
		diag_file "$_first_out" 40
		return
	fi
	strip_header "$_first_out" >"$TMP/rt.a"
	strip_header "$TMP/rt.out" >"$TMP/rt.b"
	if cmp -s "$TMP/rt.a" "$TMP/rt.b"; then
		ok "$_desc"
	else
		not_ok "$_desc"
		echo "# -p1 of the -p1 output differs (first vs second):"
		diag_diff "$TMP/rt.a" "$TMP/rt.b"
	fi
}

# list_stp DIR: the *.stp files of DIR, one a line, sorted (none: empty).
list_stp() {
	for _f in "$1"/*.stp; do
		[ -f "$_f" ] && echo "$_f"
	done
}

# norm_pids FILE: FILE with every number of three or more digits (pids)
# renamed P1, P2 ... in order of first appearance, so that the output of
# a traced command can be compared exactly.
norm_pids() {
	awk '{
		for (i = 1; i <= NF; i++)
			while (match($i, /[0-9][0-9][0-9]+/)) {
				n = substr($i, RSTART, RLENGTH)
				if (!(n in id)) id[n] = "P" (++k)
				$i = substr($i, 1, RSTART - 1) id[n] substr($i, RSTART + RLENGTH)
			}
		print
	}' "$1"
}

# dwarf_member_off INFO MEMBER: DW_AT_data_member_location of the first
# member named MEMBER in INFO (readelf --debug-dump=info output).
dwarf_member_off() {
	awk -v m="$2" '
		/DW_AT_name/ { on = ($NF == m) }
		on && /DW_AT_data_member_location/ { print $NF; exit }
	' "$1"
}

# btf_member_off DUMP STRUCT MEMBER: the byte offset of MEMBER in STRUCT in
# DUMP (bpftool btf dump ... format raw), also when it sits in anonymous
# structs and unions (as sock_common's do); nothing when there is none.
btf_member_off() {
	awk -v s="'$2'" -v m="'$3'" '
		/^\[/ { id = substr($1, 2, length($1) - 2); kind[id] = $2
			 if ($2 == "STRUCT" && $3 == s) top = id; cur = id; n[id] = 0; next }
		{ k = ++n[cur]; name[cur, k] = $1
		  split($2, t, "="); typ[cur, k] = t[2]
		  split($3, b, "="); bits[cur, k] = b[2] }
		function find(id, base,   k, r) {
			for (k = 1; k <= n[id]; k++) {
				if (name[id, k] == m) return base + bits[id, k]
				if (name[id, k] == "'"'"'(anon)'"'"'") {
					r = find(typ[id, k], base + bits[id, k])
					if (r >= 0) return r
				}
			}
			return -1
		}
		END { r = find(top, 0); if (r >= 0) print r / 8 }
	' "$1"
}
