#!/bin/sh
# guest-hist.sh - the guest half of tests/vm/capture-hist.sh (busybox sh).
#
# Sets up hist triggers of every kind ktap's hist parser (runtime/
# hist_parse.c) reads, on sched, syscall and kmem events, two kprobes and a
# synthetic event, runs a small workload, and prints each event's `hist`
# file base64-encoded between marker lines, which the host decodes into
# tests/fixtures/hist-6.1/NAME.hist:
#     === HIST NAME ===
#     ...base64...
#     === HIST-END NAME ===
# (base64, so that the serial console cannot touch tabs, trailing blanks
# or long lines).  Every trigger written is echoed as "# trigger NAME: TEXT"
# and every refused one as "# REFUSED ..." with the kernel's error_log.
# Exit status: the number of refused writes.
# The trigger texts hold the kernel's $variables: single quotes on purpose.
# shellcheck disable=SC2016
T=/sys/kernel/tracing
E=$T/events
failed=0

# add NAME FILE TEXT: append TEXT to the tracefs FILE (a trigger file,
# synthetic_events, kprobe_events) and record it for the fixture README.
add() {
	if echo "$3" >> "$2" 2> /tmp/add.err; then
		echo "# trigger $1: ${2#"$T"/} <- $3"
		return 0
	fi
	failed=$((failed + 1))
	echo "# REFUSED $1: ${2#"$T"/} <- $3: $(cat /tmp/add.err)"
	tail -n 3 $T/error_log 2> /dev/null | sed 's/^/#   error_log: /'
	return 1
}
# dump NAME FILE: FILE (a hist file) base64-encoded between the markers.
dump() {
	echo "=== HIST $1 ==="
	base64 "$2"
	echo "=== HIST-END $1 ==="
}

echo "# kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"

# --- kprobes -----------------------------------------------------------------
# $stack0 at a function's entry is its return address: a kernel text
# address for .sym-offset.  +40(%di) of vfs_read's struct file * is f_op
# in 6.1's struct file (f_u 16, f_path 16, f_inode 8): a data symbol for .sym.
add kprobe $T/kprobe_events 'p:ktaphist/ttwu try_to_wake_up caller=$stack0:x64'
add kprobe $T/kprobe_events 'p:ktaphist/vfsread vfs_read fop=+40(%di):x64 count=%dx:u64'

# --- one file, several triggers: sched_switch --------------------------------
add sched_switch $E/sched/sched_switch/trigger \
	'hist:keys=common_pid.execname:vals=hitcount:sort=hitcount.descending'
add sched_switch $E/sched/sched_switch/trigger \
	'hist:keys=next_comm:vals=hitcount:sort=next_comm'
add sched_switch $E/sched/sched_switch/trigger \
	'hist:keys=stacktrace:vals=hitcount:sort=hitcount.descending'
add sched_switch $E/sched/sched_switch/trigger \
	'hist:keys=prev_pid,prev_prio,prev_state.hex:vals=hitcount:sort=prev_pid'

# --- syscalls: .syscall, 3 keys, .log2, .buckets -----------------------------
add sys_enter $E/raw_syscalls/sys_enter/trigger \
	'hist:keys=id.syscall:vals=hitcount:sort=id'
add sys_enter $E/raw_syscalls/sys_enter/trigger \
	'hist:keys=common_pid.execname,id.syscall,common_cpu:vals=hitcount:sort=common_pid,id'
add read $E/syscalls/sys_enter_read/trigger \
	'hist:keys=count.log2:vals=hitcount:sort=count'
add read $E/syscalls/sys_enter_read/trigger \
	'hist:keys=fd,count.log2:vals=hitcount,count:sort=fd,count'
add write $E/syscalls/sys_enter_write/trigger \
	'hist:keys=count.buckets=10:vals=hitcount,count:sort=count'

# --- kmalloc: .sym, .sym-offset, .hex, 2 values, a map that drops -----------
add kmalloc $E/kmem/kmalloc/trigger \
	'hist:keys=call_site.sym:vals=bytes_req,bytes_alloc:sort=bytes_alloc.descending'
add kmalloc $E/kmem/kmalloc/trigger \
	'hist:keys=call_site.sym-offset,gfp_flags.hex:vals=hitcount,bytes_req.hex:sort=call_site'
add kmalloc $E/kmem/kmalloc/trigger \
	'hist:keys=ptr.hex:vals=hitcount:size=128'
add kmalloc $E/kmem/kmalloc/trigger \
	'hist:keys=bytes_req.buckets=64:vals=bytes_req.percent,bytes_alloc.graph:sort=bytes_req'
