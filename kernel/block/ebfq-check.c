// SPDX-License-Identifier: GPL-2.0
/*
 * ebfq: invariant checks (CONFIG_IOSCHED_EBFQ_DEBUG, and the KUnit suite).
 *
 * The bugs a scheduler ships are rarely wrong arithmetic: they are counts
 * that drift apart until a device stalls, an entity left on a tree after
 * its queue was freed, a timer armed for a queue that is no longer in
 * service. Every one of them breaks some relation between the scheduler's
 * own fields long before anyone sees a hang, so the debug build checks
 * those relations at the end of every section that holds ebfq_data.lock
 * and warns, once, at the first one broken.
 *
 * The checks walk every queue, request and tree node: a debug kernel pays
 * that price, a production one compiles them out.
 */
#include <linux/blk-mq.h>
#include <linux/rbtree.h>

#include "ebfq-iosched.h"

static struct ebfq_entity *ebfq_check_entity(struct rb_node *node)
{
	return rb_entry_safe(node, struct ebfq_entity, node);
}

static const char *ebfq_check_tree(const struct ebfq_sched_data *sd,
				   unsigned int class_idx)
{
	const struct ebfq_service_tree *st = &sd->tree[class_idx];
	const struct ebfq_entity *prev = NULL, *entity;
	unsigned int nr = 0, groups = 0;
	unsigned long wsum = 0;
	u64 idle_wsum = 0, idle_wsq = 0;
	struct rb_node *node;

	for (node = rb_first(&st->active); node; node = rb_next(node)) {
		entity = ebfq_check_entity(node);
		if (entity->where != EBFQ_ACTIVE)
			return "an entity on an active tree is not active";
		if (entity->sd != sd || entity->class_idx != class_idx)
			return "an entity is on another scheduler's or class's tree";
		if (!entity->weight)
			return "an active entity has weight 0";
		if (entity->min_start != ebfq_subtree_min_start(entity))
			return "an active node's subtree minimum start is stale";
		if (ebfq_vt_after(entity->start, entity->finish))
			return "an active entity starts after it finishes";
		if (prev && ebfq_vt_before(entity->finish, prev->finish))
			return "the active tree is out of finish order";
		wsum += entity->weight;
		nr++;
		prev = entity;
	}
	if (nr != st->nr_active)
		return "nr_active differs from the active tree";
	nr = 0;

	entity = sd->in_service;
	if (entity && entity->class_idx == class_idx)
		wsum += entity->weight;
	if (wsum != st->wsum)
		return "wsum differs from the weights of active and in-service entities";

	prev = NULL;
	for (node = rb_first_cached(&st->idle); node; node = rb_next(node)) {
		entity = ebfq_check_entity(node);
		if (entity->where != EBFQ_IDLE)
			return "an entity on an idle tree is not idle";
		if (entity->sd != sd || entity->class_idx != class_idx)
			return "an idle entity is on another scheduler's or class's tree";
		if (!ebfq_vt_after(entity->finish, st->vtime))
			return "an idle entity's finish is not after V";
		if (ebfq_vt_after(entity->start, entity->finish))
			return "an idle entity starts after it finishes";
		if (prev && ebfq_vt_before(entity->finish, prev->finish))
			return "the idle tree is out of finish order";
		nr++;
		groups += !!entity->child_sd;
		idle_wsum += entity->weight;
		idle_wsq += (u64)entity->weight * entity->weight;
		prev = entity;
	}
	if (nr != st->nr_idle || groups != st->nr_idle_groups ||
	    idle_wsum != st->idle_wsum || idle_wsq != st->idle_wsq)
		return "the idle tree's sums differ from the idle tree";
	return NULL;
}

/**
 * ebfq_sd_check - the first broken invariant of a scheduler's trees
 * @sd: the scheduler; the ones of its group entities are checked too
 *
 * Returns NULL when every active entity is on its own tree in finish order
 * with correct subtree minima, the counts and weight sums match the trees,
 * idle entities wait with a finish after V, and the entity in service is
 * on no tree; else a description of what is wrong.
 */
