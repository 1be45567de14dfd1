#!/bin/sh
# timer-profile.sh - timer.profile on this machine's kernel (TAP): the
# scheduler tick of every busy CPU, in the interrupted task's context.
# tests/tools/ktap-spin keeps each CPU busy for 2 s in user space; then
# each CPU ticks CONFIG_HZ times a second (all tasks counted: +-20%), the
# spinner's share of the ticks matches the CPU time it got (its own
# getrusage: +-50%), and those ticks name it (execname(), one tid per
# CPU) with its stacks: the kernel's from the timer interrupt, the user
# one from ktap_spin_loop().  Without root, or without this kernel's
# configuration (for HZ), the live part is skipped; the errors (hidden
# kallsyms, no tick handler, no kallsyms in a saved target, perf-based
# timer.profile.freq) are checked on copies of the 6.18 fixture target.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
S=$KTAP_BUILDDIR/tests/tools/ktap-spin
F=$KTAP_SRCDIR/tests/fixtures
TR=/sys/kernel/tracing
unset KTAP_TRACEFS KTAP_KCONFIG

# err_case DESC LINE ARGS...: ktap ARGS fails (status 1), its first line LINE.
err_case() {
	_d=$1 _t=$2
	shift 2
	run_ktap "$TMP" "$TMP/out" "$TMP/err" "$@"
	check_err "$_d" "$_t"
}

# target_copy NAME KALLSYMS: the 6.18 fixture with kallsyms KALLSYMS
# ("-": none) in $TMP/NAME.
target_copy() {
	cp -R "$F/target-6.18" "$TMP/$1"
	rm -f "$TMP/$1/kallsyms"
	if [ "$2" != - ]; then cp "$2" "$TMP/$1/kallsyms"; fi
}
P='probe timer.profile { n++ } global n'
target_copy hidden "$F/kallsyms/kallsyms-hidden"
printf '%s\n' "0000000000000000 t tick_nohz_handler" >>"$TMP/hidden/kallsyms"
err_case "hidden kallsyms addresses: a located error saying so" \
	"<input>:1:7: error: timer.profile filters on the address of the scheduler tick's handler, read from kallsyms: kernel addresses are hidden: $TMP/hidden/kallsyms shows every address as 0 (kernel.kptr_restrict is set, or ktap is not root or lacks CAP_SYSLOG); run as root with kernel.kptr_restrict=0 or 1" \
	-p3 --target "$TMP/hidden" -e "$P"
target_copy nohandler "$F/kallsyms/kallsyms"
err_case "no tick handler in kallsyms: the names looked for" \
	"<input>:1:7: error: timer.profile: kallsyms has no tick_sched_timer (Linux < 6.9) or tick_nohz_handler (6.9 and later), the scheduler tick's hrtimer handler that ktap keeps timer:hrtimer_expire_entry to" \
	-p3 --target "$TMP/nohandler" -e "$P"
target_copy none -
err_case "a saved target without kallsyms: save it again" \
	"<input>:1:7: error: timer.profile filters on the address of the scheduler tick's handler, read from kallsyms: the target directory $TMP/none has no kallsyms (saved by an older ktap: save it again with 'ktap --save-target DIR')" \
	-p3 --target "$TMP/none" -e "$P"
err_case "timer.profile.freq.hz(N) is refused (perf)" \
	"<input>:1:7: error: timer.profile.freq.hz(N) samples with a perf event, which ktap does not create (it uses tracefs only): use timer.profile (every scheduler tick, CONFIG_HZ per second per busy CPU)" \
	-p3 --target "$F/target-6.18" -e 'probe timer.profile.freq.hz(100) { }'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 --target "$TMP/none" -e "probe timer.profile ? { } probe begin { exit() }"
if [ "$rc" -eq 0 ] && ! grep -q hrtimer "$TMP/out"; then
	ok "an optional timer.profile that cannot resolve is dropped"
else
	not_ok "optional timer.profile (exit status $rc)"
	diag_file "$TMP/err"
fi

# ---- live ----
if [ "$(id -u)" -ne 0 ]; then
	skip "live timer.profile" "needs root"
	done_testing
	exit 0
fi
require_live "timer.profile needs root"
[ -d $TR/events/timer/hrtimer_expire_entry ] || skip_all "no timer:hrtimer_expire_entry at $TR"
require_tools "$S" "$TFS_SNAP"
hz=$({ zcat /proc/config.gz 2>/dev/null || cat "/boot/config-$(uname -r)" 2>/dev/null; } |
	sed -n 's/^CONFIG_HZ=\([0-9]*\)$/\1/p')
[ -n "$hz" ] || skip_all "this kernel's configuration (CONFIG_HZ) is not readable"
ncpu=$(getconf _NPROCESSORS_ONLN)

tfs_guard_begin

