#!/bin/sh
# uprobe.sh - process("PATH").function("NAME") probes on this machine's
# kernel (TAP): target variables read from DWARF as uprobe fetch
# arguments, return values, raw $argN on a shared library without debug
# information, the errors of a wrong probe, and tracefs left as found.
# Root and uprobe events only; otherwise the whole file is skipped.
# The probed programs are tests/tools/ktap-uprobe-target (-g -O0) and
# tests/tools/ktap-uprobe-opt (-g -O2: registers, location lists, inlined copies,
# optimized-out variables, structs passed by value in DWARF pieces).
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
T=$KTAP_BUILDDIR/tests/tools/ktap-uprobe-target
O=$KTAP_BUILDDIR/tests/tools/ktap-uprobe-opt
TR=/sys/kernel/tracing

require_live "uprobe tests need root (run make check as root)"
[ -w $TR/uprobe_events ] || skip_all "this kernel has no uprobe events"
require_tools "$T" "$O" "$KTAP_BUILDDIR/tests/tools/ktap-cxx" "$KTAP_BUILDDIR/tests/tools/ktap-args" "$TFS_SNAP"
LIBC=$(ldd "$T" | sed -n 's/.*libc\.so\.6 => \([^ ]*\) .*/\1/p')

tfs_guard_begin

# check DESC (lib.sh): $TMP/out against $TMP/want, exit status 0.  (The
# script's output goes to $TMP/out with -o; the probed program's to $TMP/child.)

entry='probe process("'"$T"'").function("handle") {
	printf("id=%d name=%s n=%d msg=%s in.y=%d ip->x=%d tag=%s tag[1]=%d flags=%d mode=%d\n",
	       $r->id, $r->name, $n, $msg, $r->in->y, $r->ip->x, $r->tag, $r->tag[1],
	       $r->flags, $r->mode)
}'
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e "$entry" -c "$T"
cat >"$TMP/want" <<'EOW'
id=42 name=alpha n=0 msg=hello in.y=50 ip->x=7 tag=tagged tag[1]=97 flags=5 mode=17
id=42 name=alpha n=1 msg=hello in.y=50 ip->x=7 tag=tagged tag[1]=97 flags=5 mode=17
id=42 name=alpha n=2 msg=hello in.y=50 ip->x=7 tag=tagged tag[1]=97 flags=5 mode=17
EOW
check "entry: ints, strings, nested pointers, embedded struct, arrays, bitfields"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e "$entry"
sed -n "s|^write uprobe_events 'p:ktap_\$PID/handle_0 $T:0x[0-9a-f]* \(.*\)'\$|\1|p" "$TMP/out" >"$TMP/args"
printf '%s\n' 'r_id=+0(%di):s32 r_name=+0(+8(%di)):string n=%si:s32 msg=+0(%dx):string r_in_y=+24(%di):s64 r_ip_x=+0(+32(%di)):s32 r_tag=+40(%di):string r_tag_1=+41(%di):s8 r_flags=+48(%di):b3@0/32 r_mode=+48(%di):b5@3/32' >"$TMP/want"
cp "$TMP/args" "$TMP/out"
check "-p3: the uprobe's fetch arguments, offsets from DWARF"

want_off=$(readelf -sW "$T" | awk '$8 == "handle" { print $2 }')
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e "$entry"
got_off=$(sed -n "s|^write uprobe_events 'p:ktap_\$PID/handle_0 $T:0x\([0-9a-f]*\) .*|\1|p" "$TMP/out")
# A PIE's first PT_LOAD maps offset 0 at address 0: offset = symbol value.
if [ -n "$got_off" ] && [ $((0x$got_off)) -eq $((0x$want_off)) ]; then
	ok "the probe's file offset is handle's symbol value (0x$got_off)"
else
	not_ok "file offset 0x$got_off, readelf says 0x$want_off"
fi

run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$T"'").function("handle") { printf("%s %d %d\n", user_string($msg), user_int($r), user_char($r->name)) }' -c "$T"
printf '%s\n' "hello 42 97" "hello 42 97" "hello 42 97" >"$TMP/want"
check "user_string(), user_int(), user_char() become fetches of user memory"

# stap's other readers: the _quoted, _n and _warn strings, user_ulong()
# and user_ushort(); a char * passed to a function's long parameter, or
# formatted with %x, is the pointer (a string only where ktap prints it).
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'function q:string(addr:long) { return addr ? user_string_quoted(addr) : "null" }
	function n(p) { return user_string_n(p, 2) }
	probe process("'"$T"'").function("handle") {
		printf("%s %s %s %d %d %d %d %d\n", q($msg), n($msg), user_string_warn($msg),
		       kernel_string_quoted($r->name) == "\"alpha\"", user_ulong(&$r->id),
		       user_ushort(&$r->id), sprintf("%x", $msg) == sprintf("%x", $msg + 0),
		       $msg > 4096); exit() }' -c "$T"
printf '%s\n' '"hello" he hello 1 42 42 1 1' >"$TMP/want"
check "user_string_quoted/_n/_warn, user_ulong/ushort; a char * to a long parameter and %x is its pointer"

# stap's reader forms with an error text, _nofault, _n_quoted (up to N
# bytes read; with OUT, "..." after a text cut short) and
# kernel_or_user_string_quoted(); a NULL address gives the error text,
# "(null)" or "0x0" as each of stap's does.
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$T"'").function("handle") {
		printf("[%s] [%s] [%s] [%s] [%s] [%s] [%s]\n", user_string($msg, "e"),
		       user_string_n($msg, 3, "e"), user_string_nofault($msg),
		       user_string_n_quoted($msg, 3), user_string_n_quoted($msg, 20, 6),
		       kernel_or_user_string_quoted($msg), user_string_n_nofault($msg, 2)) }
	probe process("'"$T"'").function("walk") {
		printf("[%s] [%s] [%s] [%s]\n", user_string($s->corner, "none"),
		       user_string_n_quoted($s->corner, 4), user_string_quoted($s->corner),
		       user_string_n($s->corner, 2, "err")); exit() }' -c "$T"
printf '%s\n' '[hello] [hel] [hello] ["hel"] ["h"...] ["hello"] [he]' \
	'[hello] [hel] [hello] ["hel"] ["h"...] ["hello"] [he]' \
	'[hello] [hel] [hello] ["hel"] ["h"...] ["hello"] [he]' \
	'[none] [(null)] [0x0] [err]' >"$TMP/want"
check "user_string(A, ERR), _n(A, N, ERR), _nofault, _n_quoted(A, N[, OUT]), kernel_or_user_string_quoted; NULL addresses"

