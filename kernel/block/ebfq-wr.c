// SPDX-License-Identifier: GPL-2.0
/*
 * ebfq: responsiveness. Weight raising of interactive and soft real-time
 * queues, what a turn is charged (async writes, slow queues), and how many
 * requests of other queues the device may hold while a raised queue needs
 * it.
 *
 * Raising multiplies a queue's weight by wr_coeff and leaves the rest to
 * B-WF2Q+: nothing here serves a queue out of the engine's order, except
 * that a raised queue that becomes busy, or eligible, ends the turn of a
 * queue that is not raised, and that while a raised queue in service
 * thinks, another raised queue's request may use the idle device (it is
 * charged all the same). Every rule here is off with low_latency=0.
 */
#include <linux/blk-mq.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>

#include "ebfq-iosched.h"

/*
 * Interactive raising lasts as long as a reference application start-up,
 * ebfq_wr_ref_sectors of reads (64 MiB, a browser or an office suite with
 * its libraries), takes on the idle device, times the slowdown we accept
 * under load, within [min, max]: a start-up that outlives its raising is
 * left to crawl at its plain weight. Until the peak rate is measured, the
 * device is taken to read ebfq_wr_default_rate sectors/s (10 MiB/s, a
 * class 10 card).
 */
static const u64 ebfq_wr_ref_sectors = 131072;
static const unsigned int ebfq_wr_ref_slowdown = 3;
static const u64 ebfq_wr_min_duration_ns = 2ULL * NSEC_PER_SEC;
static const u64 ebfq_wr_max_duration_ns = 20ULL * NSEC_PER_SEC;
static const u64 ebfq_wr_default_rate = 20480;

/*
 * An interactive queue of the default weight (BE level 4, 40) that reads
 * twice the reference start-up while raised is a streamer; a queue of
 * another weight in proportion to its weight, and, with wr_groups (which
 * raises the groups too), to its groups' weights (ebfq_group_scale()).
 * Raised queues that stream side by side receive service in proportion to
 * those weights, so they all lose their raising together, and their
 * shares stay as the weights say instead of the heaviest one starving
 * until the others catch up.
 */
static const unsigned long ebfq_wr_heavy_sectors = 2 * 131072;
static const unsigned int ebfq_wr_heavy_weight = 40;

/*
 * Queues born less than ebfq_burst_gap_ns after the one before them (kin
 * of it: ebfq_burst_kin_gap_ns) form a burst; ebfq_burst_large or more of
 * them are the workers of one batch (make -j, a benchmark's jobs, a
 * parallel copy), not applications the user is waiting for: none of them
 * is raised as interactive.
 */
static const u64 ebfq_burst_gap_ns = 200 * NSEC_PER_MSEC;
static const unsigned int ebfq_burst_large = 8;

/*
 * A queue of the same family as the one born before it (ebfq_task_family():
 * a sibling process, or a thread of the same process) joins its burst if
 * born less than this (ns) after it: a batch's parent forks its workers one
 * after the other, and on a slow board whose CPU the first workers' I/O
 * already keeps busy (a card without DMA), the last ones come hundreds of
 * milliseconds late; a worker raised as interactive would then stream at
 * a start-up's weight for the whole raising.
 */
static const u64 ebfq_burst_kin_gap_ns = NSEC_PER_SEC;

/*
 * A queue is soft real-time if it comes back no earlier than its last busy
 * period's service allows at wr_max_softrt_rate, and after being idle
 * longer than slice_idle plus this (ns): one that is back within the time
 * idling would have waited for it is a continuing stream that was not
 * idled for (a reader slowed by a busy CPU, one among several of its
 * group), not a periodic one.
 */
static const u64 ebfq_softrt_min_idle_ns = 4 * NSEC_PER_MSEC;

/*
 * A soft real-time queue stays one while it asks, on average, no more than
 * wr_max_softrt_rate, and runs at most this far (ns) ahead of that rate:
 * a player woken late, or whose chunk came late, catches up at once, with
 * no idle period in between, and must not lose its raising for it, which
 * would make it later still.
 */
static const u64 ebfq_softrt_slack_ns = 100 * NSEC_PER_MSEC;

/* Requests of queues not raised the device may hold while any is raised. */
static const unsigned int ebfq_wr_others_in_driver = 1;

