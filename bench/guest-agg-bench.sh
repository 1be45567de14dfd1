#!/bin/sh
# guest-agg-bench.sh - the guest half of bench/vm-agg-bench.sh (busybox sh),
# installed as /tests/run-in-vm.sh.
#
# In: /tests/bench.conf (written by vm-agg-bench.sh: N, VARIANTS, PROCS,
# LAT_PROCS, POLL, BPFTRACE), /usr/bin/ktap, /usr/bin/ktap-getppid, the
# tapset, /tests/guest-stats.sh, and /usr/bin/bpftrace when it fits.
# Out: on stdout, one table per script with every variant (and bpftrace)
# side by side, then each run's output.  "records" is what the probes put
# into the instance's ring buffers (per_cpu stats entries + overrun +
# read events, the issue's measure of records crossing to user space),
# sampled while ktap runs (tests/vm/guest-stats.sh: exact once the events
# stop; "read events" alone depends on when the last sample fell);
# "records handled" is ktap's own count (-v).  Every figure comes from this one
# boot: TCG timings mean something only as ratios within one run.
#
# Scripts:
#   count  c[execname()]++ on syscalls:sys_enter_getppid, printed with
#          foreach in end;
#   lat    t[tid()] = gettimeofday_ns() on syscalls:sys_enter_getppid,
#          and on sys_exit_getppid, if (tid() in t), h <<< the difference
#          and delete t[tid()]; @count(h) and @hist_log(h) in end: the
#          shape compiler/lower/lower_latency.c lowers (hist variable,
#          synthetic event, onmatch).
# Workload: ktap-getppid making N getppid calls, in 1 or 2 processes.
# A variant is "default" (no flag) or one ktap option word ("--no-lower");
# one ktap rejects is reported as not supported and skipped.

# shellcheck source=tests/vm/guest-stats.sh
. /tests/guest-stats.sh
# shellcheck source=/dev/null  # written by vm-agg-bench.sh
. /tests/bench.conf
export KTAP_TAPSET=/usr/share/ktap/tapset
T=/tmp/agg
mkdir -p $T/res
TR=/sys/kernel/tracing

