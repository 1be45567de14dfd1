# guest-vfs2.sh - stap's vfs.do_sync_*, vfs.readv/writev, page-cache
# points (tapset/vfs.stp), __vm.*.kp (tapset/memory.stp) and
# __scheduler.*.kp (tapset/scheduler.stp) on known workloads; sourced at
# the end of guest-ktap.sh (7 checks).

# v1. vfs.do_sync_read/write: busybox dd copies 2 blocks of 1000 bytes
#     between files of a ramfs (read_iter and write_iter, no read or
#     write: new_sync_read()/new_sync_write(), so vfs_read()/vfs_write()
#     are the points); the positions are 0 and 1000, and after each
#     write 1000 and 2000
K=/mnt/kv
mkdir -p $K
mount -t ramfs ramfs $K
dd if=/dev/zero of=$K/a bs=1000 count=3 2>/dev/null
: >$K/b
set -- $(ls -i $K/a); ia=$1
set -- $(ls -i $K/b); ib=$1
run -e 'probe vfs.do_sync_read { if (pid() == target() && ino == '$ia') printf("%s %s %d %d %d %d %s %d %d %d\n", name, devname, ino, len, pos, size, units, bytes_to_read, argstr == sprintf("%d, %d, %p", len, pos, buf), file != 0 && buf != 0 && dev != 0) }
probe vfs.do_sync_write { if (pid() == target() && ino == '$ib') printf("%s %s %d %d %d %d %s %d %d %d\n", name, devname, ino, len, pos, size, units, bytes_to_write, argstr == sprintf("%d, %d , %p", len, pos, buf), file != 0 && buf != 0 && dev != 0) }
probe vfs.do_sync_read.return { if (pid() == target() && bytes_to_read == 1000) printf("%s %s %d %d %s %d %s|\n", name, retstr, bytes_read, size, units, error, error_str) }
probe vfs.do_sync_write.return { if (pid() == target() && bytes_to_write == 1000) printf("%s %s %d %d %d %s %d|\n", name, retstr, bytes_written, pos, size, units, error) }' \
	-c "dd if=$K/a of=$K/b bs=1000 count=2"
cat >$T/want <<EOS
do_sync_read N/A $ia 1000 0 1000 bytes 1000 1 1
do_sync_read 1000 1000 1000 bytes 0 |
do_sync_write N/A $ib 1000 0 1000 bytes 1000 1 1
do_sync_write 1000 1000 1000 0  0|
do_sync_read N/A $ia 1000 1000 1000 bytes 1000 1 1
do_sync_read 1000 1000 1000 bytes 0 |
do_sync_write N/A $ib 1000 1000 1000 bytes 1000 1 1
do_sync_write 1000 1000 2000 0  0|
EOS
expect "vfs.do_sync_read/write (vfs_read/vfs_write of read_iter files): dd's 2 blocks on a ramfs"

# v2. vfs.writev/readv: ktap-iov writes 3 segments (3 + 5 + 2 bytes)
#     and reads the 10 bytes back into 2 (4 + 16 asked); the lengths
#     are summed from the user's iovec array
run -e 'probe vfs.writev { if (pid() == target()) printf("%s %s %d %d %d %d %d %d\n", name, devname, ino, vlen, bytes_to_write, pos != 0, vec != 0 && file != 0, argstr == sprintf("%d, %d, %p", bytes_to_write, pos, vec)) }
probe vfs.readv { if (pid() == target()) printf("%s %s %d %d %d %d %d %d\n", name, devname, ino, vlen, bytes_to_read, pos != 0, vec != 0 && file != 0, argstr == sprintf("%d, %d, %p", bytes_to_read, pos, vec)) }
probe vfs.writev.return { if (pid() == target()) printf("%s %s %d %d %d %d %s|\n", name, retstr, vlen, bytes_to_write, bytes_written, error, error_str) }
probe vfs.readv.return { if (pid() == target()) printf("%s %s %d %d %d %d %s|\n", name, retstr, vlen, bytes_to_read, bytes_read, error, error_str) }' -c "ktap-iov $K/v"
set -- $(ls -i $K/v); iv=$1
cat >$T/want <<EOS
vfs.writev N/A $iv 3 10 1 1 1
vfs.writev 10 3 10 10 0 |
vfs.readv N/A $iv 2 20 1 1 1
vfs.readv 10 2 20 10 0 |
EOS
expect "vfs.writev/readv: ktap-iov's 3 segments written, 2 read (bytes from the user's iovecs)"

