# sd-uhs: a fast UHS-I microSD card (U3, A2) on an SDHCI controller
# (virt, sdhci-pci).
#
# Numbers: UHS Speed Class 3 guarantees 30 MB/s minimum sequential write;
# the UHS-I SDR104 bus tops out at 104 MB/s, and good cards read ~90 MB/s.
# Byte rates only, for the reason given in sd.profile. Note: QEMU's sdhci-pci
# with its SD model moves far less than that (DRIVE_CACHE, below), so under
# emulation the card's rates are QEMU's own; the throttle is a ceiling.
# Reads that wait for each other went far slower than that while Linux
# drove the controller with ADMA: the replayed fio start-up, 334
# dependent reads of 73 KiB on average, took 28-110 s on an idle card
# (9 runs in 5 boots, ebfq and mq-deadline, 2026-12-06), yet 4-5 s under
# ebfq while buffered writers or sequential readers kept the device busy.
# Most likely QEMU 7.2's ADMA emulation, which moves a few descriptors
# at a time from a main-loop timer that the main loop sleeps through
# until some other event (the load's I/O, or the wake of
# board-scripts/qemu-common.sh) comes. KERNEL_ARGS below makes every
# boot with this profile use SDMA instead: the same replay on an idle
# card then took 3.9 and 4.5 s.
# Under buffered writers (the bufwrite2 load) the guest stalled within
# minutes in 5 boots of 5 (ebfq 4, mq-deadline 1; ADMA and SDMA,
# throttled or not; 2026-12-06), "soft lockup - CPU#0 stuck for 339s!":
# its timer interrupt was lost while the SD model wrote from the vCPU
# thread (nudge_main_loop in board-scripts/qemu-common.sh). Since every
# watched boot wakes QEMU's main loop 10 times a second, every such boot
# finished: 6 by 2026-12-06, among them a full run of every workload
# under every scheduler (scripts/bench.sh --reps 1 sd-uhs, 68 minutes).
PROFILE_DESC="UHS-I U3 microSD on sdhci-pci: 90 MB/s read, 30 MB/s write"
PROFILE_BOARDS="virt"
PROFILE_DRIVES="sd"
# Kernel arguments of every boot with this profile (qemu-common.sh):
# SDHCI_QUIRK_BROKEN_ADMA, see above.
KERNEL_ARGS="sdhci.debug_quirks=0x40"
# QEMU's SD model reads and writes each 512-byte block with its own
# synchronous call from the vCPU thread, and the guest waits for each.
# Through O_DIRECT (cache=none) each took the host disk's latency, and
# the emulated card moved 5-6 MB/s of buffered writes with the guest's
# one CPU stopped for most of it; through the host cache, 11.5-11.9 MB/s,
# and the idle fio start-up took 1.9-2.3 s replayed, 2.9-3.5 s for real
# (3.9-4.5 and 5.2-6.0 s before; 2026-12-06). The throttle sets the rates
# either way, so the host cache hides nothing the profile models.
DRIVE_CACHE=writeback
READ_BPS=$((90 * 1000 * 1000))
WRITE_BPS=$((30 * 1000 * 1000))
# The soft real-time reader's chunk, read every 40 ms: 64 KiB, 1.6 MB/s
# (a 13 Mbit/s video), about a quarter of what the emulated card reads
# beside the writers (64 KiB in 9 ms under ebfq; 256 KiB every 40 ms was
# late for every scheduler).
SOFTRT_KIB=64
# The benchmark's disk (scripts/bench-disk.sh): files of the background
# loads in MiB, and the kernel-tree directory the tree-copy load copies.
BENCH_FILE_MB=8
BENCH_TREE=Documentation/admin-guide