# now_ms: uptime in ms (busybox date has no %N; 10 ms resolution).
now_ms() {
	read -r up _ </proc/uptime
	echo $((${up%.*} * 1000 + 1${up#*.} * 10 - 1000))
}
# field FILE SED: the first line sed -n SED prints of FILE, else "".
field() { sed -n "$2" "$1" | head -n 1; }
# nscall FILE: mean of ktap-getppid -r's "(X ns/call)" lines in FILE.
nscall() {
	sed -n 's/.*(\([0-9.]*\) ns\/call).*/\1/p' "$1" |
		awk '{ s += $1; n++ } END { if (n) printf "%.1f", s / n }'
}

echo "kernel $(uname -r), $(nproc) CPUs, $(ktap -V 2>&1 | head -n 1)"
# shellcheck disable=SC2153  # PROCS comes from bench.conf
echo "N=$N getppid calls per process; procs: count $PROCS, lat $LAT_PROCS; stats polled every ${POLL}s"

# Workloads: w1 one process, w2 two in parallel.
printf 'exec ktap-getppid -r %s\n' "$N" >$T/w1.sh
printf 'ktap-getppid -r %s &\nktap-getppid -r %s &\nwait\n' "$N" "$N" >$T/w2.sh

# --- variants ----------------------------------------------------------------
cols_ok=''
vi=0
for v in $VARIANTS; do
	vi=$((vi + 1))
	flag=$v
	[ "$v" = default ] && flag=''
	echo "$flag" >$T/flag.$vi
	echo "$v" >$T/name.$vi
	# shellcheck disable=SC2086  # the flag is a word or nothing
	if ktap $flag -p2 -e 'probe begin { exit() }' >/dev/null 2>$T/vchk; then
		cols_ok="$cols_ok $vi"
	else
		echo "variant $v: not supported by this ktap ($(head -n 1 $T/vchk))"
	fi
done
have_bt=0
if [ "$BPFTRACE" = 1 ] && command -v bpftrace >/dev/null 2>&1; then
	if bpftrace -e 'BEGIN { exit(); }' >$T/btchk 2>&1; then
		have_bt=1
		echo "$(bpftrace --version 2>&1 | head -n 1) runs in the guest"
	else
		echo "bpftrace cannot run in the guest: $(tail -n 1 $T/btchk)"
	fi
elif [ "$BPFTRACE" = 1 ]; then
	echo "bpftrace: not in the initramfs"
fi

# --- one run -------------------------------------------------------------------
# run_tool DIR CMD...: run CMD in the background, poll ktap's instance and
# the tool's /proc CPU until it exits; results in DIR.
run_tool() {
	d=$1
	shift
	mkdir -p "$d"
	t0=$(now_ms)
	timeout 300 "$@" >"$d/out" 2>"$d/err" &
	pid=$!
	gs_poll "$pid" "$d/stats" "$POLL"
	echo "$gs_seen" >"$d/seen"
	wait "$pid"
	echo $? >"$d/rc"
	echo $(($(now_ms) - t0)) >"$d/wall"
}

# ktap_script KIND: the script text.
ktap_script() {
	case $1 in
	count) cat <<'EOF'
global c
probe kernel.trace("syscalls:sys_enter_getppid") { c[execname()]++ }
probe end { foreach (k in c-) printf("%s %d\n", k, c[k]) }
EOF
		;;
	lat) cat <<'EOF'
global t, h
probe kernel.trace("syscalls:sys_enter_getppid") { t[tid()] = gettimeofday_ns() }
probe kernel.trace("syscalls:sys_exit_getppid") {
	if (tid() in t) { h <<< gettimeofday_ns() - t[tid()]; delete t[tid()] }
}
probe end { printf("@count %d\n", @count(h)); if (@count(h)) print(@hist_log(h)) }
EOF
		;;
	esac
}
bt_script() {
	case $1 in
	count) echo 'tracepoint:syscalls:sys_enter_getppid { @c[comm] = count(); }' ;;
	lat) cat <<'EOF'
tracepoint:syscalls:sys_enter_getppid { @t[tid] = nsecs; }
tracepoint:syscalls:sys_exit_getppid /@t[tid]/ {
	@h = hist(nsecs - @t[tid]); @n = count(); delete(@t[tid]);
}
END { clear(@t); }
EOF
		;;
	esac
}

# measure KIND P TOOL: every ktap variant (TOOL ktap) or bpftrace (bt) on
# the P-process workload; P 0 is the same script around `true`: the
# tool's fixed cost (start-up, arming, tear-down), which the per-call CPU
# leaves out.
measure() {
	kind=$1 p=$2
	case $p in
	0) cmd=true ;;
	1) cmd="sh $T/w1.sh" ;;
	*) cmd="sh $T/w2.sh" ;;
	esac
	if [ "$3" = bt ]; then
		if [ "$p" = 0 ]; then cmd=/bin/true; else cmd="/bin/sh $T/w$p.sh"; fi
		run_tool "$T/res/$kind.$p.bt" bpftrace -e "$(bt_script "$kind")" -c "$cmd"
		return
	fi
	for i in $cols_ok; do
		flag=$(cat "$T/flag.$i")
		# shellcheck disable=SC2086  # the flag is a word or nothing
		run_tool "$T/res/$kind.$p.$i" ktap -v $flag -e "$(ktap_script "$kind")" -c "$cmd"
	done
}
# measure_all TOOL
measure_all() {
	for p in 0 $PROCS; do measure count "$p" "$1"; done
	for p in 0 $LAT_PROCS; do measure lat "$p" "$1"; done
}

# --- untraced baseline, the ktap runs, the baseline again -----------------------
base() {
	sh "$T/w$1.sh" 2>>"$T/base.$1"
}
for p in 1 2; do : >$T/base.$p; base $p; done
measure_all ktap
for p in 1 2; do base $p; done