/*
 * A request sent while a raised queue in service thinks (ebfq_wr_inject())
 * takes the device at most this long (ns) at the peak rate, or is at most
 * ebfq_inject_min_sectors (128 KiB): were the queue in service to come
 * back at once, it would wait that long at worst.
 */
static const u64 ebfq_inject_max_ns = 4 * NSEC_PER_MSEC;
static const unsigned long ebfq_inject_min_sectors = 256;

/*
 * Writes in the device at a time: as many sectors as it writes in this
 * long (ns) at its current rate, at least ebfq_write_window_min (128 KiB).
 */
static const u64 ebfq_write_window_ns = 16 * NSEC_PER_MSEC;
static const unsigned long ebfq_write_window_min = 256;

/*
 * Async service is charged this many times over: writes cost the card more
 * than they seem to, and nobody waits for them.
 */
static const unsigned int ebfq_async_charge_factor = 10;

/* A sync turn shorter than this (ns) says nothing about the queue's rate. */
static const u64 ebfq_slow_min_turn_ns = 20 * NSEC_PER_MSEC;

const char *const ebfq_wr_names[EBFQ_NR_WR_KINDS] = {
	[EBFQ_WR_NONE]		= "none",
	[EBFQ_WR_INTERACTIVE]	= "interactive",
	[EBFQ_WR_SOFT_RT]	= "soft-rt",
};

/* ------------------------------------------------------------------ */
/* The arithmetic, free of any state (KUnit: ebfq-wr-test.c).          */

/**
 * ebfq_wr_duration_ns - how long interactive raising lasts
 * @peak_rate: the device's peak rate, sectors/s; 0 if not measured yet
 * @max_time_ms: the wr_max_time tunable; 0 derives it from @peak_rate
 */
u64 ebfq_wr_duration_ns(u64 peak_rate, unsigned int max_time_ms)
{
	u64 ns;

	if (max_time_ms)
		return (u64)max_time_ms * NSEC_PER_MSEC;
	if (!peak_rate)
		peak_rate = ebfq_wr_default_rate;
	ns = div64_u64(ebfq_wr_ref_sectors * ebfq_wr_ref_slowdown * NSEC_PER_SEC,
		       peak_rate);
	return clamp(ns, ebfq_wr_min_duration_ns, ebfq_wr_max_duration_ns);
}

/* How long @service sectors take at @rate sectors/s, in ns. */
static u64 ebfq_softrt_period_ns(unsigned long service, unsigned int rate)
{
	return div_u64((u64)service * NSEC_PER_SEC, max(rate, 1U));
}

/**
 * ebfq_softrt_next_start - the earliest arrival that is still soft-RT
 * @busy_start_ns: when the queue's last busy period began
 * @busy_service: sectors dispatched in it
 * @max_rate: the highest rate a soft real-time queue asks, sectors/s
 * @idle_start_ns: when the queue went idle
 * @min_idle_ns: the shortest idle period that counts
 *
 * A queue that asks for @busy_service sectors every period and no more
 * than @max_rate comes back no earlier than the returned time.
 */
u64 ebfq_softrt_next_start(u64 busy_start_ns, unsigned long busy_service,
			   unsigned int max_rate, u64 idle_start_ns,
			   u64 min_idle_ns)
{
	u64 next = busy_start_ns +
		   ebfq_softrt_period_ns(busy_service, max_rate);

	return max(next, idle_start_ns + min_idle_ns);
}

/**
 * ebfq_softrt_next_kept - the earliest arrival a soft-RT queue stays one
 * @next_ns: the earliest arrival its last busy period could have begun at
 * @busy_start_ns: when that busy period began
 * @busy_service: sectors dispatched in it
 * @max_rate: the highest rate a soft real-time queue asks, sectors/s
 * @slack_ns: how far ahead of @max_rate it may run
 *
 * A token bucket: each busy period moves a clock forward by its service at
 * @max_rate, from when it began, or from where the clock was if that is
 * later, but never from more than @slack_ns before it began. A queue back
 * no earlier than the clock has asked for no more than @max_rate, give or
 * take @slack_ns of it, however its arrivals were spaced.
 */
u64 ebfq_softrt_next_kept(u64 next_ns, u64 busy_start_ns,
			  unsigned long busy_service, unsigned int max_rate,
			  u64 slack_ns)
{
	u64 from = busy_start_ns - min(busy_start_ns, slack_ns);

	return max(next_ns, from) +
	       ebfq_softrt_period_ns(busy_service, max_rate);
}

