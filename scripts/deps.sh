#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install, with apt-get, only what is missing on this Debian 12 host, then
# fetch the armhf userland for the guest (scripts/armhf-userland.sh).
# Run 'apt-get update' once on a new machine first; this script runs it
# itself only when a package it needs is unknown to apt.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"

# Host tools: the cross compiler and what a kernel build needs (gcc and
# libc6-dev for its host programs and gen_init_cpio, git for the pristine
# baseline), the armhf C library for the benchmark's own static tools
# (bench/tools), QEMU, the image tools, gnuplot for the plots, jq for
# the harness test and socat for QEMU's monitor socket (watch_stall).
host_pkgs=(
	bc binutils-arm-linux-gnueabihf bison ccache cpio dosfstools e2fsprogs fdisk flex gcc
	gcc-arm-linux-gnueabihf git gnuplot-nox jq kmod libc6-dev
	libc6-dev-armhf-cross libelf-dev libssl-dev linux-source make mtools
	qemu-system-arm socat u-boot-qemu u-boot-tools xz-utils
)

missing_pkgs() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
			printf '%s\n' "$p"
	done
}

sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo

# apt_update PKG...: apt-get update, tried three times, until apt knows
# every PKG. A Debian mirror in the middle of a sync serves index files of
# the wrong size for a while (seen for over an hour with bookworm-security's
# armhf list): apt then keeps the other lists, and if those name what we
# need, the failed one does not stop the build.
apt_update() {
	local try
	for try in 1 2 3; do
		$sudo apt-get update -q && return 0
		if apt-cache show "$@" >/dev/null 2>&1; then
			progress deps "apt-get update failed for some lists, but apt knows $* from the others: going on"
			return 0
		fi
		[ "$try" -lt 3 ] || break
		progress deps "apt-get update failed (try $try of 3), again in 30 s"
		sleep 30
	done
	die "apt-get update failed three times"
}

mapfile -t need < <(missing_pkgs "${host_pkgs[@]}")
if [ ${#need[@]} -gt 0 ]; then
	progress deps "installing: ${need[*]}"
	if ! apt-cache show "${need[@]}" >/dev/null 2>&1; then
		progress deps "apt does not know some of them yet: apt-get update"
		apt_update "${need[@]}"
	fi
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}"
else
	progress deps "host packages: all present"
fi

# What scripts/armhf-userland.sh takes from the armhf lists.
armhf_pkgs=(busybox-static:armhf fio:armhf)
if ! dpkg --print-foreign-architectures | grep -qx armhf; then
	progress deps "enabling the armhf architecture (multiarch) and updating apt's lists"
	$sudo dpkg --add-architecture armhf
	apt_update "${armhf_pkgs[@]}"
elif ! apt-cache show "${armhf_pkgs[@]}" >/dev/null 2>&1; then
	progress deps "apt has no armhf lists yet: apt-get update"
	apt_update "${armhf_pkgs[@]}"
fi

"$top/scripts/armhf-userland.sh"
