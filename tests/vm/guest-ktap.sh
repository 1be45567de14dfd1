#!/bin/sh
# guest-ktap.sh - the guest half of tests/vm/vm-ktap.sh: ktap's
# kernel.function() probes on a kernel with kprobes and BTF.
#
# Runs as /tests/run-in-vm.sh (busybox sh) and prints one unnumbered TAP
# line per check (vm-selftest.sh numbers them and plans from the count)
# and guest_done last.  Every check compares exact values with what the guest itself
# knows (file names, sizes, inode numbers, errno values), and tracefs
# must be the same before and after all the runs.
. /tests/guest-lib.sh

# 1. entry, a user string argument.  The first kprobe run after boot is
# tried twice: in one CI run on a loaded host (TCG), and once here with
# three busy loops beside the VM, that run alone printed the string 8
# bytes late ("tname" for /etc/hostname) while every later run in the
# same VM read it right; the cause is not found yet (the plan is the
# same in every run; see issue 13's notes).  The first attempt's output
# stays in the TAP output when it is wrong.
first_open() {
	run -e 'probe kernel.function("do_sys_openat2") {
	if (pid() == target()) printf("%s\n", user_string($filename)) }' -c "cat /etc/hostname"
	[ "$rc" -eq 0 ] && grep -qx /etc/hostname $T/out
}
if first_open || { echo "# first attempt (exit status $rc):"; diag $T/out $T/err; first_open; }; then
	ok "do_sys_openat2: user_string(\$filename) of cat's open is /etc/hostname"
else
	not_ok "do_sys_openat2 filename (exit status $rc)"
	diag $T/out $T/err
fi

# The "before" state is taken after a first run: kernel 6.1 allocates
# the top-level buffer at its full size (buffer_size_kb "7 (expanded:
# 1408)" becomes "1410") the first time any event is enabled, instances
# included.  That is the kernel's one-time allocation, not a setting
# ktap changed; every later run must leave everything as it was.
ktap-tfs-snapshot >$T/before

# 2. a plain integer argument
run -e 'probe kernel.function("vfs_read") {
	if (pid() == target() && $count == 123) n++ } global n
	probe end { printf("%d\n", n) }' -c "dd if=/etc/hostname of=/dev/null bs=123 count=1"
echo 1 >$T/want
expect "vfs_read: \$count is dd's block size (123), exactly once"

# 3. a member chain through two pointers, from BTF (dd, because
#    busybox cat copies with sendfile, not read)
ino=$(stat -c %i /etc/hostname)
run -e 'probe kernel.function("vfs_read") {
	if (pid() == target()) { printf("%d\n", $file->f_inode->i_ino); exit() } }' \
	-c "dd if=/etc/hostname of=/dev/null bs=4 count=1"
echo "$ino" >$T/want
expect "vfs_read: \$file->f_inode->i_ino is the inode of /etc/hostname ($ino)"

# 3b. the tapset's d_name() of a dentry, fetched through its parameter
#     (issue 13): vfs.open's $path->dentry and vfs_read's
#     $file->f_path->dentry of /etc/hostname
run -e 'probe vfs.open { if (pid() == target()) printf("open %s\n", d_name($path->dentry)) }
	probe kernel.function("vfs_read") {
	if (pid() == target()) { printf("read %s\n", d_name($file->f_path->dentry)); exit() } }' \
	-c "dd if=/etc/hostname of=/dev/null bs=4 count=1"
grep -x 'open hostname\|read hostname' $T/out | sort -u >$T/out.1
mv $T/out.1 $T/out
printf 'open hostname\nread hostname\n' >$T/want
expect "d_name(): the basename of /etc/hostname's dentry, from vfs.open and vfs_read"

# 4. a return value: ENOENT
run -e 'probe kernel.function("do_sys_openat2").return {
	if (pid() == target() && $return < 0) printf("%d\n", $return) }' \
	-c "cat /no/such/file"
if grep -qx -- -2 $T/out; then
	ok "do_sys_openat2.return: \$return of a missing file is -2 (ENOENT)"
else
	not_ok "do_sys_openat2.return (exit status $rc)"
	diag $T/out $T/err
fi

# 5. kretprobe and kprobe together: bytes read equal to the request
run -e 'global want
	probe kernel.function("vfs_read") { if (pid() == target()) want = $count }
	probe kernel.function("vfs_read").return {
		if (pid() == target() && $return > 0) { printf("%d %d\n", want, $return); exit() } }' \
	-c "dd if=/etc/hostname of=/dev/null bs=3 count=1"
echo "3 3" >$T/want
expect "vfs_read entry and return: asked 3 bytes, read 3"

# 5b. @entry in a kretprobe: the request paired with the result
run -e 'probe kernel.function("vfs_read").return {
	if (pid() == target() && $return > 0) { printf("%d %d\n", @entry($count), $return); exit() } }' \
	-c "dd if=/etc/hostname of=/dev/null bs=5 count=1"
