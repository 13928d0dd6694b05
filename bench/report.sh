#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Turn one benchmark boot's result.txt (rootfs-overlay/usr/lib/ebfq/bench)
# into, in the same directory:
#   results.json  every sample, with the boot's notes
#   stats.tsv     per workload, load, scheduler and metric: n, median, min, max
#   results.md    the tables and the ratios that matter
#   startup.png, throughput.png, softrt.png (gnuplot), when there is data
#
#   bench/report.sh DIR PROFILE
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"

[ $# -eq 2 ] || die "usage: $0 DIR PROFILE"
dir=$1 profile=$2
res=$dir/result.txt
[ -f "$res" ] || die "no $res"
grep -q '^S ' "$res" || die "$res holds no samples"

# -- results.json ---------------------------------------------------------
awk -v profile="$profile" '
function js(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
/^# bench: / { notes[++nn] = substr($0, 10) }
/^S / { line[++ns] = sprintf("{\"workload\": %s, \"load\": %s, \"scheduler\": %s, \"rep\": %d, \"metric\": %s, \"value\": %s}", js($2), js($3), js($4), $5, js($6), $7 + 0) }
END {
	printf "{\n  \"profile\": %s,\n  \"notes\": [", js(profile)
	for (i = 1; i <= nn; i++) printf "%s%s", (i > 1 ? ", " : ""), js(notes[i])
	printf "],\n  \"samples\": [\n"
	for (i = 1; i <= ns; i++) printf "    %s%s\n", line[i], (i < ns ? "," : "")
	printf "  ]\n}\n"
}' "$res" >"$dir/results.json"

# -- stats.tsv ------------------------------------------------------------
awk '
/^S / { k = $2 "\t" $3 "\t" $4 "\t" $6; v[k] = v[k] " " $7 }
END {
	for (k in v) {
		n = split(v[k], a, " ")
		for (i = 2; i <= n; i++) {	# insertion sort: mawk has no asort
			x = a[i] + 0
			for (j = i - 1; j >= 1 && a[j] + 0 > x; j--)
				a[j + 1] = a[j]
			a[j + 1] = x
		}
		med = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
		printf "%s\t%d\t%g\t%g\t%g\n", k, n, med, a[1], a[n]
	}
}' "$res" | sort >"$dir/stats.tsv"

# The schedulers measured, ebfq and its peers first; the loads in the
# order they first ran, idle first.
present=$(awk '/^S / { print $4 }' "$res" | sort -u)
scheds=$(for s in ebfq ebfq-ll0 bfq mq-deadline kyber none $present; do echo "$s"; done |
	awk -v p=" $(echo $present) " 'index(p, " " $1 " ") && !seen[$1]++' | tr '\n' ' ')
loads=$(awk '/^S startup / && !seen[$3]++ { print $3 }' "$res" |
	awk '{ a[NR] = $1 } END { for (i = 1; i <= NR; i++) if (a[i] == "idle") printf "idle "; for (i = 1; i <= NR; i++) if (a[i] != "idle") printf "%s ", a[i] }')

# stat WORKLOAD LOAD SCHED METRIC FIELD: one number of stats.tsv (FIELD:
# 5 n, 6 median, 7 min, 8 max), or empty.
stat() {
	awk -F'\t' -v w="$1" -v l="$2" -v s="$3" -v m="$4" -v f="$5" \
		'$1 == w && $2 == l && $3 == s && $4 == m { print $f }' "$dir/stats.tsv"
}

# num V: V to three significant figures or so, never in e-notation.
num() {
	awk -v v="$1" 'BEGIN {
		a = v < 0 ? -v : v
		if (a >= 100) printf "%.0f", v; else if (a >= 10) printf "%.1f", v; else printf "%.2f", v
	}'
}

cell() {
	local med lo hi
	med=$(stat "$@" 6)
	[ -n "$med" ] || { printf -- '-'; return; }
	med=$(num "$med") lo=$(num "$(stat "$@" 7)") hi=$(num "$(stat "$@" 8)")
	if [ "$lo" = "$hi" ]; then printf '%s' "$med"; else printf '%s [%s–%s]' "$med" "$lo" "$hi"; fi
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "-"; else printf "%.2f", a / b }'
}

header() {
	local s
	printf '| %s |' "$1"
	for s in $scheds; do printf ' %s |' "$s"; done
	printf '\n|---|'
	for s in $scheds; do printf -- '---|'; done
	printf '\n'
}

