# vm-ktap-lib.sh - sourced by the VM tests that run ./ktap in the guest
# (vm-ktap.sh, vm-stacks.sh, vm-hist-lower.sh, vm-latency-lower.sh):
# what they share before booting vm-selftest.sh's VM.
#
# vm_ktap GUEST TOOL...: bail out unless ./ktap, ktap-tfs-snapshot and
# tests/tools/TOOL... are built; skip (TAP) when ktap is built with
# sanitizers; then boot the VM running tests/vm/GUEST with ktap, the
# tapset, the examples, the tools (in /usr/bin) and guest-lib.sh in the
# initramfs, plus the "SRC:DST" pairs of $vm_extra_specs.  Does not
# return.
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
build=${KTAP_BUILDDIR:-$srcdir}

vm_ktap() {
	local guest=$1 t f specs
	shift
	for f in "$build/ktap" "$build/tests/tools/ktap-tfs-snapshot"; do
		[ -x "$f" ] || { echo "Bail out! $f is not built (run make check)"; exit 1; }
	done
	for t in "$@"; do
		f=$build/tests/tools/$t
		[ -x "$f" ] || { echo "Bail out! $f is not built (run make check)"; exit 1; }
	done
	# A sanitizer build of ktap crawls (or hangs at exit) in a TCG guest;
	# the plain build, which CI's first step tests, runs these checks.
	if ldd "$build/ktap" 2>/dev/null | grep -qE 'lib(asan|ubsan)'; then
		echo "1..0 # SKIP ktap is built with sanitizers: the VM checks run on the plain build"
		exit 0
	fi
	specs="$build/ktap:/usr/bin/ktap $srcdir/tapset:/usr/share/ktap/tapset"
	specs="$specs $srcdir/examples:/usr/share/ktap/examples"
	specs="$specs $build/tests/tools/ktap-tfs-snapshot:/usr/bin/ktap-tfs-snapshot"
	for t in "$@"; do
		specs="$specs $build/tests/tools/$t:/usr/bin/$t"
	done
	specs="$specs ${vm_extra_specs:-} $here/guest-lib.sh:/tests/guest-lib.sh"
	export KTAP_VM_GUEST=$here/$guest
	export KTAP_VM_SPECS=$specs
	exec bash "$here/vm-selftest.sh"
}
