#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build an ARM kernel from Debian's linux-source with our series applied.
#
#   scripts/kernel.sh FLAVOUR BASE_DEFCONFIG FRAGMENT...
#
# 1. extract /usr/src/linux-source-*.tar.xz once into build/ and record the
#    pristine tree as a git baseline (tag 'pristine');
# 2. apply patches/*.patch with git am (only when the series changed; the
#    tree is first reset to the baseline) and copy kernel/ over the tree,
#    writing only files whose content differs so kbuild rebuilds no more
#    than it must;
# 3. merge BASE_DEFCONFIG and the fragments with the tree's own
#    merge_config.sh into build/kernel-FLAVOUR/.config, and fail if any
#    option a fragment asks for did not end up there;
# 4. build zImage, dtbs and modules out of tree (O=), with ccache if present,
#    and the device trees of dts/ (copied beside the kernel's own, so that
#    they can include them) with the kernel's dtc.
#
# Nothing is done when the inputs (tarball, series, kernel/, dts/, fragments,
# this script) have not changed since the last successful build.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"

[ $# -ge 2 ] || die "usage: $0 FLAVOUR BASE_DEFCONFIG FRAGMENT..."
flavour=$1 base=$2
shift 2
frags=()
for f in "$@"; do
	[ -f "$f" ] || die "config fragment '$f' does not exist"
	frags+=("$(cd "$(dirname "$f")" && pwd)/$(basename "$f")")
done

tarball=$(linux_tarball)
srcname=$(basename "$tarball" .tar.xz)
src=$BUILD/$srcname
out=$BUILD/kernel-$flavour
[ -f "$src/arch/arm/configs/$base" ] || [ ! -d "$src" ] ||
	die "no base defconfig '$base' in arch/arm/configs"
mkdir -p "$BUILD"

stamp=$(
	{
		printf '%s %s\n' "$(basename "$tarball")" "$(stat -c %s "$tarball")"
		printf '%s\n' "$base" "$flavour"
		content_hash "$top/patches" "$top/kernel" "$top"/dts/*.dts "${frags[@]}" "$0" "$top/scripts/lib.sh"
	} | sha256sum | cut -d' ' -f1
)
if [ -f "$out/arch/arm/boot/zImage" ] && [ "$(cat "$out/.ebfq-stamp" 2>/dev/null)" = "$stamp" ]; then
	progress kernel "$flavour: inputs unchanged, skipping the build ($out)"
	exit 0
fi

gitq() { git -C "$src" -c user.name=ebfq -c user.email=ebfq@localhost -c advice.detachedHead=false "$@"; }

# -- 1. pristine tree --------------------------------------------------------
if ! gitq rev-parse -q --verify pristine >/dev/null 2>&1; then
	progress extract "$(basename "$tarball") -> build/$srcname"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp"
	mv "$src.tmp/$srcname" "$src"
	rmdir "$src.tmp"
	progress extract "recording the pristine tree as a git baseline"
	gitq init -q
	gitq add -A -f .
	gitq commit -q -m "pristine $srcname from $(basename "$tarball")"
	gitq tag pristine
fi

# -- 2. our series and files --------------------------------------------------
series=$(content_hash "$top/patches")
if [ "$(cat "$src/.git/ebfq-series" 2>/dev/null)" != "$series" ]; then
	progress patch "resetting to pristine and applying patches/"
	gitq checkout -q -f pristine
	gitq clean -q -fdx
	rm -f "$src/.git/ebfq-files"
	for p in "$top"/patches/*.patch; do
		[ -e "$p" ] || continue
		gitq am -q --keep-cr "$p" || { gitq am --abort || true; die "patch $(basename "$p") does not apply"; }
	done
	printf '%s\n' "$series" >"$src/.git/ebfq-series"
fi
# Files that an earlier run copied from kernel/ but that no longer exist
# there are removed, so the tree is exactly pristine + series + kernel/.
new_list=$(cd "$top/kernel" 2>/dev/null && find . -type f | LC_ALL=C sort || true)
if [ -f "$src/.git/ebfq-files" ]; then
	comm -23 "$src/.git/ebfq-files" <(printf '%s\n' "$new_list") | while read -r f; do
		[ -n "$f" ] || continue
		progress patch "removing stale $f"
		if gitq cat-file -e "HEAD:${f#./}" 2>/dev/null; then
			gitq checkout -q HEAD -- "${f#./}"
		else
			rm -f "$src/$f"
		fi
	done
fi
ncopied=0
while read -r f; do
	[ -n "$f" ] || continue
	if ! cmp -s "$top/kernel/$f" "$src/$f"; then
		mkdir -p "$(dirname "$src/$f")"
		cp "$top/kernel/$f" "$src/$f"
		ncopied=$((ncopied + 1))
	fi
done <<<"$new_list"
printf '%s\n' "$new_list" >"$src/.git/ebfq-files"
progress patch "kernel/: $ncopied file(s) updated in the tree"
# The device trees of dts/ are not part of the series: they sit beside the
# kernel's own, which they include, only to be built.
ourdtbs=()
for f in "$top"/dts/*.dts; do
	[ -e "$f" ] || continue
	name=${f##*/}
	cmp -s "$f" "$src/arch/$KARCH/boot/dts/$name" || cp "$f" "$src/arch/$KARCH/boot/dts/"
	ourdtbs+=("${name%.dts}.dtb")
done

# -- 3. configuration ----------------------------------------------------------
kmake=(make -C "$src" O="$out" ARCH="$KARCH" CROSS_COMPILE="$CROSS"
	KBUILD_BUILD_USER=ebfq KBUILD_BUILD_HOST=qemu
	-j"${JOBS:-$(nproc)}")
if command -v ccache >/dev/null; then
	kmake+=(CC="ccache ${CROSS}gcc")
	# Paths under build/ are hashed relative to it, so a clone in another
	# folder (CI's) reuses the objects this one compiled.
	export CCACHE_BASEDIR=$BUILD
fi
mkdir -p "$out"
progress config "$base + ${*##*/}"
(cd "$src" && ARCH=$KARCH CROSS_COMPILE=$CROSS scripts/kconfig/merge_config.sh -O "$out" \
	"arch/arm/configs/$base" "${frags[@]}") >"$out/merge_config.log" 2>&1 ||
	{ tail -n 30 "$out/merge_config.log"; die "merge_config.sh failed"; }
"$top/scripts/check-config.sh" "$out/.config" "${frags[@]}"

# -- 4. build --------------------------------------------------------------
progress build "zImage dtbs modules ($flavour, ${JOBS:-$(nproc)} jobs$(command -v ccache >/dev/null && echo ", ccache")); log: ${out#"$top"/}/build.log"
set +e
"${kmake[@]}" zImage dtbs "${ourdtbs[@]}" modules >"$out/build.log" 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
	sleep 30
	kill -0 "$pid" 2>/dev/null || break
	progress build "$(grep -c '^  CC' "$out/build.log" || true) objects compiled so far"
done
wait "$pid"
rc=$?
set -e
if [ "$rc" -ne 0 ]; then
	grep -E 'error|Error' "$out/build.log" | head -n 20
	tail -n 20 "$out/build.log"
	die "kernel build failed (see ${out#"$top"/}/build.log)"
fi
rm -rf "$out/modroot"
"${kmake[@]}" INSTALL_MOD_PATH="$out/modroot" INSTALL_MOD_STRIP=1 modules_install >>"$out/build.log" 2>&1
printf '%s\n' "$stamp" >"$out/.ebfq-stamp"
progress build "done: $(du -h "$out/arch/arm/boot/zImage" | cut -f1) zImage"
