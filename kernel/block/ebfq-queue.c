// SPDX-License-Identifier: GPL-2.0
/*
 * ebfq: queues. Each process has a queue for its synchronous I/O, made
 * the first time it reads or writes synchronously on the device and kept
 * in its io_context; asynchronous I/O goes to queues shared per ioprio
 * class and level, one set per group. A request holds a reference to its
 * queue, as do the process's io_context, the engine while the queue is on
 * a tree, and a group for its async queues: the last one frees it.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/ioprio.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "elevator.h"
#include "ebfq-iosched.h"

/* Weight of one ioprio level: level l weighs (8 - l) * 10, 80 .. 10. */
static const unsigned int ebfq_weight_per_level = 10;

static enum ebfq_class ebfq_ioprio_class(int ioprio)
{
	switch (IOPRIO_PRIO_CLASS(ioprio)) {
	case IOPRIO_CLASS_RT:
		return EBFQ_CLASS_RT;
	case IOPRIO_CLASS_IDLE:
		return EBFQ_CLASS_IDLE;
	default:
		return EBFQ_CLASS_BE;
	}
}

static unsigned int ebfq_ioprio_level(int ioprio)
{
	if (ebfq_ioprio_class(ioprio) == EBFQ_CLASS_IDLE)
		return IOPRIO_NR_LEVELS - 1;
	return min_t(unsigned int, IOPRIO_PRIO_LEVEL(ioprio),
		     IOPRIO_NR_LEVELS - 1);
}

static unsigned int ebfq_ioprio_weight(int ioprio)
{
	return (IOPRIO_NR_LEVELS - ebfq_ioprio_level(ioprio)) *
	       ebfq_weight_per_level;
}

static struct kmem_cache *ebfq_queue_cache;

/** ebfq_queue_cache_create - the slab of queues, at module load */
int ebfq_queue_cache_create(void)
{
	ebfq_queue_cache = KMEM_CACHE(ebfq_queue, 0);
	return ebfq_queue_cache ? 0 : -ENOMEM;
}

/** ebfq_queue_cache_destroy - ... and at module unload */
void ebfq_queue_cache_destroy(void)
{
	kmem_cache_destroy(ebfq_queue_cache);
}

/**
 * ebfq_queue_free - free a queue, whatever its references
 * @bq: the queue, out of every tree and list but ebfq_data.all_queues
 *
 * For ebfq_put_queue(), and for a queue a bug left behind at exit.
 */
void ebfq_queue_free(struct ebfq_queue *bq)
{
	ebfq_wr_stop(bq->ed, bq);
	list_del(&bq->all_node);
	ebfq_group_put(bq->group);
	kmem_cache_free(ebfq_queue_cache, bq);
}

/**
 * ebfq_put_queue - drop a reference to a queue, freeing it at the last
 * @bq: the queue
 */
void ebfq_put_queue(struct ebfq_queue *bq)
{
	struct ebfq_data *ed = bq->ed;

	lockdep_assert_held(&ed->lock);

	if (--bq->ref)
		return;
	WARN_ON_ONCE(bq->entity.where != EBFQ_NOWHERE || bq->queued ||
		     bq->dispatched || bq == ed->in_service);
	if (WARN_ON_ONCE(bq == &ed->oom_queue))
		return;
	ebfq_queue_free(bq);
}

static void ebfq_queue_hold(struct ebfq_entity *entity)
{
	container_of(entity, struct ebfq_queue, entity)->ref++;
}

static void ebfq_queue_forget(struct ebfq_entity *entity)
{
	ebfq_put_queue(container_of(entity, struct ebfq_queue, entity));
}

static const struct ebfq_entity_ops ebfq_queue_entity_ops = {
	.hold	= ebfq_queue_hold,
	.forget	= ebfq_queue_forget,
};

/**
 * ebfq_queue_setup - set up a queue, zeroed, with its first weight and class
 * @ed: the device
 * @bq: the queue
 * @bg: its group, NULL for the root
 * @sync: whether it takes sync I/O
 * @ioprio: the ioprio it is made for
 *
 * The caller sets its references.
 */
void ebfq_queue_setup(struct ebfq_data *ed, struct ebfq_queue *bq,
		      struct ebfq_group *bg, bool sync, int ioprio)
{
	ebfq_entity_init(&bq->entity, ebfq_group_sched(ed, bg),
			 &ebfq_queue_entity_ops, ebfq_ioprio_weight(ioprio),
			 ebfq_ioprio_class(ioprio));
	bq->ed = ed;
	ebfq_group_get(bg);
	bq->group = bg;
	bq->sort_list = RB_ROOT;
	INIT_LIST_HEAD(&bq->fifo);
	if (sync)
		__set_bit(EBFQ_QF_SYNC, &bq->flags);
	if (current->flags & PF_KTHREAD)
		__set_bit(EBFQ_QF_KTHREAD, &bq->flags);
	bq->ioprio = ioprio;
	bq->orig_weight = ebfq_ioprio_weight(ioprio);
	bq->pid = current->pid;
	bq->family = ebfq_task_family(current);
	bq->next_budget = ebfq_max_budget(ed);
	ebfq_wr_queue_init(bq);
	list_add_tail(&bq->all_node, &ed->all_queues);
}

static struct ebfq_queue *ebfq_queue_create(struct ebfq_data *ed,
					    struct ebfq_group *bg, bool sync,
					    int ioprio)
{
	struct ebfq_queue *bq;

	lockdep_assert_held(&ed->lock);

	bq = kmem_cache_alloc_node(ebfq_queue_cache, GFP_NOWAIT | __GFP_ZERO,
				   ed->queue->node);
	if (!bq)
		return NULL;
	ebfq_queue_setup(ed, bq, bg, sync, ioprio);
	return bq;
}

