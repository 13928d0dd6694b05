# SPDX-License-Identifier: GPL-2.0
# Switch the scheduler every 0.2 s while fio runs random I/O on the device
# (blktests block/005): no I/O error, no kernel warning, fio completes.

requires() {
	command -v fio >/dev/null || { echo "needs fio"; return 1; }
}

run() {
	secs=${EBFQ_SWITCH_SECS:-8}
	for dev in $(ebfq_devices); do
		scheds=$(schedulers "$dev")
		scheds=$(echo $scheds)
		orig=$(current_sched "$dev")
		dmesg_clear
		fio --name=switch --filename="/dev/$dev" --direct=1 --eta=never --ioengine=libaio \
			--iodepth=4 --numjobs=2 --rw=randrw --bs=4k --size="$(size_for "$dev")" \
			--time_based --runtime="$secs" --output=/tmp/fio-switch.log &
		pid=$!
		switches=0 fails=0
		while kill -0 "$pid" 2>/dev/null; do
			for s in $scheds; do
				kill -0 "$pid" 2>/dev/null || break
				echo "$s" >"/sys/block/$dev/queue/scheduler" || fails=$((fails + 1))
				switches=$((switches + 1))
				msleep 200
			done
		done
		if wait "$pid"; then
			ok "$dev: fio random I/O through $switches switches ($scheds)"
		else
			not_ok "$dev: fio random I/O through $switches switches" "fio failed:" \
				"$(tail -n 5 /tmp/fio-switch.log)"
		fi
		if [ "$fails" -eq 0 ]; then
			ok "$dev: every switch accepted"
		else
			not_ok "$dev: every switch accepted" "$fails of $switches writes failed"
		fi
		trouble=$(kernel_trouble)
		if [ -z "$trouble" ]; then
			ok "$dev: no kernel warning or I/O error while switching"
		else
			not_ok "$dev: no kernel warning or I/O error while switching" "$trouble"
		fi
		set_sched "$dev" "$orig"
	done
}
