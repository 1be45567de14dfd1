#!/bin/bash
# capture-hist.sh [OUTDIR] - regenerate the hist-file fixtures from the VM.
#
# Not a test: a maintainer's tool.  Boots Debian's 6.1 kernel (the VM test
# bed: fetch-kernel.sh, mkinitramfs.sh, run-vm.sh) with guest-hist.sh,
# which sets up hist triggers of every kind and prints the `hist` files
# base64-encoded between "=== HIST NAME ===" / "=== HIST-END NAME ==="
# markers; this script decodes each into OUTDIR/NAME.hist (default
# tests/fixtures/hist-6.1 of the source tree) and writes OUTDIR/triggers.txt
# with the trigger commands and the kernel release.  The unit test
# tests/unit/test_hist_parse.c checks exact values of these files, so
# regenerating them means updating that test.
# Run it under `flock /tmp/ktap-vm.lock` (the VM is CPU heavy).
# Environment: as run-vm.sh (KTAP_VM_CACHE, KTAP_VM_TIMEOUT ...).
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -eu

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
out=${1:-$srcdir/tests/fixtures/hist-6.1}
cache=${KTAP_VM_CACHE:-${KTAP_BUILDDIR:-$srcdir}/tests/vm/cache}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ktap-capture-hist.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

kernel=$("$here/fetch-kernel.sh" "$cache")
"$here/mkinitramfs.sh" "$tmp/initramfs.gz" "$here/guest-hist.sh:/tests/run-in-vm.sh"
rc=0
"$here/run-vm.sh" --quiet --kernel "$kernel" --timeout "${KTAP_VM_TIMEOUT:-300}" \
	"$tmp/initramfs.gz" > "$tmp/guest.out" || rc=$?
grep '^#' "$tmp/guest.out" >&2 || true
if [ "$rc" -eq 124 ] || [ "$rc" -eq 125 ]; then
	echo "capture-hist.sh: the VM failed ($rc)" >&2
	exit 1
fi

mkdir -p "$out"
# Split the guest's output at the markers, decoding each block.
awk -v dir="$tmp" '
	/^=== HIST-END / { name = ""; next }
	/^=== HIST / { name = $3; next }
	name != "" { print > (dir "/" name ".b64") }
' "$tmp/guest.out"
n=0
for f in "$tmp"/*.b64; do
	[ -e "$f" ] || break
	name=$(basename "$f" .b64)
	base64 -d < "$f" > "$out/$name.hist"
	n=$((n + 1))
done
{
	sed -n 's/^# kernel /kernel /p' "$tmp/guest.out"
	sed -n 's/^# trigger \([^:]*\): /\1: /p' "$tmp/guest.out"
	sed -n 's/^# REFUSED /REFUSED /p' "$tmp/guest.out"
} > "$out/triggers.txt"
echo "capture-hist.sh: $n hist files in $out (guest status $rc)" >&2
