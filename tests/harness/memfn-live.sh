#!/bin/sh
# memfn-live.sh - functions that read memory through their parameters,
# run on this machine's kernel (TAP): script functions reading a uprobe
# target's struct through $r (specialised per call site), and the tcp
# tapset's tracepoint probe on a real retransmission, made by
# tests/tools/ktap-tcp-stall (a SYN to a listener whose accept queue is
# full is dropped and sent again after 1 s).  The kprobe-based tcp and
# vfs probes run in the VM (tests/vm/guest-tcp.sh); user_string() of
# memory the kernel cannot read is stap's run-time error.  Root only.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
STALL=$KTAP_BUILDDIR/tests/tools/ktap-tcp-stall
UT=$KTAP_BUILDDIR/tests/tools/ktap-uprobe-target

require_live "live tests need root (run make check as root)"
[ -d /sys/kernel/tracing/events/tcp/tcp_retransmit_skb ] ||
	skip_all "no tcp:tcp_retransmit_skb tracepoint in /sys/kernel/tracing"
require_tools "$STALL" "$TFS_SNAP" "$UT"

# handle(&r, k, "hello") of the uprobe target: r.id 42, r.name "alpha",
# r.in.y 50, three calls.  Each function reads through its parameter.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$UT" -e '
	function id(p) { return user_int(p) }
	function name(q) { return user_string(@cast(q, "struct req")->name) }
	function y(q) { return @cast(q, "struct req")->in->y }
	function all(r) { return sprintf("%d %s %d", id(r), name(r), y(r)) }
	probe process("'"$UT"'").function("handle") { printf("%s %d\n", all($r), $r->in->y) }'
grep -v '^[0-9]* [0-9]$' "$TMP/out" >"$TMP/ours"	# the target prints "SUM N"
printf '42 alpha 50 50\n42 alpha 50 50\n42 alpha 50 50\n' >"$TMP/want"
if [ "$rc" -eq 0 ] && cmp -s "$TMP/want" "$TMP/ours"; then
	ok "uprobe: functions reading user memory through \$r, nested, as fetch arguments"
else
	not_ok "uprobe functions (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/ours"
	diag_file "$TMP/err"
fi

# A string the kernel could not copy: handle()'s n (0 to 2) read as an
# address.  user_string() of it is stap's run-time error, which try/catch
# catches and which ends a run otherwise; the forms with an error text
# give the text, the _nofault ones "".
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$UT" -e '
	probe process("'"$UT"'").function("handle") {
		printf("[%s] [%s] [%s] [%s] [%s]\n", user_string2($n, "bad"), user_string_n($n, 2, "bad4"), user_string_n($msg, 2, "e"),
		       user_string_nofault($n), user_string_n($msg, 2))
		try { println(user_string($n)) } catch (e) { println("caught ", e) } }'
grep -v '^[0-9]* [0-9]$' "$TMP/out" >"$TMP/ours"
printf '[bad] [bad4] [he] [] [he]\ncaught user string copy fault\n' >"$TMP/want1"
cat "$TMP/want1" "$TMP/want1" "$TMP/want1" >"$TMP/want"
if [ "$rc" -eq 0 ] && cmp -s "$TMP/want" "$TMP/ours"; then
	ok "uprobe: user_string() of an unreadable address is an error try/catch catches, user_string2() its text"
else
	not_ok "user string faults (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/ours"
	diag_file "$TMP/err"
fi
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$UT" -e '
	probe process("'"$UT"'").function("handle") {
		printf("%s\n", user_string($n)) }'
col=$(printf '\t\tprintf("%%s\\n", user_string(' | wc -c)
printf "ERROR: user string copy fault near identifier 'user_string' at <input>:3:%d\n" "$((col + 1))" >"$TMP/want"
if [ "$rc" -eq 1 ] && head -n 1 "$TMP/err" | cmp -s "$TMP/want" - && ! grep -qv '^[0-9]* [0-9]$' "$TMP/out"; then
	ok "uprobe: user_string() of an unreadable address ends the run with stap's error, exit status 1"
else
	not_ok "user string fault as an error (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/err"
	diag_file "$TMP/out"
fi

tfs_guard_begin
# The SYN is retransmitted after the initial RTO of 1 s, later when a busy
# machine delays the timer's softirq (CI once saw none in 1.5 s), and
# again after each further second where net.ipv4.tcp_syn_linear_timeouts
# (6.5+) makes the first timeouts linear: 3 s, and the first one counts.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$STALL $TMP/ports 3" -e \
	'probe tcp.retransmit { printf("%s %d %d %d %s\n", name, family, sport, dport, tcp_sockstate_str(state)) }'
read -r lport c1port c2port <"$TMP/ports"
# Other connections of this machine may retransmit too: keep ours.
grep " $c2port $lport " "$TMP/out" | head -n 1 >"$TMP/ours"
printf 'tcp.retransmit 2 %d %d TCP_SYN_SENT\n' "$c2port" "$lport" >"$TMP/want"
if [ "$rc" -eq 0 ] && cmp -s "$TMP/want" "$TMP/ours"; then
	ok "tcp.retransmit: the SYN of port $c2port to $lport in TCP_SYN_SENT (first client $c1port)"
else
	not_ok "tcp.retransmit (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/ours"
	diag_file "$TMP/err"
fi

tfs_guard_end "tracefs unchanged after the run"
done_testing
