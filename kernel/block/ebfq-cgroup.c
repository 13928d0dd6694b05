// SPDX-License-Identifier: GPL-2.0
/*
 * ebfq: hierarchical scheduling with the io cgroup controller.
 *
 * Each cgroup that does I/O on a device gets a group there: an entity of
 * its parent's scheduler, weighted by io.ebfq.weight, and a scheduler of
 * its own for its processes' queues and its child groups (ebfq-wf2q.c
 * serves both levels alike). A background update in its own cgroup thus
 * gets its group's share of the card, however many processes it runs.
 *
 * Requests join the group of their bio's cgroup (for writeback, the
 * cgroup that dirtied the pages), checked on every insertion: a process
 * that moved takes its queue along, async requests go to their group's
 * async queues. A group that goes offline hands its queues and child
 * groups to its nearest live ancestor first, so that nothing is ever
 * scheduled in a dead group.
 *
 * Lock order: the request queue's queue_lock, then the blkcg's lock, then
 * ebfq_data.lock. Groups are reference counted (struct ebfq_group.ref);
 * the blkcg core's reference goes at ->pd_free_fn(), the memory with the
 * last reference.
 */
#include <linux/backing-dev.h>
#include <linux/blkdev.h>
#include <linux/cgroup.h>
#include <linux/ctype.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "ebfq-iosched.h"

/* Per cgroup: the weight of its groups on devices without an override. */
struct ebfq_blkcg {
	struct blkcg_policy_data cpd;	/* must be first */
	unsigned int weight;
};

static struct blkcg_policy ebfq_blkcg_policy;

/* The policy could be registered (one of BLKCG_MAX_POLS slots was free). */
static bool ebfq_cgroup_on;

static struct ebfq_group *pd_to_bg(struct blkg_policy_data *pd)
{
	return pd ? container_of(pd, struct ebfq_group, pd) : NULL;
}

static struct ebfq_group *blkg_to_bg(struct blkcg_gq *blkg)
{
	return pd_to_bg(blkg_to_pd(blkg, &ebfq_blkcg_policy));
}

static struct ebfq_blkcg *blkcg_to_ebc(struct blkcg *blkcg)
{
	struct blkcg_policy_data *cpd = blkcg_to_cpd(blkcg, &ebfq_blkcg_policy);

	return cpd ? container_of(cpd, struct ebfq_blkcg, cpd) : NULL;
}

/* ------------------------------------------------------------------ */
/* References and the engine's view of a group.                         */

/**
 * ebfq_group_get - take a reference to a group
 * @bg: the group, or NULL for the root (which needs none)
 */
void ebfq_group_get(struct ebfq_group *bg)
{
	if (bg)
		refcount_inc(&bg->ref);
}

/**
 * ebfq_group_put - drop a reference to a group, freeing it at the last
 * @bg: the group, or NULL for the root
 *
 * A group pins its parent: its entity lives on the parent's trees.
 */
void ebfq_group_put(struct ebfq_group *bg)
{
	while (bg && refcount_dec_and_test(&bg->ref)) {
		struct ebfq_group *parent = bg->parent;

		kfree(bg);
		bg = parent;
	}
}

static void ebfq_group_hold(struct ebfq_entity *entity)
{
	ebfq_group_get(container_of(entity, struct ebfq_group, entity));
}

static void ebfq_group_forget(struct ebfq_entity *entity)
{
	ebfq_group_put(container_of(entity, struct ebfq_group, entity));
}

static const struct ebfq_entity_ops ebfq_group_entity_ops = {
	.hold	= ebfq_group_hold,
	.forget	= ebfq_group_forget,
};

/*
 * The weight in force: the device's override, else the cgroup's. With
 * wr_groups, raised while a queue inside is, so that a raised queue does
 * not wait for its group's turn among its peers; by default a raised
 * queue is raised among its group's queues only, and the groups keep the
 * shares their weights give them. The engine applies it at the group's
 * next activation or turn.
 */
static void ebfq_group_set_weight(struct ebfq_data *ed, struct ebfq_group *bg)
{
	struct ebfq_blkcg *ebc = blkcg_to_ebc(bg->pd.blkg->blkcg);
	bool raised = bg->wr_nr && ed->tun.wr_groups;

	lockdep_assert_held(&ed->lock);

	bg->weight = bg->dev_weight ?: ebc->weight;
	bg->entity.new_weight = bg->weight * (raised ? ed->tun.wr_coeff : 1);
}

/**
 * ebfq_groups_reweight - wr_groups or wr_coeff changed: every online
 * group's weight again
 * @ed: the device
 */
