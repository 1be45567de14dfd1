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

# bounded SECS CMD...: CMD, killed when it runs past SECS seconds; its
# status (124 on a timeout).  A run that hangs must fail its own check
# with where it hung, not stall the VM until the host's timeout kills it
# with nothing said: on a timeout the wchan, kernel stack and state of
# every ktap process and of the -c targets go to stderr (which the
# caller's check prints), then SIGTERM, and SIGKILL 3 s later.
bounded() {
	_secs=$1
	shift
	"$@" &
	_pid=$!
	_t=0
	while kill -0 $_pid 2>/dev/null; do
		if [ $_t -ge $((_secs * 5)) ]; then
			echo "TIMEOUT after ${_secs}s: $*" >&2
			hang_report >&2
			kill -TERM $_pid 2>/dev/null
			sleep 3
			kill -KILL $_pid 2>/dev/null
			wait $_pid
			return 124
		fi
		sleep 0.2
		_t=$((_t + 1))
	done
	wait $_pid
}

# hang_report: where each ktap-related process is (tests/tools are ktap-*).
hang_report() {
	for d in /proc/[0-9]*; do
		read -r c <$d/comm 2>/dev/null || continue
		case $c in ktap* | kv-* | getppid*) ;; *) continue ;; esac
		echo "pid ${d#/proc/} ($c) $(grep '^State' $d/status) wchan=$(cat $d/wchan 2>/dev/null)"
		for t in $d/task/*; do
			echo " task ${t##*/}: $(cat $t/wchan 2>/dev/null)"
			sed 's/^/    /' $t/stack 2>/dev/null
		done
	done
	echo "tracefs instances: $(ls /sys/kernel/tracing/instances 2>/dev/null)"
}

# run ARGS...: ktap ARGS, stdout to $T/out, stderr to $T/err, status in rc.
run() {
	bounded 60 ktap "$@" >$T/out 2>$T/err
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