# stap's older names of the same forms (user_string2, user_string_n2,
# _n2_quoted) and the _warn ones (MSG for a NULL address; the warning
# stap adds on a fault is not told).
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$T"'").function("walk") {
		printf("[%s] [%s] [%s] [%s] [%s] [%s]\n", user_string2($s->corner, "none"),
		       user_string_n2($s->corner, 2, "err"), user_string_n2_quoted($s->corner, 4, 10),
		       user_string_warn($s->corner, "w"), user_string2_warn($s->corner, "w2"),
		       user_string_n_warn($s->corner, 3, "w3")); exit() }
	probe process("'"$T"'").function("handle") {
		printf("[%s] [%s] [%s]\n", user_string2($msg, "e"), user_string_n_warn($msg, 2),
		       user_string_n2_quoted($msg, 20, 6)) }' -c "$T"
printf '%s\n' '[hello] [he] ["h"...]' '[hello] [he] ["h"...]' '[hello] [he] ["h"...]' \
	'[none] [err] [(null)] [w] [w2] [w3]' >"$TMP/want"
check "user_string2, user_string_n2, user_string_n2_quoted, the _warn forms; NULL addresses"

# register(NAME), u_register(NAME): the probe's pt_regs, recorded with the
# event: rsi is handle's n (0, 1, 2), rdi its first argument, rip the
# probed address (handle's file offset 0x1190 in its page), rax at the
# return its value.
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe begin { asmlinkage(); fastcall(); println(registers_valid()) }
	probe process("'"$T"'").function("handle") {
		printf("%d %d %d %x %d\n", register("rsi"), u_register("esi"),
		       register("rdi") == pointer_arg(1), register("rip") & 0xfff,
		       registers_valid()) }
	probe process("'"$T"'").function("handle").return {
		printf("%d\n", register("rax") == returnval()) }' -c "$T"
printf '%s\n' 0 '0 0 1 190 1' 1 '1 1 1 190 1' 1 '2 2 1 190 1' 1 >"$TMP/want"
check "register(), u_register(): the probed function's registers at entry and return; registers_valid() 0 in begin, 1 there"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e \
	'probe process("'"$T"'").function("handle") { println(register("xyz"), u_register(1)) }'
if [ "$rc" -eq 1 ] && grep -q 'error: register("xyz"): no such register' "$TMP/err" &&
	grep -q 'error: u_register() takes a literal register name' "$TMP/err"; then
	ok "register() of an unknown name, of a number: located errors"
else
	not_ok "register() errors (exit status $rc)"
	diag_file "$TMP/err"
fi

# A process path with wildcards: each ELF file it matches (ktap-plt and
# ktap-plt-ibt, not ktap-plt.c), in order; a glob matching nothing is an
# error.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e \
	'probe process("'"$(dirname "$T")"'/ktap-plt*").function("main") { }'
if [ "$rc" -eq 0 ] && [ "$(grep -c '^process(".*/ktap-plt\(-ibt\)\?").function("main") /\* <- ' "$TMP/out")" -eq 2 ] &&
	grep -q '/ktap-plt").function' "$TMP/out" && grep -q '/ktap-plt-ibt").function' "$TMP/out"; then
	ok "process(\"DIR/ktap-plt*\"): a point for each ELF file the glob matches"
else
	not_ok "process() glob (exit status $rc)"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe process("/nonexistent/lib*.so").function("f") { }'
if [ "$rc" -eq 1 ] && grep -q 'error: no file matches "/nonexistent/lib\*.so"' "$TMP/err"; then
	ok "process() glob matching nothing: one located error"
else
	not_ok "process() glob matching nothing (exit status $rc)"
	diag_file "$TMP/err"
fi

# Source lines of a user address (stap's usymfileline() family), from the
# program's DWARF line table: handle's first line (72-76); a kernel
# address, whose line table ktap does not have, is its hex.
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$T"'").function("handle") {
		printf("%s|%s|%s|%s\n", usymfileline(uaddr()), usymfile(uaddr()), usymline(uaddr()),
		       symfileline(0xffffffff81000000)); exit() }' -c "$T"
if [ "$rc" -eq 0 ] && grep -qE '^(.*/)?ktap-uprobe-target\.c:7[2-6]\|(.*/)?ktap-uprobe-target\.c\|7[2-6]\|0xffffffff81000000$' "$TMP/out" &&
	[ "$(cut -d'|' -f1 "$TMP/out")" = "$(cut -d'|' -f2 "$TMP/out"):$(cut -d'|' -f3 "$TMP/out")" ]; then
	ok "usymfileline(), usymfile(), usymline() from the DWARF line table; symfileline() of a kernel address is its hex"
else
	not_ok "source lines of uaddr() (exit status $rc)"
	diag_file "$TMP/out"; diag_file "$TMP/err"
fi

# An array-typed target variable is its address, as in stap: user_string()
# of it and of it plus 1, '&', arithmetic, comparison with 0; alone it
# still prints as a string.  An unsigned char * is a number.
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$T"'").function("handle") {
		printf("%s|%s|%s|%d|%d|%d|%d|%d|%d\n", $r->tag, user_string($r->tag),
		       user_string($r->tag + 1), &$r->tag - $r, $r->tag - $r, $r->tag == 0,
		       $r->tag != 0, $r->bytes - $r, $msg != 0); exit() }' -c "$T"
printf '%s\n' "tagged|tagged|agged|40|40|0|1|40|1" >"$TMP/want"
check "arrays are addresses: user_string(\$r->tag + 1), &, -, == 0; unsigned char * is a number"

run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$T"'").function("handle"), process("'"$T"'").function("walk").return {
		println(probefunc()) }' -c "$T"
printf '%s\n' handle handle handle walk >"$TMP/want"
check "probefunc(): the probed function, at entry and return"

run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$T"'").function("handle") {
		printf("%d %d %s\n", @cast($r, "struct req")->id, @cast($r->ip, "struct inner")->x,
		       @cast($arg1, "struct req")->tag); exit() }' -c "$T"
printf '%s\n' "42 7 tagged" >"$TMP/want"
check "@cast(): a parameter, a member and a raw register read as DWARF structs"

run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$T"'").function("handle").return {
		printf("n=%d msg=%s y=%d -> %d\n", @entry($n), @entry($msg), @entry($r->in->y), $return) }' -c "$T"
printf '%s\n' "n=0 msg=hello y=50 -> 487" "n=1 msg=hello y=50 -> 488" "n=2 msg=hello y=50 -> 489" >"$TMP/want"
check "@entry(): entry values paired with each return"

