#!/bin/bash
# vm-latency-lower.sh - latency pairs lowered to synthetic events, run for real
# in the VM (TAP): Debian's 6.1 kernel has hist triggers, which this
# machine's kernel lacks.  The VM plumbing is vm-selftest.sh's; this adds
# ./ktap, ktap-values, ktap-getppid and ktap-tfs-snapshot to the initramfs
# and runs guest-latency-lower.sh inside (always under
# flock /tmp/ktap-vm.lock).  Needs a built ./ktap and tests/tools.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
build=${KTAP_BUILDDIR:-$srcdir}
for f in "$build/ktap" "$build/tests/tools/ktap-tfs-snapshot" "$build/tests/tools/ktap-values" "$build/tests/tools/ktap-getppid"; do
	if [ ! -x "$f" ]; then
		echo "Bail out! $f is not built (run make check)"
		exit 1
	fi
done
# A sanitizer build of ktap crawls (or hangs at exit) in a TCG guest; the
# plain build, which CI's first step tests, runs these checks.
if ldd "$build/ktap" 2>/dev/null | grep -qE 'lib(asan|ubsan)'; then
	echo "1..0 # SKIP ktap is built with sanitizers: the VM checks run on the plain build"
	exit 0
fi
export KTAP_VM_GUEST=$here/guest-latency-lower.sh
export KTAP_VM_SPECS="$build/ktap:/usr/bin/ktap $srcdir/tapset:/usr/share/ktap/tapset $srcdir/examples:/usr/share/ktap/examples $build/tests/tools/ktap-tfs-snapshot:/usr/bin/ktap-tfs-snapshot $build/tests/tools/ktap-values:/usr/bin/ktap-values $build/tests/tools/ktap-getppid:/usr/bin/ktap-getppid $here/guest-lib.sh:/tests/guest-lib.sh"
exec bash "$here/vm-selftest.sh"