# --- tables --------------------------------------------------------------------
# tool_cpu DIR: the tool's CPU ms in the run in DIR.  ktap: its Pass 5
# line (RUSAGE_SELF over the run: the -c child is not in it); bpftrace:
# its /proc ticks (10 ms) over its whole life.
tool_cpu() {
	set -- "$1" "$(field "$1/err" 's/^Pass 5: run [a-z]* in \([0-9]*\)usr\/\([0-9]*\)sys\/.*$/\1 \2/p')"
	if [ -n "$2" ]; then
		echo $((${2% *} + ${2#* }))
	else
		read -r _ _ _ _ tc_ut tc_st <"$1/stats"
		echo $(((tc_ut + tc_st) * 10))
	fi
}

# cell DIR KIND P ROW: one figure of a run.
cell() {
	d=$1 kind=$2 p=$3 row=$4
	calls=$((N * p))
	read -r s_e s_o s_r s_d s_ut s_st <"$d/stats"
	bt=0
	case $d in *.bt) bt=1 ;; esac
	# No sample of the instance at all: say so rather than print 0s.
	if [ $bt = 0 ] && [ "$(cat "$d/seen")" = 0 ]; then
		case $row in written | dropped | pct | read) echo '?'; return ;; esac
	fi
	# count printed
	if [ $bt = 1 ]; then
		if [ "$kind" = count ]; then
			cnt=$(field "$d/out" 's/^@c\[ktap-getppid\]: \([0-9]*\)$/\1/p')
		else
			cnt=$(field "$d/out" 's/^@n: \([0-9]*\)$/\1/p')
		fi
	elif [ "$kind" = count ]; then
		cnt=$(field "$d/out" 's/^ktap-getppid \([0-9]*\)$/\1/p')
	else
		cnt=$(field "$d/out" 's/^@count \([0-9]*\)$/\1/p')
	fi
	wall5=$(field "$d/err" 's/^Pass 5: run [a-z]* in .*sys\/\([0-9]*\)real ms\.$/\1/p')
	cpu=$(tool_cpu "$d")
	cpu0=$(tool_cpu "$T/res/$kind.0.${d##*.}")
	pcpu=$(((s_ut + s_st) * 10))
	ns=$(nscall "$d/err")
	case $row in
	rc) cat "$d/rc" ;;
	calls) echo "$calls" ;;
	count) echo "${cnt:-?}" ;;
	diff) if [ -n "$cnt" ]; then echo $((cnt - calls)); else echo '?'; fi ;;
	lost)
		if [ $bt = 1 ]; then
			l=$(field "$d/err" 's/^.*Lost \([0-9]*\) events.*$/\1/p')
		else
			l=$(field "$d/err" 's/^WARNING: \([0-9]*\) events lost$/\1/p')
		fi
		echo "${l:-0}" ;;
	written) if [ $bt = 1 ]; then echo n/a; else echo $((s_e + s_o + s_r)); fi ;;
	read) if [ $bt = 1 ]; then echo n/a; else echo "$s_r"; fi ;;
	dropped) if [ $bt = 1 ]; then echo n/a; else echo $((s_o + s_d)); fi ;;
	pct) if [ $bt = 1 ]; then echo n/a; else
		awk -v r=$((s_e + s_o + s_r)) -v c="$calls" 'BEGIN { printf "%.3f%%", 100 * r / c }'; fi ;;
	handled) if [ $bt = 1 ]; then echo n/a; else
		h=$(field "$d/err" 's/^Pass 5: handled \([0-9]*\) events.*$/\1/p'); echo "${h:-?}"; fi ;;
	written5) if [ $bt = 1 ]; then echo n/a; else
		h=$(field "$d/err" 's/^Pass 5: handled .* \([0-9]*\) written to the ring buffer$/\1/p'); echo "${h:-?}"; fi ;;
	lowered) if [ $bt = 1 ]; then echo n/a
		elif grep -qE '^Pass 3: (global .* is kept in kernel hists|latency pair .* runs in the kernel)' "$d/err"; then echo yes
		else echo no; fi ;;
	cpu) echo "$cpu" ;;
	pcpu) echo "$pcpu" ;;
	cpu0) echo "$cpu0" ;;
	cpucall) awk -v m="$cpu" -v z="$cpu0" -v c="$calls" 'BEGIN { printf "%.2f", (m - z) * 1000 / c }' ;;
	wall) if [ -n "$wall5" ]; then echo "$wall5"; else echo n/a; fi ;;
	wallall) cat "$d/wall" ;;
	ns) echo "${ns:-?}" ;;
	slow) b=$(nscall "$T/base.$p")
		awk -v n="${ns:-0}" -v b="${b:-0}" 'BEGIN { if (b > 0) printf "%.2fx", n / b; else print "?" }' ;;
	esac
}

