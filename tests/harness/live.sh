#!/bin/sh
# live.sh - pass 5 on this machine's kernel (TAP).  Root and tracefs only;
# otherwise the whole file is skipped with a message.
#
# Exact counts of getppid(2) calls made by tests/tools/ktap-getppid, with
# and without kernel filters, -c and -x targets, exit() ordering, timers
# in -T windows; the -c target's parent and name before it execs; ktap's
# own context switches kept out of sched_switch; and the tracefs state
# (tests/tools/ktap-tfs-snapshot) compared before and after runs that end
# by exit(), every signal a terminal or pipeline sends (SIGINT, SIGTERM,
# SIGHUP, SIGQUIT, SIGPIPE, a closed pipe under `| head -3`), -T, a setup
# error, SIGKILL (the guardian cleans up within 2 s) and SIGKILL of ktap
# and its guardian (the next run cleans up); sessions in other PID
# namespaces (unshare) never disable each other's events.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
GP=$KTAP_BUILDDIR/tests/tools/ktap-getppid
UT=$KTAP_BUILDDIR/tests/tools/ktap-uprobe-target
TP='kernel.trace("syscalls:sys_enter_getppid")'

require_live "live tests need root (run make check as root)"
[ -d /sys/kernel/tracing/events/syscalls ] ||
	skip_all "no tracefs with syscall events at /sys/kernel/tracing"
require_tools "$GP" "$UT" "$TFS_SNAP"

# expect DESC WANT_FILE: compare $TMP/out with WANT_FILE (and rc 0).
expect() {
	if [ "$rc" -ne 0 ] || [ -n "$why" ]; then
		not_ok "$1"
		explain "$TMP/err"
	elif cmp -s "$2" "$TMP/out"; then
		ok "$1"
	else
		not_ok "$1"
		diag_diff "$2" "$TMP/out"
		diag_file "$TMP/err"
	fi
}

count='global c
probe '"$TP"' { if (tid() == target()) c++ }
probe end { printf("%d\n", c) }'

# --- exact counts ---
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "$count" -c "$GP 12345"
expect_text "-c: handler counts exactly 12345 getppid calls of target()" 12345

filtered='global c
probe '"$TP"' { if (tid() != target()) next; c++ }
probe end { printf("%d\n", c) }'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e "$filtered"
if grep -q "filter '(common_pid == \$TARGET) && (common_pid != \$KTAP || common_flags & 0x58)'" "$TMP/out"; then
	ok "-p3: 'if (tid() != target()) next' becomes a kernel filter"
else
	not_ok "-p3: 'if (tid() != target()) next' becomes a kernel filter"
	diag_file "$TMP/out"
fi
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "$filtered" -c "$GP 23456"
expect_text "-c: kernel-filtered count is exactly 23456" 23456

threads='global c
probe '"$TP"' { if (pid() == target()) c++ }
probe end { printf("%d\n", c) }'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "$threads" -c "$GP -t 4 5000"
expect_text "-c: pid() counts the calls of all 4 threads (20000)" 20000

byname='global c
probe '"$TP"' { if (pid() == target()) c[execname()]++ }'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "$byname" -c "$GP 777"
expect_text "execname() of a process that exited before its events were read" \
	'c["ktap-getppid"]=0x309'

stop='global c
probe '"$TP"' { if (tid() == target() && ++c == 1000) exit() }
probe end { printf("%d\n", c) }'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "$stop" -c "$GP 5000"
expect_text "exit() at the 1000th event: no handler runs after it" 1000

# -x PID: the workload waits for SIGUSR1, sent once ktap's begin has run.
xpid='global c
probe begin { printf("armed\n") }
probe '"$TP"' { if (tid() == target()) { c++; if (c == 4321) exit() } }
probe end { printf("%d\n", c) }'
"$GP" -w 4321 &
gp=$!
rm -f "$TMP/out" "$TMP/err"
(cd "$TMP" && exec timeout -k 5 "$KTAP_TIMEOUT" "$KTAP" -x "$gp" -e "$xpid") \
	>"$TMP/out" 2>"$TMP/err" &
