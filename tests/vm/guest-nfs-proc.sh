# guest-nfs-proc.sh - the NFS client's procedures (tapset/nfs_proc.stp),
# sourced by guest-net.sh on its NFSv4.0 mount of 127.0.0.1:/ on
# /mnt/nfs (nfsv4 loaded; nfsv2 and nfsv3 not).
#
# np1. ktap-nfsproc's known workload: a lookup of ktap-np-r (made on the
#      server), mknod of ktap-np-c (CREATE: O_CREAT|O_EXCL, mode 0640),
#      1000 bytes written (an UNSTABLE WRITE by sync_file_range()) and
#      committed, read back with O_DIRECT (a READ), renamed to ktap-np-d
#      and removed.  The synchronous probes are the workload's own; the
#      replies (*_done) run in rpciod, and the COMMIT in whichever task
#      commits first (the flusher or fsync()), so those are taken from
#      any task (nothing else uses the mount meanwhile).  Every fh is the
#      mount's root directory's: one value.
echo hello >/export/ktap-np-r
run -e 'global n, F, C
function addfh(f) { F[f] = 1 }
function addcl(c) { C[c] = 1 }
function k(s) { n[s]++ }
probe nfs.proc.lookup { if (pid() == target()) { addcl(client); k(sprintf("%s %s %d %d %s %d %d %d %s", name, server_ip, prot, version, filename, name_len, bitmask0, bitmask1, argstr)) } }
probe nfs.proc.create { if (pid() == target()) { addcl(client); addfh(fh); k(sprintf("%s %s %d %d %s %d %o %d %s", name, server_ip, prot, version, filename, filelen, mode, flag, argstr)) } }
probe nfs.proc.write_setup { if (pid() == target()) { addcl(client); k(sprintf("%s %s %d %d %d %d %d %s %d %d %d %s", name, server_ip, prot, version, offset, count, size, units, how, bitmask0, bitmask1, argstr)) } }
probe nfs.proc.write_done { if (server_ip == "127.0.0.1") k(sprintf("%s %s %d %d %d %d %x %d %s", name, server_ip, prot, version, status, count, valid, timestamp != 0, argstr)) }
probe nfs.proc.commit_setup { if (server_ip == "127.0.0.1") { addcl(client); k(sprintf("%s %s %d %d %d %d %d %d %d %s", name, server_ip, prot, version, offset, count, size, bitmask0, bitmask1, argstr)) } }
probe nfs.proc.commit_done { if (server_ip == "127.0.0.1") k(sprintf("%s %s %d %d %d %x %s", name, server_ip, prot, version, status, valid, argstr)) }
probe nfs.proc.read_setup { if (pid() == target()) { addcl(client); k(sprintf("%s %s %d %d %d %d %d %s %s", name, server_ip, prot, version, offset, count, size, units, argstr)) } }
probe nfs.proc.read_done { if (server_ip == "127.0.0.1") k(sprintf("%s %s %d %d %d %d %d %s", name, server_ip, prot, version, status, count, timestamp != 0, argstr)) }
probe nfs.proc.rename { if (pid() == target()) { addcl(client); addfh(old_fh); addfh(new_fh); k(sprintf("%s %s %d %d %s %d %s %d %s", name, server_ip, prot, version, old_name, old_filelen, new_name, new_filelen, argstr)) } }
probe nfs.proc.rename_setup { if (pid() == target()) { addfh(fh); k(sprintf("%s %s %d %d %d", name, server_ip, prot, version, argstr == sprint(fh))) } }
probe nfs.proc.rename_done { if (server_ip == "127.0.0.1") { addcl(client); addfh(old_fh); addfh(new_fh); k(sprintf("%s %s %d %d %d %s", name, server_ip, prot, version, status, argstr)) } }
probe nfs.proc.remove { if (pid() == target()) { addcl(client); addfh(fh); k(sprintf("%s %s %d %d %s %d %s", name, server_ip, prot, version, filename, filelen, argstr)) } }
probe nfs.proc.release { if (pid() == target()) { addcl(client); k(sprintf("%s %s %d %d %s %o %s", name, server_ip, prot, version, filename, flag, substr(argstr, 0, 10))) } }
probe nfs.proc.handle_exception { if (pid() == target() && errorcode == 0) k(sprintf("%s %d %d %s", name, version, errorcode, argstr)) }
probe nfs.proc.lookup.return, nfs.proc.create.return, nfs.proc.remove.return, nfs.proc.rename.return,
	nfs.proc.read_done.return, nfs.proc.write_done.return, nfs.proc.commit_done.return, nfs.proc.rename_done.return {
	if (version == 4) k(sprintf("%s %d %s", name, version, retstr)) }
