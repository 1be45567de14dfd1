#!/bin/bash
# record-tracedat.sh OUT.dat - remake tests/fixtures/getppid-6.1.dat, the
# trace-cmd recording the `ktap -i` tests read (tests/harness/tracedat.sh):
# `trace-cmd record` inside the test VM (Debian's 6.1 kernel), see
# guest-record-tracedat.sh for what it records.  Needs trace-cmd on the
# host (its binary and libraries go into the initramfs) and a built
# tests/tools/ktap-getppid.  CPU-heavy (QEMU TCG): run under
# flock /tmp/ktap-vm.lock.  A maintainer's tool, not a test.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -eu
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
build=${KTAP_BUILDDIR:-$srcdir}
[ $# -eq 1 ] || { echo "usage: record-tracedat.sh OUT.dat" >&2; exit 2; }
out=$1
trace_cmd=$(command -v trace-cmd) || { echo "record-tracedat.sh: no trace-cmd (apt-get install trace-cmd)" >&2; exit 1; }
cache=${KTAP_VM_CACHE:-$build/tests/vm/cache}
kernel=$("$here/fetch-kernel.sh" "$cache")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ktap-record-tracedat.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
KTAP_VM_KERNEL_DIR=$(dirname "$kernel") "$here/mkinitramfs.sh" --9p "$tmp/initramfs.gz" \
	"$trace_cmd:/usr/bin/trace-cmd" \
	"$build/tests/tools/ktap-getppid:/usr/bin/ktap-getppid" \
	"$here/guest-record-tracedat.sh:/tests/run-in-vm.sh" >/dev/null
mkdir "$tmp/share"
"$here/run-vm.sh" --quiet --kernel "$kernel" --share "$tmp/share" "$tmp/initramfs.gz"
cp "$tmp/share/getppid.dat" "$out"
