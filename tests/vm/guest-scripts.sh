#!/bin/sh
# guest-scripts.sh - the guest half of tests/vm/vm-scripts.sh: the
# tests/scripts corpus on Debian's 6.1 kernel (kprobes, hist triggers,
# BTF).  Each script elaborates (-p2), plans (-p3) and runs as
# tests/harness/scripts.sh runs it here: NAME.out exactly, else a 2-second
# run exiting 0.  One check per script's run ("# TODO" for the scripts
# marked xfail), and a summary line with the counts for doc/corpus.md.

. /tests/guest-lib.sh
S=/usr/share/ktap/scripts
n=0 p2=0 p3=0 ran=0
header() { sed -n "s/^# $2: //p" "$1" | head -n 1 | sed -e "s|@TOOLS@|/usr/bin|g" -e "s|@TMP@|/tmp|g"; }
cd $S || { not_ok "no $S"; guest_done; }
for f in *.stp; do
	n=$((n + 1))
	echo "# $f"
	base=${f%.stp}
	opts=$(header "$f" run)
	args=$(header "$f" args)
	todo=$(header "$f" xfail)
	# a plan (-p3) is also an elaboration: -p2 only for what does not plan
	# (one compile less per script under TCG)
	if eval "bounded 60 ktap -w -p3 $opts $f $args" >$T/out 2>$T/err; then
		p3=$((p3 + 1)) p2=$((p2 + 1))
	else
		eval "bounded 60 ktap -w -p2 $opts $f $args" >$T/out 2>$T/err && p2=$((p2 + 1))
	fi
	if [ -f $base.out ]; then
		eval "bounded 60 ktap $opts $f $args" >$T/out 2>$T/err
		rc=$?
		st=1
		[ $rc -eq 0 ] && cmp -s $base.out $T/out && st=0
		what="output"
	else
		eval "bounded 60 ktap -T 2 $opts $f $args" >$T/out 2>$T/err
		rc=$?
		st=1
		[ $rc -eq 0 ] && ! grep -q '^ERROR' $T/err && st=0
		what="runs for 2 s"
	fi
	[ $st -eq 0 ] && ran=$((ran + 1))
	if [ -n "$todo" ]; then
		if [ $st -eq 0 ]; then echo "ok - 6.1: $f $what # TODO $todo"
		else echo "not ok - 6.1: $f $what # TODO $todo"; fi
	elif [ $st -eq 0 ]; then
		ok "6.1: $f $what"
	else
		not_ok "6.1: $f $what (exit status $rc)"
		[ -f $base.out ] && { echo "# want:"; diag $base.out | head -n 20; }
		echo "# got:"; diag $T/out | head -n 20
		diag $T/err | head -n 10
	fi
done
echo "# corpus on 6.1: $n scripts, $p2 elaborate (-p2), $p3 plan (-p3), $ran run"

# The tapset's kprobe aliases that no corpus script uses, run on 6.1.
cd $T || { not_ok "no $T"; guest_done; }

