#!/bin/sh
# kdwarf.sh - type sources of dynamic probes other than BTF (TAP): "NAME@FILE"
# function filters, the kernel's DWARF, and kprobe.function() with no type
# information at all.  No root and no kprobes needed: only -p2/-p3 run.
#
# process(): "NAME@FILE" picks the function by its DWARF declaration.
# kernel.function(): DWARF is found through KTAP_DEBUGINFO_PATH, here
# tests/tools/kdebug/vmlinux, a -g program standing in for vmlinux (two
# static ktap_fake_dup() in two files, struct parameters); offsets are read
# back from its DWARF with readelf, not hard-coded.  The real thing, a
# module without BTF whose .ko carries DWARF, runs in the VM
# (tests/vm/vm-kdwarf.sh).
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
UT=$KTAP_BUILDDIR/tests/tools/ktap-uprobe-target
FAKE=$KTAP_BUILDDIR/tests/tools/kdebug
require_tools "$UT" "$FAKE/vmlinux"
require_tools readelf
readelf --debug-dump=info "$FAKE/vmlinux" >"$TMP/info" 2>/dev/null ||
	skip_all "readelf cannot read $FAKE/vmlinux"

# member_off MEMBER: DW_AT_data_member_location of member MEMBER.
member_off() { dwarf_member_off "$TMP/info" "$1"; }

# kplan: the kprobe_events lines of $TMP/out.
kplan() { sed -n "s/^write kprobe_events '\(.*\)'\$/\1/p" "$TMP/out"; }


# 1. process(): NAME@FILE is the same function as NAME.
run_ktap "$TMP" "$TMP/want" "$TMP/err" -p3 -e \
	"probe process(\"$UT\").function(\"handle\") { println(\$r->id) }"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e \
	"probe process(\"$UT\").function(\"handle@ktap-uprobe-target.c\") { println(\$r->id) }"
expect_same 'process().function("handle@ktap-uprobe-target.c"): the plan of handle' \
	"$TMP/want" "$TMP/out"

# 2. A glob in both halves.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e \
	"probe process(\"$UT\").function(\"hand*@tests/tools/*-target.c\") { }"
grep '^process' "$TMP/out" | sed 's/ \/\*.*//' >"$TMP/got"
echo "process(\"$UT\").function(\"handle\")" >"$TMP/want"
expect_same '"hand*@tests/tools/*-target.c" matches handle by its source file' "$TMP/want" "$TMP/got"

# 3. No such function in that file.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e \
	"probe process(\"$UT\").function(\"handle@nosuch.c\") { }"
check_err '"handle@nosuch.c": one located error' \
	"<input>:1:7: error: no function \"handle\" in a source file matching \"nosuch.c\" in $UT$POINT_HINT"

# 4. The kernel's DWARF: parameters, members and strings from it.
export KTAP_DEBUGINFO_PATH="$FAKE"
fi_off=$(member_off f_inode)
fn_off=$(member_off f_name)
ino_off=$(member_off i_ino)
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e \
	'probe kernel.function("ktap_fake_read@ktap-fake-vmlinux.c") {
		printf("%d %d %s\n", $count, $file->f_inode->i_ino, $file->f_name) }'
echo "p:ktap_\$PID/ktap_fake_read_0 ktap_fake_read count=%dx:u64 file_f_inode_i_ino=+$ino_off(+$fi_off(%di)):u64 file_f_name=+0(+$fn_off(%di)):string" >"$TMP/want"
kplan >"$TMP/got"
expect_same "kernel.function(\"NAME@FILE\"): fetch arguments from vmlinux's DWARF" "$TMP/want" "$TMP/got"

# 5. Two static functions of one name: FILE picks the one with parameter b.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e \
	'probe kernel.function("ktap_fake_dup@ktap-fake-vmlinux2.c") { println($b) }'
