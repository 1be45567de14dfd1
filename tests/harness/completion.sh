#!/bin/sh
# completion.sh - scripts/bash-completion/ktap (issue 14, "Everyday
# use"): sourced in bash, COMPREPLY for options (from --help), -D names,
# probe points through `ktap -l`, tapset functions in -e and script files.
# Compile-only: -l reads the fixture tracefs.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

command -v bash >/dev/null 2>&1 || skip_all "bash is not installed"
KTAP_TRACEFS=$KTAP_SRCDIR/tests/fixtures/tracefs
export KTAP_TRACEFS
cd "$KTAP_SRCDIR" || exit 1

# comp DESC WANT CUR PREV: COMPREPLY of _ktap for the word CUR after
# PREV, one per line, is WANT.
comp() {
	printf '%s\n' "$2" >"$TMP/want"
	bash -c '. scripts/bash-completion/ktap
		_ktap "$1" "$2" "$3"; printf "%s\n" "${COMPREPLY[@]}"' \
		comp "$KTAP" "$3" "$4" >"$TMP/got" 2>"$TMP/err"
	if cmp -s "$TMP/want" "$TMP/got"; then ok "$1"; else not_ok "$1"; diag_diff "$TMP/want" "$TMP/got"; diag_file "$TMP/err"; fi
}

comp "an option from --help" "--color=" "--col" ""
comp "--color=: its values" "--color=always" "--color=al" ""
comp "-D: the limit names" "MAXACTION=
MAXACTION_INTERRUPTIBLE=" "MAXA" "-D"
comp "-l: tracepoints through ktap -l" 'kernel.trace("sched:sched_switch")' 'kernel.trace("sched:sched_sw' "-l"
comp "-L: probe aliases through ktap -l" "scheduler.ctxswitch" "scheduler.ctx" "-L"
comp "-e: tapset functions and builtins" "probe begin { println(execname(" "probe begin { println(execn" "-e"
comp "-e: a function of the tapset (ctime.stp)" "x = tz_ctime(" "x = tz_ct" "-e"
comp "a script file" "examples/syscalltop.stp" "examples/syscallt" ""

bash -c '. scripts/bash-completion/ktap; _ktap "$1" - ""; printf "%s\n" "${COMPREPLY[@]}"' c "$KTAP" >"$TMP/got"
"$KTAP" --help | grep -oE -- '(^|[ ,])--?[A-Za-z][-A-Za-z]*=?' | tr -d ' ,' | sort -u >"$TMP/want"
if [ -s "$TMP/want" ] && cmp -s "$TMP/want" "$TMP/got" && grep -q -- '^--dump-functions$' "$TMP/got"; then
	ok "every option of --help is completed ($(wc -l <"$TMP/got"))"
else
	not_ok "options"; diag_diff "$TMP/want" "$TMP/got"
fi
# -D: every name the driver gives a meaning to (compiler/driver_run.c).
names=$(sed -n '/^static int drv_limit/,/^}/s/^[[:space:]]*{ "\([A-Z_]*\)",.*/\1=/p' compiler/driver_run.c)
printf '%s\n' "$names" STP_TIMING= KRETACTIVE= | sort >"$TMP/want"
bash -c '. scripts/bash-completion/ktap; _ktap "$1" "" -D; printf "%s\n" "${COMPREPLY[@]}"' c "$KTAP" | sort >"$TMP/got"
if [ "$(wc -l <"$TMP/want")" -gt 2 ] && cmp -s "$TMP/want" "$TMP/got"; then
	ok "-D completes every name the driver accepts ($(wc -l <"$TMP/got"))"
else
	not_ok "-D names"; diag_diff "$TMP/want" "$TMP/got"
fi
bash -c '. scripts/bash-completion/ktap; complete -p ktap' >"$TMP/got" 2>&1
if grep -q -- '-F _ktap ktap' "$TMP/got"; then ok "complete -F _ktap ktap"; else not_ok "complete -p ktap"; diag_file "$TMP/got"; fi
done_testing