kp=$!
i=0
while [ $i -lt 300 ] && ! grep -qs armed "$TMP/out"; do sleep 0.1; i=$((i + 1)); done
kill -USR1 "$gp"
wait "$kp"
rc=$? why=
wait "$gp"
expect_text "-x PID: counts exactly the 4321 calls of that process" "armed
4321"

# --- the -c target before it execs: ktap's child, named as ktap ---
before_exec='global me, n
probe begin { me = pid() }
probe kernel.trace("syscalls:sys_enter_execve") {
	if (pid() == target()) printf("%s %d\n", execname(), ppid() == me) }
probe '"$TP"' { if (pid() == target() && !n++) printf("%s %d\n", execname(), ppid() == me) }
probe end { if (!n) println("no getppid") }'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "$before_exec" -c "$GP 1"
expect_text "-c target: ppid() is ktap, execname() ktap's until the exec" "ktap 1
ktap-getppid 1"

# --- ktap's own context switches and wake-ups are not traced ---
# shellcheck disable=SC2016 # $prev_pid & co. are the script's
own='global me, n
probe begin { me = pid() }
probe kernel.trace("sched:sched_switch") { if ($prev_pid == me || $next_pid == me) n++ }
probe kernel.trace("sched:sched_wakeup") { if ($pid == me) n++ }
probe scheduler.ctxswitch { if (prev_pid == me || next_pid == me) n++ }
probe end { printf("%d\n", n) }'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -T 1 -e "$own"
expect_text "sched_switch, sched_wakeup, scheduler.ctxswitch: none of ktap's own" 0

# -x PID of a process that ends before its records are read: its name
# comes from the process table seeded when the run started.
xname='global c
probe begin { printf("armed\n") }
probe '"$TP"' { if (pid() == target()) c[execname()]++ }'
"$GP" -w 1000 &
gp=$!
rm -f "$TMP/out" "$TMP/err"
(cd "$TMP" && exec timeout -k 5 "$KTAP_TIMEOUT" "$KTAP" -x "$gp" -e "$xname") \
	>"$TMP/out" 2>"$TMP/err" &
kp=$!
i=0
while [ $i -lt 300 ] && ! grep -qs armed "$TMP/out"; do sleep 0.1; i=$((i + 1)); done
kill -USR1 "$gp"
wait "$gp"
sleep 0.5
signal_ktap INT "$kp"
wait "$kp"
rc=$? why=
expect_text "-x PID that exited before its records were read: execname() from the start" \
	'armed
c["ktap-getppid"]=0x3e8'

# --- timers ---
run_ktap "$TMP" "$TMP/out" "$TMP/err" -T 1 -e \
	'global n; probe timer.ms(100) { n++ } probe end { printf("%d\n", n) }'
expect_text "timer.ms(100) fires 10 times in -T 1" 10
run_ktap "$TMP" "$TMP/out" "$TMP/err" -T 1 -e \
	'global a, b; probe timer.hz(20) { a++ } probe timer.us(250000) { b++ }
	 probe end { printf("%d %d\n", a, b) }'
expect_text "timer.hz(20) and timer.us(250000) in -T 1: 20 and 4 ticks" "20 4"

# --- cleanup: tracefs is the same before and after every kind of end ---
tfs_guard_begin

# same DESC: tracefs now is as it was at tfs_guard_begin.
same() { tfs_guard_end "$1"; }

long='global c
probe begin { printf("armed\n") }
probe '"$TP"' { c++ }
probe kernel.trace("sched:sched_switch") { c++ }'

run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "$stop" -c "$GP 5000"
same "tracefs unchanged after a run ended by exit()"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -T 1 -e "$long"
same "tracefs unchanged after a run ended by -T"

# bg_ktap: start ktap on $long in the background, wait until armed.
bg_ktap() {
	# A fresh file: the last test's output says "armed" too.
	rm -f "$TMP/out" "$TMP/err"
	(cd "$TMP" && exec "$KTAP" -e "$long") >"$TMP/out" 2>"$TMP/err" &
	kp=$!
	i=0
	while [ $i -lt 300 ] && ! grep -qs armed "$TMP/out"; do sleep 0.1; i=$((i + 1)); done
}

