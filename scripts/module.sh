#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build ebfq.ko out of tree from kernel/block/, against a prepared kernel
# build (one whose config does not build ebfq in), the way a distribution
# builds a DKMS-style module:
#
#   scripts/module.sh KERNEL_OUT OUT_DIR
#
# OUT_DIR/src gets the sources with kernel/block/Kbuild.ebfq as its Kbuild
# (the file block/Makefile includes in-tree), OUT_DIR/ebfq.ko the module,
# OUT_DIR/ebfq-module.cpio a cpio archive holding it at
# /usr/lib/ebfq/modules/ebfq.ko, to append to the test initramfs (where
# modprobe cannot find it: tests load it by hand), and OUT_DIR/root a
# modules tree, lib/modules/RELEASE with the kernel's own modules and
# extra/ebfq.ko, installed and indexed (depmod) by kbuild's modules_install
# as a distribution's package would be, for the disk images.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"

[ $# -eq 2 ] || die "usage: $0 KERNEL_OUT OUT_DIR"
kout=$1 out=$2
[ -f "$kout/.config" ] && [ -f "$kout/Module.symvers" ] ||
	die "'$kout' is not a built kernel tree (no .config or Module.symvers): run 'make kernel FLAVOUR=module'"
# Kbuild runs in the source tree: O= and M= must not be relative.
kout=$(cd "$kout" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
grep -q '^CONFIG_MODULES=y' "$kout/.config" || die "$kout: CONFIG_MODULES is off"
! grep -q '^CONFIG_IOSCHED_EBFQ=y' "$kout/.config" ||
	die "$kout builds ebfq in: the module could not register the name 'ebfq'"
src=$BUILD/$(basename "$(linux_tarball)" .tar.xz)
gen=$BUILD/rootfs/gen_init_cpio
[ -x "$gen" ] || die "missing $gen: run 'make rootfs' first"

stamp=$(
	{
		cat "$kout/.ebfq-stamp"
		content_hash "$top/kernel/block" "$0" "$top/scripts/lib.sh"
	} | sha256sum | cut -d' ' -f1
)
if [ -f "$out/ebfq-module.cpio" ] && [ "$(cat "$out/.ebfq-stamp" 2>/dev/null)" = "$stamp" ]; then
	progress module "inputs unchanged, skipping ($out/ebfq.ko)"
	exit 0
fi

mkdir -p "$out/src"
rm -f "$out/src"/ebfq-* "$out/src/Kbuild"
cp "$top"/kernel/block/ebfq-*.[ch] "$out/src/"
cp "$top/kernel/block/Kbuild.ebfq" "$out/src/Kbuild"

cc=${CROSS}gcc
command -v ccache >/dev/null && cc="ccache $cc"
progress module "building ebfq.ko against $(basename "$kout")"
make -s -C "$src" O="$kout" M="$out/src" ARCH="$KARCH" CROSS_COMPILE="$CROSS" \
	CC="$cc" -j"$(nproc)" modules >"$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	die "module build failed; log: $out/build.log"
}
cp "$out/src/ebfq.ko" "$out/ebfq.ko"
[ -d "$kout/modroot/lib/modules" ] || die "$kout has no modroot: rebuild it with scripts/kernel.sh"
rm -rf "$out/root"
cp -a "$kout/modroot" "$out/root"
make -s -C "$src" O="$kout" M="$out/src" ARCH="$KARCH" CROSS_COMPILE="$CROSS" \
	INSTALL_MOD_PATH="$out/root" INSTALL_MOD_STRIP=1 DEPMOD=/sbin/depmod \
	modules_install >>"$out/build.log" 2>&1 || {
	tail -n 20 "$out/build.log" >&2
	die "modules_install of ebfq.ko failed; log: $out/build.log"
}

release=$(cat "$kout/include/config/kernel.release")
magic=$(modinfo -F vermagic "$out/ebfq.ko")
case $magic in
"$release "*) ;;
*) die "ebfq.ko vermagic '$magic' does not match the kernel '$release'" ;;
esac

"$gen" /dev/stdin >"$out/ebfq-module.cpio" <<LIST
dir /usr 0755 0 0
dir /usr/lib 0755 0 0
dir /usr/lib/ebfq 0755 0 0
dir /usr/lib/ebfq/modules 0755 0 0
file /usr/lib/ebfq/modules/ebfq.ko $out/ebfq.ko 0644 0 0
LIST
echo "$stamp" >"$out/.ebfq-stamp"
progress module "ebfq.ko ($(stat -c %s "$out/ebfq.ko") bytes, vermagic $release) -> $out"