/**
 * ebfq_async_slot - where a group keeps its async queue of an ioprio
 * @ed: the device
 * @bg: the group, NULL for the root
 * @ioprio: the ioprio
 */
struct ebfq_queue **ebfq_async_slot(struct ebfq_data *ed,
				    struct ebfq_group *bg, int ioprio)
{
	unsigned int class = ebfq_ioprio_class(ioprio);
	unsigned int level = ebfq_ioprio_level(ioprio);

#ifdef CONFIG_IOSCHED_EBFQ_CGROUP
	if (bg)
		return &bg->async[class][level];
#endif
	return &ed->async[class][level];
}

/**
 * ebfq_put_async_queues - drop a group's (or the root's) async queues
 * @async: its async queue slots, emptied
 */
void ebfq_put_async_queues(struct ebfq_queue *async[][IOPRIO_NR_LEVELS])
{
	int class, level;

	for (class = 0; class < EBFQ_NR_CLASSES; class++) {
		for (level = 0; level < IOPRIO_NR_LEVELS; level++) {
			struct ebfq_queue *bq = async[class][level];

			if (bq) {
				async[class][level] = NULL;
				ebfq_put_queue(bq);
			}
		}
	}
}

/* The async queue of @ioprio in @bg, made on first use; @bg keeps a ref. */
static struct ebfq_queue *ebfq_async_queue(struct ebfq_data *ed,
					   struct ebfq_group *bg, int ioprio)
{
	struct ebfq_queue **slot = ebfq_async_slot(ed, bg, ioprio);

	if (!*slot) {
		*slot = ebfq_queue_create(ed, bg, false, ioprio);
		if (!*slot)
			return NULL;
		(*slot)->ref = 1;
		(*slot)->pid = 0;
		(*slot)->family = 0;
	}
	return *slot;
}

/* The process's ioprio changed: new async queue, new weight for sync. */
static void ebfq_bic_set_ioprio(struct ebfq_data *ed, struct ebfq_io_cq *bic,
				int ioprio)
{
	struct ebfq_queue *bq;

	lockdep_assert_held(&ed->lock);

	bic->ioprio = ioprio;
	bq = bic->queue[0];
	if (bq) {
		bic->queue[0] = NULL;
		ebfq_put_queue(bq);
	}
	bq = bic->queue[1];
	if (bq) {
		bq->ioprio = ioprio;
		bq->orig_weight = ebfq_ioprio_weight(ioprio);
		bq->entity.new_weight = bq->orig_weight * bq->wr_coeff;
		bq->entity.new_class_idx = ebfq_ioprio_class(ioprio);
	}
}

/**
 * ebfq_get_queue - the queue a request of the current process goes to
 * @ed: the device
 * @bic: the process's io_cq on the device, NULL if it could not have one
 * @sync: whether the request is sync
 * @ioprio: the request's ioprio
 *
 * Return: the queue, with a reference the caller takes over; the device's
 * oom_queue if none could be made.
 */
struct ebfq_queue *ebfq_get_queue(struct ebfq_data *ed, struct ebfq_io_cq *bic,
				  bool sync, int ioprio)
{
	struct ebfq_queue *bq;

	lockdep_assert_held(&ed->lock);

	if (!bic)
		return &ed->oom_queue;
	if (bic->ioprio != ioprio)
		ebfq_bic_set_ioprio(ed, bic, ioprio);
	bq = bic->queue[sync];
	if (bq)
		return bq;

	/* ebfq_rq_route() puts it in its group when a request comes. */
	bq = sync ? ebfq_queue_create(ed, NULL, true, ioprio) :
		    ebfq_async_queue(ed, NULL, ioprio);
	if (!bq)
		return &ed->oom_queue;
	bic->queue[sync] = bq;
	bq->ref++;
	return bq;
}

/**
 * ebfq_rq_route - the queue @rq goes to, in its cgroup's group
 * @ed: the device
 * @rq: the request, whose rq->elv.priv[0] holds @bq
 * @bq: the queue ebfq_get_queue() gave it
 *
 * The group is that of the cgroup @rq's bio belongs to (for writeback, the
 * cgroup that dirtied the pages): a process that changed cgroup takes its
 * queue along, an async request goes to its group's async queue.
 *
 * Return: the queue, referenced by @rq.
 */
struct ebfq_queue *ebfq_rq_route(struct ebfq_data *ed, struct request *rq,
				 struct ebfq_queue *bq)
{
	struct ebfq_group *bg;
	struct ebfq_queue *async;

	lockdep_assert_held(&ed->lock);

	if (!IS_ENABLED(CONFIG_IOSCHED_EBFQ_CGROUP) || !rq->bio ||
	    bq == &ed->oom_queue)
		return bq;
	bg = ebfq_bio_group(ed, rq->bio);
	if (bq->group == bg)
		return bq;
	if (ebfq_queue_sync(bq)) {
		/* The request holds a reference: expiring cannot free it. */
		if (bq == ed->in_service)
			ebfq_expire(ed, bq, EBFQ_EXP_MOVED);
		ebfq_queue_set_group(ed, bq, bg);
		return bq;
	}
	async = ebfq_async_queue(ed, bg, bq->ioprio);
	if (!async)
		return bq;
	async->ref++;
	rq->elv.priv[0] = async;
	ebfq_put_queue(bq);
	return async;
}
