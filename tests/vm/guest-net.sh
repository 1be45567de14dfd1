# guest-net.sh - the netdev, socket, nfsd and netfilter tapset, in the
# guest (sourced by guest-ktap.sh, whose run/expect/ok/not_ok it uses;
# 19 checks, and guest-nfs-fop.sh's 3, guest-nfs-proc.sh's 4,
# guest-sunrpc.sh's 5 and guest-sig2.sh's 5).  The initramfs has the dummy, nfsd and nfsv4
# modules (vm-ktap.sh), all loaded at boot: the checks unload and reload
# dummy, and run the kernel's NFS server and client over 127.0.0.1.

# n1. netdev.rx (net:netif_rx_entry) and netdev.hard_transmit: busybox
#     ping's 3 echo requests and their replies go through lo (6 packets
#     of 100 + 8 + 20 + 14 bytes); protocol is ETH_P_IP as stap reads it
#     (big-endian 0x0800 read on x86: 8)
run -e 'global rx, tx
probe netdev.rx { if (dev_name == "lo") rx[protocol]++ }
probe netdev.hard_transmit { if (dev_name == "lo") tx[protocol, length, truesize > length]++ }
probe end {
	foreach (p in rx) printf("rx %d %d\n", p, rx[p])
	foreach ([p, l, t] in tx) printf("tx %d %d %d %d\n", p, l, t, tx[p, l, t])
}' -c "sh -c 'ping -c 3 -s 100 127.0.0.1 >/dev/null'"
printf 'rx 8 6\ntx 8 142 1 6\n' >$T/want
expect "netdev.rx, netdev.hard_transmit: ping's 6 packets of 142 bytes on lo"

# n2. the device administration probes, in order: lo's MTU (busybox ip
#     sets it with the SIOCSIFMTU ioctl, 0x8922) and promiscuity, then
#     dummy0 registered, brought up, given a MAC address and an MTU
#     (ifconfig), brought down, unregistered
rmmod dummy
cat >$T/admin.sh <<'EOS'
ip link set lo mtu 1500
ip link set lo mtu 65536
ip link set lo promisc on
ip link set lo promisc off
insmod /lib/modules/ktap-vm/dummy.ko
ip link set dummy0 up
cat /sys/class/net/dummy0/address >/tmp/ktap-guest/mac
ip link set dummy0 address 02:11:22:33:44:55
ifconfig dummy0 mtu 1400
ip link set dummy0 down
rmmod dummy
EOS
run -e 'probe netdev.change_mtu { printf("mtu %s %d %d\n", dev_name, old_mtu, new_mtu) }
probe netdev.set_promiscuity { printf("promisc %s %d %d %d\n", dev_name, inc, enable, disable) }
probe netdev.register { printf("register %s\n", dev_name) }
probe netdev.unregister { printf("unregister %s\n", dev_name) }
probe netdev.open { printf("open %s\n", dev_name) }
probe netdev.close { printf("close %s\n", dev_name) }
probe netdev.change_mac { printf("mac %s %d %s %s\n", dev_name, mac_len, old_mac, new_mac) }
probe netdev.ioctl { if (cmd == 0x8922) printf("ioctl %x %s\n", cmd, arg) }' -c "sh $T/admin.sh"
insmod /lib/modules/ktap-vm/dummy.ko
{
	echo 'ioctl 8922 "lo"'
	echo "mtu lo 65536 1500"
	echo 'ioctl 8922 "lo"'
	echo "mtu lo 1500 65536"
	echo "promisc lo 1 1 0"
	echo "promisc lo -1 0 1"
	echo "register dummy%d"
	echo "open dummy0"
	echo "mac dummy0 6 $(cat $T/mac) 02:11:22:33:44:55"
	echo 'ioctl 8922 "dummy0"'
	echo "mtu dummy0 1500 1400"
	echo "close dummy0"
	echo "unregister dummy0"
} >$T/want
expect "netdev.change_mtu/set_promiscuity/register/open/change_mac/ioctl/close/unregister: ip and ifconfig on lo and dummy0"