const char *ebfq_sd_check(const struct ebfq_sched_data *sd)
{
	const struct ebfq_entity *entity = sd->in_service;
	const char *why;
	unsigned int i;

	if (entity) {
		if (entity->where != EBFQ_IN_SERVICE)
			return "the entity in service is not marked in service";
		if (entity->sd != sd)
			return "the entity in service belongs to another scheduler";
		if (!RB_EMPTY_NODE(&entity->node))
			return "the entity in service is still on a tree";
	}
	if (sd->owner && sd->owner->child_sd != sd)
		return "a scheduler's group entity does not point back to it";

	for (i = 0; i < EBFQ_NR_CLASSES; i++) {
		struct rb_node *node;

		why = ebfq_check_tree(sd, i);
		if (why)
			return why;
		for (node = rb_first(&sd->tree[i].active); node;
		     node = rb_next(node)) {
			entity = ebfq_check_entity(node);
			if (entity->child_sd) {
				why = ebfq_sd_check(entity->child_sd);
				if (why)
					return why;
			}
		}
	}
	entity = sd->in_service;
	if (entity && entity->child_sd)
		return ebfq_sd_check(entity->child_sd);
	return NULL;
}

#ifdef CONFIG_IOSCHED_EBFQ_DEBUG
/* What one queue's fields say of themselves. */
static const char *ebfq_check_queue(struct ebfq_data *ed, struct ebfq_queue *bq)
{
	struct rb_node *node;
	struct request *rq;
	unsigned int n = 0;
	int refs;

	for (node = rb_first(&bq->sort_list); node; node = rb_next(node))
		n++;
	if (n != bq->queued)
		return "a queue's sorted requests differ from its queued count";
	n = 0;
	list_for_each_entry(rq, &bq->fifo, queuelist) {
		if (rq->elv.priv[0] != bq)
			return "a queued request belongs to another queue";
		if (RB_EMPTY_NODE(&rq->rb_node))
			return "a request in a queue's FIFO is not in its sort list";
		n++;
	}
	if (n != bq->queued)
		return "a queue's FIFO differs from its queued count";

	switch (bq->entity.where) {
	case EBFQ_ACTIVE:
		if (!bq->queued)
			return "an active queue has no request";
		break;
	case EBFQ_IN_SERVICE:
		if (bq != ed->in_service)
			return "a queue in service is not the device's";
		break;
	default:
		if (bq->queued)
			return "a queue with requests is neither active nor in service";
		if (bq == ed->in_service)
			return "the device's queue in service is not in service";
		break;
	}
	if (bq->entity.sd != ebfq_group_sched(ed, bq->group))
		return "a queue is scheduled outside its group";
#ifdef CONFIG_IOSCHED_EBFQ_CGROUP
	if (bq->group && !bq->group->online)
		return "a queue belongs to a group that is offline";
#endif
	refs = bq->queued + bq->dispatched;
	if (bq->entity.where != EBFQ_NOWHERE)
		refs++;
	if (bq->ref < refs)
		return "a queue has fewer references than requests and trees";

	if (test_bit(EBFQ_QF_WAIT, &bq->flags) ||
	    test_bit(EBFQ_QF_IDLING, &bq->flags)) {
		if (bq != ed->in_service || bq->queued)
			return "a queue waits or idles but is not the empty one in service";
		if (test_bit(EBFQ_QF_WAIT, &bq->flags) &&
		    test_bit(EBFQ_QF_IDLING, &bq->flags))
			return "a queue both waits for its I/O and idles";
	}
	/* Its completions end the wait: without any, it would last forever. */
	if (test_bit(EBFQ_QF_WAIT, &bq->flags) && !bq->dispatched)
		return "a queue waits for I/O in flight but has none";
	if (test_bit(EBFQ_QF_IDLING, &bq->flags) &&
	    test_bit(EBFQ_QF_EXITED, &bq->flags))
		return "the device idles for a process that exited";
	if (ebfq_wr_raised(bq) != !list_empty(&bq->wr_node))
		return "a queue's raising and the raised list disagree";
	return NULL;
}

/* Every online group hangs below a live parent, in its scheduler. */
static const char *ebfq_check_groups(struct ebfq_data *ed)
{
#ifdef CONFIG_IOSCHED_EBFQ_CGROUP
	struct ebfq_group *bg;

	list_for_each_entry(bg, &ed->groups, node) {
		if (!bg->online || bg->root)
			return "an offline or root group is on the device's list";
		if (bg->entity.sd != ebfq_group_sched(ed, bg->parent))
			return "a group is scheduled outside its parent";
		if (bg->parent && !bg->parent->online)
			return "a group's parent is offline";
	}
#endif
	return NULL;
}

