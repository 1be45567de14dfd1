#!/bin/sh
# file-cycles.sh - the compiler's and the runtime's files call each other
# one way (TAP).
#
# scripts/file-cycles.sh lists which C files call functions defined in
# which others; the cases:
#   1. no cycle among the compiler's files (compiler/**/*.c, the flex and
#      bison outputs left out), nor among the runtime's (runtime/*.c)
#      (issue 11: a file never calls back into one that calls it);
#   2. pass 2's typing and target-variable resolution: sema_type.c calls
#      sema_target.c, sema_target.c never sema_type.c (it types
#      subexpressions through sema_ctx.type_expr instead);
#   3. neither of the two is over 1000 lines (the reason they are two);
#   4. no hand-written .c file in compiler/ or runtime/ is over 1000 lines
#      (issue 11; the flex and bison outputs lexer.c and parser.c left
#      out), the offenders printed.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

src=$KTAP_SRCDIR

# 1. no cycle
for dir in compiler runtime; do
	files=$(cd "$src" && find $dir -name '*.c' ! -name lexer.c ! -name parser.c | sort)
	# shellcheck disable=SC2086  # file names without blanks
	if (cd "$src" && sh scripts/file-cycles.sh $files) >"$TMP/edges.$dir" 2>&1; then
		ok "no file cycle in $dir/ ($(grep -c -- '->' "$TMP/edges.$dir") calls between files)"
	else
		not_ok "no file cycle in $dir/"
		sed -n '/^cycles:/,$s/^/# /p' "$TMP/edges.$dir"
	fi
done
cp "$TMP/edges.compiler" "$TMP/edges"

# 2. typing -> target variables, not back
t=compiler/resolve/sema_type.c g=compiler/resolve/sema_target.c
if grep -q "^$t -> $g " "$TMP/edges" && ! grep -q "^$g -> $t " "$TMP/edges"; then
	ok "sema_type.c calls sema_target.c, which does not call it back"
else
	not_ok "sema_type.c calls sema_target.c, which does not call it back"
	grep -- "sema_t[a-z]*\.c -> .*sema_t[a-z]*\.c" "$TMP/edges" | sed 's/^/# /'
fi

# 3. sizes
long=$(cd "$src" && wc -l $t $g | awk '$2 != "total" && $1 > 1000 { print $2 " " $1 }')
if [ -z "$long" ]; then
	ok "sema_type.c and sema_target.c are at most 1000 lines each"
else
	not_ok "sema_type.c and sema_target.c are at most 1000 lines each"
	echo "# $long"
fi

# 4. no long file anywhere in the two trees
# shellcheck disable=SC2086  # file names without blanks
long=$(cd "$src" && wc -l $(find compiler runtime -name '*.c' ! -name lexer.c ! -name parser.c | sort) |
	awk '$2 != "total" && $1 > 1000 { print $2 " " $1 }')
if [ -z "$long" ]; then
	ok "no .c file in compiler/ or runtime/ is over 1000 lines"
else
	not_ok "no .c file in compiler/ or runtime/ is over 1000 lines"
	echo "$long" | sed 's/^/# /'
fi
done_testing
