#!/bin/sh
# stapex.sh - SystemTap's example scripts that need no kprobes, on this
# kernel (TAP): the "here" lines of tests/stapex.list, each run as stap's
# install check runs it (the test_installcheck: line of NAME.meta, ktap
# for stap), with a background workload (a loop running ktap-getppid,
# cat and the shell's kill -0) so that the examples tracing system calls,
# reads, forks, execs, signals, kill() and waits see events.  Per example: exit status 0, no ERROR or
# WARNING line and no compile warning but the expected ones (below), and
# the shape of its output: its header lines, and every line in the
# example's own formats, with at least one data line where the workload
# guarantees events.  The examples are read from the installed package
# (systemtap-doc), not copied; without them the test skips.  Live (root,
# the live lock), about 2 minutes.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

E=${KTAP_STAP_EXAMPLES:-/usr/share/systemtap/examples}
GP=$KTAP_BUILDDIR/tests/tools/ktap-getppid
[ -d "$E" ] || skip_all "$E is absent (SystemTap's examples: package systemtap-doc)"
require_live "the examples trace the live kernel: run make check as root"
require_tools "$GP"

# Compile warnings this kernel explains (no kprobes: system-call string
# arguments and exec file names are not readable), ktap's lint on the
# examples' own code, and ioblock's bdev, which the block tracepoints do
# not record (tapset/ioblock.stp).
expected_warnings="variable '[a-z_]+' of [a-z_.]+: this kernel has no kprobes|kprocess.exec: 'filename' is \"\" on this kernel|variable '[a-z_]+' is assigned but never read|eliding assignment to '[a-z_]+': nothing reads it|eliding side-effect-free expression|mbrwatch.stp:.*variable 'bdev(_contains)?' is read but never assigned|socket-events.stp:.*variable 's' is read but never assigned"

# The workload, until the script ends.
(
	trap 'exit 0' TERM
	while :; do
		"$GP" 50 >/dev/null
		cat /etc/hostname >/dev/null
		kill -0 $$ 2>/dev/null	# a kill() that sends nothing
		sleep 0.05
	done
) &
wl=$!
at_exit 'kill $wl 2>/dev/null'

# stap ARGS...: ktap ARGS, as the install check lines call it; output to
# $TMP/out and $TMP/err, status in rc (run_ktap in the example's directory).
stap() { run_ktap "$dir" "$TMP/out" "$TMP/err" "$@"; }

# clean NAME CMD: rc 0, no ERROR or WARNING line, no unexpected warning.
# "WARNING: N events lost" is the report ktap owes when the machine's
# other processes make more events than the reader keeps up with (the
# examples tracing every read and write see a parallel build's; CI's
# sanitizer build reads slowly): noted, not failed.  Exact counts are
# checked by the tests that own the workload (live.sh, filter tests).
clean() {
	grep -E '^(ERROR|WARNING)|(error|warning):' "$TMP/err" |
		grep -vE "$expected_warnings" >"$TMP/bad"
	_lost=$(grep -xE 'WARNING: [0-9]+ events lost' "$TMP/bad")
	grep -vxE 'WARNING: [0-9]+ events lost' "$TMP/bad" >"$TMP/bad2" || :
	mv "$TMP/bad2" "$TMP/bad"
	if [ "$rc" -eq 0 ] && [ -z "$why" ] && ! [ -s "$TMP/bad" ]; then
		[ -n "$_lost" ] && echo "# $1: the machine's load: $_lost"
		ok "$1: $2 exits 0 without errors or unexpected warnings"
	else
		not_ok "$1: $2 (exit status $rc${why:+, $why})"
		diag_file "$TMP/err"
	fi
}

