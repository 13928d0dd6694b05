// SPDX-License-Identifier: GPL-2.0
/*
 * ebfq: Budget Fair Queueing for blk-mq, for SD cards and eMMC.
 *
 * Each process gets a queue for its synchronous I/O (one per io_context),
 * asynchronous I/O goes to queues shared per ioprio class and level. The
 * B-WF2Q+ engine (ebfq-wf2q.c) chooses which queue is served; the queue in
 * service then dispatches its requests, in sector order with a bounded
 * back-seek and a FIFO deadline, until it has received its budget (in
 * sectors), until it has held the device for its timeout, or until it runs
 * dry. When a sync queue runs dry, the device is kept idle for a little
 * while (slice_idle) waiting for the process's next request, which is what
 * lets a process see the device as its own for the length of its turn.
 * Budgets follow what each queue really uses.
 *
 * One lock (ebfq_data.lock) protects a device's whole scheduler; it is
 * taken with interrupts off since completions and the idle timer need it.
 */
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/sbitmap.h>
#include <linux/slab.h>
#include <trace/events/block.h>

#include "elevator.h"
#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-sched.h"
#include "ebfq-iosched.h"

/* A request starting this far (sectors) from the previous end is seeky. */
static const sector_t ebfq_seek_distance = 256;

/* ... unless it is at least this large (sectors). */
static const unsigned int ebfq_seek_large = 256;

/* A queue whose last 32 requests hold more seeky ones than this is seeky. */
static const unsigned int ebfq_seeky_threshold = 8;

/* Budget bounds, sectors: the auto-tuned max_budget stays in between. */
static const unsigned long ebfq_auto_budget_min = 1024;
static const unsigned long ebfq_auto_budget_max = 65536;

/* max_budget until the peak rate is known, sectors (8 MiB). */
static const unsigned long ebfq_default_max_budget = 16384;

/*
 * A rate sample needs this many requests over at least this long (ns):
 * long enough for the tick-resolution clock (ebfq_now()) to be precise.
 */
static const unsigned int ebfq_rate_min_requests = 16;
static const u64 ebfq_rate_min_window_ns = 100 * NSEC_PER_MSEC;

/*
 * A device idle this long (ns) starts a new busy period: who received what
 * before no longer protects anyone, and the idle trees are flushed. Far
 * longer than a process thinks between two requests, which must not
 * forgive what a light queue or group owes.
 */
static const u64 ebfq_busy_period_gap_ns = 100 * NSEC_PER_MSEC;

/*
 * An idle timer that fires this late (ns) says the CPU did not run for a
 * while (a virtual machine the host descheduled, a long section with
 * interrupts off), and the process idled for could not run either: its
 * idle window starts again, once.
 */
static const u64 ebfq_idle_late_ns = NSEC_PER_MSEC;

const char *const ebfq_expire_names[EBFQ_NR_EXPIRE_REASONS] = {
	[EBFQ_EXP_BUDGET]	= "budget",
	[EBFQ_EXP_TIMEOUT]	= "timeout",
	[EBFQ_EXP_TOO_IDLE]	= "too_idle",
	[EBFQ_EXP_EMPTY]	= "empty",
	[EBFQ_EXP_EXITED]	= "exited",
	[EBFQ_EXP_PREEMPTED]	= "preempted",
	[EBFQ_EXP_MOVED]	= "moved",
};

/*
 * rq->elv.priv[1]: NULL, or while the request is in the driver (counted as
 * dispatched) its size at dispatch plus one, for the peak rate: on
 * completion blk_rq_sectors() is 0.
 */
static inline void ebfq_rq_set_in_driver(struct request *rq)
{
	rq->elv.priv[1] = (void *)(uintptr_t)(blk_rq_sectors(rq) + 1);
}

static inline bool ebfq_rq_in_driver(const struct request *rq)
{
	return rq->elv.priv[1];
}

static inline unsigned int ebfq_rq_driver_sectors(const struct request *rq)
{
	return (uintptr_t)rq->elv.priv[1] - 1;
}

/*
 * The scheduler's clock. Times here bound turns (timeout_sync, 125 ms),
 * the idle class's grace (200 ms), FIFO deadlines and rate windows of
 * 100 ms or more: the tick's resolution is enough, and a precise clock
 * read on every dispatch and completion is a cost every I/O would pay.
 * Idling, which needs milliseconds, uses an hrtimer.
 */
static inline u64 ebfq_now(void)
{
	return ktime_get_coarse_ns();
}

static inline struct ebfq_queue *ebfq_rq_queue(struct request *rq)
{
	if (!(rq->rq_flags & RQF_ELVPRIV))
		return NULL;
	return rq->elv.priv[0];
}

/**
 * ebfq_max_budget - the largest budget a queue may get, in sectors
 * @ed: the device
 */
unsigned long ebfq_max_budget(const struct ebfq_data *ed)
{
	return ed->tun.max_budget ?: ed->auto_max_budget;
}

static unsigned long ebfq_min_budget(const struct ebfq_data *ed)
{
	return max(ebfq_max_budget(ed) / 32, 32UL);
}

/**
 * ebfq_budget_feedback - the budget of a sync queue's next turn
 * @budget: the budget of the turn that ended
 * @service: what the queue received in it
 * @reason: why it ended
 * @min_budget: lower bound
 * @max_budget: upper bound
 *
 * A queue that used its whole budget gets twice as much next time, one that
 * ran dry gets what it used, one that timed out keeps its budget.
 */
unsigned long ebfq_budget_feedback(unsigned long budget, unsigned long service,
				   enum ebfq_expire_reason reason,
				   unsigned long min_budget,
				   unsigned long max_budget)
{
	unsigned long next;

	switch (reason) {
	case EBFQ_EXP_BUDGET:
		next = budget * 2;
		break;
	case EBFQ_EXP_TOO_IDLE:
	case EBFQ_EXP_EMPTY:
		next = service;
		break;
	default:
		next = budget;
		break;
	}
	return clamp(next, min_budget, max_budget);
}

