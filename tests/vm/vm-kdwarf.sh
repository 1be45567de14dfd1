#!/bin/bash
# vm-kdwarf.sh - kernel DWARF as a type source, for real, in the VM (TAP):
# tests/vm/ktapmod, a module built out of tree with -g against Debian's
# headers for the VM's kernel (build-kmod.sh) and without BTF, is loaded
# in the guest from /lib/modules/RELEASE/extra/, where ktap must find its
# DWARF.  The VM plumbing is vm-selftest.sh's; guest-kdwarf.sh runs inside.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
build=${KTAP_BUILDDIR:-$srcdir}
cache=${KTAP_VM_CACHE:-$build/tests/vm/cache}
for f in "$build/ktap" "$build/tests/tools/ktap-tfs-snapshot"; do
	if [ ! -x "$f" ]; then
		echo "Bail out! $f is not built (run make check)"
		exit 1
	fi
done
if ldd "$build/ktap" 2>/dev/null | grep -qE 'lib(asan|ubsan)'; then
	echo "1..0 # SKIP ktap is built with sanitizers: the VM checks run on the plain build"
	exit 0
fi
mkdir -p "$build/tests/vm"
if ! kernel=$("$here/fetch-kernel.sh" "$cache" 2>"$build/tests/vm/kdwarf-fetch.err"); then
	echo "Bail out! the VM kernel could not be fetched: $(tail -n 1 "$build/tests/vm/kdwarf-fetch.err")"
	exit 1
fi
kdir=$(dirname "$kernel")
if ! ko=$("$here/build-kmod.sh" "$kdir" "$here/ktapmod" "$build/tests/vm/kmod" 2>"$build/tests/vm/kmod.err"); then
	echo "Bail out! the test module did not build: $(tail -n 1 "$build/tests/vm/kmod.err")"
	exit 1
fi
release=$(cat "$kdir/release")
export KTAP_VM_GUEST=$here/guest-kdwarf.sh
export KTAP_VM_SPECS="$build/ktap:/usr/bin/ktap $srcdir/tapset:/usr/share/ktap/tapset $build/tests/tools/ktap-tfs-snapshot:/usr/bin/ktap-tfs-snapshot $ko:/lib/modules/$release/extra/ktapmod.ko $here/guest-lib.sh:/tests/guest-lib.sh"
exec bash "$here/vm-selftest.sh"
