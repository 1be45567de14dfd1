# guest-nfs-fop.sh - the nfs.fop.* and nfs.aop.* checks (tapset/nfs.stp),
# sourced by guest-net.sh after its nfsd checks, with the NFSv4.0 mount
# of /export on /mnt/nfs (kprobes on the nfs module's functions and the
# nfsv4 module's nfs4_file_open() and nfs4_file_flush()).

# f1. ktap-nfsio's known sequence on /mnt/nfs/fop (tests/tools/
#     ktap-nfsio.c): a new file f written (3 bytes), fsync()ed, closed,
#     reopened read-write, lseek()ed to 1, read (2 bytes), mmap()ed,
#     locked and unlocked, F_SETFL; ra (6 bytes, made on the server) read
#     (read ahead: one page); rw (6 bytes) written at 1 (the page is read
#     first).  Every event of the workload's pid, in order; inode numbers
#     and the device are stat's.  Creating f is NFSv4's atomic open
#     (check_flags, no open); closing a file is flush then release;
#     closing the written rw writes its page (writepages).
mkdir -p /export/fop
echo hello >/export/fop/ra
echo hello >/export/fop/rw
ls -l /mnt/nfs/fop/ra /mnt/nfs/fop/rw >/dev/null
run -e 'global fop_r, fop_w
probe nfs.fop.open { if (pid() == target()) printf("%s %s %d %d %d %d %s\n", name, filename, flag, i_size, ino, dev, devname) }
probe nfs.fop.check_flags { if (pid() == target()) printf("%s %d %s\n", name, flag, argstr) }
probe nfs.fop.llseek { if (pid() == target()) printf("%s %d %d %s %d %s\n", name, offset, whence, whence_str, ino, devname) }
probe nfs.fop.read, nfs.fop.write { if (pid() == target() && pathname =~ "^/mnt/nfs/fop/") { printf("%s %s %d %d %d %d\n", name, pathname, pos, len, ino, dev); if (name == "nfs.fop.read") fop_r[tid()] = 1; else fop_w[tid()] = 1 } }
probe nfs.fop.read.return { if (fop_r[tid()]) { printf("%s %s %d %d %d\n", name, retstr, bytes_to_read, bytes_read, error); delete fop_r[tid()] } }
probe nfs.fop.write.return { if (fop_w[tid()]) { printf("%s %s %d %d %d\n", name, retstr, bytes_to_write, bytes_written, error); delete fop_w[tid()] } }
probe nfs.fop.read_iter, nfs.fop.write_iter { if (pid() == target()) printf("%s %s %s %d %d %d %d %s %s\n", name, parent_name, file_name, pos, count, size, ino, devname, argstr) }
probe nfs.fop.mmap { if (pid() == target()) printf("%s %s %s %d %x %d\n", name, parent_name, file_name, vm_end - vm_start, vm_flags, ino) }
probe nfs.fop.fsync { if (pid() == target()) printf("%s %d %s\n", name, ino, devname) }
probe nfs.fop.flush, nfs.fop.release { if (pid() == target()) printf("%s %d %d %s\n", name, ino, mode & 3, argstr) }
probe nfs.fop.lock { if (pid() == target()) printf("%s %d %d %d %d %d %o %d\n", name, cmd, fl_type, fl_flag, fl_start, fl_end, i_mode, ino) }
probe nfs.fop.open.return, nfs.fop.check_flags.return, nfs.fop.llseek.return, nfs.fop.mmap.return, nfs.fop.fsync.return, nfs.fop.flush.return, nfs.fop.release.return, nfs.fop.lock.return { if (pid() == target()) printf("%s %s\n", name, retstr) }
probe nfs.fop.read_iter.return, nfs.fop.write_iter.return { if (pid() == target()) printf("%s %s %d\n", name, retstr, size) }
probe nfs.aop.write_begin { if (pid() == target()) printf("%s %d %d %d %d %d %d %d\n", name, pos, count, offset, to, page_index, size, ino) }
probe nfs.aop.write_end { if (pid() == target()) printf("%s %d %d %d %d %d %d %d %d %d\n", name, pos, count, offset, to, page_index, size, i_size, ino, __page != 0) }
probe nfs.aop.readpage { if (pid() == target()) printf("%s %d %d %d %d %d %d %s %d\n", name, page_index, i_size, rsize, ino, file != 0, size, units, __inode != 0) }
probe nfs.aop.readpages { if (pid() == target()) printf("%s %d %d %d %d %d %s\n", name, nr_pages, rpages, rsize, ino, file != 0, argstr) }
probe nfs.aop.writepages { if (pid() == target()) printf("%s %d %d %d %d %d %d\n", name, nr_to_write, wsize, wpages, for_reclaim, for_kupdate, ino) }
probe nfs.aop.set_page_dirty { if (pid() == target()) printf("%s %d %d\n", name, $mapping->host->i_ino, __page == $folio) }
probe nfs.aop.readpages.return { if (pid() == target()) println(name) }
probe nfs.aop.write_begin.return, nfs.aop.write_end.return, nfs.aop.readpage.return, nfs.aop.writepages.return, nfs.aop.set_page_dirty.return { if (pid() == target()) printf("%s %s\n", name, retstr) }' \
	-c "ktap-nfsio /mnt/nfs/fop"
