#!/bin/sh
# guest-kdwarf.sh - the guest half of tests/vm/vm-kdwarf.sh: probes on
# ktapmod, a module without BTF, typed from the DWARF of its .ko.
#
# Writing N to /proc/ktapmod calls ktapmod_handle(req, N) with req->id = N,
# req->len = 10 N, req->tag = "req-N", req->label "odd"/"even",
# req->in.level = -N, req->in.flag = N & 7, req->in.mode = N & 31,
# req->next = a static request with id 1000 and label "head"; it returns
# 2 N + 1.  Runs as /tests/run-in-vm.sh (busybox sh), one unnumbered TAP
# line per check, and guest_done last.

. /tests/guest-lib.sh
ko=/lib/modules/$(uname -r)/extra/ktapmod.ko

# 1. the module loads, and has no BTF of its own
if insmod "$ko" 2>$T/err && [ -w /proc/ktapmod ] && [ ! -e /sys/kernel/btf/ktapmod ]; then
	ok "ktapmod loaded from $ko, without BTF"
else
	not_ok "insmod $ko"
	diag $T/err
fi

# A run before the snapshot: the kernel allocates the top-level buffer
# the first time any event is enabled (see guest-ktap.sh).
run -T 1 -e 'probe module("ktapmod").function("ktapmod_handle") { }'
ktap-tfs-snapshot >$T/before

# 2. parameters, members through pointers, embedded struct, bitfields,
#    a char array and char pointers, all from the module's DWARF
run -e 'probe module("ktapmod").function("ktapmod_handle") {
	if (pid() == target())
		printf("%d %d %d %s %s %d %d %d %d %s\n", $n, $req->id, $req->len, $req->tag,
		       $req->label, $req->in->level, $req->in->flag, $req->in->mode,
		       $req->next->id, $req->next->label) }' -c "sh -c 'echo 13 >/proc/ktapmod'"
echo "13 13 130 req-13 odd -13 5 13 1000 head" >$T/want
expect "ktapmod_handle: parameters, members, bitfields and strings from DWARF"

# 3. NAME@FILE, .return with $return and @entry
run -e 'probe module("ktapmod").function("ktapmod_handle@ktapmod.c").return {
	if (pid() == target()) printf("%d %d\n", @entry($n), $return) }' \
	-c "sh -c 'echo 6 >/proc/ktapmod; echo 21 >/proc/ktapmod'"
printf '6 13\n21 43\n' >$T/want
expect "ktapmod_handle@ktapmod.c.return: @entry(\$n) and \$return"

# 4. -v names the .ko the types came from
run -v -p2 -e 'probe module("ktapmod").function("ktapmod_handle") { print($n) }'
if [ "$rc" -eq 0 ] && grep -q "types from the DWARF of .*$ko\$" $T/err; then
	ok "-v: types from the DWARF of $ko"
else
	not_ok "-v type source (exit status $rc)"
	diag $T/err
fi

# 5. -L: parameters with their DWARF types
run -L 'module("ktapmod").function("ktapmod_handle")'
echo 'module("ktapmod").function("ktapmod_handle") $req:struct ktapmod_req * $n:int' >$T/want
expect "-L module(\"ktapmod\").function(\"ktapmod_handle\"): DWARF types"

# 6. a wildcard with a file: the module's functions in ktapmod.c
run -l 'module("ktapmod").function("ktapmod_*@ktapmod.c")'
if [ "$rc" -eq 0 ] && grep -qx 'module("ktapmod").function("ktapmod_handle")' $T/out &&
	grep -qx 'module("ktapmod").function("ktapmod_write")' $T/out; then
	ok "-l ktapmod_*@ktapmod.c lists ktapmod_handle and ktapmod_write"
else
	not_ok "-l with NAME@FILE (exit status $rc)"
	diag $T/out $T/err
fi

# 7. $var$ from DWARF
run -e 'probe module("ktapmod").function("ktapmod_handle") {
	if (pid() == target()) println($req->in$) }' -c "sh -c 'echo 10 >/proc/ktapmod'"
echo '{.level=-10, .flag=2, .mode=10}' >$T/want
expect "\$req->in\$: the embedded struct's members"

# 8. $$ expands nested structs (DWARF): req's embedded struct, and next
run -e 'probe module("ktapmod").function("ktapmod_handle") {
	if (pid() == target()) println($req$$) }' -c "sh -c 'echo 3 >/proc/ktapmod'"
if [ "$rc" -eq 0 ] && grep -qx '{.id=3, .len=30, .tag="req-3", .label="odd", .in={.level=-3, .flag=3, .mode=3}, .next=0x[0-9a-f]*}' $T/out; then
	ok "\$req\$\$: nested struct expanded, from DWARF"
else
	not_ok "\$req\$\$ (exit status $rc)"
	diag $T/out $T/err
fi

# 9. the same printer on BTF: $ keeps nested structs as {...}, $$ opens
#    them (struct qstr: an anonymous union holding an anonymous struct)
run -e 'probe kernel.function("vfs_read") { if (pid() == target()) {
	println($file->f_path->dentry->d_name$); println($file->f_path->dentry->d_name$$); exit() } }' \
	-c "dd if=/etc/hostname of=/dev/null bs=4 count=1"
if [ "$rc" -eq 0 ] && sed -n 1p $T/out | grep -qx '{<union>={...}, .name="hostname"}' &&
	sed -n 2p $T/out | grep -qx '{<union>={<class>={.hash=[0-9]*, .len=8}, .hash_len=[0-9]*}, .name="hostname"}'; then
	ok "BTF: d_name\$ and d_name\$\$ as stap prints them"
else
	not_ok "BTF pretty printing (exit status $rc)"
	diag $T/out $T/err
fi

# 10. nothing left behind
ktap-tfs-snapshot >$T/after
if cmp -s $T/before $T/after; then
	ok "tracefs unchanged after the runs"
else
	not_ok "tracefs changed"
	diff $T/before $T/after | head -20 | sed 's/^/# /'
fi

guest_done
