# emmc: an eMMC with command queueing (virt, virtio-blk), scaled down.
#
# Numbers: a mid-range eMMC 5.1 part reads ~250 MB/s and writes ~90 MB/s
# sequentially, with ~8000/2000 random 4 KiB read/write IOPS, and its
# command queue holds 32 tasks. Under TCG emulation on one vCPU the guest
# cannot drive such rates, and a benchmark whose bottleneck is the emulated
# CPU says nothing about a scheduler, so the rates are scaled by 1/10 (IOPS
# by 1/4), keeping the read/write asymmetry, and the virtqueue is 32 deep
# like the eMMC's command queue.
PROFILE_DESC="eMMC 5.1 with CQ, scaled 1/10: 25 MB/s read, 9 MB/s write, 2000/500 IOPS, depth 32"
PROFILE_BOARDS="virt"
PROFILE_DRIVES="vd"
READ_BPS=$((25 * 1000 * 1000))
WRITE_BPS=$((9 * 1000 * 1000))
READ_IOPS=2000
WRITE_IOPS=500
QUEUE_DEPTH=32
# The benchmark's disk (scripts/bench-disk.sh): files of the background
# loads in MiB, and the kernel-tree directory the tree-copy load copies.
BENCH_FILE_MB=16
BENCH_TREE=include/linux