probe nfs.proc.write_setup.return, nfs.proc.read_setup.return, nfs.proc.commit_setup.return, nfs.proc.rename_setup.return { k(sprintf("%s %d %d", name, version, retvalue)) }
probe nfs.proc.release.return { if (pid() == target()) k(sprintf("%s %s", name, retstr)) }
probe end {
	foreach (s in n) printf("%s x%d\n", s, n[s])
	foreach (f in F) nf++
	foreach (c in C) nc++
	printf("fh %d client %d\n", nf, nc)
}' -c "ktap-nfsproc /mnt/nfs ktap-np-r 1000"
b="4261396479 16629310"
{
	echo "nfs.proc4.lookup 127.0.0.1 6 4 ktap-np-r 9 $b ktap-np-r x1"
	echo "nfs.proc4.lookup.return 4 0 x1"
	echo "nfs.proc4.create 127.0.0.1 6 4 ktap-np-c 9 100640 192 ktap-np-c x1"
	echo "nfs.proc4.create.return 4 0 x1"
	echo "nfs.proc4.write_setup 127.0.0.1 6 4 0 1000 1000 bytes 0 $b 1000,0,0 x1"
	echo "nfs.proc4.write_setup.return 4 0 x1"
	echo "nfs.proc4.write_done 127.0.0.1 6 4 1000 1000 26240 1 1000 x1"
	echo "nfs.proc4.write_done.return 4 0 x1"
	echo "nfs.proc4.commit_setup 127.0.0.1 6 4 0 0 0 $b 0,0 x1"
	echo "nfs.proc4.commit_setup.return 4 0 x1"
	echo "nfs.proc4.commit_done 127.0.0.1 6 4 0 0 0 x1"
	echo "nfs.proc4.commit_done.return 4 0 x1"
	echo "nfs.proc.release 127.0.0.1 6 4 ktap-np-c 100001 ktap-np-c, x1"
	echo "nfs.proc.release 127.0.0.1 6 4 ktap-np-c 140000 ktap-np-c, x1"
	echo "nfs.proc.release.return 0 x2"
	echo "nfs.proc4.read_setup 127.0.0.1 6 4 0 1000 1000 bytes 1000,0 x1"
	echo "nfs.proc4.read_setup.return 4 0 x1"
	echo "nfs.proc4.read_done 127.0.0.1 6 4 1000 1000 1 1000 x1"
	echo "nfs.proc4.read_done.return 4 0 x1"
	echo "nfs.proc4.rename 127.0.0.1 6 4 ktap-np-c 9 ktap-np-d 9 ktap-np-c,ktap-np-d x1"
	echo "nfs.proc4.rename.return 4 N/A x1"
	echo "nfs.proc4.rename_setup 127.0.0.1 6 4 1 x1"
	echo "nfs.proc4.rename_setup.return 4 0 x1"
	echo "nfs.proc4.rename_done 127.0.0.1 6 4 0 0 x1"
	echo "nfs.proc4.rename_done.return 4 1 x1"
	echo "nfs.proc4.remove 127.0.0.1 6 4 ktap-np-d 9 ktap-np-d x1"
	echo "nfs.proc4.remove.return 4 0 x1"
	echo "fh 1 client 1"
} | sort >$T/want
grep -v '^nfs.proc4.handle_exception 4 0 0 x' $T/out | sort >$T/got
grep -q '^nfs.proc4.handle_exception 4 0 0 x' $T/out || echo "no nfs.proc4.handle_exception 4 0 0" >>$T/got
mv $T/got $T/out
expect "nfs.proc.*: ktap-nfsproc's lookup, create, 1000-byte write and commit, read, rename and remove on the NFSv4 mount (server_ip, prot, version, names, offsets, counts, statuses)"
rm -f /export/ktap-np-r

