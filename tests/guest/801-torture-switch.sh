# SPDX-License-Identifier: GPL-2.0
# Scheduler switches at random every 0.1-0.2 s under mixed I/O (blktests
# block/005, harder): a writer that verifies what it wrote (crc32c) and an
# io_uring reader on a memory-backed null_blk, while every scheduler of
# the kernel, ebfq among them, is put in and taken out. The elevator must
# never be freed while a dispatch or a completion still uses it.

requires() {
	torture_needs || return 1
}

run() {
	scale=$(ebfq_scale)
	start=$(date +%s)
	dev=$(nullb_create nullb_switch memory_backed=1 irqmode=2 completion_nsec=50000 \
		submit_queues=1 hw_queue_depth=32 size=64)
	# One line: the names, blank-separated.
	scheds=$(echo $(schedulers "$dev"))
	set -- $scheds
	nsched=$#
	dmesg_clear
	fio --minimal --eta=never --name=w --filename="/dev/$dev" --direct=1 \
		--ioengine=libaio --iodepth=8 --rw=randwrite --bs=4k --size=4M \
		--loops=$((2 * scale)) --verify=crc32c --verify_backlog=256 --verify_fatal=1 \
		>/tmp/fio-sw-w.log 2>&1 &
	wpid=$!
	fio --minimal --eta=never --name=r --filename="/dev/$dev" --direct=1 \
		--ioengine=io_uring --iodepth=8 --rw=randread --bs=16k --offset=32M --size=8M \
		--loops=$((4 * scale)) >/tmp/fio-sw-r.log 2>&1 &
	rpid=$!
	switches=0 refused=0
	while any_alive "$wpid" "$rpid"; do
		s=$(echo "$scheds" | cut -d' ' -f"$(random_between 1 "$nsched")")
		(echo "$s" >"/sys/block/$dev/queue/scheduler") 2>/dev/null || refused=$((refused + 1))
		switches=$((switches + 1))
		torture_progress switch "$switches" "$start"
		msleep "$(random_between 100 200)"
	done
	wrc=0
	wait "$wpid" || wrc=$?
	fio_parse /tmp/fio-sw-w.log
	werr=$fio_err
	rrc=0
	wait "$rpid" || rrc=$?
	fio_terse /tmp/fio-sw-w2.log --name=check --filename="/dev/$dev" --direct=1 \
		--ioengine=psync --rw=randwrite --bs=4k --size=1M --verify=crc32c
	kib=$(grep ';' /tmp/fio-sw-w.log /tmp/fio-sw-r.log | awk -F';' '{ s += $6 + $47 } END { print s + 0 }')
	torture_report "switch" "$switches" "$((kib / 4))" "$start"

	if [ "$wrc" -eq 0 ] && [ "$werr" = 0 ]; then
		ok "$dev: verified writes through $switches random switches ($scheds)"
	else
		not_ok "$dev: verified writes through $switches random switches" \
			"fio exit $wrc, error $werr:" "$(tail -n 5 /tmp/fio-sw-w.log)"
	fi
	check "$dev: the io_uring reader ran through the switches (exit $rrc)" test "$rrc" -eq 0
	check "$dev: every switch accepted ($refused refused)" test "$refused" -eq 0
	check "$dev: the device still reads and writes (verified)" test "$fio_rc" -eq 0
	no_trouble "$dev: no kernel warning while switching"
	nullb_remove nullb_switch
}