/* ------------------------------------------------------------------ */
/* Requests inside a queue.                                            */

static bool ebfq_queue_seeky(const struct ebfq_queue *bq)
{
	return hweight32(bq->seek_history) > ebfq_seeky_threshold;
}

static void ebfq_update_seek(struct ebfq_queue *bq, struct request *rq)
{
	sector_t pos = blk_rq_pos(rq);
	sector_t dist = pos > bq->last_end ? pos - bq->last_end :
					     bq->last_end - pos;
	bool seeky = dist > ebfq_seek_distance &&
		     blk_rq_sectors(rq) < ebfq_seek_large;

	bq->seek_history = (bq->seek_history << 1) | seeky;
	bq->last_end = pos + blk_rq_sectors(rq);
}

/* The in-service queue got a request or expires: stop waiting for it. */
static void ebfq_stop_idling(struct ebfq_data *ed, struct ebfq_queue *bq)
{
	if (__test_and_clear_bit(EBFQ_QF_IDLING, &bq->flags)) {
		hrtimer_try_to_cancel(&ed->idle_timer);
		ebfq_group_stats(ed, bq->group)->idle_ns +=
			ktime_get_ns() - ed->idle_since_ns;
	}
	__clear_bit(EBFQ_QF_WAIT, &bq->flags);
}

static void ebfq_add_request(struct ebfq_data *ed, struct ebfq_queue *bq,
			     struct request *rq, u64 now)
{
	struct request_queue *q = ed->queue;
	bool sync = rq_is_sync(rq);
	enum ebfq_fresh fresh;
	bool raised;

	lockdep_assert_held(&ed->lock);

	ebfq_update_seek(bq, rq);
	elv_rb_add(&bq->sort_list, rq);
	/* New work may be a raised queue's, which nothing holds back. */
	ed->dq_held = false;
	rq->fifo_time = jiffies +
			msecs_to_jiffies(ed->tun.fifo_expire_ms[sync]);
	list_add_tail(&rq->queuelist, &bq->fifo);
	if (rq_mergeable(rq)) {
		elv_rqhash_add(q, rq);
		if (!q->last_merge)
			q->last_merge = rq;
	}

	ed->queued++;
	/* RT or BE work: the idle class's grace no longer holds dispatch. */
	if (bq->entity.new_class_idx != EBFQ_CLASS_IDLE && ed->idle_class_wait) {
		ed->idle_class_wait = false;
		hrtimer_try_to_cancel(&ed->idle_timer);
	}
	if (bq->queued++)
		return;

	if (!ed->busy_queues && !ed->in_service && !ed->in_driver &&
	    now - ed->last_busy_ns > ebfq_busy_period_gap_ns) {
		ebfq_groups_flush_idle(ed);
		ebfq_sd_flush_idle(&ed->root_sd);
	}
	ed->busy_queues++;
	if (bq == ed->in_service) {
		ebfq_stop_idling(ed, bq);
		return;
	}

	/*
	 * A raised queue starts at V: were it to wait for an old finish, it
	 * could not take the device from the queue it preempts below. So do
	 * its groups for a start-up, or with wr_groups; a soft real-time
	 * queue's groups keep their shares.
	 */
	raised = ebfq_wr_queue_busy(ed, bq, op_is_write(req_op(rq)), now);
	if (!raised)
		fresh = EBFQ_REMEMBER;
	else if (bq->wr_kind == EBFQ_WR_INTERACTIVE || ed->tun.wr_groups)
		fresh = EBFQ_FRESH_ALL;
	else
		fresh = EBFQ_FRESH_QUEUE;
	bq->entity.budget = max_t(unsigned long, bq->next_budget,
				  blk_rq_sectors(rq));
	ebfq_entity_activate(&bq->entity, fresh);
	/* A raised queue does not wait for the turn of one that is not. */
	if (raised && ed->in_service && !ebfq_wr_raised(ed->in_service) &&
	    ebfq_entity_path_eligible(&bq->entity)) {
		ed->wr_preemptions++;
		ebfq_expire(ed, ed->in_service, EBFQ_EXP_PREEMPTED);
	}
}

static void ebfq_remove_request(struct ebfq_data *ed, struct request *rq,
				u64 now)
{
	struct ebfq_queue *bq = ebfq_rq_queue(rq);
	struct request_queue *q = ed->queue;

	lockdep_assert_held(&ed->lock);

	list_del_init(&rq->queuelist);
	if (!RB_EMPTY_NODE(&rq->rb_node))
		elv_rb_del(&bq->sort_list, rq);
	elv_rqhash_del(q, rq);
	if (q->last_merge == rq)
		q->last_merge = NULL;

	ed->queued--;
	if (--bq->queued)
		return;
	ed->busy_queues--;
	/* The request still holds a reference: this cannot free bq. */
	if (bq->entity.where == EBFQ_ACTIVE) {
		ebfq_entity_deactivate(&bq->entity);
		ebfq_wr_queue_idle(ed, bq, now);
	}
}

/* The first request at or after @pos, and the last one before it. */
static void ebfq_find_around(struct ebfq_queue *bq, sector_t pos,
			     struct request **after, struct request **before)
{
	struct rb_node *node = bq->sort_list.rb_node;

	*after = NULL;
	*before = NULL;
	while (node) {
		struct request *rq = rb_entry_rq(node);

		if (blk_rq_pos(rq) >= pos) {
			*after = rq;
			node = node->rb_left;
		} else {
			*before = rq;
			node = node->rb_right;
		}
	}
}

/*
 * The request to serve next in @bq: one whose FIFO deadline passed, else
 * the nearest one ahead of the head, unless one behind it is within
 * back_seek_max and back_seek_penalty times closer.
 */
struct request *ebfq_choose_request(struct ebfq_data *ed,
				    struct ebfq_queue *bq)
{
	struct request *rq, *after, *before;
	sector_t back_max = (sector_t)ed->tun.back_seek_max * 2;
	sector_t fwd, back;

