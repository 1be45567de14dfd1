#!/bin/bash
# vm-tprobe.sh - kernel.trace() probes that read tracepoint arguments the
# record does not hold ($prev->tgid, task_pid($prev) in sched_switch),
# through tracepoint probe events (t:, Linux 6.10+ with fprobe events),
# run for real (TAP).  Debian 12's 6.1 kernel has none; its 6.12 kernel
# (linux-image-6.12.*+deb12-amd64-unsigned, in bookworm's security and
# backports updates) has them, with BTF: this boots the newest of those
# that apt knows (or the one cached, offline) and runs guest-tprobe.sh.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
. "$(cd "$(dirname "$0")" && pwd)/vm-ktap-lib.sh"
cache=${KTAP_VM_CACHE:-$build/tests/vm/cache}
pkg=$(apt-cache pkgnames linux-image-6.12. 2>/dev/null |
	grep -E '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' | sort -V | tail -n 1)
if [ -z "$pkg" ]; then	# offline: a cached one
	pkg=$(find "$cache" -mindepth 2 -maxdepth 2 -name .complete -path '*linux-image-6.12.*' \
		-printf '%h\n' 2>/dev/null | sort -V | tail -n 1)
	pkg=${pkg##*/}
	pkg=${pkg%%_*}
fi
if [ -z "$pkg" ]; then
	echo "1..0 # SKIP apt knows no linux-image-6.12.*+deb12-amd64-unsigned and none is cached"
	exit 0
fi
export KTAP_VM_KERNEL_PKG=$pkg
vm_ktap guest-tprobe.sh ktap-getppid
