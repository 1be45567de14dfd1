# guest-sunrpc.sh - sunrpc.* (tapset/rpc.stp) on the NFSv4 traffic of
# guest-net.sh's server and client over 127.0.0.1, and generic.fop.*
# (tapset/vfs.stp) on a ramfs; sourced by guest-net.sh after its nfsd
# checks, with /mnt/nfs mounted (and still mounted when it returns).

# r1. umount and mount again: the client's RPC clients shut down (the
#     mount's and the server's, both for nfs v4 over TCP to 127.0.0.1
#     port 2049 with AUTH_UNIX), the NFSv4 callback service destroyed;
#     then created again: rpc_create() tries RPCSEC_GSS krb5i (390004)
#     first, which fails with EINVAL, then AUTH_UNIX (1), and the
#     server's client is a clone of that (rpc_new_client() too); the
#     callback service (program 0x40000000, 5 versions); the mount's one
#     synchronous call, SETCLIENTID_CONFIRM (RPC_TASK_TIMEOUT |
#     RPC_TASK_NO_ROUND_ROBIN: 0x1100).  The server's callback clients
#     (nfs4_cb, made and shut down by a kworker) are left out.
run -e 'probe sunrpc.clnt.shutdown_client { if (progname == "nfs") printf("%s %s %d %d %d\n", name, argstr, rpccnt > 0, om_ops >= 0, netreconn) }
probe sunrpc.svc.destroy { if (sv_prog == 0x40000000) printf("%s %s %s %d %d\n", name, argstr, sv_progname, rpccnt >= 0, rpcbadauth) }
probe sunrpc.clnt.create_client { if (progname == "nfs") printf("%s %s\n", name, argstr) }
probe sunrpc.clnt.create_client.return { if (execname() == "mount") printf("%s %s\n", name, substr(retstr, 0, 2)) }
probe sunrpc.svc.create { if (prog == 0x40000000) printf("%s %s\n", name, argstr) }
probe sunrpc.clnt.call_sync { if (execname() == "mount") printf("%s %s %s %d %d %d %d %d %x %d\n", name, servername, progname, prog, vers, prot, port, dead, flags, xid != 0) }
probe sunrpc.clnt.call_sync.return { if (execname() == "mount") printf("%s %s\n", name, retstr) }' \
	-c "sh -c 'umount /mnt/nfs && mount -t nfs4 -o vers=4.0,proto=tcp,sec=sys,clientaddr=127.0.0.1 127.0.0.1:/ /mnt/nfs'"
sort $T/out -o $T/out
sort >$T/want <<'EOS'
sunrpc.clnt.shutdown_client 127.0.0.1 nfs 100003 4 6 2049 1 1 -1 1 1 0
sunrpc.clnt.shutdown_client 127.0.0.1 nfs 100003 4 6 2049 1 1 -1 1 1 0
sunrpc.svc.destroy NFSv4 callback 1073741824 0 NFSv4 callback 1 0
sunrpc.clnt.create_client 127.0.0.1 nfs 100003 4 6 2049 390004
sunrpc.clnt.create_client.return -2
sunrpc.clnt.create_client 127.0.0.1 nfs 100003 4 6 2049 1
sunrpc.clnt.create_client.return 0x
sunrpc.svc.create NFSv4 callback 1073741824 5 3072
sunrpc.clnt.call_sync 127.0.0.1 nfs 100003 4 6 2049 0 1100 1
sunrpc.clnt.call_sync.return 0
sunrpc.clnt.create_client 127.0.0.1 nfs 100003 4 6 2049 1
EOS
expect "sunrpc.clnt.*, sunrpc.svc.create/destroy: umount and mount of the NFSv4 client"

