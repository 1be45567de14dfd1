# guest-tcp.sh - the tcp, udp and vfs tapset and their examples, in the
# guest (sourced by guest-ktap.sh, whose run/expect/ok/not_ok it uses;
# 9 checks).
# A real retransmission: ktap-tcp-stall's second connection to a
# listener whose accept queue is full has its SYN dropped, so the kernel
# retransmits it after the initial RTO (1 s) in TCP_SYN_SENT.

# t1. SystemTap's tcp_retransmission.stp, unchanged
# (a stall of 2.5 s, the first retransmission only: guest-stapex.sh's)
run -c "ktap-tcp-stall $T/ports 2.5" /usr/share/ktap/examples/tcp_retransmit.stp
sed -i '3,$d' $T/out
read -r lport c1port c2port <$T/ports
printf 'Printing tcp retransmission\n127.0.0.1:%d => 127.0.0.1:%d STATE:TCP_SYN_SENT RTO:1000 (ms)\n' \
	"$c2port" "$lport" >$T/want
expect "tcp_retransmit.stp: the SYN of 127.0.0.1:$c2port => 127.0.0.1:$lport, RTO 1000 ms"

# t2. tcp.sendmsg: the size of a known write, the family
run -e 'probe tcp.sendmsg { if (pid() == target()) printf("%s %d %d\n", name, size, family) }' \
	-c "ktap-tcp-stall $T/ports 0"
echo "tcp.sendmsg 1234 2" >$T/want
expect "tcp.sendmsg: size 1234 of ktap-tcp-stall's write, family AF_INET"

# t2b. One run of ktap-tcp-stall for three tapsets: tcp.receive (the
#     SYNs and the SYN-ACK of its two connections, their addresses read
#     at the IPv4 header's length before the TCP header, ports and flags
#     from it); netfilter.ipv4.local_out (the same segments leaving, with
#     their ports and flags); the MIB counters under the script's filter
#     keys: a connection per client port (ActiveOpens) and the listener's
#     one (PassiveOpens), segments sent from each (OutSegs), TCP packets
#     received per local port (ipmib.InReceives, its ports read after the
#     IPv4 header): the second client's SYN is dropped, nothing comes back.
run -e 'function tcpmib_filter_key(sk, op) { return sk ? tcpmib_local_port(sk) : 0 }
function ipmib_filter_key(skb, op, SourceIsLocal) {
	return ipmib_get_proto(skb) == 6 ? ipmib_tcp_local_port(skb, SourceIsLocal) : 0
}
probe tcpmib.ActiveOpens, tcpmib.PassiveOpens, tcpmib.OutSegs, ipmib.InReceives { }
probe tcp.receive { if (syn) printf("%s %s %s %d %d %d %d %d\n", name, saddr, daddr, sport, dport, syn, ack, family) }
probe netfilter.ipv4.local_out { if (protocol == 6 && syn) printf("out %d %d %d %d %d\n", sport, dport, syn, ack, fin) }
probe end {
	foreach (p in ActiveOpens) printf("mib active %d %d out %d in %d\n", p, ActiveOpens[p], OutSegs[p] > 0, InReceives[p] > 0)
	foreach (p in PassiveOpens) printf("mib passive %d %d in %d\n", p, PassiveOpens[p], InReceives[p] >= 3)
}' -c "ktap-tcp-stall $T/ports 0"
read -r lport c1port c2port <$T/ports
sort $T/out -o $T/all
grep '^tcp.receive ' $T/all >$T/out
printf 'tcp.receive 127.0.0.1 127.0.0.1 %d %d 1 %d 2\n' "$c1port" "$lport" 0 "$lport" "$c1port" 1 \
	"$c2port" "$lport" 0 | sort >$T/want
expect "tcp.receive: SYN, SYN-ACK, SYN on 127.0.0.1 with their ports and flags"
grep '^out ' $T/all >$T/out
printf 'out %d %d 1 0 0\nout %d %d 1 1 0\nout %d %d 1 0 0\n' "$c1port" "$lport" "$lport" "$c1port" \
	"$c2port" "$lport" | sort >$T/want