# n3. netdev.get_stats: reading /proc/net/dev asks every device once
run -e 'probe netdev.get_stats { if (pid() == target()) println(dev_name) }' -c "sh -c 'exec cat /proc/net/dev >/dev/null'"
sed -n 's/^ *\([^:]*\):.*/\1/p' /proc/net/dev >$T/want
expect "netdev.get_stats: once per device of /proc/net/dev ($(tr '\n' ' ' <$T/want))"

# n4. netdev.change_rx_flag: dev_change_rx_flags() is inlined in 6.1,
#     and stap's point is optional: the probe resolves to nothing, so a
#     script of it alone has no probes (guest-sig2.sh's g2 runs it)
run -p2 -e 'probe netdev.change_rx_flag { println(flags) }'
if [ "$rc" -ne 0 ] && grep -q 'no probes: the script has nothing to run' $T/err; then
	ok "netdev.change_rx_flag: nothing on 6.1 (dev_change_rx_flags inlined), no error of its own"
else
	not_ok "netdev.change_rx_flag (exit status $rc)"
	diag $T/out $T/err
fi

# s1-s3. socket.* (kprobes on the socket layer): every probe of a
#     ktap-udp or ktap-tcp-stall run, counted by name and values, the
#     numbers named by sock_prot_num2str() and the like.  socket(AF_INET,
#     ..., 0) asks for protocol 0 (the family's default) and gets UDP (17)
#     or TCP (6); a UDP socket stays SS_UNCONNECTED when connected (only a
#     stream's connect sets the state); the receiver has room for 65536
#     bytes; a write() or read() is seen twice by socket.send or
#     socket.receive (the file operation and the send or receive below
#     it); the flags are 32, SOCK_SUPPORT_ZC (bit 5, Linux 6.0+: TCP and
#     UDP sockets can send zero-copy), which stap's sock_flags_num2str()
#     does not name
cat >$T/sock.stp <<'EOS'
global n
function s:string (protocol:long, family:long, state:long, type:long, flags:long)
{
	return sprintf("%s %s %s %s %d", sock_prot_num2str(protocol), sock_fam_num2str(family),
		       sock_state_num2str(state), sock_type_num2str(type), flags)
}
probe socket.sendmsg, socket.recvmsg, socket.write_iter, socket.read_iter {
	if (pid() == target()) n[sprintf("%s %d %s", name, size, s(protocol, family, state, type, flags))]++
}
probe socket.send, socket.receive {
	if (pid() == target()) n[sprintf("%s %d %d %s", name, size, success, s(protocol, family, state, type, flags))]++
}
probe socket.create {
	if (pid() == target()) n[sprintf("%s %d %d %d %d", name, protocol, family, type, requester)]++
}
probe socket.create.return {
	if (pid() == target()) n[sprintf("%s %d %d %d %d %d %d", name, protocol, family, type, requester, err, success)]++
}
probe socket.close { if (pid() == target()) n[sprintf("%s %s", name, s(protocol, family, state, type, flags))]++ }
probe socket.close.return { if (pid() == target()) n[name]++ }
probe end { foreach (k in n) printf("%s x%d\n", k, n[k]) }
EOS
# sock_want: the lines every run has for its COUNT sockets of TYPE
sock_want() {
	echo "socket.create 0 2 $2 0 x$1"
	echo "socket.create.return 0 2 $2 0 0 1 x$1"
	echo "socket.close.return x$1"
}
# s1. ktap-udp -s: send() on the connected socket, recv() on the other
run -c "ktap-udp -s 3 100" $T/sock.stp
sort $T/out -o $T/out
{
	sock_want 2 2
	echo "socket.close UDP INET UNCONNECTED DGRAM 32 x2"
	echo "socket.sendmsg 100 UDP INET UNCONNECTED DGRAM 32 x3"
	echo "socket.send 100 1 UDP INET UNCONNECTED DGRAM 32 x3"
	echo "socket.recvmsg 65536 UDP INET UNCONNECTED DGRAM 32 x3"
	echo "socket.receive 100 1 UDP INET UNCONNECTED DGRAM 32 x3"
} | sort >$T/want
expect "socket.create/sendmsg/send/recvmsg/receive/close: ktap-udp -s's 2 UDP sockets, 3 datagrams of 100 bytes by send() and recv()"
# s2. ktap-udp -w: write() and read(), sock_write_iter() and sock_read_iter()
run -c "ktap-udp -w 3 100" $T/sock.stp
sort $T/out -o $T/out
{
	sock_want 2 2
	echo "socket.close UDP INET UNCONNECTED DGRAM 32 x2"
	echo "socket.write_iter 100 UDP INET UNCONNECTED DGRAM 32 x3"
	echo "socket.sendmsg 100 UDP INET UNCONNECTED DGRAM 32 x3"
	echo "socket.send 100 1 UDP INET UNCONNECTED DGRAM 32 x6"
	echo "socket.read_iter 65536 UDP INET UNCONNECTED DGRAM 32 x3"
	echo "socket.recvmsg 65536 UDP INET UNCONNECTED DGRAM 32 x3"
	echo "socket.receive 100 1 UDP INET UNCONNECTED DGRAM 32 x6"
} | sort >$T/want
expect "socket.write_iter/read_iter, socket.send/receive twice each: ktap-udp -w's 3 datagrams by write() and read()"
# s3. ktap-tcp-stall: its listener (still SS_UNCONNECTED), the first
#     client (connected, writes 1234 bytes) and the second (its
#     non-blocking connect still in progress: SS_CONNECTING), all
#     released at exit
run -c "ktap-tcp-stall $T/ports 0" $T/sock.stp
sort $T/out -o $T/out
{
	sock_want 3 1
	echo "socket.close TCP INET UNCONNECTED STREAM 32 x1"
	echo "socket.close TCP INET CONNECTED STREAM 32 x1"
	echo "socket.close TCP INET CONNECTING STREAM 32 x1"
	echo "socket.write_iter 1234 TCP INET CONNECTED STREAM 32 x1"
	echo "socket.sendmsg 1234 TCP INET CONNECTED STREAM 32 x1"
	echo "socket.send 1234 1 TCP INET CONNECTED STREAM 32 x2"
} | sort >$T/want
expect "socket.*: ktap-tcp-stall's 3 TCP sockets (UNCONNECTED listener, CONNECTED, CONNECTING) and its write of 1234 bytes"

