# SPDX-License-Identifier: GPL-2.0
# Hierarchical scheduling: cgroup v2 groups weighted by io.ebfq.weight, on
# null_blk with simulated device time (irqmode=2), as in 007:
#  - three groups of weights 100:200:400, a sequential reader in each:
#    shares within +-5 % of 1:2:4;
#  - two readers in one group, one in another, equal weights: the groups,
#    not the processes, split 50:50 (+-5 %);
#  - a writer (O_DIRECT) in a weight-100 group against a reader in a
#    weight-1000 group: the reader gets at least 85 %;
#  - a per-device override applies to that device only, "MAJ:MIN default"
#    removes it, and "default W" changes every device without override;
#  - bad input to io.ebfq.weight is refused and changes nothing;
#  - io.ebfq.stat counts what each group received;
#  - buffered writes that sync sends to the device are the group's that
#    dirtied the pages (cgroup writeback, with the memory controller);
#  - a process starting in one group while streamers keep the device busy
#    from another is raised inside its group, which keeps its weight; with
#    wr_groups=1 it raises its group and takes the device.
# Shares are what each group read or wrote in the same window, while all
# ran (io.stat, see group_shares), figures to the log. They are
# B-WF2Q+'s guarantee, measured with low_latency=0, plain B-WF2Q+ (the
# heuristics raise new processes inside their groups, which leaves the
# groups' shares alone unless wr_groups=1). The raising test runs with it
# on.

cg=$cgroup_root

requires() {
	# Measured on vexpress under make check's load: null_blk at 6 MB/s,
	# the emulated CPU, not the device, paced the readers (56 of 280
	# turns ended too idle) and the test ran past its 600 s.
	[ "${EBFQ_BOARD:-}" != vexpress ] ||
		{ echo "vexpress's emulated CPU, not the device, would pace the readers"; return 1; }
	command -v fio >/dev/null || { echo "needs fio"; return 1; }
	kernel_schedulers | grep -qx ebfq || { echo "kernel without ebfq"; return 1; }
	[ -d /sys/kernel/config/nullb ] || { echo "needs null_blk configfs"; return 1; }
	cgroup_needs
}

# run_shares WHAT GROUP[:OPT=VALUE,...]...: a job of $common for each, all
# at once; $shares: the KiB each group moved in the $secs seconds when all
# ran (measure_shares).
run_shares() {
	rs_what=$1
	shift
	# shellcheck disable=SC2086
	measure_shares "$rs_what" "$dev" "$secs" $common -- "$@"
}

weights_test() {
	group_make ebfq-a 100
	group_make ebfq-b 200
	group_make ebfq-c 400
	run_shares "readers in groups made progress" \
		ebfq-a:offset=0 ebfq-b:offset=256M ebfq-c:offset=512M || return 0
	note "groups 100:200:400 read $shares KiB in ${secs}s"
	note "$(grep -E '^(raised|raising|preempt|peak|wr_dur)' "/sys/kernel/debug/block/$dev/sched/state" | tr '\n' ' ')"
	note "turns ended by: $(turn_ends "$dev")"
	note "$(cat "/sys/kernel/debug/block/$dev/sched/groups" 2>/dev/null)"
	# shellcheck disable=SC2086
	set -- $shares
	total=$(($1 + $2 + $3))
	share_check "group of weight 100" "$1" "$total" 1 7 5
	share_check "group of weight 200" "$2" "$total" 2 7 5
	share_check "group of weight 400" "$3" "$total" 4 7 5
}

groups_not_processes_test() {
	echo 100 >"$cg/ebfq-b/io.ebfq.weight"
	echo 100 >"$cg/ebfq-c/io.ebfq.weight"
	run_shares "readers made progress" \
		ebfq-b:offset=0 ebfq-b:offset=256M ebfq-c:offset=512M || return 0
	note "two readers in one group, one in another, equal weights: $shares KiB in ${secs}s"
	# shellcheck disable=SC2086
	set -- $shares
	total=$(($1 + $2))
	share_check "group of two readers" "$1" "$total" 1 2 5
	share_check "group of one reader" "$2" "$total" 1 2 5
}

writer_test() {
	echo 100 >"$cg/ebfq-a/io.ebfq.weight"
	echo 1000 >"$cg/ebfq-c/io.ebfq.weight"
	run_shares "a writer and a reader made progress" \
		ebfq-a:rw=write ebfq-c:offset=512M || return 0
	# shellcheck disable=SC2086
	set -- $shares
	w=$1 r=$2
	note "writer in weight 100 wrote $w KiB, reader in weight 1000 read $r KiB in ${secs}s"
	pct=$(awk -v r="$r" -v w="$w" 'BEGIN { printf "%.1f", (r + w) ? 100 * r / (r + w) : 0 }')
	if awk -v p="$pct" 'BEGIN { exit !(p >= 85) }'; then
		ok "reader of the weight-1000 group got $pct % against a writer (>= 85 %)"
	else
		not_ok "reader of the weight-1000 group got >= 85 % against a writer" "it got $pct %"
	fi
}

