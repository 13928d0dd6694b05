#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The series 'make patchset' exports (build/patchset/) is what maintainers
# take. Extract a pristine linux-source afresh, apply the series with
# git am, configure vexpress_defconfig with ebfq as the default scheduler,
# and build the block/ directory; checkpatch --strict found no error.
# Prints TAP lines for tests/run-host.sh.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/lib.sh"

series=$BUILD/patchset
work=$BUILD/patchset-test
patches=("$series"/*.patch)
[ -e "${patches[0]}" ] || { echo "not ok - patchset: no series in build/patchset (make patchset)"; exit 0; }

if [ -f "$series/checkpatch.txt" ]; then
	sums=$(grep -E '^total: ' "$series/checkpatch.txt" || true)
	errs=$(echo "$sums" | awk '{ e += $2 } END { print e + 0 }')
	warns=$(echo "$sums" | awk '{ w += $4 } END { print w + 0 }')
	if [ "$errs" -eq 0 ] && [ "$(echo "$sums" | grep -c .)" -eq ${#patches[@]} ]; then
		echo "ok - patchset: checkpatch --strict, 0 errors ($warns warnings) over ${#patches[@]} patches"
	else
		echo "not ok - patchset: checkpatch --strict found $errs errors (build/patchset/checkpatch.txt)"
	fi
else
	echo "not ok - patchset: no checkpatch report"
fi

tarball=$(linux_tarball)
srcname=$(basename "$tarball" .tar.xz)
rm -rf "$work"
mkdir -p "$work"
progress patchset-test "extracting a pristine $srcname"
tar -xJf "$tarball" -C "$work"
src=$work/$srcname
gitq() { git -C "$src" -c user.name=ebfq -c user.email=ebfq@localhost "$@"; }
gitq init -q
# git am edits through the index: record the files the series touches.
mapfile -t touched < <(sed -n 's|^--- a/||p' "${patches[@]}" | sort -u)
gitq add -f -- "${touched[@]}"
gitq commit -q -m "pristine $srcname (the files the series edits)"
if gitq am -q "${patches[@]}" >"$work/am.log" 2>&1; then
	echo "ok - patchset: ${#patches[@]} patches apply with git am to a pristine $srcname"
else
	echo "not ok - patchset: git am failed"
	sed 's/^/# /' "$work/am.log"
	exit 0
fi

out=$work/out
kmake=(make -C "$src" O="$out" ARCH="$KARCH" CROSS_COMPILE="$CROSS" -j"$(nproc)")
command -v ccache >/dev/null && kmake+=(CC="ccache ${CROSS}gcc")
frags=("$top"/defconfigs/lean.config "$top"/defconfigs/board-vexpress.config
	"$top"/defconfigs/ebfq.config "$top"/defconfigs/default-ebfq.config)
mkdir -p "$out"
(cd "$src" && ARCH=$KARCH CROSS_COMPILE=$CROSS scripts/kconfig/merge_config.sh -O "$out" \
	arch/arm/configs/vexpress_defconfig "${frags[@]}") >"$work/config.log" 2>&1
if "$top/scripts/check-config.sh" "$out/.config" "${frags[@]}" 2>>"$work/config.log"; then
	echo "ok - patchset: vexpress_defconfig + ebfq.config + default-ebfq.config resolve on the patched tree"
else
	echo "not ok - patchset: the fragments do not resolve on the patched tree"
	sed 's/^/# /' "$work/config.log" | tail -n 20
	exit 0
fi
progress patchset-test "building block/ of the patched tree"
# The objects every ebfq build has, as Kbuild.ebfq lists them.
read -ra objs <<<"$(sed -n 's/^ebfq-y := //p' "$top/kernel/block/Kbuild.ebfq")"
[ "${#objs[@]}" -gt 0 ] || { echo "not ok - patchset: no ebfq-y line in kernel/block/Kbuild.ebfq"; exit 0; }
if "${kmake[@]}" block/ >"$work/build.log" 2>&1; then
	missing=$(for o in "${objs[@]}"; do [ -f "$out/block/$o" ] || echo "$o"; done)
	if [ -z "$missing" ]; then
		echo "ok - patchset: block/ builds, with ebfq (${objs[*]})"
	else
		echo "not ok - patchset: block/ built without" $missing
		exit 0
	fi
else
	echo "not ok - patchset: block/ does not build"
	grep -E 'error:|warning:' "$work/build.log" | head -n 20 | sed 's/^/# /'
	exit 0
fi
if grep -E 'warning:' "$work/build.log" | grep -q 'ebfq'; then
	echo "not ok - patchset: the compiler warns about ebfq"
	grep -E 'warning:' "$work/build.log" | grep ebfq | head -n 10 | sed 's/^/# /'
else
	echo "ok - patchset: no compiler warning in ebfq"
fi
rm -rf "$work"
