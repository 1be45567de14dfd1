#!/bin/sh
# run-options.sh - pass-5 command-line behaviour that needs no root (TAP):
# -o FILE, -D limits and their errors, -v lines, the exit status of
# exit() and of errors, and syslog() reaching syslog(3) (seen through
# strace, when installed, as a datagram sent to /dev/log); output that
# cannot be written (/dev/full through -o and stdout, a full tmpfs when
# root) is one error and exit status 1; -T bounds a -c command that
# ignores SIGTERM; a -c command that cannot run is an error.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

# Its runs start pass 5 (begin probes: an instance as root).
live_lock

run_ktap "$TMP" "$TMP/out" "$TMP/err" -o "$TMP/file.txt" -e \
	'probe begin { printf("to the file\n"); exit() }'
if [ "$rc" -eq 0 ] && [ ! -s "$TMP/out" ] && [ "$(cat "$TMP/file.txt")" = "to the file" ]; then
	ok "-o FILE: the script's output goes to FILE, nothing to stdout"
else
	not_ok "-o FILE (exit status $rc)"
	diag_file "$TMP/err"
fi

# switch_file(): FILE, then FILE.1, FILE.2 (stapio's names with -o and no -S).
run_ktap "$TMP" "$TMP/out" "$TMP/err" -o "$TMP/sw" -e 'probe begin {
	for (i = 1; i <= 5; i++) { printf("line %d\n", i); if (i % 2 == 0) switch_file() }
	exit() }'
if [ "$rc" -eq 0 ] && [ "$(cat "$TMP/sw")" = "$(printf 'line 1\nline 2')" ] &&
	[ "$(cat "$TMP/sw.1")" = "$(printf 'line 3\nline 4')" ] && [ "$(cat "$TMP/sw.2")" = "line 5" ] &&
	! [ -e "$TMP/sw.3" ] && ! [ -s "$TMP/out" ]; then
	ok "-o FILE and switch_file(): FILE, FILE.1, FILE.2"
else
	not_ok "-o FILE and switch_file() (exit status $rc)"
	diag_file "$TMP/err"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" -o /nonexistent/dir/f -e 'probe begin { exit() }'
if [ "$rc" -eq 1 ] && grep -q "^ktap: error: cannot open /nonexistent/dir/f" "$TMP/err"; then
	ok "-o into a missing directory: one error, exit status 1"
else
	not_ok "-o into a missing directory (exit status $rc)"
	diag_file "$TMP/err"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" -D MAXACTION=zero -e 'probe begin { exit() }'
if [ "$rc" -eq 1 ] && grep -q "^ktap: error: -D MAXACTION expects a number > 0, got 'zero'" "$TMP/err"; then
	ok "-D MAXACTION=zero is refused"
else
	not_ok "-D MAXACTION=zero (exit status $rc)"
	diag_file "$TMP/err"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" -D STP_NO_OVERLOAD -D MAXERRORS=0 -e 'probe begin { exit() }'
if [ "$rc" -eq 0 ] && grep -q "^WARNING: -D STP_NO_OVERLOAD has no effect in ktap" "$TMP/err"; then
	ok "-D of a stap module macro: a warning, not an error"
else
	not_ok "-D STP_NO_OVERLOAD (exit status $rc)"
	diag_file "$TMP/err"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" -v -e 'probe begin { exit() }'
if [ "$rc" -eq 0 ] && grep -q "^Pass 5: starting run\.$" "$TMP/err" &&
	grep -qE "^Pass 5: run completed in [0-9]+usr/[0-9]+sys/[0-9]+real ms\.$" "$TMP/err"; then
	ok "-v: stap's Pass 5 lines"
else
	not_ok "-v: stap's Pass 5 lines"
	diag_file "$TMP/err"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'probe begin { error("stop here") } probe end { print("no\n") }'
if [ "$rc" -eq 1 ] && grep -q "^ERROR: stop here" "$TMP/err" && [ ! -s "$TMP/out" ]; then
	ok "error(): message, no end probe, exit status 1"
else
	not_ok "error() (exit status $rc)"
	diag_file "$TMP/err"
fi

KTAP_TRACEFS=$KTAP_SRCDIR/tests/fixtures/tracefs run_ktap "$TMP" "$TMP/out" "$TMP/err" \
	-L 'kernel.trace("sched:sched_process_*")'
