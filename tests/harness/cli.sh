#!/bin/sh
# cli.sh - the command line as stap's, the manual page, the kernel
# configuration, the installed ktap and what non-root users are told
# (TAP).  Nothing here creates tracefs objects: the runs that would are
# refused before they start.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
F=$KTAP_SRCDIR/tests/fixtures
unset KTAP_TAPSET KTAP_KCONFIG KTAP_BTF KTAP_TAPSET_EAGER
KTAP_TRACEFS=$F/tracefs
export KTAP_TRACEFS

# check DESC CONDITION...: ok when the command succeeds, else the stderr.
check() {
	_d=$1
	shift
	if "$@"; then ok "$_d"; else not_ok "$_d (exit status $rc)"; diag_file "$TMP/err"; fi
}

# -- issue 10 item 12: options as stap's --------------------------------
run_ktap "$TMP" "$TMP/out" "$TMP/err" -up1 -e 'probe begin { }'
check "-up1: combined short flags (-u -p1)" test "$rc" -eq 0 -a "$(head -n 1 "$TMP/out")" = "# parse tree dump"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe syscall.openat { println(name) }'
run_ktap "$TMP" "$TMP/out-u" "$TMP/err" -u -p2 -e 'probe syscall.openat { println(name) }'
check "-u keeps the alias locals nothing reads (argstr), the default elides them" \
	sh -c "! grep -q 'argstr = ' '$TMP/out' && grep -q 'argstr = ' '$TMP/out-u'"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -W -p2 -e 'probe begin { x = 1 }'
check "-W: a warning is an error (exit 1, no -p2 output)" \
	sh -c "[ $rc -eq 1 ] && [ ! -s '$TMP/out' ] && grep -q 'warning: eliding assignment to .x.: nothing reads it' '$TMP/err' && grep -q 'ktap: error: pass 2: 1 warning treated as error (-W)' '$TMP/err'"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe begin { x = 1 }'
check "without -W the same warning exits 0" test "$rc" -eq 0

# No "never read" warning for a foreach loop variable the body ignores
# (stap gives none); warn("x\n") ends the line once, as stap's _stp_vlog.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'global t, n
probe begin { t[1] = 1; foreach (k in t) n++; foreach (v = [k2] in t) n++
	warn("x\n"); warn("y"); exit() }
probe end { print(n) }'
check "foreach keys unused: no warning; warn() with and without its newline" \
	sh -c "[ $rc -eq 0 ] && [ \"\$(cat '$TMP/out')\" = 2 ] && [ \"\$(cat '$TMP/err')\" = \"\$(printf 'WARNING: x\nWARNING: y')\" ]"
# -v's "Pass 5: handled ..." comes after the end probes' output (stdout
# and stderr into one file: the order the user sees).
timeout 60 "$KTAP" -v -e 'probe begin { print("a"); exit() } probe end { print("b") }' >"$TMP/both" 2>&1 </dev/null 9<&-
check "-v: the Pass 5 line after the end probes' output" \
	sh -c "tr -d '\n' <'$TMP/both' | grep -q 'abPass 5: handled'"

run_ktap "$TMP" "$TMP/out" "$TMP/err" --version
check "--version names the SystemTap language level" \
	grep -q '^ktap [0-9.]*, a compiler and runtime of the SystemTap 5\.0 script$' "$TMP/out"

run_ktap "$TMP" "$TMP/help" "$TMP/err" --help
check "--help prints %( and never %%(" \
	sh -c "grep -q '%( kernel_v ... %)' '$TMP/help' && ! grep -q '%%' '$TMP/help'"
for v in KTAP_TAPSET KTAP_TRACEFS KTAP_BTF KTAP_DEBUGINFO_PATH KTAP_KCONFIG KTAP_TAPSET_EAGER; do
	grep -q "^  $v" "$TMP/help" || missing="$missing $v"
done
check "--help documents every environment variable ktap reads${missing:+ (missing:$missing)}" test -z "$missing"
# and the session (with target.c and target_tracedat.c, the target
# descriptions it calls) is the one place that looks at the machine: no
# getenv(), access() or /proc below it
getenvs=$(grep -l -e 'getenv(' -e 'access(' -e '"/proc/' "$KTAP_SRCDIR"/compiler/*.c \
	"$KTAP_SRCDIR"/compiler/*/*.c 2>/dev/null | sed "s|$KTAP_SRCDIR/||" | tr '\n' ' ')
check "getenv(), access(), /proc only in compiler/session.c and target*.c (found in: $getenvs)" \
	test "$getenvs" = "compiler/session.c compiler/target.c compiler/target_tracedat.c "

# -- issue 10 item 14: the manual page is --help -------------------------
version=$(sed -n '1s/,.*//p' "$TMP/out")
sh "$KTAP_SRCDIR/scripts/help2man.sh" "$version" <"$TMP/help" >"$TMP/ktap.1"
if cmp -s "$KTAP_SRCDIR/doc/ktap.1" "$TMP/ktap.1"; then
	ok "doc/ktap.1 is generated from --help (make man)"