	rq = list_first_entry(&bq->fifo, struct request, queuelist);
	if (time_after_eq(jiffies, (unsigned long)rq->fifo_time))
		return rq;

	ebfq_find_around(bq, bq->head, &after, &before);
	if (before && bq->head - blk_rq_pos(before) > back_max)
		before = NULL;
	if (!after)
		return before ?: rb_entry_rq(rb_first(&bq->sort_list));
	if (!before)
		return after;

	fwd = blk_rq_pos(after) - bq->head;
	back = bq->head - blk_rq_pos(before);
	if (back * ed->tun.back_seek_penalty < fwd)
		return before;
	return after;
}

/* ------------------------------------------------------------------ */
/* Peak rate: sectors completed over windows of device busy time. */

static void ebfq_rate_window_open(struct ebfq_data *ed, u64 now)
{
	ed->rate_busy_since_ns = now;
	ed->rate_window_busy_ns = 0;
	ed->rate_window_sectors = 0;
	ed->rate_window_requests = 0;
}

static void ebfq_rate_dispatched(struct ebfq_data *ed, u64 now)
{
	/* The device was idle: its busy time starts again now. */
	if (!ed->in_driver)
		ed->rate_busy_since_ns = now;
}

/* After a request of @sectors left the driver. */
static void ebfq_rate_completed(struct ebfq_data *ed, unsigned int sectors,
				u64 now)
{
	u64 busy = ed->rate_window_busy_ns + (now - ed->rate_busy_since_ns);
	u64 rate, budget;

	ed->rate_window_sectors += sectors;
	ed->rate_window_requests++;
	if (!ed->in_driver) {
		/* Idle from now on: bank the stretch that ends. */
		ed->rate_window_busy_ns = busy;
		ed->rate_busy_since_ns = now;
	}
	if (ed->rate_window_requests < ebfq_rate_min_requests ||
	    busy < ebfq_rate_min_window_ns)
		return;

	rate = div64_u64((u64)ed->rate_window_sectors * NSEC_PER_SEC, busy);
	ed->rate_last = rate;
	ed->peak_rate = ebfq_rate_filter(ed->peak_rate, rate);
	ed->rate_samples++;
	budget = div_u64(ed->peak_rate * ed->tun.timeout_ms[1], MSEC_PER_SEC);
	ed->auto_max_budget = clamp_t(u64, budget, ebfq_auto_budget_min,
				      ebfq_auto_budget_max);
	ebfq_rate_window_open(ed, now);
}

/* ------------------------------------------------------------------ */
/* Service: selection, expiration, idling.                             */

/**
 * ebfq_expire - end the turn of the queue in service
 * @ed: the device
 * @bq: the queue in service
 * @reason: why
 *
 * Sets its next budget from how the turn went, charges it, and gives it
 * back to the engine, which may free it.
 */
void ebfq_expire(struct ebfq_data *ed, struct ebfq_queue *bq,
		 enum ebfq_expire_reason reason)
{
	struct ebfq_entity *entity = &bq->entity;
	unsigned long max_budget = ebfq_max_budget(ed);
	unsigned long min_budget = ebfq_min_budget(ed);
	u64 now = ebfq_now(), idle_start = now;
	unsigned long charge;

	lockdep_assert_held(&ed->lock);
	WARN_ON_ONCE(ed->in_service != bq);

	/*
	 * An application starting up reads one dependent burst after another
	 * and cannot say how much it needs: were its budget cut to what one
	 * burst used, every burst would end its turn, and each new turn waits
	 * for the turn of a queue that is not raised.
	 */
	if (entity->new_class_idx == EBFQ_CLASS_IDLE)
		bq->next_budget = min_budget;
	else if (!ebfq_queue_sync(bq) || bq->wr_kind == EBFQ_WR_INTERACTIVE)
		bq->next_budget = max_budget;
	else
		bq->next_budget = ebfq_budget_feedback(entity->budget,
						       entity->service, reason,
						       min_budget, max_budget);

	/* A turn that ends before its first dispatch lasted no time. */
	if (test_bit(EBFQ_QF_FIRST_DISPATCH, &bq->flags))
		bq->turn_start_ns = now;
	charge = ebfq_wr_charge(ed, bq, reason, now);
	if (charge > entity->service)
		ebfq_entity_surcharge(entity, charge - entity->service);

	/*
	 * Idle since the end of its first idle window, however late the
	 * timer fired and whether the window started again: how long a
	 * queue must stay away to be soft real-time does not depend on the
	 * CPU load of the moment.
	 */
	if (reason == EBFQ_EXP_TOO_IDLE)
		idle_start = min(now, ed->idle_since_ns + ed->tun.slice_idle_ns);
	ebfq_stop_idling(ed, bq);
	ed->last_busy_ns = now;
	if (!__test_and_clear_bit(EBFQ_QF_FIRST_DISPATCH, &bq->flags))
		ebfq_group_stats(ed, bq->group)->service_ns +=
			now - bq->turn_start_ns;
	ed->in_service = NULL;
	ed->expirations[reason]++;

	if (bq->queued)
		entity->budget = bq->next_budget;
	else
		ebfq_wr_queue_idle(ed, bq, idle_start);
	/* May free bq. */
	ebfq_entity_expire(entity, bq->queued);
}

static struct ebfq_queue *ebfq_select_queue(struct ebfq_data *ed, u64 now)
{
	struct ebfq_entity *entity;
	struct ebfq_queue *bq;

	entity = ebfq_sd_select(&ed->root_sd, now);
	if (!entity)
		return NULL;
	bq = container_of(entity, struct ebfq_queue, entity);
	ed->in_service = bq;
	__set_bit(EBFQ_QF_FIRST_DISPATCH, &bq->flags);
	return bq;
}

