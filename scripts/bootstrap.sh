#!/usr/bin/env bash
# scripts/bootstrap.sh - from a fresh clone to a built ./ktap (and tests).
#
#   scripts/bootstrap.sh          install what is missing, configure, make
#   scripts/bootstrap.sh check    ... then make -j2 check (exit status is
#                                 make check's; failing tests' logs shown)
#
# Idempotent and quick when nothing changed: Debian packages are installed
# only when missing (apt-get update only then), autoreconf runs only when
# configure is missing or older than its inputs, configure only when
# Makefile is missing or older than configure, or when KTAP_CONFIGURE_ARGS
# is set and differs from the arguments of the last configure run.
#
# Environment:
#   KTAP_CONFIGURE_ARGS  extra ./configure arguments (e.g. --enable-asan)
#   KTAP_NO_APT=1        never install packages, only report missing ones
set -uo pipefail

mode=${1:-build}
case $mode in
build|check) ;;
-h|--help)
	sed -n '2,/^set /p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
	exit 0;;
*)
	echo "usage: $0 [check]" >&2
	exit 2;;
esac

cd "$(dirname "$0")/.." || exit 1
top=$PWD

say() { printf 'bootstrap: %s\n' "$*"; }
die() { printf 'bootstrap: error: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------------
# 1. Debian packages
# ---------------------------------------------------------------------
packages=(
	build-essential pkg-config autoconf automake bison flex
	libtracefs-dev libtraceevent-dev libdw-dev libelf-dev libbpf-dev zlib1g-dev libjson-c-dev
	libtracecmd-dev trace-cmd
	libmicrohttpd-dev curl
	libcmocka-dev jq valgrind clang libclang-rt-14-dev
	qemu-system-x86 busybox-static bpftrace time strace bpftool
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross systemtap-sdt-dev
	systemtap-doc
)

missing_packages() {
	local installed
	installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null |
		awk '$NF == "installed" && $(NF-1) == "ok" { print $1 }')
	local p
	for p in "${packages[@]}"; do
		grep -qxF "$p" <<<"$installed" || echo "$p"
	done
}

install_packages() {
	local -a missing
	mapfile -t missing < <(missing_packages)
	[ ${#missing[@]} -eq 0 ] && return 0

	say "missing Debian packages: ${missing[*]}"
	local -a sudo=()
	if [ "$(id -u)" -ne 0 ]; then
		if [ "${KTAP_NO_APT:-0}" != 1 ] && command -v sudo >/dev/null 2>&1; then
			sudo=(sudo)
		else
			die "run as root, or install them yourself: apt-get install ${missing[*]}"
		fi
	elif [ "${KTAP_NO_APT:-0}" = 1 ]; then
		die "KTAP_NO_APT=1; install them yourself: apt-get install ${missing[*]}"
	fi
	export DEBIAN_FRONTEND=noninteractive
	"${sudo[@]}" apt-get update -q || die "apt-get update failed"
	"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null ||
		die "apt-get install ${missing[*]} failed"
}

command -v dpkg-query >/dev/null 2>&1 || die "not a Debian system (no dpkg-query); install the equivalents of: ${packages[*]}"
install_packages

# ---------------------------------------------------------------------
# 2. autoreconf, configure, make
# ---------------------------------------------------------------------
# newer_than TARGET FILES...: true if TARGET is missing or a FILE is newer.
newer_than() {
	local target=$1 f
	shift
	[ -e "$target" ] || return 0
	for f in "$@"; do
		[ -e "$f" ] && [ "$f" -nt "$target" ] && return 0
	done
	return 1
}

shopt -s nullglob
am_inputs=(configure.ac Makefile.am */Makefile.am.inc m4/*.m4)
shopt -u nullglob

if newer_than configure "${am_inputs[@]}" || [ ! -e build-aux/tap-driver.sh ]; then
	say "autoreconf -fi"
	autoreconf -fi || die "autoreconf failed"
fi

# Reconfigure when KTAP_CONFIGURE_ARGS is set and differs from the
# arguments of the last configure run (unset: keep what is configured).
read -r -a want_args <<<"${KTAP_CONFIGURE_ARGS:-}"
args_differ=false
if [ -n "${KTAP_CONFIGURE_ARGS+set}" ] && [ -x config.status ]; then
	have_args=()
	eval "have_args=($(./config.status --config 2>/dev/null))" || have_args=(?)
	[ "${have_args[*]}" = "${want_args[*]}" ] || args_differ=true
fi

if newer_than Makefile configure || $args_differ; then
	say "./configure ${want_args[*]}"
	./configure "${want_args[@]}" || die "configure failed (see config.log)"
fi

jobs=$(nproc 2>/dev/null || echo 2)
say "make -j$jobs"
make -j"$jobs" || die "build failed"

[ "$mode" = check ] || exit 0

# ---------------------------------------------------------------------
# 3. make check
# ---------------------------------------------------------------------
# The live tests need tracefs; libtracefs would mount it only on first use.
if [ "$(id -u)" -eq 0 ] && [ ! -e /sys/kernel/tracing/README ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || :
fi
say "make -j2 check"
make -j2 check
status=$?
if [ $status -ne 0 ]; then
	say "make check failed; logs of the failing tests:"
	while IFS= read -r trs; do
		log=${trs%.trs}.log
		printf '\n===== %s (last 40 lines) =====\n' "$log"
		tail -n 40 "$log" 2>/dev/null
	done < <(find . -name '*.trs' -not -path './build-*' \
		-exec grep -lE '^:test-result: (FAIL|ERROR|XPASS)' {} + 2>/dev/null)
	[ -f test-suite.log ] && printf '\nSummary: %s\n' "$top/test-suite.log"
fi
exit $status