void ebfq_groups_reweight(struct ebfq_data *ed)
{
	struct ebfq_group *bg;

	lockdep_assert_held(&ed->lock);

	list_for_each_entry(bg, &ed->groups, node)
		ebfq_group_set_weight(ed, bg);
}

/**
 * ebfq_group_scale - an amount of service scaled by a group's weights
 * @bg: a queue's group, NULL for the root
 * @sectors: service meant for a queue of a group of the default weight
 *
 * Queues that stream side by side in groups of different weights receive
 * service in proportion to their groups' weights, at every level: what
 * their service is measured against scales the same way. Saturates at
 * U32_MAX sectors (2 TiB).
 */
unsigned long ebfq_group_scale(const struct ebfq_group *bg,
			       unsigned long sectors)
{
	u64 v = min_t(u64, sectors, U32_MAX);

	for (; bg; bg = bg->parent)
		v = min_t(u64, div_u64(v * bg->weight,
				       EBFQ_GROUP_WEIGHT_DEFAULT), U32_MAX);
	return v;
}

/**
 * ebfq_group_raised - queues in a group started or stopped being raised
 * @ed: the device
 * @bg: the group of the queues, NULL for the root
 * @delta: how many more are raised (negative: fewer)
 */
void ebfq_group_raised(struct ebfq_data *ed, struct ebfq_group *bg, int delta)
{
	for (; bg; bg = bg->parent) {
		bg->wr_nr += delta;
		if (bg->online)
			ebfq_group_set_weight(ed, bg);
	}
}

/**
 * ebfq_bio_group - the group a bio's requests are scheduled in
 * @ed: the device
 * @bio: the bio, holding a reference to its blkg
 *
 * The group of the bio's cgroup, or of its nearest ancestor that is still
 * online; NULL for the root.
 */
struct ebfq_group *ebfq_bio_group(struct ebfq_data *ed, struct bio *bio)
{
	struct blkcg_gq *blkg;

	lockdep_assert_held(&ed->lock);

	if (!ebfq_cgroup_on)
		return NULL;
	for (blkg = bio->bi_blkg; blkg; blkg = blkg->parent) {
		struct ebfq_group *bg = blkg_to_bg(blkg);

		if (!bg || bg->root)
			return NULL;
		if (bg->online)
			return bg;
	}
	return NULL;
}

/**
 * ebfq_queue_set_group - move a queue, not in service, to another group
 * @ed: the device
 * @bq: the queue; the caller holds a reference
 * @bg: its new group, NULL for the root
 *
 * Its work goes along and starts afresh in @bg; so does its raising.
 */
void ebfq_queue_set_group(struct ebfq_data *ed, struct ebfq_queue *bq,
			  struct ebfq_group *bg)
{
	struct ebfq_group *old = bq->group;

	lockdep_assert_held(&ed->lock);
	WARN_ON_ONCE(bq == ed->in_service);

	if (ebfq_wr_raised(bq)) {
		ebfq_group_raised(ed, old, -1);
		ebfq_group_raised(ed, bg, 1);
	}
	ebfq_group_get(bg);
	bq->group = bg;
	ebfq_entity_move(&bq->entity, ebfq_group_sched(ed, bg));
	ebfq_group_put(old);
}

/* A child group of a group going offline moves up to @heir. */
static void ebfq_group_set_parent(struct ebfq_data *ed,
				  struct ebfq_group *bg,
				  struct ebfq_group *heir)
{
	struct ebfq_group *old = bg->parent;

	if (bg->wr_nr) {
		ebfq_group_raised(ed, old, -bg->wr_nr);
		ebfq_group_raised(ed, heir, bg->wr_nr);
	}
	ebfq_group_get(heir);
	bg->parent = heir;
	ebfq_entity_move(&bg->entity, ebfq_group_sched(ed, heir));
	ebfq_group_put(old);
}

/* Whether @bg is @inner or one of its ancestors. */
static bool ebfq_group_contains(struct ebfq_group *bg,
				struct ebfq_group *inner)
{
	for (; inner; inner = inner->parent)
		if (inner == bg)
			return true;
	return false;
}

/* ------------------------------------------------------------------ */
/* The blkcg policy: a group per cgroup and device.                    */

static struct blkcg_policy_data *ebfq_cpd_alloc(gfp_t gfp)
{
	struct ebfq_blkcg *ebc = kzalloc(sizeof(*ebc), gfp);

	return ebc ? &ebc->cpd : NULL;
}

static void ebfq_cpd_init(struct blkcg_policy_data *cpd)
{
	container_of(cpd, struct ebfq_blkcg, cpd)->weight =
		EBFQ_GROUP_WEIGHT_DEFAULT;
}

