#!/bin/sh
# uprobe-plan.sh - process() plans (-p3) whose registers and offsets come
# from DWARF locations and the calling convention of the probed file's
# machine (TAP).  Nothing runs, so no root is needed and an aarch64
# binary (built here with aarch64-linux-gnu-gcc) is planned on any host.
# Every stack offset is checked against readelf's reading of the same
# file: a variable's DW_OP_fbreg plus the CFA rule (.eh_frame) at the
# probed address; global addresses against the symbol table and the
# program headers; probe offsets against objdump's line table.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
SRC=$KTAP_SRCDIR/tests/tools/ktap-uprobe-target.c
X86=$KTAP_BUILDDIR/tests/tools/ktap-uprobe-target
A64=$TMP/a64

require_tools "$X86"
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 ||
	skip_all "aarch64-linux-gnu-gcc is not installed (scripts/bootstrap.sh installs it)"
aarch64-linux-gnu-gcc -g -O0 -o "$A64" "$SRC" || skip_all "cannot build an aarch64 binary"

line=$(grep -n 'walk: loop body' "$SRC" | cut -d: -f1)

# fbreg FILE FUNC: "name offset" of each DW_OP_fbreg variable of FUNC.
fbreg() {
	readelf --debug-dump=info "$1" | awk -v fn="$2" '
		/^ <1>/ { inside = 0 }
		/DW_AT_name/ { n = $NF; if (n == fn) inside = 1; next }
		inside && /DW_OP_fbreg/ { sub(/.*DW_OP_fbreg: /, ""); sub(/\).*/, ""); print n, $0 }'
}

# cfa FILE PC: the CFA rule at address PC (decimal), e.g. "sp+48", "rbp+16".
cfa() {
	readelf --debug-dump=frames-interp "$1" | awk '
		/ FDE / { split($NF, r, "[=.]+"); lo = r[2]; hi = r[3]; next }
		lo != "" && $1 ~ /^[0-9a-f]+$/ && length($1) == 16 { print lo, hi, $1, $2 }' |
	while read -r lo hi loc rule; do
		if [ $((0x$lo)) -le "$2" ] && [ "$2" -lt $((0x$hi)) ] && [ $((0x$loc)) -le "$2" ]; then
			echo "$rule"
		fi
	done | tail -n 1
}

# reg NAME: a CFA register as a fetch-argument register.
reg() {
	case $1 in
	rsp) echo %sp;; rbp) echo %bp;; sp) echo %sp;; x29) echo %x29;; *) echo "%$1";;
	esac
}

# stmt_addr FILE OBJDUMP: the first address of the walk loop line.
stmt_addr() {
	"$2" -dl "$1" 2>/dev/null | awk -v l="ktap-uprobe-target.c:$line" \
		'index($0, l) && $0 ~ (l "( [(]discriminator [0-9]+[)])?$") {
			getline; sub(":", "", $1); print $1; exit }'
}

# want_stmt FILE OBJDUMP: the fetch arguments the walk statement probe
# below must have, from readelf: each variable at CFA register +
# (CFA offset + fbreg), step.y 4 bytes into step, s->origin.x 8 bytes
# into *s, global_counter at its address less the text segment's bias.
want_stmt() {
	pc=$((0x$(stmt_addr "$1" "$2")))
	rule=$(cfa "$1" "$pc")
	r=$(reg "${rule%%+*}")
	base=${rule#*+}
	fbreg "$1" walk >"$TMP/fb"
	at() {
		_v=$(( base + $(awk -v n="$1" '$1 == n { print $2 }' "$TMP/fb") + $2 ))
		if [ "$_v" -ge 0 ]; then echo "+$_v"; else echo "$_v"; fi
	}
	g=$(readelf -sW "$1" | awk '$8 == "global_counter" { print $2 }')
	bias=$(readelf -lW "$1" | awk '$1 == "LOAD" { print $2, $3, $5 }' |
		while read -r off va sz; do
			if [ $((va)) -le "$pc" ] && [ "$pc" -lt $((va + sz)) ]; then
				echo $((va - off))
			fi
		done)
	printf 'i=%s(%s):s32 step_y=%s(%s):s32 total=%s(%s):s64 limit=%s(%s):s32 s_origin_x=+8(%s(%s)):s32 global_counter=@+%s:s32\n' \
		"$(at i 0)" "$r" "$(at step 4)" "$r" "$(at total 0)" "$r" "$(at limit 0)" "$r" \
		"$(at s 0)" "$r" $((0x$g - bias))
}

stmt='probe process("FILE").statement("walk@ktap-uprobe-target.c:'"$line"'") {
	printf("%d %d %d %d %d %d\n", $i, $step->y, $total, $limit, $s->origin->x, $global_counter) }'

