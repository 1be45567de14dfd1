#!/bin/sh
# syscalls.sh - syscall.NAME probes on this machine's kernel (TAP): syscall
# tracepoints, no kprobes.  Root and tracefs only; otherwise skipped.
#
# Exact counts of getppid(2) through syscall.getppid and .return; the
# argstr of a known openat(2) with the file name shown as its address
# (no kprobes here) and the warning saying so; retstr of failing close
# and openat; syscall.lseek's variables over ktap-values; syscall.* and
# syscall.*.return by name over the known sequence of
# tests/tools/ktap-syscalls; unlinkat's and socket's stap variables
# (dfd_str, flag_str, type_str) and argstr, dup2's stap argstr; the
# struct decoders' texts here (tests/tools/ktap-sc-structs: addresses,
# NULL and "{...}" as stap shows what it cannot read); plans that stay
# on tracepoints; the two syscall examples; tracefs unchanged afterwards.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
GP=$KTAP_BUILDDIR/tests/tools/ktap-getppid
SC=$KTAP_BUILDDIR/tests/tools/ktap-syscalls
SS=$KTAP_BUILDDIR/tests/tools/ktap-sc-structs
KV=$KTAP_BUILDDIR/tests/tools/ktap-values
EX=$KTAP_SRCDIR/examples

require_live "live tests need root (run make check as root)"
[ -d /sys/kernel/tracing/events/syscalls ] ||
	skip_all "no tracefs with syscall events at /sys/kernel/tracing"
[ ! -e /sys/kernel/tracing/kprobe_events ] ||
	skip_all "this kernel has kprobes: these tests expect the tracepoint-only case (the VM tests cover kprobes)"
require_tools "$GP" "$SC" "$SS" "$KV" "$TFS_SNAP"

tfs_guard_begin

# --- counts ---
count='global c, r
probe syscall.getppid { if (pid() == target()) c++ }
probe syscall.getppid.return { if (pid() == target() && retval == ppid()) r++ }
probe end { printf("%d %d\n", c, r) }'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "$count" -c "$GP 12345"
expect_text "syscall.getppid and .return count exactly 12345 calls each" "12345 12345"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'global n; probe syscall.getppid { n++ }'
if [ "$rc" -eq 0 ] && ! grep -q kprobe_events "$TMP/out" &&
	grep -q "^write instances/ktap_\$PID/events/syscalls/sys_enter_getppid/enable '1'" "$TMP/out"; then
	ok "-p3: syscall.getppid is the sys_enter_getppid tracepoint"
else
	not_ok "-p3: syscall.getppid is the sys_enter_getppid tracepoint"
	diag_file "$TMP/out"
fi

# --- argstr and retstr over ktap-syscalls' known calls ---
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'probe syscall.openat {
	if (pid() == target()) printf("%s(%s)\n", name, argstr) }' -c "$SC $TMP/file"
sed 's/0x[0-9a-f]*/ADDR/' "$TMP/out" | grep -v '^openat(AT_FDCWD, ADDR, O_RDONLY|O_CLOEXEC)$' >"$TMP/out.1"
mv "$TMP/out.1" "$TMP/out"
expect_text "syscall.openat argstr: numbers exact, the file name shown as its address" \
	"openat(AT_FDCWD, ADDR, O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0640)
openat(AT_FDCWD, ADDR, O_RDONLY)"
sed 's/^[^:]*:[0-9]*:[0-9]*: //;q' "$TMP/err" >"$TMP/out"
expect_text "... with a warning that user strings show as addresses here" \
	"warning: variable 'filename' of syscall.openat: this kernel has no kprobes (kprobe_events), so strings and structs at user addresses in system-call arguments show as the address (0x...), as stap shows an unreadable one"

# $$parms: the call's parameters, not the syscalls event's own
# __syscall_nr (ktap-syscalls' openat of FILE for writing, mode 0640).
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'probe syscall.openat {
	if (pid() == target() && $mode) println($$parms) }' -c "$SC $TMP/file"
sed 's/filename=0x[0-9a-f]*/filename=ADDR/' "$TMP/out" >"$TMP/out.1"
mv "$TMP/out.1" "$TMP/out"
expect_text "syscall.openat \$\$parms: dfd, filename, flags, mode in hex, as stap's" \
	"dfd=0xffffff9c filename=ADDR flags=0x80241 mode=0x1a0"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'probe syscall.close.return, syscall.openat.return {
	if (pid() == target() && retval < 0) printf("%s = %s\n", name, retstr) }' \
	-c "$SC $TMP/file"
grep -v '^openat = -2 (ENOENT)$' "$TMP/out" >"$TMP/out.1" || :
grep '^openat = -2 (ENOENT)$' "$TMP/out" | tail -n 1 >>"$TMP/out.1"
mv "$TMP/out.1" "$TMP/out"
expect_text "retstr of the failing close and openat" "close = -9 (EBADF)
openat = -2 (ENOENT)"

