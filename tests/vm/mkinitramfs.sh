#!/bin/bash
# mkinitramfs.sh [OPTIONS] OUT.gz [SPEC...] - initramfs for the ktap test VM.
#
# Builds a gzip'ed newc cpio holding:
#   - the static busybox (busybox-static) with a link for each applet;
#   - /init (below);
#   - every SPEC, and for every dynamically linked ELF file among them all
#     the shared libraries ldd lists (the closure), at the paths ldd
#     resolves them to, the dynamic loader included; the host's merged-/usr
#     links (/lib -> usr/lib ...) are copied too, and ldconfig (when run as
#     root) writes an ld.so.cache, so libraries from ld.so.conf.d dirs load;
#   - /etc/hostname (ktap-vm), /etc/passwd and /etc/group with root.
#
# SPEC is SRC or SRC:DEST.  SRC is a file or a directory; DEST is where it
# goes in the guest (absolute; default: SRC's own absolute path).  A DEST
# ending in / is a directory that receives SRC under its own name.
# Directories are copied whole (cp -a), and the ELF files in them get their
# libraries too.  Example:
#   mkinitramfs.sh out.gz ./ktap:/usr/bin/ktap tapset:/usr/share/ktap/tapset \
#       run.sh:/tests/run-in-vm.sh tests/vm/guest:/tests/
#
# OPTIONS
#   --kmod NAME        load module NAME (and what it depends on) at boot;
#                      the .ko files come from the kernel cache entry
#   --kernel-dir DIR   that cache entry (the directory of the vmlinuz
#                      fetch-kernel.sh printed; default: $KTAP_VM_KERNEL_DIR)
#   --9p               shorthand for --kmod 9p --kmod 9pnet_virtio
#                      --kmod virtio_pci (what run-vm.sh --share needs)
#   --keep-tree DIR    also leave the staging tree in DIR (for debugging)
#   --busybox PATH     busybox to use (default: the one in PATH)
#
# /init mounts proc, sysfs, devtmpfs, devpts, tmpfs (/tmp, /run), tracefs
# on /sys/kernel/tracing and debugfs on /sys/kernel/debug, brings up lo,
# quietens the kernel console (dmesg -n 1), loads the --kmod modules, mounts
# the run-vm.sh --share directory on /mnt/host (kernel argument
# ktap.share=TAG), then runs /tests/run-in-vm.sh (in /tests) between two
# marker lines on the serial console:
#     === KTAP-VM-BEGIN ===
#     ... the script's stdout and stderr ...
#     === KTAP-VM-END rc=N ===
# and powers off (poweroff -f).  With the kernel argument ktap.shell=1
# (run-vm.sh --interactive) it starts a shell on the console instead of
# powering off.
if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -eu

prog=mkinitramfs.sh
die() { echo "$prog: error: $*" >&2; exit 1; }
usage() {
	sed -n '2,/^$/{s/^# \{0,1\}//;p}' "$0" >&2
	exit 2
}

kmods=()
kernel_dir=${KTAP_VM_KERNEL_DIR:-}
keep_tree=''
busybox=''
while [ $# -gt 0 ]; do
	case $1 in
	--kmod) [ $# -ge 2 ] || usage; kmods+=("$2"); shift 2 ;;
	--kmod=*) kmods+=("${1#*=}"); shift ;;
	--kernel-dir) [ $# -ge 2 ] || usage; kernel_dir=$2; shift 2 ;;
	--kernel-dir=*) kernel_dir=${1#*=}; shift ;;
	--9p) kmods+=(9p 9pnet_virtio virtio_pci); shift ;;
	--keep-tree) [ $# -ge 2 ] || usage; keep_tree=$2; shift 2 ;;
	--keep-tree=*) keep_tree=${1#*=}; shift ;;
	--busybox) [ $# -ge 2 ] || usage; busybox=$2; shift 2 ;;
	--busybox=*) busybox=${1#*=}; shift ;;
	-h | --help) usage ;;
	--) shift; break ;;
	-*) echo "$prog: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage
out=$1
shift

if [ -z "$busybox" ]; then
	busybox=$(command -v busybox) ||
		die "busybox not found (Debian: apt-get install busybox-static)"
fi
[ -x "$busybox" ] || die "$busybox is not executable"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ktap-initramfs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP
root=$tmp/root
mkdir -p "$root"

