# SPDX-License-Identifier: GPL-2.0
# TAP helpers for the in-guest tests (sourced, POSIX sh). Every result goes
# to the console and to the result channel ($EBFQ_RESULT) when there is one.

# result_port: point EBFQ_RESULT at the virtio-serial port the host named
# 'ebfq.result' (board-scripts/qemu-common.sh); /dev/null when there is
# none, and then the console carries everything.
result_port() {
	EBFQ_RESULT=/dev/null
	for p in /sys/class/virtio-ports/*; do
		[ -e "$p/name" ] || continue
		[ "$(cat "$p/name")" = ebfq.result ] && EBFQ_RESULT=/dev/$(basename "$p")
	done
	export EBFQ_RESULT
	[ "$EBFQ_RESULT" != /dev/null ]
}

EBFQ_RESULT=${EBFQ_RESULT:-/dev/null}
EBFQ_COUNTER=${EBFQ_COUNTER:-/tmp/ebfq-tap-count}

emit() {
	printf '%s\n' "$*"
	printf '%s\n' "$*" >>"$EBFQ_RESULT"
}

tap_next() {
	n=$(($(cat "$EBFQ_COUNTER" 2>/dev/null || echo 0) + 1))
	echo "$n" >"$EBFQ_COUNTER"
	echo "$n"
}

# ok NAME / not_ok NAME REASON / skip NAME REASON ("not run", with why)
ok() {
	emit "ok $(tap_next) - $1"
}

not_ok() {
	emit "not ok $(tap_next) - $1"
	shift
	for line in "$@"; do
		emit "# $line"
	done
}

skip() {
	emit "ok $(tap_next) - $1 # SKIP $2"
}

note() {
	emit "# $*"
}

# check NAME COMMAND...: one test point from a command's exit status; its
# output is kept and shown (the last 20 lines) only when it fails.
check() {
	name=$1
	shift
	if out=$("$@" 2>&1); then
		ok "$name"
	else
		rc=$?
		not_ok "$name" "exit status $rc of: $*"
		printf '%s\n' "$out" | tail -n 20 | while IFS= read -r l; do emit "#   $l"; done
	fi
}
