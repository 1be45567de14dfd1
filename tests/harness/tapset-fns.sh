#!/bin/sh
# tapset-fns.sh - issue 13's tapset functions that depend on ktap's
# command line, environment and machine (TAP, no root): argv/argc (the
# tapset's own begin probe only when the script names them), HZ() from
# the kernel configuration (KTAP_KCONFIG), and the /proc builtins on
# ktap's own process in a begin probe: cmdline_arg(s), env_var,
# pid2execname, pgrp, sid, is_myproc, stp_pid, sprint_loadavg,
# get_loadavg_index.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

cat >"$TMP/argv.stp" <<'EOS'
probe begin {
	printf("argc=%d\n", argc)
	for (i = 1; i <= argc; i++)
		printf("argv[%d]=%s\n", i, argv[i])
	foreach (k+ in argv)
		n++
	printf("%d entries\n", n)
	exit()
}
EOS
run_ktap "$TMP" "$TMP/out" "$TMP/err" argv.stp one "two words" 3
expect_text "argv/argc: the script's arguments, argv[1..argc], nothing else" "argc=3
argv[1]=one
argv[2]=two words
argv[3]=3
3 entries"

run_ktap "$TMP" "$TMP/out" "$TMP/err" argv.stp
expect_text "argv/argc without arguments: 0 and an empty array" "argc=0
0 entries"

# argv.stp's begin probe belongs to scripts that name argv or argc only.
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe begin { exit() }'
if [ "$rc" -eq 0 ] && ! grep -q 'argv' "$TMP/out" &&
	[ "$(grep -c '^begin' "$TMP/out")" -eq 1 ]; then
	ok "a script without argv/argc gets no argv probe"
else
	not_ok "a script without argv/argc gets no argv probe"
	diag_file "$TMP/out" 40
fi
run_ktap "$TMP" "$TMP/out" "$TMP/err" -p2 -e 'probe begin { println(argc) }'
if [ "$rc" -eq 0 ] && [ "$(grep -c '^begin' "$TMP/out")" -eq 2 ]; then
	ok "a script naming argc gets argv.stp's begin probe"
else
	not_ok "a script naming argc gets argv.stp's begin probe"
	diag_file "$TMP/out" 40
fi

# A script's own global argv is not the tapset's: no argv probe, in
# both tapset loading modes.
printf 'global argv\nprobe begin { argv = 5; println(argv); exit() }\n' >"$TMP/own.stp"
run_ktap "$TMP" "$TMP/out" "$TMP/err" own.stp x
expect_text "the script's own global argv (lazy tapset)" 5
KTAP_TAPSET_EAGER=1 run_ktap "$TMP" "$TMP/out" "$TMP/err" own.stp x
expect_text "the script's own global argv (whole tapset)" 5

# HZ() is CONFIG_HZ of the kernel configuration.
printf 'CONFIG_HZ_300=y\nCONFIG_HZ=300\n' >"$TMP/config"
KTAP_KCONFIG=$TMP/config run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'probe begin { println(HZ()); exit() }'
expect_text "HZ(): CONFIG_HZ of the configuration" 300
printf 'CONFIG_X=y\n' >"$TMP/config"
KTAP_KCONFIG=$TMP/config run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'probe begin { println(HZ()); exit() }'
if [ "$rc" -eq 1 ] && grep -q "HZ(): the kernel's configuration (CONFIG_HZ) was not found" "$TMP/err"; then
	ok "HZ() without CONFIG_HZ: an error"
else
	not_ok "HZ() without CONFIG_HZ: an error (exit status $rc)"
	diag_file "$TMP/err"
fi

# The /proc builtins in begin: ktap's own process, whose group leader
# is the shell's or (timeout(1) makes its own group) ktap's parent.
read -r _ _ _ _ pgid sid _ </proc/$$/stat
cat >"$TMP/fns.stp" <<'EOS'
probe begin {
	printf("[%s] [%s] [%s] [%s]\n", cmdline_arg(1), cmdline_args(2, -1, "|"),
	       cmdline_args(2, 3, ","), cmdline_arg(99))
	printf("[%s] [%s]\n", env_var("H8_TAPSET_FNS"), env_var("H8_TAPSET_FNS_UNSET"))
	printf("%s %d %d %d %d\n", pid2execname(stp_pid()), stp_pid() == pid(),
	       pgrp() == ppid() || pgrp() == strtol(@1, 10), sid(), is_myproc())
	l = sprint_loadavg()
	printf("%d %d\n", l =~ "^[0-9]+\\.[0-9][0-9] [0-9]+\\.[0-9][0-9] [0-9]+\\.[0-9][0-9]$",
	       get_loadavg_index(0) == strtol(tokenize(l, " "), 10))
	try { get_loadavg_index(3) } catch (e) { println(e) }
	exit()
}
EOS
H8_TAPSET_FNS="x y=z" run_ktap "$TMP" "$TMP/out" "$TMP/err" fns.stp "$pgid" "b c" d
cat >"$TMP/want" <<EOW
[fns.stp] [$pgid|b c|d] [$pgid,b c] []
[x y=z] []
ktap 1 1 $sid 1
1 1
get_loadavg_index: invalid index 3 (0, 1 or 2)
EOW
expect_same "cmdline_arg(s), env_var, pid2execname, stp_pid, pgrp, sid, is_myproc, sprint_loadavg, get_loadavg_index" \
	"$TMP/want" "$TMP/out"
done_testing
