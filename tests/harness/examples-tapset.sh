#!/bin/sh
# examples-tapset.sh - the examples that use the tapset (TAP, root): each
# runs on a known workload and its output is checked, exactly where the
# values are deterministic (pids renamed P1, P2 ... in order of
# appearance), within bounds where they depend on timing or the C
# library.  kfunc_callers.stp needs kprobes: here it must fail cleanly;
# tests/vm/guest-ktap.sh runs it for real.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

EX=$KTAP_SRCDIR/examples

require_live "the examples trace the live kernel: run make check as root"

# hist_sums FILE: for each "NAME: N ..." line followed by a @hist_log,
# print "NAME N SUM" where SUM adds up the histogram's counts.
hist_sums() {
	awk '
	/^value \|/ { if (name != "") print name, n, sum
		split(prev, f, " "); name = f[1]; sub(/:$/, "", name); n = f[2]; sum = 0 }
	/^ *[0-9]+ \|/ { sum += $NF }
	{ prev = $0 }
	END { if (name != "") print name, n, sum }' "$1"
}

fail_with() {
	not_ok "$1"
	shift
	for f in "$@"; do diag_file "$f" 40; done
}

# 1. sched_latency.stp: sh runs sleep three times.  Only the command's
#    processes are measured (sh, sleep, and ktap's name before the
#    exec); which wake-ups there are depends on the scheduler (a task
#    woken while still on its CPU, a parent that need not wait), but
#    there are some, every histogram holds its section's count, and the
#    latencies are plausible (under a second).
run_ktap "$TMP" "$TMP/out" "$TMP/err" -w -c 'sh -c "sleep 0.05; sleep 0.05; sleep 0.05"' \
	"$EX/sched_latency.stp"
hist_sums "$TMP/out" >"$TMP/sums"
total=$(awk '{ t += $2 } END { print t + 0 }' "$TMP/sums")
others=$(awk '$1 != "sh" && $1 != "sleep" && $1 != "ktap"' "$TMP/sums")
if [ "$rc" -eq 0 ] && [ "$total" -ge 3 ] && [ -z "$others" ] &&
	awk '$2 != $3 { exit 1 }' "$TMP/sums" &&
	[ "$(grep -c ': [0-9]* wake-ups, average [0-9]* us, max [0-9]* us$' "$TMP/out")" -eq "$(wc -l <"$TMP/sums")" ] &&
	! grep -q 'max [0-9]\{7,\} us$' "$TMP/out"; then
	ok "sched_latency.stp: $total wake-ups of sh and sleep; histograms hold their counts"
else
	fail_with "sched_latency.stp (exit status $rc, $total wake-ups)" "$TMP/sums" "$TMP/out" "$TMP/err"
fi

# 2. signals.stp: sh starts "sleep 5" in the background, waits for a
#    "sleep 0.1", then sends the first SIGUSR1; every line is exact.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -w -c "sh -c 'sleep 5 & sleep 0.1; kill -USR1 \$!; wait'" \
	"$EX/signals.stp"
norm_pids "$TMP/out" >"$TMP/got"
cat >"$TMP/want" <<'EOW'
sleep[P1] sends SIGCHLD (17) to sh[P2]
sh[P2] takes SIGCHLD: handler
sh[P2] sends SIGUSR1 (10) to sleep[P3]
sleep[P3] takes SIGKILL: default action
sleep[P3] sends SIGCHLD (17) to sh[P2]
sh[P2] takes SIGCHLD: handler
sh[P2] sends SIGCHLD (17) to ktap[P4]
EOW
expect_same "signals.stp: a shell kills its child; every signal sent and taken" "$TMP/want" "$TMP/got"

# 3. ioblock_latency.stp: 16 direct 4 KiB writes to a loop device (on a
#    file in $TMP), each its own request; the loop device is removed
#    afterwards.  Other devices may show up too: only the loop device's
#    lines are checked.
img=$TMP/loop.img
loopdev=
if truncate -s 8M "$img" 2>"$TMP/lerr" && loopdev=$(losetup -f --show "$img" 2>>"$TMP/lerr"); then
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -w \
		-c "dd if=/dev/zero of=$loopdev bs=4096 count=16 oflag=direct status=none" \
		"$EX/ioblock_latency.stp"
	losetup -d "$loopdev"
	minor=$(($(stat -c '0x%T' "$loopdev")))
	d=7:$minor
	hist_sums "$TMP/out" | awk -v d="$d" '$1 == d' >"$TMP/sums"
	if [ "$rc" -eq 0 ] && grep -qx "$d W: 16 requests, 65536 bytes" "$TMP/out" &&
		grep -qx "$d: 16 completed, latency (us):" "$TMP/out" &&
		[ "$(cat "$TMP/sums")" = "$d 16 16" ] && ! grep -q "^$d R" "$TMP/out"; then
		ok "ioblock_latency.stp: $loopdev ($d): 16 write requests, 65536 bytes, 16 timed"
	else
		fail_with "ioblock_latency.stp on $loopdev (exit status $rc)" "$TMP/out" "$TMP/err"
	fi
