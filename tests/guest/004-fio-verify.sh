# SPDX-License-Identifier: GPL-2.0
# Data integrity: under every scheduler on every device, fio writes random
# blocks with crc32c checksums, then reads them all back and verifies.

requires() {
	command -v fio >/dev/null || { echo "needs fio"; return 1; }
}

run() {
	for dev in $(ebfq_devices); do
		size=$(size_for "$dev")
		for s in $(schedulers "$dev"); do
			set_sched "$dev" "$s"
			dmesg_clear
			check "$dev: fio verify=crc32c $size under $s" \
				fio --name=verify --filename="/dev/$dev" --direct=1 \
				--ioengine=libaio --iodepth=8 --rw=randwrite --bs=4k \
				--size="$size" --verify=crc32c --verify_fatal=1 \
				--do_verify=1 --randrepeat=0 --norandommap=0
			trouble=$(kernel_trouble)
			[ -z "$trouble" ] || not_ok "$dev: no kernel trouble under $s" "$trouble"
		done
	done
}
