#!/bin/sh
# inline-scopes.sh - variables at an SDT marker inside inlined code
# (stap's systemtap.base/const_value, built -O2): the marker's scopes are
# the inlined copy's, its frame the function it is inlined into; a
# constant GCC keeps only in the abstract function (DW_AT_const_value)
# is found there; $argc is a variable, not a marker argument $argN.
# Live: root, uprobe events, gcc and <sys/sdt.h>; otherwise skipped.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

TR=/sys/kernel/tracing
require_live "uprobe tests need root (run make check as root)"
[ -w $TR/uprobe_events ] || skip_all "this kernel has no uprobe events"
require_tools "$TFS_SNAP"
CC=${CC:-cc}
command -v "$CC" >/dev/null 2>&1 || skip_all "no C compiler ($CC) to build the probed program"

cat >"$TMP/t.c" <<'EOC'
#include <sys/sdt.h>

struct pair { int a; long b; };

static int __attribute__((noinline)) mul(int a, long b)
{
	return a * (int)b;
}

/* inlined into main(): the marker is in its copy */
static inline int combine(int (*f)(int, long), int n)
{
	const struct pair k = { 2, 21 };	/* a 16-byte DW_AT_const_value */
	const int small = 5;			/* in the abstract DIE only */

	STAP_PROBE1(t, inner, n);
	return f(k.a, k.b) + small + n;
}

int main(int argc, char **argv)
{
	(void)argv;
	return combine(mul, argc) - 48;
}
EOC
"$CC" -g -O2 -o "$TMP/t" "$TMP/t.c" 2>"$TMP/cc.err" ||
	skip_all "cannot build the probed program (no <sys/sdt.h>?)"

tfs_guard_begin

run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$TMP/t"'").mark("inner") { printf("%d %d %d\n", $n, $small, $arg1) }' \
	-c "$TMP/t a b"
expect_text 'a marker in an inlined copy: its parameter, a constant of the abstract DIE, $arg1' "3 5 3"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e \
	'probe process("'"$TMP/t"'").mark("inner") { println($argc) }'
check_err_has '$argc at a marker: a variable (main()'"'"'s, not in the copy'"'"'s scope), not $argN' \
	"error: no variable 'argc' in scope at this address"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e \
	'probe process("'"$TMP/t"'").mark("inner") { println($k->a) }'
check_err_has 'a struct constant (DW_AT_const_value block): one error that says so' \
	"its constant value is 16 bytes in the DWARF"

tfs_guard_end "tracefs unchanged: instances and uprobe events removed"
done_testing