/* Whether to keep the device idle for the empty in-service queue. */
static bool ebfq_may_idle(struct ebfq_data *ed, struct ebfq_queue *bq,
			  u64 now)
{
	u64 since;

	if (!ebfq_queue_sync(bq) || test_bit(EBFQ_QF_EXITED, &bq->flags) ||
	    !ed->tun.slice_idle_ns ||
	    bq->entity.class_idx == EBFQ_CLASS_IDLE)
		return false;
	if (ed->tun.strict_guarantees)
		return true;
	/*
	 * Nobody else waits: idling would protect the queue from nobody,
	 * unless queues served lately have other weights, or are in other
	 * groups: the first of them to come back would take the device, and
	 * shares would follow who asks first (a CPU-bound reader, for one),
	 * not the weights. An entity that thinks long enough between
	 * requests falls off the idle tree (V passes its finish), and one
	 * served alone ends its turn with its finish at V and never gets
	 * there: where the CPU paces the readers one at a time, every one
	 * is. So other weights and other groups count as served lately for
	 * as long as a busy period lasts.
	 */
	since = now - ebfq_busy_period_gap_ns;
	if (!ed->busy_queues && !ebfq_entity_asymmetric(&bq->entity) &&
	    !ebfq_recent_other(&ed->served_weight,
			       ebfq_weight_key(&bq->entity), since) &&
	    !ebfq_other_group_served(ed, bq->group, since))
		return false;
	/*
	 * An application starting up thinks between its reads: keep the
	 * device for it, seeky or not. A soft-RT queue is done with its burst
	 * and preempts when the next one comes, unless a raised queue, which
	 * it cannot preempt, would take the device from its group or weight.
	 */
	if (bq->wr_kind == EBFQ_WR_INTERACTIVE)
		return true;
	if (bq->wr_kind == EBFQ_WR_SOFT_RT)
		return ebfq_wr_rivals(ed, bq);
	/* A raised queue may go now: idling would only keep it waiting. */
	if (ebfq_wr_preempts(ed, bq))
		return false;
	/* A seeky queue on flash gains nothing worth the idle device. */
	return !(ebfq_queue_seeky(bq) && blk_queue_nonrot(ed->queue));
}

static void ebfq_start_idling(struct ebfq_data *ed, struct ebfq_queue *bq)
{
	__clear_bit(EBFQ_QF_WAIT, &bq->flags);
	__set_bit(EBFQ_QF_IDLING, &bq->flags);
	ed->idle_since_ns = ktime_get_ns();
	ed->idle_restarted = false;
	hrtimer_start(&ed->idle_timer, ns_to_ktime(ed->tun.slice_idle_ns),
		      HRTIMER_MODE_REL);
}

/*
 * The in-service queue is empty: wait for its I/O in flight and then idle
 * for its next request, or expire it. Returns true if it is kept.
 */
static bool ebfq_queue_ran_dry(struct ebfq_data *ed, struct ebfq_queue *bq,
			       u64 now)
{
	if (!ebfq_may_idle(ed, bq, now)) {
		ebfq_expire(ed, bq, EBFQ_EXP_EMPTY);
		return false;
	}
	if (test_bit(EBFQ_QF_IDLING, &bq->flags))
		return true;
	if (bq->dispatched)
		__set_bit(EBFQ_QF_WAIT, &bq->flags);
	else
		ebfq_start_idling(ed, bq);
	return true;
}

/* A request of @bq may go: NULL if @bq must wait or was expired. */
static struct request *ebfq_queue_next(struct ebfq_data *ed,
				       struct ebfq_queue *bq, u64 now)
{
	struct ebfq_entity *entity = &bq->entity;
	unsigned int timeout = ed->tun.timeout_ms[ebfq_queue_sync(bq)];
	struct request *rq;

	if (!bq->queued) {
		ebfq_queue_ran_dry(ed, bq, now);
		return NULL;
	}
	if (!test_bit(EBFQ_QF_FIRST_DISPATCH, &bq->flags) &&
	    now - bq->turn_start_ns > (u64)timeout * NSEC_PER_MSEC) {
		ebfq_expire(ed, bq, EBFQ_EXP_TIMEOUT);
		return NULL;
	}
	rq = ebfq_choose_request(ed, bq);
	if (entity->service &&
	    entity->service + blk_rq_sectors(rq) > entity->budget) {
		ebfq_expire(ed, bq, EBFQ_EXP_BUDGET);
		return NULL;
	}
	return rq;
}

static void ebfq_mark_in_driver(struct ebfq_data *ed, struct request *rq,
				u64 now)
{
	struct ebfq_queue *bq = ebfq_rq_queue(rq);

	/* Only our requests come back through ->finish_request(). */
	if (!bq)
		return;
	ebfq_rate_dispatched(ed, now);
	ed->in_driver++;
	if (op_is_write(req_op(rq)))
		ed->write_in_driver += blk_rq_sectors(rq);
	bq->dispatched++;
	ebfq_rq_set_in_driver(rq);
}

/* Only the idle class has work, and must wait: come back when it may go. */
static void ebfq_idle_class_wait(struct ebfq_data *ed, u64 now)
{
	u64 delay = ed->root_sd.idle_class_wait_ns;

	if (!delay || !ed->queued || ed->idle_class_wait)
		return;
	ed->idle_class_wait = true;
	hrtimer_start(&ed->idle_timer, ns_to_ktime(delay), HRTIMER_MODE_REL);
}

static struct request *__ebfq_dispatch(struct ebfq_data *ed)
{
	struct ebfq_group_stats *stats;
	struct ebfq_queue *bq;
	struct request *rq;
	bool injected = false;
	u64 now = ebfq_now();

	lockdep_assert_held(&ed->lock);

	rq = list_first_entry_or_null(&ed->dispatch, struct request, queuelist);
	if (rq) {
		list_del_init(&rq->queuelist);
		goto out;
	}

	/* Strict guarantees: one request at a time in the device. */
	if (ed->tun.strict_guarantees && ed->in_driver)
		return NULL;

