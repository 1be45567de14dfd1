#!/bin/bash
# vm-scripts.sh - the tests/scripts corpus in the VM (TAP): Debian's 6.1
# kernel has the kprobes this machine's lacks, so the scripts that need
# them run there (guest-scripts.sh).  The VM plumbing is vm-selftest.sh's.
# Needs a built ./ktap and tests/tools (make check builds them).
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
. "$(cd "$(dirname "$0")" && pwd)/vm-ktap-lib.sh"
# Three passes of some 65 scripts under TCG: ~90 s on an idle host.
export KTAP_VM_TIMEOUT=${KTAP_VM_TIMEOUT:-400}
# scsi_debug (a small SCSI disk, loaded at boot with what it needs; sd_mod
# makes it /dev/sda) for the scsi.* checks of guest-scripts.sh.  The
# kernel cache keeps the union of the sets the VM tests ask for.
export KTAP_VM_KMODS="scsi_debug sd_mod"
vm_extra_specs="$srcdir/tests/scripts:/usr/share/ktap/scripts"
vm_ktap guest-scripts.sh ktap-getppid ktap-syscalls ktap-values ktap-uprobe-target ktap-malloc ktap-plt ktap-tty ktap-sockopt ktap-signals
