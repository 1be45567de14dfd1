#!/bin/bash
# vm-ktap.sh - ktap's kernel.function() probes run for real, in the VM
# (TAP): Debian's 6.1 kernel has kprobes, kretprobes and BTF, which this
# machine's kernel lacks.  The VM plumbing is vm-selftest.sh's; this adds
# ./ktap, the tapset and ktap-tfs-snapshot to the initramfs and runs
# guest-ktap.sh inside.  Needs a built ./ktap (make check builds it).
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
. "$(cd "$(dirname "$0")" && pwd)/vm-ktap-lib.sh"
# A module for module("9p").function() (it has BTF of its own); dummy,
# nfsd, nfsv4, veth and bridge for the netdev, nfsd and netfilter tapset
# (guest-net.sh).
export KTAP_VM_KMODS="9p dummy nfsd nfsv4 veth bridge"
# One CPU running of two possible ones: task_current() reads every CPU's
# 'current' and must pick the record's (guest-ktap.sh 10b).
export KTAP_VM_SMP=${KTAP_VM_SMP:-1,maxcpus=2}
vm_extra_specs="$here/guest-tcp.sh:/tests/guest-tcp.sh $here/guest-net.sh:/tests/guest-net.sh"
vm_extra_specs="$vm_extra_specs $srcdir/tests/golden/target/nfsd.stp:/tests/nfsd-all.stp"
# The NFS client's nfs.fop.* and nfs.aop.* (guest-nfs-fop.sh, sourced by
# guest-net.sh): ktap-nfsio's file operations on the NFSv4 mount.
vm_extra_specs="$vm_extra_specs $here/guest-nfs-fop.sh:/tests/guest-nfs-fop.sh"
vm_extra_specs="$vm_extra_specs $srcdir/tests/golden/target/nfs-fop.stp:/tests/nfs-fop-all.stp"
# The NFS client's nfs.proc.* (guest-nfs-proc.sh, sourced by guest-net.sh):
# ktap-nfsproc's procedures on the NFSv4 mount.
vm_extra_specs="$vm_extra_specs $here/guest-nfs-proc.sh:/tests/guest-nfs-proc.sh"
# stap's sunrpc.* and generic.fop.* (guest-sunrpc.sh, sourced by guest-net.sh).
vm_extra_specs="$vm_extra_specs $here/guest-sunrpc.sh:/tests/guest-sunrpc.sh"
# The signal, netdev and nfsd points of stap's buildok files that 6.1
# lacks or passes on the stack (guest-sig2.sh, sourced by guest-net.sh
# last; ktap-signals' known signals).
vm_extra_specs="$vm_extra_specs $here/guest-sig2.sh:/tests/guest-sig2.sh"
# stap's vfs.do_sync_*, readv/writev, page-cache points, __vm.*.kp and
# __scheduler.*.kp (guest-vfs2.sh, sourced by guest-ktap.sh; ktap-iov
# makes the readv and writev).
vm_extra_specs="$vm_extra_specs $here/guest-vfs2.sh:/tests/guest-vfs2.sh"
# The syscall tapset's struct decoders (guest-structs.sh, sourced by
# guest-ktap.sh; ktap-sc-structs makes the calls, the target golden's
# script prints them).
vm_extra_specs="$vm_extra_specs $here/guest-structs.sh:/tests/guest-structs.sh"
vm_extra_specs="$vm_extra_specs $srcdir/tests/golden/target/syscall-structs.stp:/tests/syscall-structs.stp"
vm_ktap guest-ktap.sh ktap-tcp-stall ktap-udp ktap-nfsio ktap-nfsproc ktap-signals ktap-iov ktap-sc-structs
