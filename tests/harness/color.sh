#!/bin/sh
# color.sh - --color=auto|always|never for diagnostics (issue 14,
# "Everyday use"): gcc's SGR sequences with always, none with never or
# auto on a pipe, and auto on a terminal (through script(1)) unless
# NO_COLOR is set.  Compile-only (-p2): no tracefs.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

unset NO_COLOR
E=$(printf '\033')
S='probe begin { x = 1 }'

# The exact bytes gcc would write: bold location, bold magenta
# "warning:", green caret, each closed by ESC[m ESC[K.
{
	printf '%s[01m%s[K<input>:1:15:%s[m%s[K %s[01;35m%s[Kwarning:%s[m%s[K eliding assignment to '\''x'\'': nothing reads it\n' \
		"$E" "$E" "$E" "$E" "$E" "$E" "$E" "$E"
	printf '     1 | %s\n' "$S"
	printf '       |               %s[01;32m%s[K^%s[m%s[K\n' "$E" "$E" "$E" "$E"
} >"$TMP/want"
run_ktap "$TMP" "$TMP/out" "$TMP/err" --color=always -p2 -e "$S"
if [ "$rc" -eq 0 ] && cmp -s "$TMP/want" "$TMP/err"; then
	ok "--color=always: gcc's escape sequences, exactly"
else
	not_ok "--color=always (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/err"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" --color=always -p2 -e 'probe begin { undefined_fn() }'
if grep -q "^$E\[01m$E\[K<input>:1:15:$E\[m$E\[K $E\[01;31m$E\[Kerror:$E\[m$E\[K " "$TMP/err"; then
	ok "--color=always: \"error:\" in bold red"
else
	not_ok "--color=always: error colour"; diag_file "$TMP/err"
fi

for opt in --color=never --color=auto ""; do
	run_ktap "$TMP" "$TMP/out" "$TMP/err" $opt -p2 -e "$S"
	if [ "$rc" -eq 0 ] && grep -q "warning: eliding assignment to 'x'" "$TMP/err" && ! grep -q "$E" "$TMP/err"; then
		ok "${opt:-no --color} on a pipe: no escape sequences"
	else
		not_ok "${opt:-no --color} on a pipe"; diag_file "$TMP/err"
	fi
done

run_ktap "$TMP" "$TMP/out" "$TMP/err" --color=sometimes -p2 -e "$S"
if [ "$rc" -eq 1 ] && grep -q "^ktap: error: --color expects auto, always or never, got 'sometimes'" "$TMP/err"; then
	ok "--color=sometimes: a usage error"
else
	not_ok "--color=sometimes (exit status $rc)"; diag_file "$TMP/err"
fi

# auto on a terminal: script(1) gives ktap a pseudo-terminal.
if command -v script >/dev/null 2>&1; then
	cmd="'$KTAP' -p2 -e '$S' >/dev/null"
	script -qec "$cmd" /dev/null </dev/null >"$TMP/tty" 2>&1
	if grep -q "$E\[01;35m$E\[Kwarning:" "$TMP/tty"; then
		ok "--color=auto on a terminal: coloured"
	else
		not_ok "--color=auto on a terminal"; diag_file "$TMP/tty"
	fi
	NO_COLOR=1 script -qec "$cmd" /dev/null </dev/null >"$TMP/tty" 2>&1
	if grep -q "warning: eliding assignment to 'x'" "$TMP/tty" && ! grep -q "$E" "$TMP/tty"; then
		ok "NO_COLOR=1: --color=auto on a terminal is plain"
	else
		not_ok "NO_COLOR=1 on a terminal"; diag_file "$TMP/tty"
	fi
	NO_COLOR=1 script -qec "'$KTAP' --color=always -p2 -e '$S' >/dev/null" /dev/null </dev/null >"$TMP/tty" 2>&1
	if grep -q "$E\[01;35m" "$TMP/tty"; then
		ok "NO_COLOR=1 does not override --color=always"
	else
		not_ok "NO_COLOR=1 with --color=always"; diag_file "$TMP/tty"
	fi
else
	skip "--color=auto on a terminal" "script(1) is not installed"
fi
done_testing