cat >"$TMP/want" <<'EOW'
kernel.trace("sched:sched_process_exec") $filename:__data_loc char[] $pid:pid_t $old_pid:pid_t $bprm->filename:__data_loc char[] $p->pid:pid_t
kernel.trace("sched:sched_process_exit") $comm:char[16] $pid:pid_t $prio:int $group_dead:bool $p->comm:char[16] $p->pid:pid_t $p->prio:int
kernel.trace("sched:sched_process_fork") $parent_comm:__data_loc char[] $parent_pid:pid_t $child_comm:__data_loc char[] $child_pid:pid_t $parent->comm:__data_loc char[] $parent->pid:pid_t $child->comm:__data_loc char[] $child->pid:pid_t
kernel.trace("sched:sched_process_free") $comm:__data_loc char[] $pid:pid_t $prio:int $p->comm:__data_loc char[] $p->pid:pid_t $p->prio:int
kernel.trace("sched:sched_process_wait") $comm:__data_loc char[] $pid:pid_t $prio:int
EOW
if [ "$rc" -eq 0 ] && cmp -s "$TMP/want" "$TMP/out"; then
	ok "-L on tracepoints: sorted points with their fields and C types, then the arguments the fields hold"
else
	not_ok "-L on tracepoints (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/out"
	diag_file "$TMP/err"
fi

if command -v strace >/dev/null 2>&1; then
	(cd "$TMP" && timeout -k 5 "$KTAP_TIMEOUT" strace -f -s 200 -e trace=connect,sendto,send,write \
		-o "$TMP/strace" "$KTAP" -e 'probe begin { syslog("ktap says hello"); exit() }') \
		>"$TMP/out" 2>"$TMP/err"
	if [ -S /dev/log ] && grep -q 'ktap says hello' "$TMP/strace"; then
		ok "syslog(): the message goes to /dev/log through syslog(3)"
	elif [ ! -S /dev/log ] && grep -q 'connect(.*"/dev/log"' "$TMP/strace"; then
		ok "syslog(): syslog(3) tries /dev/log # (no syslog daemon here to receive it)"
	else
		not_ok "syslog(): no message to /dev/log"
		diag_file "$TMP/strace" 40
	fi
else
	skip "syslog() reaches syslog(3)" "strace is not installed"
fi

# --- output that cannot be written: one error, the run ends, status 1 ---
run_ktap "$TMP" "$TMP/out" "$TMP/err" -o /dev/full -e 'probe begin { println("x"); exit() }'
printf 'ERROR: writing /dev/full: No space left on device\n' >"$TMP/want"
if [ "$rc" -eq 1 ] && cmp -s "$TMP/want" "$TMP/err"; then
	ok "-o /dev/full: one error, exit status 1"
else
	not_ok "-o /dev/full (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/err"
fi

(cd "$TMP" && exec timeout -k 5 "$KTAP_TIMEOUT" "$KTAP" -e \
	'probe begin { println("x") } probe timer.ms(10) { println("y") } probe end { println("z") }') \
	>/dev/full 2>"$TMP/err" </dev/null
rc=$?
printf 'ERROR: writing stdout: No space left on device\n' >"$TMP/want"
if [ "$rc" -eq 1 ] && cmp -s "$TMP/want" "$TMP/err"; then
	ok "stdout to /dev/full: one error, the run ends by itself, exit status 1"
else
	not_ok "stdout to /dev/full (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/err"
fi

if [ "$(id -u)" -eq 0 ] && mkdir "$TMP/small" && mount -t tmpfs -o size=64k tmpfs "$TMP/small" 2>/dev/null; then
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -D MAXACTION=1000000 -o "$TMP/small/f" -e \
		'probe begin { for (i = 0; i < 10000; i++) printf("%09d 0123456789012345678901234567890\n", i); exit() }'
	umount "$TMP/small"
	printf 'ERROR: writing %s: No space left on device\n' "$TMP/small/f" >"$TMP/want"
	if [ "$rc" -eq 1 ] && cmp -s "$TMP/want" "$TMP/err"; then
		ok "-o FILE on a full file system (64k tmpfs): one error, exit status 1"
	else
		not_ok "-o FILE on a full file system (exit status $rc)"
		diag_diff "$TMP/want" "$TMP/err"
	fi
else
	skip "-o FILE on a full file system" "needs root to mount a small tmpfs"
fi

# --- -c: -T bounds a command that ignores SIGTERM; one that cannot run fails ---
t0=$(date +%s%N)
run_ktap "$TMP" "$TMP/out" "$TMP/err" -T 1 -c 'sh -c "trap \"\" TERM; exec sleep 15"' -e 'probe begin { }'
ms=$((($(date +%s%N) - t0) / 1000000))
if [ "$rc" -eq 0 ] && [ "$ms" -lt 4000 ]; then
	ok "-T 1 with a -c command that ignores SIGTERM: SIGKILL after the grace period ($ms ms)"
else
	not_ok "-T 1 with a -c command that ignores SIGTERM: exit status $rc after $ms ms"
	diag_file "$TMP/err"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" -c no-such-cmd -e 'probe begin { }'
printf "ERROR: cannot run 'no-such-cmd': No such file or directory\n" >"$TMP/want"
if [ "$rc" -eq 1 ] && cmp -s "$TMP/want" "$TMP/err"; then
	ok "-c no-such-cmd: an error, exit status 1"
else
	not_ok "-c no-such-cmd (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/err"
fi

done_testing