/**
 * ebfq_time_charge - what a sync turn is charged, in sectors
 * @service: sectors the queue received in the turn
 * @budget: its budget
 * @max_budget: the device's max_budget
 * @elapsed_ns: from its first dispatch to its expiration
 * @timeout_ms: the sync budget timeout
 * @peak_rate: the device's peak rate, sectors/s
 * @reason: why the turn ended
 *
 * A queue that held the device while it was served slowly (at less than
 * half the peak rate), or that timed out with a third of its budget left,
 * is charged for the time it held the device, max_budget per timeout,
 * rather than for its sectors: otherwise a seeky or thinking process would
 * take the device's time from everyone at a bargain.
 */
unsigned long ebfq_time_charge(unsigned long service, unsigned long budget,
			       unsigned long max_budget, u64 elapsed_ns,
			       unsigned int timeout_ms, u64 peak_rate,
			       enum ebfq_expire_reason reason)
{
	u64 timeout_ns = (u64)max(timeout_ms, 1U) * NSEC_PER_MSEC;
	bool slow, short_timeout;
	u64 by_time;

	slow = peak_rate && elapsed_ns >= ebfq_slow_min_turn_ns &&
	       (u64)service * NSEC_PER_SEC * 2 < peak_rate * elapsed_ns;
	short_timeout = reason == EBFQ_EXP_TIMEOUT &&
			(u64)service * 3 <= (u64)budget * 2;
	if (!slow && !short_timeout)
		return service;

	/* A turn lasts at most its timeout, plus an idle wait: cap it. */
	elapsed_ns = min(elapsed_ns, 2 * timeout_ns);
	by_time = div64_u64((u64)max_budget * elapsed_ns, timeout_ns);
	return max_t(u64, service, by_time);
}

/**
 * ebfq_rate_filter - the peak rate after a new sample
 * @peak_rate: the current estimate, sectors/s; 0 if none
 * @sample: the rate of the last busy window, sectors/s
 *
 * A peak is a maximum: a higher sample is followed at once (three quarters
 * of the way), a lower one slowly (an eighth), so that a stretch of small
 * seeky requests does not make the device look slow.
 */
u64 ebfq_rate_filter(u64 peak_rate, u64 sample)
{
	if (!peak_rate)
		return sample;
	if (sample > peak_rate)
		return (peak_rate + 3 * sample) / 4;
	return (7 * peak_rate + sample) / 8;
}

/* ------------------------------------------------------------------ */
/* Weight raising.                                                     */

static void ebfq_wr_set_weight(struct ebfq_queue *bq)
{
	/* The engine applies it at the queue's next turn. */
	bq->entity.new_weight = bq->orig_weight * bq->wr_coeff;
}

/**
 * ebfq_wr_queue_init - a new queue, not raised
 * @bq: the queue
 */
void ebfq_wr_queue_init(struct ebfq_queue *bq)
{
	bq->wr_kind = EBFQ_WR_NONE;
	bq->wr_coeff = 1;
	INIT_LIST_HEAD(&bq->wr_node);
}

static void ebfq_wr_start(struct ebfq_data *ed, struct ebfq_queue *bq,
			  enum ebfq_wr_kind kind, u64 now)
{
	u64 duration;

	if (kind == EBFQ_WR_INTERACTIVE)
		duration = ebfq_wr_duration_ns(ed->peak_rate,
					       ed->tun.wr_max_time_ms);
	else
		duration = (u64)ed->tun.wr_rt_max_time_ms * NSEC_PER_MSEC;

	if (!ebfq_wr_raised(bq)) {
		list_add_tail(&bq->wr_node, &ed->wr_queues);
		/* ->limit_depth() reads it without the lock. */
		WRITE_ONCE(ed->wr_nr, ed->wr_nr + 1);
		/* Its groups count it; with wr_groups they are raised. */
		ebfq_group_raised(ed, bq->group, 1);
	}
	/* A soft-RT queue that keeps its pattern renews its raising. */
	if (bq->wr_kind != kind || kind == EBFQ_WR_INTERACTIVE) {
		ed->wr_started[kind]++;
		bq->wr_start_ns = now;
		bq->wr_service = 0;
		/* A new soft-RT queue has its whole slack. */
		if (kind == EBFQ_WR_SOFT_RT)
			bq->softrt_next_ns = 0;
	}
	bq->wr_kind = kind;
	bq->wr_end_ns = now + duration;
	bq->wr_coeff = ed->tun.wr_coeff;
	ebfq_wr_set_weight(bq);
	if (ed->wr_nr == 1 || bq->wr_end_ns < ed->wr_next_end_ns)
		ed->wr_next_end_ns = bq->wr_end_ns;
}

