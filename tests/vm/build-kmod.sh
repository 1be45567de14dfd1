#!/bin/bash
# build-kmod.sh KERNEL_DIR SRC_DIR OUT_DIR - build an out-of-tree test module
# for the VM's kernel, with DWARF and without BTF.
#
# KERNEL_DIR is a cache entry of fetch-kernel.sh (the directory of the
# vmlinuz it printed: "package" and "release" name the kernel).  The
# matching Debian header packages (linux-headers-RELEASE, its -common
# package and linux-kbuild-X.Y) are downloaded once with apt-get download
# and extracted into KERNEL_DIR/headers (nothing is installed on this
# machine); the Makefile's absolute include of the -common tree is pointed
# at the extracted copy.  Then SRC_DIR (a Kbuild file and its sources) is
# built with `make M=` in a copy under OUT_DIR, and the path of the .ko is
# printed.  Debian builds modules with -g, so the module carries DWARF;
# BTF generation is skipped (there is no vmlinux with BTF in the headers),
# which is what the tests want: ktap must fall back on the DWARF.
# Messages go to stderr; exit 1 on failure.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -eu

prog=build-kmod.sh
die() { echo "$prog: error: $*" >&2; exit 1; }
note() { echo "$prog: $*" >&2; }

[ $# -eq 3 ] || { echo "usage: $prog KERNEL_DIR SRC_DIR OUT_DIR" >&2; exit 2; }
kdir=$(cd "$1" && pwd) || die "no kernel cache entry $1"
src=$(cd "$2" && pwd) || die "no module source $2"
mkdir -p "$3"
out=$(cd "$3" && pwd)
read -r _ ver < "$kdir/package" || die "$kdir/package is missing"
release=$(cat "$kdir/release") || die "$kdir/release is missing"
hdr=$kdir/headers

# --- the headers, once (under the cache entry's lock) ------------------------
exec 9> "$kdir/.headers.lock"
if command -v flock >/dev/null 2>&1; then flock 9; fi
if [ ! -f "$hdr/.complete" ]; then
	command -v apt-get >/dev/null 2>&1 || die "apt-get not found"
	pkg=linux-headers-$release
	common=linux-headers-${release%-*}-common
	kbuild=$(apt-cache depends "$pkg=$ver" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-kbuild-[^ ]*\)$/\1/p' | head -n 1)
	[ -n "$kbuild" ] || die "cannot resolve the linux-kbuild package of $pkg=$ver"
	tmp=$(mktemp -d "$kdir/.hdr.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	sandbox=()
	if [ "$(id -u)" -eq 0 ]; then sandbox=(-o APT::Sandbox::User=root); fi
	# The headers depend on linux-kbuild-X.Y (>= VER): the archive may
	# have only a later revision (6.1.192-3 for 6.1.192-2's headers).
	kbuild_pkg=$kbuild
	if apt-cache madison "$kbuild" | awk -v v="$ver" '$3 == v { f = 1 } END { exit !f }'; then
		kbuild_pkg=$kbuild=$ver
	fi
	note "downloading $pkg $common ($ver) $kbuild_pkg"
	(cd "$tmp" && apt-get download -q "${sandbox[@]}" "$pkg=$ver" "$common=$ver" \
		"$kbuild_pkg" >&2) || die "apt-get download of the kernel headers failed"
	rm -rf "$hdr"
	mkdir -p "$tmp/x"
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$tmp/x" || die "dpkg-deb -x $deb failed"
	done
	# "include /usr/src/linux-headers-R-common/Makefile": the extracted copy.
	sed -i "s|/usr/src/|$hdr/usr/src/|" "$tmp/x/usr/src/$pkg/Makefile"
	mv "$tmp/x" "$hdr"
	touch "$hdr/.complete"
fi
exec 9>&-

# --- the module ----------------------------------------------------------------
cc=gcc-$(sed -n 's/^CONFIG_GCC_VERSION=\([0-9]*\)[0-9][0-9][0-9][0-9]$/\1/p' \
	"$hdr/usr/src/linux-headers-$release/.config")
command -v "$cc" >/dev/null 2>&1 || die "$cc (the kernel's compiler) is not installed"
rm -rf "$out/build"
cp -a "$src" "$out/build"
make -s -C "$hdr/usr/src/linux-headers-$release" M="$out/build" modules >&2 2>"$out/build.log" ||
	{ cat "$out/build.log" >&2; die "the module did not build"; }
ko=$(find "$out/build" -maxdepth 1 -name '*.ko' | head -n 1)
[ -n "$ko" ] || die "no .ko built"
readelf -S "$ko" | grep -q '\.debug_info' || die "$ko has no DWARF"
echo "$ko"