# v2b. user_long() of a target variable in a kprobe reads user memory
#      (+u0): syscall.clock_nanosleep moves to the wrapper's kprobe to
#      read busybox sleep's timespec { 1, 0 }
run -e 'probe syscall.clock_nanosleep { if (pid() == target()) printf("%d %d\n", user_long($rqtp), user_long($rqtp + 8)) }' -c "sleep 1"
echo "1 0" >$T/want
expect "user_long(\$rqtp) in a kprobe (syscall.clock_nanosleep's wrapper): sleep's timespec read from user memory"

# v3. vfs.add_to_page_cache (filemap_add_folio()): dd writes 3 pages to
#     a new ramfs file, each a folio added at index 0, 1, 2 with 0, 1,
#     2 pages before it; vfs.remove_from_page_cache
#     (__filemap_remove_folio()): rm of a tmpfs file of 3 pages removes
#     them, from index 0 (dd's own messages go to $T/err, on the root
#     file system: each is filtered by the file's inode number)
: >$K/p
set -- $(ls -i $K/p); ip=$1
run -e 'probe vfs.add_to_page_cache { if (pid() == target() && ino == '$ip') printf("%s %s %d %d %d %d %s %d\n", name, devname, ino, index, nrpages, size, units, argstr == sprintf("%d, %d", ino, index)) }
probe vfs.add_to_page_cache.return { if (pid() == target() && @entry($mapping->host->i_ino) == '$ip') printf("%s %s %d %s\n", name, retstr, size, units) }' \
	-c "dd if=/dev/zero of=$K/p bs=4096 count=3"
: >$T/want
for i in 0 1 2; do
	printf '%s\n' "vfs.add_to_page_cache N/A $ip $i $i $i pages 1" "vfs.add_to_page_cache 0 1 pages" >>$T/want
done
M=/mnt/kt
mkdir -p $M
mount -t tmpfs tmpfs $M
dd if=/dev/zero of=$M/p bs=4096 count=3 2>/dev/null
set -- $(ls -i $M/p); it=$1
rc1=$rc
cp $T/out $T/out1
run -e 'probe vfs.remove_from_page_cache { if (pid() == target() && ino == '$it') printf("%s %s %d %d %s %d\n", name, devname, ino, index, argstr, dev != 0) }
probe vfs.remove_from_page_cache.return { if (pid() == target() && @entry($folio->mapping->host->i_ino) == '$it') printf("%s %s\n", name, retstr) }' -c "rm $M/p"
for i in 0 1 2; do
	printf '%s\n' "vfs.remove_from_page_cache N/A $it $i $it 1" "vfs.remove_from_page_cache N/A" >>$T/want
done
cat $T/out >>$T/out1
mv $T/out1 $T/out
[ "$rc1" -eq 0 ] || rc=$rc1
expect "vfs.add_to_page_cache (filemap_add_folio): dd's 3 pages on a ramfs; vfs.remove_from_page_cache (__filemap_remove_folio): rm of 3 pages on a tmpfs"
umount $M
umount $K

# v4. __scheduler.*.kp: sh forks one child (kernel_clone()), sends it
#     SIGTERM (__send_signal_locked()), waits for it (do_wait(): busybox
#     sh waits for any child, pid 0, even for 'wait PID'), the child exits (do_exit(), priority 120) and its
#     task_struct is freed after an RCU grace period
#     (delayed_put_task_struct()): each point says the child's pid
run -e 'global f, w, s, e, fr, c
probe __scheduler.process_fork.kp { if (parent_pid == target()) { if (!c) c = child_pid; if (child_pid == c) f[parent_pid, child_pid]++ } }
probe __scheduler.process_wait.kp { if (pid() == target()) w[pid]++ }
probe __scheduler.signal_send.kp { if (pid() == target() && $sig == 15) s[pid]++ }
probe __scheduler.process_exit.kp { if (c && pid == c) e[pid, priority]++ }
probe __scheduler.process_free.kp { if (c && pid == c) fr[pid, priority]++ }
probe end {
	foreach ([a, b] in f) printf("fork %d %d %d\n", a, b, f[a, b])
	foreach (a in w) printf("wait %d\n", a)
	foreach (a in s) printf("signal %d %d\n", a, s[a])
	foreach ([a, b] in e) printf("exit %d %d %d\n", a, b, e[a, b])
	foreach ([a, b] in fr) printf("free %d %d %d\n", a, b, fr[a, b])
}' -c "sh -c 'sleep 10 & echo \$\$ \$! >$T/pids; kill \$!; wait \$!; exec sleep 1'"
read -r sh child <$T/pids
printf '%s\n' "fork $sh $child 1" "wait 0" "signal $child 1" "exit $child 120 1" "free $child 120 1" >$T/want
expect "__scheduler.process_fork/wait/signal_send/process_exit/process_free.kp: sh's child, forked, killed, waited for, exited, freed"