/**
 * ebfq_wr_stop - end a queue's raising, if it is raised
 * @ed: the device
 * @bq: the queue
 *
 * Also called before a queue is freed.
 */
void ebfq_wr_stop(struct ebfq_data *ed, struct ebfq_queue *bq)
{
	lockdep_assert_held(&ed->lock);

	if (!ebfq_wr_raised(bq))
		return;
	list_del_init(&bq->wr_node);
	WRITE_ONCE(ed->wr_nr, ed->wr_nr - 1);
	ebfq_group_raised(ed, bq->group, -1);
	bq->wr_kind = EBFQ_WR_NONE;
	bq->wr_coeff = 1;
	ebfq_wr_set_weight(bq);
}

/**
 * ebfq_wr_stop_all - end every raising (low_latency was turned off)
 * @ed: the device
 */
void ebfq_wr_stop_all(struct ebfq_data *ed)
{
	struct ebfq_queue *bq, *tmp;

	lockdep_assert_held(&ed->lock);

	list_for_each_entry_safe(bq, tmp, &ed->wr_queues, wr_node)
		ebfq_wr_stop(ed, bq);
}

/*
 * An interactive queue whose raising is up, and that asked on average no
 * more than wr_max_softrt_rate over its raising: a player raised as it
 * started, and playing now. At its plain weight, its next chunk would
 * wait for a whole turn of the queue in service (a writer's, say), come
 * late, and the next ones, read at once to catch up, would never show
 * the idle periods the soft real-time rule looks for. As a soft real-time
 * queue with its whole slack, it keeps its raising at each arrival only
 * while ebfq_softrt_next_kept() says so.
 */
static bool ebfq_wr_goes_softrt(const struct ebfq_data *ed,
				const struct ebfq_queue *bq)
{
	/* At most 2^21 sectors/s for at most a minute: no overflow. */
	u64 raised_ns = bq->wr_end_ns - bq->wr_start_ns;

	return bq->wr_kind == EBFQ_WR_INTERACTIVE &&
	       (u64)bq->wr_service * NSEC_PER_SEC <=
	       (u64)ed->tun.wr_max_softrt_rate * raised_ns;
}

/* A raising whose time is up ends, or goes on as soft real-time. */
static void ebfq_wr_expire(struct ebfq_data *ed, struct ebfq_queue *bq,
			   u64 now)
{
	if (ebfq_wr_goes_softrt(ed, bq)) {
		ed->wr_handed_over++;
		ebfq_wr_start(ed, bq, EBFQ_WR_SOFT_RT, now);
	} else {
		ebfq_wr_stop(ed, bq);
	}
}

/**
 * ebfq_wr_check - end the raisings whose time is up
 * @ed: the device
 * @now: ebfq_now()
 *
 * An interactive queue that already behaves as a soft real-time one is
 * raised as one instead (ebfq_wr_goes_softrt()). Cheap when nothing is
 * due: called on every dispatch.
 */
void ebfq_wr_check(struct ebfq_data *ed, u64 now)
{
	struct ebfq_queue *bq, *tmp;
	u64 next = U64_MAX;

	lockdep_assert_held(&ed->lock);

	if (!ed->wr_nr || now < ed->wr_next_end_ns)
		return;
	list_for_each_entry_safe(bq, tmp, &ed->wr_queues, wr_node) {
		if (now >= bq->wr_end_ns)
			ebfq_wr_expire(ed, bq, now);
		if (ebfq_wr_raised(bq))
			next = min(next, bq->wr_end_ns);
	}
	ed->wr_next_end_ns = next;
}

/**
 * ebfq_task_family - who a task's queues are kin to, for bursts
 * @task: the task that makes a queue
 *
 * Return: the tgid of its process's parent, for the main thread of a
 * process; the tgid of its own process, for another thread.
 */
pid_t ebfq_task_family(struct task_struct *task)
{
	pid_t family;

	if (!thread_group_leader(task))
		return task_tgid_nr(task);
	rcu_read_lock();
	family = task_tgid_nr(rcu_dereference(task->real_parent));
	rcu_read_unlock();
	return family;
}

