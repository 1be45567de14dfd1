#!/bin/sh
# kprobe-plan.sh - kernel.function() plans from this machine's BTF (TAP).
# No kprobe support is needed: only -p3 runs.  Every register and offset
# the plan uses is checked against bpftool's own dump of the same BTF
# (parameter positions in FUNC_PROTO, member bits_offset in STRUCT), so
# the test holds on any kernel.  Skipped without BTF or bpftool.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

BTF=/sys/kernel/btf/vmlinux
[ -r $BTF ] || skip_all "no kernel BTF at $BTF"
require_tools bpftool
bpftool btf dump file $BTF format raw >"$TMP/btf" 2>/dev/null || skip_all "bpftool cannot read $BTF"

# param_reg FUNC NAME: the x86_64 register of parameter NAME of FUNC.
param_reg() {
	proto=$(awk -v f="'$1'" '$2 == "FUNC" && $3 == f { split($4, a, "="); print a[2]; exit }' "$TMP/btf")
	awk -v id="[$proto]" -v p="'$2'" '
		$1 == id { on = 1; n = 0; next }
		on && /^\[/ { exit }
		on { if ($1 == p) { split("%di %si %dx %cx %r8 %r9", r, " "); print r[n + 1]; exit } n++ }
	' "$TMP/btf"
}

# member_off STRUCT MEMBER: the byte offset of a direct member.
member_off() { btf_member_off "$TMP/btf" "$@"; }

# member_deep STRUCT MEMBER: the byte offset of MEMBER in STRUCT, also
# when it sits in anonymous structs and unions (as sock_common's do).
member_deep() { btf_member_off "$TMP/btf" "$@"; }


count=$(param_reg vfs_read count)
file=$(param_reg vfs_read file)
pos=$(param_reg vfs_read pos)
f_pos=$(member_off file f_pos)
f_inode=$(member_off file f_inode)
i_ino=$(member_off inode i_ino)
want="count=$count:u64 file_f_pos=+$f_pos($file):s64 file_f_inode_i_ino=+$i_ino(+$f_inode($file)):u64 pos_0=+0($pos):s64"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e \
	'probe kernel.function("vfs_read") { printf("%d %d %d %d\n", $count, $file->f_pos, $file->f_inode->i_ino, $pos[0]) }'
got=$(sed -n "s|^write kprobe_events 'p:ktap_\$PID/vfs_read_0 vfs_read \(.*\)'\$|\1|p" "$TMP/out")
if [ "$rc" -eq 0 ] && [ "$got" = "$want" ]; then
	ok "vfs_read: registers and member offsets as bpftool reads the BTF"
else
	not_ok "vfs_read plan (exit status $rc)"
	echo "# want: $want"
	echo "# got:  $got"
	diag_file "$TMP/err"
fi

# A kretprobe's maxactive defaults to stap's KRETACTIVE: max(15, 6 * the
# possible CPUs), within the kernel's 4096.
ncpu=$(awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-"); c += n == 2 ? r[2] - r[1] + 1 : 1 } } END { print c }' /sys/devices/system/cpu/possible)
kret=$((6 * ncpu > 4096 ? 4096 : 6 * ncpu < 15 ? 15 : 6 * ncpu))
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e \
	'probe kernel.function("vfs_read").return { printf("%d\n", $return) }'
if [ "$rc" -eq 0 ] && grep -q "^write kprobe_events 'r$kret:ktap_\$PID/vfs_read_0 vfs_read ret=\$retval:s64'\$" "$TMP/out"; then
	ok ".return: a kretprobe fetching \$retval as ssize_t, maxactive $kret for $ncpu CPUs"
else
	not_ok ".return plan (exit status $rc), want r$kret:"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -D KRETACTIVE=200 -e \
	'probe kernel.function("vfs_read").return { print($return) }'
run_ktap "$TMP" "$TMP/out2" "$TMP/err2" -p3 -D KRETACTIVE=5000 -e \
	'probe kernel.function("vfs_read").return { print($return) }'
if grep -q "^write kprobe_events 'r200:ktap_\$PID/vfs_read_0 vfs_read " "$TMP/out" &&
	[ "$rc" -eq 1 ] && grep -qx "ktap: error: -D KRETACTIVE expects a number from 1 to 4096 (the kernel's limit), got '5000'" "$TMP/err2"; then
	ok "-D KRETACTIVE=200 sets the default; 5000 is refused"
else
	not_ok "-D KRETACTIVE (exit status $rc)"
	diag_file "$TMP/out"
	diag_file "$TMP/err2"
fi

# stap's latency idiom: the entry probe computes gettimeofday_ns() at the
# entry record (no fetch arguments needed), the return probe subtracts.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'global lat
probe kernel.function("vfs_read").return { lat <<< gettimeofday_ns() - @entry(gettimeofday_ns()) }
probe end { print(@hist_log(lat)) }'
sed -i 's/bi  *[0-9]* n=/bi n=/' "$TMP/out"
cat >"$TMP/want" <<EOW
# kernel: tracefs writes, in order
mkdir instances/ktap_\$PID
write kprobe_events 'r$kret:ktap_\$PID/vfs_read_0 vfs_read'
write kprobe_events 'p:ktap_\$PID/vfs_read_0e vfs_read'
write instances/ktap_\$PID/events/ktap_\$PID/vfs_read_0/filter '(common_pid != \$KTAP || common_flags & 0x58)'
write instances/ktap_\$PID/events/ktap_\$PID/vfs_read_0/enable '1'
write instances/ktap_\$PID/events/ktap_\$PID/vfs_read_0e/filter '(common_pid != \$KTAP || common_flags & 0x58)'
write instances/ktap_\$PID/events/ktap_\$PID/vfs_read_0e/enable '1'
# user space
global 0 lat
probe 0 kernel.function("vfs_read").return /* event ktap_\$PID:vfs_read_0, 1 @entry value, 0 slots */
     0  tick    
     1  bi n=0	; gettimeofday_ns
     2  entry    0
     3  sub     
     4  sadd     0	; lat
     5  pop     
     6  next    
probe 1 end /* end, 0 slots */
     0  tick    
     1  hist     0 n=0 0
     2  bi n=1	; print
     3  pop     
     4  next    
probe 2 kernel.function("vfs_read").return /* event ktap_\$PID:vfs_read_0e, @entry values of probe 0, 0 slots */
     0  bi n=0	; gettimeofday_ns
     1  epush    1
     2  next    
EOW
if [ "$rc" -eq 0 ] && cmp -s "$TMP/want" "$TMP/out"; then
	ok "@entry(gettimeofday_ns()): the plan's entry probe computes it, the return reads it"
else
	not_ok "@entry plan (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/out"
	diag_file "$TMP/err"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e \
	'probe kernel.function("vfs_read") { print($file->nosuch) }'
run_ktap "$TMP" "$TMP/out2" "$TMP/err2" -p3 -e \
	'probe kernel.function("no_such_function_ktap") { }'
if [ "$rc" -eq 1 ] && grep -q "error: struct file has no member 'nosuch'" "$TMP/err" &&
	grep -q 'error: no kernel function "no_such_function_ktap"' "$TMP/err2"; then
	ok "a missing member, a missing function: located errors"
else
	not_ok "errors (exit status $rc)"
	diag_file "$TMP/err"
	diag_file "$TMP/err2"
fi

# A missing member: the closest one (a kernel rename, state -> __state,
# before a one-letter typo, stats), and an anonymous type by the
# expression that has it.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e \
	'probe kernel.function("wake_up_process") { print($p->state) }'
run_ktap "$TMP" "$TMP/out2" "$TMP/err2" -p3 -e \
	'probe kernel.function("vfs_read") { print($file->f_path->dentry->d_u->nosuch) }'
if grep -q "error: struct task_struct has no member 'state'; did you mean '__state'?" "$TMP/err" &&
	grep -q "error: \$file->f_path->dentry->d_u (an anonymous union) has no member 'nosuch'" "$TMP/err2"; then
	ok "a missing member: 'did you mean' the renamed one; an anonymous union named by its expression"
else
	not_ok "missing member messages"
	diag_file "$TMP/err"
	diag_file "$TMP/err2"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e \
	'probe kernel.function("vfs_read") { print(@cast($file, "struct file")->f_pos + @cast($file->f_inode, "struct inode")->i_ino) }'
got=$(sed -n "s|^write kprobe_events 'p:ktap_\$PID/vfs_read_0 vfs_read \(.*\)'\$|\1|p" "$TMP/out")
if [ "$got" = "file_cast_f_pos=+$f_pos($file):s64 file_f_inode_cast_i_ino=+$i_ino(+$f_inode($file)):u64" ]; then
	ok "@cast() to BTF structs: the same offsets bpftool reads"
else
	not_ok "@cast fetches: $got"
	diag_file "$TMP/err"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e \
	'probe kernel.function("vfs_read").return.maxactive(64) { print($return) }
	 probe kernel.statement("vfs_read+0x10") { print(pp()) }'
if [ "$rc" -eq 0 ] && grep -q "^write kprobe_events 'r64:ktap_\$PID/vfs_read_0 vfs_read ret=\$retval:s64'\$" "$TMP/out" &&
	grep -q "^write kprobe_events 'p:ktap_\$PID/vfs_read_1 vfs_read+0x10'\$" "$TMP/out"; then
	ok ".return.maxactive(64) and kernel.statement(\"vfs_read+0x10\")"
else
	not_ok "maxactive/statement plans (exit status $rc)"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi

# SystemTap's tcp_retransmission.stp, unchanged: every tapset function
# it calls with $sk becomes fetch arguments of the one kprobe; its
# format_ipaddr(__ip_sock_*addr($sk), family) reads the IPv6 addresses
# too (__ip_sock_addr_text(): the remote one's four words, then the
# local one's).
sk=$(param_reg tcp_retransmit_skb sk)
want="sk=$sk:u64 sk_cast_icsk_rto=+$(member_deep inet_connection_sock icsk_rto)($sk):u32"
v6d=$(member_deep sock_common skc_v6_daddr)
v6s=$(member_deep sock_common skc_v6_rcv_saddr)
name=sk_cast___sk_common_skc_v6_
for i in 0 1 2 3 4 5 6 7; do
	if [ $i -lt 4 ]; then off=$((v6d + 4 * i)); else off=$((v6s + 4 * (i - 4))); fi
	want="$want $name=+$off($sk):u32"
	name=sk_cast___sk_common_skc_v6__$((i + 1))
done
want="$want sk_cast___sk_common_skc_fam=+$(member_deep sock_common skc_family)($sk):u16"
want="$want sk_cast_inet_sport=+$(member_deep inet_sock inet_sport)($sk):u16"
want="$want sk_cast___sk_common_skc_dpo=+$(member_deep sock_common skc_dport)($sk):u16"
want="$want sk_cast___sk_common_skc_sta=+$(member_deep sock_common skc_state)($sk):u8"
want="$want sk_cast___sk_common_skc_dad=+$(member_deep sock_common skc_daddr)($sk):u32"
want="$want sk_cast_inet_saddr=+$(member_deep inet_sock inet_saddr)($sk):u32"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 "$KTAP_SRCDIR/examples/tcp_retransmit.stp"
got=$(sed -n "s|^write kprobe_events 'p:ktap_\$PID/tcp_retransmit_skb_1 tcp_retransmit_skb \(.*\)'\$|\1|p" "$TMP/out")
if [ "$rc" -eq 0 ] && [ "$got" = "$want" ] && [ "$(member_deep sock __sk_common)" = 0 ] &&
	grep -q 'call .*; tcp_get_info_rto<sock=\$sk>$' "$TMP/out" &&
	grep -q '^function [0-9]* __tcp_sock_dport<sock=\$sk> ' "$TMP/out"; then
	ok "tcp_retransmit.stp: the tapset's reads of \$sk are fetch args at bpftool's offsets"
else
	not_ok "tcp_retransmit.stp plan (exit status $rc)"
	echo "# want: $want"
	echo "# got:  $got"
	diag_file "$TMP/err"
fi

# -p2: each copy under its name, the caller's $sk in its body, and the
# probe's fields with their fetches (names cut to 27 characters).
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 "$KTAP_SRCDIR/examples/tcp_retransmit.stp"
if [ "$rc" -eq 0 ] &&
	grep -A2 -x '__tcp_sock_dport<sock=\$sk>:long (sock:long)' "$TMP/out" |
	grep -qxF '  return ntohs(@cast($sk, "sock", "kernel")->__sk_common->skc_dport);' &&
	grep -qxF "  \$sk_cast___sk_common_skc_dpo:long /* fetch +$(member_deep sock_common skc_dport)($sk):u16 */" "$TMP/out"; then
	ok "-p2: tapset functions specialised for \$sk, and the fetches they add"
else
	not_ok "-p2 of tcp_retransmit.stp (exit status $rc)"
	diag_file "$TMP/out" 60
	diag_file "$TMP/err"
fi

# Constant address arithmetic, '&', a cast with a module, a function
# calling another with its address parameter.
f_pos=$(member_off file f_pos)
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e '
	function pos(f) { return kernel_long(&@cast(f, "file", "kernel<linux/fs.h>")->f_pos) }
	function pos2(f) { return pos(f) }
	probe kernel.function("vfs_read") { printf("%d %d %d\n", kernel_int($file + 8), pos2($file), &$file->f_pos) }'
got=$(sed -n "s|^write kprobe_events 'p:ktap_\$PID/vfs_read_0 vfs_read \(.*\)'\$|\1|p" "$TMP/out")
if [ "$rc" -eq 0 ] && [ "$got" = "file_mem=+8($file):s32 file_1=$file:u64 file_cast_f_pos_addr_mem=+$f_pos($file):s64" ] &&
	grep -q "^function 1 pos<f=\$file> " "$TMP/out"; then
	ok "kernel_int(\$file + 8), &\$file->f_pos, kernel_long(&@cast(f, \"file\", \"kernel<...>\")->f_pos) through two functions"
else
	not_ok "address arithmetic (exit status $rc): $got"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi

# netdev.close (tapset/netdev.stp): the name of the first net_device on
# __dev_close_many()'s list, @container_of()'s negative offset from the
# list entry (name is before close_list) printed signed, as the kernel
# parses it; the empty list's test reads head->next and head.
head=$(param_reg __dev_close_many head)
noff=$(($(member_off net_device name) - $(member_off net_device close_list)))
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe netdev.close { println(dev_name) }'
got=$(sed -n "s|^write kprobe_events 'p:ktap_\$PID/__dev_close_many_0 __dev_close_many \(.*\)'\$|\1|p" "$TMP/out")
if [ "$rc" -eq 0 ] && [ "$noff" -lt 0 ] &&
	[ "$got" = "head_next=+0($head):u64 head_1=$head:u64 head_next_cast_name_str=$noff(+0($head)):string" ]; then
	ok "netdev.close: the device name at $noff from its close_list entry, a signed fetch offset"
else
	not_ok "netdev.close plan (exit status $rc): $got"
	diag_file "$TMP/err"
fi

# A copy reads its own probe's fields, whatever probe was lowered last.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e \
	'probe kernel.function("vfs_read") { print(__file_ino($file)) } probe kernel.function("vfs_write") { print($count) }'
n=$(sed -n 's/^  # field \([0-9]*\): file_cast_f_inode_i_ino$/\1/p' "$TMP/out")
if [ "$rc" -eq 0 ] && [ -n "$n" ] &&
	sed -n '/^function 0 __file_ino<file=\$file> /,$p' "$TMP/out" | grep -q "^ *1  field    $n\$"; then
	ok "__file_ino(\$file) in the first of two probes reads its probe's field $n"
else
	not_ok "copy's field in a two-probe script (exit status $rc)"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi

# Inside @entry(): a copy that reads the entry probe's fields.
i_ino=$(member_off inode i_ino)
f_inode=$(member_off file f_inode)
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e \
	'probe kernel.function("vfs_read").return { print(@entry(__file_ino($file))) }'
if [ "$rc" -eq 0 ] &&
	grep -qxF "write kprobe_events 'p:ktap_\$PID/vfs_read_0e vfs_read file=$file:u64 file_cast_f_inode_i_ino=+$i_ino(+$f_inode($file)):u64'" "$TMP/out" &&
	grep -q '^ *1  call     0 n=1	; __file_ino<file=\$file>@entry$' "$TMP/out" &&
	sed -n '/^function 0 __file_ino<file=\$file>@entry /,$p' "$TMP/out" | grep -q '^ *1  field    1$'; then
	ok "@entry(__file_ino(\$file)): the entry probe fetches the inode number"
else
	not_ok "@entry of a specialised function (exit status $rc)"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi

# A variable set from a fetchable address earlier in the probe is read
# through at the probe (sema_vardef.c), also as a specialised function's
# argument.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'function fam(s) { return @cast(s, "sock")->__sk_common->skc_family }
probe kernel.function("tcp_retransmit_skb") { x = $sk; print(fam(x) + kernel_int(x + 4)) }'
skc_family=$(member_off sock_common skc_family)
if [ "$rc" -eq 0 ] &&
	grep -qxF "write kprobe_events 'p:ktap_\$PID/tcp_retransmit_skb_0 tcp_retransmit_skb sk=%di:u64 sk_mem=+4(%di):s32 sk_cast___sk_common_skc_fam=+$skc_family(%di):u16'" "$TMP/out"; then
	ok "x = \$sk; fam(x), kernel_int(x + 4): fetched through \$sk at the probe"
else
	not_ok "x = \$sk; fam(x), kernel_int(x + 4) (exit status $rc)"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi

# Addresses computed at run time cannot be read through: located errors
# (--all-errors: both of one kind).
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 --all-errors -e 'function fam(s) { return @cast(s, "sock")->__sk_common->skc_family }
probe kernel.function("tcp_retransmit_skb") { x = $sk; x++; print(fam(x) + kernel_int(x + 4)) }'
cat >"$TMP/want" <<'EOW'
<input>:2:71: error: function 'fam' reads memory through its parameter 's': the argument must be an address the kernel can fetch at the probe ($var, $p->member, @cast(...)->member, or one of these plus a constant), not a value computed at run time
     2 | probe kernel.function("tcp_retransmit_skb") { x = $sk; x++; print(fam(x) + kernel_int(x + 4)) }
       |                                                                       ^
<input>:2:87: error: 'x' is not an address the kernel can fetch at the probe: ktap reads memory only through an address known there, so read through a variable only after setting it from one (a target variable, a @cast() chain) earlier in the same probe, with no other write to it in between (in a loop, none anywhere in the loop)
     2 | probe kernel.function("tcp_retransmit_skb") { x = $sk; x++; print(fam(x) + kernel_int(x + 4)) }
       |                                                                                       ^
EOW
if [ "$rc" -eq 1 ] && cmp -s "$TMP/want" "$TMP/err"; then
	ok "a pointer computed at run time: located errors that say why"
else
	not_ok "run-time pointer errors (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/err"
fi

# The kernel refuses argument names longer than 31 characters.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e \
	'probe kernel.function("vfs_read") { print(kernel_string(@cast($file, "file")->f_path->dentry->d_name->name)) }'
got=$(sed -n "s|^write kprobe_events 'p:ktap_\$PID/vfs_read_0 vfs_read \(.*\)'\$|\1|p" "$TMP/out")
if [ "$rc" -eq 0 ] && [ "${got%%=*}" = file_cast_f_path_dentry_d_n ]; then
	ok "a long member chain's argument name is cut to 27 characters"
else
	not_ok "long argument name (exit status $rc): $got"
	diag_file "$TMP/err"
fi

buf=$(param_reg vfs_read buf)
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e \
	'probe kernel.function("vfs_read") { printf("%s %d\n", user_string($buf), kernel_long($pos)) }'
got=$(sed -n "s|^write kprobe_events 'p:ktap_\$PID/vfs_read_0 vfs_read \(.*\)'\$|\1|p" "$TMP/out")
if [ "$got" = "buf_str=+0($buf):ustring buf_str_z=+u0($buf):x8 pos_mem=+0($pos):s64" ]; then
	ok "user_string() and kernel_long() are fetches (ustring for user memory, with its first byte)"
else
	not_ok "user_string/kernel_long fetches: $got"
	diag_file "$TMP/err"
fi

# Array-typed target variables are addresses, as in stap: kernel_string(),
# '&', arithmetic and comparison with 0 take them (a char array alone
# still prints as a string); an unsigned char * is a number.  Errors name
# the expression as written.
p=$(param_reg wake_up_new_task p)
comm=$(member_deep task_struct comm)
skb=$(param_reg consume_skb skb)
data=$(member_deep sk_buff data)
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e \
	'probe kernel.function("wake_up_new_task") { printf("%s %s %d %d %d\n", $p->comm, kernel_string($p->comm), &$p->comm, $p->comm + 1, $p->comm != 0) }
	probe kernel.function("consume_skb") { printf("%d\n", $skb->data) }'
got=$(sed -n "s|^write kprobe_events 'p:ktap_\$PID/[a-z_]*_[0-9] [a-z_]* \(.*\)'\$|\1|p" "$TMP/out" | tr '\n' ' ')
run_ktap "$TMP" "$TMP/out2" "$TMP/err2" -p3 -e \
	'probe kernel.function("wake_up_new_task") { println(kernel_long($p->se)) }'
if [ "$got" = "p_comm=+$comm($p):string p_comm_addr=$p:u64 skb_data=+$data($skb):u64 " ] &&
	[ "$(grep -c "pushi    $comm\$" "$TMP/out")" -eq 3 ] && [ "$rc" -eq 1 ] &&
	grep -q "error: '\$p->se' is not an address\$" "$TMP/err2"; then
	ok "arrays are addresses: kernel_string(\$p->comm), &, +, != 0; unsigned char * is a number"
else
	not_ok "array target variables (exit status $rc): $got"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
	diag_file "$TMP/err2"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" -L 'kernel.function("vfs_read")'
if [ "$rc" -eq 0 ] && grep -q '^kernel.function("vfs_read") .*$file:struct file \* .*$count:size_t' "$TMP/out"; then
	ok "-L kernel.function: parameters with their BTF types"
else
	not_ok "-L kernel.function (exit status $rc)"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi

# Running one: on a kernel without kprobe events the refusal names the
# probe and the missing feature, and nothing is left behind.
if [ "$(id -u)" -ne 0 ]; then
	skip "a kernel without kprobes refuses the probe" "needs root"
elif [ -e /sys/kernel/tracing/kprobe_events ]; then
	skip "a kernel without kprobes refuses the probe" "this kernel has kprobes (the VM tests run them)"
else
	tfs_guard_begin
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -e \
		'probe kernel.function("vfs_read") { exit() }'
	tfs_guard_after
	# ... in one line: the failed write's text would only repeat it.
	if [ "$rc" -eq 1 ] && grep -q '^ERROR: <input>:1:7: kernel.function("vfs_read"): the kernel refused the probe (this kernel has no kprobe events: CONFIG_KPROBE_EVENTS)$' "$TMP/err" &&
		[ "$(wc -l <"$TMP/err")" -eq 1 ] &&
		cmp -s "$TMP/tfs.before" "$TMP/tfs.after"; then
		ok "a kernel without kprobes: one line naming the probe and the feature"
	else
		not_ok "refusal (exit status $rc)"
		diag_file "$TMP/err"
		diag_diff "$TMP/tfs.before" "$TMP/tfs.after"
	fi
fi
done_testing