# v5. __scheduler.kthread_stop(.return).kp and scheduler.kthread_stop
#     (the same kprobe): stopping the 2 nfsd threads (the NFSv4 server
#     of guest-net.sh, started again) stops each kernel thread, priority
#     120, whose function returns 0
mkdir -p /proc/fs/nfsd
mount -t nfsd nfsd /proc/fs/nfsd
echo "-3 +4 +4.0 -4.1 -4.2" >/proc/fs/nfsd/versions
echo 2 >/proc/fs/nfsd/threads
run -e 'probe scheduler.kthread_stop { if (pid() == target()) printf("%s %d %s %d\n", name, thread_pid, thread_name, thread_priority) }
probe __scheduler.kthread_stop.kp { if (pid() == target()) printf("kp %d %d\n", thread_pid, thread_priority) }
probe __scheduler.kthread_stop.return.kp { if (pid() == target()) printf("kp.return %d\n", return_value) }
probe scheduler.kthread_stop.return { if (pid() == target()) printf("%s.return %d\n", name, return_value) }' \
	-c "sh -c 'pidof nfsd >$T/nfsd; echo 0 >/proc/fs/nfsd/threads'"
umount /proc/fs/nfsd
: >$T/want
for p in $(cat $T/nfsd); do
	printf '%s\n' "kthread_stop $p nfsd 120" "kp $p 120" "kp.return 0" "kthread_stop.return 0" >>$T/want
done
sort $T/want -o $T/want
sort $T/out -o $T/out
[ "$(wc -w <$T/nfsd)" -eq 2 ] || rc="$rc (nfsd threads: $(cat $T/nfsd))"
expect "__scheduler.kthread_stop(.return).kp, scheduler.kthread_stop: the 2 nfsd threads stopped"

# v6. __vm.*.kp: sh's fork allocates the child's task_struct with
#     kmem_cache_alloc_node() (GFP_KERNEL, the task_struct cache's
#     object size, /proc/slabinfo's objsize) and frees it with
#     kmem_cache_free() after the child is reaped (counted once: the
#     object may be another task's after that); __vm.kmalloc.kp is
#     stap's fallback on kmem_cache_alloc() (as __vm.kmem_cache_alloc.kp)
tsz=$(awk '$1 == "task_struct" { print $4 }' /proc/slabinfo)
run -e 'global n, p, fr, a1, a2, k
probe __vm.kmem_cache_alloc_node.kp { if (pid() == target() && bytes_req == '$tsz') { n++; p = ptr; printf("node %d %s %x %d %d\n", call_site, caller_function, gfp_flags, bytes_alloc == bytes_req, ptr != 0) } }
probe __vm.kmem_cache_free.kp { if (p && ptr == p) { fr++; p = 0 } }
probe __vm.kmalloc.kp { if (pid() == target()) a1 += ptr + bytes_req }
probe __vm.kmem_cache_alloc.kp { if (pid() == target()) a2 += ptr + bytes_req }
probe __vm.kfree.kp { if (pid() == target() && ptr) k++ }
probe end { printf("%d %d %d %d\n", n, fr, a1 == a2 && a1 != 0, k > 0) }' -c "sh -c 'true & wait; exec sleep 1'"
printf '%s\n' "node 0 unknown cc0 1 1" "1 1 1 1" >$T/want
[ -n "$tsz" ] || rc="$rc (no task_struct in /proc/slabinfo)"
expect "__vm.kmem_cache_alloc_node.kp / kmem_cache_free.kp: the child's task_struct ($tsz bytes), kmalloc.kp as kmem_cache_alloc.kp, kfree.kp"