# share_table WORKLOAD TITLE ROW...: the shares of WORKLOAD's readers, one
# row each, their worst deviation and their total throughput.
share_table() {
	local wl=$1 title=$2 l s
	shift 2
	echo
	echo "## $title"
	echo
	header "share %"
	for l in "$@"; do
		printf '| %s |' "$l"
		for s in $scheds; do printf ' %s |' "$(cell "$wl" "$l" "$s" share_pct)"; done
		echo
	done
	printf '| worst deviation (points) |'
	for s in $scheds; do printf ' %s |' "$(cell "$wl" all "$s" worst_dev_pct)"; done
	printf '\n| total MB/s |'
	for s in $scheds; do printf ' %s |' "$(cell "$wl" all "$s" total_mbps)"; done
	echo
}

has() {
	grep -q "^$1	" "$dir/stats.tsv"
}

# has_load WORKLOAD LOAD METRIC: stats.tsv has that metric for that load.
has_load() {
	grep -q "^$1	$2	[^	]*	$3	" "$dir/stats.tsv"
}

# metric_rows WORKLOAD LOAD METRIC...: a table row per METRIC that the
# results have for LOAD (older results lack the newer metrics), a cell
# per scheduler.
metric_rows() {
	local wl=$1 l=$2 m s
	shift 2
	for m in "$@"; do
		has_load "$wl" "$l" "$m" || continue
		printf '| %s |' "$m"
		for s in $scheds; do printf ' %s |' "$(cell "$wl" "$l" "$s" "$m")"; done
		echo
	done
}

commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
# The soft real-time reader's chunk (the profile's SOFTRT_KIB); results
# from before the guest said it read 256 KiB.
softrt_kib=$(sed -n 's/^# bench: soft real-time: \([0-9]*\) KiB every 40 ms$/\1/p' "$res" | head -n 1)
softrt_kib=${softrt_kib:-256}
{
	echo "# ebfq benchmark: profile $profile"
	echo
	echo "$(date -u +%F), commit $commit. From \`${res#"$top"/}\`; every sample is in results.json."
	echo
	sed -n 's/^# bench: /- /p' "$res"
	echo
	echo "Cells: median [min–max] over the repetitions."
	if has startup; then
		for kind in replay real; do
			echo
			echo "## Start-up time, $kind (s)"
			echo
			header load
			for l in $loads; do
				printf '| %s |' "$l"
				for s in $scheds; do printf ' %s |' "$(cell startup "$l" "$s" "${kind}_s")"; done
				echo
			done
			echo
			echo "Ratios of the medians ($kind): loaded ÷ idle for each scheduler, and ebfq ÷ bfq, ebfq ÷ mq-deadline."
			echo
			printf '| load |'
			for s in $scheds; do printf ' %s ÷ idle |' "$s"; done
			printf ' ebfq ÷ bfq | ebfq ÷ mq-deadline |\n|---|'
			for s in $scheds; do printf -- '---|'; done
			printf -- '---|---|\n'
			for l in $loads; do
				[ "$l" != idle ] || continue
				printf '| %s |' "$l"
				for s in $scheds; do
					printf ' %s |' "$(ratio "$(stat startup "$l" "$s" "${kind}_s" 6)" "$(stat startup idle "$s" "${kind}_s" 6)")"
				done
				printf ' %s | %s |\n' \
					"$(ratio "$(stat startup "$l" ebfq "${kind}_s" 6)" "$(stat startup "$l" bfq "${kind}_s" 6)")" \
					"$(ratio "$(stat startup "$l" ebfq "${kind}_s" 6)" "$(stat startup "$l" mq-deadline "${kind}_s" 6)")"
			done
		done
		echo
		echo "## Throughput of the background loads (MB/s): alone / during the start-ups"
		echo
		header load
		for l in $loads; do
			[ "$l" != idle ] || continue
			printf '| %s |' "$l"
			for s in $scheds; do
				printf ' %s / %s (%s× none) |' "$(cell throughput "$l" "$s" alone_mbps)" \
					"$(cell throughput "$l" "$s" during_startup_mbps)" \
					"$(ratio "$(stat throughput "$l" "$s" alone_mbps 6)" "$(stat throughput "$l" none alone_mbps 6)")"
			done
			echo
		done
	fi
	if has fairness; then
		share_table fairness "Fairness: 3 readers at BE levels 0, 4, 7 (expected shares by weight 61.5 / 30.8 / 7.7 %)" be0 be4 be7
	fi
	if has cgroup; then
		share_table cgroup "Cgroups: 3 readers in cgroups of weights 100, 200, 400 (expected 14.3 / 28.6 / 57.1 %; only ebfq and bfq have cgroup weights)" w100 w200 w400
	fi
	if has softrt; then
		echo
		echo "## Soft real-time: $softrt_kib KiB every 40 ms under 2 buffered writers"
		echo
		header metric
		metric_rows softrt bufwrite2 late late_pct io_late chunks worst_late_ms io_median_ms \
			io_worst_ms wake_median_ms wake_worst_ms gap_worst_ms gap_total_ms device_mbps
		if has_load softrt idle late; then
			echo
			echo "The same reader alone, before the writers start: the misses that the device and the CPU cause with nothing to schedule against."
			echo
			header "alone"
			metric_rows softrt idle late late_pct io_late chunks io_median_ms io_worst_ms \
				wake_median_ms wake_worst_ms gap_worst_ms gap_total_ms
		fi
	fi
	if has cost; then
		echo
		echo "## CPU cost: null_blk, 4 psync jobs, 4 KiB random reads (IOPS)"
		echo
		header metric
		printf '| IOPS |'
		for s in $scheds; do printf ' %s |' "$(cell cost nullb "$s" iops)"; done
		printf '\n| ÷ mq-deadline |'
		for s in $scheds; do printf ' %s |' "$(ratio "$(stat cost nullb "$s" iops 6)" "$(stat cost nullb mq-deadline iops 6)")"; done
		echo
	fi
} >"$dir/results.md"

