#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A smoke test of the benchmark harness, not a benchmark: one boot of
# scripts/bench.sh --smoke (two short workloads, unthrottled device), then
# the outputs are checked for form only: results.json parses and holds
# well-formed samples, every scheduler the guest offered has its rows in
# stats.tsv and results.md, ebfq among them. No figure is judged. Also:
# bad arguments are refused with a message. Prints TAP lines.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/lib.sh"

out=$BUILD/bench/smoke-emmc
# refused CMD... : CMD fails and says why.
refused() {
	local name=$1 msg
	shift
	if msg=$("$@" 2>&1); then
		echo "not ok - bench: $name was accepted"
	elif [ -z "$msg" ]; then
		echo "not ok - bench: $name failed without a message"
	else
		echo "ok - bench: $name refused ($(echo "$msg" | tail -n 1))"
	fi
}
refused "an unknown profile" "$top/scripts/bench.sh" no-such-profile
refused "a profile that shapes no drive" "$top/scripts/bench.sh" none
refused "--reps x" "$top/scripts/bench.sh" --reps x emmc
refused "--trace without the softrt workload" "$top/scripts/bench.sh" --trace --workloads cost emmc
refused "--profile without a workload it profiles" "$top/scripts/bench.sh" --profile --workloads fairness emmc
refused "--trace with --smoke" "$top/scripts/bench.sh" --trace --smoke emmc

if ! "$top/scripts/bench.sh" --smoke emmc >"$BUILD/logs/bench-smoke.log" 2>&1; then
	echo "not ok - bench: the smoke run did not finish (build/logs/bench-smoke.log)"
	tail -n 10 "$BUILD/logs/bench-smoke.log" | sed 's/^/#   /'
	exit 0
fi
echo "ok - bench: the smoke run finished"

command -v jq >/dev/null || { echo "ok - bench: results.json # SKIP needs jq (make deps)"; exit 0; }
if jq -e '.profile == "emmc" and (.samples | length > 0) and
	all(.samples[]; (.workload | type == "string") and (.load | type == "string") and
	    (.scheduler | type == "string") and (.rep | type == "number") and
	    (.metric | type == "string") and (.value | type == "number"))' \
	"$out/results.json" >/dev/null; then
	echo "ok - bench: results.json parses, $(jq '.samples | length' "$out/results.json") well-formed samples"
else
	echo "not ok - bench: results.json is malformed ($out/results.json)"
fi

scheds=$(sed -n 's/^# bench: schedulers \([^;]*\);.*/\1/p' "$out/result.txt")
case " $scheds " in
*" ebfq "*) echo "ok - bench: ebfq is among the schedulers measured ($scheds)" ;;
*) echo "not ok - bench: ebfq is missing from the schedulers measured ('$scheds')" ;;
esac
for s in $scheds; do
	miss=
	for k in "fairness	all	$s	worst_dev_pct" "cost	nullb	$s	iops"; do
		grep -q "^$k	1	" "$out/stats.tsv" || miss="$miss ${k%%	*}"
	done
	if [ -z "$miss" ]; then
		echo "ok - bench: $s has its fairness and cost rows"
	else
		echo "not ok - bench: $s has no row for:$miss"
	fi
done
# Every table row of results.md has one cell per scheduler, none empty.
n=$(echo $scheds | wc -w)
bad=$(awk -F'|' -v n="$n" '/^\| / && !/^\|---/ { if (NF - 2 < n + 1) print; for (i = 3; i < NF; i++) if ($i ~ /^ *- *$/) print }' "$out/results.md")
if [ -z "$bad" ]; then
	echo "ok - bench: results.md tables are complete"
else
	echo "not ok - bench: results.md has short or empty rows:"
	echo "$bad" | head -n 5 | sed 's/^/#   /'
fi