# check_stmt FILE OBJDUMP DESC
check_stmt() {
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e "$(echo "$stmt" | sed "s|FILE|$1|")"
	got=$(sed -n "s|^write uprobe_events 'p:ktap_\$PID/line_0 $1:0x[0-9a-f]* \(.*\)'\$|\1|p" "$TMP/out")
	want=$(want_stmt "$1" "$2")
	if [ "$rc" -eq 0 ] && [ -n "$got" ] && [ "$got" = "$want" ]; then
		ok "$3: $got"
	else
		not_ok "$3 (exit status $rc)"
		echo "# want: $want"
		echo "# got:  $got"
		diag_file "$TMP/err"
	fi
}

check_stmt "$X86" objdump "x86_64 statement probe: locals, a parameter, members and a global at DWARF locations"
check_stmt "$A64" aarch64-linux-gnu-objdump "aarch64 statement probe: the same variables, sp-relative"

entry='probe process("FILE").function("handle") {
	printf("%d %s %d %s %d %d\n", $r->id, $r->name, $n, $msg, $r->in->y, $r->ip->x) }
probe process("FILE").function("handle").return { printf("%d\n", $return) }'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e "$(echo "$entry" | sed "s|FILE|$A64|g")"
want_off=$(readelf -sW "$A64" | awk '$8 == "handle" { print $2 }')
got=$(sed -n "s|^write uprobe_events 'p:ktap_\$PID/handle_0 $A64:0x\([0-9a-f]*\) \(.*\)'\$|\1 \2|p" "$TMP/out")
want="$(printf %x $((0x$want_off))) r_id=+0(%x0):s32 r_name=+0(+8(%x0)):string n=%x1:s32 msg=+0(%x2):string r_in_y=+24(%x0):s64 r_ip_x=+0(+32(%x0)):s32"
if [ "$rc" -eq 0 ] && [ "$got" = "$want" ]; then
	ok "aarch64 entry: parameters in %x0 %x1 %x2, at handle's symbol value"
else
	not_ok "aarch64 entry (exit status $rc)"
	echo "# want: $want"
	echo "# got:  $got"
	diag_file "$TMP/err"
fi
if grep -q "^write uprobe_events 'r:ktap_\$PID/handle_1 $A64:0x[0-9a-f]* ret=%x0:s64'\$" "$TMP/out"; then
	ok "aarch64 .return: \$return is %x0"
else
	not_ok "aarch64 .return"
	diag_file "$TMP/out"
fi

# Raw arguments past the registers: on the stack at entry, after the
# return address on x86_64 (+8), from the stack pointer itself on aarch64.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe process("'"$A64"'").function("handle") { printf("%d %d %d\n", $arg8, $arg9, $arg10) }
	probe process("'"$X86"'").function("handle") { printf("%d %d %d\n", $arg6, $arg7, $arg8) }'
if grep -q "handle_0 $A64:0x[0-9a-f]* arg8=%x7:s64 arg9=+0(%sp):s64 arg10=+8(%sp):s64'\$" "$TMP/out" &&
	grep -q "handle_1 $X86:0x[0-9a-f]* arg6=%r9:s64 arg7=+8(%sp):s64 arg8=+16(%sp):s64'\$" "$TMP/out"; then
	ok "\$argN past the argument registers: stack slots per machine"