# s4. why socket.sendmsg and socket.close take __sock_sendmsg() and
#     __sock_release() where they exist: on Debian's 6.1 the system
#     calls' sends and a file's last close no longer go through stap's
#     sock_sendmsg() and sock_release() (the kernel's own sockets do)
run -e 'global n
probe kernel.function("sock_sendmsg"), kernel.function("sock_release"),
	kernel.function("__sock_sendmsg"), kernel.function("__sock_release") { if (pid() == target()) n[probefunc()]++ }
probe end { foreach (f in n) printf("%s %d\n", f, n[f]) }' -c "ktap-udp -s 3 100"
sort $T/out -o $T/out
printf '__sock_release 2\n__sock_sendmsg 3\n' >$T/want
expect "ktap-udp -s's sends and closes: __sock_sendmsg() 3, __sock_release() 2, stap's sock_sendmsg() and sock_release() none"

# The NFS server: a tmpfs exported as the NFSv4 root (fsid 0) to
# 127.0.0.1, its caches filled by hand (no mountd), mounted by the
# kernel's NFSv4.0 client.
nfs_setup() {
	mkdir -p /export /mnt/nfs /var/lib/nfs/v4recovery /proc/fs/nfsd
	mount -t tmpfs tmpfs /export || return 1
	echo hello >/export/r
	mount -t nfsd nfsd /proc/fs/nfsd || return 1
	echo "-3 +4 +4.0 -4.1 -4.2" >/proc/fs/nfsd/versions
	echo 10 >/proc/fs/nfsd/nfsv4gracetime
	exp=2147483647
	echo "nfsd 127.0.0.1 $exp localdomain" >/proc/net/rpc/auth.unix.ip/channel
	echo "localdomain 1 \\x00000000 $exp /export" >/proc/net/rpc/nfsd.fh/channel
	# flags: NFSEXP_INSECURE_PORT | NFSEXP_NOSUBTREECHECK | NFSEXP_FSID
	echo "localdomain /export $exp 9218 65534 65534 0" >/proc/net/rpc/nfsd.export/channel
	echo 2 >/proc/fs/nfsd/threads || return 1
	bounded 30 mount -t nfs4 -o vers=4.0,proto=tcp,sec=sys,clientaddr=127.0.0.1 \
		127.0.0.1:/ /mnt/nfs
}
if nfs_setup >$T/nfs.log 2>&1; then
	ok "NFSv4 server and client over 127.0.0.1"
