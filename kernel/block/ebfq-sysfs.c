// SPDX-License-Identifier: GPL-2.0
/*
 * ebfq: tunables under /sys/block/DEV/queue/iosched/ and state under
 * /sys/kernel/debug/block/DEV/sched/.
 *
 * Names and units follow the kernel's bfq where it has the same knob. A
 * value out of range is refused with -EINVAL and changes nothing.
 */
#include <linux/blkdev.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/sysfs.h>

#include "elevator.h"
#include "blk-mq-debugfs.h"
#include "ebfq-iosched.h"

/* How long a sync queue that ran dry may keep the device idle, ns. */
static const u64 ebfq_default_slice_idle_ns = 8 * NSEC_PER_MSEC;

/* The longest turn of a sync / an async queue, ms. */
static const unsigned int ebfq_default_timeout_sync_ms = 125;
static const unsigned int ebfq_default_timeout_async_ms = 40;

/* FIFO deadline of sync / async requests, ms. */
static const unsigned int ebfq_default_fifo_expire_sync_ms = 125;
static const unsigned int ebfq_default_fifo_expire_async_ms = 250;

/* Longest backward seek worth taking, KiB, and its cost factor. */
static const unsigned int ebfq_default_back_seek_max = 16 * 1024;
static const unsigned int ebfq_default_back_seek_penalty = 2;

/*
 * Responsiveness (ebfq-wr.c): raised weight x30; interactive raising auto-
 * tuned from the peak rate; a queue idle 2 s is new again; soft-RT raising
 * lasts 300 ms past each burst; a soft-RT queue asks at most 16384
 * sectors/s (8 MiB/s: a 25 frames/s HD video with room to spare).
 */
static const unsigned int ebfq_default_wr_coeff = 30;
static const unsigned int ebfq_default_wr_min_idle_time_ms = 2000;
static const unsigned int ebfq_default_wr_rt_max_time_ms = 300;
static const unsigned int ebfq_default_wr_max_softrt_rate = 16384;

/* Ranges: a second of idling or turn, ten seconds of FIFO deadline. */
#define EBFQ_SLICE_IDLE_MAX_MS	1000U
#define EBFQ_TIMEOUT_MAX_MS	1000U
#define EBFQ_FIFO_MAX_MS	10000U
#define EBFQ_BACK_SEEK_MAX_KIB	(1024U * 1024U)
#define EBFQ_PENALTY_MAX	100U
/* An explicit max_budget: 16 KiB to 512 MiB, in sectors. */
#define EBFQ_MAX_BUDGET_MIN	32U
#define EBFQ_MAX_BUDGET_MAX	(1024U * 1024U)
/* Raising: x1 (off) to x100, a minute, sectors/s up to 1 GiB/s. */
#define EBFQ_WR_COEFF_MAX	100U
#define EBFQ_WR_TIME_MAX_MS	60000U
#define EBFQ_WR_RATE_MAX	(2U * 1024U * 1024U)

/**
 * ebfq_tunables_init - the defaults of a new device
 * @tun: the tunables to fill
 */
void ebfq_tunables_init(struct ebfq_tunables *tun)
{
	tun->slice_idle_ns = ebfq_default_slice_idle_ns;
	tun->timeout_ms[1] = ebfq_default_timeout_sync_ms;
	tun->timeout_ms[0] = ebfq_default_timeout_async_ms;
	tun->fifo_expire_ms[1] = ebfq_default_fifo_expire_sync_ms;
	tun->fifo_expire_ms[0] = ebfq_default_fifo_expire_async_ms;
	tun->max_budget = 0;
	tun->back_seek_max = ebfq_default_back_seek_max;
	tun->back_seek_penalty = ebfq_default_back_seek_penalty;
	tun->strict_guarantees = false;
	tun->low_latency = true;
	tun->wr_coeff = ebfq_default_wr_coeff;
	tun->wr_max_time_ms = 0;
	tun->wr_min_idle_time_ms = ebfq_default_wr_min_idle_time_ms;
	tun->wr_rt_max_time_ms = ebfq_default_wr_rt_max_time_ms;
	tun->wr_max_softrt_rate = ebfq_default_wr_max_softrt_rate;
	tun->wr_groups = false;
}

/*
 * Parse a decimal in [min, max], or 0 when @zero_ok (a tunable whose 0
 * means "automatic"); anything else is -EINVAL.
 */
