#!/bin/sh
# scripts.sh - the corpus of realistic SystemTap scripts (tests/scripts/,
# issue 13) (TAP).
#
# Each tests/scripts/NAME.stp carries header lines:
#   # needs: FEATURE...   none, tracepoints, uprobes, kprobes (what the
#                         kernel must offer for the script to run)
#   # run: OPTIONS        ktap options before the script (-c CMD, -G ...)
#   # args: ARGS          script arguments after it
#   # xfail: REASON       a known ktap shortcoming: its cases are TAP TODO
# (@TOOLS@ in run/args is the built tests/tools directory, @TMP@ the
# test's temporary directory, removed after it; both are
# split as shell words), and beside it NAME.out (its exact stdout) or
# NAME.p2 (its -p2 output, event ids and the tools path normalised).
# Cases per script:
#   - NAME.p2: `ktap -p2 NAME.stp ARGS` prints it (root: tracefs is 0700);
#   - needs met here: NAME.out: the run's stdout is it, exactly; no .out:
#     a 1-second run (-T 1) exits 0 with no ERROR line;
#   - needs not met here: the run exits 1 with exactly one ERROR or
#     error line on stderr (warnings aside), naming the missing feature.
# Then one case: tracefs is as it was.  KTAP_GOLDEN_UPDATE=1 rewrites
# the .p2 files (look at the diff).  bench/scripts-bench.sh measures the
# same corpus (and others) pass by pass.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
S=$KTAP_SRCDIR/tests/scripts
TOOLS=$KTAP_BUILDDIR/tests/tools
TFS=/sys/kernel/tracing
scripts=$(list_stp "$S")
[ -n "$scripts" ] || skip_all "no scripts in tests/scripts"
root=
[ "$(id -u)" -eq 0 ] && root=yes

# header FILE KEY: the value of the first "# KEY: " line, @TOOLS@ expanded.
header() {
	sed -n "s/^# $2: //p" "$1" | head -n 1 | sed -e "s|@TOOLS@|$TOOLS|g" -e "s|@TMP@|$TMP|g"
}

# has FEATURE: this machine's kernel offers FEATURE (as ktap's target
# reads it: tracefs's README and events).
has() {
	case $1 in
	none) return 0 ;;
	tracepoints) [ -d "$TFS/events/syscalls" ] ;;
	uprobes) grep -q uprobe_events "$TFS/README" 2>/dev/null ;;
	kprobes) grep -q kprobe_events "$TFS/README" 2>/dev/null ;;
	*) return 1 ;;
	esac
}

# feature_word FEATURE: what the one-line refusal must mention.
feature_word() {
	case $1 in
	kprobes) echo kprobe ;;
	uprobes) echo uprobe ;;
	*) echo "$1" ;;
	esac
}

# result DESC STATUS [TODO]: one case, as TAP TODO when TODO is given.
result() {
	if [ -n "${3:-}" ]; then
		if [ "$2" -eq 0 ]; then
			ok "$1 # TODO $3"
		else
			not_ok "$1 # TODO $3"
		fi
	elif [ "$2" -eq 0 ]; then
		ok "$1"
	else
		not_ok "$1"
	fi
}

# against DESC WANT GOT: one case: the last run exited 0 and file GOT
# is file WANT (a TODO case for an xfail script, without the diff).
against() {
	st=1
	[ "$rc" -eq 0 ] && [ -z "$why" ] && cmp -s "$2" "$3" && st=0
	result "$1" "$st" "$todo"
	if [ "$st" -ne 0 ] && [ -z "$todo" ]; then
		diag_diff "$2" "$3"
		explain "$TMP/err"
	fi
}

# norm_p2 FILE: -p2 output as it is kept: event ids and paths of this
# build replaced.
norm_p2() {
	sed -e 's/(id [0-9]*)/(id N)/' -e "s|$TOOLS|@TOOLS@|g" "$1"
}

# run_script OPTION...: run the script of $name with OPTION..., then
# its run options and arguments (shell words, hence eval).
run_script() {
	eval "run_ktap \"\$S\" \"\$TMP/out\" \"\$TMP/err\" $* $opts \"\$name\" $args"
}

# errors FILE: the error lines of a run's stderr (warnings, their
# source lines and carets aside).
errors() {
	grep -E '^ERROR: |: error: ' "$1"
}

[ -n "$root" ] && tfs_guard_begin
for f in $scripts; do
	name=${f##*/}
	base=${f%.stp}
	needs=$(header "$f" needs)
	opts=$(header "$f" run)
	args=$(header "$f" args)
	todo=$(header "$f" xfail)
	missing=
	for n in $needs; do
		has "$n" || missing="$missing $n"
	done
	missing=${missing# }

	if [ -f "$base.p2" ]; then
		if [ -z "$root" ]; then
			skip "$name -p2" "tracefs needs root"
		else
			run_script -p2
			norm_p2 "$TMP/out" >"$TMP/got"
			if [ "${KTAP_GOLDEN_UPDATE:-}" = 1 ] && [ "$rc" -eq 0 ]; then
				cp "$TMP/got" "$base.p2"
			fi
			against "$name -p2 is its golden" "$base.p2" "$TMP/got"
		fi
	fi

	if [ "$needs" != none ] && [ -z "$root" ]; then
		skip "$name runs" "needs root"
		continue
	fi
	if [ -n "$missing" ]; then
		# The issue's promise: it fails, in one line naming the feature.
		run_script -T 1
		word=$(feature_word "${missing%% *}")
		st=1
		if [ "$rc" -eq 1 ] && [ -z "$why" ] && [ "$(errors "$TMP/err" | wc -l)" -eq 1 ] &&
			errors "$TMP/err" | grep -qi "$word"; then
			st=0
		fi
		result "$name: no $missing here, one line says so" "$st" "$todo"
		[ "$st" -ne 0 ] && [ -z "$todo" ] && explain "$TMP/err"
		continue
	fi
	if [ -f "$base.out" ]; then
		run_script
		against "$name output" "$base.out" "$TMP/out"
	else
		run_script -T 1
		st=1
		[ "$rc" -eq 0 ] && [ -z "$why" ] && ! grep -q '^ERROR' "$TMP/err" && st=0
		result "$name runs for a second" "$st" "$todo"
		[ "$st" -ne 0 ] && [ -z "$todo" ] && explain "$TMP/err"
	fi
done
[ -n "$root" ] && tfs_guard_end "tracefs is as it was"
done_testing
