#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Where each scheduler's CPU time goes in the CPU cost workload: the
# kernel's tick profile of the cost runs (scripts/bench.sh --profile),
# which the guest left in DIR/result.txt as "K SCHED REP BUCKET COUNT"
# lines, resolved against the kernel's System.map into DIR/profile.md:
# the functions with the most ticks, in microseconds per I/O (a
# function's share of the scheduler's ticks times 1 / its mean IOPS).
#
#   bench/profile.sh DIR SYSTEM_MAP [ROWS]
#
# Under QEMU's TCG, as on hardware without NMIs, a tick that comes while
# interrupts are off is taken where they come back on: time spent under
# spin_lock_irq() shows in the function that unlocks.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"

{ [ $# -ge 2 ] && [ $# -le 3 ]; } || die "usage: $0 DIR SYSTEM_MAP [ROWS]"
dir=$1 map=$2 rows=${3:-30}
res=$dir/result.txt
case $rows in '' | *[!0-9]* | 0) die "ROWS wants a whole number, got '$rows'" ;; esac
[ -f "$res" ] || die "no $res"
[ -f "$map" ] || die "no System.map '$map'"
bucket=$(sed -n 's/^# bench: tick profile, buckets of \([0-9]*\) bytes$/\1/p' "$res")
{ [ -n "$bucket" ] && grep -q '^K ' "$res"; } ||
	die "$res holds no tick profile (scripts/bench.sh --profile)"
stext=$(awk '$3 == "_stext" { print $1 }' "$map")
[ -n "$stext" ] || die "$map has no _stext: not a kernel's System.map"

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# Text symbols and ticks on one address line, in decimal (mawk reads no
# hex): a sweep in address order gives each bucket its function.
while read -r addr type name _; do
	case $type in [tTwW]) printf '%d S %s\n' "0x$addr" "$name" ;; esac
done <"$map" >"$tmp"
awk -v base=$((16#$stext)) -v bucket="$bucket" \
	'/^K / { printf "%.0f K %s %d\n", base + $4 * bucket, $2, $5 }' "$res" >>"$tmp"

{
	echo "# Where the CPU goes: the cost workload under the tick profiler"
	echo
	sed -n 's/^# bench: /- /p' "$res"
	echo "- $(date -u +%F), commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo
	echo "Microseconds per I/O, by function (a tick taken with interrupts off"
	echo "counts where they come back on):"
	echo
	sort -k1,1n -k2,2r "$tmp" | awk -v rows="$rows" -v res="$res" '
	BEGIN {
		while ((getline line < res) > 0) {
			split(line, f, " ")
			if (f[1] == "S" && f[2] == "cost" && f[6] == "iops") {
				iops[f[4]] += f[7]
				runs[f[4]]++
			}
		}
	}
	$2 == "S" { fn = $3; next }
	{
		if (!($3 in total))
			order[++no] = $3
		t[$3, fn] += $4
		total[$3] += $4
		seen[fn] = 1
	}
	END {
		ns = 0
		for (j = 1; j <= no; j++) {
			s = order[j]
			if (!runs[s] || !iops[s])
				continue
			names[++ns] = s
			us[s] = 1e6 * runs[s] / iops[s] / total[s]
		}
		if (!ns) {
			print "(no cost samples to scale the ticks by)"
			exit
		}
		hdr = "| function |"
		sep = "| --- |"
		for (i = 1; i <= ns; i++) {
			hdr = hdr " " names[i] " |"
			sep = sep " --- |"
		}
		print hdr
		print sep
		row = "| every function (µs per I/O) |"
		for (i = 1; i <= ns; i++)
			row = row sprintf(" %.1f |", total[names[i]] * us[names[i]])
		print row
		fflush()
		cmd = "sort -t \"\t\" -k1,1gr | head -n " rows " | cut -f2-"
		for (fun in seen) {
			max = 0
			row = "| " fun " |"
			for (i = 1; i <= ns; i++) {
				v = t[names[i], fun] * us[names[i]]
				if (v > max)
					max = v
				row = row sprintf(" %.2f |", v)
			}
			printf "%f\t%s\n", max, row | cmd
		}
		close(cmd)
	}'
} >"$dir/profile.md"
progress profile "${dir#"$top"/}/profile.md"
