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
bad=0
for frag in "$@"; do
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			want=$line
			sym=${line%%=*}
			;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			want=
			;;
		*) continue ;;
		esac
		have=$(grep -E "^$sym=" "$config" || true)
		if [ "$have" != "$want" ]; then
			printf 'error: %s: asked for "%s", .config has "%s"\n' \
				"$(basename "$frag")" "${want:-# $sym is not set}" "${have:-# $sym is not set}" >&2
			bad=$((bad + 1))
		fi
	done <"$frag"
done
if [ "$bad" -ne 0 ]; then
	echo "error: $bad requested option(s) did not resolve in $config" >&2
	exit 1
fi