/**
 * ebfq_burst_join - a new queue is born: it joins the current burst, or
 * starts one
 * @ed: the device
 * @bq: the queue, its family set
 * @now: ebfq_now()
 *
 * Return: true if the burst it joined is large: the queue is not to be
 * raised, and neither are the others of the burst, then or later, as
 * interactive or as soft real-time: batch workers on a busy CPU read in
 * bursts too.
 */
bool ebfq_burst_join(struct ebfq_data *ed, struct ebfq_queue *bq, u64 now)
{
	u64 gap = bq->family == ed->burst_family ? ebfq_burst_kin_gap_ns :
						   ebfq_burst_gap_ns;
	struct ebfq_queue *it, *tmp;

	lockdep_assert_held(&ed->lock);

	if (!ed->burst_size || now - ed->burst_last_ns > gap) {
		ed->burst_id++;
		ed->burst_size = 0;
		ed->burst_large = false;
	}
	ed->burst_last_ns = now;
	ed->burst_family = bq->family;
	ed->burst_size++;
	bq->burst_id = ed->burst_id;
	if (ed->burst_large) {
		__set_bit(EBFQ_QF_LARGE_BURST, &bq->flags);
		return true;
	}
	if (ed->burst_size < ebfq_burst_large)
		return false;

	ed->burst_large = true;
	ed->large_bursts++;
	list_for_each_entry(it, &ed->all_queues, all_node)
		if (it->burst_id == ed->burst_id)
			__set_bit(EBFQ_QF_LARGE_BURST, &it->flags);
	list_for_each_entry_safe(it, tmp, &ed->wr_queues, wr_node)
		if (it->burst_id == ed->burst_id)
			ebfq_wr_stop(ed, it);
	return true;
}

/**
 * ebfq_wr_queue_busy - a queue not in service got work after none
 * @ed: the device
 * @bq: the queue, about to be activated
 * @write: the request that brought it back is a write
 * @now: ebfq_now()
 *
 * Starts a busy period and decides the queue's raising from how it came
 * back: a new queue, unless born in a large burst, or one idle for
 * wr_min_idle_time, is interactive if it came back to read; one that came
 * back no earlier than its soft-RT rule allows is soft real-time; a
 * soft-RT queue that came back too early is no longer.
 *
 * Kernel threads are never raised: the journal and writeback flush what
 * processes wrote (ext4's ordered mode makes the journal's flush of their
 * data synchronous, and it comes back every few seconds after a long
 * idle), and nobody waits at a screen for them. Nor does a process that
 * comes back to write: what an application starting up waits for are its
 * reads.
 *
 * Return: true if the queue is raised, and may preempt one that is not.
 */
bool ebfq_wr_queue_busy(struct ebfq_data *ed, struct ebfq_queue *bq,
			bool write, u64 now)
{
	bool new = !bq->busy_start_ns;
	bool long_idle = !new && now - bq->idle_start_ns >=
			 (u64)ed->tun.wr_min_idle_time_ms * NSEC_PER_MSEC;
	bool softrt;

	lockdep_assert_held(&ed->lock);

	bq->busy_start_ns = now;
	bq->busy_service = 0;

	if (ebfq_wr_raised(bq) && now >= bq->wr_end_ns)
		ebfq_wr_expire(ed, bq, now);
	softrt = !new && now >= bq->softrt_next_ns;
	if (!ed->tun.low_latency || !test_bit(EBFQ_QF_SYNC, &bq->flags) ||
	    test_bit(EBFQ_QF_KTHREAD, &bq->flags) ||
	    test_bit(EBFQ_QF_LARGE_BURST, &bq->flags) ||
	    bq == &ed->oom_queue || bq->entity.new_class_idx == EBFQ_CLASS_IDLE) {
		ebfq_wr_stop(ed, bq);
		return false;
	}

	if (new && ebfq_burst_join(ed, bq, now))
		ebfq_wr_stop(ed, bq);
	else if ((new || long_idle) && !write)
		ebfq_wr_start(ed, bq, EBFQ_WR_INTERACTIVE, now);
	else if (bq->wr_kind == EBFQ_WR_INTERACTIVE)
		;	/* keeps raising until its time or service is up */
	else if (softrt)
		ebfq_wr_start(ed, bq, EBFQ_WR_SOFT_RT, now);
	else if (ebfq_wr_raised(bq)) {
		ed->wr_ended_early++;
		ebfq_wr_stop(ed, bq);
	}
	return ebfq_wr_raised(bq);
}

