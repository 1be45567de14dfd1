#!/bin/sh
# stap-options.sh - stap's command-line options in ktap (TAP; issue 13,
# doc/stap-options.md):
#   1. -G NAME=VALUE sets a number and a string global before begin, over
#      an initializer; its errors (unknown global, array, statistic, not
#      a number, stap's character check) point into the option's text;
#      a declared but unused global is elided with a warning, as any;
#   2. the no-ops (-d, --ldd, --all-modules, -B, -k, --runtime=kernel,
#      --runtime=bpf, --bpf) run the script;
#   3. --suppress-time-limits needs -g and lifts MAXACTION;
#   4. each refused option (-m, -F, -S, -b, -K, --remote, --use-server,
#      --runtime=dyninst, --dyninst, an unknown runtime) prints one line
#      and exits 1;
#   5. a script whose first line is "#!/usr/bin/stap -G n=1" parses (the
#      line is a comment, as in stap), -G on ktap's command line sets n,
#      and the one argument the kernel makes of the #! options is refused
#      as stap refuses it.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

# Its runs start pass 5 (begin probes: an instance as root).
live_lock

# refused DESC WANT ARGS...: exit 1, stderr exactly the line WANT, no output.
refused() {
	_d=$1 _w=$2
	shift 2
	run_ktap "$TMP" "$TMP/out" "$TMP/err" "$@"
	printf '%s\n' "$_w" >"$TMP/want"
	if [ "$rc" -eq 1 ] && [ -z "$why" ] && [ ! -s "$TMP/out" ] && cmp -s "$TMP/want" "$TMP/err"; then
		ok "$_d"
	else
		not_ok "$_d (exit status $rc)"
		diag_diff "$TMP/want" "$TMP/err"
	fi
}

# -- 1. -G ---------------------------------------------------------------
run_ktap "$TMP" "$TMP/out" "$TMP/err" -G n=5 -G s=x -e \
	'global n, s; probe begin { printf("%d %s\n", n, s); exit() }'
expect_text "-G n=5 -G s=x: a number and a string global seen in begin" "5 x"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -G n=-0x10 -G s=hello.world -G N=010 -e \
	'global n = 3, s = "q", N; probe begin { printf("%d %s %d\n", n, s, N); exit() }'
expect_text "-G over the initializers; -0x10 and 010 as stap's module parameter reads them" \
	"-16 hello.world 8"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -G s=5 -e \
	'global s = "q"; probe begin { println(s . "!"); exit() }'
expect_text "-G s=5 of a string global is the string \"5\"" "5!"

script='global n, s, a, st; probe begin { a[1] = 1; st <<< 1; printf("%d %s %d %d\n", n, s, a[1], @count(st)); exit() }'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -G foo=1 -e "$script"
cat >"$TMP/want" <<'EOF'
<command line>:1:4: error: no global 'foo' in the script or the tapset it uses
     1 | -G foo=1
       |    ^~~
EOF
if [ "$rc" -eq 1 ] && [ ! -s "$TMP/out" ] && cmp -s "$TMP/want" "$TMP/err"; then
	ok "-G of an unknown global: an error at its name in the option, exit 1, nothing run"
else
	not_ok "-G of an unknown global (exit status $rc)"
	diag_diff "$TMP/want" "$TMP/err"
fi

run_ktap "$TMP" "$TMP/out" "$TMP/err" -G foo=1 -p2 --diag-codes -e "$script"
check_err "-G of an unknown global at -p2, with its code" \
	"<command line>:1:4: error[E0902]: no global 'foo' in the script or the tapset it uses"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -G a=1 -e "$script"
check_err "-G of an array" "<command line>:1:4: error: 'a' is an array: -G sets a number or a string global"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -G st=1 -e "$script"
check_err "-G of a statistic" \
	"<command line>:1:4: error: 'st' is a statistic: -G sets a number or a string global"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -G n=1.5 -e "$script"
check_err "-G n=1.5 of a number global" \
	"<command line>:1:4: error: 'n' is a number, and '1.5' is not one (decimal, 0x hex, 0 octal)"