	ebfq_wr_check(ed, now);
	for (;;) {
		bq = ed->in_service;
		if (bq && ebfq_wr_preempts(ed, bq)) {
			ed->wr_preemptions++;
			ebfq_expire(ed, bq, EBFQ_EXP_PREEMPTED);
			bq = NULL;
		}
		if (!bq) {
			bq = ebfq_select_queue(ed, now);
			if (!bq) {
				ebfq_idle_class_wait(ed, now);
				return NULL;
			}
		}
		rq = ebfq_queue_next(ed, bq, now);
		if (rq)
			break;
		if (!ed->in_service)
			continue;
		/*
		 * The device idles for it: another raised queue may go, out
		 * of turn (ebfq_wr_inject() checked the device queue).
		 */
		rq = ebfq_wr_inject(ed, bq);
		if (!rq)
			return NULL;
		bq = ebfq_rq_queue(rq);
		injected = true;
		break;
	}
	if (injected) {
		ed->wr_injected++;
	} else if (ebfq_dq_hold(ed, bq, rq)) {
		/* A raised queue need not wait for the hold to end. */
		rq = ebfq_wr_bypass(ed, bq);
		if (!rq) {
			/* Until a completion or new work: see dq_held. */
			ed->dq_held = true;
			return NULL;
		}
		bq = ebfq_rq_queue(rq);
		ed->wr_bypassed++;
	} else if (__test_and_clear_bit(EBFQ_QF_FIRST_DISPATCH, &bq->flags)) {
		bq->turn_start_ns = now;
	}
	ebfq_entity_charge(&bq->entity, blk_rq_sectors(rq), now);
	/*
	 * Counted and charged first: a queue served out of turn may run dry
	 * here, and what it got belongs to the busy period that ends.
	 */
	ebfq_wr_dispatched(ed, bq, blk_rq_sectors(rq));
	ebfq_remove_request(ed, rq, now);
	stats = ebfq_group_stats(ed, bq->group);
	stats->sectors += blk_rq_sectors(rq);
	stats->requests++;
	ebfq_group_dispatched(ed, bq->group, now);
	ebfq_recent_note(&ed->served_weight, ebfq_weight_key(&bq->entity), now);
	bq->head = blk_rq_pos(rq) + blk_rq_sectors(rq);
out:
	ebfq_mark_in_driver(ed, rq, now);
	rq->rq_flags |= RQF_STARTED;
	return rq;
}

static bool ebfq_dispatch_blocked(struct ebfq_data *ed)
{
	struct ebfq_queue *bq = ed->in_service;

	if (ed->tun.strict_guarantees && ed->in_driver)
		return true;
	if (ed->idle_class_wait || ed->dq_held)
		return true;
	return bq && (test_bit(EBFQ_QF_WAIT, &bq->flags) ||
		      (test_bit(EBFQ_QF_IDLING, &bq->flags) &&
		       !ebfq_wr_inject(ed, bq)));
}

/**
 * ebfq_update_has_work - refresh what ->has_work() reports
 * @ed: the device
 *
 * Returns true when work just became dispatchable outside of blk-mq's own
 * insert and dispatch paths, so the caller must run the hardware queues.
 */
bool ebfq_update_has_work(struct ebfq_data *ed)
{
	bool had = ed->has_work;
	bool has = !list_empty(&ed->dispatch) ||
		   (ed->queued && !ebfq_dispatch_blocked(ed));

	lockdep_assert_held(&ed->lock);
	WRITE_ONCE(ed->has_work, has);
	ebfq_check(ed);
	return has && !had;
}

/*
 * The idle timer fired late enough that the process idled for had no CPU
 * to run on: true the first time in an idle window, which then restarts.
 */
static bool ebfq_idle_fired_late(struct ebfq_data *ed, struct hrtimer *timer)
{
	ktime_t now = ktime_get();
	s64 late = ktime_to_ns(ktime_sub(now, hrtimer_get_expires(timer)));

	lockdep_assert_held(&ed->lock);

	if (ed->idle_restarted || late < (s64)ebfq_idle_late_ns)
		return false;
	ed->idle_restarted = true;
	hrtimer_set_expires(timer, ktime_add_ns(now, ed->tun.slice_idle_ns));
	return true;
}

static enum hrtimer_restart ebfq_idle_timer_fn(struct hrtimer *timer)
{
	struct ebfq_data *ed = container_of(timer, struct ebfq_data, idle_timer);
	struct ebfq_queue *bq;
	unsigned long flags;
	bool kick;

	spin_lock_irqsave(&ed->lock, flags);
	/*
	 * Armed again while this call waited for the lock: what it was armed
	 * for was cancelled, and the new period is not over.
	 */
	if (hrtimer_is_queued(timer)) {
		spin_unlock_irqrestore(&ed->lock, flags);
		return HRTIMER_NORESTART;
	}
	bq = ed->in_service;
	if (bq && test_bit(EBFQ_QF_IDLING, &bq->flags) && !bq->queued) {
		if (ebfq_idle_fired_late(ed, timer)) {
			ed->idle_restarts++;
			spin_unlock_irqrestore(&ed->lock, flags);
			return HRTIMER_RESTART;
		}
		ebfq_expire(ed, bq, EBFQ_EXP_TOO_IDLE);
	}
	ed->idle_class_wait = false;
	kick = ebfq_update_has_work(ed);
	spin_unlock_irqrestore(&ed->lock, flags);

	if (kick)
		blk_mq_run_hw_queues(ed->queue, true);
	return HRTIMER_NORESTART;
}

/* A request of @bq left the driver (completed or requeued). */
static void ebfq_left_driver(struct ebfq_data *ed, struct request *rq, u64 now)
{
	struct ebfq_queue *bq = ebfq_rq_queue(rq);

	lockdep_assert_held(&ed->lock);

	if (!ebfq_rq_in_driver(rq))
		return;
	ed->dq_held = false;
	ed->last_busy_ns = now;
	bq->dispatched--;
	ed->in_driver--;
	if (op_is_write(req_op(rq)))
		ed->write_in_driver -= ebfq_rq_driver_sectors(rq);
	ebfq_rate_completed(ed, ebfq_rq_driver_sectors(rq), now);
	rq->elv.priv[1] = NULL;

	/*
	 * The queue in service has nothing queued nor in flight any more:
	 * decide now whether to idle for it or to end its turn, not at the
	 * next dispatch, which may come much later, when another queue has
	 * work, and would then find it still in service.
	 */
	if (bq == ed->in_service && !bq->dispatched && !bq->queued &&
	    !test_bit(EBFQ_QF_IDLING, &bq->flags)) {
		__clear_bit(EBFQ_QF_WAIT, &bq->flags);
		ebfq_queue_ran_dry(ed, bq, now);
	}
}