# process.function() without a path is the target's executable (-c's
# first word), and process("NAME") a file in the working directory when
# no directory of PATH has it, as stap resolves them.
run_ktap "$(dirname "$T")" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process.function("fact").return { if ($n == 4) printf("a %d\n", $return) }
	 probe process("ktap-uprobe-target").function("fact") { if ($n == 4) println("b") }' \
	-c "./ktap-uprobe-target"
printf '%s\n' "b" "a 24" >"$TMP/want"
check "process.function() of -c's program; process(\"NAME\") in the working directory"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe process.function("fact") { }'
check_err "process.function() without -c or -x: one located error" \
	"<input>:1:7: error: process.function without a path probes the target process's executable: give -c CMD or -x PID, or write process(\"PATH\").function"

# A parameter read in a .return probe is its value at the entry, as in
# stap (an implicit @entry(): the return's registers no longer hold it);
# @defined() of it is 1.
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$T"'").function("handle").return {
		printf("n=%d msg=%s y=%d %d -> %d\n", $n, user_string($msg), $r->in->y,
		       @defined($n), $return) }' -c "$T"
printf '%s\n' "n=0 msg=hello y=50 1 -> 487" "n=1 msg=hello y=50 1 -> 488" "n=2 msg=hello y=50 1 -> 489" >"$TMP/want"
check "\$param in .return: its value at the entry (stap's), @defined() 1"

# @entry(EXPR) of any expression: evaluated once, at the entry, by a
# companion entry probe (globals, tid(), execname() as they were then).
anyentry='global g = 5
probe process("'"$T"'").function("handle").return {
	printf("%d %d %s %s %d\n", @entry(tid()) == tid(), $return - @entry($n + $r->in->y * 2),
	       @entry(execname()), @entry($msg . "!"), @entry(g++))
}
probe end { printf("g=%d\n", g) }'
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e "$anyentry" -c "$T"
printf '%s\n' "1 387 ktap-uprobe-tar hello! 5" "1 387 ktap-uprobe-tar hello! 6" \
	"1 387 ktap-uprobe-tar hello! 7" "g=8" >"$TMP/want"
check "@entry(EXPR): arithmetic on parameters and members, tid(), execname(), a string, a global"

# The plan: the entry event fetches the target variables; an entry probe
# computes the values (epush) that the return probe reads (entry N).
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e "$anyentry"
sed -e "s|$T:0x[0-9a-f]*|T|" -e '/^write instances/d' -e '/^mkdir/d' \
	-e 's/bi  *[0-9]* n=/bi n=/' "$TMP/out" >"$TMP/p3"
cp "$TMP/p3" "$TMP/out"
cat >"$TMP/want" <<EOW
# kernel: tracefs writes, in order
write uprobe_events 'r:ktap_\$PID/handle_0 T ret=%ax:s64'
write uprobe_events 'p:ktap_\$PID/handle_0e T n=%si:s32 r_in_y=+24(%di):s64 msg=+0(%dx):string'
# user space
global 0 g
probe 0 process("$T").function("handle").return /* event ktap_\$PID:handle_0, 5 @entry values, 0 slots */
  # field 0: ret
     0  tick    
     1  entry    0
     2  bi n=0	; tid
     3  eq      
     4  field    0
     5  entry    1
     6  sub     
     7  entry    2
     8  entry    3
     9  entry    4
    10  printf   0 n=5
    11  pop     
    12  next    
probe 1 end /* end, 0 slots */
     0  tick    
     1  ldg      0	; g
     2  printf   1 n=1
     3  pop     
     4  next    
probe 2 process("$T").function("handle").return /* event ktap_\$PID:handle_0e, @entry values of probe 0, 0 slots */
  # field 0: n
  # field 1: r_in_y
  # field 2: msg
     0  bi n=0	; tid
     1  field    0
     2  field    1
     3  pushi    2
     4  mul     
     5  add     
     6  bi n=0	; execname
     7  field    2
     8  pushc    0	; "!"
     9  cat     
    10  pushi    1
    11  opg      0 256	; g
    12  epush    5
    13  next    
EOW
check "-p3: the entry probe computes the @entry values, the return probe reads them"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -e \
	'probe process("'"$T"'").function("handle").return { x = 1; print(@entry(x) + @entry(@entry($n)) + @entry($return)) }'
if [ "$rc" -eq 1 ] && [ "$(grep -c error: "$TMP/err")" -eq 3 ] &&
	grep -q "error: local variable 'x' does not exist at the function's entry, where @entry() is evaluated" "$TMP/err" &&
	grep -q "error: @entry() inside @entry(): the operand is already evaluated at the function's entry" "$TMP/err" &&
	grep -q "error: \$return does not exist yet at the function's entry, where @entry() is evaluated" "$TMP/err"; then
	ok "@entry() of a local, of @entry(), of \$return: three located errors"
else
	not_ok "@entry() errors (exit status $rc)"
	diag_file "$TMP/err"
fi

run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$T"'").function("fact").return { printf("fact(%d)=%d depth %d\n", @entry($n), $return, @entry($n)) }' -c "$T"
printf '%s\n' "fact(1)=1 depth 1" "fact(2)=2 depth 2" "fact(3)=6 depth 3" "fact(4)=24 depth 4" >"$TMP/want"
check "@entry() in a recursive function: each return pairs with its own entry"

# Latency from the entry's clock: the event times, so exact; nap() sleeps 20 ms.
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'global bad, n
	 probe process("'"$T"'").function("handle").return, process("'"$T"'").function("fact").return {
		n++; t = @entry(local_clock_ns()); if (t <= 0 || t > local_clock_ns()) bad++ }
	 probe process("'"$T"'").function("nap").return {
		d = local_clock_ns() - @entry(local_clock_ns())
		u = gettimeofday_us() - @entry(gettimeofday_us())
		printf("nap %s %s\n", d >= 20000000 && d < 1000000000 ? "ok" : sprint(d),
		       u >= 20000 && u < 1000000 ? "ok" : sprint(u)) }
	 probe end { printf("%d calls, %d bad\n", n, bad) }' -c "$T"
printf '%s\n' "nap ok ok" "7 calls, 0 bad" >"$TMP/want"
check "@entry(local_clock_ns()): 0 < entry <= return for every call; a 20 ms sleep measures 20 ms..1 s"

run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$T"'").function("handle").return { printf("%d\n", $return) }' -c "$T"
printf '%s\n' 487 488 489 >"$TMP/want"
check ".return: \$return of each call"

