# SPDX-License-Identifier: GPL-2.0
# ebfq under injected faults (blktests block/014 and 015):
#  - requeues: the debug boot gives null_blk requeue= on the command line,
#    so a share of every null_blk device's requests is sent back, through
#    blk-mq's busy path and through the driver's requeue; verified writes
#    must all land;
#  - timeouts: fail_io_timeout makes the block layer forget a share of a
#    device's completions, which then end by timeout (io_timeout 200 ms)
#    with an error; the scheduler must account every one of them, and the
#    device work normally once the faults stop, with nothing left counted
#    in ebfq.
# A count that drifts would stall the device: the hung-task detector and
# the test's own timeouts end that as a failure.

requires() {
	torture_needs || return 1
}

# state_is_idle DEV: ebfq holds no request of DEV any more.
state_is_idle() {
	st=/sys/kernel/debug/block/$1/sched/state
	grep -qx 'queued 0' "$st" && grep -qx 'in_driver 0' "$st"
}

run() {
	scale=$(ebfq_scale)

	# -- requeues ------------------------------------------------------------
	if ! grep -q 'null_blk.requeue=' /proc/cmdline; then
		skip "requeued requests all land, verified" "no null_blk.requeue= on the command line"
	else
		start=$(date +%s)
		dev=$(nullb_create nullb_requeue memory_backed=1 irqmode=2 completion_nsec=20000 \
			submit_queues=1 hw_queue_depth=8 size=64)
		set_sched "$dev" ebfq
		dmesg_clear
		fio_terse /tmp/fio-requeue.log --name=rq --filename="/dev/$dev" --direct=1 \
			--ioengine=libaio --iodepth=16 --numjobs=2 --offset_increment=24M \
			--rw=randwrite --bs=4k --size=4M --loops="$scale" \
			--verify=crc32c --verify_backlog=128 --verify_fatal=1
		torture_report "requeue" "$scale" "$((fio_kib / 4))" "$start"
		if [ "$fio_rc" -eq 0 ] && [ "$fio_err" = 0 ]; then
			ok "$dev: requeued requests all land, verified ($((fio_kib / 1024)) MiB)"
		else
			not_ok "$dev: requeued requests all land, verified" "fio exit $fio_rc, error $fio_err" \
				"$(tail -n 5 /tmp/fio-requeue.log)"
		fi
		check "$dev: ebfq holds nothing once the I/O is done" state_is_idle "$dev"
		no_trouble "$dev: no kernel warning under requeues"
		nullb_remove nullb_requeue
	fi

	# -- timeouts --------------------------------------------------------------
	fail=/sys/kernel/debug/fail_io_timeout
	if [ ! -d "$fail" ]; then
		skip "faked timeouts: every request accounted" "kernel without CONFIG_FAIL_IO_TIMEOUT"
		return 0
	fi
	start=$(date +%s)
	dev=$(nullb_create nullb_timeout irqmode=2 completion_nsec=20000 submit_queues=1 \
		hw_queue_depth=8 size=64)
	set_sched "$dev" ebfq
	echo 200 >"/sys/block/$dev/queue/io_timeout"
	echo 0 >"$fail/verbose"
	echo 1 >"$fail/interval"
	echo -1 >"$fail/times"
	echo 3 >"$fail/probability"
	echo 1 >"/sys/block/$dev/io-timeout-fail"
	dmesg_clear
	fio_terse /tmp/fio-timeout.log --name=to --filename="/dev/$dev" --direct=1 \
		--ioengine=libaio --iodepth=4 --numjobs=3 --rw=randrw --bs=4k --size=32M \
		--time_based --runtime=$((10 * scale)) --continue_on_error=io
	echo 0 >"/sys/block/$dev/io-timeout-fail"
	echo 0 >"$fail/probability"
	timeouts=$(dmesg | grep -c 'timed out' || true)
	torture_report "timeout" "$timeouts" "$((fio_kib / 4))" "$start"
	check "$dev: fio ran to its end through $timeouts faked timeouts" test "$fio_kib" -gt 0
	check "$dev: ebfq holds nothing once the I/O is done" state_is_idle "$dev"
	check "$dev: the device reads and writes again" \
		fio --name=after --filename="/dev/$dev" --direct=1 --rw=randrw --bs=4k --size=4M \
		--ioengine=psync --eta=never --output=/tmp/fio-after.log
	no_trouble "$dev: no kernel warning under faked timeouts" 'I/O error|timed out'
	nullb_remove nullb_timeout
}
