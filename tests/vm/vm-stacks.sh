#!/bin/bash
# vm-stacks.sh - stack traces in the VM (TAP): where Debian's 6.1 kernel
# writes the stacktrace trigger's records, and ktap's print_backtrace()
# there (guest-stacks.sh).  The VM plumbing is vm-selftest.sh's.  Needs a
# built ./ktap and tests/tools (make check builds them).
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
. "$(cd "$(dirname "$0")" && pwd)/vm-ktap-lib.sh"
vm_ktap guest-stacks.sh ktap-getppid
