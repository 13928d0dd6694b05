#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
#   scripts/boot.sh BOARD PROFILE KERNEL INITRD shell|uboot|sd
#
# Boot BOARD with fresh scratch disks shaped by PROFILE, with an
# interactive console: 'shell' boots KERNEL and INITRD directly; 'uboot'
# boots Debian's U-Boot, which loads KERNEL from a partitioned disk image
# (board-scripts/disk-image) attached as vda, the root on its second
# partition; 'sd' attaches such an image as the SD card and gives QEMU
# KERNEL with root=/dev/mmcblk0p2 and no initramfs, as a vendor's boot
# loader would. (The demo is the quick benchmark: scripts/bench.sh.)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"

[ $# -eq 5 ] || die "usage: $0 BOARD PROFILE KERNEL INITRD shell|uboot|sd"
board=$1 profile=$2 kernel=$3 initrd=$4 mode=$5
[ -x "$top/board-scripts/$board" ] || die "unknown board '$board' (vexpress, virt)"
[ -f "$top/board-scripts/profiles/$profile.profile" ] ||
	die "unknown profile '$profile' (have: $(ls "$top/board-scripts/profiles" | sed 's/\.profile$//' | tr '\n' ' '))"
dir=$BUILD/logs/$mode-$board
mkdir -p "$dir"
board_disks "$board" "$dir"
args=(--kernel "$kernel" --initrd "$initrd" --profile "$profile" "${disk_args[@]}")
boot_args="ebfq_board=$board ebfq_devs=$devs ebfq_profile=$profile"
case $mode in
shell)
	progress boot "$board, profile $profile: interactive (Ctrl-A X quits)"
	exec "$top/board-scripts/$board" "${args[@]}" --interactive --append "ebfq_mode=shell $boot_args"
	;;
uboot)
	[ "$board" = virt ] ||
		die "BOOT=uboot is for virt: Debian has no U-Boot for vexpress-a9 (board-scripts/disk-image says how to boot its image there)"
	uboot=/usr/lib/u-boot/qemu_arm/u-boot.bin
	[ -f "$uboot" ] || die "no $uboot: run 'make deps' (u-boot-qemu)"
	"$top/board-scripts/disk-image" --kernel "$kernel" "$dir/disk.img"
	progress boot "$board: U-Boot -> boot.scr -> FIT -> root on vda2 (Ctrl-A X quits)"
	exec "$top/board-scripts/$board" --bios "$uboot" --profile "$profile" --disk "vd=$dir/disk.img" \
		--disk "sd=$dir/sd.img" --interactive
	;;
sd)
	"$top/board-scripts/disk-image" --kernel "$kernel" "$dir/disk.img"
	args=(--kernel "$kernel" --initrd none --profile "$profile" --disk "sd=$dir/disk.img")
	# virt keeps its scratch virtio disk; the SD card is the image.
	[ "$board" != virt ] || args+=(--disk "vd=$dir/vd.img")
	progress boot "$board: kernel from QEMU -> root on the SD card's mmcblk0p2 (Ctrl-A X quits)"
	exec "$top/board-scripts/$board" "${args[@]}" --interactive \
		--append "root=/dev/mmcblk0p2 rootfstype=ext4 rootwait rw init=/init ebfq_mode=shell ebfq_board=$board ebfq_profile=$profile"
	;;
*) die "unknown mode '$mode' (shell, uboot, sd)" ;;
esac
