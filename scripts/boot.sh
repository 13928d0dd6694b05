#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
#   scripts/boot.sh BOARD PROFILE KERNEL INITRD shell
#
# Boot BOARD with fresh scratch disks shaped by PROFILE, with an
# interactive console. (The demo is the quick benchmark: scripts/bench.sh.)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"

[ $# -eq 5 ] || die "usage: $0 BOARD PROFILE KERNEL INITRD shell"
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
*) die "unknown mode '$mode' (shell)" ;;
esac
