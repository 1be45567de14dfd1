#!/bin/sh
# guest-stacks.sh - the guest half of tests/vm/vm-stacks.sh: stack traces
# on Debian's 6.1 kernel.  Where the `stacktrace` trigger of an event in
# an instance writes its kernel_stack record (it must be that instance's
# buffer, never the top-level one, which belongs to whoever else traces),
# and ktap's print_backtrace() there.  One unnumbered TAP line per check
# (vm-selftest.sh numbers them) and guest_done last.

. /tests/guest-lib.sh
TR=/sys/kernel/tracing
EV=events/syscalls/sys_enter_getppid
top_entries() { cat $TR/per_cpu/cpu*/stats | awk '/^entries:/ { n += $2 } END { print n + 0 }'; }

# 1. the trigger by hand, in an instance of our own
mkdir $TR/instances/probe
top0=$(top_entries)
echo stacktrace >$TR/instances/probe/$EV/trigger
echo 1 >$TR/instances/probe/$EV/enable
ktap-getppid 3
echo 0 >$TR/instances/probe/$EV/enable
echo '!stacktrace' >$TR/instances/probe/$EV/trigger
inst=$(grep -c '<stack trace>' $TR/instances/probe/trace)
top=$(grep -c '<stack trace>' $TR/trace)
top1=$(top_entries)
rmdir $TR/instances/probe
if [ "$inst" -ge 3 ] && [ "$top" -eq 0 ] && [ "$top0" = "$top1" ]; then
	ok "6.1: the stacktrace trigger writes into the event's instance ($inst stacks there, none in the top-level buffer)"
else
	not_ok "6.1: stacktrace trigger: $inst stacks in the instance, $top in the top-level buffer ($top0 -> $top1 entries)"
	grep -m 12 -A6 'getppid' $TR/trace | diag /dev/stdin
fi

ktap-tfs-snapshot >$T/before
top0=$(top_entries)

# 2. ktap: 3 calls, 3 stacks from the probe point (syscall_trace_enter:
#    the trigger's ftrace_syscall_enter frame dropped) to the syscall entry
run -e 'probe kernel.trace("syscalls:sys_enter_getppid") {
	if (tid() == target()) { print_backtrace(); println("--") } }' -c "ktap-getppid 3"
sed 's/^ 0x[0-9a-f]* : \([A-Za-z0-9_.]*\)+0x[0-9a-f]*\/0x[0-9a-f]* \[kernel\]$/\1/' $T/out |
	tr '\n' ' ' | sed 's/ -- /\n/g' >$T/names
if [ "$rc" -eq 0 ] && [ "$(wc -l <$T/names)" -eq 3 ] && [ "$(sort -u $T/names | wc -l)" -eq 1 ] &&
	grep -q '^syscall_trace_enter[a-z0-9.]* .*do_syscall_64 entry_SYSCALL_64_after_hwframe$' $T/names; then
	ok "6.1: print_backtrace(): 3 identical stacks ($(head -n 1 $T/names))"
else
	not_ok "6.1: print_backtrace() (exit status $rc)"
	diag $T/out $T/err
fi

# 3. nothing in the top-level buffer
top1=$(top_entries)
if [ "$top0" = "$top1" ]; then
	ok "6.1: ktap's stacks left the top-level buffer alone ($top1 entries)"
else
	not_ok "6.1: top-level buffer entries $top0 -> $top1"
fi

# 4. tracefs as found
ktap-tfs-snapshot >$T/after
if cmp -s $T/before $T/after; then
	ok "6.1: tracefs unchanged after the stack runs"
else
	not_ok "6.1: tracefs changed"
	diff $T/before $T/after | diag /dev/stdin
fi
guest_done
