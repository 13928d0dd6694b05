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
	dmesg | grep -E 'WARNING:|BUG:|UBSAN:|Oops|Call trace|I/O error|hung_task|blocked for more than|lockdep|circular locking' || true
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

# ebfq_scale: how hard the torture tests (8xx) push, from ebfq_scale= on
# the command line: 1 in make check, more in make torture.
ebfq_scale() {
	s=$(ebfq_cmdline ebfq_scale)
	case ${s:-1} in
	*[!0-9]* | 0) echo 1 ;;
	*) echo "${s:-1}" ;;
	esac
}

# random_between LO HI: a number in [LO, HI]; from busybox ash's $RANDOM
# when it has one (no process to start: torture loops call this often).
random_between() {
	random_r=${RANDOM:-}
	if [ -n "$random_r" ]; then
		echo $(($1 + random_r % ($2 - $1 + 1)))
	else
		awk -v lo="$1" -v hi="$2" -v s="$(od -An -N4 -tu4 /dev/urandom)" \
			'BEGIN { srand(s); print int(lo + rand() * (hi - lo + 1)) }'
	fi
}

# fio_terse LOG FIO-ARGS...: run fio with one terse line for all its jobs
# into LOG; sets fio_rc (its exit status) and what fio_parse sets.
fio_terse() {
	fio_log=$1
	shift
	fio_rc=0
	fio --minimal --group_reporting --eta=never "$@" >"$fio_log" 2>&1 || fio_rc=$?
	fio_parse "$fio_log"
}

# fio_parse LOG: from fio's terse line in LOG, fio_err (the first error it
# met, 0 if none) and fio_kib (KiB read and written). Its variables are
# fio_-prefixed: the loops that call it have their own (805 counts in r).
fio_parse() {
	fio_line=$(grep ';' "$1" | tail -n 1)
	fio_err=$(echo "$fio_line" | cut -d';' -f5)
	fio_rkib=$(echo "$fio_line" | cut -d';' -f6)
	fio_wkib=$(echo "$fio_line" | cut -d';' -f47)
	case $fio_rkib$fio_wkib in *[!0-9]*) fio_rkib=0 fio_wkib=0 ;; esac
	fio_kib=$((${fio_rkib:-0} + ${fio_wkib:-0}))
	fio_err=${fio_err:-none}
}

# any_alive PID...: whether any of the processes still runs (a torture
# loop's condition: keep going while any of its loads does).
any_alive() {
	for aa_pid; do
		! kill -0 "$aa_pid" 2>/dev/null || return 0
	done
	return 1
}

# torture_report NAME ITERATIONS IOS START: the figures every torture test
# gives: iterations, I/Os and seconds since START (date +%s). The next
# loop's torture_progress counts its minute from its own START.
torture_report() {
	note "$1: $2 iterations, $3 I/Os, $(($(date +%s) - $4)) s"
	torture_shown=
}

# torture_progress NAME ITERATIONS START: inside a torture loop, a line
# at most once a minute (iterations so far, seconds since START), so that
# a long run at a large scale (make torture) shows how far it got. Its
# variables are torture_-prefixed: sh has no locals, and the loops it is
# called from have their own (806 reads a tunable into "now").
torture_progress() {
	torture_now=$(date +%s)
	[ $((torture_now - ${torture_shown:-$3})) -ge 60 ] || return 0
	torture_shown=$torture_now
	note "$1: $2 iterations so far, $((torture_now - $3)) s"
}

# trouble_besides PATTERN: kernel_trouble without the lines a test causes
# on purpose (I/O errors of a device it fails, for one).
trouble_besides() {
	kernel_trouble | grep -vE "$1" || true
}

# no_trouble NAME [PATTERN]: a test point that the kernel log since the
# last dmesg_clear has no warning (but the PATTERN lines the test caused).
no_trouble() {
	trouble=$(trouble_besides "${2:-^$}")
	if [ -z "$trouble" ]; then
		ok "$1"
	else
		not_ok "$1" "$trouble"
	fi
}

# torture_needs: what most torture tests need, as requires() reports it.
torture_needs() {
	command -v fio >/dev/null || { echo "needs fio"; return 1; }
	kernel_schedulers | grep -qx ebfq || { echo "kernel without ebfq"; return 1; }
	[ -d /sys/kernel/config/nullb ] || { echo "needs null_blk configfs"; return 1; }
}

# sched_stat DEV KEY: a counter of ebfq's debugfs state of DEV.
sched_stat() {
	awk -v k="$2" '$1 == k { print $2 }' "/sys/kernel/debug/block/$1/sched/state"
}

