# SPDX-License-Identifier: GPL-2.0
# Weight raising, judged from ebfq's own debugfs on null_blk with simulated
# device time (irqmode=2):
#  - a new process is raised as interactive (its weight x wr_coeff), and a
#    streamer's raising ends once it has read more than a start-up;
#  - ten processes born together are a burst, and none of them is raised,
#    nor is a sibling born half a second after them;
#  - a new process that starts while streamers keep the device busy is
#    raised and takes the device from them (a preemption), while the
#    streamers themselves are no longer raised;
#  - a reader of small chunks at a steady period becomes soft real-time,
#    straight from its interactive raising, with no gap unraised;
#  - of two raised readers that think between their reads, the one not in
#    service is sent while the one in service thinks (injection);
#  - low_latency=0 ends every raising at once and raises nobody after.
# Counts, not times: how much faster a raised start-up is is for the
# benchmark (make bench) to measure.

requires() {
	kernel_schedulers | grep -qx ebfq || { echo "kernel without ebfq"; return 1; }
	[ -d /sys/kernel/config/nullb ] || { echo "needs null_blk configfs"; return 1; }
	command -v ebfq-io >/dev/null || { echo "needs ebfq-io"; return 1; }
}

# stat KEY: a counter of the device's debugfs state file.
stat() {
	sched_stat "$dev" "$1"
}

# queue_field PID COLUMN: a column of PID's sync queue in debugfs queues.
queue_field() {
	awk -v p="$1" -v c="$2" '$1 == p && $2 == "sync" { print $c }' "$dbg/queues"
}

# running PID: PID has not exited (an exited child stays a zombie until
# its parent waits, and kill -0 still finds it).
running() {
	st=$(sed 's/.*) \([A-Z]\).*/\1/' "/proc/$1/stat" 2>/dev/null) && [ "$st" != Z ]
}

# watch_queue PID: while PID runs, the distinct "raised weight" pairs its
# queue showed, one a line, sampled every 50 ms.
watch_queue() {
	while running "$1"; do
		awk -v p="$1" '$1 == p && $2 == "sync" { print $15, $4 }' "$dbg/queues"
		msleep 50
	done | sort -u
}

# watch_kinds PID: while PID runs, the raising its queue showed (column
# 15 of debugfs queues), in order, each change once; sampled every 20 ms.
watch_kinds() {
	while running "$1"; do
		queue_field "$1" 15
		msleep 20
	done | uniq | tr '\n' ' ' | sed 's/ $//'
}

# stays_softrt KINDS: once soft-rt, never unraised again.
stays_softrt() {
	echo "$1" | awk '{
		for (i = 1; i <= NF; i++) {
			if ($i == "soft-rt")
				rt = 1
			else if (rt && $i == "none")
				bad = 1
		}
	} END { exit !rt || bad }'
}

# stays_raised KINDS: once raised, of either kind, never unraised again.
stays_raised() {
	echo "$1" | awk '{
		for (i = 1; i <= NF; i++) {
			if ($i == "interactive" || $i == "soft-rt")
				raised = 1
			else if (raised && $i == "none")
				bad = 1
		}
	} END { exit !raised || bad }'
}

# streamers N: N long sequential readers in the background; their pids in
# $streamers.
start_streamers() {
	streamers=
	rm -f /tmp/ebfq-go
	for n in $(seq 1 "$1"); do
		# Each waits for the others to be forked, so that their first
		# reads, which make their queues, come together.
		(
			while [ ! -e /tmp/ebfq-go ]; do usleep 2000; done
			exec dd if="/dev/$dev" of=/dev/null bs=256k count=10000 skip=$((n * 12000)) \
				iflag=direct 2>/dev/null
		) &
		streamers="$streamers $!"
	done
	msleep 300
	touch /tmp/ebfq-go
}

stop_streamers() {
	# shellcheck disable=SC2086
	kill $streamers 2>/dev/null || true
	for p in $streamers; do wait "$p" 2>/dev/null || true; done
}

# wait_unraised SECS: until no queue is raised, at most SECS seconds.
wait_unraised() {
	n=0
	while [ "$(stat raised_queues)" != 0 ] && [ "$n" -lt $(($1 * 10)) ]; do
		msleep 100
		n=$((n + 1))
	done
	[ "$(stat raised_queues)" = 0 ]
}

