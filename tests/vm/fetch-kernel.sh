#!/bin/bash
# fetch-kernel.sh CACHE_DIR - get Debian's stock kernel for the ktap test VM.
#
# Downloads Debian's linux-image-*-amd64 package once (apt-get download, no
# install: nothing goes to /boot or /lib/modules of this machine), extracts
# what the VM needs into CACHE_DIR/PACKAGE_VERSION/ and prints the absolute
# path of the vmlinuz there.  A second run finds the cache and prints the
# same path without touching the network.
#
# The cache entry holds:
#   vmlinuz  config  System.map    from the package's /boot
#   vmlinux                        the ELF kernel inside vmlinuz, which
#                                  run-vm.sh boots (PVH entry) when present
#   deb                            the package itself (to add modules offline)
#   package                        "NAME VERSION"
#   modules/NAME.ko                the modules named by KTAP_VM_KMODS and
#                                  their dependencies (flat, uncompressed)
#   modules/modules.dep            "name: dep dep" per module, for
#                                  mkinitramfs.sh --kmod
#   modules/modules.builtin        the package's list of built-in modules
#   .complete                      the cache format, written last; an entry
#                                  without it (or older) is redone
#
# Environment:
#   KTAP_VM_KERNEL_PKG      package name (default: what linux-image-amd64
#                           depends on, e.g. linux-image-6.1.0-56-amd64)
#   KTAP_VM_KERNEL_VERSION  package version (default: apt's candidate)
#   KTAP_VM_KMODS           modules to keep besides $kmods_all (below: the
#                           virtio/9p set of run-vm.sh --share and what the
#                           VM tests load)
# Without a usable apt (no package lists, offline) the newest complete cache
# entry is used, with a warning.  Messages go to stderr; exit 1 on failure.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -eu

prog=fetch-kernel.sh
die() { echo "$prog: error: $*" >&2; exit 1; }
note() { echo "$prog: $*" >&2; }

[ $# -eq 1 ] || { echo "usage: $prog CACHE_DIR" >&2; exit 2; }
mkdir -p "$1" || die "cannot create $1"
cache=$(cd "$1" && pwd)
# Every module any ktap VM test asks for is kept whatever this caller
# asks for: a cache entry is unpacked once, and never again under a test
# that builds an initramfs from it meanwhile (target.sh fetches without
# the VM lock).  KTAP_VM_KMODS adds to it.
kmods_all="9p 9pnet_virtio virtio_pci dummy nfsd nfsv4 veth bridge scsi_debug sd_mod scsi_mod nfsv2 nfsv3"
kmods_wanted="$kmods_all ${KTAP_VM_KMODS:-}"

# --- which package -------------------------------------------------------
resolve_pkg() {
	pkg=${KTAP_VM_KERNEL_PKG:-}
	if [ -z "$pkg" ]; then
		pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
			sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' | head -n 1)
	fi
	[ -n "$pkg" ] || return 1
	ver=${KTAP_VM_KERNEL_VERSION:-}
	if [ -z "$ver" ]; then
		ver=$(apt-cache policy "$pkg" 2>/dev/null |
			sed -n 's/^ *Candidate: //p' | head -n 1)
	fi
	[ -n "$ver" ] && [ "$ver" != "(none)" ]
}

pkg='' ver=''
if ! resolve_pkg; then
	if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
		note "apt knows no linux-image-amd64; running apt-get update"
		apt-get update -qq >&2 || note "apt-get update failed"
	fi
	if ! resolve_pkg; then
		# Offline: fall back on what is cached.
		last=$(find "$cache" -mindepth 2 -maxdepth 2 -name .complete \
			-printf '%h\n' 2>/dev/null | sort -V | tail -n 1)
		[ -n "$last" ] || die "cannot resolve the kernel package with apt-cache and nothing is cached in $cache"
		note "warning: apt cannot resolve the kernel package; using cached $(cat "$last/package")"
		echo "$last/vmlinuz"
		exit 0
	fi
fi
key=${pkg}_${ver}
entry=$cache/$key

# --- modules ---------------------------------------------------------------
# modname FILE: module name of a .ko file name (dashes become underscores).
# Debian's 6.12 packages compress them: NAME.ko.xz (or .zst, .gz).
modname() { local b=${1##*/}; b=${b%.ko*}; echo "${b//-/_}"; }

# copy_ko FILE DEST: FILE, decompressed if it is, as DEST.
copy_ko() {
	case $1 in
	*.ko.xz) xz -dc "$1" > "$2" ;;
	*.ko.zst) zstd -dcq "$1" > "$2" ;;
	*.ko.gz) gzip -dc "$1" > "$2" ;;
	*) cp "$1" "$2" ;;
	esac
}

