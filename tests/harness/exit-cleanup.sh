#!/bin/sh
# exit-cleanup.sh - the harness removes its temporary directory however a
# test script ends (TAP).  Five live scripts once set their own
# `trap ... EXIT` to stop a background workload (one cleared it with
# `trap - EXIT`), which replaced lib.sh's removal of $TMP: every run left
# a /tmp/ktap-test.* behind.  Now at_exit() adds to lib.sh's trap, and no
# script sets an EXIT trap.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

H=$KTAP_SRCDIR/tests/harness

# 1. A script with an at_exit hook: the hook runs and its $TMP goes, on
#    a normal exit and on an error exit.
for how in "exit 0" "exit 3"; do
	cat >"$TMP/t.sh" <<EOS
. "$H/lib.sh"
echo "\$TMP" >"$TMP/dir"
sleep 30 &
bg=\$!
at_exit 'kill \$bg 2>/dev/null; echo hook >"$TMP/hook"'
$how
EOS
	rm -f "$TMP/hook" "$TMP/dir"
	# as a script of the harness directory ($0: lib.sh finds locks.sh there)
	sh -c "$(cat "$TMP/t.sh")" "$H/exit-cleanup-child.sh" >/dev/null 2>&1
	d=$(cat "$TMP/dir" 2>/dev/null)
	if [ -n "$d" ] && [ ! -e "$d" ] && [ "$(cat "$TMP/hook" 2>/dev/null)" = hook ]; then
		ok "at_exit runs and \$TMP is removed ($how)"
	else
		not_ok "at_exit and \$TMP ($how): dir '$d' $([ -e "$d" ] && echo left behind)"
	fi
done

# 2. No test script replaces or clears lib.sh's EXIT trap.
if grep -nE "^[[:space:]]*trap .*(EXIT|0)[[:space:]]*$" "$H"/*.sh | grep -v -e '/lib\.sh:' -e '/golden\.sh:' >"$TMP/traps"; then
	not_ok "a harness script sets its own EXIT trap (use at_exit)"
	diag_file "$TMP/traps"
else
	ok "no harness script sets its own EXIT trap"
fi

done_testing