# --- syscall.lseek: stap's fildes, offset, whence, whence_str, argstr ---
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'global a, r
probe syscall.lseek { if (pid() == target() && offset < 0 && fildes == 999) a[argstr, whence]++ }
probe syscall.lseek.return { if (pid() == target()) r[name, retstr]++ }
probe end { foreach ([s+, w] in a) printf("%s (%d): %d\n", s, w, a[s, w])
	foreach ([n, s] in r) printf("%s = %s: %d\n", n, s, r[n, s]) }' -c "$KV"
expect_text "syscall.lseek argstr (negative offsets, whence_str) and .return's retstr, exact counts" \
	"999, -1, SEEK_END (2): 1
999, -1000, SEEK_END (2): 4
999, -2, SEEK_SET (0): 2
999, -3, SEEK_CUR (1): 3
lseek = -9 (EBADF): 480"

# --- every system call: by name between the two getppid markers ---
# (Globals are named so as not to be alias locals: as in stap, a global
# called like one, e.g. n of syscall.select, would be assigned by it.)
byname='global on, calls
probe syscall.* {
	if (pid() != target()) next
	if (name == "getppid") { on = !on; next }
	if (on) calls[name, argstr]++
}
probe end { foreach ([s, a+] in calls) printf("%s(%s) %d\n", s, a, calls[s, a]) }'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "$byname" -c "$SC $TMP/file"
sed 's/0x[0-9a-f]*/ADDR/' "$TMP/out" | sort >"$TMP/out.1"
mv "$TMP/out.1" "$TMP/out"
expect_text "syscall.*: exactly the calls of ktap-syscalls, each argstr in stap's format" \
	"close(-1) 1
close(3) 1
kill(0, SIG_0) 1
openat(AT_FDCWD, ADDR, O_RDONLY) 1
openat(AT_FDCWD, ADDR, O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0640) 1
write(3, ADDR, 5) 1"

retname='global on, rets
probe syscall.*.return {
	if (pid() != target()) next
	if (name == "getppid") { on = !on; next }
	if (on) rets[name, retstr]++
}
probe end { foreach ([s, r] in rets) printf("%s = %s %d\n", s, r, rets[s, r]) }'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "$retname" -c "$SC $TMP/file"
sort "$TMP/out" >"$TMP/out.1"
mv "$TMP/out.1" "$TMP/out"
expect_text "syscall.*.return: every return with its retstr" "close = -9 (EBADF) 1
close = 0 1
kill = 0 1
openat = -2 (ENOENT) 1
openat = 3 1
write = 5 1"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'global cnt; probe syscall.* { cnt[name]++ }'
if [ "$rc" -eq 0 ] && ! grep -q "kprobe_events\|bi .*sprintf\|call " "$TMP/out" &&
	[ "$(grep -c "^write instances/ktap_\$PID/events/syscalls/sys_enter_.*/enable '1'$" "$TMP/out")" = \
	  "$(grep -c '^syscalls:sys_enter_' /sys/kernel/tracing/available_events)" ]; then
	ok "-p3: syscall.* counting by name is one tracepoint per system call, no argstr computed"
else
	not_ok "-p3: syscall.* counting by name is one tracepoint per system call, no argstr computed"
	diag_file "$TMP/out" 20
fi

# --- with kprobes (the fixture tracefs that has kprobe_events, this
#     machine's BTF): filename moves the probe to the wrapper's kprobe ---
if [ -r /sys/kernel/btf/vmlinux ] && [ "$(uname -m)" = x86_64 ]; then
	KTAP_TRACEFS=$KTAP_SRCDIR/tests/fixtures/tracefs-kprobes
	export KTAP_TRACEFS
	run_ktap "$TMP" "$TMP/out" "$TMP/err" \
		-p3 -e 'probe syscall.openat { println(filename) } probe syscall.openat { println(name) }'
	unset KTAP_TRACEFS
	if [ "$rc" -eq 0 ] && grep -qx "write kprobe_events 'p:ktap_\$PID/__x64_sys_openat_0 __x64_sys_openat regs_si=+104(%di):u64 regs_si_str=+0(+104(%di)):ustring regs_si_str_z=+u0(+104(%di)):x8'" "$TMP/out" &&
		grep -qx "write instances/ktap_\$PID/events/syscalls/sys_enter_openat/enable '1'" "$TMP/out" &&
		[ "$(grep -c kprobe_events "$TMP/out")" = 1 ]; then
		ok "-p3 with kprobes: reading filename makes a kprobe fetching the string; reading name does not"
	else
		not_ok "-p3 with kprobes: reading filename makes a kprobe fetching the string; reading name does not"
		diag_file "$TMP/out"
		diag_file "$TMP/err"
	fi
