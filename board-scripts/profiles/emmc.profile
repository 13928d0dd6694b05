# emmc: an eMMC with command queueing (virt, virtio-blk), scaled down.
#
# Numbers: a mid-range eMMC 5.1 part reads ~250 MB/s and writes ~90 MB/s
# sequentially, with ~8000/2000 random 4 KiB read/write IOPS, and its
# command queue holds 32 tasks. Under TCG emulation on one vCPU the guest
# cannot drive such rates, and a benchmark whose bottleneck is the emulated
# CPU says nothing about a scheduler, so the rates are scaled by 1/10 (IOPS
# by 1/4), and the virtqueue is 32 deep like the eMMC's command queue.
#
# Reads and writes share one budget (QEMU's bps-total and iops-total), as
# they share the time of a real device: with separate read and write
# limits, QEMU serves a read at once however many writes wait, so a
# writeback flood would cost a reader nothing and no scheduler could be
# told from another under writes. One budget cannot also make writes
# slower than reads (QEMU refuses a total limit beside a read or write
# one); writes then cost the device as little as reads, which understates
# the writeback's weight rather than overstating it.
PROFILE_DESC="eMMC 5.1 with CQ, scaled 1/10: 25 MB/s and 2000 IOPS shared by reads and writes, depth 32"
PROFILE_BOARDS="virt"
PROFILE_DRIVES="vd"
TOTAL_BPS=$((25 * 1000 * 1000))
TOTAL_IOPS=2000
QUEUE_DEPTH=32
# An eMMC host controller takes at most 512 KiB per request (SDHCI's
# max_req_size); virtio-blk would take 1280 KiB, a write the card could
# not be interrupted in for 50 ms at these rates. The benchmark sets the
# device's max_sectors_kb to it.
MAX_REQUEST_KB=512
# An eMMC does not seek, and the kernel's MMC driver says so; virtio-blk
# says the disk is rotational, which makes schedulers idle for random
# readers. The benchmark sets the device's rotational to it.
ROTATIONAL=0
# The soft real-time reader's chunk, read every 40 ms: 256 KiB, 6.6 MB/s
# (a 50 Mbit/s video), about a quarter of what the device reads alone.
SOFTRT_KIB=256
# The benchmark's disk (scripts/bench-disk.sh): files of the background
# loads in MiB, and the kernel-tree directory the tree-copy load copies.
BENCH_FILE_MB=16
BENCH_TREE=include/linux
