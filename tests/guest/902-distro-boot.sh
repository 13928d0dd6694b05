# SPDX-License-Identifier: GPL-2.0
# A distribution's boot from a partitioned disk image (board-scripts/
# disk-image), in the two ways tests/run-host.sh boots it: virt-uboot, where
# U-Boot ran boot.scr from the image's first partition and booted the FIT
# with root=PARTUUID=ebf0c0de-02, and vexpress-sd, where the image is the
# SD card and the kernel was given root=/dev/mmcblk0p2, as by a vendor's
# boot loader. Either way the root is the image's ext4 second partition;
# the kernel is the module kernel, whose Kconfig default is mq-deadline,
# with ebfq.ko installed under /lib/modules. The busybox mdev rule
# (/etc/mdev.conf -> select-iosched) must have given ebfq to the root disk
# and the other disks at boot, loading the module itself; it must give
# ebfq to a single-queue disk that appears later, leave multi-queue disks
# alone, and, once ebfq is gone, leave the kernel's choice without failing.

# root_dev: MAJ:MIN of the root file system (field 3 of mountinfo).
root_dev() {
	awk '$5 == "/" { print $3; exit }' /proc/self/mountinfo
}

# mbr_id DISK: the disk identifier of DISK's MBR (bytes 440-443), in hex.
mbr_id() {
	dd if="/dev/$1" bs=4 skip=110 count=1 2>/dev/null | od -An -tx4 | tr -d ' \n'
}

requires() {
	[ -f /etc/mdev.conf ] || { echo "no /etc/mdev.conf"; return 1; }
	case $(awk '$2 == "/" { print $3; exit }' /proc/mounts) in
	rootfs | tmpfs | ramfs) echo "the root is an initramfs: this test is for the disk-image boot"; return 1 ;;
	esac
	if zcat /proc/config.gz | grep -q '^CONFIG_IOSCHED_EBFQ=y'; then
		echo "ebfq is built into this kernel: the rule has no module to load"
		return 1
	fi
	[ -d "/lib/modules/$(uname -r)" ] || { echo "no /lib/modules/$(uname -r)"; return 1; }
	[ -d /sys/kernel/config/nullb ] || { echo "needs null_blk configfs"; return 1; }
	[ -w /proc/sys/kernel/hotplug ] || { echo "kernel without CONFIG_UEVENT_HELPER"; return 1; }
	[ -e "/sys/dev/block/$(root_dev)/partition" ] || { echo "the root is not on a disk partition"; return 1; }
}

# wait_sched DEV NAME: up to 10 s for DEV's scheduler to become NAME.
wait_sched() {
	n=0
	while [ "$(current_sched "$1")" != "$2" ] && [ "$n" -lt 100 ]; do
		msleep 100
		n=$((n + 1))
	done
	[ "$(current_sched "$1")" = "$2" ]
}

# wait_log TEXT: up to 10 s for TEXT in the kernel log.
wait_log() {
	n=0
	while ! dmesg | grep -qF "$1" && [ "$n" -lt 100 ]; do
		msleep 100
		n=$((n + 1))
	done
	dmesg | grep -qF "$1"
}

root_is_ext4_rw() {
	awk '$2 == "/" && $3 == "ext4" && $4 ~ /^rw/ { found = 1 } END { exit !found }' /proc/mounts
}

# rerun_rule DEV: what udev's RUN does on a 'change' event.
rerun_rule() {
	ACTION=change /usr/lib/ebfq/select-iosched "$1" && [ "$(current_sched "$1")" = ebfq ]
}

bad_invocation() {
	if /usr/lib/ebfq/select-iosched ../sda 2>/tmp/rule.err; then
		echo "exit status 0 for '../sda'"
		return 1
	fi
	grep usage /tmp/rule.err
}

