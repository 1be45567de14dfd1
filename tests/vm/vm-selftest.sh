#!/bin/bash
# vm-selftest.sh - TAP test of the ktap VM test bed (tests/vm/README.md).
#
# Fetches Debian's kernel (fetch-kernel.sh), builds tests/vm/tracefs-probe.c
# (linked with libtracefs and libtraceevent), packs it, /usr/bin/curl (if
# the host has it) and guest-selftest.sh into an initramfs (mkinitramfs.sh),
# boots it (run-vm.sh) and reports one TAP line per step here and one per
# check the guest made: tracefs and debugfs mounted, a kprobe event on the
# openat path recorded in a fresh instance and removed again, a uprobe, a
# hist trigger on sched_switch, a synthetic event, /sys/kernel/btf/vmlinux,
# and the dynamically linked programs running in the guest.
#
# No QEMU is a failure ("Bail out!"), never a skip: CI must run this.
#
# Environment: KTAP_VM_CACHE (kernel cache; default tests/vm/cache under
# $KTAP_BUILDDIR, else under the source tree), KTAP_VM_TIMEOUT (seconds,
# default 300), KTAP_VM_KEEP=DIR (keep initramfs.gz and serial.log there),
# KTAP_VM_QUIET=1 (do not stream the console to stderr), KTAP_VM_SMP
# (vCPUs, default 1 here), CC, and the run-vm.sh variables.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -eu

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
cache=${KTAP_VM_CACHE:-${KTAP_BUILDDIR:-$srcdir}/tests/vm/cache}
qemu=${KTAP_VM_QEMU:-qemu-system-x86_64}
# One vCPU for the checks (the benches keep run-vm.sh's 2): the VM then
# takes one host core, leaving the other to the tests make runs beside
# it, and no guest code waits on a second vCPU the host has not run (a
# soft lockup was seen while ktap wrote kprobe_events with 2).  No check
# needs a second CPU.  Guests froze with one vCPU too: see the boot.
export KTAP_VM_SMP=${KTAP_VM_SMP:-1}

now_ms() { date +%s%3N; }
secs() { printf '%d.%01d' $(($1 / 1000)) $(($1 % 1000 / 100)); }
t_start=$(now_ms)

# KTAP_VM_GUEST: the script the guest runs (default guest-selftest.sh);
# KTAP_VM_SPECS: more mkinitramfs.sh SPECs, blank-separated (vm-ktap.sh);
# KTAP_VM_KMODS: modules the guest loads at boot, blank-separated.
guest=${KTAP_VM_GUEST:-$here/guest-selftest.sh}
# The plan is printed at the end, from the count (no guest_plan to keep up
# to date): the guest's last line "# guest checks done" tells that it ran
# to its end, so a guest that stopped early is a failure, not a short plan.

if ! command -v "$qemu" >/dev/null 2>&1; then
	echo "Bail out! $qemu not found: install qemu-system-x86 (the VM tests must run)"
	echo "vm-selftest.sh: ERROR: $qemu not found; install qemu-system-x86" >&2
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ktap-vm-selftest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $*"; }
# finish STATUS: the plan (every line printed so far), then exit.
finish() {
	echo "1..$n"
	exit "$1"
}

# One VM at a time, and none while a live test times things (locks.sh).
# shellcheck source=tests/harness/locks.sh
. "$here/../harness/locks.sh"
vm_lock

# 1. kernel
t0=$(now_ms)
if kernel=$("$here/fetch-kernel.sh" "$cache" 2> "$tmp/fetch.err"); then
	kdir=$(dirname "$kernel")
	ok "kernel fetched: $(cat "$kdir/package")"
else
	not_ok "kernel fetched"
	sed 's/^/# /' "$tmp/fetch.err"
	finish 1
fi
t_fetch=$(($(now_ms) - t0))
sed 's/^/# /' "$tmp/fetch.err"

# 2. tracefs-probe
cc=${CC:-cc}
# shellcheck disable=SC2046  # pkg-config's flags are words
if $cc -O2 -Wall -o "$tmp/tracefs-probe" "$here/tracefs-probe.c" \
	$(pkg-config --cflags --libs libtracefs libtraceevent) 2> "$tmp/cc.err"; then
	ok "tracefs-probe built (dynamically linked with libtracefs, libtraceevent)"
else
	not_ok "tracefs-probe built"
	sed 's/^/# /' "$tmp/cc.err"
	finish 1
fi

# 3. initramfs
t0=$(now_ms)
specs=("$tmp/tracefs-probe:/tests/tracefs-probe" "$guest:/tests/run-in-vm.sh")
# shellcheck disable=SC2206  # blank-separated on purpose
specs+=(${KTAP_VM_SPECS:-})
# The kernel's configuration where a Debian system has it (CONFIG_HZ ...).
if [ -f "$kdir/config" ] && [ -f "$kdir/release" ]; then
	specs+=("$kdir/config:/boot/config-$(cat "$kdir/release")")
fi
if [ -x /usr/bin/curl ]; then specs+=(/usr/bin/curl); fi
mkopts=()
for m in ${KTAP_VM_KMODS:-}; do mkopts+=(--kmod "$m"); done
if [ ${#mkopts[@]} -gt 0 ]; then mkopts+=(--kernel-dir "$kdir"); fi
if "$here/mkinitramfs.sh" "${mkopts[@]}" "$tmp/initramfs.gz" "${specs[@]}" 2> "$tmp/mk.err"; then
	ok "initramfs built ($(du -k "$tmp/initramfs.gz" | cut -f1) KiB)"
else
	not_ok "initramfs built"
	sed 's/^/# /' "$tmp/mk.err"
	finish 1
fi
t_mk=$(($(now_ms) - t0))

# 4. boot; the guest's lines follow
t0=$(now_ms)
quiet=()
if [ "${KTAP_VM_QUIET:-0}" = 1 ]; then quiet=(--quiet); fi
# A guest that froze (QEMU's timeout with no end marker) boots once
# more, saying so with where it stopped and the console's last lines:
# TCG guests of Debian's 6.1 kernel now and then froze for good (about
# 1 run in 15 on a loaded host, with 1 vCPU too), at different checks,
# with nothing on the console; a second freeze fails the check.
for attempt in 1 2; do
	rc=0
	"$here/run-vm.sh" "${quiet[@]}" --kernel "$kernel" --log "$tmp/serial.log" \
		--timeout "${KTAP_VM_TIMEOUT:-300}" "$tmp/initramfs.gz" > "$tmp/guest.out" || rc=$?
	[ "$rc" = 124 ] && [ "$attempt" = 1 ] || break
	echo "# the guest froze (QEMU killed after ${KTAP_VM_TIMEOUT:-300}s); its last lines:"
	tail -n 3 "$tmp/guest.out" | sed 's/^/#   guest: /'
	tail -n 15 "$tmp/serial.log" | sed 's/^/#   console: /'
	echo "# booting it again"
	t0=$(now_ms)
done
t_vm=$(($(now_ms) - t0))
if [ -n "${KTAP_VM_KEEP:-}" ]; then
	mkdir -p "$KTAP_VM_KEEP"
	cp "$tmp/initramfs.gz" "$tmp/serial.log" "$KTAP_VM_KEEP/"
	echo "# kept $KTAP_VM_KEEP/initramfs.gz and $KTAP_VM_KEEP/serial.log"
fi
case $rc in
124) not_ok "VM finished within ${KTAP_VM_TIMEOUT:-300}s (TIMEOUT, QEMU killed)" ;;
125) not_ok "VM finished (QEMU stopped without the end marker)" ;;
*) ok "VM booted and ran the guest checks in $(secs "$t_vm")s (guest status $rc)" ;;
esac
guest_done=
while IFS= read -r line; do
	case $line in
	'ok - '* | 'not ok - '*)
		n=$((n + 1))
		echo "${line%% - *} $n - ${line#* - }"
		;;
	'# guest checks done') guest_done=1; echo "$line" ;;
	'#'*) echo "$line" ;;
	*) echo "# guest: $line" ;;
	esac
done < "$tmp/guest.out"

boot=$(sed -n 's/^.*ktap-vm: booted, uptime \(.*\)s$/\1/p' "$tmp/serial.log")
done_=$(sed -n 's/^.*ktap-vm: done, uptime \(.*\)s$/\1/p' "$tmp/serial.log")
echo "# timing: fetch-kernel $(secs "$t_fetch")s, mkinitramfs $(secs "$t_mk")s," \
	"QEMU $(secs "$t_vm")s (guest uptime at /init ${boot:-?}s, after the checks ${done_:-?}s)," \
	"total $(secs $(($(now_ms) - t_start)))s"
if [ -z "$guest_done" ]; then
	not_ok "the guest ran to its end (no '# guest checks done' line)"
	finish 1
fi
if [ "$rc" -ne 0 ]; then finish 1; fi
finish 0
