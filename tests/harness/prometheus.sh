#!/bin/sh
# prometheus.sh - --prometheus [ADDR:]PORT, ktap's Prometheus exporter
# (doc/prometheus.md), TAP.  Scraped with curl over HTTP:
#   - a timer script: the exact answer of several prometheus probes
#     ($value's '=', '.=' and reading, the dump macros' quoting), the
#     Content-Type, HEAD, /, 404 and 405, an error in the probe (500 and
#     exit status 1), the warnings of a probe without the option and of
#     the option without a probe, bad arguments (one line, exit 1);
#   - live (root): system calls counted by process from
#     raw_syscalls:sys_enter, with workloads of known getppid counts
#     under names of their own (copies of tests/tools/ktap-getppid):
#     two scrapes whose counters grow and equal the workloads' calls;
#     the exposition format (promtool check metrics when Debian's
#     prometheus package is installed, and always a strict parser
#     here); scrapes two at a time while a workload runs, each answer
#     one state (the counters' sum equals the total kept with them);
#     a client that sends half a request and one that sends garbage
#     stall nothing (exact counts, prompt answers, no lost events);
#     the server listens on 127.0.0.1 only (ss); a port in use is one
#     line and exit 1 with tracefs untouched; a scrape during a flood
#     the handlers cannot keep up with is answered while the flood
#     lasts; tracefs is as it was.
# shellcheck source=tests/harness/lib.sh
. "$(dirname "$0")/lib.sh"

: "${KTAP_BUILDDIR:=$(dirname "$KTAP")}"
GP=$KTAP_BUILDDIR/tests/tools/ktap-getppid

require_tools curl
# Its runs start pass 5 (begin probes: an instance as root).
live_lock

KPID=
# serve SCRIPT ARGS...: ktap --prometheus 0 SCRIPT in the background
# (stdout $TMP/k.out, stderr $TMP/k.err); returns once it serves and its
# begin probe printed "ready", with PORT and URL set; 1 if it did not.
serve() {
	_script=$1
	shift
	: >"$TMP/k.out"
	: >"$TMP/k.err"
	rm -f "$TMP/vg.log"
	set -f
	# shellcheck disable=SC2086  # KTAP_VALGRIND is a command and options
	# The bound covers the whole session, scrapes included: three
	# times a run's (a sanitizer build under CI's load once needed more
	# than 20 s and was killed, exit status 137).
	(cd "$TMP" && exec timeout -k 5 "$((KTAP_TIMEOUT * 3))" \
		${KTAP_VALGRIND:+$KTAP_VALGRIND --log-file="$TMP/vg.log"} \
		"$KTAP" --prometheus "${LISTEN:-0}" "$@" "$_script") >"$TMP/k.out" 2>"$TMP/k.err" \
		</dev/null 9<&- &
	set +f
	KPID=$!
	PORT=
	_i=0
	while [ $_i -lt 300 ]; do
		PORT=$(sed -n 's#^ktap: serving metrics at http://\(127\.0\.0\.1\|\[::1\]\):\([0-9]*\)/metrics$#\2#p' \
			"$TMP/k.err")
		[ -n "$PORT" ] && grep -qx ready "$TMP/k.out" && break
		kill -0 $KPID 2>/dev/null || break
		sleep 0.1
		_i=$((_i + 1))
	done
	URL=http://${HOST:-127.0.0.1}:$PORT/metrics
	[ -n "$PORT" ] && grep -qx ready "$TMP/k.out"
}

# finish: SIGINT to ktap (through timeout, which passes it on); rc is
# its exit status, why a reason when it is not a normal one (as
# run_ktap's: a timeout, valgrind's findings).
finish() {
	signal_ktap INT "$KPID"
	wait $KPID
	rc=$?
	KPID=
	why=
	if [ $rc -eq 124 ] || [ $rc -ge 128 ]; then
		why="timed out or killed (exit status $rc)"
	elif [ -n "$KTAP_VALGRIND" ] && [ $rc -eq 99 ]; then
		why="valgrind found errors"
		diag_file "$TMP/vg.log" 60
	fi
}
at_exit '[ -n "$KPID" ] && kill $KPID 2>/dev/null'

