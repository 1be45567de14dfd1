#!/bin/sh
# man.sh - the manual (issue 14, "Manual"): ktap(1) is --help plus
# doc/ktap.1.h2m (regenerated and compared), ktap-language(7) and one
# ktap-tapset-NAME(7) per tapset file are generated (regenerated here
# from the sources), every page renders with `man -l` without a warning,
# the language page names every -D limit the driver accepts, and
# `make install` installs all pages and the bash completion.  No root.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
S=$KTAP_SRCDIR/scripts
command -v man >/dev/null 2>&1 || skip_all "man is not installed"

# render DESC PAGE WANT: `man --warnings -l PAGE` exits 0, says nothing
# on stderr, and its text has the line WANT (a grep pattern).
render() {
	MANWIDTH=80 man --warnings -l "$2" >"$TMP/man" 2>"$TMP/err"
	rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$TMP/err" ] && grep -q -- "$3" "$TMP/man"; then
		ok "$1"
	else
		not_ok "$1 (exit status $rc)"
		diag_file "$TMP/err"
	fi
}

# -- ktap(1): --help and the include file ------------------------------
"$KTAP" --help >"$TMP/help"
version=$(sed -n 's/^\.TH KTAP 1 "" "\([^"]*\)".*/\1/p' "$KTAP_SRCDIR/doc/ktap.1")
sh "$S/help2man.sh" "$version" "$KTAP_SRCDIR/doc/ktap.1.h2m" <"$TMP/help" >"$TMP/ktap.1"
if cmp -s "$KTAP_SRCDIR/doc/ktap.1" "$TMP/ktap.1"; then
	ok "doc/ktap.1 is --help plus doc/ktap.1.h2m (make man)"
else
	not_ok "doc/ktap.1 is out of date: run make man"
	diag_diff "$KTAP_SRCDIR/doc/ktap.1" "$TMP/ktap.1"
fi
for sec in SYNOPSIS OPTIONS ENVIRONMENT 'EXIT STATUS' FILES EXAMPLES \
	'KERNEL FEATURES' 'DIFFERENCES FROM STAP' 'SEE ALSO'; do
	if grep -q "^\.SH $sec\$" "$TMP/ktap.1"; then
		ok "ktap(1) has $sec"
	else
		not_ok "ktap(1) has no $sec section"
	fi
done
render "man -l ktap(1): no warnings" "$TMP/ktap.1" '^ *--color=WHEN'

# EXIT STATUS says what ktap does (runs of begin and timer probes only).
statuses=
for s in 'probe begin { exit() }' 'probe begin { error("x") }' \
	'probe begin { x = 0; println(1 / x) }'; do
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "$s"
	statuses="$statuses$rc"
done
run_ktap "$TMP" "$TMP/out" "$TMP/err" -T 1 -e 'probe timer.s(30) { }'
statuses="$statuses$rc"
run_ktap "$TMP" "$TMP/out" "$TMP/err" --no-such-option
statuses="$statuses$rc"
if [ "$statuses" = 01101 ] && grep -q '^ *0 *success: the script ended by exit(), -T' "$TMP/help"; then
	ok "EXIT STATUS: exit() 0, error() 1, division by zero 1, -T 0, a bad option 1"
else
	not_ok "exit statuses $statuses, want 01101"
fi

# -- section 7: generated from doc/language.md and the tapset ------------
mkdir "$TMP/man7"
sh "$S/md2man.sh" ktap-language 7 "the SystemTap script language as ktap implements it" \
	doc/language.md <"$KTAP_SRCDIR/doc/language.md" >"$TMP/man7/ktap-language.7"
sh "$S/tapset-doc.sh" --man "$TMP/man7" "$KTAP_SRCDIR/tapset"
render "man -l ktap-language(7): no warnings" "$TMP/man7/ktap-language.7" '^LIMITS AND -D NAMES'
# Every name the driver gives a meaning to is documented.
names=$(sed -n '/^static int drv_limit/,/^}/s/^[[:space:]]*{ "\([A-Z_]*\)",.*/\1/p' "$KTAP_SRCDIR/compiler/driver_run.c")
missing=
for n in $names STP_TIMING KRETACTIVE; do
	grep -q "^\.B $n\$" "$TMP/man7/ktap-language.7" || missing="$missing $n"
done
if [ -n "$names" ] && [ -z "$missing" ]; then
	ok "ktap-language(7) documents every -D name ($(echo "$names" | wc -w) limits, STP_TIMING, KRETACTIVE)"
