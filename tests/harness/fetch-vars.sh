#!/bin/sh
# fetch-vars.sh - issue 13's "Reading memory": an address read through a
# variable the probe set earlier from a fetchable expression is fetched
# at the probe (compiler/resolve/sema_vardef.c), live on
# tests/tools/ktap-uprobe-target's handle(&r, k, "hello") (r.id 42,
# r.name "alpha", r.ip->y 70; k = 0, 1, 2), and the cases that must stay
# errors (the value could differ from the one at the probe).
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
UT=$KTAP_BUILDDIR/tests/tools/ktap-uprobe-target
P="probe process(\"$UT\").function(\"handle\")"
IY='function iy(r) { p = @cast(r, "struct req")->ip; return @cast(p, "struct inner")->y }'

require_live "live tests need root (run make check as root)"
require_tools "$UT" "$TFS_SNAP"

# 1-7: pass 2: what is accepted and refused.
plan_ok() {	# plan_ok DESCRIPTION BODY
	if "$KTAP" -p2 -e "global g; function f() { g = 0 } $IY $P { $2 }" >"$TMP/out" 2>"$TMP/err"; then
		ok "accepted: $1"
	else
		not_ok "accepted: $1"
		sed 's/^/# /' "$TMP/err"
	fi
}
plan_err() {	# plan_err DESCRIPTION BODY VARIABLE
	if "$KTAP" -p2 -e "global g; function f() { g = 0 } $IY $P { $2 }" >"$TMP/out" 2>"$TMP/err"; then
		not_ok "refused: $1 (accepted)"
	elif grep -q "error: '$3' is not an address the kernel can fetch at the probe" "$TMP/err" &&
	     [ "$(grep -c 'error:' "$TMP/err")" = 1 ]; then
		ok "refused: $1"
	else
		not_ok "refused: $1"
		sed 's/^/# /' "$TMP/err"
	fi
}
plan_ok "a local set from \$r, then @cast() through it" \
	'r = $r; println(@cast(r, "struct req")->id)'
plan_ok "a global set from \$r->ip, a copy, builtins in between" \
	'g = $r->ip; printf("-"); s = g; println(@cast(s, "struct inner")->y)'
plan_ok "a local of a function specialised for the probe" \
	'println(iy($r))'
plan_ok "stap's autocast: p->member of a local set from \$r" \
	'p = $r; println(p->id, p->ip->y)'
plan_ok "stap's autocast: q->member of a local set from &\$r->in" \
	'q = &$r->in; println(q->x)'
plan_err "a local also set inside an if" \
	'r = $r; if (1) r = 0; println(@cast(r, "struct req")->id)' r
plan_err "a local set only inside an if" \
	'if (1) r = $r; println(@cast(r, "struct req")->id)' r
plan_err "a global, with a function of the script called in between" \
	'g = $r; f(); println(@cast(g, "struct req")->id)' g
plan_err "a local written in the loop that reads through it" \
	'r = $r; while (r) { println(kernel_int(r)); r = 0 }' r

# 8b. '->' on a local with no typed definition reaching it: one error
# saying what would give it a type.
"$KTAP" -p2 -e "$P { if (\$n) p = \$r; println(p->ip->y) }" >"$TMP/out" 2>"$TMP/err"
if grep -q "error: p->ip->y: '->' on a script value needs the value's type" "$TMP/err" &&
   grep -q 'or write @cast(p, "TYPE")->ip->y$' "$TMP/err" && [ "$(grep -c 'error:' "$TMP/err")" = 1 ]; then
	ok "refused: autocast of a local set only inside an if, with what to write"
else
	not_ok "refused: autocast of a local set only inside an if, with what to write"
	sed 's/^/# /' "$TMP/err"
fi

# 8c. The variable an autocast reads through is read as the script wrote
# it: its assignment goes without a warning (the read uses $r itself).
"$KTAP" -p2 -e "$P { p = \$r; println(p->id) }" >"$TMP/out" 2>"$TMP/err"
if [ -s "$TMP/err" ] || ! grep -q 'println(\$r->id)' "$TMP/out"; then
	not_ok "autocast: p = \$r; p->id reads \$r->id, no warning about p"
	sed 's/^/# /' "$TMP/err"
else
	ok "autocast: p = \$r; p->id reads \$r->id, no warning about p"
fi

# 8. An error about one place met again later (k read through twice,
# another error in between) is said once: it was said twice.
"$KTAP" -p2 -e "$P.return { k = @entry(&\$r->in); println(@cast(k, \"struct inner\")->y)
println(\$nosuch); println(@cast(k, \"struct inner\")->x) }" >"$TMP/out" 2>"$TMP/err"
if [ "$(grep -c 'error: @entry(&\$r->in) is a value saved' "$TMP/err")" = 1 ] &&
   [ "$(grep -c 'error:' "$TMP/err")" = 2 ]; then
	ok "an error at one place is said once"
else
	not_ok "an error at one place is said once"
	sed 's/^/# /' "$TMP/err"
fi

# 9. Live: the values read through the variables are the probe's.
tfs_guard_begin
run_ktap "$TMP" "$TMP/out" "$TMP/err" -c "$UT" -e "global g
$IY
$P {
	r = \$r
	g = r
	p = @cast(g, \"struct req\")->ip
	printf(\"%d %s %d %d %d\\n\", @cast(r, \"struct req\")->id,
	       user_string(@cast(r, \"struct req\")->name), @cast(p, \"struct inner\")->y, \$n,
	       iy(\$r))
	q = \$r
	printf(\"%d %s %d\\n\", q->id, user_string(q->name), q->ip->y)
}"
grep -v '^[0-9]* [0-9]$' "$TMP/out" >"$TMP/got"	# the target prints "SUM N"
printf '42 alpha 70 %d 70\n42 alpha 70\n' 0 1 2 >"$TMP/want"
expect_same "values read through r, g, p and q (autocast) are those at the probe" "$TMP/want" "$TMP/got"
tfs_guard_end "tracefs unchanged after the run"
done_testing