run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'global n; probe process("'"$LIBC"'").function("srandom") { if (pid() == target() && $arg1 == 12345) n++ }
	 probe end { printf("%d\n", n) }' -c "$T"
printf '1\n' >"$TMP/want"
check "libc's srandom without debug information: \$arg1 is its argument"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'probe process("'"$T"'").function("nosuch") { }'
if [ "$rc" -eq 1 ] && grep -q "error: no function \"nosuch\" in $T" "$TMP/err"; then
	ok "a missing function: one located error"
else
	not_ok "a missing function (exit status $rc)"
	diag_file "$TMP/err"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" -e \
	'probe process("'"$T"'").function("handle") { print($r->nope) } probe process("'"$T"'").function("handle").return { print($nope) }
probe process("'"$T"'").function("handle") { print($r->nam) }'
if [ "$rc" -eq 1 ] && grep -q "error: struct req has no member 'nope'" "$TMP/err" &&
	grep -q "error: function handle has no parameter 'nope'" "$TMP/err" &&
	grep -q "error: struct req has no member 'nam'; did you mean 'name'?" "$TMP/err"; then
	ok "a missing member and a missing parameter in a return probe: two errors; a typo's member named"
else
	not_ok "member/parameter errors (exit status $rc)"
	diag_file "$TMP/err"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" -L 'process("'"$T"'").function("handle")'
printf '%s\n' "process(\"$T\").function(\"handle\") \$r:struct req * \$n:int \$msg:const char *" >"$TMP/want"
check "-L: the function's parameters and their DWARF types"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -l 'process("'"$T"'").function("ha*")'
printf '%s\n' "process(\"$T\").function(\"handle\")" >"$TMP/want"
check "-l: a wildcard expanded against the file's symbols"

# A wildcard in a program with DWARF matches its DWARF functions, as
# stap's: not the C runtime's _start, _init, frame_dummy ... (symbols
# without debug information); a name without one still finds a symbol.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -l 'process("'"$T"'").function("*")'
printf 'process("%s").function("%s")\n' "$T" fact "$T" handle "$T" main "$T" nap "$T" walk >"$TMP/want"
check "-l: function(\"*\") of a -g program is its five DWARF functions"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -l 'process("'"$T"'").function("_start")'
printf 'process("%s").function("_start")\n' "$T" >"$TMP/want"
check "-l: function(\"_start\"), a symbol without DWARF, by its name"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -v -p2 -e 'probe process("'"$T"'").function("handle") { }
	probe process("'"$LIBC"'").function("srandom") { }'
if grep -qx "Pass 2: process(\"$T\").function(\"handle\"): types from the DWARF of $T" "$TMP/err" &&
	grep -qx "Pass 2: process(\"$(readlink -f "$LIBC")\").function(\"srandom\"): no type information in $(readlink -f "$LIBC"): raw registers (\$arg1...)" "$TMP/err"; then
	ok "-v says where each probe's types come from"
else
	not_ok "-v type sources"
	diag_file "$TMP/err"
fi

# A source line: the return statement of handle(), line found by grep,
# its first address checked against objdump's reading of the line table.
line=$(grep -n 'return r->id' "$KTAP_SRCDIR/tests/tools/ktap-uprobe-target.c" | cut -d: -f1)
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'global n; probe process("'"$T"'").statement("handle@ktap-uprobe-target.c:'"$line"'") { n++ }
	 probe end { printf("%d\n", n) }' -c "$T"
run_ktap "$TMP" "$TMP/p3" "$TMP/err2" -p3 -e \
	'probe process("'"$T"'").statement("handle@ktap-uprobe-target.c:'"$line"'") { }'
got=$(sed -n "s|^write uprobe_events 'p:ktap_\$PID/line_0 $T:0x\([0-9a-f]*\)'\$|\1|p" "$TMP/p3")
want=$(objdump -dl "$T" 2>/dev/null | awk -v l="ktap-uprobe-target.c:$line" \
	'index($0, l) && $0 ~ (l "$") { getline; sub(":", "", $1); print $1; exit }')
if [ "$(cat "$TMP/out")" = 3 ] && [ -n "$got" ] && [ $((0x$got)) -eq $((0x${want:-0})) ]; then
	ok "process().statement(\"handle@FILE:$line\"): at 0x$got as objdump says, hit 3 times"
else
	not_ok "statement probe: offset 0x$got (objdump: 0x$want), hits $(cat "$TMP/out")"
	diag_file "$TMP/err"
fi

# Debug information in a separate file found through .gnu_debuglink.
cp "$T" "$TMP/stripped"
objcopy --only-keep-debug "$TMP/stripped" "$TMP/stripped.debug" &&
	strip --strip-debug "$TMP/stripped" &&
	objcopy --add-gnu-debuglink="$TMP/stripped.debug" "$TMP/stripped"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -v -L 'process("'"$TMP/stripped"'").function("handle")'
if grep -qx "process(\"$TMP/stripped\").function(\"handle\") \$r:struct req \* \$n:int \$msg:const char \*" "$TMP/out" &&
	grep -q "types from the DWARF of $TMP/stripped.debug\$" "$TMP/err"; then
	ok "a stripped binary: DWARF from its .gnu_debuglink file"
else
	not_ok "separate debug file"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi

run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$T"'").function("handle") { printf("%s\n", $r$); exit() }' -c "$T"
# stap's $var$ shows nested structs as {...} and arrays (char arrays too) as [...];
# char and unsigned char pointers as strings (stap's print_chars).
if [ "$rc" -eq 0 ] && grep -qx '{.id=42, .name="alpha", .in={...}, .ip=0x[0-9a-f]*, .tag=\[...\], .flags=5, .mode=17, .bytes="tagged"}' "$TMP/out"; then
	ok '$r$ prints the struct as stap does: members, strings quoted, pointers in hex'
else
	not_ok '$r$ pretty printing'
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi

# The '$' suffix after @cast() and after an index (stap's grammar: a '$'
# of its own right after ')' or ']'): @cast($r, "struct req")$ prints as
# $r$, $$ expands the nested struct and the char array.
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e \
	'probe process("'"$T"'").function("handle") {
	printf("%d %s|%s|%s\n", @cast($r, "struct req")$ == $r$, @cast($r, "struct req")$$,
	       @cast($r, "struct req")->in$, $r->ip[0]$); exit() }' -c "$T"