/**
 * ebfq_wr_queue_idle - a queue's busy period ended
 * @ed: the device
 * @bq: the queue, now without requests and out of service
 * @now: when it went idle (ebfq_now(), or earlier)
 *
 * Sets the earliest arrival at which the queue will be soft real-time: as
 * ebfq_softrt_next_start() says for one that is not yet, as
 * ebfq_softrt_next_kept() says for one that is; none for one that a
 * raised queue takes the device from. A queue cut off by its budget or
 * its timeout does not go idle: its busy period goes on, and counts its
 * whole service.
 */
void ebfq_wr_queue_idle(struct ebfq_data *ed, struct ebfq_queue *bq, u64 now)
{
	unsigned int rate = ed->tun.wr_max_softrt_rate;

	lockdep_assert_held(&ed->lock);

	bq->idle_start_ns = now;
	if (bq->wr_kind == EBFQ_WR_SOFT_RT)
		bq->softrt_next_ns =
			ebfq_softrt_next_kept(bq->softrt_next_ns,
					      bq->busy_start_ns,
					      bq->busy_service, rate,
					      ebfq_softrt_slack_ns);
	else if (ebfq_wr_preempts(ed, bq))
		/*
		 * Not idled for: a raised queue takes the device. How long
		 * this one stays away says how long the raised ones keep the
		 * device (and, where the CPU paces the readers, the CPU), not
		 * how periodic it is: a streamer among readers raised as they
		 * started would come back as soft real-time when their
		 * raising ends, and stay so, never idled for.
		 */
		bq->softrt_next_ns = U64_MAX;
	else
		bq->softrt_next_ns =
			ebfq_softrt_next_start(bq->busy_start_ns,
					       bq->busy_service, rate, now,
					       ed->tun.slice_idle_ns +
					       ebfq_softrt_min_idle_ns);
}

/**
 * ebfq_wr_dispatched - a request of @bq went to the driver
 * @ed: the device
 * @bq: its queue
 * @sectors: its size
 *
 * An interactive queue that reads more than any application start-up is a
 * streamer: its raising ends (ebfq_wr_heavy_sectors).
 */
void ebfq_wr_dispatched(struct ebfq_data *ed, struct ebfq_queue *bq,
			unsigned long sectors)
{
	unsigned long heavy;

	lockdep_assert_held(&ed->lock);

	bq->busy_service += sectors;
	if (bq->wr_kind != EBFQ_WR_INTERACTIVE)
		return;
	bq->wr_service += sectors;
	heavy = div_u64((u64)ebfq_wr_heavy_sectors * bq->orig_weight,
			ebfq_wr_heavy_weight);
	if (ed->tun.wr_groups)
		heavy = ebfq_group_scale(bq->group, heavy);
	if (bq->wr_service > heavy) {
		ed->wr_ended_heavy++;
		ebfq_wr_stop(ed, bq);
	}
}

/**
 * ebfq_wr_preempts - whether a raised queue takes the device from @bq
 * @ed: the device
 * @bq: the queue in service
 *
 * A raised queue that becomes busy takes the device at once (see
 * ebfq_add_request()). One that stayed busy past the end of its turn
 * starts its next turn at its finish time, a little after the virtual
 * time: B-WF2Q+ then serves another queue, whose whole turn (up to its
 * timeout) a start-up would wait for. Once the raised queue is eligible
 * again, the queue in service has had its share: if it is not raised, it
 * gives the device back now. Cheap: a walk of the few raised queues, only
 * while some are.
 */
bool ebfq_wr_preempts(struct ebfq_data *ed, struct ebfq_queue *bq)
{
	struct ebfq_queue *it;

	lockdep_assert_held(&ed->lock);

	if (!ed->wr_nr || ebfq_wr_raised(bq))
		return false;
	list_for_each_entry(it, &ed->wr_queues, wr_node)
		if (ebfq_entity_path_eligible(&it->entity))
			return true;
	return false;
}

/**
 * ebfq_wr_rivals - whether another raised queue would take @bq's shares
 * @ed: the device
 * @bq: a raised queue in service, now empty
 *
 * A raised queue that comes back takes the device from one that is not,
 * but not from another raised queue. So, if @bq is not waited for, a
 * raised queue of another group or weight takes the device until its own
 * turn ends, and between such queues the shares follow who asks first
 * rather than the weights: readers that the CPU paces, raised as they
 * started and then as soft real-time, for one. Cheap: a walk of the few
 * raised queues.
 */