run() {
	# -- what was booted ------------------------------------------------
	part=$(readlink -f "/sys/dev/block/$(root_dev)")
	disk=$(basename "$(dirname "$part")")
	note "root=$(sed -n 's/.*root=\([^ ]*\).*/\1/p' /proc/cmdline) is ${part##*/}"
	check "the root is partition 2 of $disk" test "$(cat "$part/partition")" = 2
	check "$disk is the image (MBR disk identifier ebf0c0de, have '$(mbr_id "$disk")')" \
		test "$(mbr_id "$disk")" = ebf0c0de
	check "the root is ext4, read-write" root_is_ext4_rw

	# -- at boot: mdev -s ran the rule -------------------------------------
	default=$(zcat /proc/config.gz | sed -n 's/^CONFIG_DEFAULT_IOSCHED="\(.*\)"$/\1/p')
	check "the kernel's Kconfig default is mq-deadline (have '$default')" test "$default" = mq-deadline
	check "the rule loaded ebfq.ko through modprobe" grep -q '^ebfq ' /proc/modules
	# shellcheck disable=SC2046
	for dev in $(printf '%s\n' "$disk" $(ebfq_devices) | sort -u); do
		have=$(boot_sched "$dev")
		check "$dev came up with [ebfq] through the rule (has [$have])" test "$have" = ebfq
	done

	# -- hotplug: the kernel runs mdev for each event, as on a busybox
	# system without a network stack (init leaves this off in check mode).
	echo /sbin/mdev >/proc/sys/kernel/hotplug
	dev=$(nullb_create rule_sq submit_queues=1 poll_queues=0 size=64)
	check "a single-queue null_blk made at run time gets [ebfq]" wait_sched "$dev" ebfq
	nullb_remove rule_sq
	# null_blk makes no more hardware queues than there are CPUs.
	if [ "$(grep -c '^processor' /proc/cpuinfo)" -lt 2 ]; then
		skip "a multi-queue null_blk keeps [none]" "one CPU: null_blk cannot make a multi-queue disk"
	else
		mq=$(nullb_create rule_mq submit_queues=2 poll_queues=0 size=64)
		nr=$(hw_queues "$mq")
		# The rule has had its chance at the multi-queue disk once a
		# single-queue one made after it has ebfq, and a second more.
		sq=$(nullb_create rule_sq2 submit_queues=1 poll_queues=0 size=64)
		wait_sched "$sq" ebfq || true
		msleep 1000
		check "a null_blk with $nr hardware queues keeps [none]" test "$(current_sched "$mq")" = none
		nullb_remove rule_mq
		nullb_remove rule_sq2
	fi

	# -- ebfq gone: the rule leaves the kernel's choice ------------------------
	for d in /sys/block/*; do
		d=${d##*/}
		[ "$(current_sched "$d" 2>/dev/null)" != ebfq ] || set_sched "$d" mq-deadline
	done
	check "rmmod ebfq once no disk uses it" rmmod ebfq
	mods=/lib/modules/$(uname -r)
	mv "$mods" "$mods.away"
	dev=$(nullb_create rule_absent submit_queues=1 poll_queues=0 size=64)
	check "without ebfq, the rule says it keeps [mq-deadline] for $dev" \
		wait_log "$dev: the kernel has no ebfq; keeping [mq-deadline]"
	check "without ebfq, $dev keeps [mq-deadline]" test "$(current_sched "$dev")" = mq-deadline
	check "without ebfq, mdev -s (the boot-time scan) exits 0" mdev -s
	check "without ebfq, $disk keeps [mq-deadline] after mdev -s" test "$(current_sched "$disk")" = mq-deadline
	nullb_remove rule_absent
	mv "$mods.away" "$mods"
	echo >/proc/sys/kernel/hotplug

	check "with the module back, the rule selects ebfq on $disk again" rerun_rule "$disk"
	check "a wrong invocation of the rule fails with its usage" bad_invocation
	trouble=$(kernel_trouble)
	if [ -z "$trouble" ]; then
		ok "no warning in the kernel log"
	else
		not_ok "no warning in the kernel log" "$trouble"
	fi
}
