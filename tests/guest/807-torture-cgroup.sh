# SPDX-License-Identifier: GPL-2.0
# cgroup churn under I/O, the bugs the kernel's BFQ shipped with groups
# (use-after-free when a queue changed cgroup, or when a group went
# offline with requests queued; the 5.15 freezes seen with runc):
#  - three fio processes (verified writes with libaio, an io_uring reader,
#    a psync reader) on a memory-backed null_blk with simulated device time,
#    moved at random between cgroups every 0.05-0.15 s, while cgroups are
#    removed (with requests of theirs still queued) and made again, nested
#    ones among them, their io.ebfq.weight (global and per device) changed,
#    and the scheduler now and then switched away from ebfq and back;
#  - one queue shared by processes in two cgroups (CLONE_IO: they share
#    an io_context, as io_uring's workers share their submitter's), moved
#    between the cgroups, one cgroup removed and made again under them:
#    the queue follows the group of each request, never one offline;
#  - a cgroup that does I/O on a device that is powered off and removed
#    under it, then the cgroup removed.
# Ends with fio verify clean, every I/O completed, no kernel warning.

cg=$cgroup_root

requires() {
	torture_needs || return 1
	cgroup_needs
}

# The cgroups; t1/n is nested in t1. Processes go to the leaves only
# (cgroup v2 keeps them out of a cgroup whose controllers its children
# use).
groups="t1 t1/n t2 t3"
leaves="t1/n t2 t3"

group_path() {
	echo "$cg/ebfq-$1"
}

groups_make() {
	for g in $groups; do
		mkdir -p "$(group_path "$g")"
	done
	# Nested groups need the io controller in their parent.
	echo +io >"$(group_path t1)/cgroup.subtree_control"
}

# A random one of $leaves, or the root.
random_group() {
	n=$(random_between 0 3)
	[ "$n" -gt 0 ] || { echo /; return 0; }
	echo "$leaves" | cut -d' ' -f"$n"
}

# move PID GROUP: the whole process (its threads too) into GROUP.
move() {
	if [ "$2" = / ]; then
		echo "$1" >"$cg/cgroup.procs"
	else
		echo "$1" >"$(group_path "$2")/cgroup.procs"
	fi
}

