#!/bin/bash
# vm-ktap.sh - ktap's kernel.function() probes run for real, in the VM
# (TAP): Debian's 6.1 kernel has kprobes, kretprobes and BTF, which this
# machine's kernel lacks.  The VM plumbing is vm-selftest.sh's; this adds
# ./ktap, the tapset and ktap-tfs-snapshot to the initramfs and runs
# guest-ktap.sh inside.  Needs a built ./ktap (make check builds it).
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
build=${KTAP_BUILDDIR:-$srcdir}
for f in "$build/ktap" "$build/tests/tools/ktap-tfs-snapshot"; do
	if [ ! -x "$f" ]; then
		echo "Bail out! $f is not built (run make check)"
		exit 1
	fi
done
export KTAP_VM_GUEST=$here/guest-ktap.sh
export KTAP_VM_SPECS="$build/ktap:/usr/bin/ktap $srcdir/tapset:/usr/share/ktap/tapset $build/tests/tools/ktap-tfs-snapshot:/usr/bin/ktap-tfs-snapshot"
exec bash "$here/vm-selftest.sh"