echo "5 5" >$T/want
expect "vfs_read.return: @entry(\$count) is the entry's 5"

# 5c. $var$ on a kernel struct, members from BTF
run -e 'probe kernel.function("vfs_read") { if (pid() == target()) { printf("%s\n", $file->f_path$); exit() } }' \
	-c "dd if=/etc/hostname of=/dev/null bs=5 count=1"
if [ "$rc" -eq 0 ] && grep -qx '{.mnt=0x[0-9a-f]*, .dentry=0x[0-9a-f]*}' $T/out; then
	ok "\$file->f_path\$ prints struct path's members"
else
	not_ok "pretty printing (exit status $rc)"
	diag $T/out $T/err
fi

# 5d. a module's function, types from the module's own BTF
run -L 'module("9p").function("v9fs_vfs_lookup")'
out1=$(cat $T/out)
run -T 1 -e 'probe module("9p").function("v9fs_vfs_lookup") { print($dir) }'
if [ "$rc" -eq 0 ] && [ "$out1" = 'module("9p").function("v9fs_vfs_lookup") $dir:struct inode * $dentry:struct dentry * $flags:unsigned int' ]; then
	ok "module(\"9p\").function(): -L from the module's BTF, and a run arms and ends"
else
	not_ok "module probe (exit status $rc): $out1"
	diag $T/err
fi

# 6. -l: wildcards against available_filter_functions
run -l 'kernel.function("vfs_rea*")'
if [ "$rc" -eq 0 ] && grep -qx 'kernel.function("vfs_read")' $T/out; then
	ok "-l kernel.function(\"vfs_rea*\") lists vfs_read"
else
	not_ok "-l (exit status $rc)"
	diag $T/out $T/err
fi

# 7. -L: parameters with BTF types
run -L 'kernel.function("vfs_read")'
echo 'kernel.function("vfs_read") $file:struct file * $buf:char * $count:size_t $pos:loff_t *' >$T/want
expect "-L kernel.function(\"vfs_read\"): parameters and types"

# 8. a function kprobes refuse: the first of the kprobe blacklist that
#    BTF describes (so that ktap gets as far as asking the kernel)
bl=
for f in $(awk '{ print $2 }' /sys/kernel/debug/kprobes/blacklist 2>/dev/null | head -300); do
	if ktap -l "kernel.function(\"$f\")" >/dev/null 2>&1; then
		bl=$f
		break
	fi
done
if [ -z "$bl" ]; then
	not_ok "kprobe blacklist readable"
else
	run -e "probe kernel.function(\"$bl\") { exit() }"
	if [ "$rc" -eq 1 ] && grep -q "^ERROR: <input>:1:7: kernel.function(\"$bl\"): the kernel refused the probe" $T/err; then
		ok "blacklisted $bl: the refusal names the probe"
	else
		not_ok "blacklisted $bl (exit status $rc)"
		diag $T/err
	fi
fi

# 9. a function that does not exist
run -e 'probe kernel.function("no_such_function_ktap") { }'
if [ "$rc" -eq 1 ] && grep -q 'error: no kernel function "no_such_function_ktap"' $T/err; then
	ok "a missing function: a located compile-time error"
else
	not_ok "missing function (exit status $rc)"
	diag $T/err
fi

