# guest-structs.sh - the syscall tapset's decoders of structs in user
# memory (tapset/aux_syscalls_structs.stp) where the kernel fetches them:
# each syscall probe reading one is a kprobe on the call's __x64_sys_
# wrapper.  tests/tools/ktap-sc-structs' known calls; sourced at the end
# of guest-ktap.sh (4 checks).

# s1. the target golden's script (tests/golden/target/syscall-structs.stp):
#     timespecs (NULL for nanosleep's), sigactions, futex's timeout and
#     FUTEX_WAKE_OP's operation, setitimer's itimerval (a call without
#     an alias: the generic prologue's variables and stap's argstr),
#     connect's socket addresses of three families and their uaddr_*
#     variables; connect's and futex's wrappers are named by their
#     COND_SYSCALL stubs' BTF (the pt_regs parameter "__unused")
: >$T/scs
run /tests/syscall-structs.stp -c "ktap-sc-structs $T/scs"
sed 's/0x[0-9a-f]\{5,\}/ADDR/g' $T/out >$T/out.1
mv $T/out.1 $T/out
cat >$T/want <<'EOS'
nanosleep([0.001000000], 0x0)
nanosleep(NULL, 0x0)
rt_sigaction(SIGUSR1, {0x1234, SA_RESTART|SA_RESTORER, 0x5678, [SIGINT|SIGTERM]}, 0x0, 8)
rt_sigaction(SIGUSR1, {SIG_DFL}, 0x0, 8)
rt_sigaction(SIGUSR2, {SIG_IGN}, 0x0, 8)
rt_sigaction(SIGUSR2, {SIG_DFL}, 0x0, 8)
connect(3, {AF_INET, 127.0.0.1, 9}, 16)
connect AF_INET 127.0.0.1 9
connect(4, {AF_INET6, 0000:0000:0000:0000:0000:0000:0000:0001, 9}, 28)
connect AF_INET6 0000:0000:0000:0000:0000:0000:0000:0001 9
connect(5, {AF_UNIX, "/nonexistent/ktap.sock"}, 110)
connect AF_UNIX  
futex(ADDR, FUTEX_WAIT, 1, [0.000001000])
futex(ADDR, FUTEX_WAKE_OP, 1, 1, ADDR, {FUTEX_OP_SET, 1, FUTEX_OP_CMP_GT, 0})
setitimer(ITIMER_VIRTUAL, [1.000500,0.000000], 0x0)
EOS
expect "struct decoders fetched by kprobes: timespec, sigaction, sockaddr, futex, itimerval"

# s2. the rest of ktap-sc-structs' calls: select's timeval, pselect6's
#     and ppoll's timespecs, rt_sigprocmask's sigset, sendto's and bind's
#     addresses (bind: a call without an alias), setrlimit's and
#     prlimit64's rlimits (NULL), utimensat's two special timespecs,
#     timerfd_settime's itimerspec
run -e 'global on
probe syscall.getppid { if (pid() == target()) on = !on }
probe syscall.clock_nanosleep, syscall.select, syscall.pselect6, syscall.ppoll,
	syscall.rt_sigprocmask, syscall.sendto, syscall.setrlimit,
	syscall.prlimit64, syscall.utimensat, syscall.timerfd_settime
{
	if (pid() == target() && on)
		printf("%s(%s)\n", name, argstr)
}
probe syscall.bind {
	if (pid() == target() && on)
		printf("%s(%s)\n%s %s %s %s\n", name, argstr, name, uaddr_af, uaddr_ip, uaddr_ip_port)
}' \
	-c "ktap-sc-structs $T/scs"
sed 's/0x[0-9a-f]\{5,\}/ADDR/g' $T/out >$T/out.1
mv $T/out.1 $T/out
cat >$T/want <<EOS
clock_nanosleep(CLOCK_MONOTONIC, 0x0, [0.000002000], 0x0)
select(0, 0x0, 0x0, 0x0, [0.001500])
pselect6(0, 0x0, 0x0, 0x0, [0.000002500], 0x0)
ppoll(0x0, 0, [0.000003000], 0x0, 8)
rt_sigprocmask(SIG_BLOCK, [SIGUSR1], 0x0, 8)
rt_sigprocmask(SIG_UNBLOCK, [SIGUSR1], 0x0, 8)
sendto(3, ADDR, 1, 0x0, {AF_INET, 127.0.0.1, 9}, 16)
bind(6, {AF_INET, 127.0.0.1, 0}, 16)
bind AF_INET 127.0.0.1 0
setrlimit(RLIMIT_CORE, [0,0])
prlimit64(0, RLIMIT_NOFILE, NULL, ADDR)
utimensat(AT_FDCWD, "$T/scs", [UTIME_OMIT][UTIME_NOW], 0x0)
timerfd_settime(7, TFD_TIMER_ABSTIME, [0.000000,0.000000], 0x0)
EOS
expect "struct decoders fetched by kprobes: timeval, timespecs, sigset, sockaddr, rlimit, UTIME_*, itimerspec"