# a1. tty.*: ktap-tty's pty conversation (tty.init of the master, the
#     slave's open, write, poll, read and release; what the slave
#     receives, in the kworker that flushes its buffer) and three window
#     sizes on the console's ttyS0 (tty.resize, tty.ioctl), in order.
run -e 'global polls, rcv
probe tty.init { if (pid() == target()) printf("init %s %s [%s] %d\n", driver_name, name, module, index) }
probe tty.open { if (pid() == target()) printf("open %s %d\n", file_name, file_flags & 3) }
probe tty.release { if (pid() == target()) printf("release %s %d\n", file_name, file_mode & 3) }
probe tty.ioctl { if (pid() == target()) printf("ioctl %s %x\n", name, cmd) }
probe tty.resize {
	if (pid() == target())
		printf("resize %s %d %d %d %d -> %d %d %d %d\n", name, old_row, old_col, old_xpixel,
		       old_ypixel, new_row, new_col, new_xpixel, new_ypixel)
}
probe tty.write { if (pid() == target()) printf("write %s %s %d %s\n", file_name, driver_name, nr, buffer) }
probe tty.read { if (pid() == target()) printf("read %s %s %d\n", file_name, driver_name, nr) }
probe tty.poll { if (pid() == target()) polls[file_name, wait_key] = 1 }
probe tty.receive { if (name == "\"pts\"") rcv[driver_name, index, count, cp, fp, id] = 1 }
probe end {
	foreach ([f, k] in polls) printf("poll %s %x\n", f, k)
	foreach ([d, i, c, cp, fp, id] in rcv) printf("receive %s %d %d %s %s %x\n", d, i, c, cp, fp, id)
}' -c "ktap-tty /dev/ttyS0 $T/tty"
read -r N R C X Y <$T/tty 2>/dev/null
cat >$T/want <<EOS
init "pty_master" "ptm" [] $N
ioctl "ptmx" 40045431
ioctl "ptmx" 80045430
open $N 2
write ptmx "pty_master" 5 "ktap\n"
read $N "pty_slave" 64
write $N "pty_slave" 3 "ok\n"
release $N 3
release ptmx 3
open ttyS0 2
ioctl "ttyS0" 5413
ioctl "ttyS0" 5414
resize "ttyS0" $R $C $X $Y -> 30 90 640 480
ioctl "ttyS0" 5414
resize "ttyS0" 30 90 640 480 -> 31 91 641 481
ioctl "ttyS0" 5414
resize "ttyS0" 31 91 641 481 -> $R $C $X $Y
release ttyS0 3
poll $N 19
receive "pty_slave" $N 5 "ktap\n" 0x0 5401
EOS
expect "tty.init/open/ioctl/write/poll/receive/read/release on a pty, tty.resize on ttyS0"

# a2. tty.register and tty.unregister: no driver registers a device
#     here; their plan on this kernel
run -p3 -e 'probe tty.register, tty.unregister { printf("%s %s %s %d\n", driver_name, name, module, index) }'
n_ev=$(grep -cE "^write kprobe_events 'p:ktap_[\$]PID/tty_(un)?register_device_[0-9]+ tty_(un)?register_device " $T/out)
if [ "$rc" -eq 0 ] && [ "$n_ev" = 2 ]; then
	ok "tty.register, tty.unregister: kprobes on tty_register_device and tty_unregister_device"
else
	not_ok "tty.register, tty.unregister plan (exit status $rc, $n_ev kprobes)"
	diag $T/out | head -n 20
	diag $T/err
fi

# a3. scheduler.tick: a CPU kept busy ticks CONFIG_HZ (250) times a
#     second; at least 50 in 1 s, and as many not idle
sh -c 'while :; do :; done' &
spin=$!
run -e 'global n, busy
probe scheduler.tick { if (name == "tick") n++; if (!idle) busy++ }
probe timer.s(1) { exit() }
probe end { printf("ticks %s, busy %s\n", n >= 50 ? "50+" : sprint(n), busy >= 50 ? "50+" : sprint(busy)) }'
kill $spin
wait $spin 2>/dev/null
echo "ticks 50+, busy 50+" >$T/want
expect "scheduler.tick: at least 50 ticks in 1 s of a busy CPU"

# a4. signal.check_ignored and .return: sh ignores SIGUSR1 and handles
#     SIGUSR2, and sends itself both
run -e 'global sent
probe signal.check_ignored {
	if (sig_pid == target()) {
		printf("%s %d %s %s\n", name, sig, sig_name, pid_name)
		sent[tid()] = 1
	}
}
probe signal.check_ignored.return {
	if (tid() in sent) {
		printf("%s %s\n", name, retstr)
		delete sent[tid()]
	}
}' -c "sh -c 'trap \"\" USR1; trap true USR2; kill -USR1 \$\$; kill -USR2 \$\$'"
cat >$T/want <<'EOS'
check_ignored 10 SIGUSR1 sh
check_ignored 1
check_ignored 12 SIGUSR2 sh
check_ignored 0
EOS
expect "signal.check_ignored(.return): SIGUSR1 ignored, SIGUSR2 not"

