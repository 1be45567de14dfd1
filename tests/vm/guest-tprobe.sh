#!/bin/sh
# guest-tprobe.sh - the guest half of tests/vm/vm-tprobe.sh: tracepoint
# arguments that a tracepoint's record does not hold, read by ktap's
# tracepoint probe event (t:) on Debian's 6.12 kernel.
#
# Runs as /tests/run-in-vm.sh (busybox sh); one unnumbered TAP line per
# check, guest_done last.  Values are checked against what the guest
# knows (pids, the program run, its arguments), and tracefs must be the
# same before and after the runs.
. /tests/guest-lib.sh

if grep -q 't\[:\[<group>/\]\[<event>\]\] <tracepoint>' /sys/kernel/tracing/README; then
	ok "the kernel ($(uname -r)) has tracepoint probe events"
else
	not_ok "the kernel ($(uname -r)) has no tracepoint probe events: the VM booted the wrong kernel"
	guest_done
fi

# A first run: the kernel's one-time allocation of the top-level buffer
# (see guest-ktap.sh) is not ktap's to undo.
run -e 'probe kernel.trace("sched_switch") { exit() }' -c "sleep 0.1"
ktap-tfs-snapshot >$T/before

# 1. -p3: sched_switch records prev's pid, not its tgid: one t: event,
#    shared by the script's two probes that need it (the kernel takes
#    one per tracepoint), reads it from the argument ($arg2 is prev),
#    beside the record's copies the script reads ($prev_pid), read from
#    the arguments too, and nothing else but next_pid (ktap's own filter).
run -p3 -e 'probe kernel.trace("sched_switch") { println(task_pid($prev)) }
	probe kernel.trace("sched_switch") { println($next->tgid, $prev_pid) }'
if [ "$rc" -eq 0 ] && [ "$(grep -c "^write dynamic_events 't:" $T/out)" = 1 ] &&
	grep "^write dynamic_events 't:ktap_\$PID/sched_switch_t sched_switch prev_pid=+[0-9]*(\$arg2):s32 " $T/out |
	grep " prev_tgid=+[0-9]*(\$arg2):s32" | grep -q " next_tgid=+[0-9]*(\$arg3):s32"; then
	ok "-p3: task_pid(\$prev) and \$next->tgid in sched_switch: one t: event, +OFF(\$arg2):s32"
else
	not_ok "-p3 of the tprobe (exit status $rc)"
	diag $T/out $T/err
fi

# 2. the threads of ktap-getppid -t 3: each is switched in and out (at
#    its exit at least) with its own pid and the process's tgid, which
#    task_pid($prev) reads too; the second probe shares the event.  (A
#    switch from or to ktap itself is not recorded: a thread is seen in
#    one of its two switches at least.)
run -e 'global thr, nthr, bad
probe kernel.trace("sched_switch") {
	if ($prev->tgid == target()) {
		if ($prev->pid != target() && !($prev->pid in thr)) { thr[$prev->pid] = 1; nthr++ }
		bad += task_pid($prev) != target() || task_tid($prev) != $prev_pid
	} }
probe kernel.trace("sched_switch") {
	if ($next->tgid == target() && $next->pid != target() && !($next->pid in thr)) {
		thr[$next->pid] = 1; nthr++ } }
probe end { printf("%d %d\n", nthr, bad) }' -c "ktap-getppid -t 3 2000"
echo "3 0" >$T/want
expect "sched_switch: \$prev->tgid of ktap-getppid's 3 threads is its pid, and task_pid(\$prev)"

# 3. sched_process_exec records the file name, not the binprm: its
#    argument count, and the task's tgid, come through the arguments;
#    the file name read through $bprm equals the record's copy.
run -e 'probe kernel.trace("sched_process_exec") {
	if (pid() == target()) printf("%s %d %d %d %d\n", kernel_string($bprm->filename),
	    $bprm->argc, $p->tgid == pid(), $old_pid == pid(),
	    kernel_string($bprm->filename) == $filename) }' \
	-c "/bin/sleep 0.1 0.1"
echo "/bin/sleep 3 1 1 1" >$T/want
expect "sched_process_exec: \$bprm->filename and ->argc of /bin/sleep 0.1 0.1, \$p->tgid"

