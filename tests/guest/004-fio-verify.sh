# SPDX-License-Identifier: GPL-2.0
# Data integrity: under every scheduler on every device, fio writes random
# blocks with crc32c checksums, then reads them all back and verifies.
# null_blk keeps no data unless memory-backed, so for it the test makes a
# memory-backed null_blk through configfs and verifies that one instead.

requires() {
	command -v fio >/dev/null || { echo "needs fio"; return 1; }
}

verify_dev() {
	vdev=$1 label=$2
	size=$(size_for "$vdev")
	scheds=$(schedulers "$vdev")
	for s in $scheds; do
		set_sched "$vdev" "$s"
		dmesg_clear
		check "$label: fio verify=crc32c $size under $s" \
			fio --name=verify --filename="/dev/$vdev" --direct=1 --eta=never \
			--ioengine=libaio --iodepth=8 --rw=randwrite --bs=4k \
			--size="$size" --verify=crc32c --verify_fatal=1 \
			--do_verify=1 --randrepeat=0
		trouble=$(kernel_trouble)
		[ -z "$trouble" ] || not_ok "$label: no kernel trouble under $s" "$trouble"
	done
}

run() {
	for dev in $(ebfq_devices); do
		case $dev in
		nullb*)
			if [ ! -d /sys/kernel/config/nullb ]; then
				skip "$dev: fio verify" "null_blk has no configfs (CONFIG_CONFIGFS_FS) for a memory-backed device"
				continue
			fi
			mem=$(nullb_create nullb_verify memory_backed=1 size=64)
			verify_dev "$mem" "$mem (memory-backed null_blk)"
			nullb_remove nullb_verify
			;;
		*) verify_dev "$dev" "$dev" ;;
		esac
	done
}
