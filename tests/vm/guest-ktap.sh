#!/bin/sh
# guest-ktap.sh - the guest half of tests/vm/vm-ktap.sh: ktap's
# kernel.function() probes on a kernel with kprobes and BTF.
#
# Runs as /tests/run-in-vm.sh (busybox sh) and prints one unnumbered TAP
# line per check; guest_plan must be their number (vm-selftest.sh reads
# it).  Every check compares exact values with what the guest itself
# knows (file names, sizes, inode numbers, errno values), and tracefs
# must be the same before and after all the runs.
# shellcheck disable=SC2034  # read by vm-selftest.sh
guest_plan=18

export KTAP_TAPSET=/usr/share/ktap/tapset
T=/tmp/ktap-guest
mkdir -p $T
failed=0

ok() { echo "ok - $*"; }
not_ok() { echo "not ok - $*"; failed=$((failed + 1)); }
diag() { sed 's/^/# /' "$@"; }

# run ARGS...: ktap ARGS, stdout to $T/out, stderr to $T/err, status in rc.
run() {
	timeout 60 ktap "$@" >$T/out 2>$T/err
	rc=$?
}

# expect DESC: rc 0 and $T/out equal to $T/want.
expect() {
	if [ "$rc" -eq 0 ] && cmp -s $T/want $T/out; then
		ok "$1"
	else
		not_ok "$1 (exit status $rc)"
		echo "# want:"; diag $T/want
		echo "# got:"; diag $T/out
		diag $T/err
	fi
}

# 1. entry, a user string argument
run -e 'probe kernel.function("do_sys_openat2") {
	if (pid() == target()) printf("%s\n", user_string($filename)) }' -c "cat /etc/hostname"
if [ "$rc" -eq 0 ] && grep -qx /etc/hostname $T/out; then
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

# 10. -p3 of a kretprobe
run -p3 -e 'probe kernel.function("vfs_read").return { print($return) }'
if [ "$rc" -eq 0 ] && grep -q "^write kprobe_events 'r:ktap_\$PID/vfs_read_0 vfs_read ret=\$retval:s64'" $T/out; then
	ok "-p3: the kretprobe definition"
else
	not_ok "-p3 kretprobe (exit status $rc)"
	diag $T/out $T/err
fi

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

# 10c. the plans: a kprobe only when a user string is read
run -p3 -e 'probe syscall.openat { println(name) }'
p3name=$(grep -c kprobe_events $T/out)
run -p3 -e 'probe syscall.openat { println(filename) }'
if [ "$p3name" = 0 ] && grep -q "^write kprobe_events 'p:ktap_\$PID/__x64_sys_openat_0 __x64_sys_openat regs_si=+104(%di):u64 regs_si_str=+0(+104(%di)):ustring'" $T/out; then
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

# 11. nothing left behind
ktap-tfs-snapshot >$T/after
if cmp -s $T/before $T/after; then
	ok "tracefs unchanged after all the runs (instances, kprobe events)"
else
	not_ok "tracefs changed"
	diff $T/before $T/after | head -20 | sed 's/^/# /'
fi

exit "$failed"