else
	not_ok "NFSv4 server and client over 127.0.0.1"
	diag $T/nfs.log
fi

# n5. a workload's NFSv4 operations and the nfsd functions they call
cat >$T/nfs.sh <<'EOS'
ls -l /mnt/nfs/r >/dev/null
cat /mnt/nfs/r >/dev/null
echo abc >/mnt/nfs/w
mv /mnt/nfs/w /mnt/nfs/v
rm /mnt/nfs/v
mkdir /mnt/nfs/d
EOS
run -e 'global d
probe nfsd.dispatch { if (prog == 100003 && version == 4 && proto == 6 && client_ip =~ "^127\\.0\\.0\\.1:[0-9]+$") d["ok"]++ else d[client_ip]++ }
probe nfsd.proc.lookup { printf("%s %s %d\n", name, filename, filelen) }
probe nfsd.lookup { printf("%s %s %d %s\n", name, filename, filelen, fh) }
probe nfsd.proc.read { printf("%s %d\n", name, offset) }
probe nfsd.proc.write { printf("%s %d %d %d\n", name, offset, count, stable) }
probe nfsd.proc.commit, nfsd.commit { printf("%s %d %d\n", name, offset, count) }
probe nfsd.proc.rename { printf("%s %s %d %s %d %d\n", name, filename, flen, tname, tlen, fh != tfh) }
probe nfsd.rename { printf("%s %s %d\n", name, filename, flen) }
probe nfsd.proc.remove, nfsd.proc.create { printf("%s %s %d\n", name, filename, filelen) }
probe nfsd.unlink { printf("%s %s %d %d\n", name, filename, filelen, type) }
probe nfsd.create { printf("%s %s %d %o %d\n", name, filename, filelen, type, iap_valid != 0) }
probe nfsd.proc.rename.return, nfsd.proc.remove.return, nfsd.unlink.return, nfsd.rename.return { printf("%s %s\n", name, retstr) }
probe end { foreach (k in d) printf("dispatch %s %d\n", k, d[k] > 0) }' -c "sh $T/nfs.sh"
cat >$T/want <<'EOS'
nfsd.proc4.lookup r 1
nfsd.lookup r 1 8: 00010001 00000000 00000000 00000000 00000000 00000000
nfsd.lookup r 1 8: 00010001 00000000 00000000 00000000 00000000 00000000
nfsd.proc4.read 0
nfsd.proc4.write 0 4 2
nfsd.proc4.lookup v 1
nfsd.lookup v 1 8: 00010001 00000000 00000000 00000000 00000000 00000000
nfsd.proc4.rename w 1 v 1 1
nfsd.rename w 1
nfsd.rename.return NFS_OK
nfsd.proc4.rename.return NFS_OK
nfsd.proc4.remove v 1
nfsd.unlink v 1 0
nfsd.unlink.return NFS_OK
nfsd.proc4.remove.return NFS_OK
nfsd.proc4.create d 1
nfsd.create d 1 40000 1
dispatch ok 1
EOS
expect "nfsd.*, nfsd.proc.*: ls, cat, echo >, mv, rm, mkdir on the NFSv4 mount, in order"

# n6. every nfsd alias and its variables plan (-p3: 67 kprobes on the
#     nfsd module's functions, the names of the .return probes' entry
#     halves ending in e)
run -p3 /tests/nfsd-all.stp
n=$(grep -c "^write kprobe_events '[pr][0-9]*:ktap_\$PID/n[a-z0-9_]* nfsd:" $T/out)
if [ "$rc" -eq 0 ] && [ "$n" = 67 ]; then
	ok "-p3 of every nfsd.* and nfsd.proc*.* probe: 67 kprobes on module nfsd"
else
	not_ok "-p3 of the nfsd probes (exit status $rc, $n kprobes)"
	diag $T/err
