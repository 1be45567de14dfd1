#!/bin/bash
# vm-tracedat.sh - ktap --record and -i on Debian's 6.1 kernel in the VM
# (TAP): hist triggers and kprobes, which this machine's kernel lacks
# (tests/harness/tracedat.sh covers the rest here).  The VM plumbing is
# vm-selftest.sh's; this adds ./ktap, ktap-getppid, ktap-tfs-snapshot
# and trace-cmd (with its libraries) to the initramfs and runs
# guest-tracedat.sh inside (always under flock /tmp/ktap-vm.lock).
# Needs a built ./ktap and tests/tools, and trace-cmd on the host.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
. "$(cd "$(dirname "$0")" && pwd)/vm-ktap-lib.sh"
trace_cmd=$(command -v trace-cmd) || { echo "1..0 # SKIP trace-cmd is not installed"; exit 0; }
vm_extra_specs="$trace_cmd:/usr/bin/trace-cmd"
vm_ktap guest-tracedat.sh ktap-getppid
