// SPDX-License-Identifier: GPL-2.0
/*
 * ebfq: the B-WF2Q+ engine.
 *
 * Every scheduled thing is an entity with a weight, a budget in sectors
 * and two virtual timestamps, start S and finish F = S + budget / weight.
 * Each class of each scheduler has a service tree with a virtual time V
 * that advances by served / (sum of the weights of its busy entities).
 * The entity served next is the eligible one (S <= V) with the smallest F.
 *
 * The active tree is an rbtree ordered by F whose nodes carry the minimum
 * S of their subtree (rbtree_augmented.h), so the choice is a single walk
 * from the root. Entities that run out of work keep their timestamps on
 * the idle tree while F > V, so that coming back soon does not let them
 * jump ahead of the entities that stayed busy.
 *
 * A scheduler (struct ebfq_sched_data) may belong to a group entity, which
 * its parent schedules exactly as it schedules a queue: selection walks
 * down the levels, service is charged to every level on the way up.
 *
 * The engine knows nothing of requests or devices, and takes no lock: its
 * callers serialise it (ebfq_data.lock), and the KUnit suite drives it
 * directly.
 */
#include <linux/math64.h>
#include <linux/rbtree_augmented.h>

#include "ebfq-iosched.h"

static inline struct ebfq_entity *ebfq_node_entity(struct rb_node *node)
{
	return rb_entry_safe(node, struct ebfq_entity, node);
}

static inline struct ebfq_service_tree *ebfq_entity_tree(struct ebfq_entity *entity)
{
	return &entity->sd->tree[entity->class_idx];
}

/**
 * ebfq_vt_delta - virtual time a service of @sectors takes at @weight
 * @sectors: service, in sectors
 * @weight: weight, at least 1
 */
u64 ebfq_vt_delta(unsigned long sectors, unsigned int weight)
{
	/*
	 * Every I/O takes a few of these. A 32-bit ARM divides 64 bits in a
	 * loop of shifts, 32 bits in one instruction (Cortex-A7, A15) or a
	 * short routine (A9): when the remainder of sectors / weight, shifted,
	 * fits in 32 bits, 32-bit divisions give the same quotient.
	 */
	if (BITS_PER_LONG == 32 && weight < 1U << (32 - EBFQ_VT_SHIFT)) {
		unsigned long whole = sectors / weight;
		u32 rest = sectors % weight;

		return ((u64)whole << EBFQ_VT_SHIFT) +
		       (rest << EBFQ_VT_SHIFT) / weight;
	}
	return div_u64((u64)sectors << EBFQ_VT_SHIFT, weight);
}

/* Recompute an active node's subtree minimum start; true if unchanged. */
static inline bool ebfq_min_start_update(struct ebfq_entity *entity, bool exit)
{
	u64 min_start = ebfq_subtree_min_start(entity);

	if (exit && entity->min_start == min_start)
		return true;
	entity->min_start = min_start;
	return false;
}

RB_DECLARE_CALLBACKS(static, ebfq_min_start_cb, struct ebfq_entity, node,
		     min_start, ebfq_min_start_update);

static void ebfq_active_insert(struct ebfq_service_tree *st,
			       struct ebfq_entity *entity)
{
	struct rb_node **link = &st->active.rb_node, *parent = NULL;

	/* Ancestors on the way down see the new start in their minimum. */
	while (*link) {
		struct ebfq_entity *cur = ebfq_node_entity(*link);

		parent = *link;
		cur->min_start = ebfq_vt_min(cur->min_start, entity->start);
		if (ebfq_vt_before(entity->finish, cur->finish))
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}

	entity->min_start = entity->start;
	rb_link_node(&entity->node, parent, link);
	rb_insert_augmented(&entity->node, &st->active, &ebfq_min_start_cb);
	st->nr_active++;
	entity->where = EBFQ_ACTIVE;
}

static void ebfq_active_remove(struct ebfq_service_tree *st,
			       struct ebfq_entity *entity)
{
	rb_erase_augmented(&entity->node, &st->active, &ebfq_min_start_cb);
	RB_CLEAR_NODE(&entity->node);
	st->nr_active--;
}