# a5. vm.write_shared, vm.write_shared_copy and (alias suffixes) their
#     .return: sh writing to its pages after forking copies them
run -e 'global ws, wsr, wsc, wscr, seen, at, real
probe vm.write_shared { if (pid() == target() && name == "write_shared") { ws++; seen[address] = 1 } }
probe vm.write_shared.return { if (pid() == target()) wsr++ }
probe vm.write_shared_copy {
	if (pid() == target() && name == "write_shared_copy") {
		wsc++
		if (address in seen) at++
		if (!zero) real++
	}
}
probe vm.write_shared_copy.return { if (pid() == target()) wscr++ }
probe end {
	printf("write_shared %d, returns %d\n", ws > 0, wsr == ws)
	printf("copies %d, at written addresses %d, of pages %d, returns %d\n", wsc > 0, at == wsc,
	       real > 0, wscr == wsc)
}' -c "sh -c '/bin/true; /bin/true'"
printf 'write_shared 1, returns 1\ncopies 1, at written addresses 1, of pages 1, returns 1\n' >$T/want
expect "vm.write_shared(_copy)(.return): copy-on-write after sh forks"

# a6. tcp.ipv4.setsockopt and .return: ktap-sockopt's calls, but the
#     SOL_SOCKET one (the socket layer's); IP_TOS (1 at SOL_IP) is named
#     as TCP option 1, as stap's optstr does
run -e 'probe tcp.ipv4.setsockopt {
	if (pid() == target())
		printf("%s %d %d %d %d %s %d\n", name, sock != 0, family, level, optname, optstr, optlen)
}
probe tcp.ipv4.setsockopt.return { if (pid() == target()) printf("%s %d\n", name, ret) }' -c ktap-sockopt
cat >$T/want <<'EOS'
tcp.ipv4.setsockopt 1 2 6 1 TCP_NODELAY 4
tcp.ipv4.setsockopt 0
tcp.ipv4.setsockopt 1 2 6 6 TCP_KEEPCNT 4
tcp.ipv4.setsockopt -22
tcp.ipv4.setsockopt 1 2 0 1 TCP_NODELAY 4
tcp.ipv4.setsockopt 0
tcp.ipv4.setsockopt 1 10 6 1 TCP_NODELAY 4
tcp.ipv4.setsockopt 0
EOS
expect "tcp.ipv4.setsockopt(.return): ktap-sockopt's TCP and IP options"

# c1. scheduler.balance: a kprobe on the new-idle balancer
#     (sched_balance_newidle() in Debian's 6.1); CPUs going idle while
#     sh runs a few sleeps balance
run -e 'global n
probe scheduler.balance { if (name == "balance") n++ }
probe end { println(n > 0) }' -c "sh -c 'sleep 0.1; sleep 0.1; sleep 0.1'"
printf '1\n' >$T/want
expect "scheduler.balance: fires as CPUs go idle"

# c2. vm.brk: ktap-malloc's 100000-byte block grows the heap with brk
#     (under malloc's mmap threshold); page-aligned ranges
run -e 'global n, bad
probe vm.brk {
	if (pid() == target() && name == "brk") {
		n++
		if (address % 4096 || length <= 0 || length % 4096) bad++
	}
}
probe end { printf("%d %d\n", n > 0, bad) }' -c "ktap-malloc 1x100000"
printf '1 0\n' >$T/want
expect "vm.brk: heap growth of ktap-malloc, page-aligned address and length"

# c3. tcp.setsockopt(.return): tcp.ipv4 and tcp.ipv6 together; an
#     option at SOL_IPV6 (41) of a TCP socket goes through
#     tcp_setsockopt() to ipv6_setsockopt(): both fire, nested
run -e 'probe tcp.setsockopt {
	if (pid() == target())
		printf("%s %d %d %d %s %d\n", name, family, level, optname, optstr, optlen)
}
probe tcp.setsockopt.return { if (pid() == target()) printf("%s %d\n", name, ret) }' -c "ktap-sockopt v6"
cat >$T/want <<'EOS'
tcp.ipv4.setsockopt 2 6 1 TCP_NODELAY 4
tcp.ipv4.setsockopt 0
tcp.ipv4.setsockopt 2 6 6 TCP_KEEPCNT 4
tcp.ipv4.setsockopt -22
tcp.ipv4.setsockopt 2 0 1 TCP_NODELAY 4
tcp.ipv4.setsockopt 0
tcp.ipv4.setsockopt 10 6 1 TCP_NODELAY 4
tcp.ipv4.setsockopt 0
tcp.ipv4.setsockopt 10 41 26 UNDEF_SOCKOPT(26) 4
tcp.ipv6.setsockopt 10 41 26 IPV6_V6ONLY 4
tcp.ipv6.setsockopt 0
tcp.ipv4.setsockopt 0
tcp.ipv4.setsockopt 10 41 16 TCP_THIN_LINEAR_TIMEOUTS 4
tcp.ipv6.setsockopt 10 41 16 IPV6_UNICAST_HOPS 4
tcp.ipv6.setsockopt -22
tcp.ipv4.setsockopt -22
EOS
expect "tcp.setsockopt(.return), tcp.ipv6.setsockopt(.return): ktap-sockopt v6's options"

