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

# boot_sched DEV: the scheduler DEV came up with (run-tests notes every
# device's before the first test runs).
boot_sched() {
	awk -v d="$1" '$1 == d { print $2 }' /tmp/ebfq-boot-schedulers
}

# hw_queues DEV: how many hardware queues blk-mq gave DEV.
hw_queues() {
	ls -d "/sys/block/$1/mq/"*/ 2>/dev/null | wc -l
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

# app_cmd APP: the command line that starts APP from the bench disk on
# /mnt (scripts/bench-disk.sh): fio, with its 45 shared libraries through
# the dynamic loader, or the static busybox, for the slowest cards.
app_cmd() {
	case $1 in
	fio) echo "/mnt/app/ld-linux-armhf.so.3 --library-path /mnt/app/lib /mnt/app/fio --version" ;;
	busybox) echo "/mnt/app/busybox true" ;;
	*) echo "app_cmd: unknown application '$1' (fio, busybox)" >&2; return 1 ;;
	esac
}

# block_state: what a hang leaves behind, for the report: each device's
# scheduler, in-flight counts and blk-mq debugfs (requests in the dispatch
# lists, tags in use, the scheduler's own attributes), the stacks of the
# tasks that wait in the kernel, and the blocked-task dump (sysrq w).
block_state() {
	for q in /sys/block/*/queue; do
		d=${q#/sys/block/}
		d=${d%/queue}
		echo "== $d: $(current_sched "$d"), inflight $(cat "/sys/block/$d/inflight")"
		dbg=/sys/kernel/debug/block/$d
		[ -d "$dbg" ] || continue
		for f in "$dbg"/state "$dbg"/requeue_list "$dbg"/hctx*/state \
			"$dbg"/hctx*/busy "$dbg"/hctx*/dispatch "$dbg"/hctx*/dispatch_busy \
			"$dbg"/hctx*/run "$dbg"/hctx*/sched_tags_bitmap \
			"$dbg"/hctx*/tags_bitmap "$dbg"/sched/* "$dbg"/hctx*/sched/*; do
			[ -f "$f" ] || continue
			out=$(head -c 2048 "$f" 2>&1 | grep -v '^$' | head -n 16) || true
			[ -n "$out" ] && printf '%s:\n%s\n' "${f#"$dbg"/}" "$out"
		done
	done
	for s in /proc/[0-9]*/stat; do
		p=${s%/stat}
		# The state is the field after the parenthesised command.
		st=$(sed 's/.*) \([A-Z]\).*/\1/' "$s" 2>/dev/null) || continue
		case $st in D | S) ;; *) continue ;; esac
		[ -r "$p/stack" ] || continue
		stk=$(cat "$p/stack" 2>/dev/null) || continue
		case $stk in *blk_* | *bio* | *io_schedule* | *fio*) ;; *) continue ;; esac
		echo "== ${p#/proc/} $(cat "$p/comm") ($st):"
		echo "$stk"
	done
	if [ -w /proc/sysrq-trigger ]; then
		dmesg -c >/dev/null
		echo w >/proc/sysrq-trigger
		dmesg | tail -n 60
	fi
}

# descendants PID: every process under PID, deepest last.
descendants() {
	for s in /proc/[0-9]*/stat; do
		# pid and ppid, around the command that may hold spaces.
		sed -n 's/^\([0-9]*\) (.*) [A-Za-z] \([0-9]*\) .*/\2 \1/p' "$s" 2>/dev/null
	done >/tmp/ebfq-ppids
	kids=$1
	while [ -n "$kids" ]; do
		next=
		for k in $kids; do
			for c in $(awk -v p="$k" '$1 == p { print $2 }' /tmp/ebfq-ppids); do
				echo "$c"
				next="$next $c"
			done
		done
		kids=$next
	done
}