# group_weight DEV GROUP: the weight ebfq uses for GROUP on DEV (debugfs).
group_weight() {
	sed -n "s|^/$2 weight=\([0-9]*\) .*|\1|p" "/sys/kernel/debug/block/$1/sched/groups"
}

override_test() {
	dev2=$(nullb_create nullb_cg2 submit_queues=1 size=64)
	set_sched "$dev2" ebfq
	f=$cg/ebfq-a/io.ebfq.weight
	echo 100 >"$f"
	# Both devices know the group once it did I/O there.
	in_group ebfq-a dd if="/dev/$dev" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
	in_group ebfq-a dd if="/dev/$dev2" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null
	mm=$(cat "/sys/block/$dev/dev")
	echo "$mm 500" >"$f"
	check "override: '$mm 500' listed in io.ebfq.weight" grep -qx "$mm 500" "$f"
	check "override: weight 500 on $dev" test "$(group_weight "$dev" ebfq-a)" = 500
	check "override: weight 100 still on $dev2" test "$(group_weight "$dev2" ebfq-a)" = 100
	echo "default 300" >"$f"
	check "default 300: $dev keeps its override" test "$(group_weight "$dev" ebfq-a)" = 500
	check "default 300: $dev2 follows" test "$(group_weight "$dev2" ebfq-a)" = 300
	echo "$mm default" >"$f"
	check "'$mm default' removes the override" test "$(group_weight "$dev" ebfq-a)" = 300
	check "io.ebfq.weight lists no override" test "$(cat "$f")" = "default 300"
	bad_input_test "$f" "$mm"
	nullb_remove nullb_cg2
}

bad_input_test() {
	f=$1 mm=$2
	echo "$mm 700" >"$f"
	before=$(cat "$f")
	for bad in abc "$mm 0" 99999 10001 0 -5 "$mm" "$mm 100 7" "$mm abc" \
		"default 0" default "default 10001" "default 5 5" "1:2:3 4" \
		"$mm -1" "$mm 18446744073709551616" ""; do
		if printf '%s\n' "$bad" >"$f" 2>/dev/null; then
			not_ok "io.ebfq.weight refuses '$bad'" "the write succeeded"
		elif [ "$(cat "$f")" != "$before" ]; then
			not_ok "io.ebfq.weight unchanged by '$bad'" "$(cat "$f")"
		else
			ok "io.ebfq.weight refuses '$bad', unchanged"
		fi
	done
	echo "$mm default" >"$f"
}

# group_sectors GROUP: the sectors io.ebfq.stat says GROUP received on $dev.
group_sectors() {
	sed -n "s/^$(cat "/sys/block/$dev/dev") .*sectors=\([0-9]*\).*/\1/p" \
		"$cg/$1/io.ebfq.stat"
}

stat_test() {
	note "io.ebfq.stat of ebfq-c: $(grep "^$(cat "/sys/block/$dev/dev") " "$cg/ebfq-c/io.ebfq.stat")"
	sectors=$(group_sectors ebfq-c)
	check "io.ebfq.stat counts the sectors ebfq-c received (${sectors:-none})" \
		test "${sectors:-0}" -gt 0
}

writeback_test() {
	what="buffered writes synced from the root are the group's that dirtied them"
	if ! grep -qw memory "$cg/cgroup.controllers"; then
		skip "$what" "kernel without the memory controller (CONFIG_MEMCG), so without cgroup writeback"
		return 0
	fi
	echo +memory >"$cg/cgroup.subtree_control"
	before=$(group_sectors ebfq-a)
	# 16 MiB dirtied in ebfq-a's page cache of the device, written by a
	# sync from the root cgroup: the bios are ebfq-a's only if the pages'
	# owner, not the process that writes them back, decides.
	in_group ebfq-a dd if=/dev/zero of="/dev/$dev" bs=64k count=256 2>/dev/null
	sync
	after=$(group_sectors ebfq-a)
	grew=$((${after:-0} - ${before:-0}))
	note "ebfq-a's sectors on $dev: ${before:-0} before its buffered 16 MiB, ${after:-0} after sync"
	check "$what (ebfq-a +$grew sectors, want >= 32768)" test "$grew" -ge 32768
}

