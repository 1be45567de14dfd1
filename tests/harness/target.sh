#!/bin/sh
# target.sh - -p3 plans for other machines, from saved targets (TAP).
#
# Each tests/golden/target/NAME.stp is compiled with
# `ktap -p3 --target tests/fixtures/target-R NAME.stp` for R = 6.18 (this
# development machine's kernel: no kprobes, no BTF saved) and R = 6.1
# (Debian 12's kernel, the VM tests' one: kprobes, and its BTF from the
# VM kernel cache when tests/vm/fetch-kernel.sh can provide it), and its
# stdout, then "# stderr" and its stderr, must be NAME.R.p3 exactly.
# Paths are normalised (SRCDIR, TMP, and PROG:0xOFF for the uprobe target,
# whose offsets depend on the compiler, not on the kernel).  Then the
# same without root (setpriv, when run as root), and, where this machine
# is the 6.18 fixture's kernel, --target against the live tracefs.
# KTAP_GOLDEN_UPDATE=1 rewrites the expected files.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
G=$KTAP_SRCDIR/tests/golden/target
F=$KTAP_SRCDIR/tests/fixtures
PROG=$KTAP_BUILDDIR/tests/tools/ktap-uprobe-target
require_tools "$PROG"
unset KTAP_TRACEFS KTAP_BTF KTAP_KCONFIG

# The 6.1 target with its kernel's BTF beside it, when the cache has it,
# and the nfsd, bridge, scsi_mod, nfs, nfsv4 and sunrpc modules' (split
# BTF on that vmlinux's, so taken from the same package:
# /sys/kernel/btf/nfsd holds its .BTF section), for nfsd.stp,
# netfilter-hooks.stp, scsi.stp, nfs-fop.stp, nfs-proc.stp and
# sunrpc.stp (the modules vm-ktap.sh and vm-scripts.sh want, so that
# none unpacks the package again).
cp -R "$F/target-6.1" "$TMP/target-6.1"
cache=${KTAP_VM_CACHE:-$KTAP_BUILDDIR/tests/vm/cache}
if kernel=$(KTAP_VM_KMODS="9p dummy nfsd nfsv4 veth bridge scsi_debug sd_mod nfsv2 nfsv3" "$KTAP_SRCDIR/tests/vm/fetch-kernel.sh" "$cache" 2>"$TMP/fetch.err") &&
	[ -f "$(dirname "$kernel")/vmlinux" ] && mkdir "$TMP/target-6.1/btf" &&
	objcopy --dump-section .BTF="$TMP/target-6.1/btf/nfsd" \
		"$(dirname "$kernel")/modules/nfsd.ko" 2>>"$TMP/fetch.err" &&
	objcopy --dump-section .BTF="$TMP/target-6.1/btf/bridge" \
		"$(dirname "$kernel")/modules/bridge.ko" 2>>"$TMP/fetch.err" &&
	objcopy --dump-section .BTF="$TMP/target-6.1/btf/scsi_mod" \
		"$(dirname "$kernel")/modules/scsi_mod.ko" 2>>"$TMP/fetch.err" &&
	objcopy --dump-section .BTF="$TMP/target-6.1/btf/nfs" \
		"$(dirname "$kernel")/modules/nfs.ko" 2>>"$TMP/fetch.err" &&
	objcopy --dump-section .BTF="$TMP/target-6.1/btf/nfsv4" \
		"$(dirname "$kernel")/modules/nfsv4.ko" 2>>"$TMP/fetch.err" &&
	objcopy --dump-section .BTF="$TMP/target-6.1/btf/sunrpc" \
		"$(dirname "$kernel")/modules/sunrpc.ko" 2>>"$TMP/fetch.err"; then
	ln -s "$(dirname "$kernel")/vmlinux" "$TMP/target-6.1/btf/vmlinux"
	btf61=yes
else
	btf61=
fi

