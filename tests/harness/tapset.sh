#!/bin/sh
# tapset.sh - the tapset as a library (TAP): its generated documentation
# is up to date, the documentation generator and the dump options handle
# every form of comment and declaration (tests/fixtures/tapset), unused
# aliases and functions cost nothing, and ctime()'s range errors.  Lazy
# loading (tests/fixtures/tapset-lazy): a script parses exactly the
# tapset files it needs, what those need comes along, and the results
# are those of parsing everything (KTAP_TAPSET_EAGER=1).
# No root needed.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

FIX=$KTAP_SRCDIR/tests/fixtures/tapset
GEN=$KTAP_SRCDIR/scripts/tapset-doc.sh
KTAP_TRACEFS=$KTAP_SRCDIR/tests/fixtures/tracefs
export KTAP_TRACEFS

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
	! grep -q '^printf:\|^sprint\(f\|ln\|d\|dln\)\?:\|^_' "$TMP/out"; then
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
# MAXERRORS=1: after a first error the session still runs the later
# begin probes (with the default 0 it stops, and they do not, as in stap).
run_ktap "$TMP" "$TMP/out" "$TMP/err" -D MAXERRORS=1 range.stp
sed 's| at /.*/tapset/| at tapset/|' "$TMP/err" >"$TMP/err.n"
cat >"$TMP/want" <<'EOW'
Tue Jan 19 03:14:07 2038
ERROR: Time too far in the future to be converted near identifier 'error' at tapset/ctime.stp:22:3
ERROR: Time too far in the past to be converted near identifier 'error' at tapset/ctime.stp:29:3
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

# ---- lazy loading ----
LZ=$KTAP_SRCDIR/tests/fixtures/tapset-lazy

# pulled ARGS...: run ktap -vv ARGS in $TMP; $TMP/pulled gets the names
# of the library scripts pass 1 parsed, on one line, and $TMP/out the
# output (rc is set).
pulled() {
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -vv "$@"
	sed -n 's|^Pass 1: library script .*/||p' "$TMP/err" | tr '\n' ' ' |
		sed 's/ $//' >"$TMP/pulled"
}