# scrape OUT [CURL ARGS...]: GET $URL into OUT; CODE is "STATUS TYPE".
scrape() {
	_out=$1
	shift
	CODE=$(curl -sS --max-time 5 -o "$_out" -w '%{http_code} %{content_type}' "$@" "$URL" \
		2>"$TMP/curl.err")
}

# valid FILE: the text exposition format 0.0.4, strictly: comments
# (HELP and TYPE well formed), and samples NAME{LABEL="VALUE",...} VALUE
# with escapes \\ \" \n only in label values; no sample twice.
valid() {
	awk '
	BEGIN {
		name = "[a-zA-Z_:][a-zA-Z0-9_:]*"
		label = "[a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\]|\\\\[\\\\\"n])*\""
		labels = "\\{(" label "(," label ")*,?)?\\}"
		num = "[-+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?"
		value = "(" num "|[-+]?Inf|NaN)"
		sample = "^" name "(" labels ")? " value "( -?[0-9]+)?$"
		help = "^# HELP " name "( .*)?$"
		type = "^# TYPE " name " (counter|gauge|histogram|summary|untyped)$"
	}
	/^# (HELP|TYPE) / { if ($0 !~ help && $0 !~ type) { print "bad: " $0; bad = 1 }; next }
	/^#/ || /^$/ { next }
	$0 !~ sample { print "bad: " $0; bad = 1; next }
	{ series = $0; sub(/ [^ ]*( -?[0-9]+)?$/, "", series)
	  if (seen[series]++) { print "twice: " series; bad = 1 } }
	END { exit bad }' "$1" >"$TMP/valid.why"
}

