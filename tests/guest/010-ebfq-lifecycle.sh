# SPDX-License-Identifier: GPL-2.0
# ebfq's life cycle under I/O, on null_blk with simulated device time so
# that queues idle and their timers are pending when things change:
#  - 0 -> N -> 0 processes, again and again: each one's queue is created,
#    served, idled on and freed as the process exits;
#  - a device powered off (configfs power=0) and removed while fio reads
#    from it through ebfq;
# no hang (the hung-task detector panics), no warning, no lockdep splat.

requires() {
	command -v fio >/dev/null || { echo "needs fio"; return 1; }
	kernel_schedulers | grep -qx ebfq || { echo "kernel without ebfq"; return 1; }
	[ -d /sys/kernel/config/nullb ] || { echo "needs null_blk configfs"; return 1; }
}

run() {
	rounds=${EBFQ_CHURN_ROUNDS:-15}
	dev=$(nullb_create nullb_churn irqmode=2 completion_nsec=100000 submit_queues=1 size=256)
	set_sched "$dev" ebfq
	dmesg_clear
	r=0 failed=0
	while [ "$r" -lt "$rounds" ]; do
		r=$((r + 1))
		pids=
		for n in 1 2 3 4 5 6 7 8; do
			dd if="/dev/$dev" of=/dev/null bs=64k count=16 skip=$((n * 64 + r)) \
				iflag=direct 2>/dev/null &
			pids="$pids $!"
		done
		for p in $pids; do
			wait "$p" || failed=$((failed + 1))
		done
	done
	if [ "$failed" -eq 0 ]; then
		ok "$dev: $rounds rounds of 0 -> 8 -> 0 readers under ebfq"
	else
		not_ok "$dev: $rounds rounds of 0 -> 8 -> 0 readers under ebfq" "$failed dd runs failed"
	fi
	queues=$(grep -c '^[0-9]* sync' "/sys/kernel/debug/block/$dev/sched/queues" 2>/dev/null || echo 0)
	check "$dev: the exited readers' sync queues are gone ($queues left)" test "$queues" -le 1
	trouble=$(kernel_trouble)
	if [ -z "$trouble" ]; then
		ok "$dev: no warning while processes come and go"
	else
		not_ok "$dev: no warning while processes come and go" "$trouble"
	fi
	nullb_remove nullb_churn

	dev=$(nullb_create nullb_gone irqmode=2 completion_nsec=200000 submit_queues=1 size=256)
	set_sched "$dev" ebfq
	dmesg_clear
	fio --name=gone --filename="/dev/$dev" --direct=1 --ioengine=libaio --iodepth=4 \
		--numjobs=3 --rw=randread --bs=4k --time_based --runtime=20 --eta=never \
		--output=/tmp/fio-gone.log &
	pid=$!
	sleep 2
	echo 0 >/sys/kernel/config/nullb/nullb_gone/power
	# fio sees errors; what matters is that it ends.
	wait "$pid" || true
	rmdir /sys/kernel/config/nullb/nullb_gone
	check "$dev: powered off and removed under I/O through ebfq" test ! -e "/sys/block/$dev"
	trouble=$(kernel_trouble | grep -v 'I/O error' || true)
	if [ -z "$trouble" ]; then
		ok "$dev: no warning while the device went away under I/O"
	else
		not_ok "$dev: no warning while the device went away under I/O" "$trouble"
	fi
}
