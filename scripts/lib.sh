# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Helpers shared by the host-side scripts (sourced, bash).

# No script may stop without saying where: with set -e, a failing command
# inside a substitution would otherwise end it silently.
set -E
trap 'printf "error: %s:%s: \"%s\" failed\n" "${BASH_SOURCE[0]##*/}" "$LINENO" "$BASH_COMMAND" >&2' ERR

top=${top:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILD=${BUILD:-$top/build}
# Elapsed time is counted from the start of the make goal when the Makefile
# exports EBFQ_T0, else from the start of this script.
EBFQ_T0=${EBFQ_T0:-$(date +%s)}
export EBFQ_T0

elapsed() {
	local s=$(($(date +%s) - EBFQ_T0))
	printf '%d:%02d' $((s / 60)) $((s % 60))
}

# progress STEP MESSAGE...: one line per step, with the elapsed time.
progress() {
	local step=$1
	shift
	printf '==> [%6s] %-8s %s\n' "$(elapsed)" "$step" "$*"
}

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# Hash of the content of every file named (directories are walked; a path
# that does not exist, such as an empty patches/ that git does not keep,
# counts as empty), so a stamp changes exactly when an input's content does.
content_hash() {
	local p
	for p in "$@"; do
		[ ! -e "$p" ] || find "$p" -type f
	done | LC_ALL=C sort | while read -r f; do
		printf '%s\n' "${f#"$top"/}"
		cat "$f"
	done | sha256sum | cut -d' ' -f1
}

linux_tarball() {
	local t
	t=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)
	[ -n "$t" ] || die "linux-source is not installed: run 'make deps'"
	printf '%s\n' "$t"
}

KARCH=arm
CROSS=arm-linux-gnueabihf-

# board_disks BOARD DIR: fresh scratch disks for BOARD in DIR (copies of the
# ext4 template). Sets disk_args (the launcher's --disk options) and devs
# (the devices the guest must find, for ebfq_devs=).
board_disks() {
	local b=$1 dir=$2 tmpl=$BUILD/rootfs/scratch-64M.ext4 d
	[ -f "$tmpl" ] || die "missing $tmpl: run 'make rootfs'"
	case $b in
	vexpress) set -- sd; devs=mmcblk0,nullb0 ;;
	virt) set -- vd sd; devs=vda,mmcblk0,nullb0 ;;
	*) die "unknown board '$b' (vexpress, virt)" ;;
	esac
	disk_args=()
	for d in "$@"; do
		cp --sparse=always "$tmpl" "$dir/$d.img"
		disk_args+=(--disk "$d=$dir/$d.img")
	done
}

# profile_vars NAME: the settings of device profile NAME, checked for a
# benchmark; also sets board and drive (the first it shapes) and dev (that
# drive's device in the guest).
profile_vars() {
	local f=$top/board-scripts/profiles/$1.profile
	[ -f "$f" ] || die "unknown profile '$1' (have: $(cd "$top/board-scripts/profiles" && ls -- *.profile | sed 's/\.profile$//' | tr '\n' ' '))"
	PROFILE_BOARDS='' PROFILE_DRIVES='' BENCH_FILE_MB='' BENCH_TREE='' BENCH_APP=fio
	MAX_REQUEST_KB= ROTATIONAL= SOFTRT_KIB=256
	# shellcheck disable=SC1090
	. "$f"
	[ -n "$PROFILE_DRIVES" ] && [ -n "$BENCH_FILE_MB" ] && [ -n "$BENCH_TREE" ] ||
		die "profile '$1' shapes no drive for a benchmark (PROFILE_DRIVES, BENCH_FILE_MB, BENCH_TREE)"
	if ! [[ $SOFTRT_KIB =~ ^[1-9][0-9]*$ ]] || ((SOFTRT_KIB % 4)); then
		die "profile '$1': SOFTRT_KIB wants KiB, a multiple of 4, got '$SOFTRT_KIB'"
	fi
	board=${PROFILE_BOARDS%% *} drive=${PROFILE_DRIVES%% *}
	case $drive in
	vd) dev=vda ;;
	sd) dev=mmcblk0 ;;
	*) die "profile '$1': no device name known for drive '$drive'" ;;
	esac
}