static void ebfq_cpd_free(struct blkcg_policy_data *cpd)
{
	kfree(container_of(cpd, struct ebfq_blkcg, cpd));
}

static struct blkg_policy_data *ebfq_pd_alloc(gfp_t gfp,
					      struct request_queue *q,
					      struct blkcg *blkcg)
{
	struct ebfq_group *bg = kzalloc_node(sizeof(*bg), gfp, q->node);

	if (!bg)
		return NULL;
	refcount_set(&bg->ref, 1);
	INIT_LIST_HEAD(&bg->node);
	return &bg->pd;
}

/* Called before the blkg is published: no request can reach it yet. */
static void ebfq_pd_init(struct blkg_policy_data *pd)
{
	struct ebfq_group *bg = pd_to_bg(pd);
	struct blkcg_gq *blkg = pd->blkg;
	struct ebfq_data *ed = blkg->q->elevator->elevator_data;
	struct ebfq_group *parent;

	bg->ed = ed;
	bg->root = !blkg->parent;
	if (bg->root)
		return;
	parent = blkg_to_bg(blkg->parent);
	if (parent->root)
		parent = NULL;
	ebfq_group_get(parent);
	bg->parent = parent;

	ebfq_entity_init(&bg->entity, ebfq_group_sched(ed, parent),
			 &ebfq_group_entity_ops,
			 blkcg_to_ebc(blkg->blkcg)->weight, EBFQ_CLASS_BE);
	ebfq_sd_init(&bg->sd, &bg->entity);
	/* What its children's turns cost it before they are measured. */
	bg->entity.budget = ebfq_max_budget(ed);
}

static void ebfq_pd_online(struct blkg_policy_data *pd)
{
	struct ebfq_group *bg = pd_to_bg(pd);
	struct ebfq_data *ed = bg->ed;
	unsigned long flags;

	if (bg->root)
		return;
	spin_lock_irqsave(&ed->lock, flags);
	bg->online = true;
	ebfq_group_set_weight(ed, bg);
	bg->entity.weight = bg->entity.new_weight;
	list_add_tail(&bg->node, &ed->groups);
	spin_unlock_irqrestore(&ed->lock, flags);
}

/*
 * The cgroup is being removed, or ebfq leaves the device: hand everything
 * in the group to its nearest live ancestor, so that requests already
 * queued are served there and nothing is scheduled in a dead group.
 */
static void ebfq_pd_offline(struct blkg_policy_data *pd)
{
	struct ebfq_group *bg = pd_to_bg(pd), *heir, *child, *tmp_bg;
	struct ebfq_data *ed = bg->ed;
	struct ebfq_queue *bq, *tmp;
	unsigned long flags;
	bool kick;

	if (bg->root)
		return;
	spin_lock_irqsave(&ed->lock, flags);
	bg->online = false;
	list_del_init(&bg->node);
	/* Its memory may come back as another group's: match none. */
	if (ed->served_group.key == (unsigned long)bg)
		ed->served_group.key = (unsigned long)ERR_PTR(-ENOENT);
	for (heir = bg->parent; heir && !heir->online; heir = heir->parent)
		;

	/* No entity inside may be in service while it moves. */
	if (ed->in_service && ebfq_group_contains(bg, ed->in_service->group))
		ebfq_expire(ed, ed->in_service, EBFQ_EXP_MOVED);

	list_for_each_entry_safe(bq, tmp, &ed->all_queues, all_node) {
		if (bq->group != bg)
			continue;
		/* Idle queues may be freed by the move: hold them. */
		bq->ref++;
		ebfq_queue_set_group(ed, bq, heir);
		ebfq_put_queue(bq);
	}
	list_for_each_entry_safe(child, tmp_bg, &ed->groups, node)
		if (child->parent == bg)
			ebfq_group_set_parent(ed, child, heir);

	ebfq_put_async_queues(bg->async);

	/* Dead children remembered here, then its own idle history. */
	ebfq_sd_flush_idle(&bg->sd);
	WARN_ON_ONCE(ebfq_sd_busy(&bg->sd) ||
		     bg->entity.where == EBFQ_ACTIVE ||
		     bg->entity.where == EBFQ_IN_SERVICE);
	ebfq_entity_forget_idle(&bg->entity);

	kick = ebfq_update_has_work(ed);
	spin_unlock_irqrestore(&ed->lock, flags);
	if (kick)
		blk_mq_run_hw_queues(ed->queue, true);
}

