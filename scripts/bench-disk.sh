#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark's disk: an ext4 image, made once per size and reused, that
# the device under test boots with (a fresh copy each boot).
#
#   scripts/bench-disk.sh FILE_MB TREE OUT
#
#   /app    fio and every shared library it links, with the dynamic loader,
#           and the static busybox: the "real start-up" execs one of them
#           from the device after the caches are dropped (app_cmd in
#           rootfs-overlay/usr/lib/ebfq/lib.sh).
#   /load   r0..r9 and w0..w4, FILE_MB MiB each of random data (zeros would
#           become holes, which read without touching the device): the
#           files of the background readers and writers.
#   /tree   a copy of TREE, a directory of the kernel tree (many small
#           files), for the tree-copy load.
# The image has 2 x the data plus room for the buffered writers and one
# copy of the tree, rounded up to a power of two.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"

[ $# -eq 3 ] || die "usage: $0 FILE_MB TREE OUT"
mb=$1 tree=$2 img=$3
case $mb in '' | *[!0-9]* | 0) die "FILE_MB must be a whole number of MiB, not '$mb'" ;; esac
src=$BUILD/$(basename "$(linux_tarball)" .tar.xz)
[ -d "$src/$tree" ] || die "no directory '$tree' in the kernel tree ${src#"$top"/} (make kernel)"
userland=$BUILD/armhf/root
[ -x "$userland/usr/bin/fio" ] || die "no armhf userland: run 'make deps'"

stamp=$(printf '%s %s %s\n' "$mb" "$tree" "$(content_hash "$0" "$BUILD/armhf/.stamp")" | sha256sum | cut -d' ' -f1)
if [ -f "$img" ] && [ "$(cat "$img.stamp" 2>/dev/null)" = "$stamp" ]; then
	progress bench "disk image up to date (${img#"$top"/})"
	exit 0
fi

stage=$(mktemp -d "$BUILD/bench-disk.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/app/lib" "$stage/load" "$stage/tree"
cp "$userland/usr/bin/fio" "$stage/app/"
cp "$userland/lib/ld-linux-armhf.so.3" "$userland/bin/busybox" "$stage/app/"
while read -r d; do
	[ -d "$userland$d" ] || continue
	find "$userland$d" -maxdepth 1 -name '*.so*' \( -type f -o -type l \) -exec cp -aL {} "$stage/app/lib/" \;
done <"$BUILD/armhf/libdirs"
progress bench "disk image: 15 files of $mb MiB of random data, tree $tree"
for f in r0 r1 r2 r3 r4 r5 r6 r7 r8 r9 w0 w1 w2 w3 w4; do
	head -c "$((mb * 1024 * 1024))" /dev/urandom >"$stage/load/$f"
done
cp -a "$src/$tree/." "$stage/tree/"

used=$(du -sm "$stage" | cut -f1)
# QEMU's SD card model takes only power-of-two sizes.
size=64
while [ "$size" -lt $((2 * used + 6 * mb + 64)) ]; do size=$((size * 2)); done
rm -f "$img"
mkdir -p "$(dirname "$img")"
truncate -s "${size}M" "$img"
mkfs.ext4 -q -F -L ebfq-bench -E lazy_itable_init=0,lazy_journal_init=0,nodiscard -d "$stage" "$img"
echo "$stamp" >"$img.stamp"
progress bench "disk image: ${size} MiB, ${used} MiB used (${img#"$top"/})"