fi

# n7. nfsd.open, whose function 6.1 has twice, resolves to nothing: alone,
#     the script has nothing to run, which says why; nfsd.read's file is
#     0 on 6.1 (no struct file), as stap's @choose_defined($file, 0)
run -p2 -e 'probe nfsd.open { println(1) }'
run2=$rc
grep -q "no probes: the script has nothing to run on this kernel: nfsd.open: the nfsd module has two functions named nfsd_open" $T/err && e1=1
run -p2 -e 'probe nfsd.read { println(file) }'
if [ "$run2" -ne 0 ] && [ "$rc" -eq 0 ] && [ "${e1:-}" = 1 ]; then
	ok "nfsd.open alone has nothing to run and says why; nfsd.read's file compiles (0)"
else
	not_ok "nfsd.open error / nfsd.read file (exit status $run2 $rc)"
	diag $T/err
fi

# n8. module("GLOB").function("GLOB"): the live available_filter_functions'
#     "NAME [MODULE]" lines of the modules the glob matches (nfs, nfsd,
#     nfsv4 ... : only nfsd has nfsd_vfs_write); kernel.function() globs
#     match the kernel's own functions, not the modules'
run -p3 -e 'probe module("nfs*").function("nfsd_vfs_wr*").return { println($return) }
probe kernel.function("nfsd_vfs_wr*") ? { println(2) }'
n=$(grep -c "^write kprobe_events" $T/out)
if [ "$rc" -eq 0 ] && [ "$n" = 1 ] &&
	grep -q "^write kprobe_events 'r[0-9]*:ktap_\$PID/nfsd_vfs_write_0 nfsd:nfsd_vfs_write " $T/out; then
	ok "module(\"nfs*\").function(\"nfsd_vfs_wr*\"): one kretprobe, on nfsd:nfsd_vfs_write"
else
	not_ok "module(\"nfs*\") glob (exit status $rc, $n kprobes)"
	diag $T/out
	diag $T/err
fi

# f1.. the NFS client's file and address-space operations (nfs.fop.*,
#     nfs.aop.*) on the mount
. /tests/guest-nfs-fop.sh

# np1..np4: the NFS client's nfs.proc.* probes on the same mount
. /tests/guest-nfs-proc.sh

# n9. netfilter.ipv4.*: kprobes on the functions holding the hooks;
#     busybox ping's 3 echo requests and replies on lo pass each of the
#     four hooks once (6 ICMP packets of 128 bytes each), and
#     netdev.transmit and .receive once each; ktap-udp -s's
#     3 datagrams leave with the connected socket's ports (udp.sendmsg's)
#     (TCP's SYNs and SYN-ACK: guest-tcp.sh's t2b)
run -e 'global n
probe netfilter.ipv4.pre_routing { if (protocol == 1) n["pre", indev_name, saddr, daddr, length, outdev]++ }
probe netfilter.ipv4.local_in { if (protocol == 1) n["in", indev_name, saddr, daddr, length, outdev]++ }
probe netfilter.ipv4.local_out { if (protocol == 1) n["out", outdev_name, saddr, daddr, length, indev]++ }
probe netfilter.ipv4.post_routing { if (protocol == 1) n["post", outdev_name, saddr, daddr, length, indev]++ }
probe netdev.transmit, netdev.receive { if (dev_name == "lo" && protocol == 8 && truesize > length) n["netdev", pn(), "", "", 0, 0]++ }
probe end { foreach ([h+, d, s, a, l, o] in n) printf("%s %s %s %s %d %d %d\n", h, d, s, a, l, o, n[h, d, s, a, l, o]) }' \
	-c "sh -c 'ping -c 3 -s 100 127.0.0.1 >/dev/null'"
{
	for h in in out post pre; do echo "$h lo 127.0.0.1 127.0.0.1 128 0 6"; done
	echo "netdev netdev.receive   0 0 6"
	echo "netdev netdev.transmit   0 0 6"
} | sort >$T/want
sort $T/out -o $T/out
expect "netfilter.ipv4.*: ping's 6 packets of 128 bytes at each hook, on lo; netdev.*: their protocol (IPv4) and truesize read by eprobes"
run -e 'global sp, dp, n
probe udp.sendmsg { if (pid() == target()) { sp = sport; dp = dport } }
probe netfilter.ipv4.local_out { if (pid() == target() && protocol == 17) n[sport == sp && dport == dp && sp > 0 && dp > 0, length]++ }
probe end { foreach ([k, l] in n) printf("udp %d %d %d\n", k, l, n[k, l]) }' -c "ktap-udp -s 3 100"
echo "udp 1 128 3" >$T/want
expect "netfilter.ipv4.local_out: UDP ports of ktap-udp's 3 datagrams"