# c4. dw_kprocess.create: a kretprobe on copy_process(); sh forks twice
run -e 'probe dw_kprocess.create {
	if (pid() == target())
		printf("%d %d %s\n", new_pid == new_tid, new_pid != target(), task_execname(task))
}' -c "sh -c '/bin/true; /bin/true; :'"
printf '1 1 sh\n1 1 sh\n' >$T/want
expect "dw_kprocess.create: copy_process()'s new tasks"

# b1. signal.do_action, signal.procmask and their .return: ktap-signals'
#     sigaction() and sigprocmask() calls (its own, not ktap's before the
#     exec: execname())
run -e 'probe signal.do_action {
	if (pid() == target() && execname() == "ktap-signals")
		printf("%s %d %s %s [%s] %d\n", name, sig, sig_name, sa_handler > 1 ? "handler" : sa_handler_str(sa_handler),
		       sigset_mask_str(sa_mask), oldsigact_addr != 0)
}
probe signal.procmask {
	if (pid() == target() && execname() == "ktap-signals")
		printf("%s %d [%s] %d\n", name, how, sigset_mask_str(sigset), oldsigset_addr != 0)
}
probe signal.do_action.return, signal.procmask.return {
	if (pid() == target() && execname() == "ktap-signals") printf("%s %s\n", name, retstr)
}' -c ktap-signals
cat >$T/want <<'EOS'
do_action 10 SIGUSR1 handler [12] 0
do_action 0
do_action 12 SIGUSR2 handler [] 0
do_action 0
procmask 0 [12] 0
procmask 0
procmask 1 [12] 0
procmask 0
procmask 0 [14] 0
procmask 0
do_action 11 SIGSEGV handler [] 0
do_action 0
EOS
expect "signal.do_action(.return), signal.procmask(.return): ktap-signals' sigaction and sigprocmask calls"

# b2. signal.checkperm(.return), signal.send.return (the
#     signal from signal.send, the tracepoint just before in the same
#     function) and signal.handle.return in ktap-signals: kill of a
#     blocked SIGUSR2, tgkill and tkill of SIGUSR1 (handled at once),
#     SIGUSR2 handled when unblocked, a write to 0's SIGSEGV handled (its
#     SIGCHLD to ktap at exit left out).  Not signal.wakeup: 6.1 inlines
#     signal_wake_up_state() into complete_signal(), so sending a signal
#     to a task does not reach the kprobe.
run -e 'global last
function ours() { return pid() == target() && execname() == "ktap-signals" }
probe signal.checkperm {
	if (ours())
		printf("%s %d %s %s %s %s\n", name, sig, sig_name, sig_pid == target() ? "self" : "other",
		       pid_name, si_code)
}
probe signal.checkperm.return { if (ours()) printf("%s %s\n", name, retstr) }
probe signal.send { if (ours()) last[tid()] = sig_name }
probe signal.send.return {
	if (ours() && name == "__send_signal_locked" && last[tid()] != "SIGCHLD")
		printf("send %s %s %s shared %d send2queue %d\n", last[tid()], name, retstr, shared, send2queue)
}
probe signal.handle.return { if (ours()) printf("%s %d %s %s\n", name, sig, sig_name, retstr) }' -c ktap-signals
cat >$T/want <<'EOS'
checkperm 12 SIGUSR2 self ktap-signals SI_KERNEL (SIGFPE, SIGSEGV, SIGTRAP, SIGCHLD, SIGPOLL)
checkperm 0
send SIGUSR2 __send_signal_locked 0 shared 1 send2queue 0
checkperm 10 SIGUSR1 self ktap-signals SI_KERNEL (SIGFPE, SIGSEGV, SIGTRAP, SIGCHLD, SIGPOLL)
checkperm 0
send SIGUSR1 __send_signal_locked 0 shared 0 send2queue 0
handle 10 SIGUSR1 0
checkperm 10 SIGUSR1 self ktap-signals SI_KERNEL (SIGFPE, SIGSEGV, SIGTRAP, SIGCHLD, SIGPOLL)
checkperm 0
send SIGUSR1 __send_signal_locked 0 shared 0 send2queue 0
handle 10 SIGUSR1 0
handle 12 SIGUSR2 0
send SIGSEGV __send_signal_locked 0 shared 0 send2queue 0
handle 11 SIGSEGV 0
EOS
expect "signal.checkperm(.return), signal.send.return, signal.handle.return: ktap-signals' own signals"

