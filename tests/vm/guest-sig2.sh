# guest-sig2.sh - the signal, netdev and nfsd probe points of stap's
# buildok files that 6.1 resolves to nothing or reads on the stack:
# _signal.force_segv.*, netdev.change_rx_flag, nfsd.close, nfsd.createv3,
# nfsd.proc2.*, nfsd.rename's tname (its length is a 7th parameter),
# nfsd.proc4.read's vec.  Sourced by guest-net.sh last, with the
# NFSv4 mount /mnt/nfs (5 checks).  (nfsd.write's stable, a 7th
# parameter too, is not seen: NFSv4 writes do not call nfsd_write().)

# g1. _signal.*.* (stap's parts of signal.force_segv: part1 a kprobe on
#     force_sigsegv(), part2 nothing on 6.1) and signal.force_segv
#     attach, and ktap-signals' child, whose SIGUSR1 frame cannot be
#     written, is killed by SIGSEGV through the copy of force_sigsegv()
#     6.1 inlines into signal_setup_done(): no part fires, while
#     signal.handle.return says EFAULT
run -e 'global n
probe _signal.*.*, signal.force_segv { n[pp()]++ }
probe signal.handle.return { if (pid() != target() && execname() == "ktap-signals") printf("%s %d %s %s\n", name, sig, sig_name, retstr) }
probe end { foreach (p in n) printf("%s %d\n", p, n[p]) }' -c ktap-signals
echo "handle 10 SIGUSR1 -14 (EFAULT)" >$T/want
expect "_signal.*.*, signal.force_segv attach on force_sigsegv(); ktap-signals' child's forced SIGSEGV goes through 6.1's inlined copy"

# g2. netdev.change_rx_flag resolves to nothing (dev_change_rx_flags()
#     is inlined in 6.1), as stap's optional point: no error, and beside
#     it netdev.set_promiscuity sees lo's promiscuity turned on and off
run -e 'probe netdev.change_rx_flag { printf("rx_flag %s %d\n", dev_name, flags) }
probe netdev.set_promiscuity { if (dev_name == "lo") printf("%s %d %d %d\n", dev_name, inc, enable, disable) }' \
	-c "sh -c 'ip link set lo promisc on; ip link set lo promisc off'"
printf 'lo 1 1 0\nlo -1 0 1\n' >$T/want
expect "netdev.change_rx_flag: nothing (no error) beside netdev.set_promiscuity on lo"

# g3. nfsd.close, nfsd.createv3 and nfsd.proc2.* resolve to nothing (and
#     nfsd.entries with close and createv3 in it): a file created,
#     written, renamed and removed on the mount is seen by nfsd.entries
#     only: its rename and its unlink (NFSv4 creates and writes call
#     neither nfsd_create() nor nfsd_write(); its lookups left out)
cat >$T/nfs2.sh <<'EOS'
echo abc >/mnt/nfs/g3
mv /mnt/nfs/g3 /mnt/nfs/g3b
rm /mnt/nfs/g3b
EOS
run -e 'probe nfsd.close, nfsd.close.return, nfsd.createv3, nfsd.createv3.return { println(name) }
probe nfsd.proc2.lookup, nfsd.proc2.create, nfsd.proc2.write, nfsd.proc2.rename, nfsd.proc2.remove { println(name) }
probe nfsd.entries { if (name != "nfsd.lookup") println(name) }' -c "sh $T/nfs2.sh"
printf 'nfsd.rename\nnfsd.unlink\n' >$T/want
expect "nfsd.close, nfsd.createv3, nfsd.proc2.*: nothing (no error); nfsd.entries: the rename and the remove"

# g4. a 7th parameter, on the stack at the entry: nfsd_rename()'s tlen
#     (nfsd.rename's tname, 10 bytes), beside its 4th, flen (stap's
#     filelen); both names in the same directory (the export's root)
cat >$T/nfs3.sh <<'EOS'
echo abc >/mnt/nfs/g4
mv /mnt/nfs/g4 /mnt/nfs/g4-renamed
rm /mnt/nfs/g4-renamed
EOS
run -e 'probe nfsd.rename { printf("%s %s %d %d %s %d %d\n", name, filename, filelen, flen, tname, tlen, fh == tfh) }' -c "sh $T/nfs3.sh"
echo "nfsd.rename g4 2 2 g4-renamed 10 1" >$T/want
expect "nfsd.rename's tname and tlen: nfsd_rename()'s 7th parameter read on the stack"

# g5. nfsd.proc4.read's vec: the request's kvec array (&$rqstp->rq_vec),
#     as stap's; the client reads the 6-byte file r (its page cache
#     dropped first) as one page
run -e 'probe nfsd.proc4.read { printf("%s %d %d %d\n", name, offset, count, vec == &$rqstp->rq_vec[0] && vec > $rqstp) }' \
	-c "sh -c 'echo 3 >/proc/sys/vm/drop_caches; cat /mnt/nfs/r >/dev/null'"
echo "nfsd.proc4.read 0 4096 1" >$T/want
expect "nfsd.proc4.read's vec: the request's kvec array"
