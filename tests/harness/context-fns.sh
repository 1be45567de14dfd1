#!/bin/sh
# context-fns.sh - issue 13's context functions on the live kernel (TAP,
# root): the register functions as uprobe fetch arguments (int_arg(),
# returnval(), returnstr() ... of tests/tools/ktap-uprobe-target's
# handle(&r, k, "hello"), k = 0, 1, 2), returnval()/returnstr() of a
# system call's return tracepoint, cmdline_str() and the /proc builtins
# (proc_mem_*(), task_utime()/task_stime()) against /proc, tz_ctime() in
# a fixed time zone.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
UT=$KTAP_BUILDDIR/tests/tools/ktap-uprobe-target

require_live "live tests need root (run make check as root)"
require_tools "$UT" "$TFS_SNAP"
tfs_guard_begin

# 1. handle() returns r->id*10 + n + strlen(msg) + r->in.y + r->ip->x + flags = 487 + k.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$UT" -e '
probe process("'"$UT"'").function("handle") {
	printf("%s %d %d %d %d %d %d %d\n", ppfunc(), int_arg(2), uint_arg(2), s64_arg(2),
	       user_int64($r), pointer_arg(1) == $r, atomic_read($r), user_int32($r))
}
probe process("'"$UT"'").function("handle").return {
	printf("%d %s %s %s %d %s\n", returnval(), returnstr(1), returnstr(2), returnstr(3),
	       @entry(u32_arg(2)), @entry(user_string(pointer_arg(3))))
}'
grep -v '^[0-9]* [0-9]$' "$TMP/out" >"$TMP/got"	# the target prints "SUM N"
cat >"$TMP/want" <<'EOW'
handle 0 0 0 42 1 42 42
487 487 0x1e7 0747 0 hello
handle 1 1 1 42 1 42 42
488 488 0x1e8 0750 1 hello
handle 2 2 2 42 1 42 42
489 489 0x1e9 0751 2 hello
EOW
expect_same "uprobe: int_arg/uint_arg/s64_arg/pointer_arg, user_int64, atomic_read, returnval/returnstr, @entry(u32_arg), user_string(pointer_arg(3))" \
	"$TMP/want" "$TMP/got"

# 1b. thread_indent() around handle(): stap's "%6d %s(%d):%-*s", the
#     timestamp base reset at each outermost call, so every entry is 0
#     (a return's microseconds vary: N).
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$UT" -e '
probe process("'"$UT"'").function("handle") { printf("%s-> %s\n", thread_indent(1), ppfunc()) }
probe process("'"$UT"'").function("handle").return { printf("%s<- %s\n", thread_indent(-1), ppfunc()) }'
grep -v '^[0-9]* [0-9]$' "$TMP/out" | sed -e 's/([0-9]*)/(TID)/' -e '/<-/s/^ *[0-9]* /  N /' >"$TMP/got"
cat >"$TMP/want" <<'EOW'
     0 ktap-uprobe-tar(TID):-> handle
  N ktap-uprobe-tar(TID):<- handle
     0 ktap-uprobe-tar(TID):-> handle
  N ktap-uprobe-tar(TID):<- handle
     0 ktap-uprobe-tar(TID):-> handle
  N ktap-uprobe-tar(TID):<- handle
EOW
expect_same "thread_indent(1)/(-1) and ppfunc() at handle()'s entry and return" "$TMP/want" "$TMP/got"

# 2. openat of a missing file: returnval() is the tracepoint's ret.
LC_ALL=C run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "/bin/cat /nonexistent/x" -e '
probe syscall.openat.return { if (pid() == target()) printf("%d %s\n", returnval(), returnstr(2)) }'
tail -n 1 "$TMP/out" >"$TMP/got"
echo "-2 -2 (ENOENT)" >"$TMP/want"
expect_same "syscall.openat.return: returnval() and returnstr() of ENOENT" "$TMP/want" "$TMP/got"

# 3. cmdline_str() and the current process's counters, while it sleeps.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "/bin/sleep 0.3 0.2" -e '
probe syscall.clock_nanosleep {
	if (pid() == target())
		printf("[%s] %d %d %d %d\n", cmdline_str(), proc_mem_size() == proc_mem_size(pid()),
		       proc_mem_rss() > 0, proc_mem_string() == proc_mem_string(pid()),
		       task_utime() + task_stime() < 1000000000)
}'
echo "[/bin/sleep 0.3 0.2] 1 1 1 1" >"$TMP/want"
expect_same "cmdline_str() and proc_mem_*() of the sleeping target" "$TMP/want" "$TMP/out"

# 4. Another process's counters, against its /proc files.
sleep 30 &
spid=$!
sleep 0.2
read -r size rss _ txt _ data _ <"/proc/$spid/statm"
shr=$(awk -v p="$(getconf PAGESIZE)" '/^RssFile:/ { print $2 * 1024 / p }' "/proc/$spid/status")
utime=$(awk '{ sub(/.*\) /, ""); print $12 * 10000000, $13 * 10000000 }' "/proc/$spid/stat")
start=$(awk '{ sub(/.*\) /, ""); print $20 "0000000" }' "/proc/$spid/stat")
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "probe begin {
	printf(\"%d %d %d %d %d\\n\", proc_mem_size($spid), proc_mem_rss_pid($spid),
	       proc_mem_shr($spid), proc_mem_txt_pid($spid), proc_mem_data($spid))
	printf(\"%d %d %d\\n\", task_utime($spid), task_stime_tid($spid), mem_page_size())
	println(proc_mem_size(999999999), cmdline_str() != \"\")
	println(task_start_time($spid), \" \", task_start_time(999999999))
	exit()
}"
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
printf '%s %s %s %s %s\n%s %s\n01\n%s 0\n' "$size" "$rss" "$shr" "$txt" "$data" "$utime" \
	"$(getconf PAGESIZE)" "$start" >"$TMP/want"
expect_same "proc_mem_*(pid), task_utime/stime(tid), task_start_time(tid) of a sleep, as its /proc files say" \
	"$TMP/want" "$TMP/out"

# 5. tz_ctime() in a POSIX time zone (no tzdata needed).
TZ=EST5 run_ktap "$TMP" "$TMP/out" "$TMP/err" -e \
	'probe begin { println(tz_ctime(0), "|", tz_gmtoff(), "|", tz_name()); exit() }'
echo "Wed Dec 31 19:00:00 1969 EST|18000|EST" >"$TMP/want"
expect_same "tz_ctime(0) in EST5" "$TMP/want" "$TMP/out"

tfs_guard_end "tracefs unchanged after the runs"
done_testing