# b3. signal.send_sig_queue(.return) and signal.send.return of
#     send_sigqueue: ktap-signals' POSIX timer fires once (in whatever
#     context the CPU was: the returns are matched by CPU); it fires
#     while ktap-signals spins
run -e 'global on, q, r, sr
probe signal.send_sig_queue {
	if (sig_pid == target()) {
		q = sprintf("%s %d %s %d", name, sig, sig_name, sigqueue_addr != 0)
		on[cpu()] = 1
	}
}
probe signal.send_sig_queue.return { if (cpu() in on) r = sprintf("%s %s", name, retstr) }
probe signal.send.return {
	if (cpu() in on && name == "send_sigqueue") {
		sr = sprintf("%s %s shared %d send2queue %d", name, retstr, shared, send2queue)
		delete on[cpu()]
	}
}
probe end { printf("%s\n%s\n%s\n", q, r, sr) }' -c ktap-signals
cat >$T/want <<'EOS'
send_sig_queue 14 SIGALRM 1
send_sig_queue 0
send_sigqueue 0 shared 0 send2queue 1
EOS
expect "signal.send_sig_queue(.return), signal.send.return: ktap-signals' timer signal"

# b4. signal.handle.return in ktap-signals' child: SIGUSR1's handler
#     frame on a read-only alternate stack cannot be written (the kernel
#     then forces SIGSEGV: force_sigsegv(), which 6.1 inlines into
#     signal_setup_done(), so signal.force_segv does not see it)
run -e 'probe signal.handle.return {
	if (pid() != target() && execname() == "ktap-signals") printf("%s %d %s %s\n", name, sig, sig_name, retstr)
}' -c ktap-signals
echo "handle 10 SIGUSR1 -14 (EFAULT)" >$T/want
expect "signal.handle.return: ktap-signals' child's unwritable signal stack (EFAULT)"
# d1..d3. scsi.*: the scsi_debug disk (loaded at boot: KTAP_VM_KMODS of
#     vm-scripts.sh), found by its model; its delay set to 0, so that the
#     driver completes each command in the submitter's context (dd's, not
#     a timer's softirq in whatever task runs, which may be ktap's own,
#     whose records ktap drops).  A 4-block O_DIRECT dd is 4 requests of
#     4096 bytes: each one scsi.ioentry (scsi_queue_rq()), scsi.iodispatching
#     (the tracepoint), scsi.iodone (scsi_done()) and scsi.iocompleted
#     (scsi_io_completion()), the same request at each.
sdev= hctl=
for d in /sys/bus/scsi/devices/*; do
	case $(cat $d/model 2>/dev/null) in scsi_debug*) sdev=$(ls $d/block 2>/dev/null); hctl=${d##*/} ;; esac
done
if [ -z "$sdev" ] || [ ! -b /dev/$sdev ]; then
	not_ok "scsi.*: no scsi_debug disk (hctl '$hctl', disk '$sdev')"
