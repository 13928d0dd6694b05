#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark: one boot per device profile, every workload under every
# scheduler in that boot (rootfs-overlay/usr/lib/ebfq/bench), then the
# tables and plots (bench/report.sh) in build/bench/PROFILE/.
#
#   scripts/bench.sh [--quick] [--smoke] [--record] [--reps N]
#                    [--workloads LIST] [--scheds LIST] [--loads LIST]
#                    [--out DIR] [--debug] [--trace] [--smp N] [--profile]
#                    PROFILE...
#
# The kernel is the module flavour (no lockdep, which would weigh on the
# CPU cost and on every latency) with ebfq.ko loaded, so that ebfq, bfq,
# mq-deadline, kyber and none all run in the same kernel and boot.
#   --quick   1 repetition, 2 background loads, shorter runs (< 10 min)
#   --smoke   the harness's own test: one tiny workload, unthrottled
#   --record  record bench/traces/APP-startup.trace instead (APP is the
#             profile's BENCH_APP; rootfs-overlay/usr/lib/ebfq/bench-record)
#   --reps N  repetitions (3)
#   --workloads LIST  a comma-separated subset of startup, fairness,
#             cgroup, softrt, cost (e.g. --workloads cost --reps 10: the CPU cost
#             alone, with 10 samples per scheduler)
#   --scheds LIST  a comma-separated subset of the schedulers (a quicker
#             look at two of them while working on one; the tables then
#             have only those columns)
#   --loads LIST  a comma-separated subset of the background loads of the
#             start-up workload (seqread10, randread10, rw5x5, bufwrite2,
#             treecopy)
#   --out DIR  results in DIR/PROFILE rather than build/bench/PROFILE
#   --debug   the scheduler's debugfs state once a second during the
#             start-ups under load, the fairness, cgroup, soft-RT and CPU
#             cost runs, as '# D' lines in result.txt
#   --trace   the block tracepoints while the soft-RT reader runs under
#             the writers: bench/trace-report.sh writes trace.md, where
#             each of its slow reads waited (scheduler or device) and
#             behind what; tracing costs CPU, so such a run is evidence
#             rather than figures for the tables
#   --smp N   N vCPUs in the guest (1): whether a start-up waits for the
#             device or for the one vCPU the loads also want (the results
#             record the guest's CPU count)
#   --profile where the CPU goes in the cost workload (the only one run
#             unless --workloads says more), in the start-ups under load
#             and in the soft real-time runs under the writers: the prof
#             kernel (make kernel FLAVOUR=prof: ebfq built in, 1000 Hz
#             tick) booted with profile=2; bench/profile.sh writes
#             profile.md beside the tables
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"

quick=0 smoke=0 record=0 debug=0 btrace=0 kprof=0 smp=1 reps=3 workloads='' scheds='' loads='' outdir=$BUILD/bench
profiles=()
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--smoke) smoke=1 ;;
	--record) record=1 ;;
	--debug) debug=1 ;;
	--trace) btrace=1 ;;
	--profile) kprof=1 ;;
	--reps)
		reps=${2:-}
		case $reps in '' | *[!0-9]* | 0) die "--reps wants a whole number, got '$reps'" ;; esac
		shift
		;;
	--smp)
		smp=${2:-}
		case $smp in '' | *[!0-9]* | 0*) die "--smp wants a number of vCPUs, got '$smp'" ;; esac
		shift
		;;
	--workloads)
		workloads=${2:-}
		case ,$workloads, in
		,, | *,,*) die "--workloads wants a list of startup, fairness, cgroup, softrt, cost" ;;
		esac
		for w in ${workloads//,/ }; do
			case $w in startup | fairness | cgroup | softrt | cost) ;; *)
				die "unknown workload '$w' (startup, fairness, cgroup, softrt, cost)" ;;
			esac
		done
		shift
		;;
	--scheds)
		scheds=${2:-}
		case ,$scheds, in
		,, | *,,* | *[!a-z0-9,-]*) die "--scheds wants a comma-separated list of scheduler names, got '$scheds'" ;;
		esac
		shift
		;;
	--loads)
		loads=${2:-}
		case ,$loads, in
		,, | *,,* | *[!a-z0-9,]*) die "--loads wants a comma-separated list of loads, got '$loads'" ;;
		esac
		shift
		;;
	--out)
		outdir=${2:-}
		[ -n "$outdir" ] || die "--out wants a directory"
		mkdir -p "$outdir" || die "cannot make '$outdir'"
		outdir=$(cd "$outdir" && pwd)
		shift
		;;
	-*) die "unknown option '$1' (--quick, --smoke, --record, --reps N, --workloads LIST, --scheds LIST, --loads LIST, --out DIR, --debug, --trace, --smp N, --profile)" ;;
	*) profiles+=("$1") ;;
	esac
	shift