echo 'p:ktap_$PID/ktap_fake_dup_0 ktap_fake_dup b=%di:s32' >"$TMP/want"
kplan >"$TMP/got"
expect_same "ktap_fake_dup@ktap-fake-vmlinux2.c is the one declared there" "$TMP/want" "$TMP/got"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e \
	'probe kernel.function("ktap_fake_dup@ktap-fake-vmlinux.c") { println($b) }'
check_err "...and the other file's has no \$b" \
	"<input>:1:70: error: function ktap_fake_dup has no parameter 'b'"

# 6. Wildcards over the DWARF, -v naming the DWARF file.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -v -p2 -e \
	'probe kernel.function("ktap_fake_*@ktap-fake-vmlinux*.c") { }'
grep '^kernel' "$TMP/out" | sed 's/ \/\*.*//' >"$TMP/got"
printf '%s\n' 'kernel.function("ktap_fake_dup")' 'kernel.function("ktap_fake_dup2")' \
	'kernel.function("ktap_fake_read")' >"$TMP/want"
if [ "$rc" -eq 0 ] && cmp -s "$TMP/want" "$TMP/got" &&
	grep -q "types from the DWARF of $FAKE/vmlinux" "$TMP/err"; then
	ok 'kernel.function("ktap_fake_*@...") lists the DWARF functions; -v names the file'
else
	not_ok "kernel DWARF wildcard (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/got"
	diag_file "$TMP/err"
fi

# 7. Without DWARF: what is needed, and where ktap looked.
KTAP_DEBUGINFO_PATH=$TMP/none
mkdir -p "$TMP/none"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e \
	'probe kernel.function("vfs_read@fs/read_write.c") { }'
got=$(head -n 1 "$TMP/err")
case $got in
"<input>:1:23: error: \"vfs_read@fs/read_write.c\" needs DWARF: no DWARF of the kernel found (looked in $TMP/none, /usr/lib/debug/boot/vmlinux-"*)
	if [ "$rc" -eq 1 ]; then ok "no kernel DWARF: the error says what and where"; else not_ok "no kernel DWARF: exit status $rc"; fi ;;
*)
	not_ok "no kernel DWARF: unexpected message"
	echo "# got: $got" ;;
esac

# 8. kprobe.function() without any type information: raw registers.
#    KTAP_TRACEFS points at a tracing directory whose
#    available_filter_functions says what is traceable.
mkdir -p "$TMP/tfs"
printf 'vfs_read\nvfs_write\n' >"$TMP/tfs/available_filter_functions"
export KTAP_TRACEFS="$TMP/tfs" KTAP_BTF="$TMP/no-btf"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e \
	'probe kprobe.function("vfs_read") { println($arg1, $arg3) }
	 probe kprobe.function("vfs_read").return { println($return) }'
printf '%s\n' 'p:ktap_$PID/vfs_read_0 vfs_read arg1=%di:s64 arg3=%dx:s64' \
	'r:ktap_$PID/vfs_read_1 vfs_read ret=%ax:s64' >"$TMP/want"
# (the default maxactive, rN:, is kprobe-plan.sh's business)
kplan | sed 's/^r[0-9]*:/r:/' >"$TMP/got"
expect_same "kprobe.function() with no BTF or DWARF: \$argN and \$return from registers" "$TMP/want" "$TMP/got"

# 9. ...a named parameter needs types; 10. an untraceable function.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe kprobe.function("vfs_read") { println($count) }'
check_err "kprobe.function(): \$count without types is a located error" \
	"<input>:1:45: error: no type information for vfs_read (no BTF or DWARF describes it): use \$arg1, \$arg2 ... (raw registers)"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe kprobe.function("no_such_fn") { }'
check_err "kprobe.function() of a function kprobes cannot trace" \
	"<input>:1:23: error: no kernel function \"no_such_fn\" that kprobes can trace (it is not in available_filter_functions)$POINT_HINT"
done_testing