f=$(stat -c %i /mnt/nfs/fop/f)
ra=$(stat -c %i /mnt/nfs/fop/ra)
rw=$(stat -c %i /mnt/nfs/fop/rw)
dev=$(stat -c %d /mnt/nfs/fop/f)
cat >$T/want <<EOS
nfs.fop.check_flags 33345 33345
nfs.fop.check_flags.return 0
nfs.fop.write /mnt/nfs/fop/f 0 3 $f $dev
nfs.fop.write_iter fop f 0 3 3 $f 0:$dev 3, 0
nfs.aop.write_begin 0 3 0 3 0 3 $f
nfs.aop.write_begin.return 0
nfs.aop.write_end 0 3 0 3 0 3 0 $f 1
nfs.aop.set_page_dirty $f 1
nfs.aop.set_page_dirty.return 1
nfs.aop.write_end.return 3
nfs.fop.write_iter.return 3 3
nfs.fop.write.return 3 3 3 0
nfs.fop.fsync $f 0:$dev
nfs.aop.writepages 9223372036854775807 131072 32 0 0 $f
nfs.aop.writepages.return 0
nfs.fop.fsync.return 0
nfs.fop.flush $f 2 $f
nfs.fop.flush.return 0
nfs.fop.release $f 2 $f
nfs.fop.release.return 0
nfs.fop.open f 32770 3 $f $dev 0:$dev
nfs.fop.check_flags 32770 32770
nfs.fop.check_flags.return 0
nfs.fop.open.return 0
nfs.fop.llseek 1 0 SEEK_SET $f 0:$dev
nfs.fop.llseek.return 1
nfs.fop.read /mnt/nfs/fop/f 1 16 $f $dev
nfs.fop.read_iter fop f 1 16 16 $f 0:$dev 16, 1
nfs.fop.read_iter.return 2 2
nfs.fop.read.return 2 16 2 0
nfs.fop.mmap fop f 4096 f9 $f
nfs.fop.mmap.return 0
nfs.fop.lock 6 1 1 0 2 100644 $f
nfs.fop.lock.return 0
nfs.fop.lock 6 2 1 0 2 100644 $f
nfs.fop.lock.return 0
nfs.fop.check_flags 2048 2048
nfs.fop.check_flags.return 0
nfs.fop.flush $f 3 $f
nfs.fop.flush.return 0
nfs.fop.release $f 3 $f
nfs.fop.release.return 0
nfs.fop.open ra 32768 6 $ra $dev 0:$dev
nfs.fop.check_flags 32768 32768
nfs.fop.check_flags.return 0
nfs.fop.open.return 0
nfs.fop.read /mnt/nfs/fop/ra 0 16 $ra $dev
nfs.fop.read_iter fop ra 0 16 16 $ra 0:$dev 16, 0
nfs.aop.readpages 1 32 131072 $ra 1 1
nfs.aop.readpages.return
nfs.fop.read_iter.return 6 6
nfs.fop.read.return 6 16 6 0
nfs.fop.flush $ra 1 $ra
nfs.fop.flush.return 0
nfs.fop.release $ra 1 $ra
nfs.fop.release.return 0
nfs.fop.open rw 32770 6 $rw $dev 0:$dev
nfs.fop.check_flags 32770 32770
nfs.fop.check_flags.return 0
nfs.fop.open.return 0
nfs.fop.write /mnt/nfs/fop/rw 1 1 $rw $dev
nfs.fop.write_iter fop rw 1 1 1 $rw 0:$dev 1, 1
nfs.aop.write_begin 1 1 1 2 0 1 $rw
nfs.aop.readpage 0 6 131072 $rw 1 1 pages 1
nfs.aop.readpage.return 0
nfs.aop.write_begin.return 0
nfs.aop.write_end 1 1 1 2 0 1 6 $rw 1
nfs.aop.set_page_dirty $rw 1
nfs.aop.set_page_dirty.return 1
nfs.aop.write_end.return 1
nfs.fop.write_iter.return 1 1
nfs.fop.write.return 1 1 1 0
nfs.fop.flush $rw 3 $rw
nfs.aop.writepages 9223372036854775807 131072 32 0 0 $rw
nfs.aop.writepages.return 0
nfs.fop.flush.return 0
nfs.fop.release $rw 3 $rw
nfs.fop.release.return 0
EOS
expect "nfs.fop.*, nfs.aop.*: ktap-nfsio's write, fsync, open, llseek, read, mmap, lock, F_SETFL, read ahead and read-modify-write on the NFSv4 mount, in order"

