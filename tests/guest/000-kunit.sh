# SPDX-License-Identifier: GPL-2.0
# The KUnit suites of ebfq ran at boot (built in): report every case of
# every ebfq suite from KUnit's own results in debugfs, one test point
# each, so that a failing case fails the run. The host also reads the
# KTAP lines on the console.

requires() {
	zcat /proc/config.gz | grep -q '^CONFIG_IOSCHED_EBFQ_KUNIT_TEST=y' ||
		{ echo "kernel built without CONFIG_IOSCHED_EBFQ_KUNIT_TEST"; return 1; }
	[ -d /sys/kernel/debug/kunit ] ||
		{ echo "needs CONFIG_KUNIT_DEBUGFS and debugfs mounted"; return 1; }
}

run() {
	found=0
	for suite in /sys/kernel/debug/kunit/ebfq-*; do
		[ -r "$suite/results" ] || continue
		found=$((found + 1))
		name=$(basename "$suite")
		cases=0
		while read -r line; do
			case $line in
			"ok "[0-9]*" ebfq_test_"*"# SKIP"*)
				skip "kunit $name: $(echo "$line" | cut -d' ' -f3)" "${line#*# SKIP}"
				;;
			"ok "[0-9]*" ebfq_test_"*)
				ok "kunit $name: $(echo "$line" | cut -d' ' -f3)"
				;;
			"not ok "[0-9]*" ebfq_test_"*)
				not_ok "kunit $name: $(echo "$line" | cut -d' ' -f4)" "$line"
				;;
			*) continue ;;
			esac
			cases=$((cases + 1))
		done <"$suite/results"
		[ "$cases" -gt 0 ] || not_ok "kunit $name: reported cases" "no case in $suite/results"
	done
	[ "$found" -gt 0 ] || not_ok "ebfq KUnit suites ran" "no /sys/kernel/debug/kunit/ebfq-*"
}
