# SPDX-License-Identifier: GPL-2.0
# The default scheduler of single-queue devices: every single-queue device
# under test came up with the one the kernel's config chose
# (CONFIG_DEFAULT_IOSCHED), or the one elevator.default_iosched= named on
# the command line, which overrides it; devices with several hardware
# queues still come up with none. At run time the parameter refuses
# an unknown name and names the scheduler of devices that appear later.

param=/sys/module/elevator/parameters/default_iosched

requires() {
	[ -r "$param" ] || { echo "kernel without the default-scheduler patch ($param)"; return 1; }
	[ -r /tmp/ebfq-boot-schedulers ] || { echo "run-tests noted no boot-time schedulers"; return 1; }
}

run() {
	want=$(ebfq_cmdline elevator.default_iosched)
	from="elevator.default_iosched="
	if [ -z "$want" ]; then
		want=$(zcat /proc/config.gz | sed -n 's/^CONFIG_DEFAULT_IOSCHED="\(.*\)"$/\1/p')
		from="CONFIG_DEFAULT_IOSCHED"
	fi
	check "$param reads '$want' ($from)" test "$(cat "$param")" = "$want"

	for dev in $(ebfq_devices); do
		nr=$(hw_queues "$dev")
		if [ "$nr" != 1 ]; then
			check "$dev ($nr hardware queues) came up with [none], as multi-queue devices do" \
				test "$(boot_sched "$dev")" = none
			continue
		fi
		have=$(boot_sched "$dev")
		if [ "$have" = "$want" ]; then
			ok "$dev (one hardware queue) came up with [$want] ($from)"
		else
			not_ok "$dev (one hardware queue) came up with [$want] ($from)" "it has [$have]"
		fi
	done

	if echo no-such-scheduler >"$param" 2>/dev/null; then
		not_ok "an unknown name is refused" "the write succeeded"
	else
		ok "an unknown name is refused"
	fi
	check "a refused name changes nothing" test "$(cat "$param")" = "$want"

	[ -d /sys/kernel/config/nullb ] || {
		skip "a new device gets the run-time default" "needs null_blk configfs"
		return 0
	}
	other=mq-deadline
	[ "$want" != mq-deadline ] || other=none
	echo "$other" >"$param"
	dev=$(nullb_create nullb_default submit_queues=1 poll_queues=0)
	check "a device made after writing '$other' comes up with [$other]" \
		test "$(current_sched "$dev")" = "$other"
	nullb_remove nullb_default
	echo "$want" >"$param"
	check "$param restored to '$want'" test "$(cat "$param")" = "$want"
}
