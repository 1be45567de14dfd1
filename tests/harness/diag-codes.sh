#!/bin/sh
# diag-codes.sh - the table of diagnostic codes is complete (TAP).
#
# compiler/diag.def gives every compiler diagnostic a stable code, found
# at run time from the message's format.  scripts/diag-formats.awk lists
# the formats the sources of compiler/ pass to the diagnostic functions
# (FUNCS below: NAME:N, the format is argument N); the cases:
#   1. each such format is a string literal and is in diag.def (a new
#      diagnostic must be registered: the failure prints the line to add);
#   2. each diag.def format is still used somewhere;
#   3. codes and names are unique, codes look like E1234;
#   4. every diag_vreport caller (a pass's own wrapper) is in FUNCS;
#   5. doc/diagnostics.md is scripts/diag-doc.sh's output;
#   6. --diag-codes prints the code, and no code without it.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

FUNCS="diag_error:3 diag_warning:3 diag_note:3 diag_plain:3 diag_report:4"
FUNCS="$FUNCS lex_error:4 parse_err:3 pp_err:3 sema_err:3"
src=$KTAP_SRCDIR
def=$src/compiler/diag.def
[ -f "$def" ] || skip_all "no compiler/diag.def"

# The hand-written sources: not lexer.c/parser.c generated from .l/.y.
(cd "$src" && find compiler -name '*.[chly]' | sort) | while read -r f; do
	case $f in
	*.c|*.h) [ -f "$src/${f%.?}.l" ] || [ -f "$src/${f%.?}.y" ] && continue ;;
	esac
	echo "$f"
done >"$TMP/files"

# shellcheck disable=SC2046  # file names without blanks
(cd "$src" && awk -v funcs="$FUNCS" -f scripts/diag-formats.awk \
	$(cat "$TMP/files")) >"$TMP/used"
# The formats of diag.def, as written between the quotes.
sed -n 's/^DIAG([^,]*, *[^,]*, *"\(.*\)")[ \t]*$/\1/p' "$def" >"$TMP/def.fmt"
sed -n 's/^DIAG(\([^,]*\), *\([^,]*\), .*/\1 \2/p' "$def" >"$TMP/def.codes"

# 1. used formats: literal, and in the table
awk -F '\t' 'NR == FNR { have[$0] = 1; next }
	$2 ~ /^!/ { print "# " $1 ": the format is not a string literal: " substr($2, 2); next }
	!($2 in have) { print "# " $1 ": DIAG(E????, name, \"" $2 "\")" }' \
	"$TMP/def.fmt" "$TMP/used" >"$TMP/missing"
if [ -s "$TMP/missing" ] || [ ! -s "$TMP/used" ]; then
	not_ok "every diagnostic format in compiler/ is in compiler/diag.def"
	echo "# missing from compiler/diag.def (add with the next free code of its pass):"
	cat "$TMP/missing"
else
	ok "every diagnostic format in compiler/ is in compiler/diag.def ($(wc -l <"$TMP/used") calls)"
fi

# 2. table entries in use
cut -f 2 "$TMP/used" | sort -u >"$TMP/used.fmt"
sort "$TMP/def.fmt" | comm -23 - "$TMP/used.fmt" >"$TMP/unused"
if [ -s "$TMP/unused" ]; then
	not_ok "every format of compiler/diag.def is used"
	echo "# not passed by any call (remove the line; its code is not reused):"
	sed 's/^/#   /' "$TMP/unused"
else
	ok "every format of compiler/diag.def is used ($(wc -l <"$TMP/def.fmt") codes)"
fi

# 3. unique codes, names and formats
bad=$( (cut -d ' ' -f 1 "$TMP/def.codes" | sort | uniq -d
	cut -d ' ' -f 2 "$TMP/def.codes" | sort | uniq -d
	sort "$TMP/def.fmt" | uniq -d
	grep -v '^E[0-9][0-9][0-9][0-9] [a-z][a-z0-9_]*$' "$TMP/def.codes") | head -n 20)
if [ -z "$bad" ] && [ "$(wc -l <"$TMP/def.codes")" -eq "$(wc -l <"$TMP/def.fmt")" ]; then
	ok "diag.def: codes (E1234), names and formats are unique"
else
	not_ok "diag.def: codes (E1234), names and formats are unique"
	echo "$bad" | sed 's/^/#   /'
fi

# 4. the wrappers: one diag_vreport call each, outside diag.c
# shellcheck disable=SC2046  # file names without blanks
(cd "$src" && grep -c 'diag_vreport(' $(grep -v '^compiler/diag\.[ch]$' "$TMP/files")) |
	awk -F: '{ n += $NF } END { print n + 0 }' >"$TMP/nv"
nwrap=$(echo "$FUNCS" | tr ' ' '\n' | grep -vc '^diag_')
if [ "$(cat "$TMP/nv")" -eq "$nwrap" ]; then
	ok "every wrapper of diag_vreport is one this test reads ($nwrap)"
else
	not_ok "every wrapper of diag_vreport is one this test reads"
	echo "# $(cat "$TMP/nv") calls of diag_vreport outside diag.c, $nwrap wrappers in FUNCS:"
	echo "# add the new wrapper as NAME:N (N: its format argument) to FUNCS"
fi

# 5. the documentation
sh "$src/scripts/diag-doc.sh" "$def" >"$TMP/doc.md"
if cmp -s "$src/doc/diagnostics.md" "$TMP/doc.md"; then
	ok "doc/diagnostics.md is up to date with compiler/diag.def"
else
	not_ok "doc/diagnostics.md is up to date (sh scripts/diag-doc.sh >doc/diagnostics.md)"
	diag_diff "$src/doc/diagnostics.md" "$TMP/doc.md"
fi

# 6. the option
run_ktap "$TMP" "$TMP/out" "$TMP/err1" -p1 -e 'probe begin { "unterminated'
run_ktap "$TMP" "$TMP/out" "$TMP/err2" -p1 --diag-codes -e 'probe begin { "unterminated'
w1='<input>:1:15: error: unterminated string literal'
w2='<input>:1:15: error[E0103]: unterminated string literal'
if [ "$(head -n 1 "$TMP/err1")" = "$w1" ] && [ "$(head -n 1 "$TMP/err2")" = "$w2" ] &&
	[ "$rc" -eq 1 ]; then
	ok "--diag-codes: error[E0103]; without it: error"
else
	not_ok "--diag-codes: error[E0103]; without it: error (exit status $rc)"
	diag_file "$TMP/err1"
	diag_file "$TMP/err2"
fi
done_testing
