#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Our fragments are what maintainers merge onto their own base: Arch Linux
# ARM's armv7 kernel starts from multi_v7_defconfig, Buildroot's and
# Yocto's QEMU ARM machines from vexpress_defconfig. Merge each
# combination a maintainer would use onto both, with the tree's own
# merge_config.sh (in the patched tree 'make kernel' prepared), and check
# with scripts/check-config.sh that every option a fragment sets, or turns
# off, ended up that way: Kconfig drops an option whose dependencies are
# missing without a word. Configuration only; nothing is compiled.
# Prints TAP lines for tests/run-host.sh.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/lib.sh"

src=$BUILD/$(basename "$(linux_tarball)" .tar.xz)
work=$BUILD/logs/defconfig-merge
if ! grep -q IOSCHED_EBFQ "$src/block/Kconfig.iosched" 2>/dev/null; then
	echo "not ok - defconfig-merge: no patched tree in ${src#"$top"/} (make kernel)"
	exit 0
fi
rm -rf "$work"
mkdir -p "$work"

# name: fragments (defconfigs/*.config), in merge order.
combos=(
	"ebfq: ebfq"
	"ebfq as default: ebfq default-ebfq"
	"QEMU boards, ebfq default, tests: board-vexpress board-virt ebfq default-ebfq test"
	"QEMU boards, tests, no ebfq built in (module): board-vexpress board-virt test module"
)
for base in vexpress_defconfig multi_v7_defconfig; do
	for c in "${combos[@]}"; do
		name=${c%%: *}
		frags=()
		for f in ${c#*: }; do
			frags+=("$top/defconfigs/$f.config")
		done
		# One output directory per base: Kconfig's tools are built once.
		out=$work/${base%_defconfig}
		log=$out-$(echo "$name" | tr '[:upper:]' '[:lower:]' | tr -c 'a-z0-9\n' '-' | tr -s '-')
		mkdir -p "$out"
		rm -f "$out/.config"
		if ! (cd "$src" && ARCH=$KARCH CROSS_COMPILE=$CROSS scripts/kconfig/merge_config.sh -O "$out" \
			"arch/$KARCH/configs/$base" "${frags[@]}") >"$log.merge" 2>&1; then
			echo "not ok - defconfig-merge: $base + $name: merge_config.sh failed (${log#"$top"/}.merge)"
			continue
		fi
		cp "$out/.config" "$log.config"
		if "$top/scripts/check-config.sh" "$log.config" "${frags[@]}" >"$log.check" 2>&1; then
			echo "ok - defconfig-merge: $base + $name ($(cat "${frags[@]}" | grep -cE '^(CONFIG_|# CONFIG_.* is not set)') requests resolved)"
		else
			echo "not ok - defconfig-merge: $base + $name: options did not resolve"
			sed 's/^/# /' "$log.check"
		fi
	done
done
