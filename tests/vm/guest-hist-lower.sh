#!/bin/sh
# guest-hist-lower.sh - the guest half of tests/vm/vm-hist-lower.sh:
# aggregations lowered to hist triggers on the 6.1 kernel (issue 12).
#
# Runs as /tests/run-in-vm.sh (busybox sh).  Each script runs twice over
# the same deterministic workload (ktap-values: known values in read's
# count, lseek's signed offset, task_rename's comm strings): lowered
# (-v must say its probes run in the kernel) and with --no-lower (the
# user-space reference path); the two outputs must be byte-identical.
# Then a getppid flood counted by execname: exact count, and the records
# ktap handled (crossing to user space) under 1% of the events.
# tracefs must be the same before and after all the runs.
# shellcheck disable=SC2034  # read by vm-selftest.sh
guest_plan=31

. /tests/guest-lib.sh

# same NAME SCRIPT: lowered and --no-lower runs print the same.
same() {
	printf '%s\n' "$2" >$T/$1.stp
	bounded 60 ktap -v -c ktap-values $T/$1.stp >$T/low 2>$T/low.err
	lrc=$?
	bounded 60 ktap --no-lower -c ktap-values $T/$1.stp >$T/ref 2>$T/ref.err
	rrc=$?
	if [ "$lrc" -eq 0 ] && [ "$rrc" -eq 0 ] && grep -q "runs in the kernel" $T/low.err &&
		! grep -q "runs in user space" $T/low.err && [ -s $T/ref ] && cmp -s $T/low $T/ref; then
		ok "$1: lowered and --no-lower print the same ($(wc -l <$T/ref) lines)"
	else
		not_ok "$1: lowered (exit $lrc) and --no-lower (exit $rrc) differ"
		echo "# lowered:"; diag $T/low
		echo "# --no-lower:"; diag $T/ref
		echo "# lowered stderr:"; diag $T/low.err
		echo "# --no-lower stderr:"; diag $T/ref.err
	fi
}

# The "before" state is taken after a first run with an enabled event:
# kernel 6.1 allocates the top-level buffer at its full size the first
# time any event is enabled, instances included (as guest-ktap.sh).
bounded 60 ktap --no-lower -e 'global n probe kernel.trace("syscalls:sys_enter_getppid") { n++ }' \
	-c "ktap-getppid 1" >/dev/null 2>&1
ktap-tfs-snapshot >$T/before

same count-execname-field 'global c
probe kernel.trace("syscalls:sys_enter_lseek") { if ($fd != 999) next; c[execname(), $whence]++ }
probe end { foreach ([e, w+] in c) printf("%s %d %d\n", e, w, c[e, w]) }'

same sums-avg 'global s, t, k3
probe kernel.trace("syscalls:sys_enter_lseek") { if ($fd != 999) next; s[$whence] += $offset; k3[$whence] += 3 }
probe kernel.trace("syscalls:sys_enter_read") { if ($fd != 999) next; t <<< $count }
probe end { foreach (w+ in s) printf("%d %d %d\n", w, s[w], k3[w])
	printf("%d %d %d\n", @count(t), @sum(t), @avg(t)) }'

same hist-log-min-max 'global h
probe kernel.trace("syscalls:sys_enter_lseek") { if ($fd != 999) next; h <<< $offset }
probe end { print(@hist_log(h)); printf("%d %d %d %d\n", @count(h), @min(h), @max(h), @avg(h)) }'

same hist-log-unsigned 'global h
probe kernel.trace("syscalls:sys_enter_read") { if ($fd != 999) next; h[$fd] <<< $count }
probe end { foreach (f in h) { print(@hist_log(h[f])); printf("%d %d\n", @min(h[f]), @max(h[f])) } }'

same hist-linear 'global l
probe kernel.trace("syscalls:sys_enter_lseek") { if ($fd != 999) next; l <<< $offset }
probe end { print(@hist_linear(l, 0, 100, 10)) }'

same sorted-limit-multikey 'global m
probe kernel.trace("syscalls:sys_enter_lseek") { if ($fd != 999) next; m[$whence, $offset]++ }
probe end { foreach ([w, o+] in m limit 12) printf("%d %d %d\n", w, o, m[w, o]) }'