done
[ ${#profiles[@]} -gt 0 ] || die "usage: $0 [--quick] [--smoke] [--record] [--debug] [--reps N] [--workloads LIST] [--scheds LIST] [--loads LIST] [--out DIR] [--trace] [--smp N] [--profile] PROFILE..."

kernel=$BUILD/kernel-module/arch/arm/boot/zImage
module_cpio=$BUILD/module/ebfq-module.cpio
initramfs=$BUILD/rootfs/initramfs.cpio
make_what="make kernel rootfs module"
if [ "$kprof" = 1 ]; then
	[ "$quick$smoke$record" = 000 ] || die "--profile goes with none of --quick, --smoke, --record"
	workloads=${workloads:-cost}
	case ,$workloads, in *,cost,* | *,startup,* | *,softrt,*) ;; *) die "--profile profiles the cost, startup and softrt workloads: --workloads must include one" ;; esac
	kernel=$BUILD/kernel-prof/arch/arm/boot/zImage
	# ebfq is built in: no module to load.
	module_cpio=/dev/null
	make_what="make kernel FLAVOUR=prof rootfs"
fi
if [ "$btrace" = 1 ]; then
	[ "$smoke$record$kprof" = 000 ] || die "--trace goes with none of --smoke, --record, --profile"
	case ,${workloads:-softrt}, in *,softrt,*) ;; *) die "--trace traces the softrt workload: --workloads must include softrt" ;; esac
fi
for f in "$kernel" "$module_cpio" "$initramfs"; do
	[ -e "$f" ] || die "missing ${f#"$top"/}: run '$make_what'"
done

# watch RESULT PID: print the guest's progress lines until qemu exits.
watch_progress() {
	local result=$1 pid=$2 seen=0 line n total secs what eta
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5
		while IFS= read -r line; do
			# shellcheck disable=SC2086
			set -- $line
			n=$2 total=$3 secs=$4
			shift 4
			what=$*
			eta=$(((total - n) * secs / n))
			progress bench "$profile: [$n/$total] $what (guest ${secs}s, ETA $((eta / 60))m$((eta % 60))s)"
		done < <(awk -v s="$seen" '/^P / && ++n > s' "$result")
		seen=$(awk '/^P /' "$result" | wc -l)
	done
	wait "$pid"
}

