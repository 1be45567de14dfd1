#!/bin/sh
# tcp-live.sh - the tcp tapset's tracepoint probe on this machine's
# kernel (TAP): a real retransmission, made by tests/tools/ktap-tcp-stall
# (a SYN to a listener whose accept queue is full is dropped and sent
# again after 1 s), seen by tcp.retransmit with the right ports and
# state.  The kprobe-based tcp and vfs probes run in the VM
# (tests/vm/guest-tcp.sh).  Root and the tcp:tcp_retransmit_skb
# tracepoint only.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
STALL=$KTAP_BUILDDIR/tests/tools/ktap-tcp-stall
SNAP=$KTAP_BUILDDIR/tests/tools/ktap-tfs-snapshot

[ "$(id -u)" -eq 0 ] || skip_all "live tests need root (run make check as root)"
[ -d /sys/kernel/tracing/events/tcp/tcp_retransmit_skb ] ||
	skip_all "no tcp:tcp_retransmit_skb tracepoint in /sys/kernel/tracing"
[ -x "$STALL" ] && [ -x "$SNAP" ] || skip_all "tests/tools not built"

plan 2

"$SNAP" >"$TMP/before"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$STALL $TMP/ports 1.5" -e \
	'probe tcp.retransmit { printf("%s %d %d %d %s\n", name, family, sport, dport, tcp_sockstate_str(state)) }'
read -r lport c1port c2port <"$TMP/ports"
# Other connections of this machine may retransmit too: keep ours.
grep " $c2port $lport " "$TMP/out" >"$TMP/ours"
printf 'tcp.retransmit 2 %d %d TCP_SYN_SENT\n' "$c2port" "$lport" >"$TMP/want"
if [ "$rc" -eq 0 ] && cmp -s "$TMP/want" "$TMP/ours"; then
	ok "tcp.retransmit: the SYN of port $c2port to $lport, once, in TCP_SYN_SENT (first client $c1port)"
else
	not_ok "tcp.retransmit (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/ours"
	diag_file "$TMP/err"
fi

"$SNAP" >"$TMP/after"
if cmp -s "$TMP/before" "$TMP/after"; then
	ok "tracefs unchanged after the run"
else
	not_ok "tracefs changed"
	diag_diff "$TMP/before" "$TMP/after"
fi
