#!/bin/sh
# task.sh - the task_*() functions of tapset/task.stp (TAP).
#
# -p3 plans of kernel.function("wake_up_new_task") calling every task_*()
# function with $p, from this machine's BTF and from the Debian 6.1
# kernel of the VM tests (its vmlinux in the VM cache, through
# KTAP_BTF): every fetch argument's offsets are checked against
# bpftool's dump of the same BTF, so the test holds on any kernel.
# Then the compile-time errors (a run-time value, a tracepoint probe),
# the compiler rules the tapset relies on (@defined of a @cast() member,
# @choose_defined compiling only the branch taken, a function returning
# a fetchable expression passed on: task_pid(task_parent($p))), and, on
# this machine without kprobe events, the refusal at pass 5 with
# tracefs unchanged.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
BTF=/sys/kernel/btf/vmlinux
[ -r $BTF ] || skip_all "no kernel BTF at $BTF"
require_tools bpftool

# has DUMP STRUCT MEMBER: STRUCT has MEMBER.
has() { [ -n "$(btf_member_off "$@")" ]; }

# want_args DUMP: the fetch arguments of $ALL's kprobe for that BTF.
want_args() {
	d=$1
	o() { btf_member_off "$d" "$@"; }
	tgid=$(o task_struct tgid) pid=$(o task_struct pid) rp=$(o task_struct real_parent)
	cred=$(o task_struct real_cred) files=$(o task_struct files)
	if has "$d" task_struct __state; then st="p_cast___state=+$(o task_struct __state)(%di):u32"
	else st="p_cast_state=+$(o task_struct state)(%di):s64"; fi
	if has "$d" task_struct cpu; then cpu="p_cast_cpu=+$(o task_struct cpu)(%di):u32"
	else cpu="p_cast_thread_info_cpu=+$(($(o task_struct thread_info) + $(o thread_info cpu)))(%di):u32"; fi
	a="p=%di:u64 p_cast_tgid=+$tgid(%di):s32 p_cast_pid=+$pid(%di):s32"
	a="$a p_cast_real_parent_cast_tgi=+$tgid(+$rp(%di)):s32 p_cast_real_parent_1=+$rp(%di):u64"
	a="$a p_cast_comm=+$(o task_struct comm)(%di):string $st"
	a="$a p_cast_prio=+$(o task_struct prio)(%di):s32 p_cast_static_prio=+$(o task_struct static_prio)(%di):s32"
	a="$a $cpu"
	for id in uid gid euid egid; do
		a="$a p_cast_real_cred_${id}_val=+$(o cred $id)(+$cred(%di)):u32"
	done
	a="$a p_cast_files_fdt_max_fds=+$(o fdtable max_fds)(+$(o files_struct fdt)(+$files(%di))):u32"
	a="$a p_cast_real_parent_cast_rea=+$tgid(+$rp(+$rp(%di))):s32"
	a="$a p_cast_real_parent_cast_rea_1=+$rp(+$rp(%di)):u64"
	a="$a p_cast_real_parent_cast_com=+$(o task_struct comm)(+$rp(%di)):string"
	# struct rlimit is two longs: rlim[N].rlim_cur is at 16 * N
	sig=$(o task_struct signal) rlim=$(o signal_struct rlim)
	a="$a p_cast_signal_rlim_7_rlim_c=+$((rlim + 7 * 16))(+$sig(%di)):u64"
	a="$a p_cast_signal_rlim_15_rlim_=+$((rlim + 15 * 16))(+$sig(%di)):u64"
	echo "$a"
}

ALL='probe kernel.function("wake_up_new_task") {
	printf("%d %d %d %s %d %d %d %d %d %d %d %d %d\n", task_pid($p), task_tid($p),
	       task_pid(task_parent($p)), task_execname($p), task_state($p), task_prio($p),
	       task_nice($p), task_cpu($p), task_uid($p), task_gid($p), task_euid($p),
	       task_egid($p), task_max_file_handles($p))
	printf("%d %s\n", task_pid(task_parent(task_parent($p))), task_execname(task_parent($p)))
	printf("%d %d\n", task_rlimit_nofile($p), task_rlimit_rttime($p))
}'

# The kernel's event line of the last -p3 run: its fetch arguments.
args_of() {
	sed -n "s|^write kprobe_events 'p:ktap_\$PID/wake_up_new_task_0 wake_up_new_task \(.*\)'\$|\1|p" "$TMP/out"
}

# check_plan KERNEL DUMP [ARGS]: $ALL's -p3 plan (ktap ARGS) has the
# fetch arguments want_args computes from DUMP.
check_plan() {
	_k=$1 _d=$2
	shift 2
	want=$(want_args "$_d")
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 "$@" -e "$ALL"
	got=$(args_of)
	if [ "$rc" -eq 0 ] && [ "$got" = "$want" ]; then
		ok "$_k: every task_*() read is a fetch argument at bpftool's offsets"
	else
		not_ok "task_*() plan on $_k (exit status $rc)"
		echo "# want: $want"
		echo "# got:  $got"
		diag_file "$TMP/err"
	fi
}