# shape NAME DESC REQUIRED... -- ALLOWED...: every line of $TMP/out
# matches (whole line, extended regular expression) a REQUIRED or an
# ALLOWED pattern, and each REQUIRED pattern matches some line.
shape() {
	_name=$1 _desc=$2 _miss=
	shift 2
	cp "$TMP/out" "$TMP/rest"
	_req=1
	for _re in "$@"; do
		if [ "$_re" = -- ]; then _req=; continue; fi
		[ -n "$_req" ] && ! grep -qxE -e "$_re" "$TMP/out" && _miss="$_miss '$_re'"
		grep -vxE -e "$_re" "$TMP/rest" >"$TMP/rest2" || :
		mv "$TMP/rest2" "$TMP/rest"
	done
	if [ "$rc" -eq 0 ] && [ -z "$_miss" ] && ! [ -s "$TMP/rest" ]; then
		ok "$_name: $_desc"
	else
		not_ok "$_name: $_desc (exit status $rc)"
		[ -n "$_miss" ] && echo "# no line matches$_miss"
		[ -s "$TMP/rest" ] && { echo "# unexpected lines:"; head -n 5 "$TMP/rest" | sed "s/^/#   /"; }
		head -n 20 "$TMP/out" | sed "s/^/#   /"
	fi
}

# Shared patterns: a @hist_log/@hist_linear table, a ctime() date.
HIST=' *value \|-+ count|( *[0-9-]+ \|@* +[0-9]+)| *~|'
CTIME='(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ 0-9][0-9] [0-9:]{8} [0-9]{4}'
HDR8='%16s %8s %8s %8s %8s %8s %8s %8s'

