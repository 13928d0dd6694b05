#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest's root: an initramfs (newc cpio, gzip) of the armhf userland
# (build/armhf/root: busybox, fio and its libraries), rootfs-overlay/ and the
# in-guest tests (tests/guest -> /usr/lib/ebfq/tests), the benchmark's own
# static tools (bench/tools -> /usr/bin) and start-up traces (bench/traces
# -> /usr/lib/ebfq/traces), plus the ext4 template the scratch disks are
# copied from.
#
#   scripts/rootfs.sh [MODULES_DIR]
#
# The archive is written by the kernel's own usr/gen_init_cpio from a file
# list, so every file is owned by root and /dev/console exists without
# running as root or calling mknod.
#
# QEMU boots the uncompressed initramfs.cpio: measured on virt, gunzipping
# the 29 MB initramfs.cpio.gz costs the emulated CPU ~2.8 s (4 s with the
# host busy) before /init runs, while copying 63 MB costs it almost
# nothing. initramfs.cpio.gz is kept for images that are shipped or loaded
# by a boot loader. A read-only system disk was not chosen: vexpress has a
# single SD slot, which is the device under test, and any extra disk would
# put one more block device (and its I/O) beside the ones being measured.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"

modules=${1:-}
out=$BUILD/rootfs
userland=$BUILD/armhf/root
[ -x "$userland/usr/bin/fio" ] || die "no armhf userland in ${userland#"$top"/}: run 'make deps'"
[ -z "$modules" ] || [ -d "$modules" ] || die "modules directory '$modules' does not exist"
src=$BUILD/$(basename "$(linux_tarball)" .tar.xz)
[ -f "$src/usr/gen_init_cpio.c" ] || die "no kernel tree in ${src#"$top"/}: run 'make kernel'"
mkdir -p "$out"

stamp=$(content_hash "$top/rootfs-overlay" "$top/tests/guest" "$top/bench/tools" \
	"$top/bench/traces" "$BUILD/armhf/.stamp" \
	${modules:+"$modules"} "$0" | sha256sum | cut -d' ' -f1)
if [ -f "$out/initramfs.cpio.gz" ] && [ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ]; then
	progress rootfs "up to date ($(du -h "$out/initramfs.cpio.gz" | cut -f1))"
	exit 0
fi

gen=$out/gen_init_cpio
if [ ! -x "$gen" ] || [ "$src/usr/gen_init_cpio.c" -nt "$gen" ]; then
	cc -O2 -o "$gen" "$src/usr/gen_init_cpio.c"
fi

progress rootfs "staging userland, overlay and tests"
stage=$out/stage
rm -rf "$stage"
mkdir -p "$stage/usr/lib/ebfq/tests" "$stage/etc"
cp -a "$userland/." "$stage/"
cp -a "$top/rootfs-overlay/." "$stage/"
cp "$top"/tests/guest/*.sh "$stage/usr/lib/ebfq/tests/"
cp "$BUILD/armhf/libdirs" "$stage/etc/ebfq-libdirs"
mkdir -p "$stage/usr/lib/ebfq/traces"
cp "$top"/bench/traces/*.trace "$stage/usr/lib/ebfq/traces/" 2>/dev/null || true
for c in "$top"/bench/tools/*.c; do
	t=$(basename "$c" .c)
	progress rootfs "building $t (static, armhf)"
	"${CROSS}gcc" -O2 -Wall -Wextra -Werror -static -s -o "$stage/usr/bin/$t" "$c" ||
		die "$t did not build (is libc6-dev-armhf-cross installed? make deps)"
done
[ -z "$modules" ] || cp -a "$modules/lib" "$stage/"

# One gen_init_cpio line per entry; directories first (find's order).
list=$out/initramfs.list
{
	echo "dir /dev 0755 0 0"
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	(cd "$stage" && find . -mindepth 1 -printf '%y %P %m %l\n') | while read -r type path mode link; do
		case $type in
		d) echo "dir /$path $mode 0 0" ;;
		f) echo "file /$path $stage/$path $mode 0 0" ;;
		l) echo "slink /$path $link 0777 0 0" ;;
		*) die "unexpected file type '$type' of $path" ;;
		esac
	done
} >"$list"

progress rootfs "writing initramfs.cpio.gz ($(du -sh "$stage" | cut -f1) of files)"
"$gen" "$list" >"$out/initramfs.cpio"
gzip -1 -n -f -k "$out/initramfs.cpio"

# The scratch disks start as an empty ext4 file system each boot.
tmpl=$out/scratch-64M.ext4
rm -f "$tmpl"
truncate -s 64M "$tmpl"
mkfs.ext4 -q -F -L scratch -E lazy_itable_init=0,nodiscard "$tmpl"

printf '%s\n' "$stamp" >"$out/.stamp"
progress rootfs "done: initramfs.cpio.gz $(du -h "$out/initramfs.cpio.gz" | cut -f1), uncompressed $(du -h "$out/initramfs.cpio" | cut -f1)"