scripts=$(list_stp "$G")
nroot=0
[ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 && nroot=1

# norm FILE: paths that are this checkout's, not the target's.
norm() {
	sed -e "s|$PROG:0x[0-9a-f]*|PROG:0xOFF|g" -e "s|$PROG|PROG|g" \
		-e "s|$KTAP_SRCDIR|SRCDIR|g" -e "s|$TMP|TMP|g" "$1"
}

# plan_of TARGETDIR NAME: NAME's -p3 plan and diagnostics into $TMP/got.
plan_of() {
	run_ktap "$G" "$TMP/out" "$TMP/err" -p3 --target "$1" "$2.stp" "$PROG"
	{ norm "$TMP/out"; if [ -s "$TMP/err" ]; then echo "# stderr"; norm "$TMP/err"; fi
	  echo "# exit status $rc"; } >"$TMP/got"
}

# variant_plan TARGETDIR NAME SUFFIX DESC: NAME's plan for a variant of
# a target must be NAME.SUFFIX.p3 (KTAP_GOLDEN_UPDATE=1 rewrites it).
variant_plan() {
	plan_of "$1" "$2"
	[ -n "${KTAP_GOLDEN_UPDATE:-}" ] && cp "$TMP/got" "$G/$2.$3.p3"
	if cmp -s "$G/$2.$3.p3" "$TMP/got"; then
		ok "$4"
	else
		not_ok "$4"
		diag_diff "$G/$2.$3.p3" "$TMP/got"
	fi
}

for f in $scripts; do
	name=${f##*/}
	name=${name%.stp}
	for r in 6.18 6.1; do
		dir=$F/target-$r
		[ "$r" = 6.1 ] && dir=$TMP/target-6.1
		# the scripts whose 6.1 plan needs the kernel's BTF
		if [ "$r" = 6.1 ] && case $name in btf | container-of | entry-retargs | tapset-sched-vm | defined-string | buffer-kprobe | buffer-user-kprobe | inet-sock | kprobe-aliases | module-glob | netdev | netdev-more | netfilter | netfilter-arp-forward | netfilter-hooks | nfsd | nfsd-more | nfs-fop | entry-fn-arg | entry-fn-call | syscall-args | syscall-args-cond | syscall-entry-string | syscall-structs | nfs-proc | nfs-proc-v23 | scsi | scsi-missing | scsi-more | signal | signal-internal | socket | tcp-receive | tty | sunrpc | generic-fop | vfs-more | vm-kp | sched-kp | sched-kthread-stop | user-mem-kprobe) true ;; *) false ;; esac &&
			[ -z "$btf61" ]; then
			skip "$name on $r" "no 6.1 kernel in the VM cache ($(head -n 1 "$TMP/fetch.err"))"
			continue
		fi
		plan_of "$dir" "$name"
		want=$G/$name.$r.p3
		if [ -n "${KTAP_GOLDEN_UPDATE:-}" ]; then
			cp "$TMP/got" "$want"
		fi
		if [ -n "$why" ]; then
			not_ok "$name on $r: $why"
		elif cmp -s "$want" "$TMP/got"; then
			ok "$name on $r"
		else
			not_ok "$name on $r"
			diag_diff "$want" "$TMP/got"
		fi
	done
done

# A kernel whose return probes fetch $argN (6.10+; here 6.1's target
# with that README line): reads through @entry() values at the return.
if [ -n "$btf61" ]; then
	cp -R "$TMP/target-6.1" "$TMP/target-6.1r"
	printf '\t     kernel return probes support: $retval, $arg<N>, $comm\n' \
		>>"$TMP/target-6.1r/README"
	variant_plan "$TMP/target-6.1r" entry-retargs 6.1r \
		"entry-retargs on 6.1 with \$argN in return probes"
else
	skip "entry-retargs on 6.1 with \$argN in return probes" "no 6.1 kernel in the VM cache"
fi

# The 6.1 target with the nfsv2 and nfsv3 modules loaded too (the VM
# loads neither): nfs-proc-v23's nfs.proc2.* and nfs.proc3.* plan.
if [ -n "$btf61" ] && cp -R "$TMP/target-6.1" "$TMP/target-6.1nfs" &&
	objcopy --dump-section .BTF="$TMP/target-6.1nfs/btf/nfsv2" \
		"$(dirname "$kernel")/modules/nfsv2.ko" 2>>"$TMP/fetch.err" &&
	objcopy --dump-section .BTF="$TMP/target-6.1nfs/btf/nfsv3" \
		"$(dirname "$kernel")/modules/nfsv3.ko" 2>>"$TMP/fetch.err"; then
	variant_plan "$TMP/target-6.1nfs" nfs-proc-v23 6.1nfs \
		"nfs-proc-v23 on 6.1 with nfsv2 and nfsv3 loaded"
else
	skip "nfs-proc-v23 on 6.1 with nfsv2 and nfsv3 loaded" "no 6.1 kernel with those modules in the VM cache"
fi

# --save-target of this machine plans as the live tracefs (root: tracefs
# is mode 0700); as nobody it says what it needs.
if [ ! -r /sys/kernel/tracing/events ]; then
	skip "--save-target of this machine" "tracefs is not readable here"
