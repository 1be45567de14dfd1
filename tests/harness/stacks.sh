#!/bin/sh
# stacks.sh - stack traces on this machine's kernel (TAP): kernel stacks
# from the stacktrace trigger on a syscall tracepoint, user stacks from
# the userstacktrace option in a uprobe of tests/tools/ktap-uprobe-target
# (known call chain main -> walk), their string forms and symbol
# functions, stap's line for a probe without a stack, and tracefs (and
# the top-level ring buffer, where nothing may land) left as found.
# Root, tracefs and uprobe events only; otherwise the file is skipped.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

GP=$KTAP_BUILDDIR/tests/tools/ktap-getppid
T=$KTAP_BUILDDIR/tests/tools/ktap-uprobe-target
TR=/sys/kernel/tracing
TP='kernel.trace("syscalls:sys_enter_getppid")'

require_live "stack tests need root (run make check as root)"
[ -d $TR/events/syscalls ] || skip_all "no syscall events at $TR"
[ -w $TR/uprobe_events ] || skip_all "this kernel has no uprobe events"
require_tools "$GP" "$T" "$TFS_SNAP"
LIBC=$(readlink -f "$(ldd "$T" | sed -n 's/.*libc\.so\.6 => \([^ ]*\) .*/\1/p')")
SRC=$(basename "$T").c

tfs_guard_begin
# the top-level buffer's records: the trigger must write into ktap's instance
top_entries() { cat $TR/per_cpu/cpu*/stats | awk '/^entries:/ { n += $2 } END { print n + 0 }'; }
top_before=$(top_entries)

# 1. print_backtrace(): one stack per call of the -c child (3 calls),
#    each the same, from the probe point (the tracepoint's caller: the
#    trigger's frames of the tracing code, ftrace_syscall_enter and
#    __traceiter_sys_enter, are dropped) down to the syscall entry.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$GP 3" -e \
	"probe $TP { if (tid() == target()) { print_backtrace(); println(\"--\") } }"
sed 's/^ 0x[0-9a-f]* : \([A-Za-z0-9_.]*\)+0x[0-9a-f]*\/0x[0-9a-f]* \[kernel\]$/\1/' \
	"$TMP/out" | tr '\n' ' ' | sed 's/ -- /\n/g' >"$TMP/names"
if [ "$rc" -eq 0 ] && [ "$(wc -l <"$TMP/names")" -eq 3 ] &&
	[ "$(sort -u "$TMP/names" | wc -l)" -eq 1 ] &&
	grep -q '^syscall_trace_enter[a-z0-9.]* .*do_syscall_64 entry_SYSCALL_64_after_hwframe$' "$TMP/names"; then
	ok "print_backtrace(): 3 identical kernel stacks ending in the syscall entry ($(head -n 1 "$TMP/names"))"
else
	not_ok "print_backtrace() (exit status $rc)"
	diag_file "$TMP/out"
	explain "$TMP/err"
fi

# 1b. A tracepoint with several callbacks (here signal_generate) is called
#    through its iterator, whose frame is tracing code too: the stack of
#    the SIGCHLD the -c child's exit sends starts at the probe point.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$GP 1" -e \
	'probe kernel.trace("signal:signal_generate") { if (pid() == target()) { print_backtrace(); exit() } }'
first=$(sed -n '1s/^ 0x[0-9a-f]* : \([A-Za-z0-9_.]*\)+.*/\1/p' "$TMP/out")
if [ "$rc" -eq 0 ] && [ "$first" = __send_signal_locked ] &&
	! grep -q 'trace_event_raw_event_\|__traceiter_' "$TMP/out"; then
	ok "a tracepoint's stack starts at the probe point, not in the tracing code ($first)"
else
	not_ok "signal_generate's stack (exit status $rc, first frame '$first')"
	diag_file "$TMP/out"
	explain "$TMP/err"
fi

