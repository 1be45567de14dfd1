#!/bin/sh
# tapset.sh - the tapset as a library (TAP): its generated documentation
# is up to date, the documentation generator and the dump options handle
# every form of comment and declaration (tests/fixtures/tapset), unused
# aliases and functions cost nothing, and ctime()'s range errors.
# No root needed.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

FIX=$KTAP_SRCDIR/tests/fixtures/tapset
GEN=$KTAP_SRCDIR/scripts/tapset-doc.sh
KTAP_TRACEFS=$KTAP_SRCDIR/tests/fixtures/tracefs
export KTAP_TRACEFS

plan 10

# same_file DESC WANT GOT [STDERR]: ok when the two files are equal.
same_file() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1 (expected vs actual)"
		diag_diff "$2" "$3"
		[ -n "${4:-}" ] && diag_file "$4"
	fi
}

# dump_fixture DESC OPTION HIDDEN: `ktap -I FIX OPTION` exits 0, prints
# no line matching HIDDEN, and its lines about the fixture (tfx...) are
# exactly $TMP/want.
dump_fixture() {
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -I "$FIX" "$2"
	grep '^tfx' "$TMP/out" >"$TMP/got" || :
	if grep -q "$3" "$TMP/out"; then
		not_ok "$1: names that should be hidden are listed"
		diag_file "$TMP/out"
	else
		expect_same "$1" "$TMP/want" "$TMP/got"
	fi
}

# 1. doc/tapset.md is what the generator makes of tapset/ now.
sh "$GEN" "$KTAP_SRCDIR/tapset" >"$TMP/tapset.md"
if cmp -s "$KTAP_SRCDIR/doc/tapset.md" "$TMP/tapset.md"; then
	ok "doc/tapset.md is up to date with tapset/*.stp"
else
	not_ok "doc/tapset.md is out of date: run make tapset-doc"
	diag_diff "$KTAP_SRCDIR/doc/tapset.md" "$TMP/tapset.md"
fi

# 2. The generator on the fixture: titles over two lines, files without
#    a title, sfunction/function/probe blocks, continued @ lines, pipes
#    in table cells, indented examples, multi-line alias declarations,
#    undocumented and private declarations left out.
sh "$GEN" "$FIX" | sed -n '/^## /,$p' >"$TMP/fix.md"
same_file "tapset-doc.sh on tests/fixtures/tapset" "$FIX/expected.md" "$TMP/fix.md"

# 3. --dump-functions: the fixture's public functions, typed, sorted by
#    NAME:TYPE; '_' and private ones hidden.
cat >"$TMP/want" <<'EOW'
tfx_add:long (a:long, b:long)
tfx_broken:long ()
tfx_name:unknown (x:unknown)
tfx_void:unknown (s:string, n:long)
EOW
dump_fixture "--dump-functions: the fixture's public functions" --dump-functions 'hidden\|private'

# 4. ... with the builtins (generic parameter names) and the tapset's own
#    functions, but not the print family, all sorted by NAME:TYPE.
run_ktap "$TMP" "$TMP/out" "$TMP/err" --dump-functions
sed 's/ (.*//' "$TMP/out" >"$TMP/keys"
if [ "$rc" -eq 0 ] && LC_ALL=C sort -c "$TMP/keys" 2>/dev/null &&
	grep -qx 'substr:string (arg1:string, arg2:long, arg3:long)' "$TMP/out" &&
	grep -qx 'pid:long ()' "$TMP/out" &&
	grep -qx 'ctime:string (epochsecs:long)' "$TMP/out" &&
	grep -qx 'ansi_set_color3:unknown (fg:long, bg:long, attr:long)' "$TMP/out" &&
	grep -qx 'signal_str:string (num:long)' "$TMP/out" &&
	! grep -q '^printf:\|^sprint\|^_' "$TMP/out"; then
	ok "--dump-functions: builtins and tapset functions, sorted, no print family ($(wc -l <"$TMP/out") lines)"
else
	not_ok "--dump-functions of the tapset (exit status $rc)"
	diag_file "$TMP/out" 80
	diag_file "$TMP/err"
fi

# 5. --dump-probe-aliases: exactly the fixture's public aliases, with
#    their '!' and '?' points, one line per name, sorted.
cat >"$TMP/want" <<'EOW'
tfx.a = begin
tfx.b = begin
tfx.broken = kernel.trace("nosuch:event")
tfx.either = tfx.tick!, timer.s(1)?, never
tfx.tick = timer.ms(100)
EOW
dump_fixture "--dump-probe-aliases: the fixture's public aliases" --dump-probe-aliases '^_'