# r2. cat of a file on the mount: its RPC tasks (sunrpc.sched.*, for
#     nfs v4 over TCP) reach the server with the xid the client's
#     transport had when each was created (nothing else calls meanwhile),
#     and the server (2 nfsd threads waiting an hour, 3600 * HZ 250
#     jiffies) takes each as an NFSv4 COMPOUND (procedure 1) from
#     127.0.0.1 over TCP; each task is executed (an async one each time
#     it is woken) before it is released, once (a task's memory is
#     reused: a task is its address between its creation and release)
run -e 'global xs, ts, ns, ps, es, ev, ex
probe sunrpc.sched.new_task { if (execname() == "cat") { xs[xid] = 1; ns[name, sprintf("%d %d %d", prog, vers, prot)]++ } }
probe sunrpc.sched.new_task.return { if (execname() == "cat") ts[retstr] = 1 }
probe sunrpc.sched.execute { if (sprintf("0x%x", $task) in ts) { es[sprintf("0x%x", $task)] = 1; ev = sprintf("%s %d %d %d", name, prog, vers, prot) } }
probe sunrpc.sched.release_task { if (sprintf("0x%x", $task) in ts) { ns[name, sprintf("%d %d %d", prog, vers, prot)]++; if (sprintf("0x%x", $task) in es) { ex++; delete es[sprintf("0x%x", $task)] } } }
probe sunrpc.svc.process { if (rq_xid in xs) { ps[rq_xid] = 1; ns[name, sprintf("%s %d %d %d %d %d %d %s", sv_name, sv_prog, sv_nrthreads, rq_prog, rq_vers, rq_proc, rq_prot, format_ipaddr(peer_ip, 2))]++ } }
probe sunrpc.svc.authorise, sunrpc.svc.send { if (rq_xid in xs) ns[name, sprintf("%s %d %d %d %d %s", sv_name, rq_prog, rq_vers, rq_proc, rq_prot, addr_from_rqst_str($rqstp) =~ "^127\\.0\\.0\\.1:[0-9]+$" ? "ip" : "?")]++ }
probe sunrpc.svc.recv { if (execname() == "nfsd") ns[name, argstr . sprintf(" %d %d", sv_prog, sv_nrthreads)] = 1 }
probe end {
	c = 0; foreach (i in xs) c++
	m = 0; foreach (i in ps) m++
	foreach ([a, b] in ns) printf("%s %s %d\n", a, b, a == "sunrpc.svc.recv" ? ns[a, b] : ns[a, b] == c)
	printf("%s %d\nxids processed %d %d\n", ev, ex == c, m == c, c > 1)
}' -c "sh -c 'cat /mnt/nfs/r >/dev/null'"
sort $T/out -o $T/out
sort >$T/want <<'EOS'
sunrpc.sched.new_task 100003 4 6 1
sunrpc.sched.execute 100003 4 6 1
sunrpc.sched.release_task 100003 4 6 1
sunrpc.svc.process nfsd 100003 2 100003 4 1 6 127.0.0.1 1
sunrpc.svc.authorise nfsd 100003 4 1 6 ip 1
sunrpc.svc.send nfsd 100003 4 1 6 ip 1
sunrpc.svc.recv nfsd 900000 100003 2 1
xids processed 1 1
EOS
expect "sunrpc.sched.*, sunrpc.svc.*: cat's NFSv4 calls, from the client's tasks to the server's replies"

# g1. generic.fop.* on a ramfs (which uses the generic operations):
#     busybox dd skips 1000 bytes of a 5000-byte file by lseek(SEEK_CUR)
#     (ramfs's largest file: LLONG_MAX), reads 3 blocks of 1000 from its
#     user buffer at 1000, 2000, 3000 and writes them at 0, 1000, 2000;
#     cat copies with sendfile: a splice read of 64 KiB (read_iter into
#     the pipe: no user buffer) gets the 5000 bytes, the splice write
#     (SPLICE_F_MORE) writes them, then two splice reads at the end of
#     the file get 0 (the rest of the first sendfile and the second one)
K=/mnt/kr
mkdir -p $K
mount -t ramfs ramfs $K
dd if=/dev/zero of=$K/a bs=1000 count=5 2>/dev/null
: >$K/b
: >$K/c
run -e 'probe generic.fop.llseek { if (pathname =~ "^/mnt/kr/") printf("%s %s %s %d %s %d %d %s %d %d %s\n", execname(), name, pathname, ino, devname, offset, whence, whence_str, origin, maxbyte, argstr) }
probe generic.fop.llseek.return { if (pathname =~ "^/mnt/kr/") printf("%s %s %s %d %s %d %s\n", execname(), name, pathname, offset, retstr, error, error_str) }
probe generic.fop.read_iter, generic.fop.write_iter { if (pathname =~ "^/mnt/kr/") printf("%s %s %s %d %s %d %d %d %d %s %d\n", execname(), name, pathname, ino, devname, pos, count, buf != 0, size, units, dev != 0 && file != 0) }
probe generic.fop.read_iter.return { if (pathname =~ "^/mnt/kr/") printf("%s %s %s %s %d %d %s %d\n", execname(), name, pathname, retstr, bytes_read, size, units, error) }
probe generic.fop.write_iter.return { if (pathname =~ "^/mnt/kr/") printf("%s %s %s %s %d %s\n", execname(), name, pathname, retstr, size, units) }
probe generic.fop.splice_read, generic.fop.splice_write { if (pathname =~ "^/mnt/kr/") printf("%s %s %s %d %s %d %d %x %s %d %s\n", execname(), name, pathname, ino, devname, len, size, flags, argstr, dev != 0, units) }
probe generic.fop.splice_read.return { if (pathname =~ "^/mnt/kr/") printf("%s %s %s %d %s %d %d %d %d\n", execname(), name, pathname, ino, retstr, ret, size, error, dev_major << 20 | dev_minor == dev) }
probe generic.fop.splice_write.return { if (pathname =~ "^/mnt/kr/") printf("%s %s %s %s %d %d\n", execname(), name, pathname, retstr, size, error) }' \
	-c "sh -c 'dd if=$K/a of=$K/b bs=1000 count=3 skip=1 2>/dev/null; cat $K/a >$K/c'"
set -- $(ls -i $K/a); ia=$1
set -- $(ls -i $K/b); ib=$1
set -- $(ls -i $K/c); ic=$1
cat >$T/want <<EOS
dd generic_file_llseek $K/a $ia N/A 1000 1 SEEK_CUR 1 9223372036854775807 1000, 1
dd generic_file_llseek $K/a 1000 1000 0 
dd generic_file_read_iter $K/a $ia N/A 1000 1000 1 1000 bytes 1
dd generic_file_read_iter $K/a 1000 1000 1000 bytes 0
dd generic_file_write_iter $K/b $ib N/A 0 1000 1 1000 bytes 1
dd generic_file_write_iter $K/b 1000 1000 bytes
dd generic_file_read_iter $K/a $ia N/A 2000 1000 1 1000 bytes 1
dd generic_file_read_iter $K/a 1000 1000 1000 bytes 0
dd generic_file_write_iter $K/b $ib N/A 1000 1000 1 1000 bytes 1
dd generic_file_write_iter $K/b 1000 1000 bytes
dd generic_file_read_iter $K/a $ia N/A 3000 1000 1 1000 bytes 1
dd generic_file_read_iter $K/a 1000 1000 1000 bytes 0
dd generic_file_write_iter $K/b $ib N/A 2000 1000 1 1000 bytes 1
dd generic_file_write_iter $K/b 1000 1000 bytes
cat generic_file_splice_read $K/a $ia N/A 65536 65536 0 65536, 0 1 bytes
cat generic_file_read_iter $K/a $ia N/A 0 65536 0 65536 bytes 1
cat generic_file_read_iter $K/a 5000 5000 5000 bytes 0
cat generic_file_splice_read $K/a $ia 5000 5000 5000 0 1
cat generic_file_splice_write $K/c $ic N/A 5000 5000 4 5000, 4 1 bytes
cat generic_file_write_iter $K/c $ic N/A 0 5000 0 5000 bytes 1
cat generic_file_write_iter $K/c 5000 5000 bytes
cat generic_file_splice_write $K/c 5000 5000 0
cat generic_file_splice_read $K/a $ia N/A 65536 65536 0 65536, 0 1 bytes
cat generic_file_read_iter $K/a $ia N/A 5000 65536 0 65536 bytes 1
cat generic_file_read_iter $K/a 0 0 0 bytes 0
cat generic_file_splice_read $K/a $ia 0 0 0 0 1
cat generic_file_splice_read $K/a $ia N/A 65536 65536 0 65536, 0 1 bytes
cat generic_file_read_iter $K/a $ia N/A 5000 65536 0 65536 bytes 1
cat generic_file_read_iter $K/a 0 0 0 bytes 0
cat generic_file_splice_read $K/a $ia 0 0 0 0 1
EOS
expect "generic.fop.llseek, read_iter, write_iter, splice_read, splice_write: dd and cat (sendfile) on a ramfs"

# g2. generic.fop.mmap: the kernel maps each segment of a program run
#     from the ramfs (busybox: a readable one first, one executable),
#     and generic_file_mmap() returns 0 for each
cp /bin/busybox $K/bb
set -- $(ls -i $K/bb); ibb=$1
run -e 'global nm, nr, nx, nf
probe generic.fop.mmap { if (pathname == "/mnt/kr/bb" && ino == '$ibb' && devname == "N/A" && vm_start < vm_end && argstr == sprintf("0x%x, 0x%x, 0x%x", vm_start, vm_end, vm_flags)) { if (!nm++) nf = vm_flags & 1; nx += (vm_flags & 4) != 0 } }
probe generic.fop.mmap.return { if (pathname == "/mnt/kr/bb" && retstr == "0" && !error && error_str == "") nr++ }
probe end { printf("%d %d %d %d\n", nm > 1 && nm == nr, nf, nx > 0, nm) }' -c "$K/bb true"
if [ "$rc" -eq 0 ] && grep -q "^1 1 1 [0-9]*$" $T/out; then
	ok "generic.fop.mmap: the $(cut -d' ' -f4 $T/out) segments of busybox run from a ramfs"
else
	not_ok "generic.fop.mmap (exit status $rc)"
	diag $T/out
	diag $T/err
fi
umount $K

# g3. the points whose function is gone are errors saying so, which
#     generic.fop.* and '?' leave out
run -p2 -e 'probe generic.fop.sendfile { println(1) }'
run2=$rc
grep -q "generic_file_sendfile() is gone since Linux 2.6.23" $T/err && e1=1
run -p2 -e 'probe generic.fop.sendfile ?, generic.fop.readv ?, generic.fop.*.return { println(name) }'
if [ "$run2" -ne 0 ] && [ "${e1:-}" = 1 ] && [ "$rc" -eq 0 ]; then
	ok "generic.fop.sendfile is an error that says why; generic.fop.*.return and '?' skip the gone points"
else
	not_ok "generic.fop.sendfile error, '?' (exit status $run2 $rc)"
	diag $T/err
fi
