# SPDX-License-Identifier: GPL-2.0
# Writing a scheduler that does not exist fails and leaves the current one.

run() {
	for dev in $(ebfq_devices); do
		orig=$(current_sched "$dev")
		scheds=$(schedulers "$dev")
		for cur in $scheds; do
			set_sched "$dev" "$cur"
			for bad in no-such-sched "" mq-deadlinex bfq-- 'kyber none'; do
				if echo "$bad" >"/sys/block/$dev/queue/scheduler" 2>/dev/null; then
					# An empty write is a no-op the kernel accepts; it must
					# still change nothing.
					[ -z "$bad" ] || { not_ok "$dev: '$bad' refused under $cur" "the write succeeded"; continue; }
				fi
				now=$(current_sched "$dev")
				if [ "$now" = "$cur" ]; then
					ok "$dev: '$bad' refused under $cur, still $cur"
				else
					not_ok "$dev: '$bad' refused under $cur" "scheduler changed to $now"
				fi
			done
		done
		set_sched "$dev" "$orig"
	done
}