bool ebfq_wr_rivals(struct ebfq_data *ed, struct ebfq_queue *bq)
{
	struct ebfq_queue *it;

	lockdep_assert_held(&ed->lock);

	list_for_each_entry(it, &ed->wr_queues, wr_node)
		if (it != bq &&
		    !ebfq_entity_same_share(&it->entity, &bq->entity))
			return true;
	return false;
}

/*
 * Whether @rq, the next request of raised queue @bq, may go out of turn:
 * its queue's budget has room for it and the device queue does not hold
 * it. ebfq_entity_charge() then charges it to @bq.
 */
static bool ebfq_wr_may_go(const struct ebfq_data *ed,
			   const struct ebfq_queue *bq,
			   const struct request *rq)
{
	return bq->entity.service + blk_rq_sectors(rq) <= bq->entity.budget &&
	       !ebfq_dq_hold(ed, bq, rq);
}

/**
 * ebfq_wr_inject - a request to send while the raised queue in service thinks
 * @ed: the device
 * @bq: the queue in service
 *
 * Two programs starting up at once are both raised and neither preempts
 * the other: each would wait for the other's whole turn, most of which is
 * spent idling while that one thinks (a copy reads a file, writes it, and
 * reads the next). So, while the device idles for @bq, raised, one small
 * request of a raised sync peer of @bq (same scheduler, class and weight)
 * may go, if that peer's next turn's budget has room for it; of several,
 * the one with the smallest finish. The engine charges it to that queue
 * (ebfq_entity_charge()): it moves the peer's finish as service in its
 * own turn would, so between peers it changes when each is served, not
 * how much, and the budget bounds how far ahead a peer can get.
 *
 * Between queues of different weights or groups, idling is what keeps
 * the shares (ebfq_may_idle()): readers that think longer than the device
 * takes would otherwise share it by how fast they ask, not by weight.
 * Queues not raised are never sent: their requests would delay @bq,
 * which raising protects. Nor is anything sent while @bq waits for its
 * own requests: it is not thinking then.
 *
 * Does not dispatch: ->has_work() asks the same question.
 *
 * Return: the request, still queued, or NULL.
 */
struct request *ebfq_wr_inject(struct ebfq_data *ed, struct ebfq_queue *bq)
{
	struct request *best = NULL;
	struct ebfq_entity *best_entity = NULL;
	unsigned long max_sectors;
	struct ebfq_queue *it;

	lockdep_assert_held(&ed->lock);

	if (!ed->tun.low_latency || ed->tun.strict_guarantees ||
	    ed->wr_nr < 2 || !ebfq_wr_raised(bq) || ed->in_driver ||
	    !test_bit(EBFQ_QF_IDLING, &bq->flags))
		return NULL;

	max_sectors = max_t(unsigned long, ebfq_inject_min_sectors,
			    div_u64(ed->peak_rate * ebfq_inject_max_ns,
				    NSEC_PER_SEC));
	list_for_each_entry(it, &ed->wr_queues, wr_node) {
		struct ebfq_entity *entity = &it->entity;
		struct request *rq;

		if (it == bq || !test_bit(EBFQ_QF_SYNC, &it->flags) ||
		    !ebfq_entity_same_share(entity, &bq->entity) ||
		    entity->class_idx != bq->entity.class_idx ||
		    entity->where != EBFQ_ACTIVE ||
		    (best_entity && !ebfq_vt_before(entity->finish,
						    best_entity->finish)))
			continue;
		rq = ebfq_choose_request(ed, it);
		if (blk_rq_sectors(rq) > max_sectors ||
		    !ebfq_wr_may_go(ed, it, rq))
			continue;
		best = rq;
		best_entity = entity;
	}
	return best;
}

/* ------------------------------------------------------------------ */
/* Charging and the device queue.                                      */

/**
 * ebfq_wr_charge - what the turn of @bq that ends is charged, in sectors
 * @ed: the device
 * @bq: the queue in service
 * @reason: why its turn ends
 * @now: ebfq_now()
 */
unsigned long ebfq_wr_charge(struct ebfq_data *ed, struct ebfq_queue *bq,
			     enum ebfq_expire_reason reason, u64 now)
{
	unsigned long service = bq->entity.service;

	lockdep_assert_held(&ed->lock);

