#!/bin/sh
# plt-plan.sh - process("PATH").plt("NAME") plans (TAP), checked against
# objdump's reading of the same programs: one uprobe per PLT stub at the
# stub's file offset (objdump -d -F names each stub NAME@plt), for a
# lazily bound PIE (.plt, .plt.got) and a non-PIE bound at load through
# IBT's .plt.sec (addresses differ from offsets there); globs, .return,
# -l, and the errors: no match, a target variable other than $$name.
# Nothing runs, so no root is needed.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
P=$KTAP_BUILDDIR/tests/tools/ktap-plt
PI=$KTAP_BUILDDIR/tests/tools/ktap-plt-ibt

require_tools "$P" "$PI" objdump

# stubs FILE: "NAME 0xOFFSET" of every stub objdump names NAME@plt.
stubs() {
	objdump -d -F -j .plt -j .plt.sec -j .plt.got "$1" 2>/dev/null |
		sed -n 's/^[0-9a-f]* <\(.*\)@plt> (File Offset: \(0x[0-9a-f]*\)):$/\1 \2/p' | sort
}

# planned FILE: "NAME 0xOFFSET" of each uprobe of FILE in $TMP/out.
planned() {
	sed -n "s|^write uprobe_events 'p:ktap_\$PID/\(.*\)_[0-9]* $1:\(0x[0-9a-f]*\)'\$|\1 \2|p" \
		"$TMP/out" | sort
}

for f in "$P" "$PI"; do
	name=${f##*/}
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e \
		'probe process("'"$f"'").plt { println($$name) }'
	stubs "$f" >"$TMP/want"
	planned "$f" >"$TMP/got"
	if [ ! -s "$TMP/want" ]; then
		not_ok "$name: objdump names no @plt stub"
	else
		cp "$TMP/got" "$TMP/out"
		check "$name: .plt is a uprobe on every stub objdump shows, at its file offset"
	fi
done

# a glob, and .return: uretprobes on the same stubs
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e \
	'probe process("'"$PI"'").plt("get*").return { println($$name) }'
grep "^write uprobe_events" "$TMP/out" | sed "s|$PI|PROG|" >"$TMP/got"
cp "$TMP/got" "$TMP/out"
stubs "$PI" | awk '/^get/ { printf "write uprobe_events '\''r:ktap_$PID/%s_%d PROG:%s'\''\n", $1, n++, $2 }' >"$TMP/want"
check ".plt(\"get*\").return: uretprobes on getpid and getppid's stubs"

# -l lists each stub's point as pp() names it
run_ktap "$TMP" "$TMP/out" "$TMP/err" -l 'process("'"$P"'").plt("get*")'
printf '%s\n' "process(\"$P\").plt(\"getpid\")" "process(\"$P\").plt(\"getppid\")" >"$TMP/want"
sort "$TMP/out" >"$TMP/got"
cp "$TMP/got" "$TMP/out"
check "-l: process(\"PATH\").plt(\"NAME\") per stub"

# errors, and an optional point that resolves
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe process("'"$P"'").plt("nosuch*") { }'
check_err "a glob that matches no stub is an error" \
	"<input>:1:$((23 + ${#P})): error: no PLT entry of $P matches \"nosuch*\"$POINT_HINT"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe process("'"$P"'").plt("puts") { println($s) }'
check_err "a target variable other than \$\$name is an error" \
	"<input>:1:$((41 + ${#P})): error: target variable '\$s' is not available in a .plt() probe: a PLT stub has no debug information (only \$\$name, the function's name)"
# a static program (Debian's busybox is one) has stubs for its ifuncs only
B=$(command -v busybox 2>/dev/null || :)
if [ -n "$B" ] && B=$(readlink -f "$B") && ! readelf -d "$B" 2>/dev/null | grep -q NEEDED; then
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe process("'"$B"'").plt { }'
	check_err "a static program: it imports nothing through a PLT" \
		"<input>:1:7: error: $B: it imports no function through a PLT (a static program, or one linked with -fno-plt)$POINT_HINT"
else
	skip "a static program's PLT" "no static busybox here"
fi
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe process("'"$P"'").plt("puts") ? { } probe begin { exit() }'
if [ "$rc" -eq 0 ] && grep -q "puts_" "$TMP/out"; then
	ok "an optional point resolves like a plain one"
else
	not_ok "optional plt point (exit status $rc)"
	diag_file "$TMP/err"
fi

done_testing
