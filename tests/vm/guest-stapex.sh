#!/bin/sh
# guest-stapex.sh - the guest half of tests/vm/vm-stapex.sh: SystemTap's
# example scripts that need kprobes (the "vm" lines of
# /tests/stapex.list), on Debian's 6.1 kernel, run as stap's install check
# runs them (the test_installcheck: line of NAME.meta, ktap for stap).
#
# For each example: (a) its install check: exit status 0 and no ERROR,
# WARNING, error: or warning: line on stderr; (b) the shape of its
# output, from the install check's run where that run's output says
# something, else from a second run with a workload that guarantees the
# events (exact lines where the workload fixes them).  The guest is a
# busybox initramfs: the workloads are busybox commands and ktap's test
# tools, and its files live on tmpfs (no block device).
#
# Replaced in the guest, as the check's name says:
#   process/auditbt: -c "sudo true" -> -c true, -d /usr/bin/sudo ->
#     -d /bin/busybox (busybox has no sudo);
#   io/inodewatch, io/inodewatch2, io/traceio2: their device and inode
#     arguments name a file the workload writes (no sda1 in the guest).

. /tests/guest-lib.sh
E=/usr/share/systemtap/examples
W=/run/stapex		# the workloads' files: not on /tmp, where $T/out is
mkdir -p $W
# stap NAME's install check calls: ktap, bounded (the slowest, fntimes,
# runs 7 s plus its start-up under TCG).
stap() { bounded 60 ktap "$@"; }

# installcheck NAME [SED]: NAME's install check line, edited by the sed
# script SED when given.
installcheck() {
	sed -n 's/^test_installcheck: *//p' $E/$1.meta | sed "${2:-}"
}

