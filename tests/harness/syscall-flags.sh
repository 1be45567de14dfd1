#!/bin/sh
# syscall-flags.sh - stap's argstr of system calls whose arguments the
# decoders of tapset/aux_syscalls_flags.stp name (TAP): the known calls of
# tests/tools/ktap-sc-flags (dup3's O_CLOEXEC, flock's LOCK_SH|LOCK_NB,
# madvise, msync, getpriority, shutdown, timerfd_create, memfd_create,
# getrandom, sync_file_range, semget ...) between its two getppid(2)
# markers, exact but for addresses; tracefs unchanged afterwards.  Root
# and tracefs only; otherwise skipped.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
SF=$KTAP_BUILDDIR/tests/tools/ktap-sc-flags

require_live "live tests need root (run make check as root)"
[ -d /sys/kernel/tracing/events/syscalls ] ||
	skip_all "no tracefs with syscall events at /sys/kernel/tracing"
require_tools "$SF" "$TFS_SNAP"

tfs_guard_begin

: >"$TMP/file"
script='global on
probe syscall.getppid { if (pid() == target()) on = !on }
probe syscall.dup3, syscall.flock, syscall.fadvise64, syscall.sync_file_range,
	syscall.preadv2, syscall.madvise, syscall.msync, syscall.getpriority,
	syscall.ioprio_get, syscall.getrusage, syscall.waitid, syscall.shutdown,
	syscall.timerfd_create, syscall.memfd_create, syscall.getrandom,
	syscall.membarrier, syscall.umount, syscall.semget {
	if (pid() == target() && on) printf("%s(%s)\n", name, argstr)
}'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "$script" -c "$SF $TMP/file"
# User strings are addresses without kprobes, their text with them:
# memfd_create's name, getrandom's (unfilled) buffer and umount's target
# are normalised as addresses are.
sed 's/0x[0-9a-f]\{5,\}/ADDR/g; s/^\(memfd_create\|getrandom\|umount\)([^,]*,/\1(ADDR,/' \
	"$TMP/out" >"$TMP/out.1"
mv "$TMP/out.1" "$TMP/out"
expect_text "argstr with stap's flag, command and number names" \
	"dup3(2, 10, O_CLOEXEC)
flock(3, LOCK_SH|LOCK_NB)
flock(3, LOCK_UN)
fadvise64(3, 0, 0, POSIX_FADV_SEQUENTIAL)
sync_file_range(3, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE)
preadv2(3, ADDR, 1, 0x0, RWF_HIPRI)
madvise(ADDR, 4096, MADV_DONTNEED)
msync(ADDR, 4096, MS_INVALIDATE|MS_SYNC)
getpriority(PRIO_PROCESS, 0)
getpriority(PRIO_USER, 0)
ioprio_get(IOPRIO_WHO_PROCESS, 0)
getrusage(RUSAGE_CHILDREN, ADDR)
waitid(P_ALL, 0, ADDR, WNOHANG|WEXITED, 0x0)
shutdown(4, SHUT_WR)
timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC|TFD_NONBLOCK)
memfd_create(ADDR, MFD_CLOEXEC|MFD_ALLOW_SEALING)
getrandom(ADDR, 16, GRND_NONBLOCK)
membarrier(MEMBARRIER_CMD_QUERY, 0)
umount(ADDR, MNT_DETACH)
semget(IPC_PRIVATE, 1, IPC_CREAT|0600)"

tfs_guard_end "tracefs is as it was before the runs"
done_testing
