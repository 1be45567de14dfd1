#!/bin/sh
# run-unit.sh - LOG_COMPILER for the cmocka unit tests: runs one test
# program under a timeout (KTAP_UNIT_TIMEOUT, default 60 s, 600 s under
# valgrind) and, when KTAP_VALGRIND is set, under valgrind.  cmocka's
# TAP output (CMOCKA_MESSAGE_OUTPUT=TAP) goes to the tap-driver.
# The programs of tests/live/ touch tracefs: they hold the live-test lock
# (locks.sh) as the harness scripts do.
if [ -n "${KTAP_VALGRIND:-}" ]; then
	t=${KTAP_UNIT_TIMEOUT:-600}
else
	t=${KTAP_UNIT_TIMEOUT:-60}
fi
case $1 in
*tests/live/*)
	# shellcheck source=tests/harness/locks.sh
	. "$(dirname "$0")/locks.sh"
	live_lock
	;;
esac
set -f
# shellcheck disable=SC2086
exec timeout -k 5 "$t" ${KTAP_VALGRIND:-} "$@"