# 1. this machine's kernel
bpftool btf dump file $BTF format raw >"$TMP/btf" 2>/dev/null
check_plan "this kernel ($(uname -r))" "$TMP/btf"

# 2. Debian's 6.1 (the VM's kernel): fetched into the VM tests' cache if
#    they have not done it yet (the fetch takes a lock; a second is quick)
cache=${KTAP_VM_CACHE:-$KTAP_BUILDDIR/tests/vm/cache}
vml=
if kernel=$("$KTAP_SRCDIR/tests/vm/fetch-kernel.sh" "$cache" 2>"$TMP/fetch.err"); then
	vml=$(dirname "$kernel")/vmlinux
	[ -f "$vml" ] || vml=
fi
if [ -n "$vml" ] && bpftool btf dump file "$vml" format raw >"$TMP/btf61" 2>/dev/null; then
	rel=$(cat "$(dirname "$vml")/release")
	export KTAP_BTF="$vml"
	check_plan "$rel" "$TMP/btf61" -r "$rel"
	unset KTAP_BTF
else
	not_ok "task_*() plan on the VM's 6.1 kernel: no vmlinux from fetch-kernel.sh"
	diag_file "$TMP/fetch.err"
fi

# 3. nested: one copy per address expression, named by it
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e "$ALL"
if [ "$rc" -eq 0 ] &&
	grep -q 'call .*; task_pid<task=@cast(\$p, "task_struct", "kernel")->real_parent>$' "$TMP/out" &&
	grep -q 'call .*; task_pid<task=@cast(@cast(\$p, "task_struct", "kernel")->real_parent, "task_struct", "kernel")->real_parent>$' "$TMP/out" &&
	grep -q 'call .*; task_execname<task=@cast(\$p, "task_struct", "kernel")->real_parent>$' "$TMP/out"; then
	ok "task_pid(task_parent(\$p)) and deeper: copies reading through real_parent"
else
	not_ok "nested task_parent() copies (exit status $rc)"
	diag_file "$TMP/out" 80
	diag_file "$TMP/err"
fi

# first_error DESC TEXT: the last run failed with TEXT as its first line.
first_error() {
	printf '%s\n' "$2" >"$TMP/want"
	if [ "$rc" -eq 1 ] && head -n 1 "$TMP/err" | cmp -s "$TMP/want" -; then
		ok "$1"
	else
		not_ok "$1 (exit status $rc)"
		diag_file "$TMP/err"
	fi
}

# 4. a value computed at run time (a local changed after it was set from
#    $p: t = $p alone is $p at the probe, sema_vardef.c)
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe kernel.function("wake_up_new_task") {
	t = $p; t += 8; print(task_pid(t)) }'
first_error "task_pid() of a local variable changed at run time: a located error" \
	"<input>:2:33: error: function 'task_pid' reads memory through its parameter 'task': the argument must be an address the kernel can fetch at the probe (\$var, \$p->member, @cast(...)->member, or one of these plus a constant), not a value computed at run time"

# 5. a tracepoint probe, also through task_parent(): the tracepoint's
# argument $parent is read where the record holds it (sema_tparg.c), and
# $parent->real_parent->comm is not recorded; a record field's value is
# no address at all
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe kernel.trace("sched:sched_process_fork") {
	print(task_execname(task_parent($parent))) }'
msg=$(head -n 1 "$TMP/err")
case $rc:$msg in
"1:<input>:2:8: error: \$parent->real_parent->comm (read by task_execname()): sched:sched_process_fork records no field for it; reading tracepoint arguments needs tracepoint probe events (Linux 6.10+ with CONFIG_FPROBE_EVENTS), which "*)
	ok "task_execname(task_parent(\$parent)) in a tracepoint probe: a located error" ;;
*)	not_ok "task_execname(task_parent(\$parent)) in a tracepoint probe (exit status $rc)"
	diag_file "$TMP/err" ;;
esac
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe kernel.trace("sched:sched_process_fork") {
	print(task_execname(task_parent($parent_pid))) }'
first_error "task_execname(task_parent(\$parent_pid)) in a tracepoint probe: a located error" \
	"<input>:2:8: error: @cast(\$parent_pid, \"task_struct\", \"kernel\")->real_parent (read by task_execname()): in a kernel.trace() probe, @cast() reads through a tracepoint argument (\$ptr, \$p->member), and only what the event's record holds"

# 6. task_parent() of a run-time value is not an address either (both
# errors of the kind: --all-errors)
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 --all-errors -e 'global g
probe kernel.function("wake_up_new_task") { print(task_uid(task_parent(g))) }'
if [ "$rc" -eq 1 ] && grep -q "^<input>:2:60: error: function 'task_uid' reads memory through its parameter 'task': the argument must be" "$TMP/err" &&
	grep -q "^<input>:2:72: error: function 'task_parent' reads memory through its parameter 'task': the argument must be" "$TMP/err"; then
	ok "task_uid(task_parent(a global)): located errors at both calls"