static bool ebfq_idle_less(struct rb_node *a, const struct rb_node *b)
{
	return ebfq_vt_before(ebfq_node_entity(a)->finish,
			      rb_entry(b, struct ebfq_entity, node)->finish);
}

/* The weight of an entity stays the same while it is idle. */
static void ebfq_idle_add(struct ebfq_service_tree *st,
			  struct ebfq_entity *entity)
{
	u64 weight = entity->weight;

	entity->where = EBFQ_IDLE;
	rb_add_cached(&entity->node, &st->idle, ebfq_idle_less);
	st->nr_idle++;
	st->nr_idle_groups += !!entity->child_sd;
	st->idle_wsum += weight;
	st->idle_wsq += weight * weight;
}

static void ebfq_idle_del(struct ebfq_service_tree *st,
			  struct ebfq_entity *entity)
{
	u64 weight = entity->weight;

	rb_erase_cached(&entity->node, &st->idle);
	st->nr_idle--;
	st->nr_idle_groups -= !!entity->child_sd;
	st->idle_wsum -= weight;
	st->idle_wsq -= weight * weight;
}

static void ebfq_forget(struct ebfq_entity *entity)
{
	entity->where = EBFQ_NOWHERE;
	entity->service = 0;
	entity->owes = false;
	entity->ops->forget(entity);
}

/* Forget the idle entities whose finish time V has reached. */
static void ebfq_idle_expire(struct ebfq_service_tree *st)
{
	struct rb_node *node;

	while ((node = rb_first_cached(&st->idle))) {
		struct ebfq_entity *entity = ebfq_node_entity(node);

		if (ebfq_vt_after(entity->finish, st->vtime))
			break;
		ebfq_idle_del(st, entity);
		ebfq_forget(entity);
	}
}

static void ebfq_idle_flush(struct ebfq_service_tree *st)
{
	struct rb_node *node;

	while ((node = rb_first_cached(&st->idle))) {
		struct ebfq_entity *entity = ebfq_node_entity(node);

		ebfq_idle_del(st, entity);
		ebfq_forget(entity);
	}
}

/*
 * @entity, counted in nobody's weight sum any more, ran out of work: keep
 * its timestamps on the idle tree while they are in the future. They stay
 * there when the tree has nobody busy left: all of its entities may be
 * thinking between two requests at once, and forgetting then what each
 * received would forgive a light entity's debt every time. The device
 * drops the history when it was idle long enough for a new busy period
 * (ebfq_sd_flush_idle()). May free @entity.
 */
static void ebfq_entity_retire(struct ebfq_service_tree *st,
			       struct ebfq_entity *entity)
{
	if (ebfq_vt_after(entity->finish, st->vtime))
		ebfq_idle_add(st, entity);
	else
		ebfq_forget(entity);
}

/* Take a pending weight or class change; the entity is on no tree. */
static void ebfq_entity_apply_prio(struct ebfq_entity *entity)
{
	entity->weight = entity->new_weight;
	entity->class_idx = entity->new_class_idx;
}

/**
 * ebfq_sd_init - initialise a scheduler
 * @sd: the scheduler
 * @owner: the group entity it belongs to, NULL for a device's root
 */
void ebfq_sd_init(struct ebfq_sched_data *sd, struct ebfq_entity *owner)
{
	int i;

	memset(sd, 0, sizeof(*sd));
	for (i = 0; i < EBFQ_NR_CLASSES; i++) {
		sd->tree[i].active = RB_ROOT;
		sd->tree[i].idle = RB_ROOT_CACHED;
	}
	sd->owner = owner;
	if (owner)
		owner->child_sd = sd;
}

/**
 * ebfq_entity_init - initialise an entity of scheduler @sd
 * @entity: the entity
 * @sd: the scheduler it belongs to
 * @ops: its owner's hold/forget callbacks
 * @weight: its weight, at least 1
 * @class_idx: its class
 *
 * The caller sets entity->budget before the entity is first activated.
 */
void ebfq_entity_init(struct ebfq_entity *entity, struct ebfq_sched_data *sd,
		      const struct ebfq_entity_ops *ops, unsigned int weight,
		      enum ebfq_class class_idx)
{
	memset(entity, 0, sizeof(*entity));
	RB_CLEAR_NODE(&entity->node);
	entity->sd = sd;
	entity->ops = ops;
	entity->weight = weight;
	entity->new_weight = weight;
	entity->class_idx = class_idx;
	entity->new_class_idx = class_idx;
	entity->where = EBFQ_NOWHERE;
}

