#!/bin/sh
# tapset-live.sh - the tapset's probes on the live kernel (TAP, root):
# the kprocess probes of a known command (exec, fork, start, exec, exit,
# release) and the signal probes of a shell that kills its child and of
# tests/tools/ktap-signals (the system-call ones), with exact values.
# This kernel has no kprobes, so every '!' alias takes its tracepoint
# fallback; tests/vm/guest-ktap.sh and guest-scripts.sh check the kprobe
# side.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

require_live "the tapset probes trace the live kernel: run make check as root"
[ -r /sys/kernel/tracing/events/task/task_newtask/format ] ||
	skip_all "no task:task_newtask tracepoint (tracefs not mounted?)"

# 1-2. kprocess: sh runs ls, then execs sleep (absolute paths: no PATH
#      search, whose failed execs would show).  Without kprobes, exec's
#      filename is "" and exit's code 0.  The release of ls (an RCU
#      callback after sh reaped it) may come before or after sh's exec,
#      so it is checked on its own.  The command's own start (its
#      return from ktap's fork) may or may not be seen: left out.
cat >"$TMP/kp.stp" <<'EOS'
global ours
probe begin { ours[target()] = 1 }
probe kprocess.create {
	if (pid() in ours) {
		ours[new_pid] = 1
		printf("create by %d: new_pid %d new_tid %d thread %d\n", pid(), new_pid,
		       new_tid, (clone_flags & 65536) != 0)
	}
}
probe kprocess.start { if (pid() in ours && tid() != target()) printf("start %d\n", tid()) }
probe kprocess.exec { if (pid() in ours) printf("exec %d %s [%s]\n", pid(), name, filename) }
probe kprocess.exec_complete {
	if (pid() in ours)
		printf("exec_complete %d %s %s errno %d success %d\n", pid(), execname(), name,
		       errno, success)
}
probe kprocess.exit { if (pid() in ours) printf("exit %d %s code %d\n", pid(), execname(), code) }
probe kprocess.release { if (released_pid in ours) printf("release %d %d\n", released_pid, released_tid) }
EOS
run_ktap "$TMP" "$TMP/out" "$TMP/err" -w -c "/bin/sh -c '/bin/ls / >/dev/null; exec /bin/sleep 0.3'" kp.stp
norm_pids "$TMP/out" >"$TMP/norm"
grep -v '^release' "$TMP/norm" >"$TMP/got" || :
cat >"$TMP/want" <<'EOW'
exec P1 execve []
exec_complete P1 sh execve errno 0 success 1
create by P1: new_pid P2 new_tid P2 thread 0
start P2
exec P2 execve []
exec_complete P2 ls execve errno 0 success 1
exit P2 ls code 0
exec P1 execve []
exec_complete P1 sleep execve errno 0 success 1
exit P1 sleep code 0
EOW
expect_same "kprocess.exec, exec_complete, create, start, exit of sh running ls then exec'ing sleep" "$TMP/want" "$TMP/got"
if [ "$(grep -c '^release' "$TMP/norm")" -eq 1 ] && grep -qx 'release P2 P2' "$TMP/norm"; then
	ok "kprocess.release: once, for ls"
else
	not_ok "kprocess.release of ls"
	diag_file "$TMP/norm"
fi

# 3. signals: sh starts sleep in the background, sends it SIGUSR1 (its
#    default action kills, so the kernel delivers it as SIGKILL), the
#    dying child sends sh SIGCHLD, which sh's handler takes, and sh's own
#    exit sends SIGCHLD to ktap (P3, which runs the command).
cat >"$TMP/sig.stp" <<'EOS'
global ours
probe begin { ours[target()] = 1 }
probe kprocess.create { if (pid() in ours) ours[new_pid] = 1 }
probe signal.send {
	if (pid() in ours || sig_pid in ours)
		printf("send %s %d from %d to %d shared %d result %d: %s\n", sig_name, sig,
		       pid(), sig_pid, shared, result, si_code)
}
probe signal.handle {
	if (pid() in ours)
		printf("handle %s %d in %d: %s, %s\n", sig_name, sig, pid(), sig_mode,
		       sa_handler == 0 ? "default action" : "handler")
}
probe signal.deliver { if (pid() in ours) printf("deliver %s\n", signal_str(sig)) }
EOS
run_ktap "$TMP" "$TMP/out" "$TMP/err" -w -c "/bin/sh -c '/bin/sleep 5 & kill -USR1 \$!; wait'" sig.stp
norm_pids "$TMP/out" >"$TMP/got"
cat >"$TMP/want" <<'EOW'
send SIGUSR1 10 from P1 to P2 shared 1 result 0: SI_USER or SI_TIMER or SI_ASYNCIO
handle SIGKILL 9 in P2: User Mode Signal, default action
deliver KILL
send SIGCHLD 17 from P2 to P1 shared 1 result 0: SI_KERNEL (SIGFPE, SIGSEGV, SIGTRAP, SIGCHLD, SIGPOLL)
handle SIGCHLD 17 in P1: Kernel Mode Signal, handler
deliver CHLD
send SIGCHLD 17 from P1 to P3 shared 1 result 0: SI_KERNEL (SIGFPE, SIGSEGV, SIGTRAP, SIGCHLD, SIGPOLL)
EOW
expect_same "signal.send, signal.handle, signal.deliver: kill -USR1 of a child, its SIGCHLDs" "$TMP/want" "$TMP/got"
# 4. signal.syskill, signal.systkill, signal.systgkill, signal.pending and
#    their .return (system-call tracepoints): ktap-signals' kill of
#    itself, sigpending(), tgkill and tkill of itself, and at the end
#    kill(child, 0) of its reaped child (ESRCH).
SIGS=$KTAP_BUILDDIR/tests/tools/ktap-signals
if [ -x "$SIGS" ]; then
	cat >"$TMP/sys.stp" <<'EOS'
probe signal.syskill, signal.systkill {
	if (pid() == target()) printf("%s %d %s %s\n", name, sig, sig_name, sig_pid == target() ? "self" : "other")
}
probe signal.systgkill {
	if (pid() == target())
		printf("%s %d %s %d %d\n", name, sig, sig_name, sig_pid == tid(), tgid == target())
}
probe signal.syskill.return, signal.systkill.return, signal.systgkill.return {
	if (pid() == target()) printf("%s %s\n", name, retstr)
}
probe signal.pending { if (pid() == target()) printf("%s %d %d\n", name, sigset_add != 0, sigset_size) }
probe signal.pending.return { if (pid() == target()) printf("%s %s\n", name, retstr) }
EOS
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -w -c "$SIGS" sys.stp
	cat >"$TMP/want" <<'EOW'
syskill 12 SIGUSR2 self
syskill 0
pending 1 8
pending 0
systgkill 10 SIGUSR1 1 1
systgkill 0
systkill 10 SIGUSR1 self
systkill 0
syskill 0 SIG_0 other
syskill -3 (ESRCH)
EOW
	expect_same "signal.syskill, systkill, systgkill, pending and .return: ktap-signals' kill, tgkill, tkill, sigpending" "$TMP/want" "$TMP/out"
else
	skip "signal.syskill ... of ktap-signals" "no $SIGS (make check builds it)"
fi
done_testing