else
	not_ok "doc/ktap.1 is out of date: run make man"
	diag_diff "$KTAP_SRCDIR/doc/ktap.1" "$TMP/ktap.1"
fi
if command -v man >/dev/null 2>&1; then
	MANWIDTH=80 man --warnings -l "$KTAP_SRCDIR/doc/ktap.1" >"$TMP/man" 2>"$TMP/err"
	rc=$?
	check "man -l doc/ktap.1 renders without warnings" \
		sh -c "[ $rc -eq 0 ] && [ ! -s '$TMP/err' ] && grep -q -- '--save-target DIR' '$TMP/man'"
else
	skip "man -l doc/ktap.1" "man is not installed"
fi

# -- issue 10 item 11: %( CONFIG_X %) --------------------------------------
cond='%( CONFIG_KPROBES == "y" %? probe begin { } %: probe end { } %)
%( CONFIG_KTAP_NO_SUCH_OPTION == 0 && CONFIG_KTAP_NO_SUCH_OPTION != "y" %? probe timer.s(1) { } %)'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p1 --target "$F/target-6.1" -e "$cond"
check "CONFIG_ from the target's configuration (6.1: KPROBES=y); an unset option is 0 and not \"y\", no error" \
	sh -c "[ $rc -eq 0 ] && grep -q '^probe begin' '$TMP/out' && grep -q '^probe timer.s(1)' '$TMP/out'"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p1 --target "$F/target-6.18" -e "$cond"
check "CONFIG_ of the 6.18 target: KPROBES is not set" \
	sh -c "[ $rc -eq 0 ] && grep -q '^probe end' '$TMP/out'"
if [ -r /proc/config.gz ] && zcat /proc/config.gz | grep -qx 'CONFIG_TRACING=y'; then
	run_ktap "$TMP" "$TMP/out" "$TMP/err" -p1 -e '%( CONFIG_TRACING == "y" %? probe begin { } %: probe end { } %)'
	check "CONFIG_ of the running kernel from /proc/config.gz" \
		sh -c "[ $rc -eq 0 ] && grep -q '^probe begin' '$TMP/out'"
else
	skip "CONFIG_ from /proc/config.gz" "no /proc/config.gz with CONFIG_TRACING=y"
fi

# -- issue 13: -l lists 'never' as stap does (it has no probe to list) --
run_ktap "$TMP" "$TMP/out" "$TMP/err" -l '{never,begin}'
check "-l '{never,begin}' lists both, sorted" \
	sh -c "[ $rc -eq 0 ] && [ \"\$(tr '\\n' ' ' <'$TMP/out')\" = 'begin never ' ]"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -L 'procfs("status").read'
check "-L procfs(\"status\").read: its variable \$value, as stap lists it" \
	sh -c "[ $rc -eq 0 ] && [ \"\$(cat '$TMP/out')\" = 'procfs(\"status\").read \$value:string' ]"

# -- issue 10 item 14: the tapset, installed or not found ----------------
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe begin { println(ctime(0)) }'
KTAP_TAPSET=$TMP/none
export KTAP_TAPSET
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe begin { println(ctime(0)) }'
unset KTAP_TAPSET
check "no tapset: said once, with the places tried" \
	sh -c "[ $rc -eq 1 ] && [ \$(grep -c 'no tapset found (looked in $TMP/none)' '$TMP/err') -eq 1 ]"

if make -C "$KTAP_BUILDDIR" install DESTDIR="$TMP/d" >"$TMP/install.log" 2>&1; then
	bin=$(find "$TMP/d" -path '*/bin/ktap' -type f | head -n 1)
	prefix=${bin%/bin/ktap}
	(cd / && exec timeout 20 "$bin" -p2 -e 'probe begin { println(ctime(0)) }') \
		>"$TMP/out" 2>"$TMP/err"
	rc=$?
	check "an installed ktap finds its tapset from any directory" test "$rc" -eq 0
	n=$(find "$prefix/share/doc/ktap/examples" -name '*.stp' 2>/dev/null | wc -l)
	want=$(find "$KTAP_SRCDIR/examples" -maxdepth 1 -name '*.stp' | wc -l)
	check "make install: man page, docs and all $want examples" \
		sh -c "[ -f '$prefix/share/man/man1/ktap.1' ] && [ -f '$prefix/share/doc/ktap/README.md' ] && [ -f '$prefix/share/doc/ktap/tapset.md' ] && [ $n -eq $want ]"
	# every tapset file of the tree is installed (Makefile.am lists them)
	missing=$(cd "$KTAP_SRCDIR/tapset" && for f in *.stp *.stpm; do
		[ -n "$(find "$prefix/share" -path "*/tapset/$f" | head -n 1)" ] || echo "$f"
	done)
	check "make install: every tapset file${missing:+ (missing: $missing)}" test -z "$missing"
else
	not_ok "make install DESTDIR=..."
	diag_file "$TMP/install.log"
	not_ok "make install: man page, docs and examples"
	not_ok "make install: every tapset file"
