# guest-structs.sh - the syscall tapset's decoders of structs in user
# memory (tapset/aux_syscalls_structs.stp) where the kernel fetches them:
# each syscall probe reading one is a kprobe on the call's __x64_sys_
# wrapper.  tests/tools/ktap-sc-structs' known calls; sourced at the end
# of guest-ktap.sh (3 checks).

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
