# guest-stats.sh - what a ktap instance's ring buffers saw (busybox sh),
# installed as /tests/guest-stats.sh and sourced by guest scripts.
#
# The records that crossed from the kernel to ktap are counted by the
# instance's per-CPU stats files (per_cpu/cpuN/stats):
#   entries         records still in the buffer, not read yet
#   overrun         records overwritten before they were read
#   read events     records read (consumed) by ktap
#   dropped events  records not written because the buffer was full
# so entries + overrun + read events (+ dropped events) is what the
# probes wrote into the buffer, and "read events" what reached ktap.
#
# Usage (the instance is instances/ktap_<ktap's pid>_<8 hex digits>, or
# ktap_<pid> for an older ktap, while ktap runs and is removed when it
# exits, so sample it while it runs):
#
#   . /tests/guest-stats.sh
#   ktap -e '...' -c 'ktap-getppid 200000' >out 2>err &
#   pid=$!
#   gs_poll "$pid" $T/stats     # until ktap exits: last sample in $T/stats
#   wait "$pid"
#   read -r entries overrun readev dropped utime stime <$T/stats
#   total=$((entries + overrun + readev))
#   # a fully lowered script: records crossing < 1% of 200,000 events
#   [ $((total * 100)) -lt 200000 ] && ok "..." || not_ok "..."
#
# gs_stats DIR prints "ENTRIES OVERRUN READ DROPPED" (sums over the
# CPUs) for the instance directory DIR, or fails (status 1) when DIR has
# no readable per_cpu stats (the instance is gone); gs_read DIR sets
# gs_e gs_o gs_r gs_d instead of printing.  Only shell builtins read the
# files, so polling forks for nothing but sleep.
#
# gs_poll PID FILE [INTERVAL] samples instances/ktap_PID_* (or ktap_PID)
# every INTERVAL seconds (default 0.05) while process PID runs (a zombie
# counts as ended, so PID may be a child not yet waited for) and keeps in
# FILE the last complete sample that is not all zero (as tear-down may
# read), also "ENTRIES OVERRUN READ DROPPED", plus,
# from /proc/PID/stat, the process's own CPU time as a fifth and sixth
# field (utime and stime in clock ticks, USER_HZ: 100 a second).  The
# first four fields are 0 when the instance was never seen, or when it
# never held a record (a fully lowered script may write none); gs_seen
# then tells them apart: the number of samples that found the instance.
# The instance is torn down after ktap has drained its buffers, so the
# last sample is taken after the last records were read, give or take
# one INTERVAL.
#
# GS_TRACEFS overrides the tracefs mount point (/sys/kernel/tracing).

GS_TRACEFS=${GS_TRACEFS:-/sys/kernel/tracing}

# gs_read DIR: the sums into gs_e gs_o gs_r gs_d; status 1 without stats.
gs_read() {
	gs_e=0 gs_o=0 gs_r=0 gs_d=0 gs_n=0
	for gs_f in "$1"/per_cpu/cpu*/stats; do
		[ -r "$gs_f" ] || continue
		while IFS=: read -r gs_k gs_v; do
			gs_v=${gs_v# }
			case $gs_v in '' | *[!0-9]*) continue ;; esac
			case $gs_k in
			entries) gs_e=$((gs_e + gs_v)) ;;
			overrun) gs_o=$((gs_o + gs_v)) ;;
			'read events') gs_r=$((gs_r + gs_v)) ;;
			'dropped events') gs_d=$((gs_d + gs_v)) ;;
			esac
		done 2>/dev/null <"$gs_f" || return 1
		gs_n=$((gs_n + 1))
	done
	[ "$gs_n" -gt 0 ]
}

# gs_stats DIR
gs_stats() {
	gs_read "$1" || return 1
	echo "$gs_e $gs_o $gs_r $gs_d"
}

# gs_proc PID: PID's state, utime and stime (clock ticks) into gs_state,
# gs_ut, gs_st; status 1 when PID is gone.
gs_proc() {
	read -r gs_line 2>/dev/null <"/proc/$1/stat" || return 1
	# The command name is in parentheses and may hold blanks.
	gs_line=${gs_line##*) }
	# shellcheck disable=SC2086  # split the fields on purpose
	set -- $gs_line
	[ $# -ge 13 ] || return 1
	gs_state=$1 gs_ut=${12} gs_st=${13}
}

# gs_poll PID FILE [INTERVAL]
gs_poll() {
	gs_pid=$1 gs_out=$2 gs_iv=${3:-0.05}
	gs_last_s="0 0 0 0" gs_last_c="0 0" gs_seen=0
	# A child that exited stays a zombie (state Z) until it is waited for.
	while gs_proc "$gs_pid" && [ "$gs_state" != Z ]; do
		gs_last_c="$gs_ut $gs_st"
		# Tear-down may read all zero before the instance goes: keep the
		# last sample that is not.  (Not the largest: a sample taken
		# while the counters move can overshoot by a few per cent.)
		for gs_i in "$GS_TRACEFS/instances/ktap_${gs_pid}_"* \
			"$GS_TRACEFS/instances/ktap_$gs_pid"; do
			gs_read "$gs_i" || continue
			gs_seen=$((gs_seen + 1))
			if [ $((gs_e + gs_o + gs_r + gs_d)) -gt 0 ]; then
				gs_last_s="$gs_e $gs_o $gs_r $gs_d"
			fi
		done
		sleep "$gs_iv"
	done
	echo "$gs_last_s $gs_last_c" >"$gs_out"
}
