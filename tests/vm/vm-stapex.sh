#!/bin/bash
# vm-stapex.sh - SystemTap's example scripts that need kprobes, in the VM
# (TAP): the "vm" lines of tests/stapex.list, each run as stap's install
# check runs it, with a check of its output's shape (guest-stapex.sh).
# The examples are read from the installed systemtap-doc package and
# copied into the initramfs, not kept in this repository; without them
# the test skips.  The VM plumbing is vm-selftest.sh's.  Needs a built
# ./ktap and tests/tools (make check builds them).
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
. "$(cd "$(dirname "$0")" && pwd)/vm-ktap-lib.sh"
E=${KTAP_STAP_EXAMPLES:-/usr/share/systemtap/examples}
if [ ! -d "$E" ]; then
	echo "1..0 # SKIP $E is absent (SystemTap's examples: package systemtap-doc)"
	exit 0
fi
# 17 examples, two runs for most: 45 to 110 s in the guest under TCG
# (depending on the load of the host; 238 s once on a loaded host, so
# the limit is 400 s, as vm-scripts.sh's).
export KTAP_VM_TIMEOUT=${KTAP_VM_TIMEOUT:-400}
list=$srcdir/tests/stapex.list
vm_extra_specs="$list:/tests/stapex.list"
for n in $(sed -n 's/^\([^#][^ ]*\) vm$/\1/p' "$list"); do
	for f in "$E/$n.stp" "$E/$n.meta"; do
		[ -f "$f" ] || { echo "Bail out! $f is missing (another systemtap-doc version?)"; exit 1; }
		vm_extra_specs="$vm_extra_specs $f:/usr/share/systemtap/examples/${f#"$E"/}"
	done
done
vm_ktap guest-stapex.sh ktap-tcp-stall