# 10. -p3 of a kretprobe: maxactive is stap's KRETACTIVE default,
#     max(15, 6 * possible CPUs), or -D KRETACTIVE=N
ncpu=$(awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-"); c += n == 2 ? r[2] - r[1] + 1 : 1 } } END { print c }' /sys/devices/system/cpu/possible)
kret=$((6 * ncpu))
[ "$kret" -lt 15 ] && kret=15
run -p3 -e 'probe kernel.function("vfs_read").return { print($return) }'
if [ "$rc" -eq 0 ] && grep -q "^write kprobe_events 'r$kret:ktap_\$PID/vfs_read_0 vfs_read ret=\$retval:s64'" $T/out; then
	ok "-p3: the kretprobe definition, maxactive $kret for $ncpu possible CPUs"
else
	not_ok "-p3 kretprobe (exit status $rc), want r$kret:"
	diag $T/out $T/err
fi
run -p3 -D KRETACTIVE=77 -e 'probe kernel.function("vfs_read").return { print($return) }'
if [ "$rc" -eq 0 ] && grep -q "^write kprobe_events 'r77:ktap_\$PID/vfs_read_0 vfs_read" $T/out; then
	ok "-p3 -D KRETACTIVE=77: r77:"
else
	not_ok "-D KRETACTIVE (exit status $rc)"
	diag $T/out $T/err
fi

# 10b. @entry of any expression in a kretprobe: the entry's own clock
run -e 'global n, bad
	probe kernel.function("vfs_read").return {
		if (pid() == target() && @entry($count) == 1) {
			n++; lat = gettimeofday_ns() - @entry(gettimeofday_ns())
			if (lat <= 0 || @entry(tid()) != tid()) bad++ } }
	probe end { printf("%d reads, %d bad\n", n, bad) }' \
	-c "dd if=/etc/hostname of=/dev/null bs=1 count=5"
echo "5 reads, 0 bad" >$T/want
expect "vfs_read.return: @entry(gettimeofday_ns()) before every return of dd's 5 reads"

# 10c. kretprobe instances: 4 concurrent sleeps (busybox sleep ->
#      hrtimer_nanosleep, 1 s each).  maxactive(1): one instance, so at
#      least 3 returns are missed and stap's warning says how many.
#      Only the -c shell's sleeps: bounded() polls with sleeps of its own.
sleeps="sleep 1 & sleep 1 & sleep 1 & sleep 1 & wait"
nap='global n
	probe kernel.function("hrtimer_nanosleep").return { if (execname() == "sleep" && ppid() == target()) n++ }
	probe end { printf("%d\n", n) }'
run -e "$(printf "%s\n" "$nap" | sed 's/\.return/&.maxactive(1)/')" -c "$sleeps"
missed=$(sed -n "s/^WARNING: Skipped due to missed kretprobe\/1 on 'kernel.function(\"hrtimer_nanosleep\").return': \([0-9]*\)\$/\1/p" $T/err)
if [ "$rc" -eq 0 ] && [ "${missed:-0}" -ge 3 ] && [ "$(cat $T/out)" -le 1 ] &&
	grep -q "^WARNING: Number of errors: 0, skipped probes: $missed\$" $T/err; then
	ok "maxactive(1), 4 concurrent sleeps: $missed missed returns reported"
else
	not_ok "maxactive(1) misses (exit status $rc, missed '$missed')"
	diag $T/out $T/err
fi
run -e "$nap" -c "$sleeps"
echo 4 >$T/want
if grep -q "missed\|skipped" $T/err; then
	not_ok "default maxactive: no missed returns"
	diag $T/err
else
	ok "default maxactive: no missed returns"
fi
expect "default maxactive ($kret): all 4 returns"

# 10b. The tapset with kprobes: the '!' aliases take their kprobes
#      (alloc_bprm for exec, since do_execveat_common is inlined in
#      6.1; do_exit for the exit code; release_task; schedule_tail),
#      and the tracepoints in their 6.1 layouts.  (busybox ls exits
#      with 1 for a missing directory: code 1 << 8.)  The scripts print
#      pids as [N], renamed [P1], [P2] ... in order of appearance.
norm() {
	awk '{
		out = ""
		while (match($0, /\[[0-9]+\]/)) {
			n = substr($0, RSTART + 1, RLENGTH - 2)
			if (!(n in id)) id[n] = "P" (++k)
			out = out substr($0, 1, RSTART) id[n] "]"
			$0 = substr($0, RSTART + RLENGTH)
		}
		print out $0
	}' "$1"
}
cat >$T/kp.stp <<'EOS'
global ours
probe begin { ours[target()] = 1 }
probe kprocess.create {
	if (pid() in ours) {
		ours[new_pid] = 1
		printf("create by [%d]: new_pid [%d] new_tid [%d]\n", pid(), new_pid, new_tid)
	}
}
probe kprocess.start { if (pid() in ours && tid() != target()) printf("start [%d]\n", tid()) }
probe kprocess.exec { if (pid() in ours) printf("exec [%d] %s %s\n", pid(), name, filename) }
probe kprocess.exec_complete {
	if (pid() in ours)
		printf("exec_complete [%d] %s errno %d success %d\n", pid(), execname(), errno, success)
}
probe kprocess.exit { if (pid() in ours) printf("exit [%d] %s code %d\n", pid(), execname(), code) }
probe kprocess.release {
	if (released_pid in ours)
		printf("release [%d] [%d] %s\n", released_pid, released_tid, task ? "task" : "no task")
}
EOS
run -w -c "/bin/sh -c '/bin/ls /no/such/dir 2>/dev/null; exec /bin/sleep 0.2'" $T/kp.stp
norm $T/out >$T/got
cat >$T/want <<'EOW'
exec [P1] execve "/bin/sh"
exec_complete [P1] sh errno 0 success 1
create by [P1]: new_pid [P2] new_tid [P2]
start [P2]
exec [P2] execve "/bin/ls"
exec_complete [P2] ls errno 0 success 1
exit [P2] ls code 256
release [P2] [P2] task
exec [P1] execve "/bin/sleep"
exec_complete [P1] sleep errno 0 success 1
exit [P1] sleep code 0
EOW
mv $T/got $T/out
expect "tapset kprocess.* with kprobes: exec file names, busybox ls's exit code 256 (status 1), release"