static void ebfq_pd_free(struct blkg_policy_data *pd)
{
	ebfq_group_put(pd_to_bg(pd));
}

/* ------------------------------------------------------------------ */
/* cgroup files: io.ebfq.weight and io.ebfq.stat.                      */

static const char *ebfq_blkg_dev(struct blkcg_gq *blkg)
{
	return blkg->q->disk ? bdi_dev_name(blkg->q->disk->bdi) : NULL;
}

static u64 ebfq_prfill_dev_weight(struct seq_file *sf,
				  struct blkg_policy_data *pd, int off)
{
	struct ebfq_group *bg = pd_to_bg(pd);
	const char *dev = ebfq_blkg_dev(pd->blkg);

	if (dev && bg->dev_weight)
		seq_printf(sf, "%s %u\n", dev, bg->dev_weight);
	return 0;
}

static int ebfq_weight_show(struct seq_file *sf, void *v)
{
	struct blkcg *blkcg = css_to_blkcg(seq_css(sf));

	seq_printf(sf, "default %u\n", blkcg_to_ebc(blkcg)->weight);
	blkcg_print_blkgs(sf, blkcg, ebfq_prfill_dev_weight,
			  &ebfq_blkcg_policy, 0, false);
	return 0;
}

static int ebfq_parse_weight(const char *s, unsigned int *weight)
{
	unsigned int v;

	if (kstrtouint(s, 10, &v) || v < EBFQ_GROUP_WEIGHT_MIN ||
	    v > EBFQ_GROUP_WEIGHT_MAX)
		return -EINVAL;
	*weight = v;
	return 0;
}

/* A group's override changed: 0 removes it. */
static void ebfq_group_set_dev_weight(struct ebfq_group *bg,
				      unsigned int weight)
{
	struct ebfq_data *ed = bg->ed;

	spin_lock(&ed->lock);
	bg->dev_weight = weight;
	if (bg->online)
		ebfq_group_set_weight(ed, bg);
	spin_unlock(&ed->lock);
}

/* "default W" or "W": the cgroup's weight on devices without override. */
static int ebfq_set_default_weight(struct blkcg *blkcg, unsigned int weight)
{
	struct blkcg_gq *blkg;

	spin_lock_irq(&blkcg->lock);
	blkcg_to_ebc(blkcg)->weight = weight;
	hlist_for_each_entry(blkg, &blkcg->blkg_list, blkcg_node) {
		struct ebfq_group *bg = blkg_to_bg(blkg);

		if (bg && !bg->root && !bg->dev_weight)
			ebfq_group_set_dev_weight(bg, 0);
	}
	spin_unlock_irq(&blkcg->lock);
	return 0;
}

/* "MAJ:MIN W" sets a device's override, "MAJ:MIN default" removes it. */
static int ebfq_set_dev_weight(struct blkcg *blkcg, char *input)
{
	struct blkg_conf_ctx ctx;
	unsigned int weight = 0;
	int ret;

	ret = blkg_conf_prep(blkcg, &ebfq_blkcg_policy, input, &ctx);
	if (ret)
		return ret;
	ctx.body = strstrip(ctx.body);
	if (strcmp(ctx.body, "default"))
		ret = ebfq_parse_weight(ctx.body, &weight);
	if (!ret)
		ebfq_group_set_dev_weight(blkg_to_bg(ctx.blkg), weight);
	blkg_conf_finish(&ctx);
	return ret;
}

static ssize_t ebfq_weight_write(struct kernfs_open_file *of, char *buf,
				 size_t nbytes, loff_t off)
{
	struct blkcg *blkcg = css_to_blkcg(of_css(of));
	char *body = strstrip(buf);
	unsigned int weight;
	int ret;

	if (!strncmp(body, "default", 7) && isspace(body[7]))
		body = skip_spaces(body + 7);
	else if (strchr(body, ':'))
		return ebfq_set_dev_weight(blkcg, body) ?: nbytes;

	ret = ebfq_parse_weight(body, &weight);
	if (!ret)
		ret = ebfq_set_default_weight(blkcg, weight);
	return ret ?: nbytes;
}

/* Requests queued in a group's queues; ed->lock held. */
static unsigned int ebfq_group_queued(struct ebfq_data *ed,
				      struct ebfq_group *bg)
{
	struct ebfq_queue *bq;
	unsigned int queued = 0;

	list_for_each_entry(bq, &ed->all_queues, all_node)
		if (bq->group == bg)
			queued += bq->queued;
	return queued;
}

/**
 * ebfq_group_print_stats - a group's statistics, on one line
 * @sf: where to
 * @ed: the device, locked
 * @bg: the group, NULL for the root's queues
 */