else
	skip "-p3 with kprobes" "no x86_64 kernel BTF"
fi

# --- stap's names of calls the kernel renamed: syscall.uname is
#     sys_newuname, syscall.fstat sys_newfstat, with stap's variables ---
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'probe syscall.uname {
	if (pid() == target()) printf("%s %d\n", name, argstr == sprintf("%p", name_uaddr)) }
	probe syscall.uname.return { if (pid() == target()) printf("%s = %s\n", name, retstr) }
	probe syscall.fstat { if (name != "fstat" || argstr != sprintf("%d, %p", filedes, buf_uaddr))
		println("bad fstat") }' \
	-c "uname -s"
if [ "$rc" -eq 0 ] && [ "$(cat "$TMP/out")" = "$(printf 'Linux\nuname 1\nuname = 0')" ]; then
	ok "syscall.uname (the kernel's newuname): name, name_uaddr, argstr, retstr"
else
	not_ok "syscall.uname (exit status $rc)"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi

# --- -l lists the family by stap's names: one per system call, plus
#     send and recv (stap's names of sendto/recvfrom without an address) ---
run_ktap "$TMP" "$TMP/out" "$TMP/err" -l 'syscall.*'
if [ "$rc" -eq 0 ] && grep -qx syscall.pread "$TMP/out" && ! grep -q pread64 "$TMP/out" &&
	grep -qx syscall.openat "$TMP/out" && grep -qx syscall.mmap2 "$TMP/out" &&
	for n in stat fstat lstat uname pwrite sendfile; do grep -qx "syscall.$n" "$TMP/out" || exit 1; done &&
	! grep -qE 'syscall\.(newstat|newfstat|newlstat|newuname|pwrite64|sendfile64)$' "$TMP/out" &&
	grep -qx syscall.send "$TMP/out" && grep -qx syscall.recv "$TMP/out" &&
	[ "$(wc -l <"$TMP/out")" -eq "$(($(grep -c '^syscalls:sys_enter_' /sys/kernel/tracing/available_events) + 2))" ]; then
	ok "-l 'syscall.*': one name per system call, tapset names (pread, mmap2, stat, fstat, lstat, uname, pwrite, sendfile) for theirs, send and recv"
else
	not_ok "-l 'syscall.*'"
	diag_file "$TMP/out" 20
fi

# --- a user string read directly has no fallback: a compile-time error ---
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe syscall.openat { println(user_string($filename)) }'
if [ "$rc" -eq 1 ] && grep -q "error: user_string() reads user memory at \$filename, but syscall tracepoints record only the address and this kernel has no kprobes (kprobe_events) to fetch it" "$TMP/err"; then
	ok "user_string(\$filename) in syscall.openat: an error naming the argument"
else
	not_ok "user_string(\$filename) in syscall.openat: an error naming the argument (exit $rc)"
	diag_file "$TMP/err"
fi

# --- syscall.send/recv: sendto/recvfrom without an address (x86_64 has
#     no send/recv system calls); .return pairs by @entry($addr) ---
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$KTAP_BUILDDIR/tests/tools/ktap-udp -s 2 100" -e '
probe syscall.send, syscall.recv { if (pid() == target()) printf("%s %d %s\n", name, len, flags_str) }
probe syscall.send.return, syscall.recv.return { if (pid() == target()) printf("%s %s\n", name, retstr) }'
expect_text "syscall.send/recv(.return) of ktap-udp -s: connected send() and recv()" \
	"send 100 0x0
send 100
recv 65536 0x0
recv 100
send 100 0x0
send 100
recv 65536 0x0
recv 100"

# --- the examples ---
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$SC $TMP/file" "$EX/opensnoop.stp"
sed 's/  *[0-9][0-9]* 0x[0-9a-f]* / PID ADDR /' "$TMP/out" | grep -v 'O_RDONLY|O_CLOEXEC = ' >"$TMP/out.1"
mv "$TMP/out.1" "$TMP/out"
expect_text "examples/opensnoop.stp: the two opens of ktap-syscalls" \
	"ktap-syscalls PID ADDR O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC = 3
ktap-syscalls PID ADDR O_RDONLY = -2 (ENOENT)"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$SC $TMP/file" "$EX/syscalltop.stp"
if [ "$rc" -eq 0 ] && grep -q '^getppid  *2$' "$TMP/out" &&
	grep -q '^close  *-9 (EBADF)  *1$' "$TMP/out" &&
	grep -q '^openat  *-2 (ENOENT)  *1$' "$TMP/out"; then
	ok "examples/syscalltop.stp: calls by name and errors by retstr"
else
	not_ok "examples/syscalltop.stp: calls by name and errors by retstr"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi

# --- stap's variables where they are not the tracepoint's fields ---
# rm -d is unlinkat(AT_FDCWD, DIR, AT_REMOVEDIR): stap's dfd_str and
# flag_str decoded, its pathname the address (sema_syscall_vars.def).
mkdir "$TMP/d"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "rm -d $TMP/d" -e 'probe syscall.unlinkat {
	if (pid() == target()) printf("%s %s %d %s\n", dfd_str, flag_str, pathname != 0, name) }'
expect_text "syscall.unlinkat: stap's dfd_str, flag_str and pathname" "AT_FDCWD AT_REMOVEDIR 1 unlinkat"
# ktap-udp -s's two socket(AF_INET, SOCK_DGRAM, 0): stap's argstr and
# decoders (_sock_protocol_str() takes the family too).
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$KTAP_BUILDDIR/tests/tools/ktap-udp -s 2 100" -e '
probe syscall.socket { if (pid() == target()) printf("%s(%s) %s\n", name, argstr, type_str) }'
expect_text "syscall.socket: stap's family_str, type_str, protocol_str in argstr" \
	"socket(PF_INET, SOCK_DGRAM, IPPROTO_IP) SOCK_DGRAM
socket(PF_INET, SOCK_DGRAM, IPPROTO_IP) SOCK_DGRAM"

# stap's argstr format where it is not the generic one
# (sema_syscall_argstr.def): dup2's "%d, %d" of the shell's "exec 8>&7".
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "sh -c 'exec 7>/dev/null; exec 8>&7; true'" -e '
probe syscall.dup2 { if (pid() == target() && newfd == 8) printf("%s(%s)\n", name, argstr) }'
expect_text "syscall.dup2: stap's argstr" "dup2(7, 8)"

# --- the start of a run, as in stap ---
# The -c command's first system call seen is its execve: ktap's own
# machinery before it (the child once waited for its release in a read
# whose return the trace showed, "read() = 1" with no entry, as the first
# line of SystemTap's strace.stp) is not the target's.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$GP 1" -e \
	'probe syscall.*.return { if (pid() == target()) { println(name) exit() } }'
expect_text "-c: the target's first system-call return is its execve" "execve"

# No handler runs for an event before the begin probes ended (a probe
# that fires while stap's session is starting is skipped): with getppid
# running throughout (and a begin probe that takes a while), no
# syscall.getppid handler sees a time before the one begin saw
# (SystemTap's wait4time.stp printed negative times).
"$GP" 3000000 >/dev/null &
gp_pid=$!
early='global start, n, early
probe begin { for (i = 0; i < 20000; i++) x += i; start = gettimeofday_ns() + x * 0 }
probe syscall.getppid { n++; if (gettimeofday_ns() < start) early++ }
probe timer.ms(300) { printf("%d %d\n", n > 0, early) exit() }'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -D MAXACTION=100000 -e "$early"
kill "$gp_pid" 2>/dev/null
wait "$gp_pid" 2>/dev/null
expect_text "no handler for an event before the begin probes ended" "1 0"

# --- structs in user memory (tapset/aux_syscalls_structs.stp) ---
# Without kprobes no syscall probe reads them: each decoder is what stap
# shows for a struct it cannot read (the address, NULL, sockaddr's
# "{...}"); the numbers around them exact (the script is the target
# golden's, which the VM runs for the decoded texts).
: >"$TMP/file"
run_ktap "$TMP" "$TMP/out" "$TMP/err" "$KTAP_SRCDIR/tests/golden/target/syscall-structs.stp" \
	-c "$SS $TMP/file"
sed 's/0x[0-9a-f]\{5,\}/ADDR/g' "$TMP/out" >"$TMP/out.1"
mv "$TMP/out.1" "$TMP/out"
expect_text "struct decoders without kprobes: stap's texts for what it cannot read" \
	"nanosleep(ADDR, 0x0)
nanosleep(NULL, 0x0)
rt_sigaction(SIGUSR1, {ADDR}, 0x0, 8)
rt_sigaction(SIGUSR1, {ADDR}, 0x0, 8)
rt_sigaction(SIGUSR2, {ADDR}, 0x0, 8)
rt_sigaction(SIGUSR2, {ADDR}, 0x0, 8)
connect(3, {...}, 16)
connect {...} {...} {...}
connect(4, {...}, 28)
connect {...} {...} {...}
connect(5, {...}, 110)
connect {...} {...} {...}
futex(ADDR, FUTEX_WAIT, 1, ADDR)
futex(ADDR, FUTEX_WAKE_OP, 1, 1, ADDR, {FUTEX_OP_SET, 1, FUTEX_OP_CMP_GT, 0})
setitimer(ITIMER_VIRTUAL, ADDR, 0x0)"

tfs_guard_end "tracefs is as it was before the runs"
done_testing