for sig in INT TERM HUP QUIT PIPE; do
	bg_ktap
	kill -$sig "$kp"
	wait "$kp"
	rc=$?
	if [ $rc -eq 0 ]; then
		same "tracefs unchanged after SIG$sig (exit status 0)"
	else
		not_ok "SIG$sig: exit status $rc (armed after $i tenths of a second)"
		diag_file "$TMP/out"
		diag_file "$TMP/err"
	fi
done

# A closed pipe: `ktap ... | head -3`, with a uprobe armed too.  ktap
# itself must clean up (no death by SIGPIPE, no message), not its guardian.
piped='probe kernel.trace("sched:sched_switch") { println(execname()) }
probe process("'"$UT"'").function("handle") { }'
{ timeout -k 5 "$KTAP_TIMEOUT" "$KTAP" -e "$piped" 2>"$TMP/err"; echo $? >"$TMP/rc"; } |
	head -3 >"$TMP/out"
rc=$(cat "$TMP/rc")
if [ "$rc" -le 1 ] && [ ! -s "$TMP/err" ] && [ "$(wc -l <"$TMP/out")" -eq 3 ]; then
	same "ktap ... | head -3: ktap ends by itself (exit status $rc), tracefs unchanged"
else
	not_ok "ktap ... | head -3: exit status $rc"
	diag_file "$TMP/err"
fi
# A setup error: the plan enables an event this kernel does not have
# (pass 2 reads a fake format from the fixtures), so the write fails
# after the instance was made.
KTAP_TRACEFS=$KTAP_SRCDIR/tests/fixtures/tracefs run_ktap "$TMP" "$TMP/out" "$TMP/err" \
	-e 'probe kernel.trace("ktap_test:no_such_event") { exit() }'
if [ "$rc" -eq 1 ] && grep -q "^ERROR: .*ktap_test/no_such_event" "$TMP/err"; then
	same "tracefs unchanged after a setup error (exit status 1, ERROR: message)"
else
	not_ok "setup error: exit status $rc"
	diag_file "$TMP/err"
fi