# turn_ends DEV: how DEV's turns under ebfq ended so far, and how many idle
# windows restarted because the timer fired late, on one line ("budget=N
# timeout=N ... idle_restarted_late=N"); empty without debugfs.
turn_ends() {
	sed -n -e 's/^expired_\([a-z_-]*\) \([0-9]*\)$/\1=\2/p' \
		-e 's/^\(idle_restarted_late\) \([0-9]*\)$/\1=\2/p' \
		"/sys/kernel/debug/block/$1/sched/state" 2>/dev/null | tr '\n' ' '
}

# fio_kib_each FIO-ARGS...: the KiB each job of a fio run read and wrote
# (terse fields 6 and 47), one line a job, in job order.
fio_kib_each() {
	fio --minimal --eta=never "$@" | awk -F';' '{ print $6 + $47 }'
}

# within HAVE WANT PERCENT: whether |HAVE - WANT| <= WANT * PERCENT / 100.
within() {
	awk -v h="$1" -v w="$2" -v p="$3" 'BEGIN { d = h - w; if (d < 0) d = -d; exit !(d <= w * p / 100) }'
}

# share_check WHAT HAVE TOTAL PARTS OF PERCENT: a test point that HAVE of
# TOTAL is PARTS/OF of it, within +-PERCENT % (relative).
share_check() {
	if [ "$3" -le 0 ]; then
		not_ok "$1 got its share" "nothing moved at all"
		return 0
	fi
	want=$(($3 * $4 / $5))
	have_pct=$(awk -v h="$2" -v t="$3" 'BEGIN { printf "%.1f", 100 * h / t }')
	want_pct=$(awk -v p="$4" -v o="$5" 'BEGIN { printf "%.1f", 100 * p / o }')
	if within "$2" "$want" "$6"; then
		ok "$1 got $have_pct % (want $want_pct % +-$6 %)"
	else
		not_ok "$1 got its share" "$have_pct % of $3 KiB; want $want_pct % +-$6 %"
	fi
}

# The cgroup v2 hierarchy, for the tests of ebfq's groups.
cgroup_root=/sys/fs/cgroup

# cgroup_needs: what the group tests need, as requires() reports it; makes
# the io controller available to the root's children.
cgroup_needs() {
	grep -qw io "$cgroup_root/cgroup.controllers" 2>/dev/null ||
		{ echo "needs cgroup v2 with the io controller"; return 1; }
	echo +io >"$cgroup_root/cgroup.subtree_control"
	mkdir -p "$cgroup_root/ebfq-probe"
	if [ ! -e "$cgroup_root/ebfq-probe/io.ebfq.weight" ]; then
		rmdir "$cgroup_root/ebfq-probe"
		echo "kernel without ebfq groups (CONFIG_IOSCHED_EBFQ_CGROUP)"
		return 1
	fi
	rmdir "$cgroup_root/ebfq-probe"
}

# group_make NAME WEIGHT: a child of the root with io.ebfq.weight WEIGHT.
group_make() {
	mkdir -p "$cgroup_root/$1"
	echo "$2" >"$cgroup_root/$1/io.ebfq.weight"
}

# in_group NAME CMD...: run CMD (a function too) in a subshell that is a
# member of cgroup NAME.
in_group() {
	(
		echo 0 >"$cgroup_root/$1/cgroup.procs"
		shift
		"$@"
	)
}

# exec_in_group NAME PROGRAM...: the same for a program, which replaces the
# subshell: $! of "exec_in_group ... &" is the program's pid.
exec_in_group() {
	(
		echo 0 >"$cgroup_root/$1/cgroup.procs"
		shift
		exec "$@"
	)
}

# group_kill GROUP: kills every process in GROUP (cgroup.kill) and waits up
# to 10 s for it to be empty; returns 1, with the reason on stderr, if not.
group_kill() {
	echo 1 >"$cgroup_root/$1/cgroup.kill"
	gk_t=0
	until grep -qx 'populated 0' "$cgroup_root/$1/cgroup.events"; do
		if [ "$gk_t" -ge 50 ]; then
			echo "group $1 still has processes 10 s after cgroup.kill" >&2
			return 1
		fi
		msleep 200
		gk_t=$((gk_t + 1))
	done
}

