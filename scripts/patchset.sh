#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Export the series a maintainer takes into a kernel tree:
#
#   scripts/patchset.sh OUT_DIR
#
# On a scratch git worktree of the pristine linux-source tree, the first
# commit adds every file of kernel/ (the scheduler, its KUnit suite, its
# Kbuild and documentation), then patches/*.patch (the edits of existing
# files) are applied with git am; git format-patch writes the series to
# OUT_DIR, and scripts/checkpatch.pl --strict reads every patch
# (OUT_DIR/checkpatch.txt, with a summary line per patch).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"

[ $# -eq 1 ] || die "usage: $0 OUT_DIR"
out=$1
src=$BUILD/$(basename "$(linux_tarball)" .tar.xz)
git -C "$src" rev-parse -q --verify pristine >/dev/null 2>&1 ||
	die "no pristine tree in $src: run 'make kernel' first"
tree=$BUILD/patchset-tree
author="ebfq developers <ebfq@localhost>"
gitq() {
	git -C "$tree" -c user.name="${author% <*}" -c user.email=ebfq@localhost \
		-c advice.detachedHead=false "$@"
}

progress patchset "scratch worktree $tree at pristine"
git -C "$src" worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
git -C "$src" worktree prune
git -C "$src" worktree add -q --detach "$tree" pristine

(cd "$top/kernel" && find . -type f | sed 's|^\./||' | sort) | while read -r f; do
	mkdir -p "$tree/$(dirname "$f")"
	cp "$top/kernel/$f" "$tree/$f"
	gitq add -f "$f"
done
gitq commit -q -F - <<MSG
block, ebfq: add the ebfq I/O scheduler

ebfq is an implementation of Budget Fair Queueing (B-WF2Q+) for blk-mq,
written for devices that serve one request stream, such as the SD cards
and eMMC of ARM boards and phones.

Every process gets a queue for its synchronous I/O; asynchronous I/O
goes to queues shared per ioprio class and level (ebfq-queue.c). The
engine (ebfq-wf2q.c) keeps each class's busy queues in an augmented
rbtree ordered by virtual finish time, whose nodes carry the smallest
virtual start time of their subtree, and serves the eligible queue with
the smallest finish in O(log n). Queues that run dry keep their
timestamps on an idle tree while those are in the future. The engine
schedules entities, so that a group is scheduled by its parent exactly
as a queue is.

The queue in service (ebfq-iosched.c) dispatches in sector order with
a bounded back-seek and FIFO deadlines, until it has received its
budget of sectors, held the device for its timeout, or run dry; a sync
queue that runs dry keeps the device idle for slice_idle waiting for
its process's next request. Budgets grow for queues that use them and
shrink for queues that do not, bounded by max_budget, tuned from the
estimated peak rate unless set. Async and write requests may take
three quarters of the scheduler tags.

With low_latency on (the default), ebfq-wr.c keeps the system
responsive while the device is busy: a new process, or one back after a
long idle period, is weight-raised (x30) for as long as a large
application's start-up would take at the measured peak rate, unless it
was born in a burst of workers or turns out to stream; a reader of
periodic small bursts is raised as soft real-time; a raised queue that
gets work takes the device from one that is not, and while any queue is
raised, the others may keep only one request in the device. Async
service is charged ten times over, and a sync queue served slowly is
charged for the device time it held.

With CONFIG_IOSCHED_EBFQ_CGROUP, ebfq-cgroup.c is a blkcg policy: every
cgroup doing I/O on a device gets a group there, weighted by
io.ebfq.weight (1-10000, per device overrides), with its own async
queues; io.ebfq.stat shows what each group received. A process that
changes cgroup takes its queue along, and a group going offline hands
its queues and child groups to its nearest live ancestor first.

Tunables (ebfq-sysfs.c) keep the names and units of bfq's; values out
of range are refused with -EINVAL. debugfs shows the device's and
every queue's state. ebfq-wf2q-test.c and ebfq-wr-test.c are KUnit
suites of the engine and of the responsiveness arithmetic.
Documentation/block/ebfq-iosched.rst describes the algorithm, the
tunables and how to make ebfq the default.

Signed-off-by: $author
MSG

for p in "$top"/patches/*.patch; do
	[ -e "$p" ] || continue
	gitq am -q --committer-date-is-author-date "$p" ||
		die "patches/$(basename "$p") does not apply on pristine + kernel/"
done

rm -rf "$out"
mkdir -p "$out"
gitq format-patch -q --no-signature pristine -o "$out"
n=$(find "$out" -name '*.patch' | wc -l)
progress patchset "$n patches -> $out"

progress patchset "checkpatch.pl --strict"
: >"$out/checkpatch.txt"
errors=0
for p in "$out"/*.patch; do
	res=$(cd "$tree" && perl scripts/checkpatch.pl --strict --no-tree --no-color \
		--ignore FILE_PATH_CHANGES "$p" 2>&1 || true)
	{
		echo "=== $(basename "$p")"
		echo "$res"
	} >>"$out/checkpatch.txt"
	summary=$(echo "$res" | grep -E '^total: ' || echo "total: ? (checkpatch printed no summary)")
	echo "  $(basename "$p"): $summary"
	e=$(echo "$summary" | sed -n 's/^total: \([0-9]*\) errors.*/\1/p')
	errors=$((errors + ${e:-1}))
done
[ "$errors" -eq 0 ] || die "checkpatch found $errors error(s); see $out/checkpatch.txt"