# new_process_under_load WR_GROUPS: with wr_groups=WR_GROUPS, three
# streamers in ebfq-b, then a new process in ebfq-a (equal weights) reads
# 4 MiB; sets $raised (samples with a raised queue in ebfq-a), $samples,
# $max_weight (the largest weight ebfq-a was scheduled with), and the
# raised_interactive and preemptions counts before ($inter0, $pre0).
new_process_under_load() {
	dbg=/sys/kernel/debug/block/$dev/sched
	echo "$1" >"/sys/block/$dev/queue/iosched/wr_groups"
	echo 100 >"$cg/ebfq-a/io.ebfq.weight"
	echo 100 >"$cg/ebfq-b/io.ebfq.weight"
	streamers=
	# 10 GiB each: they outlast the test, which kills them.
	for n in 1 2 3; do
		exec_in_group ebfq-b dd if="/dev/$dev" of=/dev/null bs=256k count=40000 \
			skip=$((n * 45000)) iflag=direct 2>/dev/null &
		streamers="$streamers $!"
	done
	n=0
	while [ "$(sched_stat "$dev" raised_queues)" != 0 ] && [ "$n" -lt 600 ]; do
		msleep 100
		n=$((n + 1))
	done
	inter0=$(sched_stat "$dev" raised_interactive)
	pre0=$(sched_stat "$dev" preemptions)
	# 4 MiB at 50 GiB, within the device (busybox dd reads its way to a
	# skip past the end).
	exec_in_group ebfq-a dd if="/dev/$dev" of=/dev/null bs=16k count=256 \
		skip=3276800 iflag=direct 2>/dev/null &
	pid=$!
	samples=0 raised=0 max_weight=0
	while kill -0 "$pid" 2>/dev/null; do
		line=$(grep '^/ebfq-a ' "$dbg/groups")
		r=$(echo "$line" | sed -n 's|.* raised=\([0-9]*\) .*|\1|p')
		w=$(echo "$line" | sed -n 's|.* sched_weight=\([0-9]*\) .*|\1|p')
		samples=$((samples + 1))
		[ "${r:-0}" -eq 0 ] || raised=$((raised + 1))
		[ "${w:-0}" -le "$max_weight" ] || max_weight=$w
		msleep 20
	done
	wait "$pid" || true
	# shellcheck disable=SC2086
	kill $streamers 2>/dev/null || true
	for p in $streamers; do wait "$p" 2>/dev/null || true; done
	echo 0 >"/sys/block/$dev/queue/iosched/wr_groups"
	note "wr_groups=$1: ebfq-a had a raised queue in $raised of $samples samples while its new process ran, scheduled at weight $max_weight at most"
}

raising_test() {
	new_process_under_load 0
	check "a process starting in a group under load is raised" \
		test "$(sched_stat "$dev" raised_interactive)" -gt "$inter0"
	check "it is raised inside its group ($raised samples)" test "$raised" -gt 0
	check "its group keeps its weight (scheduled at $max_weight at most)" \
		test "$max_weight" -le 100
	new_process_under_load 1
	check "wr_groups=1: a process starting in a group under load is raised" \
		test "$(sched_stat "$dev" raised_interactive)" -gt "$inter0"
	check "wr_groups=1: it takes the device from the other group's streamers (preemption)" \
		test "$(sched_stat "$dev" preemptions)" -gt "$pre0"
	check "wr_groups=1: its group was raised with it (scheduled at $max_weight)" \
		test "$max_weight" -gt 100
}

run() {
	secs=${EBFQ_FAIR_SECS:-12}
	# 64 GiB (not memory backed: nothing is stored).
	dev=$(nullb_create nullb_cg irqmode=2 completion_nsec=200000 \
		submit_queues=1 hw_queue_depth=32 size=1024)
	set_sched "$dev" ebfq
	echo 512 >"/sys/block/$dev/queue/iosched/max_budget"
	echo 20 >"/sys/block/$dev/queue/iosched/slice_idle"
	common="--filename=/dev/$dev --direct=1 --ioengine=psync --rw=read --bs=64k
		--size=256M"

	dmesg_clear
	echo 0 >"/sys/block/$dev/queue/iosched/low_latency"
	weights_test
	groups_not_processes_test
	writer_test
	stat_test
	writeback_test
	echo 1 >"/sys/block/$dev/queue/iosched/low_latency"
	raising_test
	override_test
	nullb_remove nullb_cg
	rmdir "$cg/ebfq-a" "$cg/ebfq-b" "$cg/ebfq-c"
	trouble=$(kernel_trouble)
	check "no kernel warning (${trouble:-none})" test -z "$trouble"
}
