#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest's userland, from Debian's armhf packages (multiarch):
# busybox-static, and fio with exactly the shared libraries its binary needs.
#
# Debian's fio links librados, librbd, libgfapi, libnbd, libibverbs ...; its
# package closure is ~150 packages (perl, python, dpkg among them) that a
# guest never runs. We download fio, busybox-static and only the lib*
# packages of that closure, unpack them into a staging tree on the host,
# then walk DT_NEEDED from fio (honouring RUNPATH, e.g. librados's
# /usr/lib/arm-linux-gnueabihf/ceph) and copy into build/armhf/root only the
# libraries that walk reaches, plus the dynamic loader.
#
# Output: build/armhf/root (bin/busybox, usr/bin/fio, lib/..., usr/lib/...)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"

out=$BUILD/armhf
debs=$out/debs
stage=$out/stage
root=$out/root
readelf=${CROSS}readelf
command -v "$readelf" >/dev/null || die "$readelf not found: run 'make deps'"

apt-cache show fio:armhf >/dev/null 2>&1 ||
	die "apt has no armhf packages: dpkg --add-architecture armhf && apt-get update (make deps does it)"

closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
	--no-breaks --no-replaces --no-enhances fio:armhf | grep -E '^(lib|zlib)[^ ]*:armhf$' | LC_ALL=C sort -u)
pkgs=$(printf '%s\n' busybox-static:armhf fio:armhf $closure)
# Pin the exact versions apt would install now (one apt-cache call); the
# stamp changes with them.
# shellcheck disable=SC2086
pinned=$(apt-cache policy $pkgs | awk '/^[^ ].*:$/ {p = substr($1, 1, length($1) - 1)}
	/^  Candidate:/ {print p "=" $2}')
stamp=$(printf '%s\n' "$pinned" | cat - "$0" | sha256sum | cut -d' ' -f1)
if [ -x "$root/usr/bin/fio" ] && [ "$(cat "$out/.stamp" 2>/dev/null)" = "$stamp" ]; then
	progress userland "armhf busybox + fio: up to date ($(du -sh "$root" | cut -f1))"
	exit 0
fi

mkdir -p "$debs"
progress userland "downloading $(printf '%s\n' "$pinned" | wc -l) armhf packages into ${debs#"$top"/}"
# apt-get download names files pkg_version_arch.deb (':' in epochs as %3a);
# skip what is already there.
todo=()
for pv in $pinned; do
	name=${pv%%:*} ver=${pv#*=}
	ls "$debs/${name}_${ver#*:}_"*.deb >/dev/null 2>&1 || todo+=("$pv")
done
if [ ${#todo[@]} -gt 0 ]; then
	(cd "$debs" && apt-get download -q -o APT::Sandbox::User=root "${todo[@]}" >/dev/null) ||
		die "apt-get download failed for: ${todo[*]}"
fi

progress userland "unpacking into a staging tree"
rm -rf "$stage" "$root"
mkdir -p "$stage" "$root"
for d in "$debs"/*.deb; do
	dpkg-deb -x "$d" "$stage"
done

# resolve NAME RUNPATH...: the staged path of a library (as the guest will
# see it), searched like ld.so does: RUNPATH first, then the default dirs.
resolve() {
	local name=$1 d
	shift
	for d in "$@" /lib/arm-linux-gnueabihf /usr/lib/arm-linux-gnueabihf /lib /usr/lib; do
		if [ -e "$stage$d/$name" ]; then
			printf '%s\n' "$d/$name"
			return 0
		fi
	done
	return 1
}

# copy_elf PATH: copy one ELF file (following symlinks) to the same path in
# root, then everything it needs, once each.
declare -A seen=()
copy_elf() {
	local path=$1 runpath needed lib r dir
	[ -z "${seen[$path]:-}" ] || return 0
	seen[$path]=1
	mkdir -p "$root$(dirname "$path")"
	cp -L "$stage$path" "$root$path"
	dir=$(dirname "$path")
	runpath=$("$readelf" -d "$stage$path" | sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]/\2/p' |
		tr ':' ' ' | sed "s|\$ORIGIN|$dir|g")
	needed=$("$readelf" -d "$stage$path" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
	for lib in $needed; do
		# shellcheck disable=SC2086
		r=$(resolve "$lib" $runpath) ||
			die "$path needs $lib, which no downloaded package provides"
		copy_elf "$r"
	done
}

interp=$("$readelf" -l "$stage/usr/bin/fio" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
[ -n "$interp" ] || die "fio:armhf has no program interpreter?"
copy_elf "$interp"
copy_elf /usr/bin/fio
mkdir -p "$root/bin"
cp "$stage/bin/busybox" "$root/bin/busybox"
# ld.so finds the multiarch directories through ld.so.cache, which a
# busybox root has not: list them (and ceph's) for LD_LIBRARY_PATH.
(cd "$root" && find . -name '*.so*' -printf '/%h\n' | sed 's|^/\./|/|' | LC_ALL=C sort -u) >"$out/libdirs"

printf '%s\n' "$stamp" >"$out/.stamp"
progress userland "done: ${#seen[@]} ELF files, $(du -sh "$root" | cut -f1) in ${root#"$top"/}"
