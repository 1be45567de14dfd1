#!/bin/sh
# tapset-fns-live.sh - issue 13's tapset functions on the live kernel
# (TAP, root): probe_type(), user_mode(), is_return() and pn() on
# uprobes and their returns (tests/tools/ktap-uprobe-target's handle())
# and on system-call tracepoints and their returns; jiffies() between
# the values /proc/timer_list shows before and after; the stack
# functions over backtrace(); print_ubacktrace_brief() and umodname()
# (also of an address no symbol covers)
# over a uprobe's user stack; user_mode(), addr() and uaddr() in
# timer.profile ticks.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
UT=$KTAP_BUILDDIR/tests/tools/ktap-uprobe-target
DL=$KTAP_BUILDDIR/tests/tools/ktap-dlopen
VD=$KTAP_BUILDDIR/tests/tools/ktap-vdso

require_live "live tests need root (run make check as root)"
require_tools "$UT" "$DL" "$VD" "$TFS_SNAP"
tfs_guard_begin

# 1. Once per point: its kind, user mode, return; the alias names.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$UT" -e '
global seen
function show(name) {
	if (pid() == target() && !seen[name]++)
		printf("%s %s %d %d\n", name, probe_type(), user_mode(), is_return())
}
probe process("'"$UT"'").function("handle") { show("handle") }
probe process("'"$UT"'").function("handle").return { show("handle.return") }
probe syscall.write { show(pn()) }
probe syscall.write.return { show(pn()) }
probe syscall_any.return { show(pn()) }
probe kernel.trace("raw_syscalls:sys_enter") { show("sys_enter") }'
grep -v -e '^[0-9]* [0-9]$' -e '^seen\[' "$TMP/out" | sort >"$TMP/got"	# the target prints "SUM N"; autoprint
cat >"$TMP/want" <<'EOW'
handle uprobe 1 0
handle.return uretprobe 1 1
sys_enter tracepoint 0 0
syscall.write tracepoint 0 0
syscall.write.return tracepoint 0 1
syscall_any.return tracepoint 0 1
EOW
expect_same "probe_type/user_mode/is_return: uprobe, uretprobe, tracepoints, .return aliases" \
	"$TMP/want" "$TMP/got"

# 2. jiffies() in begin: between /proc/timer_list's before and after (one
# jiffy of slack each way: the file's jiffies lag its "now" by < 1 tick).
before=$(awk '/^jiffies:/ { print $2; exit }' /proc/timer_list)
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'probe begin { println(jiffies()); exit() }'
after=$(awk '/^jiffies:/ { print $2; exit }' /proc/timer_list)
j=$(cat "$TMP/out")
if [ "$rc" -eq 0 ] && [ -n "$j" ] && [ "$j" -ge $((before - 1)) ] && [ "$j" -le $((after + 1)) ]; then
	ok "jiffies(): $before <= $j <= $after (+-1)"
else
	not_ok "jiffies(): $before <= '$j' <= $after (+-1), exit status $rc"
	diag_file "$TMP/err"
fi

# 3. callers(), stack(), caller_addr(), caller(), modname() over the
# recorded kernel stack of a system call's tracepoint.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$KTAP_BUILDDIR/tests/tools/ktap-getppid 3" -e '
probe kernel.trace("syscalls:sys_enter_getppid") {
	if (pid() != target()) next
	b = backtrace()
	printf("%d %d %d %d %d %s %d\n", callers(-1) == b, callers(0) == tokenize(b, " "),
	       stack(1) == strtol(tokenize("", " "), 16), caller_addr() == stack(1),
	       caller() == sprintf("%s 0x%x", symname(stack(1)), stack(1)), modname(stack(0)),
	       callers(1) == sprintf("0x%x 0x%x", stack(0), stack(1)))
	exit()
}'
expect_text "callers(), stack(), caller_addr(), caller(), modname() agree with backtrace()" \
	"1 1 1 1 1 kernel 1"

