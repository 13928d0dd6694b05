# SPDX-License-Identifier: GPL-2.0
# Every ebfq tunable on every device: valid values (the bounds and one in
# between) read back as written; values out of range, negative, huge or
# not a number are refused and leave the value as it was.

requires() {
	kernel_schedulers | grep -qx ebfq || { echo "kernel without ebfq"; return 1; }
}

# name min mid max
TUNABLES="slice_idle 0 4 1000
slice_idle_us 0 2500 1000000
timeout_sync 1 80 1000
timeout_async 1 20 1000
max_budget 0 4096 1048576
back_seek_max 0 1024 1048576
back_seek_penalty 1 5 100
fifo_expire_sync 1 200 10000
fifo_expire_async 1 300 10000
strict_guarantees 0 1 1
low_latency 0 1 1
wr_coeff 1 10 100
wr_max_time 0 5000 60000
wr_min_idle_time 0 500 60000
wr_rt_max_time 1 200 60000
wr_max_softrt_rate 1 8192 2097152
wr_groups 0 1 1"

try_write() {
	# A subshell, so that a refused write cannot end the test.
	(echo "$2" >"$1") 2>/dev/null
}

run() {
	for dev in $(ebfq_devices); do
		orig=$(current_sched "$dev")
		set_sched "$dev" ebfq
		dir=/sys/block/$dev/queue/iosched
		echo "$TUNABLES" | while read -r name min mid max; do
			f=$dir/$name
			[ -e "$f" ] || { echo "missing $name"; continue; }
			def=$(cat "$f")
			for v in "$min" "$mid" "$max"; do
				try_write "$f" "$v" || echo "$name: $v refused"
				[ "$(cat "$f")" = "$v" ] || echo "$name: wrote $v, reads $(cat "$f")"
			done
			try_write "$f" "$def" || echo "$name: default $def refused"
			for v in -1 $((max + 1)) 99999999999999999999 abc "" 1x; do
				if try_write "$f" "$v"; then
					echo "$name: '$v' accepted"
				fi
				[ "$(cat "$f")" = "$def" ] || echo "$name: '$v' changed it to $(cat "$f")"
			done
		done >/tmp/tunables.log
		if try_write "$dir/max_budget" 16; then
			echo "max_budget: 16 (below 32) accepted" >>/tmp/tunables.log
		fi
		if [ -s /tmp/tunables.log ]; then
			not_ok "$dev: every ebfq tunable round-trips and refuses bad values" \
				"$(cat /tmp/tunables.log)"
		else
			ok "$dev: every ebfq tunable round-trips and refuses bad values ($(echo "$TUNABLES" | wc -l) tunables)"
		fi
		# slice_idle and slice_idle_us are one knob.
		echo 3 >"$dir/slice_idle"
		check "$dev: slice_idle 3 ms reads 3000 in slice_idle_us" test "$(cat "$dir/slice_idle_us")" = 3000
		echo 8 >"$dir/slice_idle"
		set_sched "$dev" "$orig"
	done
}
