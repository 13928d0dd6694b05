# SPDX-License-Identifier: GPL-2.0
# The torture suite (tests 8xx, after the bugs that hit the kernel's own
# BFQ) runs on the debug kernel (defconfigs/debug.config): this first test
# says which checkers are on, and tells kmemleak to forget what was
# allocated before the suite, so that 899 reports only what the suite
# leaked. ebfq_scale= on the command line sets how hard each test pushes
# (1 in make check, 10 in make torture).

DEBUG_OPTIONS="KASAN UBSAN DEBUG_KMEMLEAK PROVE_LOCKING DEBUG_LIST DEBUG_OBJECTS_TIMERS
DEBUG_ATOMIC_SLEEP IOSCHED_EBFQ_DEBUG FAIL_IO_TIMEOUT BLK_DEV_NULL_BLK_FAULT_INJECTION
BOOTPARAM_HUNG_TASK_PANIC BOOTPARAM_SOFTLOCKUP_PANIC"

requires() {
	zcat /proc/config.gz | grep -q '^CONFIG_KASAN=y' || { echo "not the debug kernel (no KASAN)"; return 1; }
}

run() {
	missing=
	for o in $DEBUG_OPTIONS; do
		zcat /proc/config.gz | grep -q "^CONFIG_$o=y" || missing="$missing $o"
	done
	if [ -z "$missing" ]; then
		ok "the debug kernel has every checker on ($(echo $DEBUG_OPTIONS | wc -w) options)"
	else
		not_ok "the debug kernel has every checker on" "missing:$missing"
	fi
	check "panic_on_warn is set (a KASAN, UBSAN or ebfq report stops the boot)" \
		grep -qw panic_on_warn=1 /proc/cmdline
	note "scale $(ebfq_scale); null_blk faults: $(tr ' ' '\n' </proc/cmdline | grep '^null_blk\.' | tr '\n' ' ')"
	check "kmemleak forgets what was allocated before the suite" \
		sh -c 'echo clear >/sys/kernel/debug/kmemleak'
}