/* ------------------------------------------------------------------ */
/* elevator_mq_ops.                                                    */

/* The io_cq of the current process on @q, or NULL. */
static struct ebfq_io_cq *ebfq_current_bic(struct request_queue *q)
{
	struct io_cq *icq;

	if (!current->io_context)
		return NULL;
	spin_lock_irq(&q->queue_lock);
	icq = ioc_lookup_icq(q);
	spin_unlock_irq(&q->queue_lock);
	return icq ? icq_to_bic(icq) : NULL;
}

/*
 * Only finds the process's io_cq: the queue is chosen when the request is
 * inserted (ebfq_rq_assign()), under the lock insertion takes anyway.
 */
static void ebfq_prepare_request(struct request *rq)
{
	struct ebfq_io_cq *bic = ebfq_current_bic(rq->q);

	/* The first request of a process on this device makes its icq. */
	if (!bic) {
		struct io_cq *icq = ioc_find_get_icq(rq->q);

		if (icq) {
			bic = icq_to_bic(icq);
			/* A reference the task itself already holds. */
			put_io_context(icq->ioc);
		}
	}

	rq->elv.icq = bic ? &bic->icq : NULL;
	rq->elv.priv[0] = NULL;
	rq->elv.priv[1] = NULL;
}

/*
 * The queue of @rq, chosen at its first insertion; a requeued request
 * keeps its own. The process that allocated it is the one submitting it,
 * still: its io_cq is still there, and its ioprio is the one to use.
 */
static struct ebfq_queue *ebfq_rq_assign(struct ebfq_data *ed,
					 struct request *rq)
{
	struct ebfq_io_cq *bic;
	struct ebfq_queue *bq;

	lockdep_assert_held(&ed->lock);

	bq = ebfq_rq_queue(rq);
	if (bq || !(rq->rq_flags & RQF_ELVPRIV))
		return bq;
	bic = rq->elv.icq ? icq_to_bic(rq->elv.icq) : NULL;
	bq = ebfq_get_queue(ed, bic, rq_is_sync(rq), get_current_ioprio());
	bq->ref++;
	rq->elv.icq = NULL;
	rq->elv.priv[0] = bq;
	return bq;
}

static void ebfq_finish_request(struct request *rq)
{
	struct ebfq_data *ed = rq->q->elevator->elevator_data;
	struct ebfq_queue *bq = rq->elv.priv[0];
	unsigned long flags;
	bool kick;

	if (!bq)
		return;

	spin_lock_irqsave(&ed->lock, flags);
	ebfq_left_driver(ed, rq, ebfq_now());
	ebfq_put_queue(bq);
	kick = ebfq_update_has_work(ed);
	spin_unlock_irqrestore(&ed->lock, flags);

	rq->elv.priv[0] = NULL;
	if (kick)
		blk_mq_run_hw_queues(rq->q, true);
}

static void ebfq_requeue_request(struct request *rq)
{
	struct ebfq_data *ed = rq->q->elevator->elevator_data;
	unsigned long flags;

	spin_lock_irqsave(&ed->lock, flags);
	ebfq_left_driver(ed, rq, ebfq_now());
	ebfq_update_has_work(ed);
	spin_unlock_irqrestore(&ed->lock, flags);
}

static void ebfq_insert_requests(struct blk_mq_hw_ctx *hctx,
				 struct list_head *list, bool at_head)
{
	struct request_queue *q = hctx->queue;
	struct ebfq_data *ed = q->elevator->elevator_data;
	u64 now = ebfq_now();
	LIST_HEAD(free);

	spin_lock_irq(&ed->lock);
	while (!list_empty(list)) {
		struct request *rq = list_first_entry(list, struct request,
						      queuelist);
		struct ebfq_queue *bq = ebfq_rq_assign(ed, rq);

		list_del_init(&rq->queuelist);
		if (blk_mq_sched_try_insert_merge(q, rq, &free))
			continue;

		trace_block_rq_insert(rq);
		if (at_head || !bq) {
			if (at_head)
				list_add(&rq->queuelist, &ed->dispatch);
			else
				list_add_tail(&rq->queuelist, &ed->dispatch);
			continue;
		}
		bq = ebfq_rq_route(ed, rq, bq);
		ebfq_add_request(ed, bq, rq, now);
	}
	ebfq_update_has_work(ed);
	spin_unlock_irq(&ed->lock);

	/* Their ->finish_request() takes the lock. */
	blk_mq_free_requests(&free);
}

static struct request *ebfq_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	struct ebfq_data *ed = hctx->queue->elevator->elevator_data;
	struct request *rq;

	spin_lock_irq(&ed->lock);
	rq = __ebfq_dispatch(ed);
	ebfq_update_has_work(ed);
	spin_unlock_irq(&ed->lock);
	return rq;
}

static bool ebfq_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct ebfq_data *ed = hctx->queue->elevator->elevator_data;

	return READ_ONCE(ed->has_work);
}

/* The queue a bio would join, as ebfq_rq_route() will choose it. */
static struct ebfq_queue *ebfq_bio_queue(struct ebfq_data *ed,
					 struct ebfq_io_cq *bic,
					 struct bio *bio)
{
	bool sync = op_is_sync(bio->bi_opf);
	struct ebfq_queue *bq = bic ? bic->queue[sync] : NULL;
	struct ebfq_group *bg;

	lockdep_assert_held(&ed->lock);

	if (!bq || sync)
		return bq;
	bg = ebfq_bio_group(ed, bio);
	return bq->group == bg ? bq : *ebfq_async_slot(ed, bg, bq->ioprio);
}