ROWS='rc lowered calls count diff lost written dropped pct read handled written5 cpu cpu0 pcpu cpucall wall wallall ns slow'
label() {
	case $1 in
	rc) echo 'exit status' ;;
	calls) echo 'getppid calls (exact)' ;;
	count) echo 'count printed' ;;
	diff) echo 'count - exact' ;;
	lost) echo 'events lost (WARNING)' ;;
	written) echo 'records (entries+overrun+read)' ;;
	dropped) echo 'records lost (overrun+dropped)' ;;
	pct) echo 'records / calls' ;;
	read) echo 'read events (last sample)' ;;
	handled) echo 'records handled (-v)' ;;
	written5) echo 'records written (-v)' ;;
	lowered) echo 'lowered (-v Pass 3)' ;;
	cpu) echo 'tool CPU ms (ktap: Pass 5)' ;;
	cpu0) echo 'tool CPU ms, -c true' ;;
	pcpu) echo 'tool CPU ms (/proc, whole)' ;;
	cpucall) echo 'tool CPU us/call (- true)' ;;
	wall) echo 'wall ms (Pass 5)' ;;
	wallall) echo 'wall ms (start to exit)' ;;
	ns) echo 'workload ns/call' ;;
	slow) echo 'slowdown vs untraced' ;;
	esac
}

table() {
	kind=$1 procs=$2
	case $kind in
	count) echo "== c[execname()]++ on syscalls:sys_enter_getppid ==" ;;
	lat) echo "== latency histogram: t[tid()] at sys_enter_getppid, h <<< delta at sys_exit_getppid ==" ;;
	esac
	dirs='' hdr=''
	for p in $procs; do
		for i in $cols_ok; do
			dirs="$dirs $T/res/$kind.$p.$i"
			hdr="$hdr $(cat "$T/name.$i")/${p}p"
		done
		if [ $tables_bt = 1 ]; then
			dirs="$dirs $T/res/$kind.$p.bt"
			hdr="$hdr bpftrace/${p}p"
		fi
	done
	printf '%-31s' ''
	for h in $hdr; do printf ' %14s' "$h"; done
	echo
	for row in $ROWS; do
		printf '%-31s' "$(label "$row")"
		for d in $dirs; do
			p=${d#"$T/res/$kind."}
			p=${p%%.*}
			printf ' %14s' "$(cell "$d" "$kind" "$p" "$row")"
		done
		echo
	done
	echo
}

tables() {
	echo
	echo "untraced workload: 1 process $(nscall $T/base.1) ns/call, 2 processes $(nscall $T/base.2) ns/call (mean of the runs before and after the ktap runs)"
	echo
	table count "$PROCS"
	table lat "$LAT_PROCS"
}

# The ktap tables first: bpftrace's runs come last, so that a guest
# kernel that hangs under them (seen once, a soft lockup on both CPUs
# with bpftrace 0.17 on Debian's 6.1 under TCG) leaves these behind.
tables_bt=0
tables
if [ $have_bt = 1 ]; then
	echo "== the same with bpftrace =="
	measure_all bt
	tables_bt=1
	tables
fi

echo "== outputs =="
for d in "$T"/res/*; do
	echo "--- ${d##*/}: stdout"
	head -n 40 "$d/out"
	echo "--- ${d##*/}: stderr"
	grep -v '^Pass [1-4]' "$d/err" | head -n 20
done
# Nothing may stay behind in tracefs.
for i in "$TR"/instances/ktap*; do
	[ -e "$i" ] && echo "WARNING: instance left behind: ${i##*/}"
done
exit 0
