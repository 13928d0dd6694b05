# SPDX-License-Identifier: GPL-2.0
# Processes that go away while ebfq serves them (the use-after-free bugs
# of BFQ's idle-slice timer, CVE-2020-12657, and of its per-process data
# at exit):
#  - thousands of short-lived readers, each exiting the moment its last
#    read completes, while its queue is in service and the device idles
#    for it, with a background reader so that idling has someone to wait
#    against; ebfq's own counter must show turns ended by the exit;
#  - io_uring with every request punted to io-wq workers, which share
#    their submitter's io_context (CLONE_IO), started and ended again and
#    again;
#  - the ioprio of running processes changed at random, class and level.

requires() {
	torture_needs || return 1
}

# readers N: N processes one after the other, each reading 8 KiB and
# exiting; a line in /tmp/exit-done for every 100 of them.
readers() {
	i=0
	while [ "$i" -lt "$1" ]; do
		dd if="/dev/$dev" of=/dev/null bs=4k count=2 skip=$(((i * 37) % 16000)) \
			iflag=direct 2>/dev/null || echo fail >>/tmp/exit-fails
		i=$((i + 1))
		[ $((i % 100)) -ne 0 ] || echo >>/tmp/exit-done
	done
}

run() {
	scale=$(ebfq_scale)

	# -- exits while in service and idling --------------------------------------
	start=$(date +%s)
	dev=$(nullb_create nullb_exit irqmode=2 completion_nsec=200000 submit_queues=1 size=64)
	set_sched "$dev" ebfq
	# A process takes milliseconds to exit after its last read (tens on
	# the debug kernel): idle long enough for the exit to come first.
	echo 250 >"/sys/block/$dev/queue/iosched/slice_idle"
	rm -f /tmp/exit-fails
	: >/tmp/exit-done
	dmesg_clear
	# Requests always queued: the device idles for a reader that runs dry
	# only while another queue waits.
	fio --minimal --eta=never --name=bg --filename="/dev/$dev" --direct=1 --ioengine=libaio \
		--iodepth=4 --rw=read --bs=64k --offset=32M --size=32M --time_based --runtime=3600 \
		>/tmp/fio-exit-bg.log 2>&1 &
	bg=$!
	per=$((250 * scale))
	pids=
	for _ in 1 2 3 4; do
		readers "$per" &
		pids="$pids $!"
	done
	# make torture's ten thousand exits take longer than the host lets a
	# boot stay silent: say how far they got.
	# shellcheck disable=SC2086
	while any_alive $pids; do
		sleep 5
		gone=$(wc -l </tmp/exit-done)
		torture_progress exit "$((100 * gone))" "$start"
	done
	for p in $pids; do wait "$p"; done
	kill "$bg" 2>/dev/null || true
	wait "$bg" || true
	fails=$(wc -l </tmp/exit-fails 2>/dev/null || echo 0)
	exited=$(sched_stat "$dev" expired_exited)
	torture_report "exit" "$((4 * per))" "$((8 * per))" "$start"
	check "$dev: $((4 * per)) readers came and went ($fails failed)" test "$fails" -eq 0
	check "$dev: $exited turns ended because their process exited" test "${exited:-0}" -gt 0
	no_trouble "$dev: no kernel warning while processes exited in service"
	nullb_remove nullb_exit

	# -- io_uring, io-wq workers -------------------------------------------------
	start=$(date +%s)
	dev=$(nullb_create nullb_uring memory_backed=1 irqmode=2 completion_nsec=50000 \
		submit_queues=1 size=64)
	set_sched "$dev" ebfq
	dmesg_clear
	runs=$((10 * scale)) bad=0 kib=0 r=0
	while [ "$r" -lt "$runs" ]; do
		r=$((r + 1))
		fio_terse /tmp/fio-uring.log --name=uring --filename="/dev/$dev" --direct=1 \
			--ioengine=io_uring --force_async=1 --iodepth=16 --numjobs=2 --thread \
			--offset_increment=16M --rw=randwrite --bs=4k --size=2M \
			--verify=crc32c --verify_fatal=1
		[ "$fio_rc" -eq 0 ] && [ "$fio_err" = 0 ] || bad=$((bad + 1))
		kib=$((kib + fio_kib))
		torture_progress io_uring "$r" "$start"
	done
	torture_report "io_uring" "$runs" "$((kib / 4))" "$start"
	check "$dev: $runs io_uring runs through io-wq workers, verified ($bad failed)" test "$bad" -eq 0
	no_trouble "$dev: no kernel warning with io-wq workers"
	nullb_remove nullb_uring

	# -- ioprio changes ------------------------------------------------------------
	start=$(date +%s)
	dev=$(nullb_create nullb_prio irqmode=2 completion_nsec=50000 submit_queues=1 size=64)
	set_sched "$dev" ebfq
	dmesg_clear
	fio --minimal --eta=never --name=prio --filename="/dev/$dev" --direct=1 --ioengine=psync \
		--rw=randrw --bs=4k --numjobs=4 --size=2M --loops="$scale" \
		>/tmp/fio-prio.log 2>&1 &
	pid=$!
	msleep 500
	jobs=$(descendants "$pid")
	changes=0
	while kill -0 "$pid" 2>/dev/null; do
		for p in $jobs "$pid"; do
			class=$(random_between 1 3)
			ionice -c "$class" -n "$(random_between 0 7)" -p "$p" 2>/dev/null &&
				changes=$((changes + 1))
		done
		torture_progress ioprio "$changes" "$start"
		msleep 50
	done
	rc=0
	wait "$pid" || rc=$?
	fio_parse /tmp/fio-prio.log
	torture_report "ioprio" "$changes" "$((fio_kib / 4))" "$start"
	check "$dev: fio through $changes ioprio changes of its running jobs" test "$rc" -eq 0
	no_trouble "$dev: no kernel warning while ioprio changed"
	nullb_remove nullb_prio
}
