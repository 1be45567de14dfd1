#!/bin/sh
# compile-reads.sh - what one compile reads of the system (TAP, no root).
#
# Kernel symbols are read from kallsyms (about 200000 lines on a
# desktop kernel) once per question, not once per use: a script calling
# task_current() in three probes against the fixture tracefs, whose
# kernel cannot say where 'current' is, used to read /proc/kallsyms 67
# times (6 s) while typing asked again in every round.  Now: once for
# the init text's functions, once for 'current'.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

require_tools strace
[ -r /proc/kallsyms ] || skip_all "no /proc/kallsyms"
KTAP_TRACEFS=$KTAP_SRCDIR/tests/fixtures/tracefs
export KTAP_TRACEFS

# kallsyms_opens DESC MAX ARGS...: ktap ARGS opens kallsyms at most MAX times.
kallsyms_opens() {
	desc=$1 max=$2
	shift 2
	strace -f -e trace=openat -o "$TMP/strace" "$KTAP" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	n=$(grep -c 'kallsyms"' "$TMP/strace")
	if [ "$n" -le "$max" ] && [ "$n" -ge 1 ]; then
		ok "$desc: kallsyms read $n times"
	else
		not_ok "$desc: kallsyms read $n times (at most $max)"
		diag_file "$TMP/err"
	fi
}

kallsyms_opens "task_current() in three probes and a function" 2 \
	-p2 "$KTAP_SRCDIR/tests/golden/target/unread-param.stp"
done_testing
