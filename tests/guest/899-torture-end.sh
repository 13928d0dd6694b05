# SPDX-License-Identifier: GPL-2.0
# The end of the torture suite: kmemleak scans memory (twice, as its
# documentation advises: a leak is reported once it has been seen
# unreferenced in two scans) for what the tests since 800 left behind.

requires() {
	[ -w /sys/kernel/debug/kmemleak ] || { echo "kernel without kmemleak"; return 1; }
}

run() {
	echo scan >/sys/kernel/debug/kmemleak
	sleep 1
	echo scan >/sys/kernel/debug/kmemleak
	leaks=$(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak || true)
	if [ "$leaks" -eq 0 ]; then
		ok "kmemleak: nothing leaked during the torture suite"
	else
		not_ok "kmemleak: nothing leaked during the torture suite" \
			"$leaks unreferenced objects; the first:" \
			"$(head -n 30 /sys/kernel/debug/kmemleak)"
	fi
}
