#!/bin/sh
# file-cycles.sh FILE.c... - which of these C files call each other in a
# circle.  An edge A -> B means A calls a function that B defines (not
# static; found by grep, comments excluded: a quick check, not a parser).
# Prints the edges, then any cycle tsort finds; exits 1 when there is one.
# Example: scripts/file-cycles.sh compiler/resolve/sema*.c compiler/parse/ast*.c
set -u
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
strip() { sed -e 's|/\*.*\*/||g' -e '/^[ \t]*\/\?\*/d' "$1"; }
for f in "$@"; do
	strip "$f" | grep -E '^[a-z_][a-z0-9_ *]*[ *]([a-z_][a-z0-9_]*)\(' | grep -v '^static' |
		grep -v ';$' | sed -E 's/.*[ *]([a-z_][a-z0-9_]*)\(.*/\1/' | sort -u |
		sed "s|\$| $f|"
done >"$tmp/defs"
# The calls: every word followed by '(' in each file, once ("FILE NAME"),
# joined with the definitions (one pass, not a grep per pair).
for f in "$@"; do
	strip "$f" | grep -oE '[A-Za-z0-9_]+\(' | sed 's/($//' | sort -u | sed "s|^|$f |"
done >"$tmp/calls"
awk 'NR == FNR { def[$1] = def[$1] " " $2; next }
     { n = split(def[$2], d, " "); for (i = 1; i <= n; i++) if (d[i] != $1) print $1, d[i], $2 }' \
	"$tmp/defs" "$tmp/calls" >"$tmp/edges"
awk '{ print $1 " -> " $2 " (" $3 ")" }' "$tmp/edges" | sort
awk '{ print $2, $1 }' "$tmp/edges" | sort -u | tsort >/dev/null 2>"$tmp/loops"
if [ -s "$tmp/loops" ]; then
	echo "cycles:"
	cat "$tmp/loops"
	exit 1
fi
echo "no cycle"
