# sd: a Class 10 / UHS Speed Class 1 microSD card in a board's only slot
# (vexpress-a9, ARM PL181 MMCI: one command at a time, queue depth 1).
#
# Numbers: the SD Association's Speed Class 10 and U1 guarantee a minimum
# sequential write of 10 MB/s; such cards typically read at ~20 MB/s.
# Only byte rates are limited: QEMU's SD card model moves one 512-byte block
# per request, so an IOPS limit would count blocks, not commands
# (iops-total=100 gave 0.05 MB/s).
#
# The rates are a ceiling the emulation does not reach: vexpress's PL180
# node has no DMA channels, so the kernel's mmci driver moves every word
# through the controller's FIFO with the CPU (an interrupt for each half
# FIFO), and under TCG the card goes as fast as the one vCPU can copy:
# 2-3 MB/s of buffered writes. On this profile the device's time is the
# CPU's time, which the loads and the start-up share: a second guest or
# any other load on the host moves a start-up by 2x in either direction
# (idle start-ups of 0.28-0.91 s in one boot while the torture suite
# ran beside it), and schedulers are told apart only on a quiet host.
PROFILE_DESC="Class 10 microSD on PL181: 20 MB/s read, 10 MB/s write, depth 1"
PROFILE_BOARDS="vexpress"
PROFILE_DRIVES="sd"
# Through the host cache, not O_DIRECT: QEMU's SD model reads and writes
# each 512-byte block synchronously from the vCPU thread (sd-uhs.profile),
# so the host disk's latency took the guest's CPU, the one this card
# already shares with everything. Same boot both ways (2026-12-06): idle
# busybox start-up 0.30 s replayed (0.42 s before), buffered writers
# 5.0-5.8 MB/s (3.7-4.2), ebfq's soft real-time reader late 530 times
# of 1500 (1361), its median read 5 ms (22).
DRIVE_CACHE=writeback
READ_BPS=$((20 * 1000 * 1000))
WRITE_BPS=$((10 * 1000 * 1000))
# The soft real-time reader's chunk, read every 40 ms: 16 KiB, 0.4 MB/s
# (a 3 Mbit/s video), a fifth or less of what the emulated card reads
# (2-3 MB/s, the one vCPU copying through the FIFO).
SOFTRT_KIB=16
# The benchmark's disk (scripts/bench-disk.sh): files of the background
# loads in MiB (the emulated PL181 moves a few hundred KB/s), and the
# kernel-tree directory the tree-copy load copies.
BENCH_FILE_MB=2
BENCH_TREE=Documentation/admin-guide
# The application whose start-up is measured: busybox, a small program
# (73 reads, 972 KiB, 0.3 s idle), since fio's cold start reads 24 MB
# and a depth-1 card under ten background readers would stretch every
# start-up, and the run, many times over.
BENCH_APP=busybox