refused "-G 'n=a b': stap's character check" \
	"ktap: error: -G expects NAME=VALUE, the value of letters, digits, '_', '.' and '-' (as stap), got 'n=a b'" \
	-G 'n=a b' -e "$script"
refused "-G n= (empty value)" \
	"ktap: error: -G expects NAME=VALUE, the value of letters, digits, '_', '.' and '-' (as stap), got 'n='" \
	-G n= -e "$script"

run_ktap "$TMP" "$TMP/out" "$TMP/err" -G u=1 -e 'global u; probe begin { println("ran"); exit() }'
if [ "$rc" -eq 0 ] && [ "$(cat "$TMP/out")" = ran ] &&
	[ "$(head -n 1 "$TMP/err")" = "<input>:1:8: warning: eliding unused variable 'u'" ] &&
	[ "$(grep -c warning "$TMP/err")" = 1 ]; then
	ok "-G of a global no probe uses: one warning (the global is elided), the script runs"
else
	not_ok "-G of an unused global (exit status $rc)"
	diag_file "$TMP/err"
fi

# -- 2. accepted, no effect ------------------------------------------------
for opts in "-d kernel" "-d /bin/ls" --ldd --all-modules "-B CONFIG_DEBUG_INFO=y" -k \
	--runtime=kernel --runtime=bpf --bpf -P --prologue-searching --prologue-searching=never \
	"-R /nonexistent" "--modinfo a=b" "--compatible 4.0" --check-version --disable-cache \
	--poison-cache --use-server-on-error=no --sign-module --download-debuginfo=no \
	--save-uprobes --privilege=stapdev --ignore-vmlinux --ignore-dwarf --kelf --kmap \
	--kmap=/proc/kallsyms; do
	# shellcheck disable=SC2086  # the options split on blanks
	run_ktap "$TMP" "$TMP/out" "$TMP/err" $opts -e 'probe begin { println("ran"); exit() }'
	if [ "$rc" -eq 0 ] && [ "$(cat "$TMP/out")" = ran ] && [ ! -s "$TMP/err" ]; then
		ok "$opts: accepted, the script runs, nothing said"
	else
		not_ok "$opts (exit status $rc)"
		diag_file "$TMP/err"
	fi
done

# -- 3. --suppress-time-limits ---------------------------------------------
loop='probe begin { for (i = 0; i < 20000; i++) x++; println(x); exit() }'
refused "--suppress-time-limits without -g" \
	"ktap: error: --suppress-time-limits: requires guru mode (-g), as in stap" \
	--suppress-time-limits -e "$loop"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "$loop"
if [ "$rc" -eq 1 ] && grep -q '^ERROR: MAXACTION exceeded' "$TMP/err"; then
	ok "without it, 20000 loop rounds in begin exceed MAXACTION_INTERRUPTIBLE (10000)"
else
	not_ok "20000 loop rounds without --suppress-time-limits (exit status $rc)"
	diag_file "$TMP/err"
fi
run_ktap "$TMP" "$TMP/out" "$TMP/err" --suppress-time-limits -g -D MAXACTION=5 -e "$loop"
expect_text "-g --suppress-time-limits: no budget, -D MAXACTION=5 included" 20000

# -- 3b. the others with stap's meaning ---------------------------------------
# -E SCRIPT runs beside the main one (repeatable), its errors located in it.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -E 'probe begin { println("E1") }' \
	-E 'probe begin(1) { println("E2"); exit() }' -e 'probe begin { println("main") }'
expect_text "-E twice beside -e: all three begin probes, in priority then source order" \
	"$(printf 'main\nE1\nE2')"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -E 'probe begin { nosuch() }' -e 'probe begin { exit() }'
if [ "$rc" -eq 1 ] && grep -q "^<input>:1:15: error: unknown function 'nosuch'" "$TMP/err"; then
	ok "-E: an error in it points into its own text"
else
	not_ok "-E error location (exit status $rc)"
	diag_file "$TMP/err"
