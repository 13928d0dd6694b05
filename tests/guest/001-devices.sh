# SPDX-License-Identifier: GPL-2.0
# Every block device the host attached (and null_blk's nullb0) is present.

requires() {
	[ -n "$(ebfq_devices)" ] || { echo "the host named no devices (ebfq_devs=)"; return 1; }
}

run() {
	for dev in $(ebfq_devices); do
		if [ -b "/dev/$dev" ] && [ -e "/sys/block/$dev/queue/scheduler" ]; then
			ok "device $dev present ($(($(cat "/sys/block/$dev/size") / 2048)) MiB)"
		else
			not_ok "device $dev present" "no /dev/$dev or /sys/block/$dev" \
				"have: $(ls /sys/block | tr '\n' ' ')"
		fi
	done
}