else
	not_ok "task_parent() of a global (exit status $rc)"
	diag_file "$TMP/err"
fi

# 7. the compiler rules the tapset relies on: @defined() of a @cast()
# member, and @choose_defined() compiling only the branch taken (so a
# member this kernel lacks, either side, is no error).
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe kernel.function("wake_up_new_task") {
	printf("%d %d %d %d\n", @defined(@cast($p, "task_struct", "kernel")->no_such_member),
	       @defined(@cast($p, "task_struct", "kernel")->tgid),
	       @choose_defined($p->no_such_member, $p->pid),
	       @choose_defined(@cast($p, "task_struct", "kernel")->tgid, $p->no_such_member)) }'
want="p_pid=+$(btf_member_off "$TMP/btf" task_struct pid)(%di):s32 p_cast_tgid=+$(btf_member_off "$TMP/btf" task_struct tgid)(%di):s32"
got=$(args_of)
if [ "$rc" -eq 0 ] && [ "$got" = "$want" ] && grep -q 'pushi  *0$' "$TMP/out" && grep -q 'pushi  *1$' "$TMP/out"; then
	ok "@defined(@cast(...)->m) is 0 or 1; @choose_defined() fetches only the member that exists"
else
	not_ok "@defined/@choose_defined of members (exit status $rc)"
	echo "# want: $want"
	echo "# got:  $got"
	diag_file "$TMP/out" 40
	diag_file "$TMP/err"
fi

# 8. --dump-functions lists them with stap's signatures
run_ktap "$TMP" "$TMP/out" "$TMP/err" --dump-functions
cat >"$TMP/want" <<'EOW'
task_cpu:long (task:long)
task_dentry_path:string (task:long, dentry:long, vfsmnt:long)
task_egid:long (task:long)
task_euid:long (task:long)
task_execname:string (task:long)
task_gid:long (task:long)
task_max_file_handles:long (task:long)
task_nice:long (task:long)
task_parent:long (task:long)
task_pid:long (task:long)
task_prio:long (task:long)
task_rlimit:long (task:long, lim_str:string)
task_rlimit_as:long (task:long)
task_rlimit_core:long (task:long)
task_rlimit_cpu:long (task:long)
task_rlimit_data:long (task:long)
task_rlimit_fsize:long (task:long)
task_rlimit_locks:long (task:long)
task_rlimit_memlock:long (task:long)
task_rlimit_msgqueue:long (task:long)
task_rlimit_nice:long (task:long)
task_rlimit_nofile:long (task:long)
task_rlimit_nproc:long (task:long)
task_rlimit_rss:long (task:long)
task_rlimit_rtprio:long (task:long)
task_rlimit_rttime:long (task:long)
task_rlimit_sigpending:long (task:long)
task_rlimit_stack:long (task:long)
task_start_time:long (arg1:long)
task_state:long (task:long)
task_stime:long ()
task_stime:long (arg1:long)
task_stime_tid:long (arg1:long)
task_tid:long (task:long)
task_time_string:string ()
task_time_string_tid:string (tid:long)
task_uid:long (task:long)
task_utime:long ()
task_utime:long (arg1:long)
task_utime_tid:long (arg1:long)
EOW
grep '^task_' "$TMP/out" | LC_ALL=C sort >"$TMP/got"
if [ "$rc" -eq 0 ] && cmp -s "$TMP/want" "$TMP/got"; then
	ok "--dump-functions: the task_*() functions with stap's signatures (and the task time ones)"
else
	not_ok "--dump-functions (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/got"
fi

# 9. pass 5 here: no kprobe events, a clean refusal, tracefs unchanged
if [ "$(id -u)" -ne 0 ] || [ ! -x "$TFS_SNAP" ] || [ -e /sys/kernel/tracing/kprobe_events ]; then
	skip "pass 5 without kprobe events" "needs root, tests/tools and a kernel without kprobe events"
else
	tfs_guard_begin
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'probe kernel.function("wake_up_new_task") {
		println(task_pid(task_parent($p))) }'
	tfs_guard_after
	if [ "$rc" -eq 1 ] && [ ! -s "$TMP/out" ] &&
		grep -q '^ERROR: <input>:1:7: kernel.function("wake_up_new_task"): the kernel refused the probe (this kernel has no kprobe events: CONFIG_KPROBE_EVENTS)$' "$TMP/err" &&
		cmp -s "$TMP/tfs.before" "$TMP/tfs.after"; then
		ok "pass 5 on this kernel: refused for want of kprobe events, tracefs unchanged"
	else
		not_ok "pass 5 without kprobes (exit status $rc)"
		diag_file "$TMP/err"
		diag_diff "$TMP/tfs.before" "$TMP/tfs.after"
	fi
fi
done_testing