else
	echo 0 >/sys/bus/pseudo/drivers/scsi_debug/delay
	set -- $(echo $hctl | tr : ' ')
	h=$1 c=$2 t=$3 l=$4
	mm=$(cat /sys/block/$sdev/dev)
	scsi_io='global n, ent, same
probe scsi.ioentry { n["ioentry", sprintf("%d:%d %s", disk_major, disk_minor, device_state_str)]++; ent[req_addr] = 1 }
probe scsi.iodispatching { n["iodispatching", sprintf("%d:%d:%d:%d", host_no, channel, dev_id, lun)]++ }
probe scsi.iodone {
	n["iodone", sprintf("%d:%d:%d:%d %s %d %s timer %d", host_no, channel, dev_id, lun,
			    device_state_str, data_direction, data_direction_str, scsi_timer_pending)]++
	if (req_addr in ent) same["iodone"]++
}
probe scsi.iocompleted {
	n["iocompleted", sprintf("%d:%d:%d:%d %s %d %s %d", host_no, channel, dev_id, lun,
				 device_state_str, data_direction, data_direction_str, goodbytes)]++
	if (req_addr in ent) same["iocompleted"]++
}
probe end {
	foreach ([p+, k] in n) printf("%s %s x%d\n", p, k, n[p, k])
	printf("req_addr of ioentry: iodone %d iocompleted %d\n", same["iodone"], same["iocompleted"])
}'
	# d1. reads
	run -e "$scsi_io" -c "dd if=/dev/$sdev of=/dev/null bs=4096 count=4 iflag=direct"
	cat >$T/want <<EOS
iocompleted $h:$c:$t:$l RUNNING 2 FROM_DEVICE 4096 x4
iodispatching $h:$c:$t:$l x4
iodone $h:$c:$t:$l RUNNING 2 FROM_DEVICE timer 1 x4
ioentry ${mm%:*}:${mm#*:} RUNNING x4
req_addr of ioentry: iodone 4 iocompleted 4
EOS
	expect "scsi.ioentry, scsi.iodispatching, scsi.iodone, scsi.iocompleted: dd reads 4 blocks of $sdev ($hctl) with O_DIRECT"

	# d2. writes
	run -e "$scsi_io" -c "dd if=/dev/zero of=/dev/$sdev bs=4096 count=4 oflag=direct"
	cat >$T/want <<EOS
iocompleted $h:$c:$t:$l RUNNING 1 TO_DEVICE 4096 x4
iodispatching $h:$c:$t:$l x4
iodone $h:$c:$t:$l RUNNING 1 TO_DEVICE timer 1 x4
ioentry ${mm%:*}:${mm#*:} RUNNING x4
req_addr of ioentry: iodone 4 iocompleted 4
EOS
	expect "scsi.ioentry, scsi.iodispatching, scsi.iodone, scsi.iocompleted: dd writes 4 blocks of $sdev with O_DIRECT"

	# d3. rmmod scsi_debug: the device goes RUNNING -> CANCEL -> DEL,
	#     and sd's shutdown, between, executes a SYNCHRONIZE CACHE
	#     (no data) that succeeds
	run -e 'probe scsi.set_state {
	printf("set_state %d:%d:%d:%d %d %s -> %d %s\n", host_no, channel, dev_id, lun, old_state, old_state_str, state, state_str)
}
probe scsi.ioexecute {
	printf("ioexecute %d:%d:%d:%d %s %s %d %d\n", host_no, channel, dev_id, lun, device_state_str,
	       data_direction_str, request_buffer, request_bufflen)
}
probe scsi.ioexecute.return { printf("ioexecute.return %d:%d:%d:%d %d\n", host_no, channel, dev_id, lun, retval) }' -c "rmmod scsi_debug"
	cat >$T/want <<EOS
set_state $h:$c:$t:$l 2 RUNNING -> 3 CANCEL
ioexecute $h:$c:$t:$l CANCEL NONE 0 0
ioexecute.return $h:$c:$t:$l 0
set_state $h:$c:$t:$l 3 CANCEL -> 4 DEL
EOS
	expect "scsi.set_state, scsi.ioexecute(.return): rmmod scsi_debug"
fi
guest_done