cat >$T/sig.stp <<'EOS'
global ours
probe begin { ours[target()] = 1 }
probe kprocess.create { if (pid() in ours) ours[new_pid] = 1 }
probe scheduler.process_fork { if (parent_pid in ours) printf("fork [%d] -> [%d]\n", parent_pid, child_pid) }
probe scheduler.process_exit { if (pid in ours) printf("process_exit [%d]\n", pid) }
probe signal.send {
	if (pid() in ours || sig_pid in ours)
		printf("send %s %d from [%d] to [%d] shared %d\n", sig_name, sig, pid(), sig_pid, shared)
}
probe signal.deliver { if (pid() in ours) printf("deliver %s in [%d]\n", signal_str(sig), pid()) }
EOS
run -w -c "/bin/sh -c '/bin/sleep 5 & kill -USR1 \$!; wait'" $T/sig.stp
norm $T/out >$T/got
cat >$T/want <<'EOW'
fork [P1] -> [P2]
send SIGUSR1 10 from [P1] to [P2] shared 1
deliver KILL in [P2]
process_exit [P2]
send SIGCHLD 17 from [P2] to [P1] shared 1
deliver CHLD in [P1]
process_exit [P1]
send SIGCHLD 17 from [P1] to [P3] shared 1
EOW
mv $T/got $T/out
expect "tapset signal.send/deliver and scheduler.process_fork/exit on 6.1's tracepoints"

# 10b'. vm.pagefault.return is a kretprobe on handle_mm_fault(), real
#       only with kprobes: dd's 4 MiB buffer takes hundreds of faults
#       (fewer than 1024 pages: fault-around and huge pages), each
#       returning VM_FAULT_ bits (below VM_FAULT_HINDEX_MASK, 0x0f0000).
run -w -e 'global n, bad
	probe vm.pagefault.return { if (pid() == target()) { n++; if (fault_type < 0 || fault_type >= 65536) bad++ } }
	probe end { printf("%d %d\n", n >= 100 && n <= 2048, bad) }' \
	-c "dd if=/dev/zero of=/dev/null bs=4M count=1"
echo "1 0" >$T/want
expect "vm.pagefault.return (kretprobe): 100 to 2048 faults of dd's 4 MiB buffer, all VM_FAULT_ bits"

# 10c. examples/kfunc_callers.stp: busybox dd, 5 reads of one byte
run -c "dd if=/etc/hostname of=/dev/null bs=1 count=5" \
	/usr/share/ktap/examples/kfunc_callers.stp vfs_read
printf '%s\n' "COMMAND PID CALLS" "dd N 5" >$T/want
tr -s ' ' <$T/out | sed 's/^dd [0-9]* /dd N /' >$T/got
mv $T/got $T/out
expect "examples/kfunc_callers.stp vfs_read: dd called it 5 times"

# 10d. the tcp, vfs and MIB tapset (9 checks)
. /tests/guest-tcp.sh

# 10e. the netdev, socket, nfsd and netfilter tapset (19 checks), and
#      the NFS client's (guest-nfs-fop.sh 3, guest-nfs-proc.sh 4), the
#      sunrpc and generic.fop tapset (guest-sunrpc.sh, 5 checks), stap's
#      buildok points 6.1 lacks or passes on the stack (guest-sig2.sh, 5)
. /tests/guest-net.sh

# 10b. syscall.openat: filename (stap's quoted string) fetched by a kprobe
#      on the system call's wrapper, since the script reads it
run -e 'probe syscall.openat { if (pid() == target()) printf("%s|%s|%s\n", name, filename, argstr) }' \
	-c "cat /etc/hostname"
if [ "$rc" -eq 0 ] && grep -qx 'openat|"/etc/hostname"|AT_FDCWD, "/etc/hostname", O_RDONLY' $T/out; then
	ok "syscall.openat: filename and argstr of cat's open, fetched in the kernel"
else
	not_ok "syscall.openat filename (exit status $rc)"
	diag $T/out $T/err
fi

# 10b2. stap's nd_syscall idioms in syscall.* probes: int_arg(N),
#      user_string(pointer_arg(N)) and user_string_n() of the alias's
#      buf_uaddr are the system call's arguments, read from the wrapper's
#      regs (int_arg(1) was the wrapper's own %di, the regs pointer).
#      cat opens the file (AT_FDCWD); the shell's builtin echo writes
#      "hello\n" to fd 1 (/dev/null).
run -e 'probe syscall.openat { if (pid() == target()) printf("open %d %s\n", int_arg(1), user_string(pointer_arg(2))) }
probe syscall.write { if (pid() == target()) printf("write %d %d [%s]\n", uint_arg(1), ulong_arg(3), user_string_n(buf_uaddr, count)) }' \
	-c "sh -c 'echo hello >/dev/null; exec cat /etc/hostname >/dev/null'"