# gone PATTERN: wait up to 2 s until no instance matches PATTERN and no
# dynamic event is in such a group; true if so.
gone() {
	i=0
	while [ $i -lt 20 ]; do
		# shellcheck disable=SC2086 # $1 is a glob
		if ! ls -d /sys/kernel/tracing/instances/$1 >/dev/null 2>&1 &&
			! grep -q ":$1/" /sys/kernel/tracing/dynamic_events 2>/dev/null; then
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# SIGKILL: the guardian removes everything, with no other ktap run.  The
# script arms a uprobe too (a dynamic event of the session's group).
sk='global c
probe begin { printf("armed\n") }
probe '"$TP"' { c++ }
probe process("'"$UT"'").function("handle") { c++ }'
rm -f "$TMP/out" "$TMP/err"
(cd "$TMP" && exec "$KTAP" -e "$sk") >"$TMP/out" 2>"$TMP/err" &
kp=$!
i=0
while [ $i -lt 300 ] && ! grep -qs armed "$TMP/out"; do sleep 0.1; i=$((i + 1)); done
if ! ls -d /sys/kernel/tracing/instances/ktap_"$kp"_* >/dev/null 2>&1 ||
	! grep -q ":ktap_${kp}_" /sys/kernel/tracing/dynamic_events; then
	not_ok "SIGKILL: the session's instance and uprobe were not there to begin with"
	diag_file "$TMP/err"
	kill -TERM "$kp"
	wait "$kp"
else
	kill -KILL "$kp"
	wait "$kp"
	if gone "ktap_${kp}_*"; then
		same "SIGKILL: within 2 s, with no other ktap run, tracefs is as before"
	else
		not_ok "SIGKILL: instances/ktap_${kp}_* still there after 2 s"
	fi
fi

# SIGKILL of ktap and its guardian at once: the next run's sweep proves
# the session dead (its lock is free) and removes it.
bg_ktap
gd=$(pgrep -P "$kp" ktap-guardian)
kill -KILL "$kp" ${gd:+"$gd"}
wait "$kp"
if [ -n "$gd" ] && ls -d /sys/kernel/tracing/instances/ktap_"$kp"_* >/dev/null 2>&1; then
	ok "SIGKILL of ktap and guardian $gd leaves instances/ktap_${kp}_* behind"
else
	not_ok "SIGKILL of ktap and its guardian (guardian '$gd'): nothing left to clean up?"
fi
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "$stop" -c "$GP 5000"
same "the next run removes what they left"

# PID namespaces: a session's ownership is its lock, not a pid, so a
# ktap in another PID namespace (pid 1 there) neither disables a running
# session nor another namespace's ktap that has the same pid.
if command -v unshare >/dev/null 2>&1 && unshare -fp --mount-proc true 2>/dev/null; then
	mine='global n
probe begin { printf("armed\n") }
probe '"$TP"' { if (execname() == "ktap-getppid") n++ }
probe end { printf("n=%d\n", n) }'
	rm -f "$TMP/out" "$TMP/err"
	(cd "$TMP" && exec "$KTAP" -e "$mine") >"$TMP/out" 2>"$TMP/err" &
	kp=$!
	(cd "$TMP" && exec unshare -fp --mount-proc "$KTAP" -T 6 -e "$mine") \
		>"$TMP/ns1.out" 2>"$TMP/ns1.err" &
	np=$!
	i=0
	while [ $i -lt 300 ] && ! { grep -qs armed "$TMP/out" && grep -qs armed "$TMP/ns1.out"; }; do
		sleep 0.1
		i=$((i + 1))
	done
	(cd "$TMP" && timeout -k 5 "$KTAP_TIMEOUT" unshare -fp --mount-proc "$KTAP" -T 1 \
		-e 'probe '"$TP"' { }') >"$TMP/ns2.out" 2>"$TMP/ns2.err"
	"$GP" 1000
	kill -INT "$kp"
	wait "$kp"
	rc=$? why=
	printf 'armed\nn=1000\n' >"$TMP/want"
	expect "unshare -fp: a ktap in another PID namespace leaves the host's session counting (1000)" \
		"$TMP/want"
	wait "$np"
	rc=$? why=
	cp "$TMP/ns1.out" "$TMP/out"
	cp "$TMP/ns1.err" "$TMP/err"
	expect "... and two ktaps that are both pid 1 in their namespaces keep their own (1000)" \
		"$TMP/want"
else
	skip "unshare -fp: a ktap in another PID namespace leaves the host's session counting" \
		"unshare -p is not available"
	skip "... and two ktaps that are both pid 1 in their namespaces keep their own" \
		"unshare -p is not available"
fi

# --- lost events are reported, never silent ---
# 3M traced calls take a few seconds, far more on a loaded machine: a
# timeout would cut the run short (SIGTERM: partial count, no loss), so
# this run gets a generous one, and a timeout is reported as such.
saved_timeout=$KTAP_TIMEOUT
KTAP_TIMEOUT=$((KTAP_TIMEOUT * 6))
run_ktap "$TMP" "$TMP/out" "$TMP/err" -s 1 -e "$count" -c "$GP 3000000"
KTAP_TIMEOUT=$saved_timeout
if [ -n "$why" ]; then
	not_ok "3000000 events through 1 MB buffers: $why"
	diag_file "$TMP/err"
elif grep -qE '^WARNING: [0-9]+ events lost$' "$TMP/err"; then
	ok "3000000 events through 1 MB buffers: WARNING: N events lost"
elif [ "$rc" -eq 0 ] && [ "$(cat "$TMP/out")" = 3000000 ]; then
	ok "3000000 events through 1 MB buffers: none lost, all counted"
else
	not_ok "events missing without a warning: $(cat "$TMP/out") (exit status $rc)"
	diag_file "$TMP/err"
fi
same "tracefs unchanged after all the runs above"
done_testing