# 6. ... and the tapset's: the tracepoint aliases and the '!' fallbacks.
run_ktap "$TMP" "$TMP/out" "$TMP/err" --dump-probe-aliases
if [ "$rc" -eq 0 ] &&
	grep -qx 'scheduler.ctxswitch = kernel.trace("sched:sched_switch")' "$TMP/out" &&
	grep -qx 'kprocess.exit = __kprocess.exit.kp!, __kprocess.exit.tp' "$TMP/out" &&
	grep -qx 'signal.deliver = signal.handle' "$TMP/out" &&
	LC_ALL=C sort -c "$TMP/out" 2>/dev/null; then
	ok "--dump-probe-aliases: the tapset's aliases, sorted ($(wc -l <"$TMP/out") lines)"
else
	not_ok "--dump-probe-aliases of the tapset (exit status $rc)"
	diag_file "$TMP/out" 60
	diag_file "$TMP/err"
fi

# 7. Unused, an alias on a tracepoint this kernel lacks and a function
#    that cannot compile cost nothing: the same -p2 and -p3 with and
#    without the fixture library, and no tapset function in the program.
prog='probe begin { println(ctime(0)) exit() }'
run_ktap "$TMP" "$TMP/a" "$TMP/err" -p3 -e "$prog"
rc1=$rc
run_ktap "$TMP" "$TMP/b" "$TMP/err2" -p3 -I "$FIX" -e "$prog"
run_ktap "$TMP" "$TMP/p2" "$TMP/err3" -p2 -I "$FIX" -e "$prog"
if [ "$rc1" -eq 0 ] && [ "$rc" -eq 0 ] && cmp -s "$TMP/a" "$TMP/b" &&
	! grep -q 'events/\|tfx\|_signal' "$TMP/b" &&
	[ "$(sed -n '/^# functions/,/^# probes/p' "$TMP/p2" | grep -c '^function\|^ctime')" -eq 1 ]; then
	ok "unused aliases and functions (one unresolvable) change nothing; only ctime() is compiled"
else
	not_ok "unused library declarations are not free"
	diag_diff "$TMP/a" "$TMP/b"
	diag_file "$TMP/p2" 40
	diag_file "$TMP/err2"
fi

# 8. ... and used, they fail as they should, at their own location.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -I "$FIX" -e 'probe tfx.broken { println(v) }'
if [ "$rc" -eq 1 ] && grep -q 'tfx_a.stp:.*no tracepoint matches "nosuch:event"' "$TMP/err"; then
	ok "a used alias on a missing tracepoint is an error at the alias"
else
	not_ok "used broken alias (exit status $rc)"
	diag_file "$TMP/err"
fi

# 9. ctime() beyond a 32-bit time_t is a run-time error (two of them,
#    each ending its handler), as in stap.
cat >"$TMP/range.stp" <<'EOS'
probe begin { println(ctime(2147483647)) println(ctime(2147483648)) println("no") }
probe begin(1) { println(ctime(-2147483649)) println("no") }
probe begin(2) { exit() }
EOS
run_ktap "$TMP" "$TMP/out" "$TMP/err" range.stp
sed 's| at /.*/tapset/| at tapset/|' "$TMP/err" >"$TMP/err.n"
cat >"$TMP/want" <<'EOW'
Tue Jan 19 03:14:07 2038
ERROR: Time too far in the future to be converted near identifier 'error' at tapset/ctime.stp:18:3
ERROR: Time too far in the past to be converted near identifier 'error' at tapset/ctime.stp:20:3
WARNING: Number of errors: 2, skipped probes: 0
EOW
cat "$TMP/out" "$TMP/err.n" >"$TMP/got"
if [ "$rc" -eq 1 ]; then
	same_file "ctime() out of range: run-time errors" "$TMP/want" "$TMP/got"
else
	not_ok "ctime() out of range (exit status $rc, expected 1)"
	diag_file "$TMP/got"
fi

# 10. A script's own function takes precedence over the tapset's of the
#     same name (stap pulls a tapset file in only for names the script
#     leaves unresolved).
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'function ctime(x) { return "mine" } probe begin { println(ctime(0)); exit() }'
if [ "$rc" -eq 0 ] && [ "$(cat "$TMP/out")" = mine ]; then
	ok "a script function named like a tapset function replaces it"
else
	not_ok "script function over a tapset function (exit status $rc)"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi
