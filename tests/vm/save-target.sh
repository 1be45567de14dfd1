#!/bin/bash
# save-target.sh OUTDIR - `ktap --save-target` run inside the test VM
# (Debian's 6.1 kernel, tests/vm/README.md): the whole saved target ends
# in OUTDIR (tests/fixtures/target-6.1 keeps the part the goldens use,
# see tests/fixtures/prune-target.sh).  Needs a built ./ktap.  CPU-heavy
# (QEMU TCG): run under flock /tmp/ktap-vm.lock.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -eu
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
build=${KTAP_BUILDDIR:-$srcdir}
[ $# -eq 1 ] || { echo "usage: save-target.sh OUTDIR" >&2; exit 2; }
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)
cache=${KTAP_VM_CACHE:-$build/tests/vm/cache}
# scsi_mod loaded, for its scsi:* events (scsi.iodispatching's)
kernel=$(KTAP_VM_KMODS="9p 9pnet_virtio virtio_pci scsi_mod" "$here/fetch-kernel.sh" "$cache")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ktap-save-target.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
KTAP_VM_KERNEL_DIR=$(dirname "$kernel") "$here/mkinitramfs.sh" --9p --kmod scsi_mod "$tmp/initramfs.gz" \
	"$build/ktap:/usr/bin/ktap" "$here/guest-save-target.sh:/tests/run-in-vm.sh" >/dev/null
mkdir "$tmp/share"
"$here/run-vm.sh" --quiet --kernel "$kernel" --share "$tmp/share" "$tmp/initramfs.gz"
tar xf "$tmp/share/target.tar" -C "$out"
# The package's configuration, when the guest had none to save.
[ -f "$out/config" ] || cp "$(dirname "$kernel")/config" "$out/config"
