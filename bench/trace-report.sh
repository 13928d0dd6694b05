#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Where the soft real-time reader's slow reads spent their time, from the
# block tracepoints that scripts/bench.sh --trace records ('# T' lines of
# result.txt): for every run, the reader's reads split into the time from
# the bio's submission to its issue to the driver (the scheduler held it)
# and from issue to completion (the device had it), and for each read
# slower than its period what the device held when it was issued and
# what it completed while the read was in it. Writes DIR/trace.md.
#
#   bench/trace-report.sh DIR
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib.sh"

[ $# -eq 1 ] || die "usage: $0 DIR"
dir=$1
res=$dir/result.txt
[ -f "$res" ] || die "no $res"
grep -q '^# T ' "$res" || die "$res holds no trace (scripts/bench.sh --trace)"

# '# T softrt SCHED REP SECONDS queue RWBS SECTOR SECTORS [COMM]',
# '# T softrt SCHED REP SECONDS issue|complete RWBS SECTOR SECTORS' and
# '# T softrt SCHED REP overrun N', in the order the guest traced them.
awk -v period_ms=40 '
function ms(t) { return sprintf("%.1f", t * 1000) }
function kib(s) { return s / 2 }
function sorted_median(v, n,    i, j, x) {
	for (i = 2; i <= n; i++) {	# insertion sort: mawk has no asort
		x = v[i]
		for (j = i - 1; j >= 1 && v[j] > x; j--)
			v[j + 1] = v[j]
		v[j + 1] = x
	}
	return n ? v[int((n + 1) / 2)] : 0
}
# The end of a run: its summary row, and its slow reads kept for later.
function close_run(    i, nq, nd, q, d, qmax, dmax) {
	if (run == "")
		return
	nq = nd = qmax = dmax = 0
	for (i = 1; i <= nreads; i++) {
		if (!(i in done_t))
			continue
		q = issue_t[i] - queue_t[i]
		d = done_t[i] - issue_t[i]
		qv[++nq] = q
		dv[++nd] = d
		if (q > qmax)
			qmax = q
		if (d > dmax)
			dmax = d
	}
	summary[++nruns] = sprintf("| %s | %d | %d | %s | %s | %s | %s | %s |", run, nq, slow,
				   ms(sorted_median(qv, nq)), ms(qmax),
				   ms(sorted_median(dv, nd)), ms(dmax), overrun[run] + 0)
	split("", qv); split("", dv)
	split("", queue_t); split("", issue_t); split("", done_t)
	split("", rsec); split("", rnr); split("", rdone)
	split("", infl_nr); split("", infl_w)
	nreads = slow = cur = 0
	w_n = w_s = r_n = r_s = 0
	run = ""
}
$1 != "#" || $2 != "T" { next }
{
	this = $4 " " $5
	if ($6 == "overrun") {
		overrun[this] = $7
		next
	}
	if (this != run) {
		close_run()
		run = this
		t0 = $6
	}
	t = $6; ev = $7; rwbs = $8; sec = $9; nr = $10
	write = rwbs ~ /W/
	if (ev == "queue") {
		# The reader: synchronous reads of its own, one at a time.
		if (rwbs ~ /^R/ && $11 == "[ebfq-io]") {
			cur = ++nreads
			queue_t[cur] = t; rsec[cur] = sec; rnr[cur] = nr; rdone[cur] = 0
			w_iss_n = w_iss_s = 0
		}
		next
	}
	mine = cur && !(cur in done_t) && sec >= rsec[cur] && sec < rsec[cur] + rnr[cur]
	if (ev == "issue") {
		if (mine && !(cur in issue_t)) {
			issue_t[cur] = t
			at_issue = sprintf("%d (%d KiB) | %d", w_n, kib(w_s), r_n)
			queued_w = sprintf("%d (%d KiB)", w_iss_n, kib(w_iss_s))
			w_dev_n = w_dev_s = 0
		}
		if (sec in infl_nr)	# issued again (requeued): counted once
			next
		infl_nr[sec] = nr; infl_w[sec] = write
		if (write) {
			w_n++; w_s += nr
			if (cur && !(cur in issue_t)) {
				w_iss_n++; w_iss_s += nr
			}
		} else {
			r_n++; r_s += nr
		}
		next
	}
	# complete
	if (sec in infl_nr) {
		if (infl_w[sec]) {
			w_n--; w_s -= infl_nr[sec]
			if (cur && (cur in issue_t) && !(cur in done_t)) {
				w_dev_n++; w_dev_s += infl_nr[sec]
			}
		} else {
			r_n--; r_s -= infl_nr[sec]
		}
		delete infl_nr[sec]; delete infl_w[sec]
	}
	if (mine && (cur in issue_t)) {
		rdone[cur] += nr
		if (rdone[cur] >= rnr[cur]) {
			done_t[cur] = t
			if ((t - queue_t[cur]) * 1000 > period_ms) {
				slow++
				slowrow[++nslow] = sprintf("| %s | %.2f | %s | %s | %s | %s | %s | %d (%d KiB) |",
					run, t - t0, ms(t - queue_t[cur]), ms(issue_t[cur] - queue_t[cur]),
					ms(t - issue_t[cur]), queued_w, at_issue, w_dev_n, kib(w_dev_s))
			}
		}
	}
}
END {
	close_run()
	print "# Soft real-time reads, traced"
	print ""
	print "From the block tracepoints of `scripts/bench.sh --trace` (block_bio_queue,"
	print "block_rq_issue, block_rq_complete), while the reader ran under the writers."
	print "A read is the reader'"'"'s bio from its submission to its completion:"
	print "*scheduler* is submission to issue to the driver, *device* issue to"
	print "completion. Tracing costs CPU: these runs are for the evidence, not"
	print "the tables."
	print ""
	print "| scheduler rep | reads | slower than " period_ms " ms | scheduler median ms | scheduler max ms | device median ms | device max ms | events lost |"
	print "| --- | --- | --- | --- | --- | --- | --- | --- |"
	for (i = 1; i <= nruns; i++)
		print summary[i]
	print ""
	print "## Reads slower than " period_ms " ms"
	print ""
	if (!nslow) {
		print "None."
		exit
	}
	print "*Writes sent while it waited*: writes issued to the driver between the"
	print "read'"'"'s submission and its issue. *In the driver at its issue*: writes"
	print "(count, KiB) and other reads already there. *Writes completed while it"
	print "was in the device*: what the device finished before it."
	print ""
	print "| scheduler rep | at s | total ms | scheduler ms | device ms | writes sent while it waited | writes in the driver at its issue | reads | writes completed while it was in the device |"
	print "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	for (i = 1; i <= nslow; i++)
		print slowrow[i]
}' "$res" >"$dir/trace.md"
progress bench "trace: ${dir#"$top"/}/trace.md"