# n9b. byte buffers the kernel reads (compiler/resolve/sema_buffer.c):
#      netfilter's data_hex and data_str (the packet's linear part, up to
#      512 bytes) and %.4M of $skb->data on ping's 128-byte echo request
#      (IPv4 header: 45 00, total length 0x0080)
run -e 'global n
probe netfilter.ipv4.local_in { if (protocol == 1 && !n++) printf("%d %d %s %s %.4M\n", length, strlen(data_hex), substr(data_hex, 0, 8), substr(data_str, 0, 14), $skb->data) }' \
	-c "sh -c 'ping -c 1 -s 100 127.0.0.1 >/dev/null'"
echo '128 256 45000080 "E\000\000\200 45000080' >$T/want
expect "netfilter data_hex, data_str, %.4M of \$skb->data: ping's echo request"

# n10. netfilter.arp.* and the netfilter.hook().pf() primitive: a veth
#      pair (vm0, its peer veth0); ping's neighbour lookup of 10.7.7.2
#      sends an ARP request out of vm0 (arp_xmit(): 42 bytes with the
#      Ethernet header) that arrives on veth0 (arp_rcv(): the 28 bytes
#      of the ARP packet); nothing answers; the hook's $in is 0, whose
#      name the kernel cannot read (kernel_string()'s default)
ip link add vm0 type veth
ip link set vm0 address 02:00:00:00:00:01
ip link set veth0 address 02:00:00:00:00:02
ip addr add 10.7.7.1/24 dev vm0
ip link set vm0 up
ip link set veth0 up
run -e 'global o, i, h
probe netfilter.arp.out { if (ar_tip == "10.7.7.2" && !o++) printf("out %s %s %d %d %d %s %s %s %s %d %d\n", pf, outdev_name, length, ar_hrd, ar_op, ar_sha, ar_sip, ar_tha, ar_tip, indev, family) }
probe netfilter.arp.in { if (indev_name == "veth0" && ar_tip == "10.7.7.2" && !i++) printf("in %s %d %d %x %d %d %s %s %d\n", indev_name, length, ar_op, ar_pro, ar_hln, ar_pln, ar_sha, ar_sip, outdev) }
probe netfilter.pf("NFPROTO_ARP").hook("NF_ARP_OUT").priority("-100") { if (kernel_string($out->name) == "vm0" && !h++) printf("hook %d %d %s %d %s %s\n", $hooknum, $skb->len, kernel_string(@cast($out, "net_device")->name), $in, kernel_string($in->name, "none"), pp()) }' \
	-c "sh -c 'ping -c 1 -W 1 10.7.7.2 >/dev/null; true'"
{
	echo "out arp vm0 42 1 1 02:00:00:00:00:01 10.7.7.1 00:00:00:00:00:00 10.7.7.2 0 0"
	echo "in veth0 28 1 800 6 4 02:00:00:00:00:01 10.7.7.1 0"
	echo 'hook 1 42 vm0 0 none netfilter.pf("NFPROTO_ARP").hook("NF_ARP_OUT").priority("-100")'
} | sort >$T/want
sort $T/out -o $T/out
expect "netfilter.arp.out/in, netfilter.pf(\"NFPROTO_ARP\").hook(\"NF_ARP_OUT\"): ping's ARP request for 10.7.7.2 out of vm0 and into veth0"
ip link del vm0

