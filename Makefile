# SPDX-License-Identifier: GPL-2.0
#
# ebfq: one entry point. 'make help' lists the goals.

SHELL := /bin/bash
.DEFAULT_GOAL := help

BOARD ?= virt
PROFILE ?= none
FLAVOUR ?= test

# Kernel flavours: a base defconfig of the tree plus our fragments.
BASE_DEFCONFIG := vexpress_defconfig
# test: ebfq built in and the default, KUnit, lockdep; the kernel of the
# test suite. module: the same without ebfq, for ebfq.ko, and the benchmark.
BOARD_FRAGMENTS := defconfigs/lean.config defconfigs/board-vexpress.config \
		   defconfigs/board-virt.config
FRAGMENTS_test := $(BOARD_FRAGMENTS) defconfigs/ebfq.config \
		  defconfigs/default-ebfq.config defconfigs/test.config
FRAGMENTS_module := $(BOARD_FRAGMENTS) defconfigs/test.config \
		    defconfigs/module.config
# debug: the test kernel with KASAN, UBSAN, kmemleak, debug objects, fault
# injection and ebfq's invariant checks; the kernel of the torture suite.
FRAGMENTS_debug := $(FRAGMENTS_test) defconfigs/debug.config
# prof: the module kernel with ebfq built in and a 1000 Hz tick, for
# the tick profiler of scripts/bench.sh --profile.
FRAGMENTS_prof := $(FRAGMENTS_module) defconfigs/prof.config

BUILD := $(CURDIR)/build
KERNEL_OUT := $(BUILD)/kernel-$(FLAVOUR)
ZIMAGE := $(KERNEL_OUT)/arch/arm/boot/zImage
INITRD := $(BUILD)/rootfs/initramfs.cpio

# Elapsed times in progress lines count from the start of this make.
export EBFQ_T0 := $(shell date +%s)
export BUILD

ifeq ($(filter $(FLAVOUR),$(patsubst FRAGMENTS_%,%,$(filter FRAGMENTS_%,$(.VARIABLES)))),)
$(error unknown FLAVOUR '$(FLAVOUR)' (have: $(patsubst FRAGMENTS_%,%,$(filter FRAGMENTS_%,$(.VARIABLES)))))
endif

.PHONY: help deps kernel debug-kernel rootfs module patchset boot check torture soak bench demo clean

help:
	@echo "ebfq: a BFQ I/O scheduler for SD and eMMC boards, built and tested in QEMU"
	@echo
	@echo "  make demo      install what is missing, build, run the quick benchmark"
	@echo "                 on the emmc profile and show ebfq against the others"
	@echo "  make check     the whole test suite on both boards (the CI command)"
	@echo
	@echo "  make deps      apt-get only what is missing, fetch the armhf userland"
	@echo "  make kernel    build build/kernel-\$$FLAVOUR (FLAVOUR=$(FLAVOUR); test, module, debug or prof)"
	@echo "  make module    build ebfq.ko out of tree against build/kernel-module"
	@echo "  make bench     every scheduler on every profile (PROFILE=emmc QUICK=1:"
	@echo "                 one profile, < 10 min); tables and plots in build/bench/"
	@echo "  make patchset  export the kernel patch series to build/patchset/"
	@echo "  make torture   the torture suite on the debug kernel (SCALE=$(SCALE))"
	@echo "  make soak      HOURS=$(HOURS) of verified mixed I/O on the debug kernel"
	@echo "  make rootfs    build the initramfs and the scratch disk template"
	@echo "  make boot      interactive boot: BOARD=vexpress|virt PROFILE=$$(ls board-scripts/profiles | sed 's/.profile//' | paste -sd'|')"
	@echo "                 BOOT=uboot: U-Boot from a partitioned disk image (virt)"
	@echo "                 BOOT=sd: that image as the SD card, root=/dev/mmcblk0p2"
	@echo "  make clean     remove build/ outputs but keep the extracted tree and downloads"

deps:
	@scripts/deps.sh

kernel: deps
	@scripts/kernel.sh $(FLAVOUR) $(BASE_DEFCONFIG) $(FRAGMENTS_$(FLAVOUR))

rootfs: deps kernel
	@scripts/rootfs.sh

# BOOT=uboot: Debian's U-Boot boots a partitioned disk image of the module
# kernel (FIT and boot.scr on FAT, root on ext4, ebfq.ko loaded by the mdev
# rule), the way a distribution's board boots. BOOT=sd: the same image as
# the board's SD card, the module kernel given by QEMU with
# root=/dev/mmcblk0p2, the way a board with a vendor's boot loader boots.
BOOT ?= kernel
ifeq ($(filter $(BOOT),kernel uboot sd),)
$(error unknown BOOT '$(BOOT)' (kernel: -kernel and -initrd; uboot: U-Boot and a disk image; sd: -kernel and the image as SD card))
endif

boot: kernel rootfs $(if $(filter uboot sd,$(BOOT)),module)
ifneq ($(filter uboot sd,$(BOOT)),)
	@scripts/boot.sh $(BOARD) $(PROFILE) $(BUILD)/kernel-module/arch/arm/boot/zImage $(INITRD) $(BOOT)
else
	@scripts/boot.sh $(BOARD) $(PROFILE) $(ZIMAGE) $(INITRD) shell
endif

# The benchmark runs the module kernel with ebfq.ko: no lockdep, and every
# scheduler in one kernel. PROFILE on the command line picks one profile.
BENCH_PROFILES := $(if $(filter command line,$(origin PROFILE)),$(PROFILE),sd sd-uhs emmc)

bench: rootfs module
	@scripts/bench.sh $(if $(QUICK),--quick) $(BENCH_PROFILES)

demo: rootfs module
	@scripts/bench.sh --quick emmc
	@sed -n '/^## Start-up time, replay/,/^## Start-up time, real/p' build/bench/emmc/results.md | sed '$$d'
	@echo "Tables: build/bench/emmc/results.md; plot: build/bench/emmc/startup.png"

# The out-of-tree module, against a kernel that does not build ebfq in.
module: deps rootfs
	@scripts/kernel.sh module $(BASE_DEFCONFIG) $(FRAGMENTS_module)
	@scripts/module.sh $(BUILD)/kernel-module $(BUILD)/module

patchset: kernel
	@scripts/patchset.sh $(BUILD)/patchset

# The debug kernel, for the torture suite (tests/guest/8xx).
debug-kernel: deps
	@scripts/kernel.sh debug $(BASE_DEFCONFIG) $(FRAGMENTS_debug)

check: kernel rootfs module patchset debug-kernel
	@KERNEL=$(ZIMAGE) INITRD=$(INITRD) tests/run-host.sh

# The torture suite alone, on the debug kernel, ten times as hard as in
# make check (SCALE=n); make soak: HOURS (default 1) of mixed, verified
# I/O through random scheduler switches, with the suite's leak check.
SCALE ?= 10
HOURS ?= 1
torture: rootfs debug-kernel
	@EBFQ_SCALE=$(SCALE) HOST_TESTS=0 tests/run-host.sh virt-debug

soak: rootfs debug-kernel
	@EBFQ_SOAK_SECS=$$(awk 'BEGIN { printf "%d", $(HOURS) * 3600 }') HOST_TESTS=0 tests/run-host.sh virt-soak

clean:
	rm -rf $(BUILD)/kernel-* $(BUILD)/rootfs $(BUILD)/logs $(BUILD)/bench $(BUILD)/armhf/stage $(BUILD)/armhf/root