if [ "$rc" -eq 0 ] && grep -qx '1 {.id=42, .name="alpha", .in={.x=5, .y=50}, .ip=0x[0-9a-f]*, .tag="tagged", .flags=5, .mode=17, .bytes="tagged"}|{.x=5, .y=50}|{.x=7, .y=70}' "$TMP/out"; then
	ok '@cast(...)$, @cast(...)$$, @cast(...)->in$ and $r->ip[0]$ print as stap does'
else
	not_ok '@cast()$ and [N]$ pretty printing'
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi

# check_run DESC: like check, with pointer values masked in $TMP/out.
check_run() {
	sed -i 's/=0x[0-9a-f]\{6,\}/=PTR/g' "$TMP/out"
	check "$1"
}

# walk(): a loop whose body declares a struct; the probe on its body
# line sees the block's local, the function's locals, a parameter and
# a global (DW_OP_addr), each through its DWARF location.
wline=$(grep -n 'walk: loop body' "$KTAP_SRCDIR/tests/tools/ktap-uprobe-target.c" | cut -d: -f1)
walk='process("'"$T"'").statement("walk@ktap-uprobe-target.c:'"$wline"'")'
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e 'probe '"$walk"' {
	printf("i=%d step.y=%d total=%d limit=%d origin.x=%d global=%d @var=%d\n", $i, $step->y,
	       $total, $limit, $s->origin->x, $global_counter, @var("global_counter")) }' -c "$T"
cat >"$TMP/want" <<'EOW'
i=0 step.y=0 total=0 limit=3 origin.x=1 global=7 @var=7
i=1 step.y=10 total=1 limit=3 origin.x=1 global=8 @var=8
i=2 step.y=20 total=13 limit=3 origin.x=1 global=9 @var=9
EOW
check "statement probe in a loop: a block's local struct, locals, a parameter, a global, every hit"

run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e 'probe '"$walk"' {
	println($$locals); println($$vars); println($$parms); println($$locals$) }' -c "$T"
cat >"$TMP/want" <<'EOW'
step={...} total=0x0 i=0x0
step={...} s=PTR limit=0x3 total=0x0 i=0x0
s=PTR limit=0x3
step={.x=0, .y=0} total=0 i=0
step={...} total=0x1 i=0x1
step={...} s=PTR limit=0x3 total=0x1 i=0x1
s=PTR limit=0x3
step={.x=1, .y=10} total=1 i=1
step={...} total=0xd i=0x2
step={...} s=PTR limit=0x3 total=0xd i=0x2
s=PTR limit=0x3
step={.x=2, .y=20} total=13 i=2
EOW
check_run '$$locals, $$vars, $$parms, $$locals$ at a statement: stap'"'"'s text, innermost scope first'

# .function("walk").label("walk_*"): a statement probe at each label of
# walk() (DW_TAG_label's DW_AT_low_pc), in address order, with the
# variables in scope there; -l lists them; a label nothing matches is
# one error line.
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e 'probe process("'"$T"'").function("walk").label("walk_*") {
	printf("%s i=%d total=%d limit=%d\n", pp(), $i, $total, $limit) }' -c "$T"
cat >"$TMP/want" <<EOW
process("$T").function("walk").label("walk_step") i=0 total=0 limit=3
process("$T").function("walk").label("walk_step") i=1 total=1 limit=3
process("$T").function("walk").label("walk_step") i=2 total=13 limit=3
process("$T").function("walk").label("walk_done") i=3 total=36 limit=3
EOW
check '.function("walk").label("walk_*"): each label, every hit, its variables'

run_ktap "$TMP" "$TMP/p3" "$TMP/err2" -p3 -e \
	'probe process("'"$T"'").function("walk").label("walk_done") { }'
got=$(sed -n "s|^write uprobe_events 'p:ktap_\$PID/walk_done_0 $T:0x\([0-9a-f]*\)'\$|\1|p" "$TMP/p3")
want=$(readelf --debug-dump=info "$T" 2>/dev/null | awk '/DW_AT_name.*: walk_done$/ { f = 1 }
	f && /DW_AT_low_pc/ { print $NF; exit }')
if [ -n "$got" ] && [ -n "$want" ] && [ $((0x$got)) -eq $((want)) ]; then
	ok ".label(\"walk_done\"): the uprobe at the label's DW_AT_low_pc ($want)"
else
	not_ok ".label(\"walk_done\"): offset 0x$got, DWARF says $want"
	diag_file "$TMP/p3"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" -l 'process("'"$T"'").function("walk").label("*")'
cat >"$TMP/want" <<EOW
process("$T").function("walk").label("walk_done")
process("$T").function("walk").label("walk_step")
EOW
check '-l process().function("walk").label("*"): both labels'

run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe process("'"$T"'").function("walk").label("nope") { }'
if [ "$rc" -eq 1 ] && [ "$(grep -c 'error:' "$TMP/err")" -eq 1 ] &&
   grep -q "error: no label matches \"nope\" in function \"walk\" of $T" "$TMP/err"; then
	ok '.label("nope"): one error line'
else
	not_ok '.label("nope") (exit status '"$rc"')'
	diag_file "$TMP/err"
fi

run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e 'probe process("'"$T"'").function("walk") {
	println($$parms); println($$vars$); println($s$); println($s$$); println($$locals) }' -c "$T"
if [ "$rc" -eq 0 ] && sed -n 1,4p "$TMP/out" | sed 's/=0x[0-9a-f]\{6,\}/=PTR/g' >"$TMP/head" &&
	printf '%s\n' 's=PTR limit=0x3' \
	's={.label="square", .origin={...}, .corner=0x0, .sides=\[...\], .u={...}} limit=3 total=-\{0,1\}[0-9]* i=-\{0,1\}[0-9]*' \
	'{.label="square", .origin={...}, .corner=0x0, .sides=[...], .u={...}}' \
	'{.label="square", .origin={.x=1, .y=2}, .corner=0x0, .sides=[4, ...], .u={.i=65, .c='"'A'"'}}' >"$TMP/want" &&
	[ "$(sed -n 1p "$TMP/head")" = "$(sed -n 1p "$TMP/want")" ] &&
	sed -n 2p "$TMP/head" | grep -qx "$(sed -n 2p "$TMP/want")" &&
	[ "$(sed -n 3,4p "$TMP/head")" = "$(sed -n 3,4p "$TMP/want")" ] &&
	sed -n 5p "$TMP/out" | grep -qx 'total=0x[0-9a-f]* i=0x[0-9a-f]*'; then
	ok '.function entry: $$parms exact, $$vars$ and $s$ one level, $s$$ nested, $$locals read (unset there, as in stap)'
