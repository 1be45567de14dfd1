#!/bin/sh
# scripts-bench.sh - how much of a corpus of stap scripts ktap takes:
# per directory, how many scripts elaborate (-p2), plan (-p3) for this
# machine and for a saved target (--target, default the 6.1 VM kernel's
# fixture), and run here; then the most common first error messages.
#
#   bench/scripts-bench.sh [DIR...]      (default: tests/scripts)
#
# Run from the build root as root (tracefs is 0700 and running needs it).
# Each script gets the options of its "#! stap OPTS" line minus -p/-g
# passes, its "# run:"/"# args:" header lines (tests/scripts' convention,
# @TOOLS@ = tests/tools), stdin from /dev/null and 20 s at most.  "Runs"
# means: exit 0 within the run (-T 2 when it has no -c command), and,
# when NAME.out is beside it, exactly that output.  A script with
# "# needs: kprobes" on a kernel without kprobes counts as not running.
# Environment: KTAP (./ktap), TARGET (tests/fixtures/target-6.1),
# KTAP_VM_CACHE (tests/vm/cache: the 6.1 kernel's BTF for TARGET),
# RUN=0 to skip the live runs, TOP (8) failure causes listed.
set -u
KTAP=${KTAP:-$PWD/ktap}
SRC=$(cd "$(dirname "$0")/.." && pwd)
TARGET=${TARGET:-$SRC/tests/fixtures/target-6.1}
TOOLS=$PWD/tests/tools
RUN=${RUN:-1}
TOP=${TOP:-8}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ktap-sb.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
[ $# -gt 0 ] || set -- "$SRC/tests/scripts"

# The target with its kernel's BTF beside it, as tests/harness/target.sh.
cp -R "$TARGET" "$TMP/target"
cache=${KTAP_VM_CACHE:-$PWD/tests/vm/cache}
vmlinux=$(find "$cache/" -maxdepth 2 -name vmlinux 2>/dev/null | head -n 1)
if [ -n "$vmlinux" ] && [ ! -e "$TMP/target/btf/vmlinux" ]; then
	mkdir -p "$TMP/target/btf" && ln -s "$vmlinux" "$TMP/target/btf/vmlinux"
fi

header() { sed -n "s/^# $2: //p" "$1" | head -n 1 | sed -e "s|@TOOLS@|$TOOLS|g" -e "s|@TMP@|$TMP|g"; }

# shebang_opts FILE: the options of "#! stap OPTS" without -pN and -g
# (the pass is ours to choose; guru mode is kept out as stap's own
# install check keeps it out).
shebang_opts() {
	first=$(head -n 1 "$1")
	case $first in
	'#!'*stap*) echo "${first#*stap}" | tr ' ' '\n' |
		grep -v -e '^-p[0-9]$' -e '^-g$' -e '^$' | tr '\n' ' ' ;;
	esac
}

# cause FILE: the first error line, reduced to its message with names
# and numbers replaced, for counting.
cause() {
	grep -m 1 -E '(^ERROR: |: error: |^semantic error)' "$1" |
		sed -E -e 's/^ERROR: //' -e 's/^[^ ]*:[0-9]+:[0-9]+: (error: )?//' \
			-e "s/'[^']*'/'X'/g" -e 's/"[^"]*"/"X"/g' -e 's/[0-9]+/N/g' |
		cut -c 1-110
}

# try NAME KIND ARGS...: run ktap on the script, 1 when it fails, its
# cause appended to $TMP/causes.KIND.
try() {
	_kind=$1
	shift
	(cd "$dir" && eval "timeout -k 5 20 \"\$KTAP\" $*") >"$TMP/out" 2>"$TMP/err" </dev/null
	_rc=$?
	if [ $_rc -ne 0 ]; then
		c=$(cause "$TMP/err")
		[ -n "$c" ] || c="exit status $_rc, no error line"
		echo "$c" >>"$TMP/causes.$_kind"
		return 1
	fi
	return 0
}

for dir in "$@"; do
	dir=$(cd "$dir" && pwd)
	n=0 p2=0 p3=0 t3=0 run=0
	: >"$TMP/causes.p2"
	: >"$TMP/causes.t3"
	: >"$TMP/causes.run"
	for f in "$dir"/*.stp; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		name=${f##*/}
		opts="$(shebang_opts "$f") $(header "$f" run)"
		args=$(header "$f" args)
		try p2 -w -p2 "$opts" "$name" "$args" && p2=$((p2 + 1))
		try p3 -w -p3 "$opts" "$name" "$args" && p3=$((p3 + 1))
		try t3 -w -p3 --target "$TMP/target" "$opts" "$name" "$args" && t3=$((t3 + 1))
		[ "$RUN" = 1 ] || continue
		case $opts in *-c*) limit= ;; *) limit="-T 2" ;; esac
		if try run -w "$limit" "$opts" "$name" "$args"; then
			if [ ! -f "${f%.stp}.out" ] || cmp -s "${f%.stp}.out" "$TMP/out"; then
				run=$((run + 1))
			else
				echo "wrong output" >>"$TMP/causes.run"
			fi
		fi
	done
	pct() { [ "$n" -gt 0 ] && echo "$(( $1 * 100 / n ))%" || echo -; }
	echo "## $dir ($(date -u +%Y-%m-%d))"
	echo "scripts: $n"
	echo "elaborate (-p2):               $p2 ($(pct $p2))"
	echo "plan here (-p3):               $p3 ($(pct $p3))"
	echo "plan for ${TARGET##*/} (-p3):  $t3 ($(pct $t3))"
	[ "$RUN" = 1 ] && echo "run here:                      $run ($(pct $run))"
	echo "first errors at -p2 (count, message):"
	sort "$TMP/causes.p2" | uniq -c | sort -rn | head -n "$TOP"
	echo "first errors for ${TARGET##*/} at -p3 (count, message):"
	sort "$TMP/causes.t3" | uniq -c | sort -rn | head -n "$TOP"
	if [ "$RUN" = 1 ]; then
		echo "failed runs (count, reason):"
		sort "$TMP/causes.run" | uniq -c | sort -rn | head -n "$TOP"
	fi
	echo
done