run() {
	dev=$(nullb_create nullb_wr irqmode=2 completion_nsec=300000 \
		submit_queues=1 hw_queue_depth=32 size=32768)
	set_sched "$dev" ebfq
	dbg=/sys/kernel/debug/block/$dev/sched
	ios=/sys/block/$dev/queue/iosched
	coeff=$(cat "$ios/wr_coeff")
	dmesg_clear

	# A lone streamer: raised as new, then found to stream (raising made
	# long, so that streaming ends it, not time).
	echo 60000 >"$ios/wr_max_time"
	inter0=$(stat raised_interactive)
	heavy0=$(stat raising_ended_streaming)
	dd if="/dev/$dev" of=/dev/null bs=1M count=600 iflag=direct 2>/dev/null &
	pid=$!
	seen=$(watch_queue "$pid")
	wait "$pid"
	note "streamer's queue showed (raised weight): $(echo $seen)"
	check "$dev: a new process is raised as interactive" \
		test "$(stat raised_interactive)" -gt "$inter0"
	raised_w=$(echo "$seen" | awk '$1 == "interactive" { print $2; exit }')
	# Its weight changes at its next turn: right after its raising ends,
	# it may still show the raised one. The plain one is the smallest.
	plain_w=$(echo "$seen" | awk '$1 == "none" && (w == "" || $2 < w) { w = $2 } END { print w }')
	if [ -n "$raised_w" ] && [ -n "$plain_w" ] && [ "$raised_w" = $((plain_w * coeff)) ]; then
		ok "$dev: raised, its weight is $coeff times its own ($plain_w -> $raised_w)"
	else
		not_ok "$dev: raised, its weight is $coeff times its own" \
			"weights seen, raised and not: '$raised_w' '$plain_w'"
	fi
	check "$dev: a streamer's raising ends once it has read more than a start-up" \
		test "$(stat raising_ended_streaming)" -gt "$heavy0"
	check "$dev: no queue raised once the streamer is gone" test "$(stat raised_queues)" = 0
	echo 0 >"$ios/wr_max_time"

	# Ten readers born together: a batch, not applications starting. A
	# burst is queues born less than 200 ms apart, or less than 1 s for a
	# sibling (same parent) of the queue born before it, such as the
	# last worker a slow CPU forks late; the streamers are this shell's
	# children, and so is the reader started 400 ms after them.
	bursts0=$(stat large_bursts)
	start_streamers 10
	msleep 400
	dd if="/dev/$dev" of=/dev/null bs=256k count=10000 skip=140000 iflag=direct 2>/dev/null &
	late=$!
	msleep 100
	burst=$(stat burst_id)
	in=0 raised_in=0 outside=
	for p in $streamers; do
		if [ "$(queue_field "$p" 17)" = "$burst" ]; then
			in=$((in + 1))
			[ "$(queue_field "$p" 15)" = none ] || raised_in=$((raised_in + 1))
		else
			outside="$outside $p:$(queue_field "$p" 15)"
		fi
	done
	late_burst=$(queue_field "$late" 17) late_raised=$(queue_field "$late" 15)
	streamers="$streamers $late"
	stop_streamers
	[ -z "$outside" ] || note "readers born out of the burst (pid:raising):$outside"
	check "$dev: 10 readers born together are a large burst" \
		test "$(stat large_bursts)" -gt "$bursts0"
	check "$dev: all 10 of them were born in it ($in)" test "$in" = 10
	check "$dev: no reader of the large burst is raised ($raised_in raised)" test "$raised_in" = 0
	check "$dev: their sibling born 400 ms later joins it, unraised (burst $late_burst of $burst, $late_raised)" \
		test "$late_burst" = "$burst" -a "$late_raised" = none
	# The next readers, more of this shell's children, are a burst of
	# their own.
	msleep 1100

	# A new process while streamers keep the device busy.
	start_streamers 3
	if wait_unraised 60; then
		ok "$dev: 3 streamers lose their raising"
	else
		not_ok "$dev: 3 streamers lose their raising" "$(cat "$dbg/queues")" \
			"$(grep -E '^(raised|raising|wr_|peak|burst)' "$dbg/state")"
	fi
	inter0=$(stat raised_interactive)
	pre0=$(stat preemptions)
	dd if="/dev/$dev" of=/dev/null bs=16k count=256 skip=9000 iflag=direct 2>/dev/null &
	pid=$!
	seen=$(watch_queue "$pid")
	wait "$pid"
	note "new reader's queue showed (raised weight): $(echo $seen)"
	check "$dev: a process starting under load is raised" \
		test "$(stat raised_interactive)" -gt "$inter0"
	check "$dev: it takes the device from the streamers (preemption)" \
		test "$(stat preemptions)" -gt "$pre0"
	check "$dev: its queue showed interactive while it ran" \
		sh -c "echo '$seen' | grep -q '^interactive '"
	bad=
	for p in $streamers; do
		r=$(queue_field "$p" 15)
		[ "$r" = none ] || bad="$bad $p:${r:-gone}"
	done
	check "$dev: the streamers stay unraised${bad:+ ($bad)}" test -z "$bad"

	# Soft real-time: 256 KiB every 40 ms. Interactive raising is kept
	# short so that the soft-RT rule has the time to take over.
	echo 300 >"$ios/wr_max_time"
	rt0=$(stat raised_soft-rt)
	ho0=$(stat raising_handed_over)
	early0=$(stat raising_ended_early)
	ebfq-io softrt "/dev/$dev" 256 40 4 >/tmp/softrt.out &
	pid=$!
	kinds=$(watch_kinds "$pid")
	wait "$pid"
	early=$(($(stat raising_ended_early) - early0))
	note "soft-RT reader under 3 streamers: $(cat /tmp/softrt.out)"
	note "its queue showed: $kinds; raisings ended early on the device: $early"
	check "$dev: a periodic reader is raised as soft real-time" \
		test "$(stat raised_soft-rt)" -gt "$rt0"
	# 256 KiB every 40 ms is 12800 sectors/s, under wr_max_softrt_rate.
	# Its own queue, not the device's raising_ended_early: a streamer
	# that a CPU stall kept away for a moment can look periodic, be
	# raised, and lose it as soon as it streams again.
	check "$dev: it keeps its raising while its rate holds ($kinds)" \
		stays_softrt "$kinds"
	# Its interactive raising ran out while it read at less than
	# wr_max_softrt_rate (8 chunks, 4096 sectors, in 300 ms): it went on
	# as soft real-time at once, rather than wait for a streamer's turn
	# at its plain weight.
	check "$dev: its interactive raising was handed over to soft real-time" \
		test "$(stat raising_handed_over)" -gt "$ho0"
	check "$dev: it goes from interactive to soft real-time raising with no gap ($kinds)" \
		stays_raised "$kinds"
	echo 0 >"$ios/wr_max_time"

	# low_latency=0 ends raisings at once and raises nobody.
	dd if="/dev/$dev" of=/dev/null bs=16k count=100000 skip=20000 iflag=direct 2>/dev/null &
	pid=$!
	n=0
	while [ "$(queue_field "$pid" 15)" != interactive ] && [ "$n" -lt 50 ]; do
		msleep 50
		n=$((n + 1))
	done
	before=$(stat raised_queues)
	echo 0 >"$ios/low_latency"
	after=$(stat raised_queues)
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	check "$dev: low_latency=0 ends every raising ($before raised before, $after after)" \
		test "$before" -gt 0 -a "$after" = 0
	inter0=$(stat raised_interactive)
	pre0=$(stat preemptions)
	dd if="/dev/$dev" of=/dev/null bs=16k count=128 skip=30000 iflag=direct 2>/dev/null
	check "$dev: with low_latency=0 a new process is not raised" \
		test "$(stat raised_interactive)" = "$inter0" -a "$(stat preemptions)" = "$pre0"
	echo 1 >"$ios/low_latency"

	stop_streamers

	# Two processes starting at once are both raised, and neither takes
	# the device from the other: while the one in service thinks between
	# its chunks, the other's small reads go (injection) rather than
	# wait for the end of its turn.
	# On vexpress the emulated CPU takes ~11 ms to read one 16 KiB chunk
	# from null_blk (measured): the readers are late for every chunk, never
	# think, and the device never idles for one while the other waits.
	what="$dev: a raised reader's requests go while another raised one thinks"
	if [ "${EBFQ_BOARD:-}" = vexpress ]; then
		skip "$what" "vexpress's emulated CPU, not the device, paces the readers: they never think"
	else
		inj0=$(stat injected)
		ebfq-io softrt "/dev/$dev" 16 3 2 >/tmp/inject1.out &
		pid=$!
		ebfq-io softrt "/dev/$dev" 16 3 2 >/tmp/inject2.out
		wait "$pid" || true
		inj=$(($(stat injected) - inj0))
		note "two thinking readers: $(cat /tmp/inject1.out); $(cat /tmp/inject2.out)"
		check "$what ($inj injected)" test "$inj" -gt 0
	fi

	trouble=$(kernel_trouble)
	if [ -z "$trouble" ]; then
		ok "$dev: no warning while queues are raised and unraised"
	else
		not_ok "$dev: no warning while queues are raised and unraised" "$trouble"
	fi
	nullb_remove nullb_wr
}