else
	not_ok "entry \$\$parms, \$s\$, \$s\$\$ (exit status $rc)"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi

run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e 'probe process("'"$T"'").function("walk").return {
	println($$return) } probe process("'"$T"'").function("handle") { printf("[%s]\n", $$return) }' -c "$T"
printf '%s\n' '[]' '[]' '[]' 'return=0x24' >"$TMP/want"
check '$$return: "return=%#x" in a .return probe (walk returns 36), empty elsewhere'

# At a return $$parms is the parameters' snapshots at the entry (stap's
# "context variables other than $return ... snapshots taken at the time
# of function entry"), $$vars the same, $$locals empty: handle()'s n is
# 0, 1, 2 over its three calls (its body changes nothing they show)
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e 'probe process("'"$T"'").function("handle").return {
	printf("%s|%s|%s|%d%d\n", $$parms, $$vars, $$locals,
	       $$parms == sprintf("r=%#x n=%#x msg=%#x", @entry($r), @entry($n), @entry($msg)),
	       $$parms == sprintf("r=%#x n=%#x msg=%#x", $r, $n, $msg)) }' -c "$T"
sed 's/=0x[0-9a-f]\{6,\}/=PTR/g' "$TMP/out" >"$TMP/out.1"
mv "$TMP/out.1" "$TMP/out"
printf '%s\n' 'r=PTR n=0x0 msg=PTR|r=PTR n=0x0 msg=PTR||11' 'r=PTR n=0x1 msg=PTR|r=PTR n=0x1 msg=PTR||11' \
	'r=PTR n=0x2 msg=PTR|r=PTR n=0x2 msg=PTR||11' >"$TMP/want"
check '.return: $$parms and $$vars the entry snapshots of the parameters, $$locals empty; a char * parameter there is a number where one is wanted (%#x)'

# A global struct (@+OFFSET) and a chain of 13 dereferences through it:
# 63 characters, the longest fetch argument the kernel takes, whose
# 61-character name is cut to the kernel's 31.
n13='->next->next->next->next->next->next->next->next->next->next->next->next->next'
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e 'probe process("'"$T"'").function("walk") {
	printf("%d %d %d %s\n", $ring->next->next->v, @var("ring")->v, $ring'"$n13"'->v, $ring$) }' -c "$T"
printf '%s\n' '1 1 1 {.next=PTR, .v=1}' >"$TMP/want"
check_run 'a global struct through DW_OP_addr, 13 dereferences deep, and pretty printed'

run_ktap "$TMP" "$TMP/out" "$TMP/err" -L "$walk"
printf '%s\n' "$walk \$step:struct point \$s:struct shape * \$limit:int \$total:long int \$i:int" >"$TMP/want"
check "-L at a statement: the variables in scope and their types"

# -O2: sum()'s running total lives in a register on the loop line; its
# parameters there are entry values and 'scaled' is computed from one,
# which ktap cannot fetch: $$vars prints them as ?, as stap does.
oline=$(grep -n 'sum: loop body' "$KTAP_SRCDIR/tests/tools/ktap-uprobe-opt.c" | cut -d: -f1)
sum='process("'"$O"'").statement("sum@ktap-uprobe-opt.c:'"$oline"'")'
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e 'probe '"$sum"' {
	printf("total=%d %s | %s\n", $total, $$locals, $$vars) }
	probe process("'"$O"'").function("sum") { println($$vars) }' -c "$O"
cat >"$TMP/want" <<'EOW'
v=PTR n=0x4 total=0x0 scaled=? i=0x0
total=0 total=0x0 scaled=? i=? | v=? n=? total=0x0 scaled=? i=?
total=1 total=0x1 scaled=? i=? | v=? n=? total=0x1 scaled=? i=?
total=3 total=0x3 scaled=? i=? | v=? n=? total=0x3 scaled=? i=?
total=6 total=0x6 scaled=? i=? | v=? n=? total=0x6 scaled=? i=?
EOW
check_run "-O2: a register local on every hit, constants at entry, unavailable variables as =?"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe '"$sum"' { println($scaled) }'
if [ "$rc" -eq 1 ] && grep -q "^<input>:1:[0-9]*: error: target variable '\$scaled' is not available at this address (pc: 0x[0-9a-f]* in sum): its location uses DW_OP_entry_value, which ktap cannot fetch yet\$" "$TMP/err"; then
	ok "-O2: an unavailable variable named explicitly is a located error saying why"
else
	not_ok "-O2 explicit unavailable variable (exit status $rc)"
	diag_file "$TMP/err"
fi

# At sum()'s entry 'scaled' lives nowhere: DWARF computes it from n's
# register (DW_OP_breg4 (rsi): 0; DW_OP_lit3; DW_OP_mul; DW_OP_stack_value):
# the register is fetched and the product computed in user space, as
# stap evaluates the expression; nothing can be read through it.
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e 'probe process("'"$O"'").function("sum") {
	printf("n=%d scaled=%d\n", $n, $scaled) }' -c "$O"
run_ktap "$TMP" "$TMP/out2" "$TMP/err2" -p2 -e 'probe process("'"$O"'").function("sum") { println($scaled->x) }'
if [ "$(cat "$TMP/out")" = "n=4 scaled=12" ] &&
   readelf --debug-dump=loc "$O" | grep -q 'DW_OP_breg4 (rsi): 0; DW_OP_lit3; DW_OP_mul; DW_OP_stack_value' &&
   grep -q "error: '\$scaled' is a value the program computes from a register (DWARF's DW_OP_stack_value): it has no memory to read through" "$TMP/err2"; then
	ok "-O2: a value DWARF computes from a register (n * 3) is computed from the fetched register"
else
	not_ok "-O2 computed value: $(cat "$TMP/out")"
	diag_file "$TMP/err"
	diag_file "$TMP/err2"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe '"$sum"' { println($total) }'
if [ "$rc" -eq 0 ] && grep -q "line_0 $O:0x[0-9a-f]* total=%cx:s64'\$" "$TMP/out" &&
	readelf --debug-dump=loc "$O" | grep -q 'DW_OP_reg2 (rcx)'; then
	ok "-O2: a variable in a register (DW_OP_reg2, from its location list) is %cx"
else
	not_ok "-O2 register variable (exit status $rc)"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi

# twice() is inlined twice into main() and has no copy of its own:
# .function("twice") probes each copy's entry (DW_AT_entry_pc), where
# its parameter is in a register (a location view at that very address);
# the program prints 2 * x of each copy ("4 6").
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e 'probe process("'"$O"'").function("twice") {
	printf("%s x=%d %s\n", pp(), $x, $$parms) }' -c "$O"