# runex NAME CMD: run the stap command line CMD in NAME's directory;
# stdout to $T/out, stderr to $T/err, status in rc.
runex() {
	echo "# $1: $2"
	(cd $E/${1%/*} && eval "$2") >$T/out 2>$T/err </dev/null
	rc=$?
}

# clean NAME DESC: rc 0 and no error or warning line on stderr.
clean() {
	if [ "$rc" -eq 0 ] && ! grep -qE '^(ERROR|WARNING)|(error|warning):' $T/err; then
		ok "$1: $2 exits 0 without errors or warnings"
	else
		not_ok "$1: $2 (exit status $rc)"
		diag $T/err | head -n 20
		diag $T/out | head -n 10
	fi
}

# shape NAME DESC FIRST ERE...: every line of $T/out matches FIRST or one
# of the EREs (extended regular expressions, whole lines), and at least
# one line matches FIRST, unless FIRST is empty (no line guaranteed).
shape() {
	_name=$1 _desc=$2
	shift 2
	_first=$1
	cp $T/out $T/rest
	for _re in "$@"; do
		[ -n "$_re" ] || continue
		grep -vxE "$_re" $T/rest >$T/rest2
		mv $T/rest2 $T/rest
	done
	if [ "$rc" -eq 0 ] && { [ -z "$_first" ] || grep -qxE "$_first" $T/out; } &&
		! [ -s $T/rest ]; then
		ok "$_name: $_desc"
	else
		not_ok "$_name: $_desc (exit status $rc)"
		echo "# got:"; diag $T/out | head -n 20
		[ -s $T/rest ] && { echo "# unexpected lines:"; diag $T/rest | head -n 5; }
		diag $T/err | head -n 10
	fi
}

# same NAME DESC: $T/out is $T/want exactly.
same() {
	if [ "$rc" -eq 0 ] && cmp -s $T/want $T/out; then
		ok "$1: $2"
	else
		not_ok "$1: $2 (exit status $rc)"
		echo "# want:"; diag $T/want
		echo "# got:"; diag $T/out | head -n 20
		diag $T/err | head -n 10
	fi
}

# The kernel's dev_t (MKDEV) of the file system holding FILE, in hex, and
# stat's user-space one.
kdev() {
	_d=$(stat -c %d "$1")
	printf '0x%x' $(( (((_d >> 8) & 4095) << 20) | (_d & 255) | ((_d >> 12) & ~255) ))
}
udev() { printf '0x%x' "$(stat -c %d "$1")"; }

# A file with known bytes, its device numbers and inode.
head -c 100 /etc/passwd >$W/f
ino=$(stat -c %i $W/f)
d=$(stat -c %d $W/f)
major=$(( (d >> 8) & 4095 ))
minor=$(( (d & 255) | ((d >> 12) & ~255) ))
# The bytes a dd of 2048 KiB reads and writes through the VFS.
DD2M="dd if=/dev/zero of=/dev/null bs=1024 count=2048"

for name in $(sed -n 's/^\([^#][^ ]*\) vm$/\1/p' /tests/stapex.list); do
	[ -f $E/$name.meta ] || { not_ok "$name: $E/$name.meta is not in the guest"; continue; }
	ic=$(installcheck $name)
	case $name in
	process/auditbt) ic=$(installcheck $name 's|-d /usr/bin/sudo|-d /bin/busybox|; s|"sudo true"|true|') ;;
	# find /proc opens thousands of files, each a kretprobe pair with a
	# deep pathname under TCG: on a host a parallel make check keeps busy
	# that outlasted the 60-s bound (CI, with ktap busy, not hung); one
	# branch of /proc is the same check.
	io/slowvfs) ic=$(installcheck $name 's|find /proc |find /proc/sys/kernel |') ;;
	esac
	runex $name "$ic"
	clean $name "$ic"
	case $name in
	io/disktop)
		# Prints every 5 s, and only I/O on block devices (devname is
		# "N/A" on tmpfs): the 1-s install check prints nothing here.
		: >$T/want
		same $name "nothing in 1 s on a guest without block devices"
		# Its devname (once missing from ktap's vfs tapset): "N/A" for a
		# file on no block device, as stap's.
		runex $name "stap -e 'probe vfs.read.return { if (pid() == target()) println(devname) }' -c 'dd if=$W/f of=/dev/null bs=100 count=1'"
		echo N/A >$T/want
		same $name "vfs.read.return's devname of a tmpfs file is N/A" ;;
	io/inodewatch | io/inodewatch2 | io/traceio2)
		# 0x08 0x01 100 (or 0x0801) name sda1, which the guest lacks.
		case $name in
		io/inodewatch)
			runex $name "stap inodewatch.stp $major $minor $ino -c 'dd if=/etc/hostname of=$W/f bs=1 count=3 conv=notrunc'"
			re="dd\([0-9]+\) vfs_write $(kdev $W/f)/$ino"
			want=3 ;;
		io/inodewatch2)
			runex $name "stap inodewatch2.stp $major $minor $ino -c 'chmod 640 $W/f'"
			re="chmod\([0-9]+\) notify_change $(kdev $W/f)/$ino 100640 0"
			want=1 ;;
		io/traceio2)
			runex $name "stap traceio2.stp $(udev $W/f) -c 'dd if=/etc/hostname of=$W/f bs=1 count=3 conv=notrunc'"
			re="dd\([0-9]+\) vfs_write $(kdev $W/f)"
			want=3 ;;
		esac
		n=$(grep -cxE "$re" $T/out)
		shape $name "$want lines '$re' for the workload's file" "$re"
		[ "$n" -eq "$want" ] || not_ok "$name: $n lines, not $want" ;;
	io/io_submit)
		# No io_submit(2) in busybox: "Ready!" and no stack.
		echo 'Ready!' >$T/want
		same $name "Ready! (no io_submit(2) caller in the guest)" ;;
	io/iodevstats)
		{
			printf 'starting probe\n\n'
			printf '%16s %8s %8s %8s %8s %8s %8s %8s\n' '' '' '' read read '' write write
			printf '%16s %8s %8s %8s %8s %8s %8s %8s\n' name device read 'KB tot' 'B avg' write 'KB tot' 'B avg'
		} >$T/want
		head -n 4 $T/out >$T/head
		tail -n +5 $T/out >$T/out2 && mv $T/out2 $T/out
		shape $name "then lines 'NAME MAJ, MIN' and 6 numbers (1 s)" \
			'' ' *[^ ]+ +[0-9]+, +[0-9]+( +[0-9]+){6}'
		mv $T/head $T/out
		same $name "its begin line and the end's two header lines"
		runex $name "stap iodevstats.stp -c '$DD2M'"
		dev=$(stat -c %d /dev/zero)
		line=$(printf '%16s %3d, %4d %8d %8d %8d %8d %8d %8d' dd \
			$(( (dev >> 8) & 4095 )) $(( dev & 255 )) 2048 2048 1024 2048 2048 1024)
		shape $name "dd's line: 2048 reads and writes of 1 KiB on devtmpfs" \
			"$line" 'starting probe' ' *' ' .*' ;;
	io/iotop)
		# Prints every 5 s: a run of 6 s, after dd's 2 MiB.
		echo "$DD2M; sleep 6" >$W/iotop.sh
		runex $name "stap iotop.stp -c 'sh $W/iotop.sh'"
		shape $name "after 5 s, dd's 2048 KB read and written" \
			"$(printf '%16s\t%10d\t%10d' dd 2048 2048)" \
			"$(printf '%16s\t%10s\t%10s' Process 'KB Read' 'KB Written')" \
			"$(printf ' *[^\t]+\t *[0-9]+\t *[0-9]+')" ' *' ;;
	io/slowvfs)
		# sloth=10 us: under TCG every open of find's takes longer.
		shape $name "'EXECNAME[TID] US PATHNAME' lines, one of find's" \
			'find\[[0-9]+\] [0-9]+ /proc(/.*)?' '[^[]+\[[0-9]+\] [0-9]+ .*'
		# Its pathname (once missing from ktap's vfs tapset): the full
		# path across mount points; deeper than ktap fetches, "/...".
		mkdir -p $W/a/b/c/d/e/f/g/h/i
		: >$W/a/b/c/d/e/f/g/h/i/x
		runex $name "stap -e 'probe vfs.open { if (pid() == target() && !isinstr(pathname, \"/usr/\") && !isinstr(pathname, \"/dev/\")) println(pathname) }' -c 'cat $W/f /proc/version $W/a/b/c/d/e/f/g/h/i/x >/dev/null'"
		printf '%s\n' $W/f /proc/version /run/.../c/d/e/f/g/h/i/x >$T/want
		same $name "vfs.open's pathname: /run/stapex/f, /proc/version, a deep one cut"
		# The same walk from a dentry and a vfsmount (task_dentry_path(),
		# through stap's autocast of a local set from $path) and from a
		# struct file (fullpath_struct_file()), as nfsd-trace.stp uses them.
		cat >$W/paths.stp <<'EOS'
global seen
probe kernel.function("vfs_open") {
	if (pid() == target()) {
		p = $path
		s = task_dentry_path(task_current(), p->dentry, p->mnt)
		if (isinstr(s, "stapex") || isinstr(s, "/i/x"))
			println("open ", s)
	}
}
probe vfs.read {
	if (pid() == target()) {
		s = fullpath_struct_file(task_current(), $file)
		if ((isinstr(s, "stapex") || isinstr(s, "/i/x")) && !seen[s]++)
			println("read ", s)
	}
}
EOS
		# (head reads with read(); cat copies with copy_file_range().)
		runex $name "stap $W/paths.stp -c 'head -c 10 $W/f $W/a/b/c/d/e/f/g/h/i/x >/dev/null'"
		printf '%s\n' "open $W/f" "read $W/f" "open /run/.../c/d/e/f/g/h/i/x" \
			"read /run/.../c/d/e/f/g/h/i/x" >$T/want
		same $name "task_dentry_path() of an autocast local's members, fullpath_struct_file()" ;;
	io/traceio)
		echo "$DD2M; sleep 1.5" >$W/traceio.sh
		runex $name "stap traceio.stp -c 'sh $W/traceio.sh'"
		shape $name "each second the top 10, one dd's 2 MiB read and written" \
			' *[0-9]+ +dd r: +2 MiB w: +2 MiB' \
			' *[0-9]+ +[^ ]+ r: +[0-9]+ (GiB|MiB|KiB|  B) w: +[0-9]+ (GiB|MiB|KiB|  B)' ' *' ;;
	general/key)
		# No keyboard events in the guest: the begin and end lines.
		printf 'TYPEWRITER ON\nDONE\n' >$T/want
		same $name "TYPEWRITER ON, DONE" ;;
	interrupt/scf)
		# One vCPU: smp_call_function() may never run; any trace
		# printed is "traces[PID,NAME," symbols "] = N".
		shape $name "its begin line, then traces" \
			'Starting probe, type control-c to stop\.' \
			'traces\[[0-9]+,[^,]*,' ' *0x[0-9a-f]+ : .*' '\] = [0-9]+' ;;
	memory/hugepage_collapse)
		# khugepaged collapses nothing in 1 s of an idle guest.
		: >$T/want
		same $name "nothing in 1 s" ;;
	memory/overcommit)
		# A malloc of 64 GiB in a 1-GiB guest: the heuristic
		# overcommit check refuses it (dd then fails: "|| true").
		echo "dd if=/dev/zero of=/dev/null bs=64G count=1 2>/dev/null || true" >$W/overcommit.sh
		runex $name "stap overcommit.stp -c 'sh $W/overcommit.sh'"
		shape $name "dd's 64 GiB malloc blocked, with its page count" \
			'overcommit blocked malloc, process dd \([0-9]+\), 1677[0-9]{4} pages' ;;
	network/netfilter_summary)
		# netfilter.ipv4.pre_routing (a kprobe on ip_rcv_core): ping's
		# 3 requests and 3 replies of 128 bytes each on lo.
		runex $name "stap netfilter_summary.stp -c \"sh -c 'ping -c 3 -s 100 127.0.0.1 >/dev/null'\""
		printf 'Collecting data... Type Ctrl-C to exit and display results.\n%15s --> %15s : 6 packets, 768 total bytes\n' \
			127.0.0.1 127.0.0.1 >$T/want
		same $name "127.0.0.1 --> 127.0.0.1: ping's 6 packets, 768 bytes" ;;
	network/netdev)
		# netdev.transmit's and .receive's protocol through eprobes, the
		# others kprobes: ping's IPv4 packets on lo (protocol 8, network
		# order), statistics read by whoever asks.
		runex $name "stap netdev.stp -c \"sh -c 'ping -c 2 127.0.0.1 >/dev/null'\""
		shape $name "ping's packets on lo, queued, sent and received as protocol 8" \
			'Device lo is sending \(queued\) a packet with protocol 8' \
			'Device lo is sending \(hard\) a packet with protocol 8' \
			'Device lo received a packet with protocol 8' \
			'[^ ]+ was asked for statistics structure' ;;
	network/tcpdumplike)
		# tcp.receive (kprobes on tcp_v4_rcv/tcp_v6_rcv): ktap-tcp-stall's
		# handshake, data and SYNs on 127.0.0.1, a line per segment.
		runex $name "stap tcpdumplike.stp -c 'ktap-tcp-stall $W/ports 0'"
		shape $name "its header, then a line per TCP segment on 127.0.0.1" \
			' +127\.0\.0\.1 +127\.0\.0\.1 +[0-9]+ +[0-9]+( +[01]){6}' \
			'[-]{65}' '       Source IP         Dest IP  SPort  DPort  U  A  P  R  S  F '
		;;
	network/sk_stream_wait_memory)
		runex $name "stap sk_stream_wait_memory.stp -c 'ktap-tcp-stall $W/ports 0.5 fill'"
		shape $name "a write blocked on its full send buffer, then recovered" \
			'[0-9]+: ktap-tcp-stall\([0-9]+\) blocked on full send buffer' \
			'[0-9]+: ktap-tcp-stall\([0-9]+\) recovered from full send buffer'
		grep -q recovered $T/out || not_ok "$name: no 'recovered' line" ;;
	network/tcp_retransmission)
		# The SYN is retransmitted 1 s after the connect, again 2 s
		# later: a stall of 2.5 s leaves a loaded TCG guest time for the
		# first (it once came after 1.5 s), and only it is compared.
		runex $name "stap tcp_retransmission.stp -c 'ktap-tcp-stall $W/ports 2.5'"
		sed -i '3,$d' $T/out
		read -r lport c1port c2port <$W/ports
		printf 'Printing tcp retransmission\n127.0.0.1:%d => 127.0.0.1:%d STATE:TCP_SYN_SENT RTO:1000 (ms)\n' \
			"$c2port" "$lport" >$T/want
		same $name "the SYN of 127.0.0.1:$c2port => 127.0.0.1:$lport, RTO 1000 ms" ;;
	lwtools/opensnoop-nd)
		# user_string(@entry(pointer_arg(1))) at open's return: the name
		# is read by the entry's kprobe on the wrapper (a const input,
		# sema_syscall.c).  busybox calls openat, not open: the same
		# script on openat (its name is argument 2), cat's open of the
		# workload's file, its fd 3.
		sed 's/nd_syscall\.open\.return/nd_syscall.openat.return/; s/pointer_arg(1)/pointer_arg(2)/' \
			$E/$name.stp >$W/opensnoop-at.stp
		echo "cat $W/f >/dev/null" >$W/opensnoop.sh
		runex $name "stap $W/opensnoop-at.stp -c 'sh $W/opensnoop.sh'"
		shape $name "its header and 'UID PID COMM FD PATH' lines, cat's of $W/f" \
			" +0 +[0-9]+ +cat +3 $W/f" ' +UID +PID +COMM +FD PATH' \
			' +[0-9]+ +[0-9]+ +.+ +-?[0-9]+ .*' ;;
	process/auditbt)
		# Audit is off (no auditd): audit_log_end() sees no record.
		shape $name "'EXECNAME[TID] MESSAGE' and stack lines, if any" \
			'' '[^[]+\[[0-9]+\] .*' ' *0x[0-9a-f]+ : .*' ;;
	process/sleepingBeauties)
		# Waits of 10 ms or more on a completion, if any in 1 s.
		shape $name "'thread TID (NAME) impatient after/bored for N ms' and stack lines, if any" \
			'' 'thread [0-9]+ \(.*\) (impatient after|bored for) [0-9]+ ms' ' *0x[0-9a-f]+ : .*' '' ;;
	profiling/timeout)
		# timer.s(1) may or may not fire within -T 1: its screen, if any.
		esc=$(printf '\033')
		shape $name "its table of timeouts per process, if the second came" \
			'' "(${esc}\\[1;1H${esc}\\[J)?  pid \\|   poll  select   epoll  itimer   futex nanosle  signal\\| process" \
			' *[0-9]+ \|( +[0-9]+){7}\| .*' ;;
	profiling/fntimes)
		# Reports only a call 2.5 times slower than the slowest so far.
		shape $name "'function F well over maximum time' lines, if any" \
			'' 'function [^ ]+ well over maximum time \([0-9]+ vs [0-9]+\), duration variance [0-9]+ s\^2' ;;
	*)
		not_ok "$name: no shape check in guest-stapex.sh" ;;
	esac
done
guest_done