/*
 * One level of ebfq_entity_activate(). @fresh forgets the old finish,
 * unless it counts service received out of turn: the entity had no turn
 * since, and its start still says what it received before.
 */
static void __ebfq_entity_activate(struct ebfq_entity *entity, bool fresh)
{
	struct ebfq_service_tree *st = ebfq_entity_tree(entity);
	bool remembered = false;

	if (entity->where == EBFQ_IDLE) {
		ebfq_idle_del(st, entity);
		remembered = entity->class_idx == entity->new_class_idx;
	} else {
		entity->ops->hold(entity);
	}

	ebfq_entity_apply_prio(entity);
	st = ebfq_entity_tree(entity);
	entity->start = st->vtime;
	if (remembered && (!fresh || entity->owes))
		entity->start = ebfq_vt_max(entity->start, entity->finish);
	entity->owes = false;
	entity->service = 0;
	entity->finish = entity->start +
			 ebfq_vt_delta(entity->budget, entity->weight);
	st->wsum += entity->weight;
	ebfq_active_insert(st, entity);
}

/**
 * ebfq_entity_activate - an entity with no work got some
 * @entity: the entity, not active and not in service
 * @fresh: whether it, and the groups above it, start at V even if an old,
 *	later finish is still remembered
 *
 * Its start is V, or its old finish if that is still remembered, later,
 * and @fresh is EBFQ_REMEMBER; its finish is start + budget / weight.
 * Groups above it that were not busy become busy too, at V with
 * EBFQ_FRESH_ALL: an application starting up that had to wait for its
 * group's remembered finish would wait for the turns of other groups,
 * which is what raising is there to avoid. A soft real-time queue asks
 * little, and has EBFQ_FRESH_QUEUE: should its group be past its share,
 * the group waits for the others, as the weights say.
 */
void ebfq_entity_activate(struct ebfq_entity *entity, enum ebfq_fresh fresh)
{
	for (; entity; entity = entity->sd->owner) {
		if (entity->where == EBFQ_ACTIVE ||
		    entity->where == EBFQ_IN_SERVICE)
			break;
		__ebfq_entity_activate(entity, fresh != EBFQ_REMEMBER);
		if (fresh == EBFQ_FRESH_QUEUE)
			fresh = EBFQ_REMEMBER;
	}
}

/**
 * ebfq_entity_deactivate - an active entity lost its work before service
 * @entity: the entity, on its active tree
 *
 * It had no turn, so its finish goes back to its start, plus what it
 * received out of turn (ebfq_entity_charge()); then, even a
 * fresh activation starts it there. Groups left with nothing to schedule
 * are deactivated in turn. May free @entity.
 */
void ebfq_entity_deactivate(struct ebfq_entity *entity)
{
	while (entity && entity->where == EBFQ_ACTIVE) {
		struct ebfq_sched_data *sd = entity->sd;
		struct ebfq_service_tree *st = ebfq_entity_tree(entity);

		ebfq_active_remove(st, entity);
		st->wsum -= entity->weight;
		entity->owes = entity->service != 0;
		entity->finish = entity->start +
				 ebfq_vt_delta(entity->service, entity->weight);
		entity->service = 0;
		ebfq_entity_retire(st, entity);
		if (ebfq_sd_busy(sd))
			break;
		entity = sd->owner;
	}
}

/* The eligible entity of @st with the smallest finish time. */
static struct ebfq_entity *ebfq_tree_first_eligible(struct ebfq_service_tree *st)
{
	struct rb_node *node = st->active.rb_node;
	struct ebfq_entity *root = ebfq_node_entity(node);

	if (!root)
		return NULL;

	/* Nobody eligible: V jumps to the smallest start, work-conserving. */
	if (ebfq_vt_after(root->min_start, st->vtime)) {
		st->vtime = root->min_start;
		ebfq_idle_expire(st);
	}

