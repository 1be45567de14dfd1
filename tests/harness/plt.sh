#!/bin/sh
# plt.sh - process("PATH").plt("NAME") probes on this machine's kernel
# (TAP): exact call counts per imported function through the PLT, lazily
# bound (.plt, .plt.got) and bound at load through IBT's .plt.sec (stubs
# starting with endbr64); $$name, ppfunc() and pp(); .plt.return.  Root
# and uprobe events only; otherwise the whole file is skipped.  The
# probed program is tests/tools/ktap-plt N: getpid() and puts() N times,
# getppid() once.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
P=$KTAP_BUILDDIR/tests/tools/ktap-plt
PI=$KTAP_BUILDDIR/tests/tools/ktap-plt-ibt
TR=/sys/kernel/tracing

require_live "PLT probe tests need root (run make check as root)"
[ -w $TR/uprobe_events ] || skip_all "this kernel has no uprobe events"
require_tools "$P" "$PI" "$TFS_SNAP"

tfs_guard_begin

for f in "$P" "$PI"; do
	name=${f##*/}
	run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
		'global c
		 probe process("'"$f"'").plt { c[$$name]++ }
		 probe end { foreach (n in c) if (n =~ "^(getpid|puts|getppid)$") printf("%s %d\n", n, c[n]) }' \
		-c "$f 1000"
	sort "$TMP/out" >"$TMP/got"
	cp "$TMP/got" "$TMP/out"
	printf '%s\n' "getpid 1000" "getppid 1" "puts 1000" >"$TMP/want"
	check "$name: calls counted per \$\$name, exactly"
done

run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'global c
	 probe process("'"$P"'").plt("get*") { c[ppfunc(), pp()]++ }
	 probe process("'"$P"'").plt("get*").return { c[$$name, "return"]++ }
	 probe end { foreach ([f, p+] in c) printf("%s %s %d\n", f, p, c[f, p]) }' \
	-c "$P 7"
printf '%s\n' "getpid process(\"$P\").plt(\"getpid\") 7" \
	"getppid process(\"$P\").plt(\"getppid\") 1" \
	"getpid return 7" "getppid return 1" | sort -k2,2 >"$TMP/want"
sort -k2,2 "$TMP/out" >"$TMP/got"
cp "$TMP/got" "$TMP/out"
sort -k2,2 "$TMP/want" >"$TMP/got"
cp "$TMP/got" "$TMP/want"
check "ppfunc() and pp() name the stub's function; .return fires as often"

tfs_guard_end "tracefs is as it was"

done_testing
