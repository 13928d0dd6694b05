# SPDX-License-Identifier: GPL-2.0
# Hierarchical scheduling on a device shaped like the product's: the
# virt-emmc boot throttles vda to the emmc profile (25 MB/s and 2000 IOPS
# shared by reads and writes, a 32-deep queue; board-scripts/profiles/
# emmc.profile), with ebfq's default tunables:
#  - three groups of weights 100:200:400, a sequential reader in each:
#    shares within +-10 % of 1:2:4;
#  - two readers in one group, one in another, equal weights: the groups
#    split 50:50 (+-10 %).
# As in 012 the shares are B-WF2Q+'s, measured with low_latency=0 in a
# window where all readers run (group_shares). The readers stay inside the
# 64 MiB scratch disk: the host's page cache is bypassed (cache=none) and
# fio reads with O_DIRECT, so rereading costs what reading does.

requires() {
	[ -n "$(ebfq_cmdline ebfq_profile)" ] ||
		{ echo "runs in a boot with a device profile (tests/run-host.sh virt-emmc)"; return 1; }
	command -v fio >/dev/null || { echo "needs fio"; return 1; }
	kernel_schedulers | grep -qx ebfq || { echo "kernel without ebfq"; return 1; }
	cgroup_needs
}

cg=$cgroup_root

run() {
	profile=$(ebfq_cmdline ebfq_profile)
	dev=$(ebfq_cmdline ebfq_profile_dev)
	[ -b "/dev/$dev" ] || { not_ok "profile device found" "no /dev/${dev:-(ebfq_profile_dev unset)}"; return 0; }
	secs=${EBFQ_FAIR_SECS:-20}
	kb=$(ebfq_cmdline ebfq_max_kb)
	[ -z "$kb" ] || echo "$kb" >"/sys/block/$dev/queue/max_sectors_kb"
	rot=$(ebfq_cmdline ebfq_rotational)
	[ -z "$rot" ] || echo "$rot" >"/sys/block/$dev/queue/rotational"
	set_sched "$dev" ebfq
	echo 0 >"/sys/block/$dev/queue/iosched/low_latency"
	note "profile $profile on $dev: max_sectors_kb $(cat "/sys/block/$dev/queue/max_sectors_kb"), rotational $(cat "/sys/block/$dev/queue/rotational")"
	# 20 MiB each (three fit on the 64 MiB disk), reread as needed.
	common="--filename=/dev/$dev --direct=1 --ioengine=psync --rw=read --bs=64k
		--size=20M"
	dmesg_clear

	group_make ebfq-a 100
	group_make ebfq-b 200
	group_make ebfq-c 400
	# shellcheck disable=SC2086
	if measure_shares "$profile: readers in groups made progress" \
		"$dev" "$secs" $common -- \
		ebfq-a:offset=0 ebfq-b:offset=21M ebfq-c:offset=42M; then
		note "$profile: groups 100:200:400 read $shares KiB in ${secs}s"
		note "turns ended by: $(turn_ends "$dev")"
		# shellcheck disable=SC2086
		set -- $shares
		total=$(($1 + $2 + $3))
		share_check "$profile: group of weight 100" "$1" "$total" 1 7 10
		share_check "$profile: group of weight 200" "$2" "$total" 2 7 10
		share_check "$profile: group of weight 400" "$3" "$total" 4 7 10
	fi

	echo 100 >"$cg/ebfq-b/io.ebfq.weight"
	echo 100 >"$cg/ebfq-c/io.ebfq.weight"
	# shellcheck disable=SC2086
	if measure_shares "$profile: readers made progress" \
		"$dev" "$secs" $common -- \
		ebfq-b:offset=0 ebfq-b:offset=21M ebfq-c:offset=42M; then
		note "$profile: two readers in one group, one in another, equal weights: $shares KiB in ${secs}s"
		# shellcheck disable=SC2086
		set -- $shares
		total=$(($1 + $2))
		share_check "$profile: group of two readers" "$1" "$total" 1 2 10
		share_check "$profile: group of one reader" "$2" "$total" 1 2 10
	fi

	rmdir "$cg/ebfq-a" "$cg/ebfq-b" "$cg/ebfq-c"
	echo 1 >"/sys/block/$dev/queue/iosched/low_latency"
	trouble=$(kernel_trouble)
	check "no kernel warning (${trouble:-none})" test -z "$trouble"
}