# --- skeleton --------------------------------------------------------------
# Merged /usr: mirror the host's top-level links so that any path ldd
# prints (/lib/..., /usr/lib/..., /lib64/ld-linux...) lands in one tree.
mkdir -p "$root/usr/bin" "$root/usr/sbin" "$root/usr/lib"
for d in bin sbin lib lib32 lib64 libx32; do
	if [ -L "/$d" ]; then
		t=$(readlink "/$d")
		ln -s "$t" "$root/$d"
		case $t in
		/*) mkdir -p "$root$t" ;;
		*) mkdir -p "$root/$t" ;;
		esac
	fi
done
mkdir -p "$root/bin/" "$root/sbin/" "$root/lib/"
mkdir -p "$root"/{dev,proc,sys,tmp,run,root,etc,mnt/host,tests}
chmod 1777 "$root/tmp"
# The kernel opens /dev/console for /init before devtmpfs is mounted; /init
# also reopens it itself, so a non-root build without the node still works.
mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null || true
mknod -m 666 "$root/dev/null" c 1 3 2>/dev/null || true
echo ktap-vm > "$root/etc/hostname"
echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
echo 'root:x:0:' > "$root/etc/group"
echo '127.0.0.1 localhost ktap-vm' > "$root/etc/hosts"

# --- files and their libraries ---------------------------------------------
# Paths already copied into the tree (guest path -> 1).
declare -A have=()
libdirs=()

is_elf() { [ -f "$1" ] && [ "$(LC_ALL=C head -c 4 "$1" 2>/dev/null)" = $'\177ELF' ]; }

# put SRC DEST: copy file SRC (dereferenced) to guest path DEST.
put() {
	[ -z "${have[$2]:-}" ] || return 0
	mkdir -p "$root$(dirname "$2")"
	cp -L --preserve=mode "$1" "$root$2" || die "cannot copy $1"
	have[$2]=1
}

# add_libs FILE: copy the shared libraries FILE needs (ldd's closure).
add_libs() {
	local f=$1 line lib base dir out
	is_elf "$f" || return 0
	out=$(LC_ALL=C ldd "$f" 2>&1) || return 0 # static, or not loadable here
	while IFS= read -r line; do
		line=${line#"${line%%[![:space:]]*}"}
		lib=''
		case $line in
		*'=> not found'*) die "$f needs ${line%% *}, which ldd cannot find" ;;
		*' => /'*) lib=${line#* => }; lib=${lib%% (*} ;;
		/*) lib=${line%% (*} ;; # the dynamic loader
		*) continue ;;          # linux-vdso.so.1, "statically linked"
		esac
		[ -n "$lib" ] || continue
		put "$lib" "$lib"
		dir=${lib%/*}
		libdirs+=("$dir")
		# A glibc-hwcaps/x86-64-v3 build may not suit the guest CPU: also
		# ship the baseline library the loader falls back on.
		case $dir in
		*/glibc-hwcaps/*)
			base=${dir%%/glibc-hwcaps/*}/${lib##*/}
			if [ -e "$base" ]; then put "$base" "$base"; fi
			;;
		esac
	done <<< "$out"
}

# add SRC DEST
add() {
	local src=$1 dest=$2 f
	[ -e "$src" ] || die "$src does not exist"
	case $dest in /*) ;; *) die "destination $dest is not absolute" ;; esac
	case $dest in */) dest=$dest${src##*/} ;; esac
	dest=${dest%/}
	if [ -d "$src" ]; then
		mkdir -p "$root$dest"
		cp -a "$src/." "$root$dest/" || die "cannot copy $src"
		while IFS= read -r -d '' f; do
			add_libs "$f"
		done < <(find "$src" -type f -print0)
	else
		put "$src" "$dest"
		add_libs "$src"
	fi
}

# busybox and its applets (busybox-static needs no library; if another
# busybox is used, add_libs finds what it needs).
put "$busybox" /bin/busybox
chmod 755 "$root/bin/busybox"
add_libs "$busybox"
while IFS= read -r applet; do
	case $applet in
	*/busybox | '') continue ;;
	esac
	[ -e "$root/$applet" ] || [ -L "$root/$applet" ] ||
		ln -s /bin/busybox "$root/$applet"
done < <("$busybox" --list-full)
[ -e "$root/bin/sh" ] || ln -s busybox "$root/bin/sh"

