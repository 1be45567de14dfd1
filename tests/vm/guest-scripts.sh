#!/bin/sh
# guest-scripts.sh - the guest half of tests/vm/vm-scripts.sh: the
# tests/scripts corpus on Debian's 6.1 kernel (kprobes, hist triggers,
# BTF).  Each script elaborates (-p2), plans (-p3) and runs as
# tests/harness/scripts.sh runs it here: NAME.out exactly, else a 2-second
# run exiting 0.  One check per script's run ("# TODO" for the scripts
# marked xfail), and a summary line with the counts for doc/corpus.md.

. /tests/guest-lib.sh
S=/usr/share/ktap/scripts
n=0 p2=0 p3=0 ran=0
header() { sed -n "s/^# $2: //p" "$1" | head -n 1 | sed "s|@TOOLS@|/usr/bin|g"; }
cd $S || { not_ok "no $S"; guest_done; }
for f in *.stp; do
	n=$((n + 1))
	echo "# $f"
	base=${f%.stp}
	opts=$(header "$f" run)
	args=$(header "$f" args)
	todo=$(header "$f" xfail)
	# a plan (-p3) is also an elaboration: -p2 only for what does not plan
	# (one compile less per script under TCG)
	if eval "bounded 60 ktap -w -p3 $opts $f $args" >$T/out 2>$T/err; then
		p3=$((p3 + 1)) p2=$((p2 + 1))
	else
		eval "bounded 60 ktap -w -p2 $opts $f $args" >$T/out 2>$T/err && p2=$((p2 + 1))
	fi
	if [ -f $base.out ]; then
		eval "bounded 60 ktap $opts $f $args" >$T/out 2>$T/err
		rc=$?
		st=1
		[ $rc -eq 0 ] && cmp -s $base.out $T/out && st=0
		what="output"
	else
		eval "bounded 60 ktap -T 2 $opts $f $args" >$T/out 2>$T/err
		rc=$?
		st=1
		[ $rc -eq 0 ] && ! grep -q '^ERROR' $T/err && st=0
		what="runs for 2 s"
	fi
	[ $st -eq 0 ] && ran=$((ran + 1))
	if [ -n "$todo" ]; then
		if [ $st -eq 0 ]; then echo "ok - 6.1: $f $what # TODO $todo"
		else echo "not ok - 6.1: $f $what # TODO $todo"; fi
	elif [ $st -eq 0 ]; then
		ok "6.1: $f $what"
	else
		not_ok "6.1: $f $what (exit status $rc)"
		[ -f $base.out ] && { echo "# want:"; diag $base.out | head -n 20; }
		echo "# got:"; diag $T/out | head -n 20
		diag $T/err | head -n 10
	fi
done
echo "# corpus on 6.1: $n scripts, $p2 elaborate (-p2), $p3 plan (-p3), $ran run"
guest_done