fi

# -- issue 10 item 15: README's quick start, exactly two commands that
# work with sudo and, as root, without it ----------------------------------
awk '/^## Quick start/ { q = 1 } q && /^```sh/ { on = 1; next } on && /^```/ { exit } on' \
	"$KTAP_SRCDIR/README.md" >"$TMP/quick"
check "README's quick start is two commands, none a bare sudo" \
	sh -c "[ \$(wc -l <'$TMP/quick') -eq 2 ] && ! grep -q '^sudo ' '$TMP/quick' && grep -q '^\\\$(command -v sudo) scripts/bootstrap.sh && ' '$TMP/quick'"
if [ "$(id -u)" -eq 0 ] && [ -r /sys/kernel/tracing/events ]; then
	# its ktap half, as -p3, where there is no sudo (PATH without it)
	cmd=$(head -n 1 "$TMP/quick" | sed -e 's/^.* && //' -e "s|\./ktap -T 2|'$KTAP' -p3|")
	mkdir "$TMP/nosudo"
	(cd "$TMP" && timeout 20 env -u KTAP_TRACEFS PATH="$TMP/nosudo" /bin/sh -c "$cmd") >"$TMP/out" 2>"$TMP/err"
	rc=$?
	check "README's first command as root without sudo" \
		sh -c "[ $rc -eq 0 ] && grep -q 'raw_syscalls/sys_enter/enable' '$TMP/out'"
else
	skip "README's first command as root without sudo" "not root, or tracefs unreadable"
fi

# -- issue 10 item 16: what non-root users are told ----------------------
unset KTAP_TRACEFS
nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	for d in "-p3 of a tracepoint as nobody" "syscall.* as nobody" \
		"an optional kprobe as nobody" "a uprobe run as nobody" \
		"tracefs not mounted, as nobody" "tracefs not mounted, as root"; do
		skip "$d" "needs root and setpriv"
	done
else
	# shellcheck disable=SC2086  # $nobody is a command and its options
	as_nobody() { (cd "$TMP" && exec timeout 20 $nobody "$KTAP" "$@") >"$TMP/out" 2>"$TMP/err"; rc=$?; }
	need='ktap needs root (or CAP_SYS_ADMIN/CAP_PERFMON and read access to tracefs)'
	as_nobody -p3 -e 'global cnt; probe kernel.trace("sched:*") ? { cnt++ } probe end { println(cnt) }'
	check "-p3 of a tracepoint as nobody: what ktap needs, not 'unresolved type'" \
		sh -c "[ $rc -eq 1 ] && grep -qF '$need' '$TMP/err' && ! grep -q unresolved '$TMP/err'"
	as_nobody -p2 -e 'global cnt; probe syscall.* ? { cnt++ } probe end { println(cnt) }'
	check "syscall.* as nobody: the reason once, not once per system call" \
		sh -c "[ $rc -eq 1 ] && [ \$(grep -c 'error:' '$TMP/err') -eq 1 ] && grep -qF '$need' '$TMP/err'"
	as_nobody -p2 -e 'global cnt; probe kernel.function("vfs_read") ? { cnt++ } probe end { println(cnt) }'
	check "an optional kprobe as nobody: what ktap needs, not 'unresolved type'" \
		sh -c "[ $rc -eq 1 ] && grep -qF '$need' '$TMP/err' && ! grep -q unresolved '$TMP/err'"
	as_nobody -T 1 -e "probe process(\"$KTAP_BUILDDIR/tests/tools/ktap-uprobe-target\").function(\"main\") { }"
	check "a uprobe run as nobody: what ktap needs, not 'mkdir: Permission denied'" \
		sh -c "[ $rc -eq 1 ] && grep -qF '$need' '$TMP/err' && ! grep -q mkdir '$TMP/err'"
	# tracefs unmounted in a mount namespace of our own (status 3: cannot)
	unshare -m sh -c "umount /sys/kernel/tracing 2>/dev/null || exit 3
		[ -e /sys/kernel/tracing/events ] && exit 3
		cd '$TMP' || exit 3
		$nobody '$KTAP' -p3 -e 'probe kernel.trace(\"sched:sched_switch\") { }' >'$TMP/out' 2>'$TMP/err'
		'$KTAP' -p3 -e 'probe kernel.trace(\"sched:sched_switch\") { }' >'$TMP/out2' 2>'$TMP/err2'
		exit 0"
	if [ $? -ne 3 ]; then
		check "tracefs not mounted, as nobody: says how to mount it" \
			grep -qF 'tracefs is not mounted (as root: mount -t tracefs nodev /sys/kernel/tracing)' "$TMP/err"
		check "tracefs not mounted, as root: ktap mounts it" \
			grep -q 'sched_switch/enable' "$TMP/out2"
	else
		skip "tracefs not mounted, as nobody" "cannot unmount tracefs in a private mount namespace"
		skip "tracefs not mounted, as root" "cannot unmount tracefs in a private mount namespace"
	fi
fi
done_testing