if [ "$rc" -eq 0 ] && grep -qx 'open -100 /etc/hostname' $T/out && grep -qx 'write 1 6 \[hello' $T/out; then
	ok "syscall.openat/write: int_arg(1), user_string(pointer_arg(2)), user_string_n(buf_uaddr, count) of the system call's arguments"
else
	not_ok "syscall.* nd_syscall idioms (exit status $rc)"
	diag $T/out $T/err
fi

# 10c. the plans: a kprobe only when a user string is read (with its
#      first byte, which tells "" from a fault on 6.1)
run -p3 -e 'probe syscall.openat { println(name) }'
p3name=$(grep -c kprobe_events $T/out)
run -p3 -e 'probe syscall.openat { println(filename) }'
if [ "$p3name" = 0 ] && grep -q "^write kprobe_events 'p:ktap_\$PID/__x64_sys_openat_0 __x64_sys_openat regs_si=+104(%di):u64 regs_si_str=+0(+104(%di)):ustring regs_si_str_z=+u0(+104(%di)):x8'" $T/out; then
	ok "-p3: syscall.openat is a tracepoint with only name read, a kprobe fetching the string with filename"
else
	not_ok "-p3 syscall.openat (exit status $rc, $p3name kprobe lines with only name)"
	diag $T/out $T/err
fi

# 10d. syscall.*.return: every system call, retstr from the exit tracepoints
run -e 'probe syscall.*.return { if (pid() == target() && retval < 0) printf("%s %s\n", name, retstr) }' \
	-c "cat /no/such/file"
if [ "$rc" -eq 0 ] && grep -qx 'openat -2 (ENOENT)' $T/out; then
	ok "syscall.*.return: cat's failing openat is -2 (ENOENT)"
else
	not_ok "syscall.*.return (exit status $rc)"
	diag $T/out $T/err
fi

# 10e. a generic member (no tapset alias): mkdir or mkdirat, whichever
#      busybox uses, with the path argument fetched through the kprobe
run -e 'probe syscall.mkdir* { if (pid() == target()) printf("%s(%s) %s\n", name, argstr, pathname) }' \
	-c "mkdir -m 0750 $T/newdir"
if [ "$rc" -eq 0 ] && grep -Eqx "(mkdir\(|mkdirat\(-100, )\"$T/newdir\", 0[0-7]+\) \"$T/newdir\"" $T/out; then
	ok "generic syscall.mkdir*: argstr and pathname, the string fetched in the kernel"
else
	not_ok "generic syscall.mkdir* (exit status $rc)"
	diag $T/out $T/err
fi

# 10f. tapset/task.stp: the task_*() functions on the new task of a
#      shell's fork, read through $p of wake_up_new_task (entered by the
#      parent, before the child first runs: its state is 6.1's TASK_NEW,
#      0x800); task_parent($p) is the shell, its parent ktap itself;
#      the limits are the shell's ulimit -n and -c.
cat >$T/task.stp <<'EOS'
probe kernel.function("wake_up_new_task") {
	if (task_pid(task_parent($p)) != target())
		next
	printf("new [%d] tid [%d] %s state %d, parent [%d] %s state %d by [%d]\n",
	       task_pid($p), task_tid($p), task_execname($p), task_state($p),
	       task_pid(task_parent($p)), task_execname(task_parent($p)),
	       task_state(task_parent($p)), pid())
	printf("uid %d gid %d euid %d egid %d nice %d prio %d fds %d\n", task_uid($p),
	       task_gid($p), task_euid($p), task_egid($p), task_nice($p), task_prio($p),
	       task_max_file_handles($p))
	printf("cpus %d %d, grandparent %s\n", task_cpu(task_parent($p)) == cpu(),
	       task_cpu($p) >= 0 && task_cpu($p) < 2, task_execname(task_parent(task_parent($p))))
	printf("nofile %d core %d\n", task_rlimit_nofile($p), task_rlimit_core($p))
}
probe kprocess.exec_complete { if (ppid() == target()) printf("exec [%d] %s\n", pid(), execname()) }
EOS
run -w -c "/bin/sh -c 'ulimit -n 200; ulimit -c 0; /bin/ls /no/such/dir 2>/dev/null; exit 0'" $T/task.stp
norm $T/out >$T/got
cat >$T/want <<'EOW'
new [P1] tid [P1] sh state 2048, parent [P2] sh state 0 by [P2]
uid 0 gid 0 euid 0 egid 0 nice 0 prio 20 fds 64
cpus 1 1, grandparent ktap
nofile 200 core 0
exec [P1] ls
EOW
mv $T/got $T/out
expect "task_*() of a fork: the child's pid, name, TASK_NEW, limits; task_parent() the shell, its parent ktap"

