#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Where each scheduler's CPU time goes: the kernel's tick profile of the
# CPU cost runs, of the start-ups under each load (startup-LOAD) and of
# the soft real-time runs under the writers (scripts/bench.sh
# --profile), which the guest left in DIR/result.txt as
# "K WORKLOAD SCHED REP BUCKET COUNT" lines, resolved against the kernel's
# System.map into DIR/profile.md, a table per workload of the functions
# with the most ticks:
#  - cost: microseconds per I/O (a function's share of the scheduler's
#    ticks times 1 / its mean IOPS);
#  - the others: per cent of the scheduler's ticks, over its runs. The tick
#    stops while the CPU idles (NO_HZ_IDLE), and under TCG a vCPU held
#    in a device's emulation takes one tick however long it is held: the
#    ticks are samples of where the CPU was, not a measure of time.
# The profiler counts the ticks that find the CPU in the kernel only: a
# process's own computing, in user mode, is not in these tables.
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
	'/^K / { printf "%.0f K %s %s %s %d\n", base + $5 * bucket, $2, $3, $4, $6 }' "$res" >>"$tmp"

{
	echo "# Where the CPU goes, under the tick profiler"
	echo
	sed -n 's/^# bench: /- /p' "$res"
	echo "- $(date -u +%F), commit $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo
	echo "A tick taken with interrupts off counts where they come back on."
	# Lines in address order: "ADDR S SYMBOL" starts a function, and
	# "ADDR K WORKLOAD SCHED REP TICKS" are its buckets' ticks.
	sort -k1,1n -k2,2r "$tmp" | awk -v rows="$rows" -v res="$res" '
	BEGIN {
		while ((getline line < res) > 0) {
			split(line, f, " ")
			if (f[1] == "S" && f[2] == "cost" && f[6] == "iops") {
				iops[f[4]] += f[7]
				ios[f[4]]++
			}
			# Workloads and schedulers in the order the guest ran
			# them, and how many runs of each.
			if (f[1] != "K" || (f[2], f[3], f[4]) in run)
				continue
			run[f[2], f[3], f[4]] = 1
			if (!runs[f[2], f[3]]++) {
				if (!(f[2] in nw))
					works[++nworks] = f[2]
				order[f[2], ++nw[f[2]]] = f[3]
			}
		}
		title["cost"] = "## CPU cost: microseconds per I/O, by function"
		title["softrt"] = "## Soft real-time under the writers: per cent of the ticks, by function"
	}
	$2 == "S" { fn = $3; next }
	{
		w = $3; s = $4
		t[w, s, fn] += $6
		total[w, s] += $6
		seen[w, fn] = 1
		fns[fn] = 1
	}
	# scale[w, s]: what one tick of workload w under scheduler s is worth.
	function table(w,    i, j, s, ns, names, hdr, sep, row, fun, v, max, cmd) {
		print ""
		if (w in title)
			print title[w]
		else if (w ~ /^startup-/)
			print "## Start-ups under " substr(w, 9) ": per cent of the ticks, by function"
		else
			print "## " w ": per cent of the ticks, by function"
		print ""
		ns = 0
		for (j = 1; j <= nw[w]; j++) {
			s = order[w, j]
			if (w == "cost") {
				if (!ios[s] || !iops[s])
					continue
				scale[w, s] = 1e6 * ios[s] / iops[s] / total[w, s]
			} else {
				scale[w, s] = 100 / total[w, s]
			}
			names[++ns] = s
		}
		if (!ns) {
			print "(no samples to scale the ticks by)"
			return
		}
		hdr = "| function |"
		sep = "| --- |"
		for (i = 1; i <= ns; i++) {
			hdr = hdr " " names[i] " |"
			sep = sep " --- |"
		}
		print hdr
		print sep
		row = "| every function" (w == "cost" ? " |" : ", ticks per run |")
		for (i = 1; i <= ns; i++) {
			s = names[i]
			v = w == "cost" ? total[w, s] * scale[w, s] : total[w, s] / runs[w, s]
			row = row sprintf(" %.1f |", v)
		}
		print row
		fflush()
		cmd = "sort -t \"\t\" -k1,1gr | head -n " rows " | cut -f2-"
		for (fun in fns) {
			if (!((w, fun) in seen))
				continue
			max = 0
			row = "| " fun " |"
			for (i = 1; i <= ns; i++) {
				v = t[w, names[i], fun] * scale[w, names[i]]
				if (v > max)
					max = v
				row = row sprintf(" %.2f |", v)
			}
			printf "%f\t%s\n", max, row | cmd
		}
		close(cmd)
	}
	END {
		for (i = 1; i <= nworks; i++)
			table(works[i])
	}'
} >"$dir/profile.md"
progress profile "${dir#"$top"/}/profile.md"