# 2. backtrace() is print_backtrace()'s addresses, hex, a space after
#    each; sprint_backtrace() its "sym+0xoff [kernel]" lines; symdata()
#    and symname() of an address as print_backtrace() prints it.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$GP 1" -e \
	"probe $TP { if (tid() == target()) {
		print_backtrace(); println(\"--\"); bt = backtrace(); println(bt); print(sprint_backtrace())
		a = strtol(tokenize(bt, \" \"), 16); println(symdata(a)); println(symname(a))
		print_stack(bt); print(sprint_stack(bt)) } }"
n=$(sed -n '/^--$/{=;q}' "$TMP/out")
n=$((${n:-1} - 1))
full=$(head -n "$n" "$TMP/out")
hex=$(printf '%s\n' "$full" | sed 's/^ \(0x[0-9a-f]*\) : .*/\1 /' | tr -d '\n')
simple=$(printf '%s\n' "$full" | sed 's/^ 0x[0-9a-f]* : \(.*+0x[0-9a-f]*\)\/0x[0-9a-f]* \(\[kernel\]\)$/\1 \2/')
data1=$(printf '%s\n' "$full" | sed -n '1s/^ 0x[0-9a-f]* : //p')
name1=${data1%%+*}
printf '%s\n--\n%s\n%s\n%s\n%s\n%s\n%s\n' "$full" "$hex" "$simple" "$data1" "$name1" "$full" "$full" >"$TMP/want"
if [ "$n" -ge 2 ]; then
	expect_same "backtrace(), sprint_backtrace(), symdata(), symname(), print_stack(), sprint_stack() agree with print_backtrace()" "$TMP/want" "$TMP/out"
else
	not_ok "no kernel stack to compare (exit status $rc)"
	explain "$TMP/err"
fi

# 3. print_ubacktrace() at walk's loop body: walk <- main <- libc, in the
#    program and libc, once per iteration (3), exact symbols.
wline=$(grep -n 'walk: loop body' "$KTAP_SRCDIR/tests/tools/ktap-uprobe-target.c" | cut -d: -f1)
walk="process(\"$T\").statement(\"walk@$SRC:$wline\")"
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -c "$T" -e "probe $walk { print_ubacktrace(); println(\"--\") }"
sed 's/^ 0x[0-9a-f]* : \([A-Za-z0-9_.]*\)+0x[0-9a-f]*\/0x[0-9a-f]* \[\(.*\)\]$/\1 \2/' "$TMP/out" >"$TMP/got"
for _ in 1 2 3; do printf 'walk %s\nmain %s\n__libc_start_call_main %s\n--\n' "$T" "$T" "$LIBC"; done >"$TMP/want"
cp "$TMP/got" "$TMP/out"
expect_same "print_ubacktrace(): walk, main, __libc_start_call_main with their files, 3 times" "$TMP/want" "$TMP/out"

# 4. ubacktrace(), sprint_ubacktrace(), usymname(), usymdata(),
#    print_ustack() and sprint_ustack() agree with print_ubacktrace().
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -c "$T" -e "probe $walk {
	print_ubacktrace(); bt = ubacktrace(); println(bt); print(sprint_ubacktrace())
	a = strtol(tokenize(bt, \" \"), 16); println(usymdata(a)); println(usymname(a))
	print_ustack(bt); print(sprint_ustack(bt)); exit() }"
full=$(head -n 3 "$TMP/out")
hex=$(printf '%s\n' "$full" | sed 's/^ \(0x[0-9a-f]*\) : .*/\1 /' | tr -d '\n')
simple=$(printf '%s\n' "$full" | sed 's/^ 0x[0-9a-f]* : \(.*+0x[0-9a-f]*\)\/0x[0-9a-f]* \[.*\/\(.*\)\]$/\1 [\2]/')
data1=$(printf '%s\n' "$full" | sed -n '1s/^ 0x[0-9a-f]* : //p')
printf '%s\n%s\n%s\n%s\nwalk\n%s\n%s\n' "$full" "$hex" "$simple" "$data1" "$full" "$full" >"$TMP/want"
expect_same "ubacktrace(), sprint_ubacktrace(), usymdata(), usymname(), print_ustack(), sprint_ustack() agree" "$TMP/want" "$TMP/out"

# 5. a probe without an event has no stack: stap's lines, empty strings.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'probe begin { print_backtrace(); print_ubacktrace(); printf("[%s][%s]\n", backtrace(), ubacktrace()); exit() }'
printf '<no kernel backtrace at begin>\n<no user backtrace at begin>\n[][]\n' >"$TMP/want"
expect_same "begin: <no kernel backtrace at begin>, empty backtrace()" "$TMP/want" "$TMP/out"

# 6. a stack for every handled event, and only the trigger's: the kernel
#    filter is the trigger's filter, so 2000 calls give 2000 stacks.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$GP 2000" -e \
	"global n, s; probe $TP { if (tid() != target()) next; n++; if (backtrace() != \"\") s++ } probe end { printf(\"%d %d\n\", n, s) }"
echo "2000 2000" >"$TMP/want"
expect_same "2000 calls, 2000 events, 2000 with a kernel stack" "$TMP/want" "$TMP/out"

# 7. user stacks of a process that has exited when its records are read
#    (ktap reads ~10 ms late; the target lives ~20 ms more): its maps were
#    cached at first sight, and the -c child is gone at the end probe.
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -c "$T" -e \
	"global s; probe process(\"$T\").function(\"nap\") { s = sprint_ubacktrace() } probe end { print(s) }"
sed 's/+0x[0-9a-f]*//' "$TMP/out" >"$TMP/got"
printf 'nap [%s]\nmain [%s]\n__libc_start_call_main [%s]\n' "$(basename "$T")" "$(basename "$T")" "$(basename "$LIBC")" >"$TMP/want"
cp "$TMP/got" "$TMP/out"
expect_same "sprint_ubacktrace() in nap(), printed after the process exited" "$TMP/want" "$TMP/out"

# 8. at a function's entry the caller is there too (the uprobe fetches
#    the return address the kernel's frame-pointer walk misses), also
#    in a recursion: fact(4) -> fact(3) -> fact(2) -> fact(1)
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -c "$T" -e \
	"probe process(\"$T\").function(\"fact\") { print(sprint_ubacktrace()); println(\"--\") }"
sed 's/+0x[0-9a-f]* \[.*\]$//' "$TMP/out" | tr '\n' ' ' | sed 's/ -- /\n/g' >"$TMP/got"
cat >"$TMP/want" <<'EOW'
fact main __libc_start_call_main
fact fact main __libc_start_call_main
fact fact fact main __libc_start_call_main
fact fact fact fact main __libc_start_call_main
EOW
cp "$TMP/got" "$TMP/out"
expect_same "print_ubacktrace() at fact()'s entry, recursing: the caller of each call" "$TMP/want" "$TMP/out"

# 9. -p3: only the entry probe fetches the return address
run_ktap "$TMP" "$TMP/out" "$TMP/err" -v -p3 -e \
	"probe process(\"$T\").function(\"fact\"), $walk { print_ubacktrace() }"
if [ "$rc" -eq 0 ] && [ "$(grep -c "^write uprobe_events 'p:ktap_\$PID/fact_[0-9]* $T:0x[0-9a-f]* __ktap_ra=+0(%sp):u64'\$" "$TMP/out")" -eq 1 ] &&
	[ "$(grep -c '__ktap_ra' "$TMP/out")" -eq 1 ] &&
	grep -q "^write instances/ktap_\$PID/options/userstacktrace '1'\$" "$TMP/out" &&
	[ "$(grep -c 'userstacktrace option: at most 8 frames, plus the return address' "$TMP/err")" -eq 1 ]; then
	ok "-p3: the userstacktrace option; __ktap_ra=+0(%sp) on the entry uprobe only; -v says so (8 frames)"
else
	not_ok "-p3 of user stacks (exit status $rc)"
	diag_file "$TMP/out"
	explain "$TMP/err"
fi

# 10. kernel stacks are variable length: the record's size field, not
#     the format's caller[8] (kmalloc in the -c child's execve: 11 frames
#     here, through prepare_creds; up to 17 seen).  -D MAXSTRINGLEN: the
#     deepest stack's text can pass the default 512 bytes, and the check
#     reads its last frame.
if [ -d $TR/events/kmem/kmalloc ]; then
	run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -D MAXSTRINGLEN=4096 -c "$GP 1" -e \
		'global mx, best; probe kernel.trace("kmem:kmalloc") { if (tid() != target()) next
		 s = sprint_backtrace(); n = 0; t = tokenize(s, "\n")
		 while (t != "") { n++; t = tokenize("", "\n") }
		 if (n > mx) { mx = n; best = s } } probe end { printf("%d\n%s", mx, best) }'
	n=$(head -n 1 "$TMP/out")
	if [ "$rc" -eq 0 ] && [ "${n:-0}" -gt 8 ] &&
		tail -n 1 "$TMP/out" | grep -q '^entry_SYSCALL_64_after_hwframe+0x[0-9a-f]* \[kernel\]$'; then
		ok "a kernel stack of $n frames (more than caller[8]), down to the syscall entry"
	else
		not_ok "no kernel stack longer than 8 frames (exit status $rc)"
		diag_file "$TMP/out"
		explain "$TMP/err"
	fi
else
	skip "long kernel stacks" "no kmem:kmalloc event"
fi

# 11. kptr_restrict=2 hides kallsyms' addresses even from root: the
#     frames print as hex and ktap says why, once (not once per frame)
kr=$(cat /proc/sys/kernel/kptr_restrict)
at_exit 'echo "$kr" >/proc/sys/kernel/kptr_restrict'
if echo 2 >/proc/sys/kernel/kptr_restrict 2>/dev/null; then
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$GP 2" -e \
		"probe $TP { if (tid() == target()) print_backtrace() }"
	echo "$kr" >/proc/sys/kernel/kptr_restrict
	if [ "$rc" -eq 0 ] && [ "$(grep -c 'kernel addresses are hidden' "$TMP/err")" -eq 1 ] &&
		[ "$(wc -l <"$TMP/out")" -ge 2 ] &&
		! grep -qv '^ 0x[0-9a-f]*$' "$TMP/out"; then
		ok "kptr_restrict=2: hex frames and one warning ($(head -n 1 "$TMP/err" | cut -c1-60)...)"
	else
		not_ok "kptr_restrict=2 (exit status $rc)"
		diag_file "$TMP/out"
		explain "$TMP/err"
	fi
else
	skip "kptr_restrict=2" "cannot write /proc/sys/kernel/kptr_restrict"
fi

tfs_guard_end "tracefs unchanged: instance, trigger and option removed"
top_after=$(top_entries)
if [ "$top_before" = "$top_after" ]; then
	ok "nothing written to the top-level ring buffer ($top_after entries before and after)"
else
	not_ok "the top-level ring buffer got records: $top_before -> $top_after entries"
fi
done_testing
