#!/bin/bash
# vm-stacks.sh - stack traces in the VM (TAP): where Debian's 6.1 kernel
# writes the stacktrace trigger's records, and ktap's print_backtrace()
# there (guest-stacks.sh).  The VM plumbing is vm-selftest.sh's.  Needs a
# built ./ktap and tests/tools (make check builds them).
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
build=${KTAP_BUILDDIR:-$srcdir}
for f in "$build/ktap" "$build/tests/tools/ktap-tfs-snapshot" "$build/tests/tools/ktap-getppid"; do
	if [ ! -x "$f" ]; then
		echo "Bail out! $f is not built (run make check)"
		exit 1
	fi
done
if ldd "$build/ktap" 2>/dev/null | grep -qE 'lib(asan|ubsan)'; then
	echo "1..0 # SKIP ktap is built with sanitizers: the VM checks run on the plain build"
	exit 0
fi
export KTAP_VM_GUEST=$here/guest-stacks.sh
export KTAP_VM_SPECS="$build/ktap:/usr/bin/ktap $srcdir/tapset:/usr/share/ktap/tapset $build/tests/tools/ktap-tfs-snapshot:/usr/bin/ktap-tfs-snapshot $build/tests/tools/ktap-getppid:/usr/bin/ktap-getppid $here/guest-lib.sh:/tests/guest-lib.sh"
exec bash "$here/vm-selftest.sh"