	while (node) {
		struct ebfq_entity *entity = ebfq_node_entity(node);
		struct ebfq_entity *left = ebfq_node_entity(node->rb_left);

		if (left && !ebfq_vt_after(left->min_start, st->vtime)) {
			node = node->rb_left;
			continue;
		}
		if (!ebfq_vt_after(entity->start, st->vtime))
			return entity;
		node = node->rb_right;
	}

	/* The subtree minima said someone was eligible. */
	WARN_ON_ONCE(1);
	return NULL;
}

/**
 * ebfq_sd_idle_class_delay - how long the idle class must still wait
 * @sd: the scheduler
 * @now_ns: the current time
 *
 * Returns 0 when the idle class may be served (or has nothing to serve).
 */
u64 ebfq_sd_idle_class_delay(const struct ebfq_sched_data *sd, u64 now_ns)
{
	u64 quiet = now_ns - sd->busy_class_served_ns;

	if (!sd->tree[EBFQ_CLASS_IDLE].nr_active ||
	    quiet >= EBFQ_IDLE_CLASS_GRACE_NS)
		return 0;
	return EBFQ_IDLE_CLASS_GRACE_NS - quiet;
}

/* Choose the class to serve: RT, then BE, then IDLE; but not forever. */
static struct ebfq_service_tree *ebfq_sd_pick_tree(struct ebfq_sched_data *sd,
						   u64 now_ns)
{
	struct ebfq_service_tree *idle = &sd->tree[EBFQ_CLASS_IDLE];
	int i;

	if (!idle->nr_active) {
		sd->idle_class_served_ns = now_ns;
	} else if (now_ns - sd->idle_class_served_ns > EBFQ_IDLE_CLASS_WAIT_NS) {
		sd->idle_class_served_ns = now_ns;
		return idle;
	}

	for (i = 0; i < EBFQ_CLASS_IDLE; i++)
		if (sd->tree[i].nr_active)
			return &sd->tree[i];

	if (!idle->nr_active || ebfq_sd_idle_class_delay(sd, now_ns))
		return NULL;
	sd->idle_class_served_ns = now_ns;
	return idle;
}

/**
 * ebfq_sd_select - choose the entity to serve next
 * @sd: the root scheduler
 * @now_ns: the current time, for the idle class's grace and starvation
 *
 * Walks down the hierarchy, putting the chosen entity of every level in
 * service, and returns the leaf, or NULL when nobody is busy, or when only
 * the idle class is and ebfq_sd_idle_class_delay() says it must wait; then
 * @sd->idle_class_wait_ns says for how long.
 */
struct ebfq_entity *ebfq_sd_select(struct ebfq_sched_data *sd, u64 now_ns)
{
	struct ebfq_sched_data *root = sd;
	struct ebfq_entity *entity;

	root->idle_class_wait_ns = 0;
	for (;;) {
		entity = sd->in_service;
		if (!entity) {
			struct ebfq_service_tree *st = ebfq_sd_pick_tree(sd, now_ns);

			entity = st ? ebfq_tree_first_eligible(st) : NULL;
			if (!entity) {
				/*
				 * A group whose idle class must wait: it
				 * goes back, as it was, among its peers.
				 */
				root->idle_class_wait_ns =
					ebfq_sd_idle_class_delay(sd, now_ns);
				if (sd->owner)
					ebfq_entity_expire(sd->owner, true);
				return NULL;
			}
			/* Its service so far, if any, came out of turn. */
			ebfq_active_remove(st, entity);
			entity->where = EBFQ_IN_SERVICE;
			sd->in_service = entity;
		}
		if (!entity->child_sd)
			return entity;
		sd = entity->child_sd;
	}
}

/**
 * ebfq_entity_charge - account service to a leaf
 * @entity: the leaf in service, or an active leaf served out of turn
 * @sectors: service to charge, in sectors
 * @now_ns: the current time, when the idle class is not the one served
 *
 * Every level up to the root receives it and advances its virtual time.
 * A leaf served in the turn of another (ebfq_wr_inject()) is charged the
 * same way: at the levels where it waits for its turn, the service counts
 * towards that turn, whose budget includes it, and moves its finish when
 * that turn ends, or, if it runs dry first, when it is deactivated. The
 * device served the weight sum of every level all the same.
 */
