# SPDX-License-Identifier: GPL-2.0
# Few tags, many submitters, and the request pool resized under I/O:
#  - one hardware tag and 16 processes submitting through ebfq (blktests
#    block/020): every request must get its turn;
#  - nr_requests swept from 4 to the largest value the queue takes and
#    back while fio runs (block/021): ebfq's depth_updated recomputes the
#    share of tags async I/O may hold; nothing may hang, and a value out
#    of range is refused and changes nothing.

requires() {
	torture_needs || return 1
}

run() {
	scale=$(ebfq_scale)

	# -- one tag ---------------------------------------------------------------
	start=$(date +%s)
	dev=$(nullb_create nullb_onetag irqmode=2 completion_nsec=20000 submit_queues=1 \
		hw_queue_depth=1 size=64)
	set_sched "$dev" ebfq
	dmesg_clear
	fio_terse /tmp/fio-onetag.log --name=one --filename="/dev/$dev" --direct=1 \
		--ioengine=libaio --iodepth=4 --numjobs=16 --rw=randrw --bs=4k --size=1M \
		--loops="$scale"
	torture_report "one tag" 16 "$((fio_kib / 4))" "$start"
	if [ "$fio_rc" -eq 0 ] && [ "$fio_err" = 0 ]; then
		ok "$dev: 16 processes through one hardware tag ($((fio_kib / 4)) I/Os)"
	else
		not_ok "$dev: 16 processes through one hardware tag" "fio exit $fio_rc, error $fio_err" \
			"$(tail -n 5 /tmp/fio-onetag.log)"
	fi
	no_trouble "$dev: no kernel warning with one tag"
	nullb_remove nullb_onetag

	# -- nr_requests -------------------------------------------------------------
	start=$(date +%s)
	dev=$(nullb_create nullb_nrreq irqmode=2 completion_nsec=20000 submit_queues=1 \
		hw_queue_depth=64 size=64)
	set_sched "$dev" ebfq
	nr=/sys/block/$dev/queue/nr_requests
	dmesg_clear
	fio --minimal --eta=never --name=nr --filename="/dev/$dev" --direct=1 \
		--ioengine=libaio --iodepth=32 --numjobs=4 --rw=randrw --bs=4k --size=2M \
		--loops="$scale" >/tmp/fio-nrreq.log 2>&1 &
	pid=$!
	sweeps=0 writes=0 bad=
	while kill -0 "$pid" 2>/dev/null; do
		n=4 max=
		while [ "$n" -le 65536 ]; do
			if (echo "$n" >"$nr") 2>/dev/null; then
				writes=$((writes + 1))
				[ "$(cat "$nr")" = "$n" ] || bad="$bad $n->$(cat "$nr")"
				max=$n
			else
				# Too large: refused, and the last value stays.
				[ "$(cat "$nr")" = "$max" ] || bad="$bad refused-$n-changed-it"
				break
			fi
			n=$((n * 2))
		done
		while [ "$n" -gt 4 ]; do
			n=$((n / 2))
			(echo "$n" >"$nr") 2>/dev/null && writes=$((writes + 1))
		done
		sweeps=$((sweeps + 1))
		torture_progress nr_requests "$writes" "$start"
	done
	rc=0
	wait "$pid" || rc=$?
	fio_parse /tmp/fio-nrreq.log
	torture_report "nr_requests" "$writes" "$((fio_kib / 4))" "$start"
	check "$dev: fio through $sweeps sweeps of nr_requests 4..${max:-?} ($writes writes)" \
		test "$rc" -eq 0
	check "$dev: each value read back, each too large refused (${bad:-none wrong})" test -z "$bad"
	no_trouble "$dev: no kernel warning while nr_requests changed"
	nullb_remove nullb_nrreq
}
