#!/bin/sh
# tparg-plan.sh - the table of tracepoint arguments, without root (TAP):
# scripts/gen-tparg.py, which writes compiler/resolve/resolve_tparg.def
# from the kernel's trace headers, on a made-up header with one case of
# each rule (tests/fixtures/tparg-src: exact copies kept; computed, cast,
# conditional, twice-written fields, byte arrays and wrapper macros left
# out) prints exactly expected.def; the checked-in table still has the
# entries the tests rely on; and without the kernel's BTF the table's
# own prototypes name the arguments (the goldens run with this machine's).
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

SRC=$KTAP_SRCDIR/tests/fixtures/tparg-src
require_tools python3

if python3 "$KTAP_SRCDIR/scripts/gen-tparg.py" "$SRC" >"$TMP/out" 2>"$TMP/err" &&
	cmp -s "$SRC/expected.def" "$TMP/out"; then
	ok "gen-tparg.py: the rules on tests/fixtures/tparg-src"
else
	not_ok "gen-tparg.py on tests/fixtures/tparg-src"
	diag_diff "$SRC/expected.def" "$TMP/out"
	diag_file "$TMP/err"
fi

def=$KTAP_SRCDIR/compiler/resolve/resolve_tparg.def
n=$(grep -c '^TPARG_EVENT(' "$def")
m=$(grep -c '^TPARG_MAP(' "$def")
if [ "$n" -gt 1000 ] && [ "$m" -gt 3000 ] &&
	grep -qx 'TPARG_MAP("sched_switch", "prev->pid", "prev_pid", 0)' "$def" &&
	grep -qx 'TPARG_MAP("task_rename", "comm", "newcomm", 1)' "$def" &&
	grep -qx 'TPARG_MAP("sched_migrate_task", "p->thread_info->cpu", "orig_cpu", 0)' "$def" &&
	! grep -q '^TPARG_MAP("sched_switch", "prev_state"' "$def"; then
	ok "resolve_tparg.def: $n events, $m fields, sched_switch and task_rename as generated"
else
	not_ok "resolve_tparg.def ($n events, $m fields)"
fi
# task_cpu($p) through the tapset's @choose_defined(->cpu, ->thread_info->cpu):
# the member this kernel lacks is undefined, not an error, and the other
# is the field task_cpu(p) was copied into (stap's migrate.stp); the call
# of task_cpu()'s copy, which only returns that field, is the field.
if [ -r /sys/kernel/btf/vmlinux ]; then
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe kernel.trace("sched:sched_migrate_task") {
	printf("%d %d\n", task_cpu($p), @choose_defined($p->nosuch, $p->thread_info->cpu)) }'
	if [ "$rc" -eq 0 ] &&
		grep -qxF '  printf("%d %d\n", $orig_cpu, $orig_cpu);' "$TMP/out" &&
		grep -qxF '  return $orig_cpu;' "$TMP/out"; then
		ok "task_cpu(\$p) and @choose_defined on a tracepoint argument: the field of task_cpu(p)"
	else
		not_ok "task_cpu(\$p) on sched_migrate_task (exit status $rc)"
		diag_file "$TMP/out"
		diag_file "$TMP/err"
	fi
else
	skip "task_cpu(\$p)" "no /sys/kernel/btf/vmlinux"
fi
# Without BTF: the same fields; a member is only "not recorded".
KTAP_BTF=/nonexistent KTAP_TRACEFS=$KTAP_SRCDIR/tests/fixtures/tracefs
export KTAP_BTF KTAP_TRACEFS
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe kernel.trace("sched:sched_switch") {
	printf("%d %s %d\n", $prev->pid, task_execname($next), @cast($prev, "task_struct")->prio) }'
if [ "$rc" -eq 0 ] &&
	grep -qxF '  printf("%d %s %d\n", $prev_pid, $next_comm, $prev_prio);' "$TMP/out" &&
	grep -qxF '  return $next_comm;' "$TMP/out"; then
	ok "no BTF: \$prev->pid, task_execname(\$next), @cast(\$prev) from the table's prototype"
else
	not_ok "no BTF (exit status $rc)"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe kernel.trace("sched:sched_switch") { println($prev->nosuch) }'
if [ "$rc" -eq 1 ] && grep -q '^<input>:1:52: error: \$prev->nosuch: sched:sched_switch records no field for it' "$TMP/err"; then
	ok "no BTF: an unknown member is not recorded"
else
	not_ok "no BTF, unknown member (exit status $rc)"
	diag_file "$TMP/err"
fi
done_testing