# 10b. kernel filters on 6.1: the generic COMM field and a kprobe fetch
#      argument ($count) in the filter; -v's per-CPU stats say exactly
#      one record reached the ring buffer.  --no-lower: the count alone
#      would become a hist trigger (vm-hist-lower.sh), and this checks the
#      filter of a streamed event.
run -v --no-lower -e 'global n
probe kernel.function("vfs_read") { if (execname() == "dd" && $count == 123) n++ }
probe end { printf("%d\n", n) }' -c "dd if=/etc/hostname of=/dev/null bs=123 count=1"
if [ "$rc" -eq 0 ] && grep -qx 1 $T/out &&
	grep -q "kernel: .*COMM == \"dd\"$" $T/err && grep -q "kernel: .*count == 123$" $T/err &&
	grep -qx "Pass 5: handled 1 events, 0 lost, 1 written to the ring buffer" $T/err; then
	ok "COMM and a kprobe argument in the kernel filter: 1 counted, 1 record written"
else
	not_ok "COMM and kprobe argument filter (exit status $rc)"
	diag $T/out $T/err
fi

# 10c. a probe that only calls exit() after its kernel filter: the
#      traceoff trigger stops ktap's instance (not the top-level buffer)
#      right after the record; the end probe still runs.
top=$(cat /sys/kernel/tracing/tracing_on)
run -v -e 'global n
probe kernel.function("vfs_read") { if (execname() == "dd" && $count == 5) n++ }
probe kernel.function("vfs_read").return if (execname() == "dd" && $return == 5) { exit() }
probe end { printf("%d\n", n) }' -c "dd if=/dev/zero of=/dev/null bs=5 count=2000"
if [ "$rc" -eq 0 ] && grep -qx 1 $T/out && grep -q "traceoff trigger" $T/err &&
	grep -qx "Pass 5: handled 2 events, 0 lost, 2 written to the ring buffer" $T/err &&
	[ "$(cat /sys/kernel/tracing/tracing_on)" = "$top" ]; then
	ok "exit() after a kernel filter: traceoff, 2 records written, top-level tracing_on untouched"
else
	not_ok "traceoff (exit status $rc)"
	diag $T/out $T/err
fi

# 10d. tear-down of lowered kprobes: the hist trigger on a kprobe event
#      (and, for a latency pair, the onmatch trigger reading the entry's
#      variable and the synthetic event it traces) are removed before the
#      kprobe and synthetic events, without a warning: the kernel finds
#      a hist trigger to remove by its filter too, and a removal that
#      names none matches nothing and says nothing; the kprobe then
#      stayed busy until the instance went.  Checked right after each run.
#      No -c: a command's exec renames its thread, which a lowered
#      execname() key reports in a warning of its own.  (issue 12)
# undo_clean DESC LOWERED: rc 0, -v said LOWERED, no WARNING or ERROR on
# stderr, and tracefs as before.
undo_clean() {
	ktap-tfs-snapshot >$T/now
	if [ "$rc" -eq 0 ] && grep -q "$2" $T/err && ! grep -qE '^(WARNING|ERROR)' $T/err &&
		cmp -s $T/before $T/now; then
		ok "$1"
	else
		not_ok "$1 (exit status $rc)"
		diag $T/out $T/err
		diff $T/before $T/now | head -20 | sed 's/^/# /'
	fi
}
run -v -e 'global c
probe kernel.function("vfs_read") { c[execname()]++ }
probe timer.s(1) { exit() }'
undo_clean "a kprobe's lowered aggregation: no warning at exit, tracefs clean at once" \
	"^Pass 3: global c is kept in kernel hists"
run -v -e 'global t, h
probe kernel.function("vfs_read") { t[tid()] = gettimeofday_ns() }
probe kernel.function("vfs_read").return { if (tid() in t) { h <<< gettimeofday_ns() - t[tid()]; delete t[tid()] } }
probe timer.s(1) { exit() }
probe end { printf("%d\n", @count(h)) }' -c "dd if=/etc/hostname of=/dev/null bs=1 count=3"
undo_clean "a kprobe latency pair (onmatch, synthetic event): no warning at exit, tracefs clean at once" \
	"^Pass 3: latency pair .* runs in the kernel"

# 10e. the unsorted foreach of a lowered array: key order (run_hist.c),
#      not the hist file's hitcount order (3 1, 9 2, 5 3 here) with its
#      ties in the map's hash order.
for b in 5:3 3:1 9:2; do
	echo "dd if=/dev/zero of=/dev/null bs=${b%:*} count=${b#*:} 2>/dev/null"
done >$T/dds.sh
run -v -e 'global c
probe kernel.function("vfs_read") { if (execname() == "dd" && $count < 100) c[$count]++ }
probe end { foreach (n in c) printf("%d %d\n", n, c[n]) }' -c "sh $T/dds.sh"
printf '3 1\n5 3\n9 2\n' >$T/want
if grep -q "^Pass 3: global c is kept in kernel hists" $T/err; then
	expect "lowered c[\$count]++: unsorted foreach in key order"
