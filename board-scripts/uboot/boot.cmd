# SPDX-License-Identifier: GPL-2.0
#
# U-Boot script of the ebfq disk images (board-scripts/disk-image makes
# boot.scr of it with 'mkimage -T script'). U-Boot's distro boot finds it
# on the bootable first partition and runs it with devtype, devnum and
# distro_bootpart naming that partition. It loads uEnv.txt from the same
# partition (board and user settings: ebfq_args is the kernel's command
# line), then the FIT image ebfq.itb, and boots the FIT's default
# configuration (kernel + device tree) with the root file system on the
# disk's second partition, found by its partition UUID so that the same
# image boots as vda, sda or mmcblk0.

echo "ebfq: boot script on ${devtype} ${devnum}:${distro_bootpart}"
setenv ebfq_args "console=ttyAMA0 init=/init"
if load ${devtype} ${devnum}:${distro_bootpart} ${kernel_addr_r} uEnv.txt; then
	env import -t ${kernel_addr_r} ${filesize}
fi
part uuid ${devtype} ${devnum}:2 ebfq_rootuuid
setenv bootargs "root=PARTUUID=${ebfq_rootuuid} rootfstype=ext4 rootwait rw ${ebfq_args}"
echo "ebfq: loading ebfq.itb; bootargs: ${bootargs}"
# The zImage runs in place inside the FIT and uses the memory right after
# itself for its stack and heap while it decompresses: the device tree,
# which follows it in the FIT, must be moved out of the way first (the
# kernel's Documentation/arm/booting.rst). qemu_arm's environment sets
# fdt_high=0xffffffff, "never move it"; unset, U-Boot copies the tree to
# the top of RAM. The FIT itself goes 64 MiB into RAM (ramdisk_addr_r;
# there is no separate ramdisk), clear of the kernel, which decompresses
# itself to the start of RAM.
setenv fdt_high
if load ${devtype} ${devnum}:${distro_bootpart} ${ramdisk_addr_r} ebfq.itb; then
	bootm ${ramdisk_addr_r}
fi
echo "ebfq: could not boot ebfq.itb from ${devtype} ${devnum}:${distro_bootpart}"