static int ebfq_parse(const char *page, unsigned int min, unsigned int max,
		      bool zero_ok, unsigned int *val)
{
	if (kstrtouint(page, 10, val))
		return -EINVAL;
	if (!*val && zero_ok)
		return 0;
	return *val < min || *val > max ? -EINVAL : 0;
}

/* After any tunable changed, under the lock: what it changes at once. */
static void ebfq_tunables_changed(struct ebfq_data *ed)
{
	lockdep_assert_held(&ed->lock);

	/* low_latency 0: plain B-WF2Q+, every raising ends now. */
	if (!ed->tun.low_latency)
		ebfq_wr_stop_all(ed);
	ebfq_groups_reweight(ed);
}

/*
 * SHOW/STORE for a tunable held as ed->tun.FIELD: shown as FIELD / DIV,
 * stored as the parsed value, in [MIN, MAX] (or 0 if ZERO_OK), times DIV.
 */
#define EBFQ_SHOW(name, field, div)					\
static ssize_t ebfq_##name##_show(struct elevator_queue *e, char *page)	\
{									\
	struct ebfq_data *ed = e->elevator_data;			\
									\
	return sysfs_emit(page, "%llu\n",				\
			  (unsigned long long)div64_u64(ed->tun.field, div)); \
}

#define __EBFQ_STORE(name, field, div, min, max, zero_ok)		\
static ssize_t ebfq_##name##_store(struct elevator_queue *e,		\
				   const char *page, size_t count)	\
{									\
	struct ebfq_data *ed = e->elevator_data;			\
	unsigned int val;						\
	int ret;							\
									\
	ret = ebfq_parse(page, min, max, zero_ok, &val);		\
	if (ret)							\
		return ret;						\
	spin_lock_irq(&ed->lock);					\
	ed->tun.field = (u64)val * (div);				\
	ebfq_tunables_changed(ed);					\
	spin_unlock_irq(&ed->lock);					\
	return count;							\
}

#define EBFQ_STORE(name, field, div, min, max)				\
	__EBFQ_STORE(name, field, div, min, max, false)
/* 0 (automatic) or a value in [MIN, MAX]. */
#define EBFQ_STORE_AUTO(name, field, min, max)				\
	__EBFQ_STORE(name, field, 1, min, max, true)

EBFQ_SHOW(slice_idle, slice_idle_ns, NSEC_PER_MSEC)
EBFQ_STORE(slice_idle, slice_idle_ns, NSEC_PER_MSEC, 0, EBFQ_SLICE_IDLE_MAX_MS)
EBFQ_SHOW(slice_idle_us, slice_idle_ns, NSEC_PER_USEC)
EBFQ_STORE(slice_idle_us, slice_idle_ns, NSEC_PER_USEC, 0,
	   EBFQ_SLICE_IDLE_MAX_MS * USEC_PER_MSEC)
EBFQ_SHOW(timeout_sync, timeout_ms[1], 1)
EBFQ_STORE(timeout_sync, timeout_ms[1], 1, 1, EBFQ_TIMEOUT_MAX_MS)
EBFQ_SHOW(timeout_async, timeout_ms[0], 1)
EBFQ_STORE(timeout_async, timeout_ms[0], 1, 1, EBFQ_TIMEOUT_MAX_MS)
EBFQ_SHOW(fifo_expire_sync, fifo_expire_ms[1], 1)
EBFQ_STORE(fifo_expire_sync, fifo_expire_ms[1], 1, 1, EBFQ_FIFO_MAX_MS)
EBFQ_SHOW(fifo_expire_async, fifo_expire_ms[0], 1)
EBFQ_STORE(fifo_expire_async, fifo_expire_ms[0], 1, 1, EBFQ_FIFO_MAX_MS)
EBFQ_SHOW(back_seek_max, back_seek_max, 1)
EBFQ_STORE(back_seek_max, back_seek_max, 1, 0, EBFQ_BACK_SEEK_MAX_KIB)
EBFQ_SHOW(back_seek_penalty, back_seek_penalty, 1)
EBFQ_STORE(back_seek_penalty, back_seek_penalty, 1, 1, EBFQ_PENALTY_MAX)
EBFQ_SHOW(strict_guarantees, strict_guarantees, 1)
EBFQ_STORE(strict_guarantees, strict_guarantees, 1, 0, 1)
EBFQ_SHOW(max_budget, max_budget, 1)
EBFQ_SHOW(wr_coeff, wr_coeff, 1)
EBFQ_STORE(wr_coeff, wr_coeff, 1, 1, EBFQ_WR_COEFF_MAX)
EBFQ_SHOW(wr_max_time, wr_max_time_ms, 1)
EBFQ_STORE_AUTO(wr_max_time, wr_max_time_ms, 1, EBFQ_WR_TIME_MAX_MS)
EBFQ_SHOW(wr_min_idle_time, wr_min_idle_time_ms, 1)
EBFQ_STORE(wr_min_idle_time, wr_min_idle_time_ms, 1, 0, EBFQ_WR_TIME_MAX_MS)
EBFQ_SHOW(wr_rt_max_time, wr_rt_max_time_ms, 1)
EBFQ_STORE(wr_rt_max_time, wr_rt_max_time_ms, 1, 1, EBFQ_WR_TIME_MAX_MS)
EBFQ_SHOW(wr_max_softrt_rate, wr_max_softrt_rate, 1)
EBFQ_STORE(wr_max_softrt_rate, wr_max_softrt_rate, 1, 1, EBFQ_WR_RATE_MAX)
EBFQ_SHOW(low_latency, low_latency, 1)
EBFQ_STORE(low_latency, low_latency, 1, 0, 1)
EBFQ_SHOW(wr_groups, wr_groups, 1)
EBFQ_STORE(wr_groups, wr_groups, 1, 0, 1)
EBFQ_STORE_AUTO(max_budget, max_budget, EBFQ_MAX_BUDGET_MIN,
		EBFQ_MAX_BUDGET_MAX)

