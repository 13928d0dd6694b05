#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host harness: boot each board with fresh scratch disks, run the in-guest
# suite, and judge the boot:
#   - TAP is read from the virtio-serial result file, not the console, and
#     only a run whose last line is "# ebfq-guest: done" counts as finished;
#   - a panic, an Oops, a BUG or a WARNING on the console fails the board,
#     as does a boot that hits the hard timeout;
#   - on a failure the last 30 console lines are shown.
# Ends with "N passed, N failed, N skipped"; exit status 1 on any failure.
#
#   tests/run-host.sh [BOARD...]      (default: vexpress virt)
# Environment: KERNEL, INITRD (images), TIMEOUT (s per boot, 1500),
# EBFQ_TESTS (a glob of guest tests), SERIAL=1 (one boot at a time).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"

kernel=${KERNEL:-$BUILD/kernel-test/arch/arm/boot/zImage}
initrd=${INITRD:-$BUILD/rootfs/initramfs.cpio}
timeout=${TIMEOUT:-1500}
boards=("$@")
[ ${#boards[@]} -gt 0 ] || boards=(vexpress virt)
for f in "$kernel" "$initrd"; do
	[ -f "$f" ] || die "missing $f: run 'make kernel rootfs'"
done

boot_board() {
	local b=$1 dir=$BUILD/logs/check-$1 rc=0
	rm -rf "$dir"
	mkdir -p "$dir"
	board_disks "$b" "$dir"
	local start=$(date +%s)
	"$top/board-scripts/$b" --kernel "$kernel" --initrd "$initrd" "${disk_args[@]}" \
		--result "$dir/result.tap" --log "$dir/console.log" --timeout "$timeout" \
		--append "ebfq_mode=check ebfq_board=$b ebfq_devs=$devs ${EBFQ_TESTS:+ebfq_tests=$EBFQ_TESTS}" ||
		rc=$?
	echo "$rc $(($(date +%s) - start))" >"$dir/status"
}

for b in "${boards[@]}"; do
	[ -x "$top/board-scripts/$b" ] || die "unknown board '$b' (vexpress, virt)"
done
pids=()
for b in "${boards[@]}"; do
	progress boot "$b: booting (console: build/logs/check-$b/console.log)"
	if [ "${SERIAL:-0}" = 1 ]; then
		boot_board "$b"
	else
		boot_board "$b" &
		pids+=($!)
	fi
done
for p in "${pids[@]}"; do wait "$p" || true; done

pass=0 fail=0 skipped=0
for b in "${boards[@]}"; do
	dir=$BUILD/logs/check-$b
	read -r rc secs <"$dir/status"
	progress boot "$b: qemu exited with $rc after ${secs}s"
	bad=0
	while IFS= read -r line; do
		case $line in
		"not ok "*)
			fail=$((fail + 1)) bad=1
			echo "$b: $line"
			;;
		"ok "*"# SKIP"*)
			skipped=$((skipped + 1))
			echo "$b: $line"
			;;
		"ok "*)
			pass=$((pass + 1))
			echo "$b: $line"
			;;
		"#   "* | "# exit status"* | "# want"* | "# have"*)
			echo "$b: $line"
			;;
		esac
	done <"$dir/result.tap"
	# A WARN is fatal by panic_on_warn, but look for every kind of splat.
	trouble=$(grep -E 'Kernel panic|Oops|BUG:|WARNING:|Unable to handle kernel|Internal error|blocked for more than|soft lockup' \
		"$dir/console.log" | head -n 5 || true)
	if [ "$rc" = 124 ]; then
		echo "not ok - $b: boot hit the hard timeout of ${timeout}s"
		fail=$((fail + 1)) bad=1
	elif ! tail -n 1 "$dir/result.tap" | grep -qx '# ebfq-guest: done'; then
		echo "not ok - $b: the guest never reported the end of the suite (hang, panic or crash)"
		fail=$((fail + 1)) bad=1
	fi
	if [ -n "$trouble" ]; then
		echo "not ok - $b: kernel trouble on the console:"
		printf '    %s\n' "$trouble"
		fail=$((fail + 1)) bad=1
	fi
	if [ "$bad" = 1 ]; then
		echo "--- last 30 console lines of $b ($dir/console.log):"
		tail -n 30 "$dir/console.log" | sed 's/^/    /'
	fi
done
echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