sort -o "$TMP/out" "$TMP/out"
cat >"$TMP/want" <<EOW
process("$O").function("twice") x=2 x=0x2
process("$O").function("twice") x=3 x=0x3
EOW
check '.function("twice") of a function only inlined: each copy, its parameter'

# An inlined copy's scopes are its own and then the file's, not its
# caller's (dwarf_getscopes inside a copy; GCC PR51410, stap's
# systemtap.base/global_var): at a copy's entry, which lies in none of
# its ranges, main()'s locals v and p are not twice()'s variables.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe process("'"$O"'").function("twice") { println($$vars) }'
grep 'println(' "$TMP/out" | sort -u >"$TMP/got"
mv "$TMP/got" "$TMP/out"
printf '%s\n' '  println("x=" . sprintf("%#x", $x));' >"$TMP/want"
check '$$vars at an inlined copy: its parameter, none of the caller'"'"'s locals'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe process("'"$O"'").function("twice") { println($p) }'
check_err_has '$p at an inlined copy: main()'"'"'s p is not in its scope' \
	"error: no variable 'p' in scope at this address"

# &global at a uprobe: the run-time address, %ip (the probe's) plus the
# global's file offset less the probe's (stap's at_var: user_int(&$foo->bar)).
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e 'probe process("'"$T"'").function("walk") {
	printf("%d %d %d %d\n", user_int(&$global_counter), user_int(&$ring->v), &$ring->v - &$ring->next,
	       &$global_counter == &@var("global_counter")) }' -c "$T"
expect_text '&\$global, &\$global->member: their run-time addresses' "7 1 8 1"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe process("'"$T"'").function("walk").return { println(&$global_counter) }'
check_err_has '&\$global in a .return probe: an error that says @entry(&...)' \
	"its address is known at a uprobe's entry, not at a .return; write @entry(&...)"

# .label() of a function only inlined: the label in each copy (stap's
# systemtap.base/ptridx), and a wildcard listing with it does not stop.
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e 'probe process("'"$O"'").function("twice").label("twice_done") {
	printf("%s x=%d\n", pp(), $x) }' -c "$O"
sort -o "$TMP/out" "$TMP/out"
cat >"$TMP/want" <<EOW
process("$O").function("twice").label("twice_done") x=2
process("$O").function("twice").label("twice_done") x=3
EOW
check '.label() in the inlined copies of a function that has no copy of its own'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -L 'process("'"$O"'").function("*").label("*")'
expect_text '-L of every function'"'"'s labels: the inlined copies'"'"'' \
	'process("'"$O"'").function("twice").label("twice_done") $x:int'

# An array read as a value is its address, as stap gives it (ptridx's
# printf("%p", $a) of int a[2]): $s->sides is $s plus its offset, and
# user_int() reads its elements through it.
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e 'probe process("'"$T"'").function("walk") {
	printf("%d %d %d %d\n", $s->sides - $s, user_int($s->sides), user_int($s->sides + 4), $s->sides[2]) }' -c "$T"
expect_text 'an array as a value: its address' "24 4 5 6"

# Structs passed by value in registers (-O2): span()'s range is in two
# pieces (%di, %si), area()'s dims whole in %di, y its upper half (a
# shift, signed as int: -7); the return probe reads a piece at the entry.
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e 'probe process("'"$O"'").function("span") {
	printf("span lo=%d hi=%d k=%d\n", $r->lo, $r->hi, $k) }
probe process("'"$O"'").function("area") { printf("area x=%d y=%d\n", $d->x, $d->y) }
probe process("'"$O"'").function("span").return { printf("span.return hi=%d %d\n", $r->hi, $return) }' -c "$O"
sort -o "$TMP/out" "$TMP/out"
cat >"$TMP/want" <<EOW
area x=5 y=-7
span lo=-5 hi=7 k=3
span.return hi=7 36
EOW
check 'structs by value: members of DWARF pieces and of a register'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe process("'"$O"'").function("span") { println($r->hi) }
probe process("'"$O"'").function("area") { println($d->x) }'
if [ "$rc" -eq 0 ] && grep -q "span_0 $O:0x[0-9a-f]* r_hi=%si:s64'\$" "$TMP/out" &&
	grep -q "area_1 $O:0x[0-9a-f]* d_x=%di:s32'\$" "$TMP/out"; then
	ok "structs by value: the piece's register (r_hi=%si), the register's low half (d_x=%di:s32)"
else
	not_ok "structs by value: fetch arguments (exit status $rc)"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi

# .inline: the same two uprobes, at the DW_AT_entry_pc of the copies of
# twice (DW_TAG_inlined_subroutine whose abstract origin is twice's DIE).
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe process("'"$O"'").function("twice").inline { }'
got=$(sed -n "s|^write uprobe_events 'p:ktap_\$PID/twice_[0-9] $O:\(0x[0-9a-f]*\)'\$|\1|p" "$TMP/out" |
	while read -r a; do echo $((a)); done | sort -n | tr '\n' ' ')
