#!/bin/bash
# vm-profile.sh - timer.profile in the VM (TAP): Debian's 6.1 kernel's
# tick handler (tick_sched_timer) and hist triggers (guest-profile.sh).
# The VM plumbing is vm-selftest.sh's.  Needs a built ./ktap and
# tests/tools (make check builds them).
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
. "$(cd "$(dirname "$0")" && pwd)/vm-ktap-lib.sh"
vm_ktap guest-profile.sh ktap-spin
