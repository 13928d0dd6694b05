# SPDX-License-Identifier: GPL-2.0
# Helpers for the in-guest tests (sourced, POSIX sh).

# ebfq_cmdline KEY: the value of KEY= on the kernel command line, or empty.
ebfq_cmdline() {
	for arg in $(cat /proc/cmdline); do
		case $arg in
		"$1"=*) echo "${arg#"$1"=}" ;;
		esac
	done
}

EBFQ_BOARD=${EBFQ_BOARD:-$(ebfq_cmdline ebfq_board)}

# ebfq_devices: the devices under test, as the host attached them
# (ebfq_devs=vda,mmcblk0,nullb0 on the command line).
ebfq_devices() {
	ebfq_cmdline ebfq_devs | tr ',' ' '
}

# schedulers DEV: every scheduler DEV offers, one a line; fails, saying
# why, when DEV has no scheduler file or offers nothing. Call it in an
# assignment (list=$(schedulers DEV)) so that 'set -e' sees a failure: in a
# for loop's word list it would silently give no iterations.
schedulers() {
	f=/sys/block/$1/queue/scheduler
	[ -r "$f" ] || { echo "schedulers: $1 has no $f" >&2; return 1; }
	list=$(tr -d '[]' <"$f" | tr ' ' '\n' | grep -v '^$' || true)
	[ -n "$list" ] || { echo "schedulers: $f lists nothing" >&2; return 1; }
	printf '%s\n' "$list"
}

# current_sched DEV: the one in brackets.
current_sched() {
	sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$1/queue/scheduler"
}

# set_sched DEV NAME: select NAME, and fail unless it took.
set_sched() {
	echo "$2" >"/sys/block/$1/queue/scheduler" || return 1
	[ "$(current_sched "$1")" = "$2" ]
}

# kernel_schedulers: what this kernel was built with, from its own config.
kernel_schedulers() {
	zcat /proc/config.gz | while IFS= read -r l; do
		case $l in
		CONFIG_MQ_IOSCHED_DEADLINE=[ym]) echo mq-deadline ;;
		CONFIG_MQ_IOSCHED_KYBER=[ym]) echo kyber ;;
		CONFIG_IOSCHED_BFQ=[ym]) echo bfq ;;
		CONFIG_IOSCHED_EBFQ=[ym]) echo ebfq ;;
		esac
	done
	echo none
}

# kernel_trouble: kernel messages since the last dmesg_clear that mean a
# test must fail (the console is checked by the host as well).
dmesg_clear() {
	dmesg -c >/dev/null
}

kernel_trouble() {
	dmesg | grep -E 'WARNING:|BUG:|Oops|Call trace|I/O error|hung_task|blocked for more than|lockdep|circular locking' || true
}

# size_for DEV: how much a data test writes, so the slowest device (the
# emulated PL181 moves a few hundred KB/s under TCG) stays within minutes.
size_for() {
	case $1 in
	mmcblk*) echo "${EBFQ_SD_SIZE:-2M}" ;;
	*) echo "${EBFQ_DATA_SIZE:-16M}" ;;
	esac
}

# msleep MS: busybox's usleep takes microseconds.
msleep() {
	usleep $(($1 * 1000))
}

# nullb_create NAME ATTR=VALUE...: a null_blk device made through configfs,
# powered on; prints its block device name.
nullb_create() {
	d=/sys/kernel/config/nullb/$1
	shift
	mkdir "$d"
	for kv in "$@"; do
		echo "${kv#*=}" >"$d/${kv%%=*}"
	done
	echo 1 >"$d/power"
	# 6.1 names a configfs device's disk after its directory; older
	# kernels call it nullb<index>.
	if [ -e "/sys/block/$(basename "$d")" ]; then
		name=$(basename "$d")
	else
		name=nullb$(cat "$d/index")
	fi
	# devtmpfs makes the node a moment after the disk appears.
	n=0
	while [ ! -b "/dev/$name" ] && [ "$n" -lt 100 ]; do
		msleep 20
		n=$((n + 1))
	done
	[ -b "/dev/$name" ] || { echo "nullb_create: no /dev/$name" >&2; return 1; }
	echo "$name"
}

# nullb_remove NAME: power it off and remove it.
nullb_remove() {
	echo 0 >"/sys/kernel/config/nullb/$1/power"
	rmdir "/sys/kernel/config/nullb/$1"
}
