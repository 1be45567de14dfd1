#!/bin/sh
# filter-plan.sh - kernel filters and control triggers in -p3 plans (TAP).
#
# Each tests/golden/filter/NAME.stp is compiled with
# `ktap -p3 -v --target tests/fixtures/target-R NAME.stp` for R = 6.18
# (this development machine's kernel) and R = 6.1 (the VM's), and for
# R = fixture against tests/fixtures/tracefs (more events), or for the
# R listed on a line "# targets: R..." of the script; its stdout
# (the plan), then "# -v" and -v's per-probe filter lines (pass 3's
# "probe ..." and "latency pair ..." reports; timings left out), must be NAME.R.p3 exactly.
# KTAP_GOLDEN_UPDATE=1 rewrites the expected files.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

G=$KTAP_SRCDIR/tests/golden/filter
F=$KTAP_SRCDIR/tests/fixtures
unset KTAP_TRACEFS KTAP_BTF KTAP_KCONFIG

scripts=$(list_stp "$G")
[ -n "$scripts" ] || skip_all "no scripts in tests/golden/filter"

for f in $scripts; do
	name=${f##*/}
	name=${name%.stp}
	targets=$(sed -n 's/^# targets: //p' "$f")
	for r in ${targets:-6.18 6.1 fixture}; do
		if [ "$r" = fixture ]; then
			KTAP_TRACEFS=$F/tracefs
			export KTAP_TRACEFS
			run_ktap "$G" "$TMP/out" "$TMP/err" -p3 -v "$name.stp"
			unset KTAP_TRACEFS
		else
			run_ktap "$G" "$TMP/out" "$TMP/err" -p3 -v --target "$F/target-$r" \
				"$name.stp"
		fi
		{ cat "$TMP/out"; echo "# -v"
		  sed -n -e '/^Pass 3: probe /p' -e '/^Pass 3: latency pair /p' -e '/^  /p' "$TMP/err"
		  echo "# exit status $rc"; } >"$TMP/got"
		want=$G/$name.$r.p3
		if [ -n "${KTAP_GOLDEN_UPDATE:-}" ]; then
			cp "$TMP/got" "$want"
		fi
		if [ -n "$why" ]; then
			not_ok "$name on $r: $why"
		elif cmp -s "$want" "$TMP/got"; then
			ok "$name on $r"
		else
			not_ok "$name on $r"
			diag_diff "$want" "$TMP/got"
		fi
	done
done
done_testing