# 4. task_current() in a tracepoint probe reads 'current' through the
#    tprobe (guest-ktap.sh has it through an eprobe on 6.1): in
#    sched_switch it is $prev.
run -e 'probe kernel.trace("sched_switch") {
	if ($prev_pid != 0) { printf("%d %d\n", task_current() == $prev,
	   @cast(task_current(), "task_struct")->pid == $prev_pid); exit() } }' -c "sleep 0.3"
echo "1 1" >$T/want
expect "task_current() in sched_switch (a tprobe) is \$prev"

# 5. an aggregation keyed by a tracepoint argument's member stays in the
#    kernel: a hist trigger on the tprobe's event (-p3), whose counts
#    are ktap-getppid's switches out.
script='global c
probe kernel.trace("sched_switch") { if ($prev->tgid == target()) c[$prev->tgid] <<< 1 }
probe end { foreach (k in c) printf("%d %d\n", k == target(), @count(c[k]) > 0) }'
run -p3 -e "$script"
if [ "$rc" -eq 0 ] && grep -q "^write instances/ktap_\$PID/events/ktap_\$PID/sched_switch_t/trigger 'hist:keys=prev_tgid" $T/out; then
	ok "-p3: c[\$prev->tgid] <<< 1 is a hist trigger on the tprobe's event"
else
	not_ok "-p3: hist trigger on the tprobe (exit status $rc)"
	diag $T/out $T/err
fi
run -e "$script" -c "ktap-getppid -t 2 2000"
echo "1 1" >$T/want
expect "c[\$prev->tgid] <<< 1 in the kernel: ktap-getppid's switches"

# 6. @defined() of an argument's member the record lacks is 1 where a
#    tprobe reads it, 0 for a member the type does not have.
run -p2 -e 'probe kernel.trace("sched_switch") {
	printf("%d %d\n", @defined($prev->tgid), @defined($prev->no_such_member)) }'
if [ "$rc" -eq 0 ] && grep -q 'printf("%d %d\\n", 1, 0)' $T/out; then
	ok "@defined(\$prev->tgid) is 1, @defined(\$prev->no_such_member) 0"
else
	not_ok "@defined() with tprobes (exit status $rc)"
	diag $T/out $T/err
fi

# 7. reads through @entry() values at a function's return: the kernel's
#    return probes fetch $argN (6.10+), the arguments the kretprobe saved
#    at the entry, so the kretprobe itself reads through them at the
#    return, as stap reads there; a parameter ($dfd) is $argN too, with
#    no entry probe to pair.
if grep -q 'return probes support: \$retval, \$arg<N>' /sys/kernel/tracing/README; then
	ok "the kernel's return probes fetch \$argN"
else
	not_ok "the kernel's README does not list \$argN for return probes"
fi
run -p3 -e 'probe kernel.function("do_sys_openat2").return {
	printf("%s %d\n", user_string(@entry(pointer_arg(2))), $dfd) }'
if [ "$rc" -eq 0 ] && ! grep -q "^write kprobe_events 'p:" $T/out &&
	grep "^write kprobe_events 'r[0-9]*:ktap_\$PID/do_sys_openat2_0 do_sys_openat2 " $T/out |
	grep "=+0(\$arg2):ustring" | grep -q "dfd=\$arg1:s32"; then
	ok "-p3: user_string(@entry(pointer_arg(2))) and \$dfd at the return: +0(\$arg2), \$arg1, no entry probe"
else
	not_ok "-p3 of reads through @entry() at the return (exit status $rc)"
	diag $T/out $T/err
fi
f=/tests/guest-lib.sh
run -e 'global n, sz
probe kernel.function("do_sys_openat2").return {
	if (pid() == target() && user_string(@entry(pointer_arg(2)), "?") == "'$f'") n += $return >= 0 }
probe kernel.function("vfs_read").return {
	if (pid() == target() && $return > 0) sz = @cast(@entry($file), "file")->f_inode->i_size }
probe end { printf("%d %d\n", n, sz) }' -c "md5sum $f >/dev/null"
echo "1 $(wc -c <$f)" >$T/want
expect "md5sum's open of $f and its size, read through @entry() values at the returns"

# 8. nothing left behind
ktap-tfs-snapshot >$T/after
if cmp -s $T/before $T/after; then
	ok "tracefs is as it was before the runs"
else
	not_ok "tracefs changed"
	diff $T/before $T/after | diag
fi
guest_done
