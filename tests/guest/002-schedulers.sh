# SPDX-License-Identifier: GPL-2.0
# Every scheduler the kernel was built with is offered by every device under
# test, and each one can be selected through sysfs.

requires() {
	[ -r /proc/config.gz ] || { echo "needs CONFIG_IKCONFIG_PROC"; return 1; }
}

run() {
	want=$(kernel_schedulers | sort | tr '\n' ' ')
	for dev in $(ebfq_devices); do
		[ -e "/sys/block/$dev/queue/scheduler" ] || { not_ok "$dev: schedulers" "no such device"; continue; }
		have=$(schedulers "$dev")
		have=$(printf '%s\n' $have | sort | tr '\n' ' ')
		if [ "$have" = "$want" ]; then
			ok "$dev offers every built scheduler: $have"
		else
			not_ok "$dev offers every built scheduler" "want: $want" "have: $have"
		fi
		orig=$(current_sched "$dev")
		for s in $want; do
			if set_sched "$dev" "$s"; then
				ok "$dev: select $s"
			else
				not_ok "$dev: select $s" "scheduler file reads: $(cat "/sys/block/$dev/queue/scheduler")"
			fi
		done
		set_sched "$dev" "$orig"
	done
}