# f2. every nfs.fop/nfs.aop alias and its variables plan (-p3: 48
#     kprobes, on modules nfs and nfsv4 and the kernel's vfs_read(),
#     vfs_write() and filemap_dirty_folio())
run -p3 /tests/nfs-fop-all.stp
n=$(grep -c "^write kprobe_events '[pr][0-9]*:ktap_\$PID/[a-z0-9_]* \(nfs:\|nfsv4:\|vfs_read \|vfs_write \|filemap_dirty_folio \)" $T/out)
if [ "$rc" -eq 0 ] && [ "$n" = 48 ]; then
	ok "-p3 of every nfs.fop.* and nfs.aop.* probe: 48 kprobes"
else
	not_ok "-p3 of the nfs.fop/nfs.aop probes (exit status $rc, $n kprobes)"
	diag $T/err
fi

# f3. the points whose functions are gone resolve to nothing, as stap's
#     (never); alone, the script has nothing to run and says why, and
#     wildcards leave them out; ndirty, which 6.1 lacks, is stap's -1
run -p2 -e 'probe nfs.fop.aio_read { println(1) }'
r1=$rc
grep -q "no probes: the script has nothing to run on this kernel: nfs.fop.aio_read: the aio_read file operation is gone since Linux 3.16" $T/err && e1=1
run -p2 -e 'probe nfs.fop.fsync { println(ndirty) }'
r2=$rc
grep -q "ndirty = -1;" $T/out && e2=1
run -p2 -e 'probe nfs.fop.*, nfs.fop.sendfile ? { println(name) }'
n=$(grep -c ' /\* <- nfs\.fop\.\* \*/' $T/out)
if [ "$r1" -ne 0 ] && [ "$r2" -eq 0 ] && [ "${e1:-}" = 1 ] && [ "${e2:-}" = 1 ] &&
	[ "$rc" -eq 0 ] && [ "$n" = 40 ]; then
	ok "nfs.fop.aio_read alone has nothing to run and says why; nfs.fop.fsync's ndirty is -1; nfs.fop.* leaves aio_*, sendfile out (40 probes: entries, return and each point, open and flush twice)"
else
	not_ok "nfs.fop gone points (exit status $r1 $r2 $rc, $n probes)"
	diag $T/err
fi