void ebfq_entity_charge(struct ebfq_entity *entity, unsigned long sectors,
			u64 now_ns)
{
	for (; entity; entity = entity->sd->owner) {
		struct ebfq_service_tree *st = ebfq_entity_tree(entity);

		if (entity->class_idx != EBFQ_CLASS_IDLE)
			entity->sd->busy_class_served_ns = now_ns;
		entity->service += sectors;
		if (st->wsum)
			st->vtime += ebfq_vt_delta(sectors, st->wsum);
		ebfq_idle_expire(st);
	}
}

/**
 * ebfq_entity_surcharge - charge the entity in service for more than it got
 * @entity: the leaf in service, about to expire
 * @sectors: sectors to add to its service and its ancestors'
 *
 * Its finish time, computed on expiration, moves as if it had received
 * them; the virtual time does not, nobody else got less.
 */
void ebfq_entity_surcharge(struct ebfq_entity *entity, unsigned long sectors)
{
	for (; entity; entity = entity->sd->owner)
		entity->service += sectors;
}

/**
 * ebfq_entity_expire - the leaf in service stops being served
 * @entity: the leaf in service
 * @backlogged: it still has work
 *
 * Its finish is corrected to the service it was charged; a backlogged
 * entity is queued again with start = that finish and finish = start +
 * budget / weight (the caller set the new budget), the others retire.
 * Groups above it expire with it, still busy if any child is. May free
 * @entity and its groups.
 */
void ebfq_entity_expire(struct ebfq_entity *entity, bool backlogged)
{
	while (entity) {
		struct ebfq_sched_data *sd = entity->sd;
		struct ebfq_service_tree *st = ebfq_entity_tree(entity);

		WARN_ON_ONCE(entity->where != EBFQ_IN_SERVICE ||
			     sd->in_service != entity);
		sd->in_service = NULL;
		entity->finish = entity->start +
				 ebfq_vt_delta(entity->service, entity->weight);
		entity->service = 0;

		if (backlogged) {
			if (entity->new_weight != entity->weight ||
			    entity->new_class_idx != entity->class_idx) {
				st->wsum -= entity->weight;
				ebfq_entity_apply_prio(entity);
				st = ebfq_entity_tree(entity);
				st->wsum += entity->weight;
				entity->start = ebfq_vt_max(st->vtime,
							    entity->finish);
			} else {
				entity->start = entity->finish;
			}
			entity->finish = entity->start +
					 ebfq_vt_delta(entity->budget,
						       entity->weight);
			ebfq_active_insert(st, entity);
		} else {
			st->wsum -= entity->weight;
			ebfq_entity_retire(st, entity);
		}

		entity = sd->owner;
		backlogged = ebfq_sd_busy(sd);
	}
}

/**
 * ebfq_entity_forget_idle - an idle entity will never come back
 * @entity: the entity, on an idle tree or on none
 *
 * Its timestamps protect nobody any more (its process exited): it leaves
 * its idle tree now rather than when V passes its finish or the device
 * starts a new busy period. May free @entity.
 */
void ebfq_entity_forget_idle(struct ebfq_entity *entity)
{
	if (entity->where != EBFQ_IDLE)
		return;
	ebfq_idle_del(ebfq_entity_tree(entity), entity);
	ebfq_forget(entity);
}

/**
 * ebfq_entity_move - move an entity that is not in service to @sd
 * @entity: the entity, active, idle or unknown to the engine
 * @sd: the scheduler it belongs to from now on (a group moved, or a queue
 *	whose process changed group)
 *
 * An active entity keeps its work and budget and starts afresh at @sd's
 * virtual time: its old timestamps mean nothing there. The group it
 * leaves is deactivated if it has nothing else to serve. An idle entity
 * forgets its history. May free @entity if it was idle.
 */
