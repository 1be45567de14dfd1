#!/bin/bash
# vm-hist-lower.sh - aggregations lowered to hist triggers, run for real
# in the VM (TAP): Debian's 6.1 kernel has hist triggers, which this
# machine's kernel lacks.  The VM plumbing is vm-selftest.sh's; this adds
# ./ktap, ktap-values, ktap-getppid and ktap-tfs-snapshot to the initramfs
# and runs guest-hist-lower.sh inside (always under
# flock /tmp/ktap-vm.lock).  Needs a built ./ktap and tests/tools.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
. "$(cd "$(dirname "$0")" && pwd)/vm-ktap-lib.sh"
vm_ktap guest-hist-lower.sh ktap-values ktap-getppid
