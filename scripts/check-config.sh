#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
#   scripts/check-config.sh .config FRAGMENT...
#
# Fail, naming each one, when an option a fragment sets (CONFIG_X=v) or
# turns off ('# CONFIG_X is not set') did not end up that way in .config:
# a dependency missing on the base defconfig makes Kconfig drop a request
# silently, and a kernel without what we asked for must never be booted.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 .config FRAGMENT..." >&2; exit 2; }
config=$1
shift
[ -f "$config" ] || { echo "error: no such config '$config'" >&2; exit 2; }
# merge_config.sh lets a later fragment override an earlier one: the
# last request for a symbol is the one that must hold.
declare -A want from
order=()
for frag in "$@"; do
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			sym=${line%%=*}
			val=$line
			;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			val=
			;;
		*) continue ;;
		esac
		[ -n "${from[$sym]+set}" ] || order+=("$sym")
		want[$sym]=$val
		from[$sym]=$(basename "$frag")
	done <"$frag"
done
bad=0
for sym in "${order[@]}"; do
	have=$(grep -E "^$sym=" "$config" || true)
	if [ "$have" != "${want[$sym]}" ]; then
		printf 'error: %s: asked for "%s", .config has "%s"\n' "${from[$sym]}" \
			"${want[$sym]:-# $sym is not set}" "${have:-# $sym is not set}" >&2
		bad=$((bad + 1))
	fi
done
if [ "$bad" -ne 0 ]; then
	echo "error: $bad requested option(s) did not resolve in $config" >&2
	exit 1
fi