else
	not_ok "stack arguments"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" -L 'process("'"$A64"'").statement("walk@ktap-uprobe-target.c:'"$line"'")'
printf '%s\n' "process(\"$A64\").statement(\"walk@ktap-uprobe-target.c:$line\") \$step:struct point \$s:struct shape * \$limit:int \$total:long int \$i:int" >"$TMP/want"
if [ "$rc" -eq 0 ] && cmp -s "$TMP/want" "$TMP/out"; then
	ok "-L at a statement: the variables in scope there, innermost block first"
else
	not_ok "-L at a statement (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/out"
	diag_file "$TMP/err"
fi

# $$vars at a statement: one fetch per variable, pointers as addresses.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe process("'"$A64"'").statement("walk@ktap-uprobe-target.c:'"$line"'") { print($$vars) }'
want_stmt "$A64" aarch64-linux-gnu-objdump >"$TMP/w"
s_at=$(sed 's/.*s_origin_x=+8(\([^)]*)\)).*/\1/' "$TMP/w")
if grep -q "line_0 $A64:0x[0-9a-f]* s=$s_at:u64 limit=[^ ]*:s32 total=[^ ]*:s64 i=[^ ]*:s32'\$" "$TMP/out"; then
	ok "\$\$vars: a fetch per variable in scope (a struct prints {...}, unfetched)"
else
	not_ok "\$\$vars plan"
	echo "# s at $s_at"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi

# Past the kernel's 63 characters per fetch argument: an error that says
# so (inside a pretty-printed string the value would print '?').
n14='->next->next->next->next->next->next->next->next->next->next->next->next->next->next'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe process("'"$X86"'").function("walk") { print($ring'"$n14"'->v) }'
if [ "$rc" -eq 1 ] && grep -q "error: reading '\$ring->next.*->next->v' takes a fetch argument of 67 characters (\"+8(+0(.*:s32\"); the kernel's limit is 63\$" "$TMP/err"; then
	ok "a fetch argument over 63 characters: a located error"
else
	not_ok "a fetch argument over 63 characters (exit status $rc)"
	diag_file "$TMP/err"
fi

# @cast()'s bare type name, as stap looks one up (a typedef, a struct, a
# union): "req" is struct req, read from the file's DWARF.
cast='probe process("'"$X86"'").function("handle") { print(@cast($r, "TYPE")->in->y) }'
run_ktap "$TMP" "$TMP/bare" "$TMP/err" -p3 -e "$(echo "$cast" | sed 's/TYPE/req/')"
bare_rc=$rc
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e "$(echo "$cast" | sed 's/TYPE/struct req/')"
if [ "$bare_rc" -eq 0 ] && [ "$rc" -eq 0 ] && cmp -s "$TMP/bare" "$TMP/out" &&
	grep -q 'r_cast_in_y=+24(' "$TMP/out"; then
	ok "@cast(\$r, \"req\"): the bare name is struct req, as in stap"
else
	not_ok "@cast(\$r, \"req\") (exit status $bare_rc, then $rc)"
	diag_file "$TMP/err"
	diag_file "$TMP/bare"
fi

# A machine ktap has no calling convention for: a clear error.
cp "$A64" "$TMP/other"
printf '\003\000' | dd of="$TMP/other" bs=1 seek=18 conv=notrunc 2>/dev/null # e_machine = EM_386
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe process("'"$TMP/other"'").function("handle") { print($n) }'
if [ "$rc" -eq 1 ] && grep -q "error: $TMP/other is for ELF machine 3, whose calling convention ktap does not know" "$TMP/err"; then
	ok "an ELF machine without a calling convention: a located error"
else
	not_ok "unknown machine (exit status $rc)"
	diag_file "$TMP/err"
fi
done_testing