# group_io DEV GROUP: the bytes GROUP has read and written on DEV, as the
# block layer counts them when bios are submitted (io.stat), not as ebfq
# does: the tests judge the scheduler by a count it does not keep.
group_io() {
	awk -v d="$(cat "/sys/block/$1/dev")" '$1 == d {
		for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "rbytes" || kv[1] == "wbytes")
				n += kv[2]
		}
	} END { print n + 0 }' "$cgroup_root/$2/io.stat"
}

# groups_io DEV GROUP...: group_io of each GROUP, on one line.
groups_io() {
	gi_dev=$1
	shift
	for gi_g in "$@"; do
		printf '%s ' "$(group_io "$gi_dev" "$gi_g")"
	done
}

# group_shares DEV SECS FIO-ARGS -- GROUP[:OPT=VALUE,...]...: one fio job
# per spec, in GROUP, with FIO-ARGS and --OPT=VALUE for each OPT=VALUE given
# (offset=256M,rw=write); once every group does I/O on DEV, and a second
# more, prints the KiB each group (in order of first appearance) moved on
# DEV in the next SECS seconds, on one line, then kills every process of
# those groups. Only that window counts: on a loaded emulated CPU the fio
# processes start seconds apart, and the first would have the device to
# itself meanwhile. Returns 1, with the reason on stderr, when a group did
# no I/O within 60 s.
group_shares() {
	gs_dev=$1 gs_secs=$2
	shift 2
	gs_args=
	while [ "$1" != -- ]; do
		gs_args="$gs_args $1"
		shift
	done
	shift
	gs_pids='' gs_groups='' gs_i=0
	for gs_spec in "$@"; do
		gs_g=${gs_spec%%:*}
		case " $gs_groups " in
		*" $gs_g "*) ;;
		*) gs_groups="$gs_groups $gs_g" ;;
		esac
	done
	# shellcheck disable=SC2086
	gs_base=$(groups_io "$gs_dev" $gs_groups)
	for gs_spec in "$@"; do
		gs_i=$((gs_i + 1))
		gs_g=${gs_spec%%:*} gs_opts=''
		[ "$gs_g" = "$gs_spec" ] ||
			gs_opts=$(echo "${gs_spec#*:}" | sed 's/^/--/; s/,/ --/g')
		# shellcheck disable=SC2086
		exec_in_group "$gs_g" fio --eta=never --output=/dev/null $gs_args \
			--time_based --runtime=$((gs_secs + 120)) --name="j$gs_i" \
			$gs_opts 2>"/tmp/ebfq-shares.$gs_i" &
		gs_pids="$gs_pids $!"
	done
	gs_rc=0 gs_t=0
	# shellcheck disable=SC2086
	set -- $gs_base
	for gs_g in $gs_groups; do
		while [ "$(group_io "$gs_dev" "$gs_g")" -le "$1" ]; do
			if [ "$gs_t" -ge 300 ]; then
				echo "group $gs_g did no I/O in 60 s: $(cat /tmp/ebfq-shares.* | head -3)" >&2
				gs_rc=1
				break 2
			fi
			msleep 200
			gs_t=$((gs_t + 1))
		done
		shift
	done
	if [ "$gs_rc" -eq 0 ]; then
		sleep 1
		# shellcheck disable=SC2086
		gs_before=$(groups_io "$gs_dev" $gs_groups)
		sleep "$gs_secs"
		# shellcheck disable=SC2086
		printf '%s\n%s\n' "$gs_before" "$(groups_io "$gs_dev" $gs_groups)" |
			awk 'NR == 1 { split($0, b); next }
			{ for (i = 1; i <= NF; i++) printf "%d ", ($i - b[i]) / 1024 }'
	fi
	for gs_g in $gs_groups; do
		group_kill "$gs_g" || gs_rc=1
	done
	for gs_p in $gs_pids; do
		wait "$gs_p" || true
	done
	rm -f /tmp/ebfq-shares.*
	return "$gs_rc"
}

# measure_shares WHAT DEV SECS FIO-ARGS -- SPEC...: group_shares, its
# figures in $shares; when it fails, so does the test point WHAT, with the
# reason, and it returns 1.
measure_shares() {
	ms_what=$1
	shift
	if ! group_shares "$@" >/tmp/ebfq-ms.out 2>/tmp/ebfq-ms.err; then
		not_ok "$ms_what" "$(cat /tmp/ebfq-ms.err)"
		rm -f /tmp/ebfq-ms.*
		return 1
	fi
	# shellcheck disable=SC2034 # the caller's
	shares=$(cat /tmp/ebfq-ms.out)
	rm -f /tmp/ebfq-ms.*
}
