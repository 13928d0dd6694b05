#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A broken disk image must end in U-Boot's own error on the console and a
# prompt the launcher ends at once (exit 126), never in a silent hang: build
# the image board-scripts/disk-image makes, break it the way a bad update or
# a bad card does, and boot it on virt through Debian's U-Boot:
#   - boot.scr with one byte of its script changed: U-Boot refuses its CRC;
#   - no ebfq.itb on the boot partition: the script's load fails;
#   - an ebfq.itb cut short: the FIT fails its checks before the kernel runs;
#   - a disk with no partition table: distro boot finds nothing to run.
# Prints TAP lines for tests/run-host.sh.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/lib.sh"

uboot=/usr/lib/u-boot/qemu_arm/u-boot.bin
kernel=$BUILD/kernel-module/arch/arm/boot/zImage
work=$BUILD/logs/uboot-failures
if [ ! -f "$uboot" ]; then
	echo "ok - uboot-failures # SKIP no $uboot (make deps installs u-boot-qemu)"
	exit 0
fi
[ -f "$kernel" ] || { echo "not ok - uboot-failures: no $kernel (make module)"; exit 0; }
rm -rf "$work"
mkdir -p "$work"
"$top/board-scripts/disk-image" --kernel "$kernel" --modules "" "$work/good.img" >"$work/image.log" 2>&1 ||
	{ echo "not ok - uboot-failures: disk-image failed (build/logs/uboot-failures/image.log)"; exit 0; }

boot_part=$((1024 * 1024)) # partition 1 starts at 1 MiB
fat() { printf '%s@@%s' "$1" "$boot_part"; }

# broken NAME: a copy of the good image to break.
broken() {
	cp --sparse=always "$work/good.img" "$work/$1.img"
	printf '%s\n' "$work/$1.img"
}

# expect NAME PATTERN WHAT: boot image NAME; it must end at the prompt
# (126) within the time limit, with PATTERN (grep -E) on the console.
expect() {
	local name=$1 pattern=$2 what=$3 rc=0 start secs
	start=$(date +%s)
	"$top/board-scripts/virt" --bios "$uboot" --disk "vd=$work/$name.img" \
		--log "$work/$name.console" --timeout 300 || rc=$?
	secs=$(($(date +%s) - start))
	if [ "$rc" != 126 ]; then
		echo "not ok - uboot-failures: $what: launcher exited with $rc after ${secs}s, not 126 (U-Boot's prompt)"
		tail -n 15 "$work/$name.console" | tr -d '\r' | sed 's/^/# /'
	elif ! grep -aqE "$pattern" "$work/$name.console"; then
		echo "not ok - uboot-failures: $what: no /$pattern/ on the console"
		tail -n 15 "$work/$name.console" | tr -d '\r' | sed 's/^/# /'
	else
		echo "ok - uboot-failures: $what: U-Boot said \"$(grep -aoE "$pattern" "$work/$name.console" | head -n 1)\", ended in ${secs}s"
	fi
}

# One byte of the script's text, past the 64-byte legacy header and the
# 8-byte length table: the data CRC no longer matches.
img=$(broken bad-script)
mcopy -n -i "$(fat "$img")" ::boot.scr "$work/boot.scr"
printf 'X' | dd of="$work/boot.scr" bs=1 seek=100 conv=notrunc status=none
mcopy -o -n -i "$(fat "$img")" "$work/boot.scr" ::boot.scr
expect bad-script 'Bad data crc' "a corrupted boot.scr"

img=$(broken no-fit)
mdel -i "$(fat "$img")" ::ebfq.itb
expect no-fit "Failed to load 'ebfq.itb'" "a boot partition without ebfq.itb"

img=$(broken short-fit)
mcopy -n -i "$(fat "$img")" ::ebfq.itb "$work/ebfq.itb"
truncate -s 1M "$work/ebfq.itb"
mdel -i "$(fat "$img")" ::ebfq.itb
mcopy -n -i "$(fat "$img")" "$work/ebfq.itb" ::ebfq.itb
expect short-fit 'Bad FIT kernel image format' "an ebfq.itb cut short"

img=$(broken no-table)
dd if=/dev/zero of="$img" bs=512 count=1 conv=notrunc status=none
expect no-table 'No partition table - virtio 0' "a disk without a partition table"
