# SPDX-License-Identifier: GPL-2.0
# Data under ebfq: on every device, many processes at once, in every ioprio
# class, mixing synchronous (O_DIRECT) and asynchronous (buffered,
# written back) writes with crc32c checksums and readers that only load
# the device; every writer then reads its region back and verifies it. No
# mismatch, no I/O error, no kernel warning. null_blk keeps no data, so a
# memory-backed configfs null_blk stands in for it.

requires() {
	command -v fio >/dev/null || { echo "needs fio"; return 1; }
	kernel_schedulers | grep -qx ebfq || { echo "kernel without ebfq"; return 1; }
}

# mixed_job SIZE_KIB: the fio job file, every writer on its own region.
mixed_job() {
	region=$(($1 / 8))
	cat <<JOB
[global]
filename=/dev/$dev
size=${region}k
bs=4k
verify=crc32c
verify_fatal=1
do_verify=1
randrepeat=0

[rt-direct]
prioclass=1
prio=2
direct=1
ioengine=libaio
iodepth=4
rw=randwrite
offset=0
numjobs=2
offset_increment=${region}k

[be-buffered]
prioclass=2
prio=0
direct=0
ioengine=psync
rw=write
bs=16k
end_fsync=1
offset=$((region * 2))k
numjobs=2
offset_increment=${region}k

[be-sync-low]
prioclass=2
prio=7
direct=1
ioengine=psync
rw=randwrite
offset=$((region * 4))k

[idle-direct]
prioclass=3
direct=1
ioengine=psync
rw=randwrite
offset=$((region * 5))k

[be-readers]
prioclass=2
prio=4
direct=1
ioengine=psync
rw=randread
verify=0
do_verify=0
size=$((region * 6))k
numjobs=2
time_based
runtime=3
JOB
}

verify_mixed() {
	dev=$1 label=$2 kib=$3
	orig=$(current_sched "$dev")
	set_sched "$dev" ebfq
	dmesg_clear
	mixed_job "$kib" >/tmp/mixed.fio
	check "$label: 8 processes, RT/BE/IDLE, direct+buffered, fio verify=crc32c under ebfq" \
		fio --eta=never /tmp/mixed.fio
	trouble=$(kernel_trouble)
	if [ -z "$trouble" ]; then
		ok "$label: no I/O error or kernel warning"
	else
		not_ok "$label: no I/O error or kernel warning" "$trouble"
	fi
	set_sched "$dev" "$orig"
}

run() {
	for dev in $(ebfq_devices); do
		case $dev in
		nullb*)
			[ -d /sys/kernel/config/nullb ] || {
				skip "$dev: mixed verify" "needs null_blk configfs for a memory-backed device"
				continue
			}
			mem=$(nullb_create nullb_mixed memory_backed=1 size=64)
			verify_mixed "$mem" "$mem (memory-backed null_blk)" 32768
			nullb_remove nullb_mixed
			;;
		mmcblk*) verify_mixed "$dev" "$dev" 2048 ;;
		*) verify_mixed "$dev" "$dev" 16384 ;;
		esac
	done
}