else
	not_ok "c[\$count]++ was not lowered"
	diag $T/err
fi

# 10g. issue 13's context functions on kprobes: the register functions
#      as fetch arguments (entry, @entry() at the return, $retval), and
#      the @offsetof/@cast_sizeof/@container_of constants from BTF.
size=$(stat -c %s /etc/hostname)
[ "$size" -lt 123 ] || size=123
run -e 'probe kernel.function("vfs_read") {
	if (pid() == target() && int_arg(3) == 123)
		printf("%s %d %d %d %d %d %d\n", ppfunc(), int_arg(3), uint_arg(3),
		       pointer_arg(1) == $file, @cast_sizeof("file") > @offsetof("file", f_pos),
		       @container_of(&$file->f_pos, "file", f_pos)->f_inode == $file->f_inode,
		       @offsetof("file", f_pos) == &$file->f_pos - $file) }
probe kernel.function("vfs_read").return {
	if (pid() == target() && @entry(int_arg(3)) == 123)
		printf("%d %s\n", returnval(), returnstr(2)) }' \
	-c "dd if=/etc/hostname of=/dev/null bs=123 count=1"
printf 'vfs_read 123 123 1 1 1 1\n%d 0x%x\n' "$size" "$size" >$T/want
expect "int_arg/uint_arg/pointer_arg, @entry(int_arg), returnval/returnstr, @offsetof/@cast_sizeof/@container_of"

# 10h. a tracepoint argument's member the record does not hold, through
#      the pointer it does (issue 13): an eprobe on timer:timer_start reads
#      $timer->expires and ->flags (6.1: eprobes without an option of their
#      own), which must equal the expires and flags the record copied from
#      the same timer; -p3 shows the e: line.
run -p3 -e 'probe kernel.trace("timer:timer_start") { println($timer->flags) }'
if [ "$rc" -eq 0 ] && grep -q "^write dynamic_events 'e:ktap_\$PID/timer_start_e0 timer.timer_start.* timer_flags=+[0-9]*(\$timer):u32'$" $T/out; then
	ok "-p3: \$timer->flags of timer:timer_start is an eprobe's +OFF(\$timer):u32"
else
	not_ok "-p3 of the eprobe (exit status $rc)"
	diag $T/out $T/err
fi
run -e 'global n, bad
probe kernel.trace("timer:timer_start") {
	n++; bad += ($timer->expires != $expires) + ($timer->flags != $flags) }
probe timer.ms(300) { printf("%d %d\n", n > 0, bad); exit() }'
echo "1 0" >$T/want
expect "timer:timer_start through an eprobe: \$timer->expires and ->flags equal the recorded expires and flags"

# 10i. a kernel string the kprobe could not copy ($count, 4, read as an
#      address): kernel_string() of it is stap's run-time error (caught
#      here), the forms with an error text give the text.
run -e 'probe kernel.function("vfs_read") { if (pid() == target()) {
	printf("[%s] [%s] [%s]\n", kernel_string2($count, "bad"), kernel_string_n($count, 3, "bad3"),
	       kernel_string_quoted($count))
	try { println(kernel_string($count)) } catch (e) { println(e) }; exit() } }' \
	-c "dd if=/etc/hostname of=/dev/null bs=4 count=1"
printf '[bad] [bad3] [""]\nkernel string copy fault\n' >$T/want
expect "kernel_string() of an unreadable address: stap's error; kernel_string2() its text"

# 10j. pretty printing of a @cast() of a kernel struct, from BTF: each
#      member the same cast with its chain.
run -e 'probe kernel.function("vfs_read") { if (pid() == target()) {
	println(@cast($file, "file")->f_path$ == sprintf("{.mnt=%p, .dentry=%p}",
	        $file->f_path->mnt, $file->f_path->dentry)); exit() } }' \
	-c "dd if=/etc/hostname of=/dev/null bs=4 count=1"
echo 1 >$T/want
expect "@cast(\$file, \"file\")->f_path\$ is {.mnt=%p, .dentry=%p} of its members (BTF)"

# 10b. task_current(), read by the kernel through the per-CPU 'current'
#      (issue 13).  vm-ktap.sh boots one CPU of two possible ones, so
#      every read is made twice (one fetch per possible CPU) and CPU 1's
#      copy reads that CPU's idle 'current' (init_task: pid 0,
#      "swapper/0"): a wrong pick of copy prints 0 and swapper/0.
#      In a kprobe: as a value, through @cast and the tapset.
run -e 'probe kernel.function("vfs_read") {
	if (pid() == target()) { t = task_current()
	printf("%d %d %s %d %d\n", @cast(t, "task_struct")->tgid == pid(), task_prio(t),
	       kernel_string(@cast(task_current(), "task_struct")->comm),
	       task_pid(task_parent(task_current())) == ppid(), t != 0); exit() } }' \
	-c "dd if=/etc/hostname of=/dev/null bs=4 count=1"