# 1. ticks per CPU from the spinner's first tick there to its last: the
#    spinner is pinned and always runnable, so the CPU never idles in
#    between and ticks every 1/HZ s whoever runs (other load included);
#    the spinner's own ticks, against the CPU time it got: tick sampling
#    is biased under load (tasks woken by the tick run right after it),
#    so only within +-50%; and their context.
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'global first, last, n, nlast, mine, e, t
	 probe timer.profile {
		c = cpu(); now = gettimeofday_ns()
		if (pid() == target()) {
			if (!(c in first)) first[c] = now
			last[c] = now; mine++; e[execname()]++; t[tid()] = 1
		}
		if (c in first) { n[c]++; if (pid() == target()) nlast[c] = n[c] }
	 }
	 probe end {
		foreach (c+ in first)
			printf("cpu %d %d %d\n", c, nlast[c] - 1, (last[c] - first[c]) / 1000000)
		printf("mine %d\n", mine)
		foreach (x in e) printf("execname %s\n", x)
		foreach (y in t) nt += t[y]
		printf("tids %d\n", nt)
	 }' -c "$S 2000"
ncounted=$(grep -c '^cpu ' "$TMP/out")
bad=$(awk -v hz="$hz" '/^cpu / && ($4 < 1000 || $3 < hz * $4 / 1000 * 0.8 || $3 > hz * $4 / 1000 * 1.2)' "$TMP/out")
if [ "$rc" -eq 0 ] && [ "$ncounted" -eq "$ncpu" ] && [ -z "$bad" ]; then
	ok "each of the $ncpu busy CPUs ticked HZ ($hz) times a second (+-20%) (cpu, ticks, ms: $(grep '^cpu ' "$TMP/out" | tr '\n' ' '))"
else
	not_ok "ticks per busy CPU at HZ $hz on $ncpu CPUs (exit status $rc)"
	diag_file "$TMP/out"
	explain "$TMP/err"
fi
cpu_ms=$(sed -n 's/^cpu_ms=//p' "$TMP/err")
mine=$(sed -n 's/^mine //p' "$TMP/out")
if [ -n "$cpu_ms" ] && [ -n "$mine" ] &&
	awk -v m="$mine" -v w="$((cpu_ms * hz / 1000))" 'BEGIN { exit !(w > 0 && m >= w * 0.5 && m <= w * 1.5) }'; then
	ok "the spinner's ticks ($mine) match its CPU time ($cpu_ms ms * HZ $hz, +-50%)"
else
	not_ok "the spinner's ticks ($mine) against its CPU time ($cpu_ms ms, HZ $hz)"
	diag_file "$TMP/out"
fi
# (A tick may also land in the -c child between its fork and its exec,
# still named ktap: CI saw one.)
if grep -qx 'execname ktap-spin' "$TMP/out" &&
	[ "$(grep '^execname' "$TMP/out" | grep -cvx -e 'execname ktap-spin' -e 'execname ktap')" -eq 0 ] &&
	grep -qx "tids $ncpu" "$TMP/out"; then
	ok "its ticks are in its context: execname() ktap-spin, one tid() per CPU"
else
	not_ok "the interrupted task's context"
	diag_file "$TMP/out"
fi

# 2. its stacks: the timer interrupt's kernel stack; the user stack's
#    innermost frame, most often ktap_spin_loop (some ticks land in the
#    vDSO's clock_gettime, which keeps no frame to unwind from)
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'global n, u
	 probe timer.profile {
		if (pid() != target()) next
		if (n++ == 20) { print_backtrace(); println("--") }
		u[tokenize(sprint_ubacktrace(), "\n")]++
	 }
	 probe end { foreach (k in u- limit 1) println(k) }' -c "$S 1000"
if [ "$rc" -eq 0 ] && grep -q ' : hrtimer_interrupt+0x[0-9a-f]*/0x[0-9a-f]* \[kernel\]$' "$TMP/out" &&
	sed -n '/^--$/{n;p;}' "$TMP/out" | grep -q '^ktap_spin_loop+0x[0-9a-f]* \[ktap-spin\]$'; then
	ok "print_backtrace(): the timer interrupt's frames; the usual user frame: ktap_spin_loop"
else
	not_ok "stacks of a tick (exit status $rc)"
	diag_file "$TMP/out"
	explain "$TMP/err"
fi
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'global a
	 probe timer.profile { if (pid() == target()) a[backtrace()] <<< 1 }
	 probe end { foreach (k in a- limit 1) { print_stack(k); printf("%d\n", @count(a[k])) } }' -c "$S 1000"
if [ "$rc" -eq 0 ] && grep -q ' : hrtimer_interrupt+' "$TMP/out" &&
	[ "$(tail -n 1 "$TMP/out")" -gt $((hz / 4)) ]; then
	ok "a[backtrace()] <<< 1: an on-CPU profile ($(tail -n 1 "$TMP/out") ticks in the top stack)"
else
	not_ok "a[backtrace()] <<< 1 (exit status $rc)"
	diag_file "$TMP/out"
	explain "$TMP/err"
fi

tfs_guard_end "tracefs is as it was"

done_testing