static bool ebfq_bio_merge(struct request_queue *q, struct bio *bio,
			   unsigned int nr_segs)
{
	struct ebfq_data *ed = q->elevator->elevator_data;
	struct request *free = NULL;
	struct ebfq_io_cq *bic;
	bool merged;

	/*
	 * Nothing queued, nothing to merge with: most bios of a device that
	 * keeps up with its load skip both locks. Racing with an insertion
	 * only loses a merge.
	 */
	if (!READ_ONCE(ed->queued))
		return false;

	bic = ebfq_current_bic(q);
	spin_lock_irq(&ed->lock);
	ed->merge_bio = bio;
	ed->merge_queue = ebfq_bio_queue(ed, bic, bio);
	merged = blk_mq_sched_try_merge(q, bio, nr_segs, &free);
	ed->merge_bio = NULL;
	ed->merge_queue = NULL;
	ebfq_update_has_work(ed);
	spin_unlock_irq(&ed->lock);

	if (free)
		blk_mq_free_request(free);
	return merged;
}

/* A bio only joins a request of the queue it would have gone to. */
static bool ebfq_allow_merge(struct request_queue *q, struct request *rq,
			     struct bio *bio)
{
	struct ebfq_data *ed = q->elevator->elevator_data;
	struct ebfq_queue *bq = ebfq_rq_queue(rq);

	if (!bq)
		return false;
	if (READ_ONCE(ed->merge_bio) == bio)
		return ed->merge_queue == bq;
	/* The plug of the current task: its own requests only. */
	return ebfq_queue_sync(bq) == op_is_sync(bio->bi_opf);
}

static int ebfq_request_merge(struct request_queue *q, struct request **req,
			      struct bio *bio)
{
	struct ebfq_data *ed = q->elevator->elevator_data;
	struct ebfq_queue *bq = ed->merge_queue;
	struct request *rq;

	lockdep_assert_held(&ed->lock);

	if (!bq || ed->merge_bio != bio)
		return ELEVATOR_NO_MERGE;
	/* The queued request that starts where the bio ends takes it first. */
	rq = elv_rb_find(&bq->sort_list, bio_end_sector(bio));
	if (!rq || !elv_bio_merge_ok(rq, bio))
		return ELEVATOR_NO_MERGE;
	*req = rq;
	return blk_discard_mergable(rq) ? ELEVATOR_DISCARD_MERGE :
					  ELEVATOR_FRONT_MERGE;
}

static void ebfq_request_merged(struct request_queue *q, struct request *rq,
				enum elv_merge type)
{
	struct ebfq_queue *bq = ebfq_rq_queue(rq);

	if (type == ELEVATOR_FRONT_MERGE && bq && !RB_EMPTY_NODE(&rq->rb_node)) {
		elv_rb_del(&bq->sort_list, rq);
		elv_rb_add(&bq->sort_list, rq);
	}
}

static void ebfq_requests_merged(struct request_queue *q, struct request *rq,
				 struct request *next)
{
	struct ebfq_data *ed = q->elevator->elevator_data;
	struct ebfq_queue *bq = ebfq_rq_queue(rq);
	struct ebfq_queue *next_bq = ebfq_rq_queue(next);

	lockdep_assert_held(&ed->lock);

	/* rq inherits next's earlier deadline, and its place in the FIFO. */
	if (bq && bq == next_bq && !list_empty(&rq->queuelist) &&
	    !list_empty(&next->queuelist) &&
	    time_before((unsigned long)next->fifo_time,
			(unsigned long)rq->fifo_time)) {
		list_move(&rq->queuelist, &next->queuelist);
		rq->fifo_time = next->fifo_time;
	}
	/* Merged at insertion, next never reached its queue. */
	if (next_bq && !RB_EMPTY_NODE(&next->rb_node))
		ebfq_remove_request(ed, next, ebfq_now());
}

static void ebfq_limit_depth(blk_opf_t opf, struct blk_mq_alloc_data *data)
{
	struct ebfq_data *ed = data->q->elevator->elevator_data;

	/*
	 * Sync reads may take every tag; writes and async I/O may not, and
	 * while a queue is raised they leave it most of the pool.
	 */
	if (op_is_sync(opf) && !op_is_write(opf))
		return;
	data->shallow_depth = READ_ONCE(ed->wr_nr) ? ed->async_depth_wr :
						     ed->async_depth;
}

static void ebfq_depth_updated(struct blk_mq_hw_ctx *hctx)
{
	struct ebfq_data *ed = hctx->queue->elevator->elevator_data;
	struct blk_mq_tags *tags = hctx->sched_tags;
	unsigned int word = 1U << tags->bitmap_tags.sb.shift;

	/* Three quarters of every sbitmap word, a quarter while raising. */
	ed->async_depth = max(1U, word * 3 / 4);
	ed->async_depth_wr = max(1U, word / 4);
	sbitmap_queue_min_shallow_depth(&tags->bitmap_tags, ed->async_depth_wr);
}

static int ebfq_init_hctx(struct blk_mq_hw_ctx *hctx, unsigned int hctx_idx)
{
	ebfq_depth_updated(hctx);
	return 0;
}

static void ebfq_exit_icq(struct io_cq *icq)
{
	struct ebfq_io_cq *bic = icq_to_bic(icq);
	struct ebfq_data *ed = icq->q->elevator->elevator_data;
	unsigned long flags;
	bool kick;
	int sync;

	spin_lock_irqsave(&ed->lock, flags);
	for (sync = 0; sync < 2; sync++) {
		struct ebfq_queue *bq = bic->queue[sync];

		if (!bq)
			continue;
		bic->queue[sync] = NULL;
		if (sync) {
			__set_bit(EBFQ_QF_EXITED, &bq->flags);
			/* Never idle for a process that is gone. */
			if (bq == ed->in_service && !bq->queued)
				ebfq_expire(ed, bq, EBFQ_EXP_EXITED);
			/* Nor remember its service: it cannot come back. */
			ebfq_entity_forget_idle(&bq->entity);
		}
		ebfq_put_queue(bq);
	}
	kick = ebfq_update_has_work(ed);
	spin_unlock_irqrestore(&ed->lock, flags);

	if (kick)
		blk_mq_run_hw_queues(icq->q, true);
}

