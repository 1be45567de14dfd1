#!/bin/sh
# return-entry.sh - target variables in a .return probe are their values
# at the function's entry, as stap saves every $var and $var->chain but
# $return there (stapprobes(3stap): "snapshots taken at the time of
# function entry"): a global the function changes too, and the address
# operand of &@cast().  @var("name") is $name in the places that want an
# address (user_string(@var("p")), @cast(@var("p"), ...), &@var("g")->m).
# Found by SystemTap's systemtap.base/at_var test.  Live: root and uprobe
# events; otherwise the file is skipped.  The probed program is
# tests/tools/ktap-uprobe-target: walk() adds 3 to global_counter (7).
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
T=$KTAP_BUILDDIR/tests/tools/ktap-uprobe-target
TR=/sys/kernel/tracing

require_live "uprobe tests need root (run make check as root)"
[ -w $TR/uprobe_events ] || skip_all "this kernel has no uprobe events"
require_tools "$T" "$TFS_SNAP"

tfs_guard_begin

run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$T"'").function("walk").return {
		printf("%d %d %d %d\n", $global_counter, @entry($global_counter),
		       @var("global_counter"), $global_counter == @entry($global_counter))
	}
	probe process("'"$T"'").function("walk") { printf("%d\n", $global_counter) }' -c "$T"
printf '%s\n' "7" "7 7 7 1" >"$TMP/want"
check "a global in .return: its value at the entry (7), not the return's (10)"

run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$T"'").function("walk").return {
		printf("%d %d %d\n", &@cast($s, "struct shape")->origin - $s,
		       &@cast(@entry($s), "struct shape")->origin - @entry($s),
		       &@cast($s, "struct shape")->origin == &@cast(@entry($s), "struct shape")->origin)
	}' -c "$T"
printf '%s\n' "8 8 1" >"$TMP/want"
check "&@cast(\$p, \"T\")->m in .return: the entry's \$p plus m's offset, no read"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e \
	'probe process("'"$T"'").function("walk").return {
		println(&@cast($s, "struct shape")->corner->x) }'
check_err_has "&@cast(\$p)->a->b in .return: an error, the pointer would be read at the return" \
	"'&' of a member reached through a pointer needs the pointer read at the return"

run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$T"'").function("handle") {
		printf("%s %d %d %s\n", user_string(@var("msg")), @cast(@var("r"), "struct req")->id,
		       &@var("r")->in->y - @var("r"), kernel_string(@var("r")->name)); exit() }' -c "$T"
printf '%s\n' "hello 42 24 alpha" >"$TMP/want"
check "@var(\"p\") where an address is wanted: user_string(), @cast(), & (as \$p)"

tfs_guard_end "tracefs unchanged: instances and uprobe events removed"
done_testing