for profile in "${profiles[@]}"; do
	profile_vars "$profile"
	out=$outdir/$profile
	[ "$smoke" = 0 ] || out=$outdir/smoke-$profile
	mkdir -p "$out"
	disk=$BUILD/bench/disk-$BENCH_FILE_MB-${BENCH_TREE//\//_}.ext4
	"$top/scripts/bench-disk.sh" "$BENCH_FILE_MB" "$BENCH_TREE" "$disk"
	cp --sparse=always "$disk" "$out/disk.img"
	cat "$initramfs" "$module_cpio" >"$out/initrd.cpio"

	append="ebfq_board=$board ebfq_profile=$profile ebfq_bench_dev=$dev ebfq_bench_app=$BENCH_APP${scheds:+ ebfq_bench_scheds=$scheds}${loads:+ ebfq_bench_loads=$loads}${MAX_REQUEST_KB:+ ebfq_bench_max_kb=$MAX_REQUEST_KB}${ROTATIONAL:+ ebfq_bench_rotational=$ROTATIONAL} ebfq_bench_softrt_kib=$SOFTRT_KIB"
	[ "$debug" = 0 ] || append+=" ebfq_bench_debug=1"
	[ "$btrace" = 0 ] || append+=" ebfq_bench_trace=1"
	[ "$kprof" = 0 ] || append="profile=2 $append ebfq_bench_profile=1"
	qprofile=$profile
	if [ "$record" = 1 ]; then
		append="ebfq_mode=record $append"
		timeout=600
	elif [ "$smoke" = 1 ]; then
		# Unthrottled, one repetition of the shortest runs, two workloads.
		append="ebfq_mode=bench $append ebfq_bench_quick=1 ebfq_bench_workloads=fairness,cost"
		qprofile=none timeout=600
	elif [ "$quick" = 1 ]; then
		append="ebfq_mode=bench $append ebfq_bench_quick=1${workloads:+ ebfq_bench_workloads=$workloads}"
		timeout=1800
	else
		append="ebfq_mode=bench $append ebfq_bench_reps=$reps${workloads:+ ebfq_bench_workloads=$workloads}"
		timeout=$((4 * 3600 * reps / 3))
	fi
	progress bench "$profile: booting $board ($PROFILE_DESC), device $dev; log ${out#"$top"/}/console.log"
	"$top/board-scripts/$board" --kernel "$kernel" --initrd "$out/initrd.cpio" \
		--profile "$qprofile" --smp "$smp" --disk "$drive=$out/disk.img" --result "$out/result.txt" \
		--log "$out/console.log" --timeout "$timeout" --stall 900 --append "$append" &
	rc=0
	watch_progress "$out/result.txt" $! || rc=$?
	rm -f "$out/disk.img" "$out/initrd.cpio"
	if grep -q '^# bench.*: error' "$out/result.txt" || ! tail -n 1 "$out/result.txt" | grep -qx '# ebfq-guest: done'; then
		grep '^# bench.*: error' "$out/result.txt" >&2 || true
		tail -n 20 "$out/console.log" >&2
		[ ! -e "$out/console.log.stall" ] || head -n 20 "$out/console.log.stall" >&2
		die "$profile: the benchmark did not finish (qemu exit $rc; ${out#"$top"/}/console.log)"
	fi
	if [ "$record" = 1 ]; then
		t=$top/bench/traces/$BENCH_APP-startup.trace
		case $BENCH_APP in
		fio) what="'fio --version' (fio and its 45 shared libraries, from Debian's armhf packages)" ;;
		*) what="'$BENCH_APP' (from Debian's armhf packages)" ;;
		esac
		{
			echo "# The reads of a cold start of $what"
			echo "# on the bench disk of scripts/bench-disk.sh, idle device, profile"
			echo "# $profile, as the block:block_rq_issue tracepoint saw them;"
			echo "# \"SECTOR SECTORS\" per read."
			echo "# Made by: scripts/bench.sh --record $profile ($(date -u +%F))"
			grep '^# bench-record:' "$out/result.txt"
			sed -n '/^== trace$/,/^== end$/p' "$out/result.txt" | sed '1d;$d'
		} >"$t"
		progress bench "$profile: recorded $(grep -vc '^#' "$t") reads into ${t#"$top"/}"
		continue
	fi
	"$top/bench/report.sh" "$out" "$profile"
	[ "$btrace" = 0 ] || "$top/bench/trace-report.sh" "$out"
	[ "$kprof" = 0 ] || "$top/bench/profile.sh" "$out" "$BUILD/kernel-prof/System.map"
done