/* A device's scheduler state, before any request. */
static void ebfq_data_init(struct ebfq_data *ed, struct request_queue *q)
{
	ed->queue = q;
	spin_lock_init(&ed->lock);
	ebfq_sd_init(&ed->root_sd, NULL);
	INIT_LIST_HEAD(&ed->dispatch);
	INIT_LIST_HEAD(&ed->all_queues);
	INIT_LIST_HEAD(&ed->wr_queues);
	INIT_LIST_HEAD(&ed->groups);
	ebfq_tunables_init(&ed->tun);
	ed->auto_max_budget = ebfq_default_max_budget;
	hrtimer_init(&ed->idle_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	ed->idle_timer.function = ebfq_idle_timer_fn;

	/* Requests nobody's queue could take; it is never freed. */
	ebfq_queue_setup(ed, &ed->oom_queue, NULL, true,
			 IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4));
	ed->oom_queue.ref = 1;
	ed->oom_queue.pid = 0;
}

static int ebfq_init_sched(struct request_queue *q, struct elevator_type *e)
{
	struct ebfq_data *ed = kzalloc_node(sizeof(*ed), GFP_KERNEL, q->node);
	struct elevator_queue *eq = ed ? elevator_alloc(q, e) : NULL;
	int ret;

	if (!eq) {
		kfree(ed);
		return -ENOMEM;
	}
	ebfq_data_init(ed, q);

	/* One scheduler for the device, whatever its hardware queues. */
	blk_queue_flag_set(QUEUE_FLAG_SQ_SCHED, q);

	eq->elevator_data = ed;
	q->elevator = eq;

	/* Groups need q->elevator: the blkcg core calls back with q. */
	ret = ebfq_cgroup_init(ed);
	if (ret) {
		q->elevator = NULL;
		kobject_put(&eq->kobj);
		kfree(ed);
	}
	return ret;
}

static void ebfq_exit_sched(struct elevator_queue *e)
{
	struct ebfq_data *ed = e->elevator_data;
	struct ebfq_queue *bq, *tmp;

	/* Every group goes offline, handing its queues to the root. */
	ebfq_cgroup_exit(ed);
	hrtimer_cancel(&ed->idle_timer);

	spin_lock_irq(&ed->lock);
	if (ed->in_service)
		ebfq_expire(ed, ed->in_service, EBFQ_EXP_EXITED);
	ebfq_sd_flush_idle(&ed->root_sd);
	ebfq_put_async_queues(ed->async);
	WARN_ON_ONCE(ed->queued || ed->in_driver || !list_empty(&ed->dispatch));
	list_for_each_entry_safe(bq, tmp, &ed->all_queues, all_node) {
		if (bq == &ed->oom_queue)
			continue;
		WARN_ONCE(1, "ebfq: queue of pid %d left with %d references\n",
			  bq->pid, bq->ref);
		ebfq_queue_free(bq);
	}
	spin_unlock_irq(&ed->lock);

	kfree(ed);
}

static struct elevator_type ebfq_iosched = {
	.elevator_name		= "ebfq",
	.elevator_owner		= THIS_MODULE,
	.elevator_attrs		= ebfq_attrs,
#ifdef CONFIG_BLK_DEBUG_FS
	.queue_debugfs_attrs	= ebfq_queue_debugfs_attrs,
#endif

	/* Per process data: struct ebfq_io_cq. */
	.icq_size		= sizeof(struct ebfq_io_cq),
	.icq_align		= __alignof__(struct ebfq_io_cq),

	/* The scheduler of a device and its hardware queues. */
	.ops.init_sched			= ebfq_init_sched,
	.ops.exit_sched			= ebfq_exit_sched,
	.ops.init_hctx			= ebfq_init_hctx,
	.ops.depth_updated		= ebfq_depth_updated,

	/* A process leaves the device. */
	.ops.exit_icq			= ebfq_exit_icq,

	/* Requests coming in. */
	.ops.limit_depth		= ebfq_limit_depth,
	.ops.prepare_request		= ebfq_prepare_request,
	.ops.insert_requests		= ebfq_insert_requests,

	/* Requests going to the driver and coming back. */
	.ops.has_work			= ebfq_has_work,
	.ops.dispatch_request		= ebfq_dispatch_request,
	.ops.requeue_request		= ebfq_requeue_request,
	.ops.finish_request		= ebfq_finish_request,

	/* Merges, within a queue only. */
	.ops.bio_merge			= ebfq_bio_merge,
	.ops.allow_merge		= ebfq_allow_merge,
	.ops.request_merge		= ebfq_request_merge,

	/* After a merge. */
	.ops.request_merged		= ebfq_request_merged,
	.ops.requests_merged		= ebfq_requests_merged,

	/* Neighbours in sector order, within the queue. */
	.ops.former_request		= elv_rb_former_request,
	.ops.next_request		= elv_rb_latter_request,
};
MODULE_ALIAS("ebfq-iosched");

static int __init ebfq_init(void)
{
	int ret;

	ret = ebfq_queue_cache_create();
	if (ret)
		return ret;
	/* The policy first: a device may take ebfq once it is registered. */
	ret = ebfq_cgroup_register();
	if (!ret) {
		ret = elv_register(&ebfq_iosched);
		if (!ret)
			return 0;
		ebfq_cgroup_unregister();
	}
	ebfq_queue_cache_destroy();
	return ret;
}

static void __exit ebfq_exit(void)
{
	elv_unregister(&ebfq_iosched);
	ebfq_cgroup_unregister();
	ebfq_queue_cache_destroy();
}

module_init(ebfq_init);
module_exit(ebfq_exit);

MODULE_AUTHOR("ebfq developers");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Budget Fair Queueing I/O scheduler for SD and eMMC");