#define EBFQ_ATTR(name) \
	__ATTR(name, 0644, ebfq_##name##_show, ebfq_##name##_store)

struct elv_fs_entry ebfq_attrs[] = {
	EBFQ_ATTR(slice_idle),
	EBFQ_ATTR(slice_idle_us),
	EBFQ_ATTR(timeout_sync),
	EBFQ_ATTR(timeout_async),
	EBFQ_ATTR(max_budget),
	EBFQ_ATTR(back_seek_max),
	EBFQ_ATTR(back_seek_penalty),
	EBFQ_ATTR(fifo_expire_sync),
	EBFQ_ATTR(fifo_expire_async),
	EBFQ_ATTR(strict_guarantees),
	EBFQ_ATTR(low_latency),
	EBFQ_ATTR(wr_coeff),
	EBFQ_ATTR(wr_max_time),
	EBFQ_ATTR(wr_min_idle_time),
	EBFQ_ATTR(wr_rt_max_time),
	EBFQ_ATTR(wr_max_softrt_rate),
	EBFQ_ATTR(wr_groups),
	__ATTR_NULL
};

#ifdef CONFIG_BLK_DEBUG_FS
static const char *const ebfq_class_names[EBFQ_NR_CLASSES] = {
	[EBFQ_CLASS_RT]		= "rt",
	[EBFQ_CLASS_BE]		= "be",
	[EBFQ_CLASS_IDLE]	= "idle",
};

static const char *const ebfq_where_names[] = {
	[EBFQ_NOWHERE]		= "none",
	[EBFQ_ACTIVE]		= "active",
	[EBFQ_IN_SERVICE]	= "in-service",
	[EBFQ_IDLE]		= "idle",
};

static int ebfq_state_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct ebfq_data *ed = q->elevator->elevator_data;
	int i;

	spin_lock_irq(&ed->lock);
	seq_printf(m, "peak_rate_sectors_per_s %llu\n", ed->peak_rate);
	seq_printf(m, "peak_rate_samples %lu\n", ed->rate_samples);
	seq_printf(m, "last_rate_sectors_per_s %llu\n", ed->rate_last);
	seq_printf(m, "wr_duration_ms %llu\n",
		   div_u64(ebfq_wr_duration_ns(ed->peak_rate,
					       ed->tun.wr_max_time_ms),
			   NSEC_PER_MSEC));
	seq_printf(m, "raised_queues %u\n", ed->wr_nr);
	for (i = EBFQ_WR_INTERACTIVE; i < EBFQ_NR_WR_KINDS; i++)
		seq_printf(m, "raised_%s %lu\n", ebfq_wr_names[i],
			   ed->wr_started[i]);
	seq_printf(m, "raising_ended_streaming %lu\n", ed->wr_ended_heavy);
	seq_printf(m, "raising_ended_early %lu\n", ed->wr_ended_early);
	seq_printf(m, "raising_handed_over %lu\n", ed->wr_handed_over);
	seq_printf(m, "preemptions %lu\n", ed->wr_preemptions);
	seq_printf(m, "injected %lu\n", ed->wr_injected);
	seq_printf(m, "bypassed %lu\n", ed->wr_bypassed);
	seq_printf(m, "large_bursts %lu\n", ed->large_bursts);
	seq_printf(m, "burst_id %u\nburst_size %u\nburst_large %d\n",
		   ed->burst_id, ed->burst_size, ed->burst_large);
	seq_printf(m, "max_budget %lu%s\n", ebfq_max_budget(ed),
		   ed->tun.max_budget ? "" : " (auto)");
	seq_printf(m, "busy_queues %u\nqueued %u\nin_driver %u\n",
		   ed->busy_queues, ed->queued, ed->in_driver);
	seq_printf(m, "write_sectors_in_driver %lu\n", ed->write_in_driver);
	seq_printf(m, "in_service %d\n",
		   ed->in_service ? ed->in_service->pid : -1);
	seq_printf(m, "async_depth %u\nasync_depth_raised %u\n",
		   ed->async_depth, ed->async_depth_wr);
	for (i = 0; i < EBFQ_NR_CLASSES; i++) {
		const struct ebfq_service_tree *st = &ed->root_sd.tree[i];

		seq_printf(m, "tree %s vtime %llu wsum %lu active %u\n",
			   ebfq_class_names[i], st->vtime, st->wsum,
			   st->nr_active);
	}
	for (i = 0; i < EBFQ_NR_EXPIRE_REASONS; i++)
		seq_printf(m, "expired_%s %lu\n", ebfq_expire_names[i],
			   ed->expirations[i]);
	seq_printf(m, "idle_restarted_late %lu\n", ed->idle_restarts);
	spin_unlock_irq(&ed->lock);
	return 0;
}