for name in $(sed -n 's/^\([^#][^ ]*\) here$/\1/p' "$KTAP_SRCDIR/tests/stapex.list"); do
	dir=$E/${name%/*}
	[ -f "$E/$name.meta" ] || { not_ok "$name: $E/$name.meta is missing"; continue; }
	ic=$(sed -n 's/^test_installcheck: *//p' "$E/$name.meta" |
		sed "s|/tmp/switchfile.stp.out|$TMP/switchfile.out|")
	rm -f "$TMP"/switchfile.out*
	eval "$ic"
	# More distinct keys than MAXMAPENTRIES in the run: how many the
	# machine's other processes make, not ktap's doing.
	if [ "$rc" -eq 1 ] && grep -q '^ERROR: Array overflow, check MAXMAPENTRIES' "$TMP/err"; then
		skip "$name: $ic" "more than MAXMAPENTRIES keys on this busy machine"
		continue
	fi
	clean "$name" "$ic"
	case $name in
	general/alias_suffixes)
		shape $name "per-syscall interval histograms" \
			'Collecting data\.\.\. press Ctrl-C to stop\.' \
			'intervals for [a-z0-9_]+ -- min:[0-9]+us avg:[0-9]+us max:[0-9]+us count:[0-9]+ variance:[0-9]+' \
			-- "$HIST" ;;
	general/ansi_colors | general/ansi_colors2)
		shape $name "the colour table: header, rule, 16 or 32 rows" \
			'fg,t \\ bg \|   40      41      42      43      44      45      46      47   ' \
			'-{75}' -- '   3[0-7],[0-9]   \|.*' ;;
	general/func_time_stats)
		shape $name "the intervals histogram of syscall.read" \
			'intervals min:[0-9]+us avg:[0-9]+us max:[0-9]+us count:[0-9]+ variance:[0-9]+' \
			-- "$HIST" ;;
	general/helloworld)
		printf 'hello world\n' >"$TMP/want"
		check "$name: hello world" ;;
	general/regex)
		shape $name "'opened FILE' lines, if any" -- 'opened .*' ;;
	general/watchdog | virtualization/qemu_count)
		# Nothing happens for them in 1 s of this machine.
		shape $name "no line (no event of theirs in the run)" -- ;;
	process/futexes)
		shape $name "'NAME[PID] lock ADDR contended N times, US avg us' lines, if any" \
			-- '.*\[[0-9]+\] lock 0x[0-9a-f]+ contended [0-9]+ times, [0-9]+ avg us' ;;
	general/also_ran | network/net_xmit_json | profiling/pf2 | profiling/syscallerrorsbypid | \
	profiling/syscalllatency | profiling/syscallsbypid | profiling/topsys)
		# Their reports come at 5 s or more, or through the procfs
		# file __prometheus (probe prometheus), which nobody reads here.
		shape $name "no line in a 1-second run" -- ;;
	general/eventcount)
		shape $name "its header, the period line, the table of the command's system calls, the end" \
			"Starting event counting at $CTIME [A-Z]+, pid [0-9]+ \+ children" \
			'Incremental reporting \(max 20 lines, sorted by count\) every 10 s' \
			'Period time elapsed: [0-9]+ ms, [0-9]+ events, [0-9]+ after filtering\.' \
			'TID                    COUNT \(Hz\)      EVENT' '---                    ----------      -----' \
			'sleep\([0-9]+\) +[0-9]+ \([0-9.]+\) +syscall_any' \
			"Finished event counting at $CTIME [A-Z]+\." -- '.+\([0-9]+\) +[0-9]+ \([0-9.]+\) +syscall_any' ;;
	general/graphs)
		shape $name "gnuplot's input: the range, the plot line, values, 'e' and pauses" \
			'set yrange \[0:100\]' "plot '-' title \"ioblock\" with lines, '-' title \"cpu\" with lines" \
			'[0-9]+' 'e' -- 'pause 1' ;;
	general/socket-events)
		printf 'No PID specified.  Use -c or -x.  See man stap for more information.\n' >"$TMP/want"
		check "$name: without -c or -x, its one line" ;;
	general/stopwatches)
		shape $name "the three stopwatches" 'wall clock +[0-9]+us' \
			'wall clock in user-space +[0-9]+us' 'wall clock in kernel-space +[0-9]+us' -- ;;
	interrupt/interrupts-by-dev)
		shape $name "its header and 'DEVICE : COUNT' lines" \
			"$(printf '\t  DEVICE \t NUMBER OF INTERRUPTS ')" -- ' *[^ ]+ : +[0-9]+' ;;
	memory/mmfilepage)
		shape $name "start, end, the header and one line per process" \
			'Starting data collection' 'mode - All Pids' 'Terminating data collection' \
			'Command                 Pid     Alloc      Free  F_fault    F_cow F_kunmap F_uunmap' \
			'-------                 ---     -----      ----  -------    ----- -------- --------' \
			'.+ +[0-9]+( +[0-9]+){6}' -- '' ;;
	process/cycle_thief)
		# (task 0 is the idle task: on a machine whose CPUs a parallel
		# make check keeps busy it may not run in the second, and the
		# example prints its on/off histograms only when it did)
		shape $name "task 0's migrations, on/off histograms and the table of other pids" \
			'task 0 migrated: [0-9]+' \
			'other pids taking processor from task 0' '   PID      count command' \
			'irq taking processor from task 0' \
			'   irq      count    min\(us\)    avg\(us\)    max\(us\) variance\(us\^2\)' \
			-- '' 'task 0 on processor \(us\):' 'task 0 off processor \(us\)' \
			"$HIST" ' *[0-9]+ +[0-9]+ .*' ' *[0-9]+( +[0-9]+){5}' ;;
	profiling/errno)
		shape $name "its header and 'PID SYSCALL PROCESS ERROR COUNT' lines" \
			'     PID Syscall                          Process          Error           Count' \
			-- '' ' *[0-9]+ [a-z0-9_]+ +.* E[A-Z0-9]+ +[0-9]+' ;;
	profiling/pf3)
		# k:MODULE:SYMBOL or u:FILE:SYMBOL (hex where none covers it;
		# a FILE may have blanks: "/memfd:NAME (deleted)")
		shape $name "the sample count and the top functions" \
			'--- [0-9]+ samples recorded:' '[ku]:.+:[^ ]+ *	 *[0-9]+' -- '' ;;
	profiling/pf4)
		# (a stack of more than MAXSTRINGLEN bytes is cut, as in stap)
		shape $name "the sample count, hits per CPU and their stacks" \
			'--- [0-9]+ samples recorded:' '[0-9]+ hits on cpu [0-9]+' -- '' \
			'<no kernel backtrace at timer\.profile\.tick>' \
			'[^ ]+( (\[[^]]*\]?)?)?' ;;
	profiling/thread-times)
		shape $name "its header and one line per thread" \
			' +comm +tid +%user %kernel \(of [0-9]+ ticks\)' \
			' *.+ +[0-9]+ +[0-9]+\.[0-9]{2}% +[0-9]+\.[0-9]{2}%' -- '' ;;
	profiling/ucalls)
		shape $name "python's output and the table of its system calls" 'hello world' \
			'METHOD                                              # CALLS TIME \(us\)' \
			'syscall\.[a-z0-9_]+ +[0-9]+ +[0-9]+' -- '' ;;
	process/migrate)
		shape $name "'thread TID (bash) is migrating from A to B' lines, if any" \
			-- 'thread [0-9]+ \(bash\) is migrating from [0-9]+ to [0-9]+ ' ;;
	io/iostats)
		shape $name "starting probe, the header and one line per process" \
			'starting probe' "$(printf "$HDR8" '' '' '' read read '' write write)" \
			"$(printf "$HDR8" name open read 'KB tot' 'B avg' write 'KB tot' 'B avg')" \
			' *[^ ]+( +[0-9]+){7}' -- '' ;;
	io/iotime)
		shape $name "access and iotime lines (cat of /etc/hostname)" \
			'[0-9]+ [0-9]+ \(cat\) access .* read: [0-9]+ write: [0-9]+' \
			-- '[0-9]+ [0-9]+ \(.*\) (access .* read: [0-9]+ write: [0-9]+|iotime .* time: [0-9]+|access .* fail)' ;;
	io/mbrwatch)
		shape $name "'block device MBR/partition table' lines, if any" -- '.*' ;;
	io/nfs_func_users)
		shape $name "its header (no NFS server here)" \
			'Collecting top NFSD procs\.\.\.' 'name\(pid\) nfs ops' -- '' '.*\([0-9]+\) [0-9]+' ;;
	io/switchfile)
		# -o FILE: the output goes to the file (or FILE.N files).
		cat "$TMP"/switchfile.out* >"$TMP/out" 2>/dev/null
		shape $name "Begin logging, log data each second, End logging in the -o file" \
			'Begin logging' 'log data' 'End logging' -- ;;
	lwtools/accept2close-nd)
		shape $name "its header and the duration histogram's title" \
			'TIME {21}PID    COMM {11}FD   DURATION' 'Duration \(ns\):' -- '' "$HIST" '.*' ;;
	lwtools/execsnoop-nd)
		# (an argument with a newline, as a build's shells have, makes
		# a line of any shape: '.*')
		shape $name "its header and one line per exec (ktap-getppid's)" \
			'TIME {24}UID   PPID    PID {11}COMM ARGS' \
			"$CTIME +[0-9]+ +[0-9]+ +[0-9]+ +ktap-getppid .*" \
			-- "$CTIME +[0-9]+ +[0-9]+ +[0-9]+ +.*" '.*' ;;
	lwtools/killsnoop-nd)
		# RESULT is int_arg(1) in the return: the entry's target pid
		# (stap's tracepoint-based syscall probes), not the result.
		shape $name "its header and one line per kill(), the workload's kill -0" \
			'FROM   COMMAND      SIG   TO     RESULT' \
			'[0-9]+ +.+ +0 +[0-9]+ +-?[0-9]+' \
			-- '[0-9]+ +.+ +[0-9]+ +[0-9]+ +-?[0-9]+' ;;
	lwtools/rwtime-nd)
		shape $name "read and write latency histograms" \
			'Tracing read/write syscalls\.\.\. Hit Ctrl-C to end\.' \
			'syscall read latency \(ns\):' -- 'syscall write latency \(ns\):' \
			'     value \|-+ count' "$HIST" ;;
	lwtools/syscallbypid-nd)
		shape $name "its header and one line per (pid, command, syscall)" \
			'Tracing syscall completions\.\.\. Hit Ctrl-C to end\.' \
			'PID      CMD {14}SYSCALL {21}COUNT' \
			'[0-9]+ +ktap-getppid +getppid +[0-9]+' -- '' '[0-9]+ +.* +[0-9]+' ;;
	memory/mmreclaim)
		shape $name "its report's frame" \
			'Starting data collection' 'Terminating data collection' \
			'Command {13}Pid   Direct   Cgroup Inactive SoftLimit' \
			'Totals( +[0-9]+){4}' -- '' 'mode - All Pids' '-------           -----   ------   ------ -------- ---------' '.*( +[0-9]+){5}' ;;
	memory/vm.tracepoints)
		shape $name "slab allocation counts per process" \
			'Process:.*' 'Slab_size:[0-9]+	Count:[0-9]+' -- '' '-{55}' ;;
	network/dropwatch)
		shape $name "its start and stop lines" \
			'Monitoring for dropped packets' 'Stopping dropped packet monitor' \
			-- '[0-9]+ packets dropped at .*' ;;
	network/nettop)
		shape $name "its header, lines per process if any" \
			'  PID   UID DEV          XMIT_PK RECV_PK XMIT_KB RECV_KB COMMAND        ' \
			-- '' ' *[0-9]+ +[0-9]+ .*' ;;
	network/tcp_connections)
		shape $name "its header, a line per accept if any" \
			'   UID              CMD    PID   PORT        IP_SOURCE' -- ' *[0-9]+ .*' ;;
	process/errsnoop)
		# Its 1-s timer and -T 1 race: the screen may not come.
		shape $name "its screen: header, lines 'HITS ERR/NAME SYSCALL PROCESS PID ARGS'" \
			-- "$(printf '\033\\[1;1H\033\\[J')HITS ERRSTR {18}SYSCALL {9}PROCESS   PID ARGSTR" \
			' *[0-9]+ +[0-9 ]+/[A-Z0-9]+ +[a-z0-9_]+ +.* +[0-9]+ .*' ;;
	process/forktracker)
		shape $name "forks and execs, one of ktap-getppid's" \
			"$CTIME : .* \\([0-9]+\\) is exec'ing .*" \
			"$CTIME : .* \\([0-9]+:[0-9]+\\) created [0-9]+:[0-9]+" -- ;;
	process/proctop)
		# 5-s intervals: nothing in 1 s.  Its timer reads sec_counter
		# ("if (++sec_counter >= interval)"), so stap prints no global
		# at the end either (a ++ whose value is used is a read).
		shape $name "nothing in 1 s, no global printed at the end" -- ;;
	process/pstree)
		# (exec arguments with newlines: lines of any shape, '.*')
		shape $name "a dot graph" 'digraph pstree \{' 'rankdir="LR"' '\}' \
			-- 'PID[0-9]+_[0-9]+ -> PID[0-9]+_[0-9]+( \[ .* \];)?' \
			'PID[0-9]+_[0-9]+ \[ label=".*" tooltip=".*" \];' '.*' ;;
	process/sched-latency)
		shape $name "latency histograms per pid and priority" \
			'pid:[0-9]+ prio:[0-9]+' -- '' "$HIST" ;;
	process/sig_by_pid)
		shape $name "SIGCHLD to the workload's shell" \
			'Collecting data\.\.\. Type Ctrl-C to exit and display results' \
			'SPID     SENDER {11}RPID  RECEIVER {9}SIGNAME {10}COUNT' \
			'[0-9]+ +(ktap-getppid|cat|sleep) +[0-9]+ +.* +SIGCHLD +[0-9]+' \
			-- '[0-9]+ +.* +[0-9]+ +.* +SIG[A-Z0-9+]+ +[0-9]+' ;;
	process/sig_by_proc)
		shape $name "SIGCHLD to the workload's shell" \
			'Collecting data\.\.\. Type Ctrl-C to exit and display results' \
			'SENDER {11}RECEIVER {9}SIGNAL {11}COUNT' \
			'(ktap-getppid|cat|sleep) +.* +SIGCHLD +[0-9]+' \
			-- '.* +SIG[A-Z0-9+]+ +[0-9]+' ;;
	process/sigkill)
		shape $name "'SIGKILL was sent to ...' lines, if any" -- '.* was sent to .*' ;;
	process/sigmon)
		shape $name "its header, a line per SIGKILL if any" \
			'SPID     SNAME {12}RPID  RNAME {12}SIGNUM SIGNAME         ' \
			-- '[0-9]+ +.* +[0-9]+ +.* +9 +SIGKILL *' ;;
	process/sleeptime)
		shape $name "'TIME PID (NAME) SYSCALL: US' lines, if any" \
			-- '[0-9]+ [0-9]+ \(.*\) [a-z_]+: [0-9]+' ;;
	process/spawn_seeker)
		shape $name "a dated table of processes that spawned" \
			"$CTIME UTC" ' *execname\(   PID\)    spawned \(percent\)' \
			-- '' ' *.*\( *[0-9]+\) +[0-9]+ \( *[0-9]+%\)' \
			' *execname    spawned \(percent\)' ' *.* +[0-9]+ \( *[0-9]+%\)' ;;
	process/strace)
		# -c "cat /proc/sys/vm/* || true": the target is the shell,
		# whose system calls have no NAME[TID] prefix (cat's are not
		# traced, its output is in the output).  The first call shown is
		# execve (not the end of ktap's wait for the release of -c).
		if grep -E "^$CTIME" "$TMP/out" | head -n 1 | grep -qE "^$CTIME\\.[0-9]+ execve\\("; then
			ok "$name: the first system call shown is the shell's execve"
		else
			not_ok "$name: the first system call shown is not the shell's execve"
		fi
		shape $name "the shell's system calls, an openat among them" \
			"$CTIME\\.[0-9]+ openat\\(.*\\) = [0-9]+" \
			-- "$CTIME\\.[0-9]+ .*\\([0-9]+\\) [a-z0-9_]+\\(.*\\) = .*" '.*' ;;
	process/syscalls_by_pid)
		shape $name "its header and a count per pid" \
			'Collecting data\.\.\. Type Ctrl-C to exit and display results' \
			'#SysCalls  PID' '[0-9]+ +[0-9]+' -- ;;
	process/syscalls_by_proc)
		shape $name "its header and a count per process, ktap-getppid's" \
			'Collecting data\.\.\. Type Ctrl-C to exit and display results' \
			'#SysCalls  Process Name' '[0-9]+ +ktap-getppid' -- '[0-9]+ +.*' ;;
	process/thread-business)
		shape $name "two reports of the busiest threads" \
			' +execname +tid count recent syscalls +' \
			' *.* +[0-9]+ +[0-9]+ .*' -- '' ;;
	process/wait4time)
		shape $name "wait4 lines after begin (no negative time), the workload's shell" \
			'[0-9]+ [0-9]+ \(.*\) wait4: [0-9]+ [0-9-]+' -- ;;
	stapgames/*)
		shape $name "-p4: compiles, prints nothing" -- ;;
	virtualization/kvm_service_time)
		shape $name "its header (no KVM guest here)" \
			'# Intel exit reasons are EXIT_REASON_\* in linux/arch/x86/include/asm/vmx\.h' \
			'# AMD reasons are SVM_EXIT_\* in linux/arch/x86/include/asm/svm\.h' \
			'# reason reason\(hex\): count sum\(us\) min\(us\) avg\(us\) max\(us\)' -- '' '.*' ;;
	virtualization/qemu_io)
		shape $name "its port tables (no QEMU here)" 'cpu_in' 'cpu_out' '  port    count' \
			-- '' ' *[0-9]+ +[0-9]+' ;;
	*)
		not_ok "$name: no shape check in stapex.sh" ;;
	esac
done
done_testing
