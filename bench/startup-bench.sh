#!/bin/sh
# startup-bench.sh [KTAP] - what ktap costs before a script runs: CPU time
# (user + system) and maximum RSS of whole runs, median of N, for
#   begin   ktap -e 'probe begin { exit() }'          (the full run, pass 5)
#   begin3  the same at -p3
#   open    ktap -p3 -e 'probe syscall.openat { ... }' (the syscall tapset)
#   tcp     ktap -p3 examples/tcp_retransmit.stp       (the tcp tapset)
# each with the tapset loaded lazily (the default) and eagerly
# (KTAP_TAPSET_EAGER=1: every tapset file parsed, as before lazy loading),
# and `begin` with an empty tapset directory for the floor.  The -v line
# of pass 1 says how many library scripts each parsed.
#
# The per-run figures come from wait4(2) (ru_utime + ru_stime,
# ru_maxrss) through a small C helper compiled on the fly with $CC.
# pass 2 of `open` and `tcp` reads tracefs formats, BTF and DWARF, which
# dominate their times: the tapset's share is the lazy/eager difference.
#
# On a loaded machine the times move with the load; BENCH_INSTR=1 adds
# the instructions of one run (valgrind --tool=callgrind), which do not.
#
# Environment: BENCH_RUNS (21), BENCH_INSTR (0), CC (cc), KTAP_TRACEFS
# as for ktap (the fixture tests/fixtures/tracefs by default, so no root
# is needed).
set -eu
KTAP=${1:-./ktap}
RUNS=${BENCH_RUNS:-21}
SRC=$(cd "$(dirname "$0")/.." && pwd)
: "${KTAP_TRACEFS:=$SRC/tests/fixtures/tracefs}"
export KTAP_TRACEFS
T=$(mktemp -d "${TMPDIR:-/tmp}/ktap-bench.XXXXXX")
trap 'rm -rf "$T"' EXIT

[ -x "$KTAP" ] || { echo "startup-bench: $KTAP is not built (make first)" >&2; exit 1; }

cat >"$T/rusage.c" <<'EOF'
/* rusage N CMD...: run CMD N times (stdout, stderr to /dev/null); print
   the median CPU ms (user + system) and the median max RSS in KB. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[1]) : 0, i, st;
	double *cpu, *rss;

	if (n < 1)
		return 2;
	cpu = calloc((size_t)n, sizeof(*cpu));
	rss = calloc((size_t)n, sizeof(*rss));
	for (i = 0; i < n; i++) {
		struct rusage ru;
		pid_t pid = fork();

		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);

			dup2(fd, 1);
			dup2(fd, 2);
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		if (pid < 0 || wait4(pid, &st, 0, &ru) < 0)
			return 1;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "rusage: %s failed\n", argv[2]);
			return 1;
		}
		cpu[i] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
			 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
		rss[i] = (double)ru.ru_maxrss;
	}
	qsort(cpu, (size_t)n, sizeof(*cpu), cmp);
	qsort(rss, (size_t)n, sizeof(*rss), cmp);
	printf("%.2f %.0f\n", cpu[n / 2], rss[n / 2]);
	return 0;
}
EOF
${CC:-cc} -O2 -o "$T/rusage" "$T/rusage.c"

OPEN='probe syscall.openat { printf("%s %s\n", execname(), filename) }'
BEGIN='probe begin { exit() }'

# row NAME VAR=VALUE ARGS...: one line of the table, for ktap ARGS run
# with VAR=VALUE in the environment.
row() {
	name=$1 var=$2
	shift 2
	r=$("$T/rusage" "$RUNS" env "$var" "$KTAP" "$@")
	n=$(env "$var" "$KTAP" -v "$@" 2>&1 >/dev/null |
		sed -n 's/^Pass 1: parsed user script and \([0-9]*\) library.*/\1/p')
	ir=
	if [ "${BENCH_INSTR:-0}" = 1 ]; then
		env "$var" valgrind --tool=callgrind --callgrind-out-file="$T/cg" \
			"$KTAP" "$@" >/dev/null 2>&1
		ir=$(sed -n 's/^summary: *//p' "$T/cg")
		ir=$(awk -v n="$ir" 'BEGIN { printf "%.2fM", n / 1e6 }')
	fi
	printf '%-14s %8s %9s %6s %8s\n' "$name" "${r% *}" "${r#* }" "$n" "$ir"
}

printf '%-14s %8s %9s %6s %8s\n' run "cpu(ms)" "rss(KB)" files \
	"$([ "${BENCH_INSTR:-0}" = 1 ] && echo instr)"
row begin-empty KTAP_TAPSET="$T" -e "$BEGIN"
for mode in lazy eager; do
	e=KTAP_TAPSET_EAGER=$([ $mode = eager ] && echo 1 || echo 0)
	row "begin-$mode" "$e" -e "$BEGIN"
	row "begin3-$mode" "$e" -p3 -e "$BEGIN"
	row "open-$mode" "$e" -p3 -e "$OPEN"
	row "tcp-$mode" "$e" -p3 "$SRC/examples/tcp_retransmit.stp"
done
echo "startup-bench: median of $RUNS runs each"