fi
# --suppress-handler-errors: try { ... } catch { next } around every handler.
errs='probe begin { println("a"); error("boom"); println("b") } probe begin(1) { println("c"); exit() }'
run_ktap "$TMP" "$TMP/out" "$TMP/err" --suppress-handler-errors -e "$errs"
if [ "$rc" -eq 0 ] && [ "$(cat "$TMP/out")" = "$(printf 'a\nc')" ] &&
	[ "$(cat "$TMP/err")" = "WARNING: Number of errors: 1, skipped probes: 0" ]; then
	ok "--suppress-handler-errors: the failing handler ends quietly (counted in stap's final warning), the run goes on, exit 0"
else
	not_ok "--suppress-handler-errors (exit status $rc)"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "$errs"
if [ "$rc" -eq 1 ] && grep -q '^ERROR: boom' "$TMP/err"; then
	ok "without it the same error ends the run (MAXERRORS 0)"
else
	not_ok "the error without --suppress-handler-errors (exit status $rc)"
fi
# --no-global-var-display: the globals no end probe printed are not shown.
g='global n, m; probe begin { n = 3; m["k"] = 4; exit() }'
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e "$g"
expect_text "without --no-global-var-display: the unprinted globals at the end" \
	"$(printf 'n=0x3\nm["k"]=0x4')"
run_ktap "$TMP" "$TMP/out" "$TMP/err" --no-global-var-display -e "$g"
if [ "$rc" -eq 0 ] && [ ! -s "$TMP/out" ] && [ ! -s "$TMP/err" ]; then
	ok "--no-global-var-display: none"
else
	not_ok "--no-global-var-display (exit status $rc)"
	diag_file "$TMP/out"
fi
# --vp ABCDE: the largest per-pass level is added to -v.
run_ktap "$TMP" "$TMP/out" "$TMP/err" --vp 002 -p2 -e 'probe begin { exit() }'
if [ "$rc" -eq 0 ] && grep -q '^Target: kernel' "$TMP/err"; then
	ok "--vp 002: verbosity 2 (ktap's -vv target line)"
else
	not_ok "--vp 002 (exit status $rc)"
	diag_file "$TMP/err"
fi
refused "--vp with a letter" "ktap: error: --vp expects up to 5 digits, one per pass (as stap), got '0x'" \
	--vp 0x -e 'probe begin { exit() }'
# --rlimit-*: limits on passes 1-3 only (stap's translator), not the run.
run_ktap "$TMP" "$TMP/out" "$TMP/err" --rlimit-fsize=1 -o "$TMP/big" \
	-e 'probe begin { for (i = 0; i < 100; i++) println("0123456789"); exit() }'
if [ "$rc" -eq 0 ] && [ "$(wc -c <"$TMP/big")" -eq 1100 ]; then
	ok "--rlimit-fsize=1: the compile is limited, the run's 1100-byte output is not"
else
	not_ok "--rlimit-fsize (exit status $rc)"
	diag_file "$TMP/err"
fi
run_ktap "$TMP" "$TMP/out" "$TMP/err" --rlimit-as=10000000 -p2 -e 'probe begin { exit() }'
if [ "$rc" -ne 0 ]; then
	ok "--rlimit-as=10000000: 10 MB of address space is too little to compile, as in stap"
else
	not_ok "--rlimit-as=10000000 compiled"
fi
# --example NAME: one of stap's examples by its file name.
mkdir -p "$TMP/ex/general"
printf 'probe begin { println("from the examples"); exit() }\n' >"$TMP/ex/general/hi.stp"
KTAP_STAP_EXAMPLES=$TMP/ex
export KTAP_STAP_EXAMPLES
run_ktap "$TMP" "$TMP/out" "$TMP/err" --example hi.stp
expect_text "--example NAME: the script found in a subdirectory of stap's examples" \
	"from the examples"
run_ktap "$TMP" "$TMP/out" "$TMP/err" --example nosuch.stp
if [ "$rc" -eq 1 ] && grep -q "^ktap: error: --example nosuch.stp: no such script among stap's examples ($TMP/ex; package systemtap-doc)" "$TMP/err"; then
	ok "--example of a name no example has: one line saying where it looked"
else
	not_ok "--example nosuch.stp (exit status $rc)"
	diag_file "$TMP/err"
