#!/bin/sh
# entry-tp.sh - @entry() in probes on tracepoints that end what another
# began on the same task (issue 13): a system call's return reads its
# entry's fields, paired per thread (compiler/resolve/sema_target.c
# tg_tp_entry), and stap's @this1 macro, live on tests/tools/ktap-syscalls' known calls:
# write(3, "ktap\n", 5) = 5, close(3) = 0, close(-1) = -EBADF, after the
# dynamic loader's own closes.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
SC=$KTAP_BUILDDIR/tests/tools/ktap-syscalls

require_live "live tests need root (run make check as root)"
require_tools "$SC" "$TFS_SNAP"
tfs_guard_begin

for lower in "" --no-lower; do
	# shellcheck disable=SC2086 # $lower: no option or one
	run_ktap "$TMP" "$TMP/out" "$TMP/err" $lower -c "$SC $TMP/file" -e '
probe syscall.close.return, syscall.write.return {
	if (pid() == target()) printf("%s %d %d\n", name, @entry($fd), retval)
}'
	tail -n 3 "$TMP/out" >"$TMP/got"
	printf '%s\n' "write 3 5" "close 3 0" "close 4294967295 -9" >"$TMP/want"
	expect_same "syscall.write/close.return: @entry(\$fd) is the entry's fd ${lower:-(default)}" \
		"$TMP/want" "$TMP/got"
done

# The register functions in system-call probes: argument N is the
# entry record's Nth argument, as int_arg()/uint_arg()/long_arg() read
# it; in the return, @entry() of one.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$SC $TMP/file" -e '
probe syscall.close { if (pid() == target()) printf("%d %d\n", int_arg(1), uint_arg(1)) }
probe syscall.close.return {
	if (pid() == target()) printf("ret %d %d\n", @entry(int_arg(1)), returnval())
}'
tail -n 4 "$TMP/out" >"$TMP/got"
printf '%s\n' "3 3" "ret 3 0" "-1 4294967295" "ret -1 -9" >"$TMP/want"
expect_same "int_arg()/uint_arg() of syscall.close, @entry(int_arg(1)) in its return" \
	"$TMP/want" "$TMP/got"

# stap's @this1 ... @this8 macros (ktap.stpm, this.stp): a value kept per
# thread from the entry for the return.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$SC $TMP/file" -e '
probe syscall.close { @this1 = fd }
probe syscall.close.return { if (pid() == target()) printf("%d %d\n", @this1, retval) }'
tail -n 2 "$TMP/out" >"$TMP/got"
printf '%s\n' "3 0" "-1 -9" >"$TMP/want"
expect_same "@this1 set by syscall.close, read by its return" "$TMP/want" "$TMP/got"

# A return whose call began before the run has no entry: its @entry
# probe does not run (as a kretprobe's return without its entry never
# fires), so it is not reported with a made-up value.  cat blocks in
# read(2) on a pipe before ktap starts; the read returns 0 when sleep
# exits, within the run.
( sleep 1.5 | cat >/dev/null ) &
sub=$!
sleep 0.3
catpid=$(pgrep -P "$sub" -x cat)
run_ktap "$TMP" "$TMP/out" "$TMP/err" -T 3 -x "$catpid" -e '
global n, m
probe syscall.read.return { if (pid() == target()) n++ }
probe syscall.read.return { if (pid() == target()) m += 1 + @entry($count) * 0 }
probe end { printf("%d %d\n", n, m) }'
wait "$sub" 2>/dev/null
echo "1 0" >"$TMP/want"
expect_same "a read that began before the run: its return runs, its @entry probe does not" \
	"$TMP/want" "$TMP/out"

tfs_guard_end "tracefs unchanged after the runs"
done_testing
