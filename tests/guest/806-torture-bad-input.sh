# SPDX-License-Identifier: GPL-2.0
# Bad input while I/O runs: every ebfq tunable fed random bytes, signs,
# overflows, huge numbers, blanks and trailing junk must refuse each with
# EINVAL and keep its value; ioprio_set with classes that do not exist
# must fail; scheduler names with junk must be refused. 009
# covers the ranges; this test is about what a fuzzer would write, under
# load, on the debug kernel.

requires() {
	torture_needs || return 1
}

# write_err FILE VALUE: sets err to the error of writing VALUE to FILE
# (cat says which), empty if the write was taken.
write_err() {
	err=
	printf '%s' "$2" >/tmp/bad-input.val
	if ! cat /tmp/bad-input.val 2>/tmp/bad-input.err >"$1"; then
		read -r err </tmp/bad-input.err || true
		err=${err:-failed}
	fi
}

run() {
	scale=$(ebfq_scale)
	start=$(date +%s)
	dev=$(nullb_create nullb_fuzz irqmode=2 completion_nsec=50000 submit_queues=1 size=64)
	set_sched "$dev" ebfq
	dir=/sys/block/$dev/queue/iosched
	dmesg_clear
	fio --minimal --eta=never --name=fuzz --filename="/dev/$dev" --direct=1 --ioengine=libaio \
		--iodepth=4 --rw=randrw --bs=4k --size=16M --time_based --runtime=3600 \
		>/tmp/fio-fuzz.log 2>&1 &
	pid=$!
	writes=0
	# Beyond scale 1, more kinds of junk.
	more=
	[ "$scale" -eq 1 ] || more="-0x1 +-5 1.5 1e3 0x 18446744073709551616 99999999999999999999999999 1_2"
	: >/tmp/bad-input.log
	round=0
	while [ "$round" -lt "$scale" ]; do
		round=$((round + 1))
		for f in "$dir"/*; do
			read -r before <"$f"
			# shellcheck disable=SC2086
			for v in abc -1 1x 4294967296 ' ' "$(head -c 12 /dev/urandom | tr -d '\n')" \
				"$(head -c 3000 /dev/zero | tr '\0' 7)" $more; do
				write_err "$f" "$v"
				writes=$((writes + 1))
				shown=$(printf '%.24s' "$v")
				case $err in
				*"Invalid argument"*) ;;
				'') echo "${f##*/}: '$shown' accepted" ;;
				*) echo "${f##*/}: '$shown' refused with '$err', not EINVAL" ;;
				esac
				read -r now <"$f"
				[ "$now" = "$before" ] || echo "${f##*/}: '$shown' changed it to $now"
			done
		done >>/tmp/bad-input.log
		torture_progress "bad input" "$writes" "$start"
	done
	kill "$pid" 2>/dev/null || true
	wait "$pid" || true
	fio_parse /tmp/fio-fuzz.log
	torture_report "bad input" "$writes" "$((fio_kib / 4))" "$start"
	if [ -s /tmp/bad-input.log ]; then
		not_ok "$dev: $writes bad tunable writes under I/O refused with EINVAL, nothing changed" \
			"$(head -n 20 /tmp/bad-input.log)"
	else
		ok "$dev: $writes bad tunable writes under I/O refused with EINVAL, nothing changed"
	fi

	# Classes 4-7 do not exist. (Levels are not refused: 6.1 keeps only
	# the low three bits of a level, the bits above carry I/O hints.)
	bad=
	for c in 4 5 7; do
		! ionice -c "$c" -n 0 -p $$ 2>/dev/null || bad="$bad class-$c"
	done
	check "ioprio_set refuses classes that do not exist (${bad:-all refused})" test -z "$bad"

	orig=$(current_sched "$dev")
	bad=
	# The kernel strips blanks around a name: "ebfq " is ebfq.
	for s in "ebfq;" "ebfqx" " ebfqq" "e bfq" "$(head -c 40 /dev/urandom | tr -d '\n\0 ')"; do
		(printf '%s' "$s" >"/sys/block/$dev/queue/scheduler") 2>/dev/null && bad="$bad '$s'"
		[ "$(current_sched "$dev")" = "$orig" ] || bad="$bad changed-by-'$s'"
	done
	check "scheduler names with junk are refused, the scheduler stays [$orig]" test -z "$bad"
	no_trouble "$dev: no kernel warning from bad input"
	nullb_remove nullb_fuzz
}
