# SPDX-License-Identifier: GPL-2.0
# A distribution's boot (the virt-uboot boot of tests/run-host.sh): U-Boot
# ran boot.scr from the image's first partition and booted the FIT; the
# root is the image's ext4 second partition, found by PARTUUID; the kernel
# is the module kernel, whose Kconfig default is mq-deadline, with ebfq.ko
# installed under /lib/modules. The busybox mdev rule (/etc/mdev.conf ->
# select-iosched) must have given ebfq to the root disk and the SD card at
# boot, loading the module itself; it must give ebfq to a single-queue
# disk that appears later, leave multi-queue disks alone, and, once ebfq
# is gone, leave the kernel's choice without failing.

root_dev() {
	# Field 3 of mountinfo is the device of the mount.
	awk '$5 == "/" { print $3; exit }' /proc/self/mountinfo
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
	if /usr/lib/ebfq/select-iosched ../vda 2>/tmp/rule.err; then
		echo "exit status 0 for '../vda'"
		return 1
	fi
	grep usage /tmp/rule.err
}

run() {
	# -- what U-Boot booted --------------------------------------------
	check "U-Boot's boot script set root=PARTUUID=ebf0c0de-02" \
		grep -q 'root=PARTUUID=ebf0c0de-02' /proc/cmdline
	have=$(root_dev)
	want=$(cat /sys/class/block/vda2/dev 2>/dev/null || echo "no vda2")
	check "the root is vda2 (device $want), mounted as $have" test "$have" = "$want"
	check "the root is ext4, read-write" root_is_ext4_rw

	# -- at boot: mdev -s ran the rule -------------------------------------
	default=$(zcat /proc/config.gz | sed -n 's/^CONFIG_DEFAULT_IOSCHED="\(.*\)"$/\1/p')
	check "the kernel's Kconfig default is mq-deadline (have '$default')" test "$default" = mq-deadline
	check "the rule loaded ebfq.ko through modprobe" grep -q '^ebfq ' /proc/modules
	for dev in vda $(ebfq_devices); do
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
	check "without ebfq, vda keeps [mq-deadline] after mdev -s" test "$(current_sched vda)" = mq-deadline
	nullb_remove rule_absent
	mv "$mods.away" "$mods"
	echo >/proc/sys/kernel/hotplug

	check "with the module back, the rule selects ebfq on vda again" rerun_rule vda
	check "a wrong invocation of the rule fails with its usage" bad_invocation
	trouble=$(kernel_trouble)
	if [ -z "$trouble" ]; then
		ok "no warning in the kernel log"
	else
		not_ok "no warning in the kernel log" "$trouble"
	fi
}
