#!/bin/bash
# vm-agg-bench.sh - aggregation cost in Debian's 6.1 kernel (QEMU): ktap's
# variants side by side, and bpftrace when it fits in the initramfs.
#
#   bench/vm-agg-bench.sh            (root not needed; QEMU, busybox-static)
#
# Boots the VM bed of tests/vm (fetch-kernel.sh, mkinitramfs.sh,
# run-vm.sh, as tests/vm/vm-ktap.sh does; under flock /tmp/ktap-vm.lock)
# with ./ktap, the tapset, tests/tools/ktap-getppid and
# bench/guest-agg-bench.sh, which runs, for each variant:
#   count  c[execname()]++ on syscalls:sys_enter_getppid while N getppid
#          calls are made by 1 process, then by 2 in parallel;
#   lat    t[tid()] = gettimeofday_ns() on sys_enter_getppid and, on
#          sys_exit_getppid, if (tid() in t) { h <<< gettimeofday_ns() -
#          t[tid()]; delete t[tid()] }, printing @count(h) and
#          @hist_log(h) (the pair lower_latency.c lowers);
# and prints one table per script: whether ktap lowered it (-v), the
# count printed against the exact
# number of calls, events lost (ktap's "WARNING: N events lost"), the
# records written to and read from the instance's ring buffers (its
# per_cpu/cpuN/stats, polled while ktap runs: tests/vm/guest-stats.sh),
# ktap's CPU time (its -v "Pass 5 ... usr/sys" line, which leaves out the
# -c child) per call, wall time, and the workload's ns/call against the
# untraced workload's.  All figures come from one boot: under TCG only
# their ratios mean anything.
#
# Environment:
#   KTAP_VARIANTS   blank-separated variants (default "default --no-lower"):
#                   "default" runs ktap as is, any other word is passed to
#                   ktap as an option; one ktap rejects is reported as
#                   "not supported by this ktap" and skipped
#   KTAP_BENCH_N    getppid calls per process (default 200000)
#   KTAP_BENCH_PROCS      process counts for count (default "1 2")
#   KTAP_BENCH_LAT_PROCS  process counts for lat (default "1 2")
#   KTAP_BENCH_POLL seconds between stats samples (default 0.05)
#   KTAP_BENCH_BPFTRACE   0: leave bpftrace out (default 1 when the host
#                   has /usr/bin/bpftrace: its libraries, LLVM and clang
#                   included, make the initramfs ~71 MB and need 2G of
#                   guest memory)
#   KTAP_BENCH_OUT  also write the guest's report to this file
#   KTAP_BUILDDIR, KTAP_VM_CACHE, KTAP_VM_TIMEOUT (default 1200),
#   KTAP_VM_MEM (default 1G, 2G with bpftrace) and run-vm.sh's variables.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -eu

# One VM at a time on this machine (the tests/vm runs take the same lock).
if [ -z "${KTAP_VM_LOCKED:-}" ]; then
	KTAP_VM_LOCKED=1 exec flock /tmp/ktap-vm.lock bash "$0" "$@"
fi

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/.." && pwd)
vm=$srcdir/tests/vm
build=${KTAP_BUILDDIR:-$srcdir}
cache=${KTAP_VM_CACHE:-$build/tests/vm/cache}
for f in "$build/ktap" "$build/tests/tools/ktap-getppid"; do
	[ -x "$f" ] || { echo "vm-agg-bench: $f is not built (make check builds it)" >&2; exit 1; }
done

bpftrace=${KTAP_BENCH_BPFTRACE:-1}
if [ "$bpftrace" = 1 ] && [ ! -x /usr/bin/bpftrace ]; then
	echo "vm-agg-bench: no /usr/bin/bpftrace on the host: bpftrace columns left out" >&2
	bpftrace=0
fi
if [ "$bpftrace" = 1 ]; then export KTAP_VM_MEM=${KTAP_VM_MEM:-2G}; fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ktap-agg-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

kernel=$("$vm/fetch-kernel.sh" "$cache")
kdir=$(dirname "$kernel")

cat > "$tmp/bench.conf" <<EOF
N=${KTAP_BENCH_N:-200000}
VARIANTS='${KTAP_VARIANTS:-default --no-lower}'
PROCS='${KTAP_BENCH_PROCS:-1 2}'
LAT_PROCS='${KTAP_BENCH_LAT_PROCS:-1 2}'
POLL=${KTAP_BENCH_POLL:-0.05}
BPFTRACE=$bpftrace
EOF

specs=("$build/ktap:/usr/bin/ktap" "$srcdir/tapset:/usr/share/ktap/tapset"
	"$build/tests/tools/ktap-getppid:/usr/bin/ktap-getppid"
	"$here/guest-agg-bench.sh:/tests/run-in-vm.sh"
	"$vm/guest-stats.sh:/tests/guest-stats.sh" "$tmp/bench.conf:/tests/bench.conf")
if [ -f "$kdir/config" ] && [ -f "$kdir/release" ]; then
	specs+=("$kdir/config:/boot/config-$(cat "$kdir/release")")
fi
if [ "$bpftrace" = 1 ]; then specs+=(/usr/bin/bpftrace); fi
"$vm/mkinitramfs.sh" "$tmp/initramfs.gz" "${specs[@]}"

quiet=(--quiet)
if [ "${KTAP_VM_QUIET:-1}" = 0 ]; then quiet=(); fi
rc=0
# A guest kernel that locks up (seen once under bpftrace) panics, which
# ends the VM at once (panic=-1, -no-reboot) with what it printed so far.
"$vm/run-vm.sh" "${quiet[@]}" --kernel "$kernel" --timeout "${KTAP_VM_TIMEOUT:-1200}" \
	--append "softlockup_panic=1" \
	"$tmp/initramfs.gz" > "$tmp/report" || rc=$?
{
	echo "vm-agg-bench: $(date -u '+%Y-%m-%d %H:%M UTC'), commit" \
		"$(git -C "$srcdir" rev-parse --short HEAD 2>/dev/null || echo ?)," \
		"kernel $(cat "$kdir/package" 2>/dev/null || echo ?), QEMU ${KTAP_VM_ACCEL:-tcg}," \
		"${KTAP_VM_SMP:-2} vCPUs, ${KTAP_VM_MEM:-1G}, host load $(cut -d' ' -f1-3 /proc/loadavg)"
	cat "$tmp/report"
	if [ "$rc" != 0 ]; then echo "vm-agg-bench: the VM failed (run-vm.sh status $rc): figures above are partial"; fi
} | tee "${KTAP_BENCH_OUT:-/dev/null}"
exit "$rc"