# np2. every nfs.proc.* probe and its variables plan (-p3: 46 kprobes on
#      the nfs and nfsv4 modules' functions; nfsv2's and nfsv3's members
#      skipped, their modules not loaded)
run -p3 -e 'probe nfs.proc.* { println(name) }'
n=$(grep -c "^write kprobe_events '[pr][0-9]*:ktap_\$PID/n[a-z0-9_]* nfs\(v4\)\?:" $T/out)
if [ "$rc" -eq 0 ] && [ "$n" = 46 ]; then
	ok "-p3 of nfs.proc.*: 46 kprobes on modules nfs and nfsv4"
else
	not_ok "-p3 of nfs.proc.* (exit status $rc, $n kprobes)"
	diag $T/err
fi

# np3. a probe of a module that is not loaded, of a function 6.1 does not
#      have, a variable 6.1 does not have, and an alias whose members
#      need two modules that are not loaded: one-line errors saying why
#      (the gone function's point resolves to nothing, as stap's: the
#      script has no probe left, which is the error)
run -p2 -e 'probe nfs.proc3.lookup { println(1) }'
r1=$rc
grep -q "probe point 'nfs.proc3.lookup' matches nothing on this kernel: it needs the module nfsv3, which is not loaded" $T/err && e1=1
run -p2 -e 'probe nfs.proc.read { println(1) }'
r2=$rc
grep -q "no probes: the script has nothing to run on this kernel: nfs.proc.read: nfs_proc_read(), nfs3_proc_read() and nfs4_proc_read() are gone since Linux 2.6.21" $T/err && e2=1
run -p2 -e 'probe nfs.proc.commit_done { println(count) }'
grep -q "'count' is not available: a commit's reply (struct nfs_commitres) has no count" $T/err && e3=1
r3=$rc
run -p2 -e 'probe np.v23 = nfs.proc2.lookup ?, nfs.proc3.lookup ? { } probe np.v23 { println(1) }'
grep -q "probe point 'np.v23' matches nothing on this kernel: it needs one of the modules nfsv2, nfsv3, which are not loaded" $T/err && e4=1
if [ "$r1" -ne 0 ] && [ "$r2" -ne 0 ] && [ "$r3" -ne 0 ] && [ "$rc" -ne 0 ] && [ "${e1:-}${e2:-}${e3:-}${e4:-}" = 1111 ]; then
	ok "nfs.proc3.lookup (nfsv3 not loaded), nfs.proc.read (gone), nfs.proc.commit_done's count and an alias of nfs.proc2/3.lookup are errors that say why"
else
	not_ok "nfs.proc3.lookup / nfs.proc.read / commit_done count / nfs.proc2/3 alias errors (exit status $r1 $r2 $r3 $rc)"
	diag $T/err
fi

# np4. --compatible=4.2: server_ip is stap's old number, the IPv4 address
#      as it is in memory (127.0.0.1: 0x0100007f), on a lookup of a name
#      the client has not seen
echo hello >/export/ktap-np-s
run --compatible=4.2 -e 'probe nfs.proc.lookup { if (filename == "ktap-np-s") printf("%s %x %s\n", name, server_ip, filename) }' \
	-c "sh -c 'stat /mnt/nfs/ktap-np-s >/dev/null'"
echo "nfs.proc4.lookup 100007f ktap-np-s" >$T/want
expect "nfs.proc.lookup with --compatible=4.2: server_ip the IPv4 address as a number"
rm -f /export/ktap-np-s