# expect_err DESC STATUS TEXT: the last run exited STATUS and its
# stderr is exactly the line TEXT.
expect_err() {
	if [ "$rc" -eq "$2" ] && [ -z "$why" ] && [ "$(cat "$TMP/err")" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1 (exit status $rc)"
		echo "# want: $3"
		diag_file "$TMP/err"
	fi
}

# ---- without the kernel: a timer script ----

cat >"$TMP/timer.stp" <<'SCRIPT'
global c, d, t
probe begin { c["a\"q\\"] = 1; d[1, "x y"] = 5 }
# "ready" after the first tick: every scrape then says "ticking 1".
probe timer.ms(100) { if (!t++) println("ready") }
probe prometheus {
	@prometheus_dump_array1(c, "m1", "k")
	$value .= "# end of one\n"
}
probe prometheus {
	$value = "dropped\n"
	$value = "ab"
	$value .= "[" . $value . "]\n"
	@prometheus_dump_array2(d, "m2", "n", "s")
	$value .= sprintf("ticking %d\n", t > 0)
}
SCRIPT
cat >"$TMP/timer.want" <<'EOF'
m1{k="a\"q\\"} 1
# end of one
ab[ab]
m2{n="1",s="x y"} 5
ticking 1
EOF
if serve timer.stp; then
	scrape "$TMP/body"
	code=$CODE
	scrape "$TMP/head" -I
	head_code=$CODE
	scrape "$TMP/post" -X POST -d x=1
	post=$CODE
	URL=http://127.0.0.1:$PORT/
	scrape "$TMP/root"
	root=$CODE
	URL=http://127.0.0.1:$PORT/nothing
	scrape "$TMP/none"
	none=$CODE
	finish
	if [ "$code" = "200 text/plain; version=0.0.4" ] && cmp -s "$TMP/timer.want" "$TMP/body" &&
		[ "$rc" -eq 0 ] && [ "$(wc -l <"$TMP/k.err")" -eq 1 ]; then
		ok "timer script: the prometheus probes' \$value, in order, as text/plain; version=0.0.4"
	else
		not_ok "timer script scrape: '$code', exit status $rc"
		diag_diff "$TMP/timer.want" "$TMP/body"
		diag_file "$TMP/k.err"
		diag_file "$TMP/curl.err"
	fi
	if [ "${head_code%% *}" = 200 ] &&
		tr -d '\r' <"$TMP/head" | grep -qx "Content-Length: $(wc -c <"$TMP/timer.want")" &&
		[ "$root" = "200 text/plain; charset=utf-8" ] &&
		grep -qx 'ktap: the metrics are at /metrics' "$TMP/root" &&
		[ "${none%% *}" = 404 ] && [ "${post%% *}" = 405 ]; then
		ok "HEAD /metrics, / points to /metrics, 404 elsewhere, 405 for POST"
	else
		not_ok "HEAD '$head_code', / '$root', /nothing '$none', POST '$post'"
		diag_file "$TMP/head"
	fi
else
	not_ok "timer script: ktap did not serve"
	diag_file "$TMP/k.err"
	finish
fi

# IPv6: [ADDR]:PORT, where the machine has ::1.
if grep -q '^0\{31\}1 ' /proc/net/if_inet6 2>/dev/null; then
	LISTEN='[::1]:0' HOST='[::1]'
	if serve timer.stp; then
		scrape "$TMP/body" -g
		finish
		if [ "${CODE%% *}" = 200 ] && cmp -s "$TMP/timer.want" "$TMP/body"; then
			ok "--prometheus '[::1]:0': served on IPv6's loopback"
		else
			not_ok "--prometheus '[::1]:0': '$CODE'"
			diag_diff "$TMP/timer.want" "$TMP/body"
			diag_file "$TMP/curl.err"
		fi
	else
		not_ok "--prometheus '[::1]:0': ktap did not serve"
		diag_file "$TMP/k.err"
		finish
	fi
else
	skip "--prometheus '[::1]:0'" "no IPv6 loopback"
fi
LISTEN='' HOST=''

# shellcheck disable=SC2016  # the script's $value, not the shell's
printf '%s\n' 'probe begin { println("ready") }' \
	'probe prometheus { $value = "a 1\n"; error("in the probe") }' >"$TMP/err.stp"
if serve err.stp; then
	scrape "$TMP/body"
	finish
	if [ "${CODE%% *}" = 500 ] && [ "$rc" -eq 1 ] &&
		grep -q '^ERROR: in the probe near' "$TMP/k.err"; then
		ok "an error in the prometheus probe: 500, the error said, exit status 1"
	else
		not_ok "error in the probe: '$CODE', exit status $rc"
		diag_file "$TMP/k.err"
	fi
else
	not_ok "error in the probe: ktap did not serve"
	diag_file "$TMP/k.err"
	finish
fi

# shellcheck disable=SC2016
# Without --prometheus, as in stap: the procfs file __prometheus (stap's
# alias is procfs("__prometheus").read), one run of the probes per reader.
KTAP_PROCFS_DIR=$TMP/pfs
export KTAP_PROCFS_DIR
run_ktap "$TMP" "$TMP/out" "$TMP/err" -e 'global n
probe prometheus { n++; $value = sprintf("x %d\n", n) }
probe prometheus { $value = "y 2\n" }' -c "sh -c 'cat $TMP/pfs/__prometheus; cat $TMP/pfs/__prometheus'"
if [ "$rc" -eq 0 ] && [ "$(cat "$TMP/out")" = "$(printf 'x 1\ny 2\nx 2\ny 2')" ] &&
	[ ! -s "$TMP/err" ] && [ ! -e "$TMP/pfs" ]; then
	ok "probe prometheus without --prometheus: the procfs file __prometheus, as stap; removed at the end"
else
	not_ok "probe prometheus without --prometheus (exit status $rc)"
	diag_file "$TMP/out"
	diag_file "$TMP/err"
fi
unset KTAP_PROCFS_DIR
run_ktap "$TMP" "$TMP/out" "$TMP/err" --prometheus 0 -e 'probe begin { exit() }'
sed -i '/^ktap: serving metrics at /d' "$TMP/err"
expect_err "--prometheus without a prometheus probe: a warning" 0 \
	"WARNING: --prometheus: the script has no prometheus probe: every scrape's answer is empty"

for arg in x 70000 1.2.3:80 '[::1]' '[::1' 1.2.3.4: 'localhost:9100' ':'; do
	run_ktap "$TMP" "$TMP/out" "$TMP/err" --prometheus "$arg" -e 'probe begin { exit() }'
	expect_err "--prometheus '$arg': one line, exit status 1" 1 \
		"ktap: error: --prometheus expects [ADDR:]PORT (ADDR a numeric IPv4 address or an IPv6 one in brackets, PORT from 0 to 65535), got '$arg'"
done

# ---- live: system calls by process ----

T=/sys/kernel/tracing
if [ "$(id -u)" -ne 0 ] || [ ! -d $T/events/raw_syscalls/sys_enter ] || [ ! -x "$GP" ]; then
	skip "live: system calls by process over HTTP" "needs root, raw_syscalls and tests/tools"
	done_testing
	exit 0
fi
tfs_guard_begin
# Workload sizes: BURSTS runs of BURST calls, SLOW calls.  valgrind
# makes ktap read so slowly that larger bursts overflow the ring buffers.
# Under valgrind or a sanitizer ktap handles records some 10 times more
# slowly: smaller workloads, or the ring buffer overruns (CI's ASan run
# lost 8340 of the slow-client case's 20000 calls on a busy machine).
# The small bursts are paced (PAUSE seconds after each), or the whole
# flood can fall between two scrapes and none sees it half done (CI's
# ASan run once saw 0 and then 2000, never in between).
if [ -n "$KTAP_VALGRIND" ] || ldd "$KTAP" 2>/dev/null | grep -qE 'lib(asan|ubsan)'; then
	BURSTS=20 BURST=100 SLOW=1000 PAUSE=0.1
else
	BURSTS=100 BURST=1000 SLOW=20000 PAUSE=0
fi
# Names of their own (the comm is the file's name): kgp-one, kgp-two ...
for w in one two flood slow; do cp "$GP" "$TMP/kgp-$w"; done

cat >"$TMP/live.stp" <<'SCRIPT'
global calls, all
probe begin { println("ready") }
probe kernel.trace("raw_syscalls:sys_enter") {
	if (substr(execname(), 0, 4) == "kgp-") {
		calls[execname(), syscall_name($id)]++
		all++
	}
}
probe prometheus {
	$value .= "# HELP ktap_syscalls_total System calls by process and call.\n"
	$value .= "# TYPE ktap_syscalls_total counter\n"
	@prometheus_dump_array2(calls, "ktap_syscalls_total", "process", "syscall")
	$value .= "# HELP ktap_syscalls_all_total All of them.\n"
	$value .= "# TYPE ktap_syscalls_all_total counter\n"
	$value .= sprintf("ktap_syscalls_all_total %d\n", all)
}
SCRIPT

# count FILE PROCESS: the getppid calls of PROCESS in the answer FILE.
count() {
	sed -n "s/^ktap_syscalls_total{process=\"$2\",syscall=\"getppid\"} //p" "$1"
}

# same_state FILE: the per-call counters add up to the total kept with them.
same_state() {
	awk '/^ktap_syscalls_total\{/ { sum += $NF } /^ktap_syscalls_all_total / { all = $NF }
		END { exit !(all > 0 && sum == all) }' "$1"
}

if ! serve live.stp; then
	not_ok "live: ktap did not serve"
	diag_file "$TMP/k.err"
	finish
	tfs_guard_end "live: tracefs is as it was"
	done_testing
	exit 0
fi

# Where it listens: 127.0.0.1 only.
if ! command -v ss >/dev/null 2>&1; then
	skip "the server listens on 127.0.0.1 only" "ss is not installed (Debian: iproute2)"
elif [ "$(ss -ltnH "sport = :$PORT" | awk '{ print $4 }')" = "127.0.0.1:$PORT" ]; then
	ok "the server listens on 127.0.0.1:$PORT only (ss)"
else
	not_ok "listening: $(ss -ltnH "sport = :$PORT" | awk '{ print $4 }' | tr '\n' ' ')"
fi

# A second ktap on the same port: one line, exit 1, nothing done to tracefs.
run_ktap "$TMP" "$TMP/out" "$TMP/err" --prometheus "127.0.0.1:$PORT" -e \
	'probe kernel.trace("raw_syscalls:sys_enter") { } probe prometheus { }'
expect_err "a port in use: one line, exit status 1" 1 \
	"ktap: error: --prometheus 127.0.0.1:$PORT: Address already in use"

"$TMP/kgp-one" 1000
scrape "$TMP/s1"
c1=$CODE
"$TMP/kgp-one" 500
"$TMP/kgp-two" 300
scrape "$TMP/s2"
if [ "$c1" = "200 text/plain; version=0.0.4" ] && [ "$(count "$TMP/s1" kgp-one)" = 1000 ] &&
	[ -z "$(count "$TMP/s1" kgp-two)" ] && [ "$(count "$TMP/s2" kgp-one)" = 1500 ] &&
	[ "$(count "$TMP/s2" kgp-two)" = 300 ]; then
	ok "two scrapes: the counters grow and equal the workloads' getppid calls"
else
	not_ok "scrapes: '$c1', kgp-one $(count "$TMP/s1" kgp-one) then $(count "$TMP/s2" kgp-one), kgp-two $(count "$TMP/s2" kgp-two)"
	diag_file "$TMP/s1"
	diag_file "$TMP/s2"
	diag_file "$TMP/curl.err"
fi

if valid "$TMP/s2" && same_state "$TMP/s2"; then
	ok "the answer is the text exposition format (strict parser)"
else
	not_ok "the answer is not the exposition format"
	diag_file "$TMP/valid.why"
	diag_file "$TMP/s2"
fi
if command -v promtool >/dev/null 2>&1; then
	if promtool check metrics <"$TMP/s2" >"$TMP/promtool" 2>&1; then
		ok "promtool check metrics accepts the answer"
	else
		not_ok "promtool check metrics"
		diag_file "$TMP/promtool"
	fi
else
	skip "promtool check metrics" "promtool is not installed (Debian: prometheus)"
fi

# Scrapes two at a time while a workload runs: each answer one state.
# (In bursts: one run of 400000 calls fills the ring buffers faster than
# ktap reads them, scrapes or not.)
(i=0; while [ $i -lt $BURSTS ]; do "$TMP/kgp-flood" $BURST; sleep $PAUSE; i=$((i + 1)); done) &
flood=$!
bad=0
middle=0
i=0
while [ $i -lt 5 ] || kill -0 $flood 2>/dev/null; do
	i=$((i + 1))
	scrape "$TMP/a$i" &
	pa=$!
	scrape "$TMP/b$i"
	wait $pa
	for f in "$TMP/a$i" "$TMP/b$i"; do
		if ! valid "$f" || ! same_state "$f"; then
			bad=1
			diag_file "$f"
		fi
		n=$(count "$f" kgp-flood)
		[ "${n:-0}" -gt 0 ] && [ "$n" -lt $((BURSTS * BURST)) ] && middle=$((middle + 1))
	done
done
wait $flood
scrape "$TMP/s3"
if [ $bad -eq 0 ] && [ $middle -gt 0 ] && [ "$(count "$TMP/s3" kgp-flood)" = $((BURSTS * BURST)) ]; then
	ok "scrapes two at a time during $BURSTS x $BURST calls: each answer is one state, the count exact"
else
	not_ok "concurrent scrapes: kgp-flood $(count "$TMP/s3" kgp-flood), $middle answers during it"
fi

# A client that sends half a request and stays, and one that sends
# garbage: the loop goes on (exact count, a prompt answer to curl).
if command -v busybox >/dev/null 2>&1 && busybox nc --help >/dev/null 2>&1; then
	mkfifo "$TMP/half"
	busybox nc 127.0.0.1 "$PORT" <"$TMP/half" >"$TMP/half.out" 2>&1 &
	nc1=$!
	exec 7>"$TMP/half"
	printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n' >&7
	printf '\001\002 what\r\n\r\n' | busybox nc 127.0.0.1 "$PORT" >"$TMP/garbage.out" 2>&1 &
	nc2=$!
	"$TMP/kgp-slow" $SLOW
	start=$(date +%s)
	scrape "$TMP/s4"
	took=$(($(date +%s) - start))
	if [ "${CODE%% *}" = 200 ] && [ "$(count "$TMP/s4" kgp-slow)" = $SLOW ] && [ $took -le 2 ]; then
		ok "half a request and garbage from other clients: exact count, answered in ${took}s"
	else
		not_ok "with a slow client: '$CODE', kgp-slow $(count "$TMP/s4" kgp-slow), ${took}s"
		diag_file "$TMP/curl.err"
	fi
	kill $nc2 2>/dev/null
	wait $nc2 2>/dev/null
	# ktap stops with the half request still open
	finish
	exec 7>&-
	kill $nc1 2>/dev/null
	wait $nc1 2>/dev/null
else
	skip "a slow client" "busybox nc is not available"
	finish
fi
if [ "$rc" -eq 0 ] && ! grep -q 'lost' "$TMP/k.err"; then
	ok "live: exit status 0 on SIGINT, no events lost"
else
	not_ok "live: exit status $rc"
	diag_file "$TMP/k.err"
fi

# A flood of records faster than the handlers: ktap is behind, and a
# scrape is answered all the same, from the state between two records,
# while the workload still runs (it waited for the flood's end before).
cat >"$TMP/flood.stp" <<'SCRIPT'
global n
probe begin { println("ready") }
probe kernel.trace("raw_syscalls:sys_enter") {
	if (execname() == "kgp-flood") {
		for (i = 0; i < 100; i++) x += i
		n++
	}
}
probe prometheus { $value = sprintf("seen %d\n", n) }
SCRIPT
if serve flood.stp; then
	"$TMP/kgp-flood" 3000000 &
	flood=$!
	sleep 0.3
	scrape "$TMP/s5"
	if kill -0 $flood 2>/dev/null; then running=yes; else running=no; fi
	wait $flood
	finish
	if [ "${CODE%% *}" = 200 ] && grep -qE '^seen [1-9][0-9]*$' "$TMP/s5" &&
		[ $running = yes ] && [ "$rc" -eq 0 ]; then
		ok "a flood ktap is behind on: the scrape is answered while it lasts"
	else
		not_ok "flood: '$CODE', workload still running: $running, exit status $rc"
		diag_file "$TMP/s5"
		diag_file "$TMP/k.err"
	fi
else
	not_ok "flood: ktap did not serve"
	diag_file "$TMP/k.err"
	finish
fi
# The HTTP server's thread is ktap's own, as its main thread: none of its
# system calls (accept, recv, send of the scrapes; the thread is named
# MHD-single) reach a probe.
cat >"$TMP/own.stp" <<'SCRIPT'
global c
probe begin { println("ready") }
probe kernel.trace("raw_syscalls:sys_enter") { c[pid()]++ }
probe prometheus { $value = "x 1\n" }
probe end { foreach (p in c) printf("%d %d\n", p, c[p]) }
SCRIPT
if serve own.stp; then
	own=$KPID
	scrape "$TMP/s6"
	scrape "$TMP/s6"
	# timeout(1) runs ktap as its child: ktap's pid is the child's
	kpid=$(pgrep -P "$own" -x ktap || echo "$own")
	finish
	if [ "${CODE%% *}" = 200 ] && [ "$rc" -eq 0 ] &&
		! awk -v k="$kpid" '$1 == k { bad = 1 } END { exit !bad }' "$TMP/k.out"; then
		ok "the HTTP server's thread is ktap's own: its system calls reach no probe"
	else
		not_ok "own thread: '$CODE', exit status $rc, ktap $kpid"
		diag_file "$TMP/k.out"
	fi
else
	not_ok "own thread: ktap did not serve"
	diag_file "$TMP/k.err"
	finish
fi
tfs_guard_end "live: tracefs is as it was"
done_testing