void ebfq_group_print_stats(struct seq_file *sf, struct ebfq_data *ed,
			    struct ebfq_group *bg)
{
	const struct ebfq_group_stats *st = ebfq_group_stats(ed, bg);

	lockdep_assert_held(&ed->lock);

	seq_printf(sf, "sectors=%llu requests=%llu service_us=%llu idle_us=%llu queued=%u",
		   st->sectors, st->requests, div_u64(st->service_ns, 1000),
		   div_u64(st->idle_ns, 1000), ebfq_group_queued(ed, bg));
}

static u64 ebfq_prfill_stat(struct seq_file *sf, struct blkg_policy_data *pd,
			    int off)
{
	struct ebfq_group *bg = pd_to_bg(pd);
	const char *dev = ebfq_blkg_dev(pd->blkg);

	if (!dev || bg->root)
		return 0;
	seq_printf(sf, "%s ", dev);
	spin_lock(&bg->ed->lock);
	ebfq_group_print_stats(sf, bg->ed, bg);
	spin_unlock(&bg->ed->lock);
	seq_putc(sf, '\n');
	return 0;
}

static int ebfq_stat_show(struct seq_file *sf, void *v)
{
	blkcg_print_blkgs(sf, css_to_blkcg(seq_css(sf)), ebfq_prfill_stat,
			  &ebfq_blkcg_policy, 0, false);
	return 0;
}

/* io.ebfq.NAME, in the cgroups below the root (the root has no weight). */
#define EBFQ_CGROUP_FILE(_name, _show, _write) {			\
	.name = "ebfq." #_name, .flags = CFTYPE_NOT_ON_ROOT,		\
	.seq_show = (_show), .write = (_write),				\
}

static struct cftype ebfq_blkcg_files[] = {
	EBFQ_CGROUP_FILE(weight, ebfq_weight_show, ebfq_weight_write),
	EBFQ_CGROUP_FILE(stat, ebfq_stat_show, NULL),
	{}
};

static struct blkcg_policy ebfq_blkcg_policy = {
	.dfl_cftypes	= ebfq_blkcg_files,

	.cpd_alloc_fn	= ebfq_cpd_alloc,
	.cpd_init_fn	= ebfq_cpd_init,
	.cpd_free_fn	= ebfq_cpd_free,

	.pd_alloc_fn	= ebfq_pd_alloc,
	.pd_init_fn	= ebfq_pd_init,
	.pd_online_fn	= ebfq_pd_online,
	.pd_offline_fn	= ebfq_pd_offline,
	.pd_free_fn	= ebfq_pd_free,
};

/* ------------------------------------------------------------------ */
/* Set-up.                                                             */

/**
 * ebfq_groups_flush_idle - every group forgets its idle entities
 * @ed: the device, starting a new busy period
 */
void ebfq_groups_flush_idle(struct ebfq_data *ed)
{
	struct ebfq_group *bg;

	lockdep_assert_held(&ed->lock);

	list_for_each_entry(bg, &ed->groups, node)
		ebfq_sd_flush_idle(&bg->sd);
}

/**
 * ebfq_cgroup_init - give a device's cgroups their groups
 * @ed: the device; its request queue's elevator is already ebfq
 */
int ebfq_cgroup_init(struct ebfq_data *ed)
{
	if (!ebfq_cgroup_on)
		return 0;
	return blkcg_activate_policy(ed->queue, &ebfq_blkcg_policy);
}

/**
 * ebfq_cgroup_exit - every group of a device goes offline and away
 * @ed: the device, still complete
 */
void ebfq_cgroup_exit(struct ebfq_data *ed)
{
	if (!ebfq_cgroup_on)
		return;
	blkcg_deactivate_policy(ed->queue, &ebfq_blkcg_policy);
	WARN_ON_ONCE(!list_empty(&ed->groups));
}

/**
 * ebfq_cgroup_register - register the blkcg policy
 *
 * A kernel has room for BLKCG_MAX_POLS policies: when every one is taken,
 * ebfq schedules without groups rather than not at all.
 */
int ebfq_cgroup_register(void)
{
	int ret = blkcg_policy_register(&ebfq_blkcg_policy);

	if (ret == -ENOSPC) {
		pr_warn("ebfq: no free blkcg policy slot, cgroup weights off\n");
		return 0;
	}
	ebfq_cgroup_on = !ret;
	return ret;
}

void ebfq_cgroup_unregister(void)
{
	if (ebfq_cgroup_on)
		blkcg_policy_unregister(&ebfq_blkcg_policy);
	ebfq_cgroup_on = false;
}
