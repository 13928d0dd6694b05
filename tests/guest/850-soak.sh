# SPDX-License-Identifier: GPL-2.0
# The soak (make soak HOURS=n): ebfq_soak_secs of mixed I/O, every byte
# written verified (crc32c): a verified writer and an io_uring reader on a
# memory-backed null_blk, buffered writers and readers on the ext4 scratch
# file system of the virtio disk, short-lived readers coming and going, and every 5-10 s a
# switch between ebfq and another scheduler on the null_blk device. It
# reports the I/Os done and the errors met; any error or verify mismatch,
# any kernel warning fails it.

requires() {
	torture_needs || return 1
	[ -n "$(ebfq_cmdline ebfq_soak_secs)" ] || { echo "no ebfq_soak_secs= on the command line"; return 1; }
	[ -b /dev/vda ] || { echo "needs the virtio disk (vda)"; return 1; }
}

run() {
	secs=$(ebfq_cmdline ebfq_soak_secs)
	start=$(date +%s)
	dev=$(nullb_create nullb_soak memory_backed=1 irqmode=2 completion_nsec=50000 \
		submit_queues=1 hw_queue_depth=32 size=128)
	set_sched vda ebfq
	# The host made vda from its ext4 scratch template.
	mkdir -p /mnt/soak
	mount -t ext4 /dev/vda /mnt/soak
	dmesg_clear
	fio --minimal --eta=never --time_based --runtime="$secs" \
		--name=nullw --filename="/dev/$dev" --direct=1 --ioengine=libaio --iodepth=8 \
		--rw=randwrite --bs=4k --size=32M --verify=crc32c --verify_backlog=512 --verify_fatal=1 \
		--name=nullr --filename="/dev/$dev" --direct=1 --ioengine=io_uring --iodepth=8 \
		--rw=randread --bs=16k --offset=64M --size=64M \
		--name=extw --directory=/mnt/soak --ioengine=psync --rw=write --bs=64k --size=8M \
		--numjobs=2 --verify=crc32c --verify_backlog=64 --verify_fatal=1 --fsync_on_close=1 \
		--name=extr --directory=/mnt/soak --ioengine=psync --rw=randread --bs=4k --size=8M \
		>/tmp/fio-soak.log 2>&1 &
	pid=$!
	switches=0 readers=0 other=mq-deadline
	# A line every 5 minutes: the host ends a boot silent for 900 s.
	last=$(date +%s)
	while kill -0 "$pid" 2>/dev/null; do
		if [ $(($(date +%s) - last)) -ge 300 ]; then
			last=$(date +%s)
			note "soak: still running, $switches switches, $readers short readers so far"
		fi
		(echo "$other" >"/sys/block/$dev/queue/scheduler") 2>/dev/null && switches=$((switches + 1))
		dd if="/dev/$dev" of=/dev/null bs=4k count=4 iflag=direct 2>/dev/null && readers=$((readers + 1))
		sleep "$(random_between 5 10)"
		(echo ebfq >"/sys/block/$dev/queue/scheduler") 2>/dev/null && switches=$((switches + 1))
		for _ in 1 2 3 4; do
			dd if=/dev/vda of=/dev/null bs=4k count=2 skip="$(random_between 0 10000)" \
				iflag=direct 2>/dev/null && readers=$((readers + 1))
		done
		sleep "$(random_between 5 10)"
	done
	rc=0
	wait "$pid" || rc=$?
	kib=$(grep ';' /tmp/fio-soak.log | awk -F';' '{ s += $6 + $47 } END { print s + 0 }')
	errors=$(grep ';' /tmp/fio-soak.log | awk -F';' '$5 != 0 { n++ } END { print n + 0 }')
	umount /mnt/soak
	torture_report "soak" "$switches" "$((kib / 4 + readers))" "$start"
	note "soak: $((kib / 1024)) MiB verified or read, $switches switches, $readers short readers, $errors jobs with errors"
	if [ "$rc" -eq 0 ] && [ "$errors" -eq 0 ]; then
		ok "soak: ${secs}s of verified mixed I/O, $((kib / 1024)) MiB, no error"
	else
		not_ok "soak: ${secs}s of verified mixed I/O" "fio exit $rc, $errors jobs with errors:" \
			"$(grep -v ';' /tmp/fio-soak.log | tail -n 10)"
	fi
	no_trouble "soak: no kernel warning"
	nullb_remove nullb_soak
}