# (task_rename's own guard stays in user space: process tracking reads
# every record of its events, lower_plan.c's lw_tracked().)
same string-key 'global f
probe kernel.trace("sched:sched_process_exit") { if ($comm != "kv-x") next; f[$comm, $prio]++ }
probe end { foreach ([k, p] in f) printf("%s %d %d\n", k, p, f[k, p]) }'

same tid-pid-scalar 'global a, b, n
probe kernel.trace("syscalls:sys_enter_read") { if ($fd != 999) next; a[tid()]++; b[pid()] += $count; n++ }
probe end { foreach (k in a) printf("%d %d\n", k == target(), a[k])
	foreach (k in b) printf("%d %d\n", k == target(), b[k]); printf("%d\n", n) }'

same value-expression 'global e, p, q
probe kernel.trace("syscalls:sys_enter_lseek") { if ($fd != 999) next; e[$whence] += $offset - $whence; p[$whence] += $offset + 7 }
probe kernel.trace("syscalls:sys_enter_read") { if ($fd != 999) next; q <<< $count + $fd }
probe end { foreach (w+ in e) printf("%d %d %d\n", w, e[w], p[w]); printf("%d %d\n", @sum(q), @avg(q)) }'

same if-block 'global c, x
probe kernel.trace("syscalls:sys_enter_lseek") { if ($fd == 999 && $whence != 1) { c[execname(), $whence]++; x <<< $offset } }
probe end { foreach ([e, w+] in c) printf("%s %d %d\n", e, w, c[e, w]); printf("%d %d\n", @count(x), @min(x)) }'

same timer-reads 'global c
probe kernel.trace("syscalls:sys_enter_lseek") { if ($fd != 999) next; c[$whence]++ }
probe timer.ms(100) { x = 0; foreach (w in c) x += c[w] }
probe end { foreach (w+ in c) printf("%d %d\n", w, c[w]) }'

# Aggregation by kernel stack: the hist's stacktrace key (a perf event
# held open makes it start at the probe point, as the stacktrace
# trigger's stacks do from there), read back to backtrace()'s addresses.
same stack-count 'global a
probe kernel.trace("syscalls:sys_enter_read") { if ($fd != 999) next; a[backtrace()]++ }
probe end { foreach (k in a- limit 5) { print_stack(k); printf("%d\n", a[k]) } }'

same stack-hex-execname 'global a
probe kernel.trace("syscalls:sys_enter_lseek") { if ($fd != 999) next; a[execname(), backtrace()]++ }
probe end { foreach ([e, k] in a) printf("%s %s %d\n", e, k, a[e, k]) }'

same stack-stat 'global s
probe kernel.trace("syscalls:sys_enter_read") { if ($fd != 999) next; s[backtrace()] <<< $count }
probe end { foreach (k in s) { print(sprint_stack(k)); printf("%d %d\n", @count(s[k]), @sum(s[k])) } }'

same stack-exit 'global a
probe kernel.trace("sched:sched_process_exit") { if ($comm != "kv-x") next; a[backtrace()]++ }
probe end { foreach (k in a) { print_stack(k); printf("%s %d\n", k, a[k]) } }'

same stack-timer 'global a
probe kernel.trace("syscalls:sys_enter_read") { if ($fd != 999) next; a[backtrace()]++ }
probe timer.ms(50) { x = 0; foreach (k in a) x += a[k] }
probe end { foreach (k in a) printf("%s %d\n", k, a[k]) }'

# The flame-graph one-liner over the getppid flood: every call counted
# under its stack, in the kernel; with kallsyms hidden (kptr_restrict=2)
# the lowered run refuses to start, saying why, and leaves tracefs alone.
printf '%s\n' 'global a
probe kernel.trace("syscalls:sys_enter_getppid") { a[backtrace()]++ }
probe end { foreach (k in a- limit 1) printf("%d\n", a[k]) }' >$T/stackflood.stp
bounded 100 ktap -v -c "ktap-getppid 200000" $T/stackflood.stp >$T/out 2>$T/err
rc=$?
echo 200000 >$T/want
expect "stack flood: 200000 getppid calls counted under one kernel stack in the kernel"
handled=$(sed -n 's/^Pass 5: handled \([0-9]*\) events, \([0-9]*\) lost.*$/\1 \2/p' $T/err)
set -- $handled
if [ -n "$handled" ] && [ $(($1 + $2)) -lt 2000 ]; then
	ok "stack flood: $1 records handled and $2 lost in user space (< 1% of 200000)"
