# guest-lib.sh - helpers of the guest halves of the VM tests (busybox sh),
# installed as /tests/guest-lib.sh.  A guest script prints one unnumbered
# TAP line per check and ends with guest_done.  These are not
# tests/harness/lib.sh: the guest is an initramfs with busybox sh and no
# build tree; vm-selftest.sh numbers the lines and prints the plan.
export KTAP_TAPSET=/usr/share/ktap/tapset
T=/tmp/ktap-guest
mkdir -p $T
failed=0

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; failed=$((failed + 1)); }
diag() { sed 's/^/# /' "$@"; }
# guest_done: the end marker vm-selftest.sh waits for; exit status: the
# number of failed checks.
guest_done() { echo "# guest checks done"; exit "$failed"; }

# run ARGS...: ktap ARGS, stdout to $T/out, stderr to $T/err, status in rc.
run() {
	timeout 60 ktap "$@" >$T/out 2>$T/err
	rc=$?
}

# expect DESC: rc 0 and $T/out equal to $T/want.
expect() {
	if [ "$rc" -eq 0 ] && cmp -s $T/want $T/out; then
		ok "$1"
	else
		not_ok "$1 (exit status $rc)"
		echo "# want:"; diag $T/want
		echo "# got:"; diag $T/out
		diag $T/err
	fi
}