# 4. print_ubacktrace_brief(): print_ubacktrace()'s frames as
# "name+0xoff"; umodname() of a frame: the program's path.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$UT" -e '
probe process("'"$UT"'").function("handle") {
	print_ubacktrace_brief(); println("--"); print_ubacktrace()
	println(umodname(strtol(tokenize(ubacktrace(), " "), 16)))
	exit()
}'
grep -v '^[0-9]* [0-9]$' "$TMP/out" >"$TMP/got"
sed -n '/^--$/,$p' "$TMP/got" | sed '1d;$d' | sed 's/^ 0x[0-9a-f]* : //; s|/0x.*||' >"$TMP/want"
echo -- >>"$TMP/want"
sed -n '/^--$/,$p' "$TMP/got" | sed '1d' >>"$TMP/want"
if [ "$(tail -n 1 "$TMP/got")" = "$UT" ] && [ -s "$TMP/want" ]; then
	expect_same "print_ubacktrace_brief(): print_ubacktrace()'s names and offsets; umodname()" \
		"$TMP/want" "$TMP/got"
else
	not_ok "umodname() of handle's frame is $UT (exit status $rc)"
	diag_file "$TMP/got"
fi

# 5. timer.profile on a command that loops on getppid(): ticks in user
# code (user_mode(): addr() is uaddr(), in a file of the process) and in
# the kernel (addr() in the kernel, uaddr() where the call entered it).
cat >"$TMP/prof.stp" <<'EOS'
global um, km, bad
probe timer.profile {
	if (pid() != target()) next
	if (backtrace() == "") next	# a tick whose stack was not recorded
	if (user_mode()) {
		um++
		if (uaddr() != addr() || addr() == 0 || umodname(addr()) == "") bad++
	} else {
		km++
		if (addr() == 0 || modname(addr()) != "kernel" || uaddr() == 0) bad++
	}
}
probe end {
	printf("user ticks %s, kernel ticks %s, inconsistent %d\n", um ? "yes" : "no",
	       km ? "yes" : "no", bad)
}
EOS
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$KTAP_BUILDDIR/tests/tools/ktap-getppid 3000000" prof.stp
expect_text "timer.profile: user_mode(), addr(), uaddr(), modname()/umodname() of the tick" \
	"user ticks yes, kernel ticks yes, inconsistent 0"

# 6. umodname() of an address no symbol covers (the stripped shell's own
# code: usymdata() is "0xADDR [FILE+0xOFF/0xSIZE]"): the file only.
cat >"$TMP/umod.stp" <<'EOS'
global files, ticks
probe timer.profile {
	if (pid() != target() || !user_mode() || backtrace() == "") next
	ticks++
	m = umodname(uaddr())
	files[isinstr(m, "+0x") ? m : substr(m, 0, 1) == "/" ? "a path" : m]++
}
probe end {
	foreach (f in files)
		printf("%s\n", f)
	printf("ticks %s\n", ticks ? "yes" : "no")
}
EOS
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "sh -c 'i=0; while [ \$i -lt 1000000 ]; do i=\$((i+1)); done'" umod.stp
expect_text "umodname() of an address without a symbol: the module's path, without +OFF/SIZE" \
	"a path
ticks yes"

# 7. A library mapped after ktap first saw the process (its getppid()
# event read the maps): umodname() of an address in it reads them again
# (it said "no module known" when the first read was before the dlopen()).
cat >"$TMP/dl.stp" <<EOS
probe syscall.getppid { if (pid() == target()) printf("getppid\n") }
probe process("$DL").function("found") {
	m = umodname(\$fn)
	printf("%s %s\n", substr(m, strlen(m) - 9, 9), usymdata(\$fn) == "" ? "no" : "usymdata")
}
EOS
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$DL 300" dl.stp
expect_text "umodname() of an address in a library dlopen()ed after the process was first seen" \
	"getppid
libm.so.6 usymdata"

# 8. A system call made from the vDSO (clock_gettime()'s fallback for a
# clock it does not serve): its user address is in the [vdso] mapping,
# which no file backs; umodname() is the vDSO's soname and usymname()
# its function (it was "no module known"), as stap's vma_vdso test asks.
# The program exits at once (no pause): ktap, which decodes the events
# after that, read its maps while ptrace held it at its exit.
cat >"$TMP/vdso.stp" <<'EOS'
probe syscall.clock_gettime, syscall.getuid {
	if (pid() == target())
		printf("%s %s %s\n", name, umodname(uaddr()), usymname(uaddr()))
}
EOS
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$VD 0" vdso.stp
sed -i 's| /[^ ]*/libc.so.6 | libc.so.6 |' "$TMP/out"
expect_text "umodname() and usymname() of a system call made from the vDSO" \
	"clock_gettime linux-vdso.so.1 __vdso_clock_gettime
getuid libc.so.6 getuid"

tfs_guard_end "tracefs as before"
done_testing