# collect_kmods TREE DEST: copy the closure of $kmods_wanted from TREE (the
# package's lib/modules/VERSION) to DEST, writing DEST/modules.dep.
collect_kmods() {
	local tree=$1 dest=$2 f n deps
	local -a more
	local -a todo
	local -A path=() seen=()
	while IFS= read -r f; do
		path[$(modname "$f")]=$f
	done < <(find "$tree/kernel" -name '*.ko' -o -name '*.ko.xz' -o -name '*.ko.zst' -o -name '*.ko.gz')
	mkdir -p "$dest"
	: > "$dest/modules.dep"
	read -r -a todo <<< "${kmods_wanted//-/_}"
	while [ "${#todo[@]}" -gt 0 ]; do
		n=${todo[0]}
		todo=("${todo[@]:1}")
		[ -z "${seen[$n]:-}" ] || continue
		seen[$n]=1
		if [ -z "${path[$n]:-}" ]; then
			if grep -Eq "/($n|${n//_/-}).ko\$" "$tree/modules.builtin" 2>/dev/null; then
				continue # built in: nothing to load
			fi
			die "module $n not found in the kernel package"
		fi
		f=${path[$n]}
		copy_ko "$f" "$dest/$n.ko" || die "cannot decompress $f"
		deps=$(tr '\0' '\n' < "$dest/$n.ko" | sed -n 's/^depends=//p' | head -n 1)
		deps=${deps//,/ }
		deps=${deps//-/_}
		echo "$n: $deps" >> "$dest/modules.dep"
		if [ -n "$deps" ]; then
			read -r -a more <<< "$deps"
			todo+=("${more[@]}")
		fi
	done
	if [ -f "$tree/modules.builtin" ]; then
		cp "$tree/modules.builtin" "$dest/"
	fi
	echo "$kmods_wanted" > "$dest/wanted"
}

# extract_vmlinux VMLINUZ OUT: the uncompressed ELF kernel inside the
# bzImage (what the kernel's scripts/extract-vmlinux does).  QEMU boots it
# directly through its PVH entry point, skipping the in-guest decompression:
# about 4 s faster under TCG.  Without CONFIG_PVH, or if no payload
# decompresses to an ELF file, OUT is not written (run-vm.sh then boots
# VMLINUZ).
extract_vmlinux() {
	local in=$1 out=$2 magic cmd off
	rm -f "$out"
	grep -q '^CONFIG_PVH=y' "$entry/config" || return 0
	for magic in '\xFD7zXZ\x00:xz -dc --single-stream' \
		'\x28\xB5\x2F\xFD:zstd -dcq' '\x1F\x8B\x08:gzip -dc'; do
		cmd=${magic#*:}
		command -v "${cmd%% *}" >/dev/null 2>&1 || continue
		for off in $(LC_ALL=C grep -aboP "${magic%%:*}" "$in" | cut -d: -f1 | head -n 4); do
			# shellcheck disable=SC2086  # $cmd is a command and options
			tail -c +$((off + 1)) "$in" | $cmd > "$out.tmp" 2>/dev/null || true
			if [ "$(LC_ALL=C head -c 4 "$out.tmp")" = $'\177ELF' ]; then
				mv "$out.tmp" "$out"
				return 0
			fi
		done
	done
	rm -f "$out.tmp"
	note "warning: no ELF vmlinux found in $in; the VM will boot the bzImage"
}

# kmods_ok: every wanted module is in the entry.  An entry keeps the
# union of the sets asked for (vm-ktap.sh wants more than the others), so
# VM tests that want different sets do not each unpack the package again
# in turn.
kmods_ok() {
	local m have
	[ -f "$entry/modules/wanted" ] || return 1
	have=" $(cat "$entry/modules/wanted") "
	for m in $kmods_wanted; do
		case $have in *" $m "*) ;; *) return 1 ;; esac
	done
}

# --- fetch under a lock (make -j check may run two VM tests at once) ------
exec 9> "$cache/.lock"
if command -v flock >/dev/null 2>&1; then flock 9; fi

# Bump when the layout of an entry changes: older entries are redone (from
# their kept .deb, without downloading).
cache_format=2
entry_ok() { [ "$(cat "$entry/.complete" 2>/dev/null)" = "$cache_format" ] && kmods_ok; }
if entry_ok; then
	echo "$entry/vmlinuz"
	exit 0
fi

tmp=$(mktemp -d "$cache/.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

mkdir -p "$entry"
rm -f "$entry/.complete"
if [ ! -s "$entry/deb" ]; then
	note "downloading $pkg=$ver"
	command -v apt-get >/dev/null 2>&1 || die "apt-get not found"
	sandbox=()
	# apt's _apt user cannot write to a root-owned temp dir.
	if [ "$(id -u)" -eq 0 ]; then sandbox=(-o APT::Sandbox::User=root); fi
	(cd "$tmp" && apt-get download -q "${sandbox[@]}" "$pkg=$ver" >&2) ||
		die "apt-get download $pkg=$ver failed"
	deb=$(find "$tmp" -maxdepth 1 -name '*.deb' | head -n 1)
	[ -n "$deb" ] || die "apt-get download produced no .deb"
	mv "$deb" "$entry/deb"
fi

note "extracting $key"
mkdir "$tmp/x"
dpkg-deb -x "$entry/deb" "$tmp/x" || die "dpkg-deb -x failed"
kv=$(find "$tmp/x/boot" -name 'vmlinuz-*' -printf '%f\n' | head -n 1)
kv=${kv#vmlinuz-}
[ -n "$kv" ] || die "no /boot/vmlinuz-* in $pkg"
cp "$tmp/x/boot/vmlinuz-$kv" "$entry/vmlinuz"
cp "$tmp/x/boot/config-$kv" "$entry/config"
cp "$tmp/x/boot/System.map-$kv" "$entry/System.map" 2>/dev/null || true
extract_vmlinux "$entry/vmlinuz" "$entry/vmlinux"
modtree=$tmp/x/lib/modules/$kv
[ -d "$modtree" ] || modtree=$tmp/x/usr/lib/modules/$kv
if [ -f "$entry/modules/wanted" ]; then	# keep what other tests asked for
	kmods_wanted=$(tr ' ' '\n' < "$entry/modules/wanted" | cat - <(tr ' ' '\n' <<< "$kmods_wanted") |
		awk 'NF && !seen[$0]++' | tr '\n' ' ')
	kmods_wanted=${kmods_wanted% }
fi
rm -rf "$entry/modules"
collect_kmods "$modtree" "$entry/modules"
echo "$pkg $ver" > "$entry/package"
echo "$kv" > "$entry/release"

# Report the configuration facts the ktap VM tests rely on.
for opt in KPROBE_EVENTS UPROBE_EVENTS HIST_TRIGGERS SYNTH_EVENTS DEBUG_INFO_BTF; do
	val=$(sed -n "s/^CONFIG_$opt=//p" "$entry/config")
	note "CONFIG_$opt=${val:-(not set)}"
	[ "$val" = y ] || note "warning: CONFIG_$opt is not built in; VM tests will fail"
done
echo "$cache_format" > "$entry/.complete"
echo "$entry/vmlinuz"