	if (!ed->tun.low_latency || !service)
		return service;
	if (!test_bit(EBFQ_QF_SYNC, &bq->flags))
		return service * ebfq_async_charge_factor;
	/* Raised queues are meant to get the device; preempted ones lost it. */
	if (ebfq_wr_raised(bq) || reason == EBFQ_EXP_PREEMPTED)
		return service;
	return ebfq_time_charge(service, bq->entity.budget, ebfq_max_budget(ed),
				now - bq->turn_start_ns, ed->tun.timeout_ms[1],
				ed->peak_rate, reason);
}

/**
 * ebfq_write_window - sectors of writes the device may hold
 * @peak_rate: the device's peak rate, sectors/s; 0 if not measured yet
 * @last_rate: the rate of its last busy window, sectors/s; 0 if none
 *
 * As many as it writes in ebfq_write_window_ns at the lower of the two:
 * the peak rate falls slowly (ebfq_rate_filter()), and a device that
 * bursts, as a card does into its cache or QEMU's throttle into its
 * bucket, shows a peak many times what it sustains under a flood of
 * writes; for seconds after the flood starts, a window at the peak would
 * let in that many times the writes a reader must then wait for.
 */
unsigned long ebfq_write_window(u64 peak_rate, u64 last_rate)
{
	u64 rate = min_not_zero(peak_rate, last_rate) ?: ebfq_wr_default_rate;

	return max_t(unsigned long,
		     div_u64(rate * ebfq_write_window_ns, NSEC_PER_SEC),
		     ebfq_write_window_min);
}

/**
 * ebfq_dq_hold - whether a request must not go to the device yet
 * @ed: the device
 * @bq: the queue in service
 * @rq: the request it would dispatch
 *
 * On a deep device queue (virtio, eMMC command queueing, NCQ) a read
 * waits behind every request already in the device, and the device
 * cannot be preempted. So, with low_latency:
 *  - while any queue is raised, a queue that is not may have only
 *    ebfq_wr_others_in_driver requests in the device;
 *  - writes never fill the device with more than ebfq_write_window_ns of
 *    work at the peak rate: a reader that comes (an application starting,
 *    a soft real-time chunk) then finds at most that much before it. One
 *    write may always go, however large.
 * Either holds only while requests are in flight, whose completion brings
 * the next dispatch.
 */
bool ebfq_dq_hold(const struct ebfq_data *ed, const struct ebfq_queue *bq,
		  const struct request *rq)
{
	lockdep_assert_held(&ed->lock);

	if (!ed->tun.low_latency)
		return false;
	if (ed->wr_nr && !ebfq_wr_raised(bq) &&
	    ed->in_driver >= ebfq_wr_others_in_driver)
		return true;
	return op_is_write(req_op(rq)) && ed->write_in_driver &&
	       ed->write_in_driver + blk_rq_sectors(rq) >
	       ebfq_write_window(ed->peak_rate, ed->rate_last);
}

/**
 * ebfq_wr_bypass - a raised queue's request to send while @bq's is held
 * @ed: the device
 * @bq: the queue in service, whose next request ebfq_dq_hold() holds
 *
 * B-WF2Q+ may put a queue that is not raised (a journal commit, say)
 * ahead of a raised one whose finish is later, and ebfq_dq_hold() then
 * holds its request for the raised queues' sake, until a request leaves
 * the device: the raised queue would wait for that completion behind the
 * very hold meant to protect it. Likewise behind a raised queue whose
 * write the write window holds. So a request of another raised queue
 * that B-WF2Q+ could choose now (ebfq_entity_path_eligible()), that its
 * budget has room for and that is not held itself, goes first, out of
 * turn; the engine charges it to its queue, as ebfq_wr_inject() does.
 * @bq's request goes when the hold ends, as it would have.
 *
 * Return: the request, still queued, or NULL.
 */
struct request *ebfq_wr_bypass(struct ebfq_data *ed, struct ebfq_queue *bq)
{
	struct ebfq_queue *it;

	lockdep_assert_held(&ed->lock);

	list_for_each_entry(it, &ed->wr_queues, wr_node) {
		struct ebfq_entity *entity = &it->entity;
		struct request *rq;

		if (it == bq || entity->where != EBFQ_ACTIVE ||
		    !ebfq_entity_path_eligible(entity))
			continue;
		rq = ebfq_choose_request(ed, it);
		if (ebfq_wr_may_go(ed, it, rq))
			return rq;
	}
	return NULL;
}
