#!/bin/sh
# sdt.sh - process("PATH").mark("NAME") probes on this machine's kernel
# (TAP): SDT marker arguments ($argN from registers, memory, constants
# and a %rip-relative global), user_string() of a pointer argument,
# $$name, $$provider and $$parms as stap prints them, and semaphores set
# by the kernel only while a probe on their marker is attached.  Root
# and uprobe events only; otherwise the whole file is skipped.  The
# probed program is tests/tools/ktap-sdt, which says on stderr whether
# its guarded marker's semaphore was set.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
T=$KTAP_BUILDDIR/tests/tools/ktap-sdt
TR=/sys/kernel/tracing

require_live "SDT marker tests need root (run make check as root)"
[ -w $TR/uprobe_events ] || skip_all "this kernel has no uprobe events"
require_tools "$T" "$TFS_SNAP"

tfs_guard_begin

run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$T"'").mark("tick") {
		printf("%d %s %s %s\n", $arg1, user_string($arg2), $$name, $$provider) }' -c "$T"
printf '%s\n' "7 tick-1 tick ktap" "14 tick-2 tick ktap" "21 tick-3 tick ktap" >"$TMP/want"
check "tick: \$arg1, user_string(\$arg2), \$\$name, \$\$provider"

run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$T"'").provider("ktap").mark("consts") { printf("%d %d %d\n", $arg1, $arg2, $arg3) }' -c "$T"
expect_text "consts: a constant, a global, a negative short" "42 1234567 -3"

# $$parms: "$arg1=%#x $arg2=%#x" (the second is a stack address).
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$T"'").mark("tick") { println($$parms) }' -c "$T"
sed 's/\$arg2=0x7ff[0-9a-f]*$/$arg2=ADDR/' "$TMP/out" >"$TMP/got"
cp "$TMP/got" "$TMP/out"
printf '%s\n' '$arg1=0x7 $arg2=ADDR' '$arg1=0xe $arg2=ADDR' '$arg1=0x15 $arg2=ADDR' >"$TMP/want"
check "\$\$parms as stap prints it"

# The semaphore is the uprobe's reference counter: set while attached.
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$T"'").mark("guarded") { println($$name, " ", $arg1) }' -c "$T"
if grep -qx 'guarded: semaphore set' "$TMP/err"; then
	expect_text "a semaphore-guarded marker fires while attached" "guarded 42"
else
	not_ok "the guarded marker's semaphore was not set while attached"
	diag_file "$TMP/err"
fi

run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$T"'").mark("tick") { n++ } probe end { println(n) } global n' -c "$T"
if [ "$rc" -eq 0 ] && grep -qx 'guarded: semaphore not set' "$TMP/err" && [ "$(cat "$TMP/out")" = 3 ]; then
	ok "another marker's semaphore stays clear"
else
	not_ok "semaphore of an unprobed marker (exit status $rc)"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi

# At a marker, a target variable other than $argN is the program's
# variable in scope there (stap's, from DWARF: the program is -g): the
# loop's i and its char array name, which the marker passes as $arg2.
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e 'probe process("'"$T"'").mark("tick") {
	printf("%d i=%d %s %s %d\n", $arg1, $i, $name$, $name, $name == user_string($arg2)) }' -c "$T"
cat >"$TMP/want" <<'EOW'
7 i=1 "tick-1" tick-1 1
14 i=2 "tick-2" tick-2 1
21 i=3 "tick-3" tick-3 1
EOW
check 'a marker'"'"'s $i and $name: the program'"'"'s variables in scope, $name$ pretty'

if "$T" 2>&1 | grep -qx 'guarded: semaphore not set'; then
	ok "without ktap the semaphore is clear (the kernel's count was undone)"
else
	not_ok "the semaphore is set with nothing attached"
fi

tfs_guard_end "tracefs unchanged: instances and uprobe events removed"
done_testing