void ebfq_entity_move(struct ebfq_entity *entity, struct ebfq_sched_data *sd)
{
	struct ebfq_sched_data *old = entity->sd;
	struct ebfq_service_tree *st = ebfq_entity_tree(entity);
	bool active = entity->where == EBFQ_ACTIVE;

	if (WARN_ON_ONCE(entity->where == EBFQ_IN_SERVICE))
		return;

	/* Alive until the end, whatever the trees held. */
	entity->ops->hold(entity);
	if (active) {
		ebfq_active_remove(st, entity);
		st->wsum -= entity->weight;
		ebfq_forget(entity);
		if (!ebfq_sd_busy(old) && old->owner)
			ebfq_entity_deactivate(old->owner);
	} else {
		ebfq_entity_forget_idle(entity);
	}
	entity->sd = sd;
	if (active)
		ebfq_entity_activate(entity, EBFQ_FRESH_ALL);
	entity->ops->forget(entity);
}

/**
 * ebfq_entity_eligible - whether an active entity could be chosen now
 * @entity: the entity
 *
 * True if it waits on its active tree with its start not after its
 * tree's virtual time: it only waits for the entity in service to end its
 * turn.
 */
bool ebfq_entity_eligible(struct ebfq_entity *entity)
{
	return entity->where == EBFQ_ACTIVE &&
	       !ebfq_vt_after(entity->start, ebfq_entity_tree(entity)->vtime);
}

/**
 * ebfq_entity_path_eligible - whether an active entity would be chosen now
 * @entity: the entity
 *
 * True if it and every group above it are eligible, up to a group in
 * service: once the entity in service ends its turn, B-WF2Q+ may choose
 * it. A raised queue that is eligible in its group while its group waits
 * at a later start would gain nothing from taking the device.
 */
bool ebfq_entity_path_eligible(struct ebfq_entity *entity)
{
	for (; entity; entity = entity->sd->owner) {
		if (entity->where == EBFQ_IN_SERVICE)
			return true;
		if (!ebfq_entity_eligible(entity))
			return false;
	}
	return true;
}

/**
 * ebfq_sd_busy - whether a scheduler has anything to serve
 * @sd: the scheduler
 */
bool ebfq_sd_busy(const struct ebfq_sched_data *sd)
{
	int i;

	if (sd->in_service)
		return true;
	for (i = 0; i < EBFQ_NR_CLASSES; i++)
		if (sd->tree[i].nr_active)
			return true;
	return false;
}

/*
 * Whether the idle tree of class @class_idx, @st, holds an entity unlike
 * @entity: of another class or weight, or a group while either is one.
 * n idle entities all weigh w exactly when the sum of their weights is
 * n * w and the sum of their squares n * w^2: the variance is then 0.
 */
static bool ebfq_idle_unlike(const struct ebfq_service_tree *st,
			     unsigned int class_idx,
			     const struct ebfq_entity *entity)
{
	u64 nr = st->nr_idle, weight = entity->weight;

	if (!nr)
		return false;
	if (class_idx != entity->class_idx || entity->child_sd ||
	    st->nr_idle_groups)
		return true;
	return st->idle_wsum != nr * weight ||
	       st->idle_wsq != nr * weight * weight;
}

/**
 * ebfq_entity_asymmetric - whether entities served lately differ from one
 * @entity: an entity in service
 *
 * True if an entity that waits on an idle tree of @entity's scheduler, or
 * of a scheduler above it, (it was served lately and may come back soon)
 * has another weight or class than its peer in service there, or if
 * either is a group, whose children ask more often the more of them
 * there are. Then the shares hold only if the device waits for @entity
 * when it runs dry: served at once, whichever comes back first would take
 * the device, and the shares would follow who asks first rather than the
 * weights. O(levels): the idle trees keep what they hold in sums.
 */
bool ebfq_entity_asymmetric(const struct ebfq_entity *entity)
{
	for (; entity; entity = entity->sd->owner) {
		const struct ebfq_sched_data *sd = entity->sd;
		unsigned int i;

		for (i = 0; i < EBFQ_NR_CLASSES; i++)
			if (ebfq_idle_unlike(&sd->tree[i], i, entity))
				return true;
	}
	return false;
}

/**
 * ebfq_sd_flush_idle - forget every idle entity of a scheduler
 * @sd: the scheduler
 */
void ebfq_sd_flush_idle(struct ebfq_sched_data *sd)
{
	int i;

	for (i = 0; i < EBFQ_NR_CLASSES; i++)
		ebfq_idle_flush(&sd->tree[i]);
}