static int ebfq_queues_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct ebfq_data *ed = q->elevator->elevator_data;
	struct ebfq_queue *bq;

	u64 now = ktime_get_coarse_ns();

	seq_puts(m, "pid type class weight where budget service next_budget start finish queued dispatched seeky ref raised raised_ms_left burst family\n");
	spin_lock_irq(&ed->lock);
	list_for_each_entry(bq, &ed->all_queues, all_node) {
		const struct ebfq_entity *en = &bq->entity;
		u64 left = 0;

		if (ebfq_wr_raised(bq) && bq->wr_end_ns > now)
			left = div_u64(bq->wr_end_ns - now, NSEC_PER_MSEC);
		seq_printf(m, "%d %s %s %u %s %lu %lu %lu %llu %llu %u %u %d %d %s %llu %u %d\n",
			   bq->pid,
			   test_bit(EBFQ_QF_SYNC, &bq->flags) ? "sync" : "async",
			   ebfq_class_names[en->class_idx], en->weight,
			   ebfq_where_names[en->where], en->budget,
			   en->service, bq->next_budget, en->start, en->finish,
			   bq->queued, bq->dispatched,
			   hweight32(bq->seek_history), bq->ref,
			   ebfq_wr_names[bq->wr_kind], left, bq->burst_id,
			   bq->family);
	}
	spin_unlock_irq(&ed->lock);
	return 0;
}

#ifdef CONFIG_IOSCHED_EBFQ_CGROUP
/* The root's queues, then one line per online group of the device. */
static int ebfq_groups_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct ebfq_data *ed = q->elevator->elevator_data;
	struct ebfq_group *bg;
	char path[64];

	spin_lock_irq(&ed->lock);
	seq_puts(m, "/ weight=- dev_weight=- raised=- sched_weight=- where=- ");
	ebfq_group_print_stats(m, ed, NULL);
	seq_putc(m, '\n');
	list_for_each_entry(bg, &ed->groups, node) {
		cgroup_path(bg->pd.blkg->blkcg->css.cgroup, path, sizeof(path));
		seq_printf(m,
			   "%s weight=%u dev_weight=%u raised=%u sched_weight=%u where=%s ",
			   path, bg->weight, bg->dev_weight, bg->wr_nr,
			   bg->entity.weight, ebfq_where_names[bg->entity.where]);
		ebfq_group_print_stats(m, ed, bg);
		seq_putc(m, '\n');
	}
	spin_unlock_irq(&ed->lock);
	return 0;
}
#endif

const struct blk_mq_debugfs_attr ebfq_queue_debugfs_attrs[] = {
	{"state", 0400, ebfq_state_show},
	{"queues", 0400, ebfq_queues_show},
#ifdef CONFIG_IOSCHED_EBFQ_CGROUP
	{"groups", 0400, ebfq_groups_show},
#endif
	{},
};
#endif /* CONFIG_BLK_DEBUG_FS */
