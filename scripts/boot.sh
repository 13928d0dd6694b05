#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
#   scripts/boot.sh BOARD PROFILE KERNEL INITRD shell|demo
#
# Boot BOARD with fresh scratch disks shaped by PROFILE: 'shell' gives an
# interactive console; 'demo' runs the guest's demo and prints its table.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"

[ $# -eq 5 ] || die "usage: $0 BOARD PROFILE KERNEL INITRD shell|demo"
board=$1 profile=$2 kernel=$3 initrd=$4 mode=$5
[ -x "$top/board-scripts/$board" ] || die "unknown board '$board' (vexpress, virt)"
[ -f "$top/board-scripts/profiles/$profile.profile" ] ||
	die "unknown profile '$profile' (have: $(ls "$top/board-scripts/profiles" | sed 's/\.profile$//' | tr '\n' ' '))"
dir=$BUILD/logs/$mode-$board
mkdir -p "$dir"
board_disks "$board" "$dir"
args=(--kernel "$kernel" --initrd "$initrd" --profile "$profile" "${disk_args[@]}")
boot_args="ebfq_board=$board ebfq_devs=$devs ebfq_profile=$profile"
case $mode in
shell)
	progress boot "$board, profile $profile: interactive (Ctrl-A X quits)"
	exec "$top/board-scripts/$board" "${args[@]}" --interactive --append "ebfq_mode=shell $boot_args"
	;;
demo)
	progress demo "$board, profile $profile: every scheduler on every device, one boot"
	rc=0
	"$top/board-scripts/$board" "${args[@]}" --result "$dir/result.txt" --log "$dir/console.log" \
		--timeout 1200 --append "ebfq_mode=demo $boot_args" || rc=$?
	if ! grep -q '^# ebfq-guest: done' "$dir/result.txt"; then
		tail -n 30 "$dir/console.log"
		die "the demo did not finish (qemu exit $rc; console: $dir/console.log)"
	fi
	grep -v '^# ebfq-guest: done' "$dir/result.txt"
	progress demo "done; console log: ${dir#"$top"/}/console.log"
	;;
*) die "unknown mode '$mode' (shell, demo)" ;;
esac
