#!/bin/sh
# sdt-plan.sh - process("PATH").mark("NAME") plans and listings (TAP),
# checked against readelf's reading of the same notes: the uprobe's file
# offset is the marker's, its reference counter (the "(0x...)" suffix)
# the semaphore's file offset, one fetch argument per operand typed by
# its size prefix; -l/-L list every marker; wrong names are errors.
# Nothing runs, so no root is needed.  The files are tests/tools/ktap-sdt
# (<sys/sdt.h> markers with semaphores) and libstdc++'s own markers
# (no semaphores).
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
T=$KTAP_BUILDDIR/tests/tools/ktap-sdt

require_tools "$T"
command -v readelf >/dev/null 2>&1 || skip_all "readelf is not installed"

# notes FILE: "provider name location semaphore operands..." per marker.
notes() {
	readelf -n "$1" | awk '
		/Provider:/ { p = $2 } /Name:/ { n = $2 }
		/Location:/ { gsub(",", ""); loc = $2; sem = $6 }
		/Arguments:/ { $1 = ""; print p, n, loc, sem $0 }'
}

# fileoff FILE ADDR: the file offset of address ADDR (hex) through the
# PT_LOAD program headers, in hex without 0x.
fileoff() {
	readelf -lW "$1" | awk '$1 == "LOAD" { print $2, $3, $5 }' |
	while read -r off va sz; do
		if [ $(($2)) -ge $((va)) ] && [ $(($2)) -lt $((va + sz)) ]; then
			printf '%x\n' $(($2 - va + off))
			break
		fi
	done
}

# types OPERANDS...: the fetch type of each size prefix, space-separated.
types() {
	n=0
	for op in "$@"; do
		n=$((n + 1))
		case ${op%%@*} in
		-1) t=s8;; 1) t=u8;; -2) t=s16;; 2) t=u16;; -4) t=s32;; 4) t=u32;; 8) t=u64;; *) t=s64;;
		esac
		printf ' arg%d=:%s' "$n" "$t"
	done
	echo
}

set -- $(notes "$T" | awk '$2 == "tick"')
prov=$1 loc=$3 sem=$4
shift 4
want_args=$(types "$@")
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe process("'"$T"'").mark("tick") { println($arg1, $arg2) }'
line=$(sed -n "s|^write uprobe_events 'p:ktap_\$PID/tick_0 \(.*\)'\$|\1|p" "$TMP/out")
want="$T:0x$(fileoff "$T" "$loc")(0x$(fileoff "$T" "$sem"))"
if [ "$rc" -eq 0 ] && [ "${line%% *}" = "$want" ] && [ "$prov" = ktap ]; then
	ok "-p3: the uprobe at the marker's file offset, the semaphore's as its ref_ctr_offset"
else
	not_ok "-p3 target (exit status $rc): want $want"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi
got_args=$(echo "${line#* }" | sed 's/=[^: ]*:/=:/g; s/^/ /')
if [ "$got_args" = "$want_args" ]; then
	ok "-p3: one fetch argument per operand, typed by its size prefix ($want_args)"
else
	not_ok "-p3 arguments: want '$want_args', got '$got_args'"
fi

# libstdc++'s markers have no semaphore, and (on x86_64 Debian) operands
# such as 8@%rdi and 8@-80(%rbx): register and memory fetches.
STDCXX=$(ldconfig -p 2>/dev/null | sed -n 's/.*libstdc++\.so\.6 (libc6,x86-64) => //p' | head -n 1)
if [ -n "$STDCXX" ] && readelf -n "$STDCXX" 2>/dev/null | grep -q 'Name: catch'; then
	set -- $(notes "$STDCXX" | awk '$2 == "catch"')
	loc=$3
	shift 4
	want=$(for op in "$@"; do
		echo "$op" | sed -n 's/^8@%r\(..\)$/%\1:u64/p; s/^8@\(-*[0-9]*\)(%r\(..\))$/\1(%\2):u64/p'
	done | awk '{ printf " arg%d=%s", NR, $0 }')
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -p3 -e 'probe process("'"$STDCXX"'").provider("libstdcxx").mark("catch") { println($arg1, $arg2) }'
	got=$(sed -n "s|^write uprobe_events 'p:ktap_\$PID/catch_0 [^ ]*:0x\([0-9a-f]*\)\(.*\)'\$|\1\2|p" "$TMP/out")
	real=$(readlink -f "$STDCXX")
	if [ "$rc" -eq 0 ] && [ "$got" = "$(fileoff "$real" "$loc")$want" ]; then
		ok "libstdc++'s catch marker: no semaphore, register and memory operands ($want)"
	else
		not_ok "libstdc++ catch (exit status $rc): want '$(fileoff "$real" "$loc")$want', got '$got'"
		diag_file "$TMP/out"
		diag_file "$TMP/err"
	fi
else
	skip "libstdc++'s SDT markers" "no libstdc++.so.6 with .note.stapsdt"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" -l 'process("'"$T"'").mark("*")'
notes "$T" | awk -v t="$T" '{ printf "process(\"%s\").mark(\"%s\")\n", t, $2 }' | sort -u >"$TMP/want"
check "-l: every marker, as readelf -n lists them"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -L 'process("'"$T"'").provider("k*").mark("t*")'
expect_text "-L: provider and name globs, \$argN:long per operand" \
	"process(\"$T\").provider(\"ktap\").mark(\"tick\") \$arg1:long \$arg2:long"

prefix='probe process("'"$T"'").mark("tick") { println('
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e "$prefix"'$arg3) }'
check_err "a missing \$argN names the marker's arguments" \
	"<input>:1:$((${#prefix} + 1)): error: marker ktap:tick has 2 arguments: no '\$arg3' (\$arg1..\$argN, \$\$name, \$\$provider, \$\$parms)"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe process("'"$T"'").provider("nope").mark("*") { }'
check_err "no marker matches: an error at the point" \
	"<input>:1:7: error: no SDT marker matches \"*\" in $T$POINT_HINT"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe process("/bin/true").mark("x") { }'
check_err "a file without notes" \
	"<input>:1:7: error: $(readlink -f /bin/true) has no SDT markers (no .note.stapsdt section)$POINT_HINT"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe process("'"$T"'").mark("nope") ? { } probe begin { exit() }'
if [ "$rc" -eq 0 ]; then ok "an optional mark point that matches nothing is dropped"
else not_ok "optional mark point (exit status $rc)"; diag_file "$TMP/err"; fi

done_testing
