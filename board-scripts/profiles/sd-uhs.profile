# sd-uhs: a fast UHS-I microSD card (U3, A2) on an SDHCI controller
# (virt, sdhci-pci).
#
# Numbers: UHS Speed Class 3 guarantees 30 MB/s minimum sequential write;
# the UHS-I SDR104 bus tops out at 104 MB/s, and good cards read ~90 MB/s.
# Byte rates only, for the reason given in sd.profile. Note: QEMU's sdhci-pci
# with its SD model reads ~19 MB/s unthrottled here, so under emulation the
# read limit is QEMU's own; the write limit still shapes the writeback flood.
# Reads that wait for each other go far slower than that: in a quick run
# (2026-12-06, mq-deadline, idle card) the replayed fio start-up, 334
# dependent reads of 73 KiB on average, took 30.6 s, about 90 ms a read
# (0.8 MB/s), and the real one 6.4 s; under 10 sequential readers, 81 s
# and 93 s. So the start-up figures of this profile measure QEMU's SD
# emulation as much as the scheduler, and a full run of every scheduler
# and load takes hours; the emmc profile is the one to compare them on.
PROFILE_DESC="UHS-I U3 microSD on sdhci-pci: 90 MB/s read, 30 MB/s write"
PROFILE_BOARDS="virt"
PROFILE_DRIVES="sd"
READ_BPS=$((90 * 1000 * 1000))
WRITE_BPS=$((30 * 1000 * 1000))
# The benchmark's disk (scripts/bench-disk.sh): files of the background
# loads in MiB, and the kernel-tree directory the tree-copy load copies.
BENCH_FILE_MB=8
BENCH_TREE=Documentation/admin-guide