# recreate GROUP: its processes to the root, then rmdir and mkdir; what
# they queued there is still queued when the group goes offline.
recreate() {
	d=$(group_path "$1")
	for sub in "$d"/*/; do
		[ -d "$sub" ] || continue
		while read -r p; do echo "$p" >"$cg/cgroup.procs"; done <"$sub/cgroup.procs"
		rmdir "$sub"
	done
	while read -r p; do echo "$p" >"$cg/cgroup.procs" 2>/dev/null || true; done <"$d/cgroup.procs"
	rmdir "$d"
	groups_make
}

churn_test() {
	scale=$(ebfq_scale)
	start=$(date +%s)
	dev=$(nullb_create nullb_cgt memory_backed=1 irqmode=2 completion_nsec=50000 \
		submit_queues=1 hw_queue_depth=32 size=64)
	mm=$(cat "/sys/block/$dev/dev")
	set_sched "$dev" ebfq
	groups_make
	dmesg_clear
	fio --minimal --eta=never --thread --name=w --filename="/dev/$dev" --direct=1 \
		--ioengine=libaio --iodepth=8 --rw=randwrite --bs=4k --size=4M \
		--loops=$((2 * scale)) --verify=crc32c --verify_backlog=256 --verify_fatal=1 \
		>/tmp/fio-cg-w.log 2>&1 &
	wpid=$!
	fio --minimal --eta=never --thread --name=r --filename="/dev/$dev" --direct=1 \
		--ioengine=io_uring --iodepth=8 --rw=randread --bs=16k --offset=32M --size=8M \
		--loops=$((3 * scale)) >/tmp/fio-cg-r.log 2>&1 &
	rpid=$!
	fio --minimal --eta=never --thread --name=s --filename="/dev/$dev" --direct=1 \
		--ioengine=psync --rw=read --bs=64k --offset=48M --size=8M \
		--loops=$((4 * scale)) >/tmp/fio-cg-s.log 2>&1 &
	spid=$!
	moves=0 remakes=0 busy=0 weights=0 switches=0 refused=0 i=0
	while any_alive "$wpid" "$rpid" "$spid"; do
		i=$((i + 1))
		for p in $wpid $rpid $spid; do
			kill -0 "$p" 2>/dev/null || continue
			# A process that just ended cannot move: not a refusal.
			(move "$p" "$(random_group)") 2>/dev/null ||
				! kill -0 "$p" 2>/dev/null || refused=$((refused + 1))
			moves=$((moves + 1))
		done
		g=$(echo "$groups" | cut -d' ' -f"$(random_between 1 4)")
		case $((i % 4)) in
		0)
			# rmdir may meet a thread still leaving: count, not fail.
			if (recreate "$g") 2>/dev/null; then
				remakes=$((remakes + 1))
			else
				busy=$((busy + 1))
				groups_make
			fi
			;;
		1)
			(random_between 1 10000 >"$(group_path "$g")/io.ebfq.weight") \
				2>/dev/null || refused=$((refused + 1))
			weights=$((weights + 1))
			;;
		2)
			(echo "$mm $(random_between 1 10000)" >"$(group_path "$g")/io.ebfq.weight") \
				2>/dev/null || refused=$((refused + 1))
			weights=$((weights + 1))
			;;
		esac
		if [ $((i % 25)) -eq 0 ]; then
			(echo mq-deadline >"/sys/block/$dev/queue/scheduler" &&
				msleep 50 &&
				echo ebfq >"/sys/block/$dev/queue/scheduler") 2>/dev/null ||
				refused=$((refused + 1))
			switches=$((switches + 1))
		fi
		torture_progress "cgroup churn" "$i" "$start"
		msleep "$(random_between 50 150)"
	done
	wrc=0 rrc=0 src=0
	wait "$wpid" || wrc=$?
	wait "$rpid" || rrc=$?
	wait "$spid" || src=$?
	fio_parse /tmp/fio-cg-w.log
	werr=$fio_err
	kib=$(grep -h ';' /tmp/fio-cg-w.log /tmp/fio-cg-r.log /tmp/fio-cg-s.log |
		awk -F';' '{ s += $6 + $47 } END { print s + 0 }')
	torture_report "cgroup churn" "$i" "$((kib / 4))" "$start"
	note "$moves moves, $remakes cgroups removed and made again ($busy busy), $weights weights, $switches switches"
	if [ "$wrc" -eq 0 ] && [ "$werr" = 0 ]; then
		ok "$dev: verified writes through $moves moves between cgroups"
	else
		not_ok "$dev: verified writes through $moves moves between cgroups" \
			"fio exit $wrc, error $werr:" "$(tail -n 5 /tmp/fio-cg-w.log)"
	fi
	check "$dev: the readers ran through the churn (exit $rrc, $src)" \
		test "$rrc" -eq 0 -a "$src" -eq 0
	check "$dev: every move, removal and weight accepted ($refused refused)" \
		test "$refused" -eq 0
	fio_terse /tmp/fio-cg-c.log --name=check --filename="/dev/$dev" --direct=1 \
		--ioengine=psync --rw=randwrite --bs=4k --size=1M --verify=crc32c
	check "$dev: the device still reads and writes (verified)" test "$fio_rc" -eq 0
	no_trouble "$dev: no kernel warning through the cgroup churn"
	nullb_remove nullb_cgt
}

# Two processes of one io_context, so of one queue, in two cgroups.
shared_test() {
	dev=$(nullb_create nullb_cgs irqmode=2 completion_nsec=100000 submit_queues=1 size=256)
	set_sched "$dev" ebfq
	s1=$(group_path s1) s2=$(group_path s2)
	mkdir -p "$s1" "$s2"
	echo 100 >"$s1/io.ebfq.weight"
	echo 400 >"$s2/io.ebfq.weight"
	dmesg_clear
	start=$(date +%s)
	moved0=$(sched_stat "$dev" expired_moved)
	# The file exists before the background job opens it: the loop below
	# reads it at once.
	out=/tmp/ebfq-shared.out
	: >"$out"
	ebfq-io shared 2 "/dev/$dev" $((10 * $(ebfq_scale))) >"$out" 2>&1 &
	pid=$!
	n=0
	while [ "$(grep -c '^pid ' "$out")" -lt 2 ] && [ "$n" -lt 100 ]; do
		msleep 50
		n=$((n + 1))
	done
	# shellcheck disable=SC2046
	set -- $(sed -n 's/^pid //p' "$out")
	if [ $# -ne 2 ]; then
		not_ok "ebfq-io shared started two processes" "$(cat "$out")"
		kill "$pid" 2>/dev/null || true
		wait "$pid" || true
		rmdir "$s1" "$s2"
		nullb_remove nullb_cgs
		return 0
	fi
	p1=$1 p2=$2
	i=0 busy=0 refused=0 shared=0 apart=0
	while kill -0 "$pid" 2>/dev/null; do
		i=$((i + 1))
		case $((i % 3)) in
		0) (echo "$p1" >"$s1/cgroup.procs" && echo "$p2" >"$s2/cgroup.procs") ;;
		1) (echo "$p1" >"$s2/cgroup.procs" && echo "$p2" >"$s1/cgroup.procs") ;;
		2)
			# s2 goes offline with the queue's requests of it queued.
			(while read -r p; do echo "$p" >"$s1/cgroup.procs"; done <"$s2/cgroup.procs"
				rmdir "$s2" && mkdir "$s2" && echo 400 >"$s2/io.ebfq.weight") ||
				{ busy=$((busy + 1)); mkdir -p "$s2"; }
			;;
		esac 2>/dev/null || ! kill -0 "$pid" 2>/dev/null || refused=$((refused + 1))
		# The parent made the queue: it carries the parent's pid.
		q=$(awk -v p="$pid" '$1 == p && $2 == "sync"' "/sys/kernel/debug/block/$dev/sched/queues" | wc -l)
		if [ "$q" -eq 1 ]; then
			shared=$((shared + 1))
		elif [ "$q" -gt 1 ]; then
			apart=$((apart + 1))
		fi
		torture_progress "shared queue" "$i" "$start"
		msleep "$(random_between 50 150)"
	done
	rc=0
	wait "$pid" || rc=$?
	kib=$(sed -n 's/^kib //p' "$out" | tr '\n' ' ')
	moved=$(($(sched_stat "$dev" expired_moved) - moved0))
	torture_report "shared queue" "$i" "$(($(echo "$kib" | awk '{ print $1 + $2 }') / 4))" "$start"
	note "KiB read by the two: $kib; $moved turns ended by a move; $busy removals busy"
	check "a queue shared across cgroups: both processes read to the end (exit $rc)" \
		sh -c "[ $rc -eq 0 ] && echo '$kib' | awk '{ exit !(\$1 > 0 && \$2 > 0) }'"
	check "they shared one queue ($shared samples one, $apart more)" \
		test "$shared" -gt 0 -a "$apart" -eq 0
	check "the queue followed its requests' groups ($moved moves)" test "$moved" -gt 0
	check "every move and removal accepted ($refused refused)" test "$refused" -eq 0
	no_trouble "no kernel warning with one queue in two cgroups"
	while read -r p; do echo "$p" >"$cg/cgroup.procs"; done <"$s1/cgroup.procs"
	rmdir "$s1" "$s2"
	nullb_remove nullb_cgs
}

# A device goes away under a cgroup's I/O, then the cgroup goes.
device_gone_test() {
	dev=$(nullb_create nullb_cgg irqmode=2 completion_nsec=100000 submit_queues=1 size=64)
	set_sched "$dev" ebfq
	d=$(group_path gone)
	mkdir -p "$d"
	dmesg_clear
	(
		echo 0 >"$d/cgroup.procs"
		exec fio --minimal --eta=never --name=g --filename="/dev/$dev" --direct=1 \
			--ioengine=libaio --iodepth=8 --rw=randread --bs=4k --size=32M \
			--time_based --runtime=30
	) >/tmp/fio-cg-g.log 2>&1 &
	pid=$!
	msleep 500
	nullb_remove nullb_cgg
	rc=0
	wait "$pid" || rc=$?
	note "fio on the removed device exited $rc (an error is expected)"
	rmdir "$d"
	check "the cgroup of a removed device's I/O is removed" test ! -d "$d"
	no_trouble "no kernel warning when a device goes away under a cgroup" \
		'I/O error|Buffer I/O'
}

run() {
	echo +io >"$cg/cgroup.subtree_control"
	churn_test
	shared_test
	for g in t1/n t1 t2 t3; do
		while read -r p; do echo "$p" >"$cg/cgroup.procs"; done <"$(group_path "$g")/cgroup.procs"
		rmdir "$(group_path "$g")"
	done
	device_gone_test
}
