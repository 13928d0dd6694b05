# SPDX-License-Identifier: GPL-2.0
# The out-of-tree module, on a kernel without ebfq built in: insmod
# ebfq.ko, select it on every device and move data through it, then switch
# away and rmmod it; the scheduler is gone from every device's list.

ko=/usr/lib/ebfq/modules/ebfq.ko

requires() {
	[ -f "$ko" ] || { echo "no $ko in this initramfs (the 'module' boot carries it)"; return 1; }
	if zcat /proc/config.gz | grep -q '^CONFIG_IOSCHED_EBFQ=y'; then
		echo "ebfq is built into this kernel"
		return 1
	fi
	command -v insmod >/dev/null || { echo "needs insmod"; return 1; }
}

run() {
	check "insmod $ko" insmod "$ko"
	check "ebfq is in /proc/modules" grep -q '^ebfq ' /proc/modules
	for dev in $(ebfq_devices); do
		orig=$(current_sched "$dev")
		list=$(schedulers "$dev")
		check "$dev offers ebfq" sh -c "echo '$list' | grep -qx ebfq"
		check "$dev: select ebfq" set_sched "$dev" ebfq
		check "$dev: fio random read/write through the module" \
			fio --name=mod --filename="/dev/$dev" --direct=1 --ioengine=libaio --iodepth=4 \
			--rw=randrw --bs=4k --size="$(size_for "$dev")" --eta=never
		check "$dev: back to $orig" set_sched "$dev" "$orig"
	done
	check "rmmod ebfq" rmmod ebfq
	check "ebfq left /proc/modules" sh -c "! grep -q '^ebfq ' /proc/modules"
	for dev in $(ebfq_devices); do
		list=$(schedulers "$dev")
		check "$dev no longer offers ebfq" sh -c "! echo '$list' | grep -qx ebfq"
	done
	trouble=$(kernel_trouble)
	if [ -z "$trouble" ]; then
		ok "no warning while loading, using and unloading ebfq.ko"
	else
		not_ok "no warning while loading, using and unloading ebfq.ko" "$trouble"
	fi
}