else
	not_ok "ktap-language(7) lacks -D names:${missing:- (none found in driver_run.c)}"
fi

nstp=$(find "$KTAP_SRCDIR/tapset" -maxdepth 1 -name '*.stp' | wc -l)
npages=$(find "$TMP/man7" -name 'ktap-tapset-*.7' | wc -l)
if [ "$nstp" -gt 0 ] && [ "$npages" -eq "$nstp" ]; then
	ok "one ktap-tapset-NAME(7) per tapset file ($nstp)"
else
	not_ok "$npages tapset pages for $nstp tapset files"
fi
bad=
for p in "$TMP"/man7/ktap-tapset-*.7; do
	# a file of only globals (this.stp) has no PROBES AND FUNCTIONS
	stp=${p##*/ktap-tapset-}
	stp=$KTAP_SRCDIR/tapset/${stp%.7}.stp
	if ! MANWIDTH=80 man --warnings -l "$p" >"$TMP/man" 2>"$TMP/err" ||
		[ -s "$TMP/err" ] || ! grep -q '^DESCRIPTION' "$TMP/man" ||
		{ grep -q '^/\*\*' "$stp" && ! grep -q '^PROBES AND FUNCTIONS' "$TMP/man"; }; then
		bad="$bad ${p##*/}"
		diag_file "$TMP/err"
	fi
done
if [ -z "$bad" ]; then ok "man -l: every tapset page renders without warnings"; else not_ok "tapset pages:$bad"; fi
render "ktap-tapset-ctime(7): a function with its signature and argument" \
	"$TMP/man7/ktap-tapset-ctime.7" 'function ctime:string(epochsecs:long)'
render "ktap-tapset-vfs(7): a probe alias with its variables" \
	"$TMP/man7/ktap-tapset-vfs.7" '^ *bytes_to_read'
# The tapset page and doc/tapset.md come from the same comments: a
# function's summary is in both.
sum=$(awk '/^### ctime\(\)/ { on = 1; next } on && /^```/ { f++; next }
	on && f == 2 && NF { print; exit }' "$KTAP_SRCDIR/doc/tapset.md")
if [ -n "$sum" ] && grep -qF "$sum" "$TMP/man7/ktap-tapset-ctime.7"; then
	ok "ctime()'s summary is the same in doc/tapset.md and ktap-tapset-ctime(7)"
else
	not_ok "ctime()'s summary differs ('$sum')"
fi

# The build's pages are these.
if diff -r "$TMP/man7" "$KTAP_BUILDDIR/doc/man" -x .stamp >"$TMP/diff" 2>&1; then
	ok "the build's doc/man/ is what the scripts make"
else
	not_ok "doc/man/ differs from a regeneration"
	diag_file "$TMP/diff"
fi

# -- make install ------------------------------------------------------
if make -C "$KTAP_BUILDDIR" install DESTDIR="$TMP/d" >"$TMP/install.log" 2>&1; then
	bin=$(find "$TMP/d" -path '*/bin/ktap' -type f | head -n 1)
	prefix=${bin%/bin/ktap}
	n7=$(find "$prefix/share/man/man7" -name 'ktap-*.7' | wc -l)
	if [ -f "$prefix/share/man/man1/ktap.1" ] && [ "$n7" -eq $((nstp + 1)) ] &&
		[ -f "$prefix/share/man/man7/ktap-language.7" ] &&
		[ -f "$prefix/share/bash-completion/completions/ktap" ] &&
		[ -f "$prefix/share/doc/ktap/language.md" ]; then
		ok "make install: ktap(1), ktap-language(7), $nstp tapset pages, bash completion"
	else
		not_ok "make install: $n7 section-7 pages for $((nstp + 1)) expected"
		find "$TMP/d" -name 'ktap*' | sed 's/^/# /'
	fi
	render "the installed ktap-language(7) renders" "$prefix/share/man/man7/ktap-language.7" '^PROBE POINTS'
	if make -C "$KTAP_BUILDDIR" uninstall DESTDIR="$TMP/d" >"$TMP/install.log" 2>&1 &&
		[ -z "$(find "$TMP/d" -name '*.7')" ]; then
		ok "make uninstall removes the section-7 pages"
	else
		not_ok "make uninstall leaves pages"; find "$TMP/d" -name '*.7' | sed 's/^/# /'
	fi
else
	not_ok "make install DESTDIR=..."
	diag_file "$TMP/install.log"
fi
done_testing
