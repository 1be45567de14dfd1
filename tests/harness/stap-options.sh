#!/bin/sh
# stap-options.sh - stap's command-line options in ktap (TAP; issue 13,
# doc/stap-options.md):
#   1. -G NAME=VALUE sets a number and a string global before begin, over
#      an initializer; its errors (unknown global, array, statistic, not
#      a number, stap's character check) point into the option's text;
#      a declared but unused global is a warning;
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
	[ "$(head -n 1 "$TMP/err")" = "<command line>:1:4: warning: global 'u' is not used by any probe: -G sets nothing" ]; then
	ok "-G of a global no probe uses: a warning, the script runs"
else
	not_ok "-G of an unused global (exit status $rc)"
	diag_file "$TMP/err"
fi

# -- 2. accepted, no effect ------------------------------------------------
for opts in "-d kernel" "-d /bin/ls" --ldd --all-modules "-B CONFIG_DEBUG_INFO=y" -k \
	--runtime=kernel --runtime=bpf --bpf; do
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