for spec in "$@"; do
	src=$spec dest=''
	# SRC:DEST, split at the last colon followed by an absolute path.
	case $spec in
	*:/*)
		dest=/${spec##*:/}
		src=${spec%:/*}
		;;
	esac
	if [ -z "$dest" ]; then
		dest=$(realpath -s "$src") || die "bad path $src"
	fi
	add "$src" "$dest"
done

# --- kernel modules ----------------------------------------------------------
if [ ${#kmods[@]} -gt 0 ]; then
	[ -n "$kernel_dir" ] || die "--kmod needs --kernel-dir (the kernel cache entry)"
	mdir=$kernel_dir/modules
	[ -f "$mdir/modules.dep" ] || die "$mdir/modules.dep missing; fetch the kernel with KTAP_VM_KMODS including ${kmods[*]}"
	declare -A loaded=()
	order=()
	# visit NAME: depth first, dependencies before the module.
	visit() {
		local n=${1//-/_} deps d
		[ -z "${loaded[$n]:-}" ] || return 0
		loaded[$n]=1
		deps=$(sed -n "s/^$n: *//p" "$mdir/modules.dep")
		if [ ! -f "$mdir/$n.ko" ]; then
			if grep -Eq "/($n|${n//_/-}).ko\$" "$mdir/modules.builtin" 2>/dev/null; then
				return 0
			fi
			die "module $n is not in $mdir (set KTAP_VM_KMODS and re-run fetch-kernel.sh)"
		fi
		for d in $deps; do visit "$d"; done
		order+=("$n")
	}
	for m in "${kmods[@]}"; do visit "$m"; done
	mkdir -p "$root/lib/modules/ktap-vm"
	: > "$root/etc/ktap-vm-modules"
	for n in "${order[@]}"; do
		cp "$mdir/$n.ko" "$root/lib/modules/ktap-vm/"
		echo "/lib/modules/ktap-vm/$n.ko" >> "$root/etc/ktap-vm-modules"
	done
fi

# --- loader cache ----------------------------------------------------------
if [ ${#libdirs[@]} -gt 0 ]; then
	printf '%s\n' "${libdirs[@]}" | sort -u > "$root/etc/ld.so.conf"
	if [ "$(id -u)" -eq 0 ] && command -v ldconfig >/dev/null 2>&1; then
		ldconfig -r "$root" 2>/dev/null || echo "$prog: warning: ldconfig -r failed" >&2
	else
		# Without a cache the loader only searches its default dirs and the
		# RUNPATHs: pass the others through the environment.
		grep -Ev '^(/usr)?/lib(64)?(/x86_64-linux-gnu)?$' "$root/etc/ld.so.conf" |
			tr '\n' ':' | sed 's/:$//' > "$root/etc/ktap-vm-ld-library-path" || true
	fi
fi

# --- /init -----------------------------------------------------------------
cat > "$root/init" <<'EOF'
#!/bin/sh
# /init of the ktap test VM (written by tests/vm/mkinitramfs.sh).
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=${TERM:-vt100}
mount -t devtmpfs devtmpfs /dev 2>/dev/null
exec 0</dev/console 1>/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
# Kernel messages would interleave with the results on the console.
dmesg -n 1
hostname -F /etc/hostname
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null
if [ -s /etc/ktap-vm-ld-library-path ]; then
	LD_LIBRARY_PATH=$(cat /etc/ktap-vm-ld-library-path)
	export LD_LIBRARY_PATH
fi
if [ -f /etc/ktap-vm-modules ]; then
	while read -r ko; do
		insmod "$ko" || echo "ktap-vm: insmod $ko failed"
	done < /etc/ktap-vm-modules
fi
shell=0
for arg in $(cat /proc/cmdline); do
	case $arg in
	ktap.share=*)
		mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 \
			"${arg#ktap.share=}" /mnt/host ||
			echo "ktap-vm: cannot mount the shared directory on /mnt/host"
		;;
	ktap.shell=1) shell=1 ;;
	esac
done
read -r up _ < /proc/uptime
echo "ktap-vm: booted, uptime ${up}s"
if [ -f /tests/run-in-vm.sh ]; then
	echo "=== KTAP-VM-BEGIN ==="
	cd /tests
	if [ -x /tests/run-in-vm.sh ]; then
		/tests/run-in-vm.sh
	else
		sh /tests/run-in-vm.sh
	fi
	rc=$?
	cd /
	echo "=== KTAP-VM-END rc=$rc ==="
	read -r up _ < /proc/uptime
	echo "ktap-vm: done, uptime ${up}s"
else
	echo "ktap-vm: no /tests/run-in-vm.sh"
fi
sync
if [ "$shell" = 1 ]; then
	echo "ktap-vm: shell (exit it to power off)"
	setsid cttyhack sh -l
fi
# Let the UART drain before the machine goes away.
sleep 0.2
poweroff -f
EOF
chmod 755 "$root/init"

# --- archive ---------------------------------------------------------------
outdir=$(dirname "$out")
mkdir -p "$outdir"
(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	"$busybox" cpio -o -H newc -0 -R 0:0 2>/dev/null) |
	gzip -6 > "$tmp/initramfs.gz" || die "cpio/gzip failed"
mv "$tmp/initramfs.gz" "$out"
if [ -n "$keep_tree" ]; then
	rm -rf "$keep_tree"
	mkdir -p "$(dirname "$keep_tree")"
	mv "$root" "$keep_tree"
fi
echo "$prog: wrote $out ($(du -k "$out" | cut -f1) KiB)" >&2