origin=$(readelf --debug-dump=info "$O" | awk '/DW_TAG_subprogram/ { d = $1 }
	/DW_AT_name.*: twice$/ { sub(/^<[0-9]+></, "", d); sub(/>:$/, "", d); print d; exit }')
want=$(readelf --debug-dump=info "$O" | awk -v o="<0x$origin>" '/DW_TAG_inlined_subroutine/ { f = 1; m = 0; next }
	f && /DW_AT_abstract_origin/ { m = ($NF == o) }
	f && /DW_AT_entry_pc/ { if (m) print $NF; f = 0 }' | while read -r a; do echo $((a)); done |
	sort -n | tr '\n' ' ')
if [ "$rc" -eq 0 ] && [ -n "$origin" ] && [ "$got" = "$want" ] && [ "$(echo $got | wc -w)" -eq 2 ]; then
	ok ".function(\"twice\").inline: a uprobe at each copy's DW_AT_entry_pc ($got)"
else
	not_ok ".inline: offsets $got, DWARF's entry_pc $want (twice at $origin, exit status $rc)"
	diag_file "$TMP/out"
fi

# A wildcard matches a function only inlined too (its abstract DWARF
# entry, DW_AT_inline): "tw*" is twice's two copies.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe process("'"$O"'").function("tw*") { }'
n=$(grep -c "^process(\"$O\").function(\"twice\")" "$TMP/out")
if [ "$rc" -eq 0 ] && [ "$n" -eq 2 ]; then
	ok '.function("tw*"): the two copies of twice(), a function only inlined'
else
	not_ok '.function("tw*") (exit status '"$rc"', '"$n"' probes)'
	diag_file "$TMP/err"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe process("'"$O"'").function("twice").return { }'
run_ktap "$TMP" "$TMP/out2" "$TMP/err2" -p2 -e 'probe process("'"$O"'").function("sum").inline { }'
if grep -q "error: function \"twice\" of $O has no copy of its own: each of its 2 calls is inlined, and an inlined copy has no return to probe" "$TMP/err" &&
   grep -q "error: function \"sum\" has no inlined copies in $O" "$TMP/err2" && [ "$rc" -eq 1 ]; then
	ok ".return of a function only inlined, .inline of one never inlined: one error line each"
else
	not_ok ".return/.inline errors (exit status $rc)"
	diag_file "$TMP/err"
	diag_file "$TMP/err2"
fi

# process("EXE").library("GLOB").function(): the function in the
# libraries EXE loads (its DT_NEEDED, found as ld.so finds them), only in
# EXE's processes: the program calls srandom() once; probed as /bin/true's
# library, the same libc sees no call from it; the comm in the kernel
# filter is the kernel's 15 characters of the name.
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e 'global n, m
	probe process("'"$T"'").library("libc.so*").function("srandom") { n++ }
	probe process("/bin/true").library("libc.so*").function("srandom") { m++ }
	probe end { printf("%d %d\n", n, m) }' -c "$T"
expect_text '.library("libc.so*").function("srandom"): 1 call in the program, none as /bin/true'"'"'s' "1 0"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe process("'"$T"'").library("libc.so*").function("srandom") { }'
run_ktap "$TMP" "$TMP/out2" "$TMP/err2" -p2 -e 'probe process("'"$T"'").library("libnope*").function("srandom") { }'
if [ "$rc" -eq 1 ] && grep -q "^write uprobe_events 'p:ktap_\$PID/srandom_0 [^ ]*/libc.so.6:0x[0-9a-f]*'\$" "$TMP/out" &&
   grep -q "filter '(COMM == \"ktap-uprobe-tar\") && (common_pid != \$KTAP || common_flags & 0x58)'" "$TMP/out" &&
   grep -q "error: no library of $T matches \"libnope\*\"" "$TMP/err2"; then
	ok '.library(): a uprobe on libc, the COMM filter in the kernel, one error line for no match'
else
	not_ok '.library() plan (exit status '"$rc"')'
	diag_file "$TMP/out"
	diag_file "$TMP/err2"
fi

# C++ (tests/tools/ktap-cxx): function("use") by its DWARF name (the
# symbol is mangled), members of base classes through a reference and a
# pointer, an int read through a const reference.
X=$KTAP_BUILDDIR/tests/tools/ktap-cxx
run_ktap "$TMP" "$TMP/child" "$TMP/err" -o "$TMP/out" -e 'probe process("'"$X"'").function("use") {
	printf("%d %d %d %d %d %d\n", $r->d, $p->d, $p->b, $r->bb, $r->o, $k) }' -c "$X"
expect_text 'C++: use() by its name, members of base classes through & and *, a const int &' \
	"4 4 2 3 1 7"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe '"$walk"' { println($nope, $arg1) }'
if [ "$rc" -eq 1 ] && grep -q "error: no variable 'nope' in scope at this address (pc: 0x[0-9a-f]* in walk)" "$TMP/err" &&
	grep -q 'error: \$arg1 is only available at a function.s entry' "$TMP/err"; then
	ok "a statement probe: unknown names and \$argN are located errors"
else
	not_ok "statement probe errors (exit status $rc)"
	diag_file "$TMP/err"
fi

# Another ktap session's private events (group ktap_PID_TAG) are not
# tracepoints of the kernel: kernel.trace("*") neither lists nor probes
# them (stap's tracepoints test compiled them all, and failed when one
# vanished), while naming the group still reaches them.
run_ktap "$TMP" "$TMP/bg.out" "$TMP/bg.err" -e 'probe process("'"$T"'").function("main") { }
	probe timer.s(4) { exit() }' &
bg=$!
n=0
while ! grep -q '^p:ktap_' /sys/kernel/tracing/uprobe_events 2>/dev/null && [ $n -lt 50 ]; do
	sleep 0.1
	n=$((n + 1))
done
run_ktap "$TMP" "$TMP/out" "$TMP/err" -l 'kernel.trace("*")'
r1=$rc
mine=$(grep -c 'ktap_' "$TMP/out")
run_ktap "$TMP" "$TMP/out2" "$TMP/err2" -l 'kernel.trace("ktap_*:*")'
wait $bg
if [ "$r1" -eq 0 ] && [ "$mine" = 0 ] && [ "$rc" -eq 0 ] &&
	grep -q '^kernel.trace("ktap_[0-9]*_[0-9a-f]*:main_0")$' "$TMP/out2"; then
	ok 'kernel.trace("*") leaves out another session'"'"'s ktap_* events; "ktap_*:*" names them'
else
	not_ok "kernel.trace(\"*\") beside another session (exit statuses $r1 $rc, $mine ktap_ lines)"
	diag_file "$TMP/err"
	diag_file "$TMP/out2"
fi

# A parameter's register is the calling convention's after the ones the
# parameters before it take: ktap-args's mixed(double d, struct point
# pt, int n, struct big b, int m) has n in the second integer register
# (d is in a vector register, the 8-byte pt in the first, the 24-byte b
# in memory) and m in the third; n was read from the third (m's value).
A=$KTAP_BUILDDIR/tests/tools/ktap-args
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'probe process("'"$A"'").function("mixed") { printf("n=%d m=%d\n", $n, $m) }' -c "$A"
grep -v '^46$' "$TMP/out" >"$TMP/got"	# ktap-args prints the sum
printf 'n=9 m=11\n' >"$TMP/want"
expect_same "parameters after a double and structs by value: their own registers" \
	"$TMP/want" "$TMP/got"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe process("'"$A"'").function("mixed") { println($d) }'
if [ "$rc" -eq 1 ] && grep -q "error: parameter \$d is floating-point: it is passed in a vector register" "$TMP/err"; then
	ok "a floating-point parameter: an error, not an integer register's value"
else
	not_ok "a floating-point parameter: an error, not an integer register's value (exit status $rc)"
	diag_file "$TMP/err"
fi

tfs_guard_end "tracefs unchanged: instances and uprobe events removed"
done_testing