else
	fail_with "ioblock_latency.stp: cannot set up a loop device" "$TMP/lerr"
fi
if losetup -a 2>/dev/null | grep -q "$img"; then
	echo "# a loop device on $img is left: removing it"
	losetup -j "$img" -O NAME -n | xargs -r -n 1 losetup -d
fi

# 4. pagefaults.stp: dd writes into its 64 MiB buffer, one fault per
#    4 KiB page (16384), plus its start-up's few dozen, a few hundred
#    at most; the process is "ktap" before the exec, "dd" after.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -w -c 'dd if=/dev/zero of=/dev/null bs=64M count=1 status=none' \
	"$EX/pagefaults.stp"
row=$(awk '$1 == "dd" { print $3, $4 }' "$TMP/out")
faults=${row% *} writes=${row#* }
if [ "$rc" -eq 0 ] && [ "$(head -n 1 "$TMP/out" | tr -s ' ')" = "COMMAND PID FAULTS WRITES" ] &&
	[ "${writes:-0}" -ge 16384 ] && [ "${writes:-0}" -le 16984 ] &&
	[ "${faults:-0}" -ge "${writes:-1}" ] && [ "${faults:-0}" -le 17384 ]; then
	ok "pagefaults.stp: dd of 64 MiB: $faults faults, $writes writes (16384 pages + start-up)"
else
	fail_with "pagefaults.stp (exit status $rc, dd: ${row:-none})" "$TMP/out" "$TMP/err"
fi

# 5. kmalloc_sizes.stp: a shell running ls kmallocs (opening files,
#    exec); the histogram holds every call, in power-of-two buckets.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -w -c "sh -c 'ls / >/dev/null'" "$EX/kmalloc_sizes.stp"
n=$(sed -n 's/^\([0-9]*\) kmalloc calls, [0-9]* bytes asked for, [0-9]* bytes of rounding up$/\1/p' "$TMP/out")
sum=$(awk '/^ *[0-9]+ \|/ { s += $NF } END { print s + 0 }' "$TMP/out")
badb=$(awk '/^ *[0-9]+ \|/ { v = $1; while (v > 1 && v % 2 == 0) v /= 2; if (v > 1) print $1 }' "$TMP/out")
if [ "$rc" -eq 0 ] && [ "${n:-0}" -ge 1 ] && [ "$sum" = "$n" ] && [ -z "$badb" ] &&
	sed -n 2p "$TMP/out" | grep -qx 'bytes asked for:'; then
	ok "kmalloc_sizes.stp: $n kmalloc calls of sh and ls, all in the histogram"
else
	fail_with "kmalloc_sizes.stp (exit status $rc, calls ${n:-none}, histogram $sum)" \
		"$TMP/out" "$TMP/err"
fi

# 6. kfunc_callers.stp: this kernel has no kprobe events; the probe is
#    refused at set-up with the kernel's reason and the script's place.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -T 1 "$EX/kfunc_callers.stp" vfs_read
if [ "$rc" -eq 1 ] && grep -q 'kfunc_callers.stp:[0-9]*:[0-9]*: kprobe.function("vfs_read")' "$TMP/err"; then
	ok "kfunc_callers.stp without kprobes: refused, naming the probe (runs in the VM)"
else
	fail_with "kfunc_callers.stp without kprobes (exit status $rc)" "$TMP/out" "$TMP/err"
fi

# 7. top_ctxsw.stp, two screens: each starts with the clear-screen
#    sequence and a coloured title with today's date (UTC, ctime's
#    format), then the column header and at most 10 rows.
day=$(LC_ALL=C date -u '+%a %b %e')
year=$(date -u +%Y)
run_ktap "$TMP" "$TMP/out" "$TMP/err" -w "$EX/top_ctxsw.stp" 2
esc=$(printf '\033')
title="${esc}[1;1H${esc}[J${esc}[44;37;1mtop_ctxsw: switches onto a CPU, last second     "
hdr="${esc}[47;30mCOMMAND              PID  SWITCHES${esc}[0;0m"
ntitle=$(grep -c "^$(printf '%s' "$title" | sed 's/\[/\\[/g')$day [0-9:]* $year UTC${esc}\[0;0m\$" "$TMP/out")
nhdr=$(grep -cxF "$hdr" "$TMP/out")
rows=$(grep -vc "top_ctxsw\|COMMAND" "$TMP/out")
if [ "$rc" -eq 0 ] && [ "$ntitle" -eq 2 ] && [ "$nhdr" -eq 2 ] && [ "$rows" -ge 2 ] &&
	[ "$rows" -le 20 ]; then
	ok "top_ctxsw.stp: two coloured screens dated $day $year, $rows rows"
else
	fail_with "top_ctxsw.stp (exit status $rc, titles $ntitle, headers $nhdr, rows $rows)" \
		"$TMP/out" "$TMP/err"
fi
done_testing
