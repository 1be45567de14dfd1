# shellcheck shell=sh
# tests/harness/locks.sh - the locks that serialise tests sharing one
# machine resource under make -j (sourced by lib.sh, run-unit.sh and the
# VM tests; POSIX sh).  The one place where the lock files are named.
#
#   KTAP_LIVE_LOCK  tests that create tracefs instances or events and
#                   compare tracefs before and after (tests/harness's
#                   require_live, tests/live/*): one at a time;
#   KTAP_VM_LOCK    the VM tests (QEMU keeps both CPUs busy): one VM at
#                   a time, and none during a live test (which times things).
# /run/lock rather than /tmp: a developer who wraps a whole make check in
# `flock /tmp/ktap-live.lock` (to keep it apart from another worktree's)
# must not deadlock with the lock the tests take inside.
_lockdir=/run/lock
[ -d "$_lockdir" ] && [ -w "$_lockdir" ] || _lockdir=${TMPDIR:-/tmp}
: "${KTAP_LIVE_LOCK:=$_lockdir/ktap-live.lock}"
: "${KTAP_VM_LOCK:=$_lockdir/ktap-vm.lock}"

# lock_open FILE: FILE exists, readable by anyone (flock needs no write
# access, so a later run as another user can lock it too).
lock_open() {
	[ -e "$1" ] || (umask 0 && : >>"$1") 2>/dev/null || :
}

# live_lock: hold KTAP_LIVE_LOCK on fd 9 until the shell exits (a program
# it starts inherits the fd and keeps the lock while it runs; lib.sh's
# run_ktap closes it for ktap).
live_lock() {
	[ -n "${_live_locked:-}" ] && return 0
	lock_open "$KTAP_LIVE_LOCK"
	exec 9<"$KTAP_LIVE_LOCK" && flock 9 && _live_locked=1
}

# vm_lock: KTAP_VM_LOCK on fd 8, then the live lock (see above).
vm_lock() {
	lock_open "$KTAP_VM_LOCK"
	exec 8<"$KTAP_VM_LOCK" && flock 8
	live_lock
}