# expect_pulled DESC FILES OUTPUT: the last pulled run printed OUTPUT,
# exited 0 and parsed exactly FILES.
expect_pulled() {
	if [ "$rc" -eq 0 ] && [ "$(cat "$TMP/pulled")" = "$2" ] &&
		[ "$(cat "$TMP/out")" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1 (exit status $rc; parsed: $(cat "$TMP/pulled"); want: $2)"
		diag_file "$TMP/out"
		diag_file "$TMP/err" 40
	fi
}

# 11. A script that uses nothing of the tapset parses none of it, and -v
#     says so (of how many files there are).
ntapset=$(ls "$KTAP_SRCDIR"/tapset/*.stp | wc -l)
run_ktap "$TMP" "$TMP/out" "$TMP/err" -v -p2 -e 'probe begin { exit() }'
if [ "$rc" -eq 0 ] && grep -q "^Pass 1: parsed user script and 0 library scripts (of $ntapset) " "$TMP/err"; then
	ok "probe begin { exit() } parses no tapset file (of $ntapset)"
else
	not_ok "unused tapset parsed (exit status $rc)"
	diag_file "$TMP/err"
fi

# 12. One alias family parses its files and what they call, nothing else.
pulled -p2 -e 'probe tcp.sendmsg { println(size) }'
tcp=$(cat "$TMP/pulled")
pulled -p2 -e 'probe syscall.openat { println(filename) }'
if [ "$tcp" = "inet.stp ip.stp tcp.stp" ] &&
	[ "$(cat "$TMP/pulled")" = "aux_syscalls.stp aux_syscalls_flags.stp aux_syscalls_structs.stp errno.stp syscalls.stp" ]; then
	ok "tcp.sendmsg parses inet, ip and tcp.stp; syscall.openat the syscall files and errno.stp"
else
	not_ok "alias families pull the wrong files: tcp.sendmsg: $tcp; syscall.openat: $(cat "$TMP/pulled")"
	diag_file "$TMP/err" 40
fi

# 13. An alias whose body calls a function of another file, which calls a
#     function of a third: all three come along (and lz_macro.stp, which
#     the scan cannot read, always does).
pulled -I "$LZ" -e 'probe lz.tick { println(v) exit() }'
expect_pulled "alias -> function -> function across three tapset files" \
	"lz_alias.stp lz_funcs.stp lz_macro.stp lz_math.stp" 42

# 14. A tapset global, read by the script or through its function.
pulled -I "$LZ" -e 'probe begin { println(lz_count) exit() }'
first="$rc $(cat "$TMP/out")"
pulled -I "$LZ" -e 'probe begin { lz_bump() println(lz_count) exit() }'
if [ "$first" = "0 3" ]; then
	expect_pulled "a tapset global pulls its file in" "lz_glob.stp lz_macro.stp" 4
else
	not_ok "a tapset global read by the script: $first"
	diag_file "$TMP/err"
fi

# 15. What the scan sees: a function under a conditional, brace
#     alternatives in an alias name, private declarations; and what it
#     does not: names in comments and strings pull nothing.
pulled -I "$LZ" -e 'probe lz.green.shade { println(shade + lz_cond() + lz_use_private()) exit() }'
if [ "$rc" -eq 0 ] && [ "$(cat "$TMP/out")" = 7 ]; then
	pulled -I "$LZ" -e 'probe begin { lz_ghost_line = 1 lz_ghost_block = 2 lz_ghost_hash = 3
		println(lz_ghost_line + lz_ghost_block + lz_ghost_hash) exit() }'
	expect_pulled "conditional, brace-expanded and private names found; commented ones not" \
		"lz_macro.stp" 6
else
	not_ok "lz.green.shade (exit status $rc; parsed: $(cat "$TMP/pulled"))"
	diag_file "$TMP/out"
	diag_file "$TMP/err" 40
fi

# 16. A tapset file with a syntax error costs nothing until it is
#     needed; then its error is reported; -p1 checks the whole tapset.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -I "$LZ" -e 'probe lz.tick { exit() }'
r1=$rc e1=$(cat "$TMP/err")
run_ktap "$TMP" "$TMP/out" "$TMP/err" -I "$LZ" -e 'probe lz.broken { exit() }'
r2=$rc
grep -q 'lz_broken.stp:5:1: error: expected an expression' "$TMP/err" && g2=1 || g2=0
run_ktap "$TMP" "$TMP/out" "$TMP/err3" -p1 -I "$LZ" -e 'probe begin { exit() }'
if [ "$r1" -eq 0 ] && [ -z "$e1" ] && [ "$r2" -eq 1 ] && [ $g2 = 1 ] && [ "$rc" -eq 1 ] &&
	grep -q 'lz_broken.stp:5:1: error' "$TMP/err3"; then
	ok "a broken tapset file: silent unless pulled in, reported when it is and by -p1"
else
	not_ok "broken tapset file (exit statuses $r1 $r2 $rc)"
	echo "# unused: $e1"
	diag_file "$TMP/err"
	diag_file "$TMP/err3"
fi

# 17. A generic syscall .return member calls the tapset's return_str():
#     errno.stp comes along even when no syscall alias file exists.
mkdir "$TMP/errno-only"
cp "$KTAP_SRCDIR/tapset/errno.stp" "$TMP/errno-only/"
KTAP_TAPSET=$TMP/errno-only pulled -p2 -e 'probe syscall.execveat.return { println(retstr) }'
if [ "$rc" -eq 0 ] && [ "$(cat "$TMP/pulled")" = errno.stp ] &&
	grep -q '^return_str:string' "$TMP/out"; then
	ok "syscall.NAME.return without an alias pulls return_str() in"
else
	not_ok "generic syscall return member (exit status $rc; parsed: $(cat "$TMP/pulled"))"
	diag_file "$TMP/err"
fi

# 18. Every example (-p3) and pass-2 golden script (-p2), and the
#     listings of every syscall and every two-part alias: the same
#     output and diagnostics as parsing the whole tapset.
same=0 differ=
for f in "$KTAP_SRCDIR"/examples/*.stp "$KTAP_SRCDIR"/tests/golden/p2/*.stp; do
	case $f in */examples/*) p=-p3 ;; *) p=-p2 ;; esac
	set -- "$p" "$f"
	KTAP_TAPSET_EAGER=1 run_ktap "$TMP" "$TMP/e.out" "$TMP/e.err" "$@"
	re=$rc
	run_ktap "$TMP" "$TMP/l.out" "$TMP/l.err" "$@"
	if [ "$re" = "$rc" ] && cmp -s "$TMP/e.out" "$TMP/l.out" && cmp -s "$TMP/e.err" "$TMP/l.err"; then
		same=$((same + 1))
	else
		differ="$differ ${f##*/}"
	fi
done
for l in 'syscall.*' '*.*' 'vfs.*.*' 'kprocess.*'; do
	KTAP_TAPSET_EAGER=1 run_ktap "$TMP" "$TMP/e.out" "$TMP/e.err" -L "$l"
	re=$rc
	run_ktap "$TMP" "$TMP/l.out" "$TMP/l.err" -L "$l"
	if [ "$re" = "$rc" ] && cmp -s "$TMP/e.out" "$TMP/l.out" && cmp -s "$TMP/e.err" "$TMP/l.err"; then
		same=$((same + 1))
	else
		differ="$differ -L$l"
	fi
done
if [ -z "$differ" ]; then
	ok "lazy and eager loading agree on $same scripts and listings"
else
	not_ok "lazy loading changes the result of:$differ"
	diag_diff "$TMP/e.out" "$TMP/l.out"
	diag_diff "$TMP/e.err" "$TMP/l.err"
fi

# 19. A declaration the scan cannot read (a function named by a macro)
#     makes its file load on every run, so it still works.
pulled -I "$LZ" -e 'probe begin { println(lz_made()) exit() }'
expect_pulled "a function whose name a macro makes still resolves" "lz_macro.stp" 7

# 20. A library macro (.stpm) whose body declares something hides names
#     from the scan: then every tapset file is parsed.  One that only
#     names a probe point ('.function') does not.
mkdir "$TMP/decl" "$TMP/point"
echo '@define lz_declare_global %( global lz_hidden = 11 %)' >"$TMP/decl/m.stpm"
echo '@lz_declare_global' >"$TMP/decl/g.stp"
echo '@define lz_fn_point %( kernel.function("vfs_read") %)' >"$TMP/point/m.stpm"
echo 'probe lz.p = @lz_fn_point { }' >"$TMP/point/p.stp"
pulled -I "$TMP/decl" -e 'probe begin { println(lz_hidden) exit() }'
r1="$rc $(cat "$TMP/out") $(cat "$TMP/pulled" | wc -w)"
pulled -I "$TMP/point" -p2 -e 'probe begin { exit() }'
if [ "$r1" = "0 11 $((ntapset + 1))" ] && [ "$rc" -eq 0 ] && [ -z "$(cat "$TMP/pulled")" ]; then
	ok "a library macro that declares makes pass 1 parse everything; one naming a point does not"
else
	not_ok "declaring library macro: $r1 (want 0 11 $((ntapset + 1))); point macro: $rc, parsed: $(cat "$TMP/pulled")"
	diag_file "$TMP/err"
fi
# 21. stap's argv tapset (argv.stp): argc and argv_1 .. argv_32, "" for
#     an argument not given (SystemTap's lwtools/accept2close-nd.stp reads
#     argv_1 without declaring it; it was an unset local).
argv_prog='probe begin { printf("%d [%s] [%s] [%s]\n", argc, argv_1, argv_2, argv_32) exit() }'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "$argv_prog" a 'b c'
expect_text "argv.stp: argc 2, argv_1 and argv_2, argv_32 empty" "2 [a] [b c] []"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "$argv_prog"
expect_text "argv.stp: no argument, argc 0 and empty argv_N" "0 [] [] []"

# 22. An alias suffix on a tapset alias (lz.reads.return: lz.reads's
#     syscall.read with .return appended) pulls the alias's file in.
pulled -p2 --target "$KTAP_SRCDIR/tests/fixtures/target-6.18" -I "$LZ" \
	-e 'probe lz.reads.return { println(r + retval) }'
case " $(cat "$TMP/pulled") " in *" lz_suffix.stp "*) sfx=1 ;; *) sfx=0 ;; esac
if [ "$rc" -eq 0 ] && [ $sfx = 1 ] &&
	grep -q '^kernel.trace("syscalls:sys_exit_read") /\* <- lz.reads.return \*/' "$TMP/out"; then
	ok "an alias suffix on a tapset alias loads its file (lz.reads.return)"
else
	not_ok "lz.reads.return (exit status $rc; parsed: $(cat "$TMP/pulled"))"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi
done_testing
