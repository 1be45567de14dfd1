#!/bin/bash
# run-vm.sh [OPTIONS] INITRAMFS - boot the ktap test VM and report its result.
#
# Boots Debian's kernel (tests/vm/fetch-kernel.sh) with INITRAMFS (made by
# tests/vm/mkinitramfs.sh) in QEMU: -m 1G -smp 2 -nographic -no-reboot,
# serial console, TCG (KVM only with KTAP_VM_ACCEL=kvm).
# The serial output streams to stderr as it comes; what the guest printed
# between "=== KTAP-VM-BEGIN ===" and "=== KTAP-VM-END rc=N ===" goes to
# stdout, and run-vm.sh exits with the guest's N.
#
# Exit status:
#   N      the guest's status (the run-in-vm.sh script's)
#   1      QEMU missing, kernel not fetched, bad usage of the files
#   2      usage
#   124    timeout: QEMU killed (by its PID) after SECS seconds
#   125    QEMU stopped without the END marker (crash, panic, no script)
#
# OPTIONS
#   --timeout SECS   kill QEMU after SECS s (default $KTAP_VM_TIMEOUT or 300)
#   --kernel FILE    kernel image (default $KTAP_VM_KERNEL, else the one
#                    fetch-kernel.sh caches in $KTAP_VM_CACHE); for a FILE
#                    named vmlinuz with a vmlinux beside it (fetch-kernel.sh
#                    makes one), the vmlinux is booted, unless KTAP_VM_PVH=0
#   --share DIR      export DIR to the guest over virtio-9p (tag ktapshare),
#                    mounted on /mnt/host; the initramfs needs --9p
#   --append ARGS    extra kernel arguments
#   --log FILE       also keep the whole serial output in FILE (without
#                    carriage returns and terminal escapes)
#   --quiet          do not stream the serial output (on failure its last
#                    60 lines still go to stderr)
#   --interactive    boot with the console on this terminal, no timeout and
#                    no marker parsing; /init starts a shell after the test
#                    script (ktap.shell=1).  Quit QEMU with Ctrl-A X.
#
# Environment: KTAP_VM_CACHE (kernel cache, default tests/vm/cache in the
# build tree: $KTAP_BUILDDIR/tests/vm/cache, else next to this script),
# KTAP_VM_KERNEL, KTAP_VM_TIMEOUT, KTAP_VM_QEMU (default
# qemu-system-x86_64), KTAP_VM_ACCEL (tcg or kvm), KTAP_VM_MEM (1G),
# KTAP_VM_SMP (2), KTAP_VM_CPU (qemu64 under TCG, host under KVM).
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -eu

prog=run-vm.sh
here=$(cd "$(dirname "$0")" && pwd)
usage() {
	sed -n '2,/^$/{s/^# \{0,1\}//;p}' "$0" >&2
	exit 2
}
loud() {
	{
		echo "$prog: ##################################################"
		echo "$prog: ## $*"
		echo "$prog: ##################################################"
	} >&2
}

timeout_s=${KTAP_VM_TIMEOUT:-300}
kernel=${KTAP_VM_KERNEL:-}
share='' append='' logfile='' quiet=0 interactive=0
while [ $# -gt 0 ]; do
	case $1 in
	--timeout) [ $# -ge 2 ] || usage; timeout_s=$2; shift 2 ;;
	--timeout=*) timeout_s=${1#*=}; shift ;;
	--kernel) [ $# -ge 2 ] || usage; kernel=$2; shift 2 ;;
	--kernel=*) kernel=${1#*=}; shift ;;
	--share) [ $# -ge 2 ] || usage; share=$2; shift 2 ;;
	--share=*) share=${1#*=}; shift ;;
	--append) [ $# -ge 2 ] || usage; append=$2; shift 2 ;;
	--append=*) append=${1#*=}; shift ;;
	--log) [ $# -ge 2 ] || usage; logfile=$2; shift 2 ;;
	--log=*) logfile=${1#*=}; shift ;;
	--quiet) quiet=1; shift ;;
	--interactive) interactive=1; shift ;;
	-h | --help) usage ;;
	--) shift; break ;;
	-*) echo "$prog: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || usage
initrd=$1
case $timeout_s in '' | *[!0-9]*) echo "$prog: bad --timeout $timeout_s" >&2; exit 2 ;; esac

qemu=${KTAP_VM_QEMU:-qemu-system-x86_64}
if ! command -v "$qemu" >/dev/null 2>&1; then
	loud "$qemu NOT FOUND: the ktap VM tests cannot run. Install it (Debian: apt-get install qemu-system-x86)."
	exit 1
fi
[ -f "$initrd" ] || { echo "$prog: no initramfs $initrd" >&2; exit 1; }

if [ -z "$kernel" ]; then
	cache=${KTAP_VM_CACHE:-${KTAP_BUILDDIR:-$here/../..}/tests/vm/cache}
	kernel=$("$here/fetch-kernel.sh" "$cache") || {
		loud "cannot fetch the VM kernel into $cache"
		exit 1
	}
fi
[ -f "$kernel" ] || { echo "$prog: no kernel $kernel" >&2; exit 1; }
# fetch-kernel.sh leaves the uncompressed ELF kernel next to vmlinuz; QEMU
# boots that through the PVH entry point, about 4 s faster under TCG.
if [ "${kernel##*/}" = vmlinuz ] && [ -f "${kernel%/*}/vmlinux" ] &&
	[ "${KTAP_VM_PVH:-1}" != 0 ]; then
	kernel=${kernel%/*}/vmlinux
fi

# TCG unless asked: a /dev/kvm may exist and still not work (nested
# virtualisation in a sandbox hangs in the BIOS), and TCG is what CI has.
accel=${KTAP_VM_ACCEL:-tcg}
# -cpu max is slower and less steady under TCG than the default qemu64
# (which runs baseline x86-64 binaries, i.e. anything Debian ships).
cpu=${KTAP_VM_CPU:-}
if [ -z "$cpu" ]; then
	if [ "$accel" = kvm ]; then cpu=host; else cpu=qemu64; fi
fi

cmdline="console=ttyS0 rdinit=/init panic=-1 quiet loglevel=3 $append"
qemu_args=(-nographic -no-reboot -m "${KTAP_VM_MEM:-1G}" -smp "${KTAP_VM_SMP:-2}"
	-accel "$accel" -cpu "$cpu" -nic none -kernel "$kernel" -initrd "$initrd")
if [ -n "$share" ]; then
	[ -d "$share" ] || { echo "$prog: --share $share is not a directory" >&2; exit 1; }
	qemu_args+=(-virtfs "local,path=$share,mount_tag=ktapshare,security_model=none,id=ktapshare")
	cmdline="$cmdline ktap.share=ktapshare"
fi

if [ "$interactive" = 1 ]; then
	echo "$prog: interactive boot; quit with Ctrl-A X" >&2
	exec "$qemu" "${qemu_args[@]}" -append "$cmdline ktap.shell=1"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ktap-vm.XXXXXX")
log=$tmp/serial.log
pidfile=$tmp/qemu.pid
runner='' streamer=''

# kill_qemu: end the QEMU we started (by the PID it wrote), else the
# timeout(1) wrapping it, which passes the signal on.
kill_qemu() {
	local pid=''
	if [ -s "$pidfile" ]; then pid=$(cat "$pidfile"); fi
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.2
		done
		kill -KILL "$pid" 2>/dev/null || true
	elif [ -n "$runner" ]; then
		kill -TERM "$runner" 2>/dev/null || true
	fi
}
# shellcheck disable=SC2317  # called from the EXIT trap
cleanup() {
	if [ -n "$runner" ] && kill -0 "$runner" 2>/dev/null; then kill_qemu; fi
	if [ -n "$streamer" ]; then kill "$streamer" 2>/dev/null || true; fi
	if [ -n "$runner" ]; then wait "$runner" 2>/dev/null || true; fi
	if [ -n "$streamer" ]; then wait "$streamer" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

now_ms() { date +%s%3N; }
# Carriage returns and the terminal escapes SeaBIOS prints (reset, clear
# screen) go (GNU sed escapes).
strip='s/\r//g; s/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g'
t0=$(now_ms)
: > "$log"
# timeout(1) is the safety net should this script die without cleaning up;
# the loop below is what normally enforces --timeout.
timeout --kill-after=10 $((timeout_s + 30)) \
	"$qemu" "${qemu_args[@]}" -append "$cmdline" -pidfile "$pidfile" \
	< /dev/null > "$log" 2>&1 &
runner=$!
if [ "$quiet" = 0 ]; then
	tail -n +1 -s 0.2 -f --pid="$runner" "$log" | sed -u "$strip" >&2 &
	streamer=$!
fi

timed_out=0
while kill -0 "$runner" 2>/dev/null; do
	if [ $(($(now_ms) - t0)) -ge $((timeout_s * 1000)) ]; then
		timed_out=1
		kill_qemu
		break
	fi
	sleep 0.2
done
qrc=0
wait "$runner" || qrc=$?
runner=''
if [ -n "$streamer" ]; then
	wait "$streamer" 2>/dev/null || true
	streamer=''
fi
t1=$(now_ms)
elapsed=$(printf '%d.%03d' $(((t1 - t0) / 1000)) $(((t1 - t0) % 1000)))

# Results: the lines between the markers (carriage returns dropped).
sed "$strip" "$log" | tr -d '\000' > "$tmp/clean.log"
if [ -n "$logfile" ]; then cp "$tmp/clean.log" "$logfile"; fi
# The END marker may follow output that did not end in a newline.
status=$(sed -n 's/^.*=== KTAP-VM-END rc=\([0-9]*\) ===$/\1/p' "$tmp/clean.log" | tail -n 1)
awk '
	!inside && /=== KTAP-VM-BEGIN ===$/ { inside = 1; next }
	inside && match($0, /=== KTAP-VM-END rc=[0-9]+ ===$/) {
		if (RSTART > 1) print substr($0, 1, RSTART - 1)
		exit
	}
	inside { print }
' "$tmp/clean.log"

show_tail() {
	if [ "$quiet" = 1 ]; then
		echo "$prog: last lines of the serial console:" >&2
		tail -n 60 "$tmp/clean.log" >&2
	fi
}
if [ "$timed_out" = 1 ]; then
	show_tail
	loud "TIMEOUT: QEMU killed after ${timeout_s}s (no KTAP-VM-END marker)"
	exit 124
fi
if [ -z "$status" ]; then
	show_tail
	if grep -q '^=== KTAP-VM-BEGIN ===$' "$tmp/clean.log"; then
		loud "the guest started its tests but QEMU stopped (status $qrc) before KTAP-VM-END"
	else
		loud "QEMU stopped (status $qrc) without running the guest tests"
	fi
	exit 125
fi
echo "$prog: guest status $status, QEMU ran ${elapsed}s" >&2
[ "$status" = 0 ] || show_tail
exit "$status"
