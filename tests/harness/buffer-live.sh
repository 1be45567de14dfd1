#!/bin/sh
# buffer-live.sh - byte buffers the kernel reads at the probe
# (compiler/resolve/sema_buffer.c), live on uprobes (TAP): printf's %m
# and %M of an address, kernel_buffer_quoted() and user_buffer_quoted()
# (tapset/buffer.stp), over tests/tools/ktap-buffer's take(buf, len): 8
# bytes "ab\0c\"\n\x80\xff", then 600 (the rest (7i + 3) & 255), then 0.
# The plan: an array fetch argument per buffer, u8[N] to 64 bytes,
# u64[64] (512 bytes) for a length known at run time.  Root only.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
B=$KTAP_BUILDDIR/tests/tools/ktap-buffer
P="probe process(\"$B\").function(\"take\")"

require_live "live tests need root (run make check as root)"
require_tools "$B" "$TFS_SNAP"
tfs_guard_begin

# 1. %m and %M: the precision's bytes (1 by default, '*' from an
#    argument), width and '-' as for %s; %M two hex digits a byte.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$B" -e "$P {
	printf(\"%d [%.8M] [%.2m] [%5.2m] [%-4.1m] [%m] [%.*M] [%M]\\n\", \$len, \$buf, \$buf,
	       \$buf, \$buf, \$buf, 4, \$buf, \$buf) }"
for n in 8 600 0; do
	echo "$n [61620063220a80ff] [ab] [   ab] [a   ] [a] [61620063] [61]"
done >"$TMP/want"
if [ "$rc" -eq 0 ] && cmp -s "$TMP/want" "$TMP/out"; then
	ok "%m and %M of an address: its bytes, as stap prints them"
else
	not_ok "%m and %M (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/out"
	diag_file "$TMP/err"
fi

# 2. The quoted forms: zero bytes \000 (stap's buffer form), the last
#    bytes of the 600, a run-time length cut to MAXSTRINGLEN with "...,
#    and an inlen of 0 read as 512 bytes, as stap's; sprintf("%.*M")'s
#    511 characters.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$B" -e "$P {
	printf(\"%s %s %s\\n\", user_buffer_quoted(\$buf, \$len, 40), kernel_buffer_quoted(\$buf, 8),
	       kernel_buffer_quoted(\$buf + 592, 8))
	q = kernel_buffer_quoted(\$buf, \$len); h = sprintf(\"%.*M\", \$len, \$buf)
	printf(\"%d %s %d %s\\n\", strlen(q), substr(q, strlen(q) - 12, 12), strlen(h),
	       substr(h, strlen(h) - 8, 8)) }"
cat >"$TMP/want" <<'WANT'
"ab\000c\"\n\200\377" "ab\000c\"\n\200\377" "3:AHOV]d"
21 "\n\200\377" 16 220a80ff
"ab\000c\"\n\200\377;BIPW^elsz\201"... "ab\000c\"\n\200\377" "3:AHOV]d"
510 \332\341"... 511 0e7eef5f
"ab\000c\"\n\200\377;BIPW^elsz\201"... "ab\000c\"\n\200\377" "3:AHOV]d"
510 \332\341"... 2 
WANT
if [ "$rc" -eq 0 ] && cmp -s "$TMP/want" "$TMP/out"; then
	ok "kernel_buffer_quoted(), user_buffer_quoted(): stap's quoting of a buffer"
else
	not_ok "buffer quoting (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/out"
	diag_file "$TMP/err"
fi

# 3. The plan: the 8 bytes of %.8M one u8[8] argument, the run-time
#    length's u64[64], each read whole by the runtime ("NAME[]").
"$KTAP" -p3 -e "$P { printf(\"%.8M %s\\n\", \$buf, kernel_buffer_quoted(\$buf, \$len)) }" \
	>"$TMP/out" 2>"$TMP/err"
if grep -q "buf_buf=+0(%di):u8\[8\] .*buf_buf_1=+0(%di):u64\[64\]" "$TMP/out" &&
   grep -q "field .: buf_buf\[\]" "$TMP/out" && grep -q "field .: buf_buf_1\[\]" "$TMP/out"; then
	ok "-p3: an array fetch argument per buffer, read whole"
else
	not_ok "-p3 of the buffers"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi

tfs_guard_end "tracefs unchanged after the runs"
done_testing