/* Whether an event to come (a completion, the idle timer) runs dispatch. */
static bool ebfq_check_wakeup(struct ebfq_data *ed)
{
	struct ebfq_queue *bq = ed->in_service;

	if (ed->in_driver && (ed->dq_held || ed->tun.strict_guarantees))
		return true;
	if (hrtimer_active(&ed->idle_timer) &&
	    (ed->idle_class_wait || (bq && test_bit(EBFQ_QF_IDLING, &bq->flags))))
		return true;
	return bq && test_bit(EBFQ_QF_WAIT, &bq->flags) && bq->dispatched;
}

static const char *__ebfq_check(struct ebfq_data *ed)
{
	unsigned int queued = 0, dispatched = 0, busy = 0, raised = 0;
	struct ebfq_queue *bq;
	const char *why;

	list_for_each_entry(bq, &ed->all_queues, all_node) {
		why = ebfq_check_queue(ed, bq);
		if (why)
			return why;
		queued += bq->queued;
		dispatched += bq->dispatched;
		busy += !!bq->queued;
		raised += ebfq_wr_raised(bq);
	}
	if (queued != ed->queued)
		return "the device's queued count differs from its queues'";
	why = ebfq_check_groups(ed);
	if (why)
		return why;
	if (dispatched != ed->in_driver)
		return "the device's in_driver count differs from its queues'";
	if (busy != ed->busy_queues)
		return "busy_queues differs from the queues with requests";
	if (raised != ed->wr_nr)
		return "wr_nr differs from the raised queues";

	if (ed->in_service) {
		const struct ebfq_entity *entity = &ed->in_service->entity;

		/* Its groups are in service at every level up to the root. */
		for (; entity->sd->owner; entity = entity->sd->owner)
			if (entity->sd->in_service != entity)
				return "a group of the queue in service is not in service";
		if (entity->sd != &ed->root_sd || ed->root_sd.in_service != entity)
			return "the device's queue in service is not its root's";
	} else if (ed->root_sd.in_service) {
		return "the root has an entity in service but the device has no queue";
	}

	/*
	 * Whatever holds dispatch back must end by itself: the idle timer is
	 * armed (or firing) for idling and for the idle class's wait, and a
	 * held dispatch waits for a completion.
	 */
	if (ed->in_service && test_bit(EBFQ_QF_IDLING, &ed->in_service->flags) &&
	    !hrtimer_active(&ed->idle_timer))
		return "the device idles with no timer armed";
	if (ed->idle_class_wait && !hrtimer_active(&ed->idle_timer))
		return "the idle class waits with no timer armed";
	if (ed->dq_held && !ed->in_driver)
		return "dispatch is held with no request in the driver";
	/*
	 * A timer that restarted late (ebfq_idle_fired_late()) can be queued
	 * again by the hrtimer core just after idling stopped and failed to
	 * cancel it: its run finds nobody idling and does nothing.
	 */
	if (hrtimer_is_queued(&ed->idle_timer) && !ed->idle_class_wait &&
	    !ed->idle_restarted &&
	    !(ed->in_service && test_bit(EBFQ_QF_IDLING, &ed->in_service->flags)))
		return "the idle timer is armed but nobody idles or waits";
	/* Requests that blk-mq will not ask for must have a wake-up coming. */
	if (ed->queued && !ed->has_work && !ebfq_check_wakeup(ed))
		return "requests wait and nothing will dispatch them";

	return ebfq_sd_check(&ed->root_sd);
}

/**
 * ebfq_check - warn once at the first broken invariant of a device
 * @ed: the device
 *
 * Called at the end of every section holding @ed->lock.
 */
void ebfq_check(struct ebfq_data *ed)
{
	const char *why;

	lockdep_assert_held(&ed->lock);

	why = __ebfq_check(ed);
	WARN_ONCE(why, "ebfq: %s (queued %u in_driver %u busy %u in service %d)\n",
		  why, ed->queued, ed->in_driver, ed->busy_queues,
		  ed->in_service ? ed->in_service->pid : -1);
}
#endif /* CONFIG_IOSCHED_EBFQ_DEBUG */
