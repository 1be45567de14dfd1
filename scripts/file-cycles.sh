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
: >"$tmp/edges"
for f in "$@"; do
	strip "$f" >"$tmp/body"
	while read -r fn def; do
		[ "$def" = "$f" ] && continue
		grep -qE "\\b$fn\\(" "$tmp/body" && echo "$f $def $fn" >>"$tmp/edges"
	done <"$tmp/defs"
done
awk '{ print $1 " -> " $2 " (" $3 ")" }' "$tmp/edges" | sort
awk '{ print $2, $1 }' "$tmp/edges" | sort -u | tsort >/dev/null 2>"$tmp/loops"
if [ -s "$tmp/loops" ]; then
	echo "cycles:"
	cat "$tmp/loops"
	exit 1
fi
echo "no cycle"