else
	run_ktap "$G" "$TMP/err" "$TMP/err" --save-target "$TMP/saved"
	run_ktap "$G" "$TMP/live" "$TMP/err" -p3 tracepoint.stp "$PROG"
	run_ktap "$G" "$TMP/out" "$TMP/err" -p3 --target "$TMP/saved" tracepoint.stp "$PROG"
	if [ "$rc" -eq 0 ] && cmp -s "$TMP/live" "$TMP/out" &&
		grep -qx "release=$(uname -r)" "$TMP/saved/ktap-target"; then
		ok "--save-target of this machine: its -p3 plan is the live one"
	else
		not_ok "--save-target of this machine (exit status $rc)"
		diag_diff "$TMP/live" "$TMP/out"
		diag_file "$TMP/err"
	fi
fi
if [ "$nroot" -eq 1 ]; then
	(cd / && exec timeout 20 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$KTAP" --save-target /tmp/ktap-never-written) >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -eq 1 ] && [ ! -e /tmp/ktap-never-written ] &&
		grep -q 'ktap needs root (or CAP_SYS_ADMIN/CAP_PERFMON and read access to tracefs)' "$TMP/err"; then
		ok "--save-target as nobody says what it needs"
	else
		not_ok "--save-target as nobody (exit status $rc)"
		diag_file "$TMP/err"
	fi
fi

# Without root: the same plan (tracefs is mode 0700 here; the target is
# all ktap reads).
if [ "$nroot" -eq 1 ]; then
	(cd "$G" && exec timeout 20 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$KTAP" -p3 --target "$F/target-6.18" tracepoint.stp) >"$TMP/out" 2>"$TMP/err"
	rc=$?
	{ norm "$TMP/out"; if [ -s "$TMP/err" ]; then echo "# stderr"; norm "$TMP/err"; fi
	  echo "# exit status $rc"; } >"$TMP/got"
	if cmp -s "$G/tracepoint.6.18.p3" "$TMP/got"; then
		ok "tracepoint on 6.18 as nobody"
	else
		not_ok "tracepoint on 6.18 as nobody"
		diag_diff "$G/tracepoint.6.18.p3" "$TMP/got"
	fi
fi

# The features parsed from each target's tracefs README (-vv); 6.18's
# README shows eprobes, its config turns them off (CONFIG_EPROBE_EVENTS).
for r in "6.18:uprobes dynamic_events stacktrace retprobe_args" \
	"6.1:kprobes uprobes dynamic_events hist synthetic_events eprobes stacktrace snapshot"; do
	run_ktap "$G" "$TMP/out" "$TMP/err" -vv -p1 --target "$F/target-${r%%:*}" -e 'probe begin { }'
	got=$(sed -n 's/^Target: .*, tracefs [^ ]* (\(.*\)), config .*/\1/p' "$TMP/err")
	if [ "$got" = "${r#*:}" ]; then
		ok "target-${r%%:*}: features from its tracefs README"
	else
		not_ok "target-${r%%:*}: features from its tracefs README"
		echo "# want: ${r#*:}"
		echo "# got:  $got"
	fi
done

# --target with -p5 is refused; a directory that is no target is named.
run_ktap "$G" "$TMP/out" "$TMP/err" --target "$F/target-6.18" -e 'probe begin { exit() }'
if [ "$rc" -eq 1 ] && grep -q -- "--target .* compiles for another machine: use -p1, -p2 or -p3" "$TMP/err"; then
	ok "--target refuses to run"
else
	not_ok "--target refuses to run (exit status $rc)"
	diag_file "$TMP/err"
fi
run_ktap "$G" "$TMP/out" "$TMP/err" -p3 --target "$G" -e 'probe begin { exit() }'
if [ "$rc" -eq 1 ] && grep -q "not a target directory" "$TMP/err"; then
	ok "--target DIR that is no target"
else
	not_ok "--target DIR that is no target (exit status $rc)"
	diag_file "$TMP/err"
fi

# This machine, when it is the 6.18 fixture's kernel: --target gives the
# live plan (the fixture holds every event the goldens use).
rel=$(sed -n 's/^release=//p' "$F/target-6.18/ktap-target")
if [ "$(uname -r)" != "$rel" ] || [ ! -r /sys/kernel/tracing/events ]; then
	skip "--target 6.18 as the live kernel" "this kernel is $(uname -r), or tracefs is unreadable"
else
	run_ktap "$G" "$TMP/live" "$TMP/err" -p3 tracepoint.stp
	run_ktap "$G" "$TMP/out" "$TMP/err" -p3 --target "$F/target-6.18" tracepoint.stp
	if cmp -s "$TMP/live" "$TMP/out"; then
		ok "--target 6.18 plans as the live kernel"
	else
		not_ok "--target 6.18 plans as the live kernel"
		diag_diff "$TMP/live" "$TMP/out"
	fi
fi
done_testing