else
	not_ok "stack flood: records crossing to user space: '$handled'"
	diag $T/err
fi
echo 2 >/proc/sys/kernel/kptr_restrict
bounded 60 ktap -c "ktap-getppid 3" $T/stackflood.stp >$T/out 2>$T/err
rc=$?
echo 0 >/proc/sys/kernel/kptr_restrict
if [ "$rc" -ne 0 ] && [ ! -s $T/out ] &&
	grep -q "^ERROR: a is keyed by kernel stacks.*hides the addresses.*run with --no-lower$" $T/err; then
	ok "stack key with kallsyms hidden: refused, saying why"
else
	not_ok "stack key with kallsyms hidden (exit status $rc)"
	diag $T/out $T/err
fi

# A hist that fills up is never silent: 192 distinct offsets into a map
# of 128 (the kernel's least), an array of 100.
printf '%s\n' 'global a[100]
probe kernel.trace("syscalls:sys_enter_lseek") { if ($fd != 999) next; a[$offset]++ }
probe end { printf("%d\n", 1) }' >$T/full.stp
bounded 60 ktap -c ktap-values $T/full.stp >$T/out 2>$T/err
rc=$?
if [ "$rc" -eq 0 ] && grep -q "^WARNING: the kernel's hist of a on syscalls:sys_enter_lseek was full: [1-9][0-9]* events dropped (size=128;" $T/err &&
	grep -q "^WARNING: 28 entries of the kernel's hist of a did not fit in the array" $T/err; then
	ok "a full hist: Dropped and the array's overflow are warnings with counts"
else
	not_ok "a full hist (exit status $rc)"
	diag $T/err
fi

# The flood: 200,000 getppid calls, counted in the kernel.
printf '%s\n' 'global c
probe kernel.trace("syscalls:sys_enter_getppid") { c[execname()]++ }
probe end { foreach (k in c) printf("%s %d\n", k, c[k]) }' >$T/flood.stp
bounded 100 ktap -v -c "ktap-getppid 200000" $T/flood.stp >$T/out 2>$T/err
rc=$?
echo "ktap-getppid 200000" >$T/want
expect "getppid flood: 200000 counted by execname in the kernel"
handled=$(sed -n 's/^Pass 5: handled \([0-9]*\) events, \([0-9]*\) lost.*$/\1 \2/p' $T/err)
set -- $handled
if [ -n "$handled" ] && [ $(($1 + $2)) -lt 2000 ]; then
	ok "getppid flood: $1 records handled and $2 lost in user space (< 1% of 200000)"
else
	not_ok "getppid flood: records crossing to user space: '$handled'"
	diag $T/err
fi

# The same through syscall_any: its name = syscall_name($id) is the
# filter id == 110 of the hist trigger (lower_bind.c, lower_fold.c).
printf '%s\n' 'global c
probe syscall_any { if (name == "getppid") c[execname()]++ }
probe end { foreach (k in c) printf("%s %d\n", k, c[k]) }' >$T/anyflood.stp
bounded 100 ktap -v -c "ktap-getppid 200000" $T/anyflood.stp >$T/out 2>$T/err
rc=$?
grep '^ktap-getppid ' $T/out >$T/out.g
mv $T/out.g $T/out
echo "ktap-getppid 200000" >$T/want
expect "syscall_any name == \"getppid\" flood: 200000 counted by execname in the kernel"
handled=$(sed -n 's/^Pass 5: handled \([0-9]*\) events, \([0-9]*\) lost.*$/\1 \2/p' $T/err)
set -- $handled
if [ -n "$handled" ] && [ $(($1 + $2)) -lt 2000 ] &&
	grep -q 'kernel: *name == "getppid"  \[as syscall_name(\$id) == "getppid"\]  ->  id == 110$' $T/err; then
	ok "syscall_any flood: $1 records handled and $2 lost in user space, filter id == 110"