# -- plots ----------------------------------------------------------------
plots=()
if command -v gnuplot >/dev/null; then
	# One table per plot: a row per load (or metric), a column per scheduler.
	table() {
		local w=$1 m=$2 l s
		shift 2
		printf 'x'
		for s in $scheds; do printf ' %s' "$s"; done
		echo
		for l in "$@"; do
			printf '%s' "$l"
			for s in $scheds; do
				v=$(stat "$w" "$l" "$s" "$m" 6)
				printf ' %s' "${v:-NaN}"
			done
			echo
		done
	}
	n=$(echo $scheds | wc -w)
	plot() {
		local png=$1 title=$2 ylabel=$3 data=$4 extra=$5
		gnuplot <<GP
set terminal pngcairo size 1000,560 font ",11"
set output "$dir/$png"
set title "$title"
set ylabel "$ylabel"
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set key top left
set grid ytics
$extra
plot for [i=2:$((n + 1))] "$data" using i:xtic(1) title columnhead(i)
GP
		plots+=("$png")
	}
	if has startup; then
		# shellcheck disable=SC2086
		table startup replay_s $loads >"$dir/startup.dat"
		plot startup.png "Start-up (replayed), $profile: median seconds" "seconds (log)" \
			"$dir/startup.dat" "set logscale y"
		# shellcheck disable=SC2086
		table throughput alone_mbps ${loads#idle } >"$dir/throughput.dat"
		plot throughput.png "Background load alone, $profile: median MB/s" "MB/s" \
			"$dir/throughput.dat" "set yrange [0:*]"
	fi
	if has_load softrt idle late_pct; then
		table softrt late_pct idle bufwrite2 | sed -e 's/^idle /alone /' -e 's/^bufwrite2 /writers /' >"$dir/softrt.dat"
		plot softrt.png "Soft real-time, $profile: % of chunks late, alone and under 2 buffered writers" \
			"% of chunks late" "$dir/softrt.dat" "set yrange [0:*]"
	elif has softrt; then
		table softrt late bufwrite2 >"$dir/softrt.dat"
		plot softrt.png "Soft real-time, $profile: late chunks under 2 buffered writers" \
			"late chunks" "$dir/softrt.dat" "set yrange [0:*]"
	fi
fi
if [ ${#plots[@]} -gt 0 ]; then
	{
		echo
		echo "## Plots"
		echo
		for p in "${plots[@]}"; do echo "![${p%.png}]($p)"; done
	} >>"$dir/results.md"
fi
progress report "$profile: ${dir#"$top"/}/results.md, results.json${plots[*]:+, ${plots[*]}}"
