# SPDX-License-Identifier: GPL-2.0
# A null_blk device's number of hardware queues changed between 1 and 2
# while its scheduler is switched and fio runs (blktests block/040): blk-mq
# takes the elevator out and puts it back around every change, and ebfq
# (one scheduler for the whole device, QUEUE_FLAG_SQ_SCHED) must follow.

requires() {
	torture_needs || return 1
	[ "$(grep -c '^processor' /proc/cpuinfo)" -ge 2 ] ||
		{ echo "one CPU: null_blk makes no more hardware queues than CPUs"; return 1; }
}

run() {
	scale=$(ebfq_scale)
	start=$(date +%s)
	dev=$(nullb_create nullb_hwq irqmode=2 completion_nsec=20000 submit_queues=1 \
		hw_queue_depth=16 size=64)
	sq=/sys/kernel/config/nullb/nullb_hwq/submit_queues
	dmesg_clear
	fio --minimal --eta=never --name=hwq --filename="/dev/$dev" --direct=1 \
		--ioengine=libaio --iodepth=8 --numjobs=2 --rw=randrw --bs=4k --size=4M \
		--loops="$scale" >/tmp/fio-hwq.log 2>&1 &
	pid=$!
	changes=0 refused=0
	while kill -0 "$pid" 2>/dev/null; do
		for q in 2 1; do
			(echo "$q" >"$sq") 2>/dev/null || refused=$((refused + 1))
			(echo ebfq >"/sys/block/$dev/queue/scheduler") 2>/dev/null || refused=$((refused + 1))
			changes=$((changes + 1))
			msleep "$(random_between 50 150)"
			(echo mq-deadline >"/sys/block/$dev/queue/scheduler") 2>/dev/null ||
				refused=$((refused + 1))
		done
		torture_progress "hw queues" "$changes" "$start"
	done
	rc=0
	wait "$pid" || rc=$?
	fio_parse /tmp/fio-hwq.log
	torture_report "hw queues" "$changes" "$((fio_kib / 4))" "$start"
	check "$dev: fio through $changes changes of hardware queues and schedulers" test "$rc" -eq 0
	check "$dev: every change accepted ($refused refused)" test "$refused" -eq 0
	no_trouble "$dev: no kernel warning while hardware queues changed"
	nullb_remove nullb_hwq
}