echo "1 20 dd 1 1" >$T/want
expect "task_current() in a kprobe: its tgid, prio, comm and parent are dd's"

#      task_rlimit(task, "NAME") picks one of the task's limits, all of
#      which the kprobe fetches; is_sig_blocked() tests the blocked mask.
run -e 'probe kernel.function("vfs_read") {
	if (pid() == target()) { printf("%d %d %d %d\n", task_rlimit(task_current(), "RLIMIT_NOFILE"),
	    task_rlimit_nofile(task_current()), task_rlimit(task_current(), "RLIMIT_NOPE"),
	    is_sig_blocked(task_current(), 10)); exit() } }' \
	-c "sh -c 'ulimit -n 77; exec dd if=/etc/hostname of=/dev/null bs=4 count=1'"
echo "77 77 -1 0" >$T/want
expect "task_rlimit(task_current(), \"RLIMIT_NOFILE\") of dd under ulimit -n 77, is_sig_blocked()"

#      In a tracepoint probe, through an eprobe: sched_switch runs in the
#      task switched out, so 'current' is $prev (any task's switch: one
#      switching to ktap itself is not recorded, ktap's own filter).
run -e 'probe kernel.trace("sched_switch") {
	if ($prev_pid != 0) { printf("%d %d %d\n",
	   @cast(task_current(), "task_struct")->pid == $prev_pid,
	   kernel_string(@cast(task_current(), "task_struct")->comm) == $prev_comm,
	   task_current() != 0); exit() } }' -c "sleep 0.3"
echo "1 1 1" >$T/want
expect "task_current() in sched_switch (an eprobe): it is \$prev"

#      In begin and end probes, on ktap's own getppid(2) record (a
#      kprobe ktap fires itself, filtered to its pid): 'current' is ktap,
#      as stap's begin and end run in stap's own task.  Through @cast,
#      the tapset's task_*() and a function of the script's; end reads
#      a record of its own.
run -e 'function me(t) { return @cast(t, "task_struct")->tgid }
probe begin { t = task_current()
	printf("%d %d %s %d %d\n", @cast(t, "task_struct")->pid == pid(), me(t) == pid(),
	       task_execname(t), task_pid(task_parent(t)) == ppid(), t != 0) }
probe end { printf("%d %s\n", me(task_current()) == pid(),
	kernel_string(@cast(task_current(), "task_struct")->comm)) }' -T 1
printf '1 1 ktap 1 1\n1 ktap\n' >$T/want
expect "task_current() in begin and end: ktap's own task, read on its getppid record"

#      A read at a constant kernel address in begin: the kprobe reads
#      it (linux_banner, from kallsyms: "Linux version 6.1...").
banner=$(awk '$3 == "linux_banner" { print $1; exit }' /proc/kallsyms)
run -e "probe begin { println(substr(kernel_string(0x$banner), 0, 14)); exit() }"
echo "Linux version " >$T/want
expect "kernel_string() of a constant address in begin: linux_banner"

# 10c. strings through an eprobe (issue 13): netif_receive_skb records
#      skb (skbaddr) and the device's name, not what the device points
#      to; kernel_string() of a char * member reads it through the
#      recorded pointer ("+0(+OFF(+16($skbaddr))):string"), a recorded
#      copy ($skb->dev->name) is the record's field.
run -e 'probe kernel.trace("net:netif_receive_skb") {
	if ($name == "lo") { printf("%s %s %d\n", kernel_string($skb->dev->dev->kobj->name),
	    kernel_string($skb->dev->name), $skb->dev->mtu); exit() } }' \
	-c "sh -c 'ping -c 2 127.0.0.1 >/dev/null'"
echo "lo lo 65536" >$T/want
expect "netif_receive_skb through an eprobe: kernel_string(\$skb->dev->dev->kobj->name) is lo"

# 10f. stap's vfs.do_sync_*, readv/writev and page-cache points, the
#      __vm.*.kp and __scheduler.*.kp kprobes, user_long() in a kprobe (guest-vfs2.sh, 7 checks)
. /tests/guest-vfs2.sh

# 10g. the syscall tapset's struct decoders, fetched by kprobes
#      (guest-structs.sh, 4 checks)
. /tests/guest-structs.sh

# 11. nothing left behind
ktap-tfs-snapshot >$T/after
if cmp -s $T/before $T/after; then
	ok "tracefs unchanged after all the runs (instances, kprobe events)"
else
	not_ok "tracefs changed"
	diff $T/before $T/after | head -20 | sed 's/^/# /'
fi

guest_done