else
	not_ok "syscall_any flood: records crossing to user space: '$handled'"
	diag $T/err
fi

same syscall-any-name 'global c
probe syscall_any { if (name != "lseek" || tid() != target()) next; c[execname()]++ }
probe end { foreach (k in c) printf("%s %d\n", k, c[k]) }'

# An alias's prologue read through: the keys are the locals it binds
# (a field, a constant string), "s <<< 1" a statistic whose every value
# is 1 (no value column); tid(), pid() and execname() share one
# common_pid column.
same prologue-keys 'global c, t
probe myread = kernel.trace("syscalls:sys_enter_read") { fd = $fd; n = $count; what = "read" }
probe myread { if (fd != 999) next; c[what, n] <<< 1; t[tid(), pid(), execname()] <<< 1 }
probe end { foreach ([w, n+] in c limit 8) printf("%s %d %d %d %d\n", w, n, @count(c[w, n]), @sum(c[w, n]), @max(c[w, n]))
	foreach ([a, b, e] in t) { printf("%d %d %s %d\n", a == target(), b == target(), e, @count(t[a, b, e])); print(@hist_log(t[a, b, e])) } }'

# Nine keys in three columns (common_pid, fd, count) and two constants.
same nine-keys 'global arr
probe kernel.trace("syscalls:sys_enter_read") { if ($fd != 999) next; arr[tid(), pid(), execname(), $fd, tid(), "x", pid(), 1, $count] <<< 1 }
probe end { foreach ([a, b, c, d, e, f, g, h, i+] in arr limit 6) printf("%d %d %s %d %d %s %d %d %d %d\n", a == target(), b == target(), c, d, e == a, f, g == b, h, i, @count(arr[a, b, c, d, e, f, g, h, i])) }'

# Values the kernel computes before summing or keying them (the value
# hop: a hist variable passed to a synthetic event): products, and a
# difference read exactly (stap's kmalloc-waste shape), signed.
same value-hop 'global b, s, w, x
probe kernel.trace("syscalls:sys_enter_read") { if ($fd != 999) next; b[tid(), pid()] += $count * 3; s <<< $count * $fd }
probe kernel.trace("syscalls:sys_enter_lseek") { if ($fd != 999) next; w <<< $offset - $whence; x[execname(), "k"] <<< $whence * 2 + 1 }
probe end { foreach ([t, p] in b) printf("%d %d %d\n", t == target(), p == target(), b[t, p])
	printf("%d %d %d\n", @count(s), @sum(s), @avg(s))
	print(@hist_log(w)); printf("%d %d %d\n", @min(w), @max(w), @sum(w))
	foreach ([e, k] in x) printf("%s %s %d %d\n", e, k, @count(x[e, k]), @sum(x[e, k])) }'

# syscall_any's name as a key: the hist keys on the number, named when
# read (numbers with one name add up).
same syscall-name-key 'global c
probe syscall_any { if (tid() != target()) next; c[name] <<< 1 }
probe end { foreach (n+ in c) if (n == "read" || n == "lseek" || n == "getppid") printf("%s %d\n", n, @count(c[n])) }'

# 6.1's hists have no common_comm key: the kernel, asked in an instance
# of ktap's own (tfs_probe.c), says no; the instance is gone after.
if bounded 60 ktap --save-target $T/saved 2>$T/err &&
	grep -q "^features=.*hist" $T/saved/ktap-target &&
	! grep -q "hist_common_comm" $T/saved/ktap-target; then
	ok "--save-target: hist, no hist_common_comm"
else
	not_ok "--save-target: hist, no hist_common_comm"
	diag $T/err $T/saved/ktap-target
fi

ktap-tfs-snapshot >$T/after
if cmp -s $T/before $T/after; then
	ok "tracefs as before the runs"
else
	not_ok "tracefs changed"
	diff $T/before $T/after | diag
fi
guest_done