fi
unset KTAP_STAP_EXAMPLES
run_ktap "$TMP" "$TMP/out" "$TMP/err" --clean-cache
if [ "$rc" -eq 0 ] && [ ! -s "$TMP/out" ] && [ ! -s "$TMP/err" ]; then
	ok "--clean-cache: exits 0 at once (ktap keeps no cache)"
else
	not_ok "--clean-cache (exit status $rc)"
fi

# -- 4. refused ---------------------------------------------------------------
S='probe begin { exit() }'
refused "-m MODULE" "ktap: error: -m: ktap builds no kernel module to name; its probes live in a tracefs instance while ktap runs" \
	-m mymod -e "$S"
refused "-F" "ktap: error: -F: ktap cannot detach and leave its probes running: they are removed when ktap exits (run it in the background with -o FILE instead)" \
	-F -e "$S"
refused "-S size,N" "ktap: error: -S: ktap writes one output file (-o FILE), it does not switch files by size" \
	-S 1,2 -e "$S"
refused "-b" "ktap: error: -b: ktap merges the CPUs' buffers itself: there are no per-CPU output files for stap-merge" \
	-b -e "$S"
refused "-K (not stap's either)" "ktap: error: -K: not a stap option (stap rejects it too); -k, keep the temporary directory, is accepted and does nothing" \
	-K -e "$S"
refused "--remote" "ktap: error: --remote: ktap runs scripts on this machine only; run ktap on that host (--target compiles for a machine saved with --save-target)" \
	--remote=host -e "$S"
refused "--use-server" "ktap: error: --use-server: compile servers build kernel modules; ktap builds none" \
	--use-server -e "$S"
dyn="ktap: error: --runtime=dyninst: ktap has no Dyninst runtime, which instruments only the user's own processes without the kernel; ktap's probes are tracefs events (root)"
refused "--runtime=dyninst" "$dyn" --runtime=dyninst -e "$S"
refused "--dyninst" "$dyn" --dyninst -e "$S"
for o in "--privilege=stapusr" "--privilege=stapsys" --unprivileged; do
	refused "$o" "ktap: error: ${o%%=*}: ktap has no restricted mode for unprivileged users: its probes are tracefs events, which only root (or a tracefs owner) creates; run it as root" \
		"$o" -e "$S"
done
refused "--list-servers" "ktap: error: --list-servers/--trust-servers: compile servers build kernel modules; ktap builds none" \
	--list-servers -e "$S"
refused "--sysroot" "ktap: error: --sysroot/--sysenv: ktap reads the files of the machine it runs on; to compile for another machine, save it there with --save-target DIR and use --target DIR here" \
	--sysroot=/srv -e "$S"
refused "--target-namespaces" "ktap: error: --target-namespaces: ktap's pid(), tid() and the like are the ids the kernel records, in the initial PID namespace; it has no namespace-aware tapset functions to retarget" \
	--target-namespaces=1 -e "$S"
refused "--monitor" "ktap: error: --monitor: stap's monitor is an interactive status window of its kernel module; ktap -v prints a progress line a second (events, losses, map sizes) instead" \
	--monitor=2 -e "$S"
refused "--interactive" "ktap: error: --interactive: ktap has no interactive mode (its -i reads a trace-cmd recording)" \
	--interactive -e "$S"
refused "--runtime=foo" "ktap: error: --runtime=foo: not a stap runtime (kernel, bpf or dyninst)" \
	--runtime=foo -e "$S"

# -- 5. #! lines -------------------------------------------------------------
printf '#!/usr/bin/stap -G n=1\nglobal n = 7\nprobe begin { printf("n=%%d\\n", n); exit() }\n' \
	>"$TMP/shebang.stp"
run_ktap "$TMP" "$TMP/out" "$TMP/err" shebang.stp
expect_text "a '#!/usr/bin/stap -G n=1' line is a comment: n keeps its initializer" "n=7"
run_ktap "$TMP" "$TMP/out" "$TMP/err" -G n=2 shebang.stp
expect_text "ktap -G n=2 FILE sets n" "n=2"
refused "'-G n=1' as one argument (how the kernel passes #! options): refused, as stap does" \
	"ktap: error: -G expects NAME=VALUE, the value of letters, digits, '_', '.' and '-' (as stap), got ' n=1'" \
	'-G n=1' shebang.stp

done_testing