expect "netfilter.ipv4.local_out: TCP SYN, SYN-ACK, SYN with their ports and flags"
grep '^mib ' $T/all >$T/out
printf 'mib active %d 1 out 1 in 1\nmib active %d 1 out 1 in 0\nmib passive %d 1 in 1\n' \
	"$c1port" "$c2port" "$lport" | sort >$T/want
expect "tcpmib.ActiveOpens/PassiveOpens/OutSegs, ipmib.InReceives: per port, by the script's filters"

# t3. vfs.read: bytes_to_read, filename and ino of dd's read
ino=$(stat -c %i /etc/hostname)
run -e 'probe vfs.read { if (pid() == target()) printf("%s %d %s %d\n", name, bytes_to_read, filename, ino) }' \
	-c "dd if=/etc/hostname of=/dev/null bs=123 count=1"
echo "vfs.read 123 hostname $ino" >$T/want
expect "vfs.read: dd asks 123 bytes of hostname (inode $ino)"

# t4. file_reads.stp (vfs.read.return): the bytes dd really read
size=$(wc -c </etc/hostname)
run -c "dd if=/etc/hostname of=/dev/null bs=123 count=1" /usr/share/ktap/examples/file_reads.stp
{
	printf "%-16s %-24s %10s %6s\n" COMMAND FILE BYTES READS
	printf "%-16s %-24s %10d %6d\n" dd hostname "$size" 1
} >$T/want
expect "file_reads.stp: dd read $size bytes of hostname in 1 read"

# u1. udp.sendmsg and udp.recvmsg.return: ktap-udp sends 3 datagrams of
#     100 bytes from an unbound socket to one bound on 127.0.0.1 and reads
#     each back; the receiver's address is read at recvmsg's entry.
run -e 'probe udp.sendmsg { if (pid() == target()) printf("%s %d %d\n", name, size, family) }
probe udp.recvmsg.return {
	if (pid() == target()) printf("%s %d %s %s %d\n", name, size, saddr, daddr, dport)
}' -c "ktap-udp 3 100"
for i in 1 2 3; do
	echo "udp.sendmsg 100 2"
	echo "udp.recvmsg 100 127.0.0.1 0.0.0.0 0"
done >$T/want
expect "udp.sendmsg/udp.recvmsg.return: 3 datagrams of 100 bytes over 127.0.0.1"

# u1b. IPv6 socket addresses: stap's format_ipaddr(__ip_sock_daddr(S), F)
#     reads the address through a pointer __ip_sock_daddr() returns;
#     ktap reads it through $sk at the probe (__ip_sock_addr_text()), as
#     inet_get_ip_source() does.  ktap-udp -6 sends 2 datagrams over ::1.
run -e 'probe kernel.function("udpv6_sendmsg") {
	if (pid() == target())
		printf("%s %s %d %s\n", format_ipaddr(__ip_sock_saddr($sk), __ip_sock_family($sk)),
		       format_ipaddr(__ip_sock_daddr($sk), __ip_sock_family($sk)), __ip_sock_family($sk),
		       inet_get_ip_source($sk))
}' -c "ktap-udp -6 2 100"
one=0000:0000:0000:0000:0000:0000:0000:0001
printf '%s %s 10 %s\n%s %s 10 %s\n' $one $one $one $one $one $one >$T/want
expect "IPv6 addresses of a socket: format_ipaddr(__ip_sock_*addr(\$sk), AF_INET6) over ::1"

# u2. udp.disconnect: connect(2) with AF_UNSPEC on a connected socket
#     (busybox has no UDP client that does it: ktap-udp 0 disconnects)
run -e 'probe udp.disconnect { if (pid() == target()) printf("%s %s %d\n", name, daddr, dport > 0) }
probe udp.disconnect.return { if (pid() == target()) printf("%s %d\n", name, ret) }' -c "ktap-udp -d 1"
printf 'udp.disconnect 127.0.0.1 1\nudp.disconnect 0\n' >$T/want
expect "udp.disconnect(.return): a connected socket's peer, then 0"