# n11. netfilter.bridge.*: bridge br0 (port veth0, address 10.8.8.1) and
#      br1 (ports vm0, veth1), the pairs vm0-veth0 and vm1-veth1, IPv6 off
#      (its link-up packets would cross the bridges too).  ping's ARP
#      request from br0 (28 bytes after the Ethernet header) leaves br0 by
#      veth0 (local_out, post_routing), enters br1 by vm0 (pre_routing),
#      goes up to br1 (local_in) and on out of veth1 (forward,
#      post_routing).  Then with the spanning tree on, br0 (priority 100,
#      the root) sends BPDUs out of veth0 (local_out): stap's stp_dump
#      fields, 802.1D's defaults (a config BPDU: 35 bytes after the LLC
#      and Ethernet headers).  The hello timer sends one every 2 s from
#      a timer softirq; the check waits for three of them (in 3 s it once
#      saw none: one that hit ktap was then left out with ktap's own
#      records, as interrupt-context records no longer are).
echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6
echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6
ip link add vm0 type veth
ip link add vm1 type veth
ip link set vm0 address 02:00:00:00:00:01
ip link set veth0 address 02:00:00:00:00:02
ip link set vm1 address 02:00:00:00:00:03
ip link set veth1 address 02:00:00:00:00:04
brctl addbr br0
brctl addbr br1
brctl addif br0 veth0
brctl addif br1 vm0
brctl addif br1 veth1
echo 100 >/sys/class/net/br0/bridge/priority
ip addr add 10.8.8.1/24 dev br0
for d in vm0 veth0 vm1 veth1 br0 br1; do ip link set $d up; done
run -e 'global n, h
probe netfilter.bridge.* { if (length == 28 && !n[pp(), indev_name, outdev_name]++) printf("%s %s %s %s\n", pp(), pf, indev_name, outdev_name) }
probe netfilter.hook("NF_BR_FORWARD").pf("NFPROTO_BRIDGE") { if ($skb->len == 28 && !h++) printf("hook %d %s %s\n", $hooknum, kernel_string($in->name), kernel_string($out->name)) }' \
	-c "sh -c 'ping -c 1 -W 1 -I br0 10.8.8.9 >/dev/null; true'"
{
	m='module("bridge").function'
	echo "$m(\"__br_forward\") bridge vm0 veth1"
	echo "$m(\"__br_forward\") bridge  veth0"
	echo "$m(\"br_forward_finish\") bridge  veth0"
	echo "$m(\"br_forward_finish\") bridge  veth1"
	echo "$m(\"br_handle_frame_finish\") bridge vm0 "
	echo "$m(\"br_pass_frame_up\") bridge vm0 "
	echo "hook 2 vm0 veth1"
} | sort >$T/want
sort $T/out -o $T/out
expect "netfilter.bridge.*, netfilter.hook(\"NF_BR_FORWARD\").pf(\"NFPROTO_BRIDGE\"): ping's ARP request through br0 and br1"
echo 1 >/sys/class/net/br0/bridge/stp_state
echo 1 >/sys/class/net/br1/bridge/stp_state
run -e 'global o
probe netfilter.bridge.local_out { if (protocol == llcproto_stp && br_mac == "02:00:00:00:00:02" && !o++) printf("out %s %d %x %d %d %x %s %d %s %x %d %d %d %d\n", outdev_name, length, br_prid, br_vid, br_type, br_rid, br_rmac, br_cost, br_mac, br_poid, br_msg, br_max, br_htime, br_fd) }' -c "sleep 7"
echo "out veth0 52 0 0 0 200000000026400 02:00:00:00:00:02 0 02:00:00:00:00:02 8001 0 5120 512 3840" >$T/want
expect "netfilter.bridge.local_out: br0's spanning tree BPDU out of veth0 (stap's stp_dump fields)"
for d in br0 br1; do ip link set $d down; brctl delbr $d; done
ip link del vm0
ip link del vm1
echo 0 >/proc/sys/net/ipv6/conf/all/disable_ipv6
echo 0 >/proc/sys/net/ipv6/conf/default/disable_ipv6
. /tests/guest-sunrpc.sh
# g1..g5: stap's buildok points that 6.1 resolves to nothing or reads on
#     the stack (signal, netdev, nfsd)
. /tests/guest-sig2.sh
umount /mnt/nfs
echo 0 >/proc/fs/nfsd/threads
umount /proc/fs/nfsd
umount /export