# A bare expression as a value: accepted, listed in vals=, never printed.
# (6.1 refuses a variable of the same trigger in vals=, e.g.
# 'hist:keys=common_pid:vals=hitcount,$waste:waste=bytes_alloc-bytes_req':
# "Couldn't find field" at $waste.)
add kmalloc $E/kmem/kmalloc/trigger \
	'hist:keys=gfp_flags.hex:vals=hitcount,bytes_alloc-bytes_req:sort=gfp_flags'

# --- kprobe fields: .sym on an argument, .sym-offset on a return address -----
add vfsread $E/ktaphist/vfsread/trigger \
	'hist:keys=fop.sym:vals=hitcount,count:sort=fop'
add ttwu $E/ktaphist/ttwu/trigger \
	'hist:keys=caller.sym-offset:vals=hitcount:sort=hitcount.descending'

# --- a paused trigger, .usecs and a __data_loc string key --------------------
add exec $E/sched/sched_process_exec/trigger \
	'hist:keys=filename:vals=hitcount:sort=filename'
add exec $E/sched/sched_process_exec/trigger \
	'hist:keys=common_timestamp.usecs:vals=hitcount'
add exec $E/sched/sched_process_exec/trigger \
	'hist:keys=common_pid:vals=hitcount'
# Stack keys with another key before and after them.
add fork $E/sched/sched_process_fork/trigger \
	'hist:keys=stacktrace,child_pid:vals=hitcount:sort=child_pid'
add fork $E/sched/sched_process_fork/trigger \
	'hist:keys=parent_comm,stacktrace:vals=hitcount'

# --- read latency: onmax().save(), onchange().save(), onmax().snapshot() ----
add read_lat $E/syscalls/sys_enter_read/trigger \
	'hist:keys=common_pid:ts0=common_timestamp.usecs'
add read_lat $E/syscalls/sys_exit_read/trigger \
	'hist:keys=common_pid:rlat=common_timestamp.usecs-$ts0:onmax($rlat).save(ret,__syscall_nr)'
add read_ret $E/syscalls/sys_exit_write/trigger \
	'hist:keys=common_pid.execname:wret=ret:onchange($wret).save(ret)'
add snapshot $E/syscalls/sys_enter_close/trigger \
	'hist:keys=common_pid:ts1=common_timestamp.usecs'
add snapshot $E/syscalls/sys_exit_close/trigger \
	'hist:keys=common_pid:clat=common_timestamp.usecs-$ts1:onmax($clat).snapshot()'

# --- wakeup latency through a synthetic event, onmatch() ---------------------
add synth $T/synthetic_events 'ktap_wakeup_lat u64 lat; pid_t pid; int prio; char comm[16]'
add synth $E/sched/sched_waking/trigger \
	'hist:keys=$saved_pid:saved_pid=pid:ts2=common_timestamp.usecs'
add synth $E/sched/sched_switch/trigger \
	'hist:keys=next_pid:wakeup_lat=common_timestamp.usecs-$ts2:onmatch(sched.sched_waking).ktap_wakeup_lat($wakeup_lat,$saved_pid,next_prio,next_comm)'
add synth $E/synthetic/ktap_wakeup_lat/trigger \
	'hist:keys=pid,prio,lat:sort=pid,lat'
add synth $E/synthetic/ktap_wakeup_lat/trigger \
	'hist:keys=comm,lat.log2:vals=hitcount,lat:sort=comm,lat'

# --- workload ----------------------------------------------------------------
for n in 0 1 2 3 4 5 7 8 9 15 16 17 31 32 33 100 1000 4096 5000 65536; do
	dd if=/dev/zero of=/dev/null bs=$n count=3 2> /dev/null
done
for n in 1 2 3 9 10 11 19 20 25 99; do
	head -c $n /etc/passwd > /dev/null
	printf "%${n}s" x > /dev/null
done
for i in 1 2 3 4 5 6; do
	ls -R $E > /dev/null 2>&1
	sleep 0.05
	cat /etc/hostname /proc/self/status > /dev/null
done
# A hundred distinct short-lived processes: enough pids and kmallocs to fill
# the size=128 map.
i=0
while [ $i -lt 40 ]; do
	/bin/true
	i=$((i + 1))
done

add exec $E/sched/sched_process_exec/trigger \
	'hist:keys=common_pid:vals=hitcount:pause'

# --- results -----------------------------------------------------------------
for e in sched/sched_switch raw_syscalls/sys_enter syscalls/sys_enter_read \
	syscalls/sys_enter_write kmem/kmalloc ktaphist/vfsread ktaphist/ttwu \
	sched/sched_process_exec sched/sched_process_fork syscalls/sys_exit_read syscalls/sys_exit_write \
	syscalls/sys_exit_close synthetic/ktap_wakeup_lat sched/sched_waking; do
	dump "$(echo "$e" | tr / -)" $E/$e/hist
done

exit $failed