# s3. an empty user string fetched by a kprobe: before Linux 6.5 the
#     kernel records it with no bytes, as it records a fault; its first
#     byte, fetched beside it, says it is "" (ktap-sc-structs' last call,
#     newfstatat(7, "", &st, AT_EMPTY_PATH), as glibc's fstat() makes it)
run -e 'global on
probe syscall.getppid { if (pid() == target()) on = !on }
probe syscall.fstatat { if (pid() == target() && on) printf("%s(%s) [%s] %d\n", name, argstr, user_string($filename), strlen(path)) }' \
	-c "ktap-sc-structs $T/scs"
sed 's/0x[0-9a-f]\{5,\}/ADDR/g' $T/out >$T/out.1
mv $T/out.1 $T/out
echo 'fstatat(7, "", ADDR, AT_EMPTY_PATH) [] 2' >$T/want
expect "an empty user string read by a kprobe is \"\", not a fault (6.1 records both without bytes)"

# s4. ktap-sc-structs' calls between its second and third markers:
#     sigaltstack's stack_t (0x0 for a NULL one, as stap), sched_attr,
#     siginfo_t of a queued signal (SI_QUEUE's pid and uid, SI_TIMER's
#     tid and overrun) and of rt_sigtimedwait's buffer as it was at the
#     entry (SIGCHLD's status, a fault's address; a signal's own si_code
#     after the hex number, as stap 4.8 prints it), tms and sysinfo as
#     they were at the entry, adjtimex's and clock_adjtime's timex (modes
#     0), the [lf]setxattr values (a zero byte at the end left out, \xNN,
#     50 bytes at most) and io_getevents' timespec (calls without an alias:
#     sema_syscall_vars.def's decoders)
run -e 'global n
probe syscall.getppid { if (pid() == target()) n++ }
probe syscall.sigaltstack, syscall.sched_getattr, syscall.sched_setattr,
	syscall.rt_sigqueueinfo, syscall.rt_tgsigqueueinfo, syscall.rt_sigtimedwait,
	syscall.times, syscall.sysinfo, syscall.adjtimex, syscall.clock_adjtime,
	syscall.setxattr, syscall.lsetxattr, syscall.fsetxattr, syscall.io_getevents
{
	if (pid() == target() && n == 2)
		printf("%s(%s)\n", name, argstr)
}' \
	-c "ktap-sc-structs $T/scs"
sed -e 's/0x[0-9a-f]\{5,\}/ADDR/g' -e 's/^rt_sigqueueinfo([0-9]*,/rt_sigqueueinfo(PID,/' \
	-e 's/^rt_tgsigqueueinfo([0-9]*, [0-9]*,/rt_tgsigqueueinfo(PID, PID,/' $T/out >$T/out.1
mv $T/out.1 $T/out
cat >$T/want <<EOS
sigaltstack({ss_sp=ADDR, ss_flags=0x0, ss_size=65536}, 0x0)
sigaltstack(0x0, ADDR)
sigaltstack({ss_sp=0x0, ss_flags=SS_DISABLE, ss_size=0}, 0x0)
sched_getattr(0, {size=48, sched_policy=0, sched_flags=0, sched_nice=-5, sched_priority=0, sched_runtime=1, sched_deadline=2, sched_period=3}, 48, 0)
sched_setattr(0, {size=48, sched_policy=0, sched_flags=0, sched_nice=0, sched_priority=0, sched_runtime=0, sched_deadline=0, sched_period=0}, 0)
rt_sigqueueinfo(PID, SIGUSR1, {si_signo=SIGUSR1, si_code=SI_QUEUE, si_pid=1234, si_uid=5678})
rt_tgsigqueueinfo(PID, PID, SIGUSR2, {si_signo=SIGUSR2, si_code=SI_TIMER, si_tid=0x10, si_overrun=-1})
rt_sigtimedwait([SIGUSR1], {si_signo=SIGCHLD, si_code=0x1CLD_EXITED, si_pid=1, si_uid=2, si_status=3}, [0.000000000], 8)
rt_sigtimedwait([SIGUSR2], {si_signo=SIGSEGV, si_code=0x1SEGV_MAPERR, si_addr=0x1000}, [0.000000000], 8)
times({tms_utime=1, tms_stime=2, tms_cutime=3, tms_cstime=4})
sysinfo({uptime=5, loads=[1, 2, 3], totalram=4, freeram=5, sharedram=6, bufferram=7, totalswap=8, freeswap=9, procs=10})
adjtimex({0x0, constant=1, esterror=2, freq=3, maxerror=4, offset=5, precision=6, status=7, tick=8, tolerance=9})
clock_adjtime(CLOCK_REALTIME, {0x0, constant=1, esterror=2, freq=3, maxerror=4, offset=5, precision=6, status=7, tick=8, tolerance=9})
setxattr("$T/scs", "user.ktap", "val", 4, XATTR_CREATE)
lsetxattr("$T/scs", "user.ktap", "\\x01ab", 3, 0x0)
fsetxattr(-1, "user.ktap", "01234567890123456789012345678901234567890123456789", 60, XATTR_REPLACE)
io_getevents(0, 0, 0, 0x0, [0.000004000])
EOS
expect "struct decoders fetched by kprobes: stack_t, sched_attr, siginfo_t, tms, sysinfo, timex, xattr values, io_getevents"
