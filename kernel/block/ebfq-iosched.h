/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ebfq: Budget Fair Queueing for blk-mq, written for SD and eMMC boards.
 *
 * Shared declarations of the scheduling engine (ebfq-wf2q.c), the blk-mq
 * glue (ebfq-iosched.c), the responsiveness heuristics (ebfq-wr.c) and the
 * tunables (ebfq-sysfs.c).
 */
#ifndef _EBFQ_IOSCHED_H
#define _EBFQ_IOSCHED_H

#include <linux/blkdev.h>
#include <linux/hrtimer.h>
#include <linux/iocontext.h>
#include <linux/ioprio.h>
#include <linux/rbtree.h>

#include "elevator.h"

/*
 * Virtual times are u64 multiples of (1 << EBFQ_VT_SHIFT) per sector of
 * service at weight 1. They may wrap: compare them only with the helpers
 * below, which look at the signed difference.
 */
#define EBFQ_VT_SHIFT		20

static inline bool ebfq_vt_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

static inline bool ebfq_vt_after(u64 a, u64 b)
{
	return (s64)(a - b) > 0;
}

static inline u64 ebfq_vt_min(u64 a, u64 b)
{
	return ebfq_vt_before(a, b) ? a : b;
}

static inline u64 ebfq_vt_max(u64 a, u64 b)
{
	return ebfq_vt_after(a, b) ? a : b;
}

/* Service classes, in the order they are served. */
enum ebfq_class {
	EBFQ_CLASS_RT,
	EBFQ_CLASS_BE,
	EBFQ_CLASS_IDLE,
	EBFQ_NR_CLASSES,
};

/* Where an entity is; an entity is in exactly one of these places. */
enum ebfq_where {
	EBFQ_NOWHERE,		/* not known to the scheduler */
	EBFQ_ACTIVE,		/* backlogged, on its service tree's active tree */
	EBFQ_IN_SERVICE,	/* chosen; off the trees while it is served */
	EBFQ_IDLE,		/* no work, timestamps kept on the idle tree */
};

struct ebfq_entity;

/*
 * What an entity's owner (a queue, a group, a test) does when the engine
 * starts or stops knowing the entity. hold() is called when the entity
 * leaves EBFQ_NOWHERE, forget() when it goes back there; forget() may free
 * the entity, so the engine never touches it afterwards.
 */
struct ebfq_entity_ops {
	void (*hold)(struct ebfq_entity *entity);
	void (*forget)(struct ebfq_entity *entity);
};

/*
 * One B-WF2Q+ service tree: the backlogged entities of one class of one
 * scheduler, ordered by finish time, each node carrying the minimum start
 * time of its subtree so that the eligible entity with the smallest finish
 * is found in O(log n). Entities that went idle with a finish time in the
 * future wait on the idle tree, ordered by finish time as well.
 */
struct ebfq_service_tree {
	struct rb_root active;
	struct rb_root_cached idle;
	u64 vtime;			/* system virtual time V */
	unsigned long wsum;		/* weights of active + in-service entities */
	unsigned int nr_active;		/* entities on the active tree */
	/*
	 * What the idle tree holds, so that ebfq_entity_asymmetric() needs
	 * no walk: its entities, the groups among them, and the sums of
	 * their weights and of their weights' squares.
	 */
	unsigned int nr_idle;
	unsigned int nr_idle_groups;
	u64 idle_wsum;
	u64 idle_wsq;
};

/*
 * The scheduler of one level of the hierarchy: the root of a device, or
 * (with cgroups) a group. A group entity points to the scheduler of its
 * children through ebfq_entity.child_sd.
 */
struct ebfq_sched_data {
	struct ebfq_service_tree tree[EBFQ_NR_CLASSES];
	struct ebfq_entity *in_service;
	struct ebfq_entity *owner;	/* group entity, NULL for the root */
	u64 idle_class_served_ns;	/* last time the idle class was served */
	u64 busy_class_served_ns;	/* ... and RT or BE, ns */
	u64 idle_class_wait_ns;		/* root: why ebfq_sd_select() found none */
};

struct ebfq_entity {
	struct rb_node node;		/* on the active or the idle tree */
	u64 start;			/* virtual start time S */
	u64 finish;			/* virtual finish time F */
	u64 min_start;			/* smallest S in this subtree (active) */
	unsigned long budget;		/* sectors this turn may receive */
	/*
	 * Sectors received (charged) this turn; while active, what it
	 * received out of turn, which its next turn's budget includes.
	 */
	unsigned long service;
	/*
	 * It ran dry after service out of turn, before its turn came: its
	 * finish counts that service, and its next activation starts there
	 * (or at V), even a fresh one.
	 */
	bool owes;
	unsigned int weight;		/* weight the timestamps use */
	unsigned int new_weight;	/* weight to use from the next turn */
	u8 class_idx;			/* enum ebfq_class in use */
	u8 new_class_idx;		/* class to use from the next turn */
	u8 where;			/* enum ebfq_where */
	struct ebfq_sched_data *sd;	/* the scheduler this entity is in */
	struct ebfq_sched_data *child_sd; /* groups only: children's scheduler */
	const struct ebfq_entity_ops *ops;
};

/* The smallest start in @entity's subtree of its active tree. */
static inline u64 ebfq_subtree_min_start(const struct ebfq_entity *entity)
{
	const struct ebfq_entity *child;
	u64 min_start = entity->start;

	child = rb_entry_safe(entity->node.rb_left, struct ebfq_entity, node);
	if (child)
		min_start = ebfq_vt_min(min_start, child->min_start);
	child = rb_entry_safe(entity->node.rb_right, struct ebfq_entity, node);
	if (child)
		min_start = ebfq_vt_min(min_start, child->min_start);
	return min_start;
}

/*
 * What ebfq_entity_activate() does with a finish remembered on an idle
 * tree that is later than V.
 */
enum ebfq_fresh {
	EBFQ_REMEMBER,		/* start there: the entity had its share */
	EBFQ_FRESH_QUEUE,	/* it at V, the groups above at their finish */
	EBFQ_FRESH_ALL,		/* it and the groups activated with it at V */
};

/* ebfq-wf2q.c: the engine, free of any block layer state. */
void ebfq_sd_init(struct ebfq_sched_data *sd, struct ebfq_entity *owner);
void ebfq_entity_init(struct ebfq_entity *entity, struct ebfq_sched_data *sd,
		      const struct ebfq_entity_ops *ops, unsigned int weight,
		      enum ebfq_class class_idx);
void ebfq_entity_activate(struct ebfq_entity *entity,
			  enum ebfq_fresh fresh);
void ebfq_entity_deactivate(struct ebfq_entity *entity);
struct ebfq_entity *ebfq_sd_select(struct ebfq_sched_data *sd, u64 now_ns);
void ebfq_entity_charge(struct ebfq_entity *entity, unsigned long sectors,
			u64 now_ns);
void ebfq_entity_surcharge(struct ebfq_entity *entity, unsigned long sectors);
u64 ebfq_sd_idle_class_delay(const struct ebfq_sched_data *sd, u64 now_ns);
void ebfq_entity_expire(struct ebfq_entity *entity, bool backlogged);
void ebfq_entity_forget_idle(struct ebfq_entity *entity);
void ebfq_entity_move(struct ebfq_entity *entity, struct ebfq_sched_data *sd);
bool ebfq_sd_busy(const struct ebfq_sched_data *sd);
bool ebfq_entity_eligible(struct ebfq_entity *entity);
bool ebfq_entity_path_eligible(struct ebfq_entity *entity);
bool ebfq_entity_asymmetric(const struct ebfq_entity *entity);
void ebfq_sd_flush_idle(struct ebfq_sched_data *sd);
u64 ebfq_vt_delta(unsigned long sectors, unsigned int weight);

/* ebfq-check.c: invariants, for the debug build and the KUnit suite. */
const char *ebfq_sd_check(const struct ebfq_sched_data *sd);

/*
 * The idle class is served once RT and BE have been served by nobody for
 * EBFQ_IDLE_CLASS_GRACE_NS: a reader between two requests is still busy.
 * It is not starved for longer than EBFQ_IDLE_CLASS_WAIT_NS.
 */
#define EBFQ_IDLE_CLASS_GRACE_NS	(200 * NSEC_PER_MSEC)
#define EBFQ_IDLE_CLASS_WAIT_NS		(2000 * NSEC_PER_MSEC)

/* ------------------------------------------------------------------ */
/* The blk-mq side.                                                    */

/* Why the queue in service stopped being served. */
enum ebfq_expire_reason {
	EBFQ_EXP_BUDGET,	/* it received its whole budget */
	EBFQ_EXP_TIMEOUT,	/* it held the device for timeout_{sync,async} */
	EBFQ_EXP_TOO_IDLE,	/* idling for its next request was in vain */
	EBFQ_EXP_EMPTY,		/* it ran dry and idling could not pay */
	EBFQ_EXP_EXITED,	/* its last process went away */
	EBFQ_EXP_PREEMPTED,	/* a weight-raised queue needs the device */
	EBFQ_EXP_MOVED,		/* its process or its group changed group */
	EBFQ_NR_EXPIRE_REASONS,
};

/* Bits of ebfq_queue.flags, changed only under ebfq_data.lock (__set_bit). */
enum ebfq_queue_flag {
	EBFQ_QF_SYNC,		/* one process's synchronous I/O */
	EBFQ_QF_WAIT,		/* in service, empty, its I/O still in flight */
	EBFQ_QF_IDLING,		/* in service, empty, idle timer armed */
	EBFQ_QF_FIRST_DISPATCH,	/* nothing dispatched yet in this turn */
	EBFQ_QF_EXITED,		/* no process refers to it any more */
	EBFQ_QF_KTHREAD,	/* made by a kernel thread (journal, writeback) */
	EBFQ_QF_LARGE_BURST,	/* born in a large burst: never raised */
};

/* Why a queue's weight is raised (ebfq-wr.c). */
enum ebfq_wr_kind {
	EBFQ_WR_NONE,
	EBFQ_WR_INTERACTIVE,	/* new, or back after a long idle period */
	EBFQ_WR_SOFT_RT,	/* small periodic bursts after idle periods */
	EBFQ_NR_WR_KINDS,
};

struct ebfq_data;
struct ebfq_group;

/* A queue of requests: one process's sync I/O, or a shared async queue. */
struct ebfq_queue {
	struct ebfq_entity entity;
	struct ebfq_data *ed;
	struct ebfq_group *group;	/* its cgroup's group; NULL: the root */
	int ref;			/* requests, processes, the scheduler */
	unsigned long flags;		/* enum ebfq_queue_flag bits, ed->lock */

	struct rb_root sort_list;	/* queued requests by sector */
	struct list_head fifo;		/* queued requests by arrival */
	unsigned int queued;		/* requests in sort_list */
	unsigned int dispatched;	/* requests in the driver */

	sector_t head;			/* sector after the last one dispatched */
	sector_t last_end;		/* sector after the last one queued */
	u32 seek_history;		/* one bit per request: 1 = seeky */

	unsigned long next_budget;	/* budget of the next turn, sectors */
	u64 turn_start_ns;		/* first dispatch of this turn */

	unsigned short ioprio;		/* ioprio in use, for async lookup */
	unsigned int orig_weight;	/* weight of the ioprio, not raised */
	pid_t pid;			/* process that made it, for debugfs */
	pid_t family;			/* its parent, or its process (bursts) */
	struct list_head all_node;	/* on ebfq_data.all_queues */

	/* Busy periods, which the raising heuristics judge (ns, sectors). */
	u64 busy_start_ns;		/* last became busy; 0: never was */
	unsigned long busy_service;	/* dispatched since busy_start_ns */
	u64 idle_start_ns;		/* last went idle */
	u64 softrt_next_ns;		/* earliest arrival still soft-RT */

	/* Weight raising: weight is orig_weight * wr_coeff while raised. */
	u8 wr_kind;			/* enum ebfq_wr_kind */
	unsigned int wr_coeff;		/* 1 when not raised */
	u64 wr_start_ns;		/* raising began */
	u64 wr_end_ns;			/* ... and ends, unless renewed */
	unsigned long wr_service;	/* sectors received while raised */
	struct list_head wr_node;	/* on ebfq_data.wr_queues if raised */
	unsigned int burst_id;		/* burst it was born in (ebfq_data) */
};

/* Per io_context, per device data: the process's queues. */
struct ebfq_io_cq {
	struct io_cq icq;		/* must be first */
	struct ebfq_queue *queue[2];	/* [0] async, [1] sync */
	int ioprio;			/* ioprio the queues were made for */
};

/* Tunables, in the units sysfs shows; ebfq-sysfs.c bounds them. */
struct ebfq_tunables {
	u64 slice_idle_ns;
	unsigned int timeout_ms[2];	/* [0] async, [1] sync */
	unsigned int fifo_expire_ms[2];	/* [0] async, [1] sync */
	unsigned int max_budget;	/* sectors; 0 = auto-tuned */
	unsigned int back_seek_max;	/* KiB */
	unsigned int back_seek_penalty;
	bool strict_guarantees;

	/* Responsiveness (ebfq-wr.c); low_latency 0 turns it all off. */
	bool low_latency;
	unsigned int wr_coeff;		/* weight multiplier of raised queues */
	unsigned int wr_max_time_ms;	/* interactive raising; 0 = auto */
	unsigned int wr_min_idle_time_ms; /* idle this long: new again */
	unsigned int wr_rt_max_time_ms;	/* soft-RT raising, renewed */
	unsigned int wr_max_softrt_rate; /* sectors/s a soft-RT queue asks */
	bool wr_groups;			/* raise the groups of raised queues */
};

/*
 * What a group (or the root) received, for io.ebfq.stat and debugfs.
 * Written under ebfq_data.lock where the scheduler holds it anyway;
 * readers take the lock, so that nothing is added to the I/O path.
 */
struct ebfq_group_stats {
	u64 sectors;			/* dispatched */
	u64 requests;			/* dispatched */
	u64 service_ns;			/* its queues' turns, first dispatch to end */
	u64 idle_ns;			/* the device idled for its queues */
};

/*
 * The key of the last dispatch (its group, or its class and weight), its
 * time, and the time of the last dispatch with any other key: whether
 * something other than a key was served lately, in O(1), without a walk
 * (ebfq_recent_other()).
 */
struct ebfq_recent {
	unsigned long key;
	u64 key_ns;
	u64 other_ns;
};

/* Per-device scheduler state. */
struct ebfq_data {
	struct request_queue *queue;
	spinlock_t lock;		/* everything below */

	struct ebfq_sched_data root_sd;	/* root of the hierarchy */
	struct ebfq_queue *in_service;	/* leaf queue in service */
	struct ebfq_queue *async[EBFQ_NR_CLASSES][IOPRIO_NR_LEVELS];
	struct ebfq_queue oom_queue;	/* when a queue cannot be allocated */
	struct list_head groups;	/* online groups (ebfq-cgroup.c) */
	struct ebfq_group_stats root_stats; /* queues of the root group */
	/*
	 * For idling, who was served lately: which groups (the key is the
	 * group, NULL for the root's queues; ebfq_group_dispatched()), and
	 * which classes and weights (ebfq_weight_key()), even those of
	 * queues that think so long between requests that they leave the
	 * idle tree.
	 */
	struct ebfq_recent served_group;
	struct ebfq_recent served_weight;
	u64 idle_since_ns;		/* the queue in service began to idle */
	u64 last_busy_ns;		/* a request left the driver or a turn ended */
	struct list_head dispatch;	/* requests that bypass the queues */
	struct list_head all_queues;	/* every queue, for debugfs */

	unsigned int queued;		/* requests in all the queues */
	unsigned int in_driver;		/* requests dispatched, not finished */
	unsigned long write_in_driver;	/* ... sectors of the writes among them */
	unsigned int busy_queues;	/* queues with queued requests */
	bool has_work;			/* what ->has_work() reports */
	bool idle_class_wait;		/* idle_timer waits for the idle class */
	/*
	 * The last dispatch was held back by ebfq_dq_hold(): ->has_work()
	 * says no until a request leaves the driver or a new one comes,
	 * rather than have blk-mq poll a dispatch that cannot go.
	 */
	bool dq_held;
	bool idle_restarted;		/* the idle timer fired late once */

	struct hrtimer idle_timer;	/* idling for the queue in service */

	/*
	 * Peak rate, in sectors per second, measured over windows of device
	 * busy time (some request in the driver): sectors completed and the
	 * time it took, idle gaps left out.
	 */
	u64 peak_rate;
	u64 rate_last;			/* the last window's rate */
	u64 rate_busy_since_ns;		/* in_driver last went 0 -> 1 */
	u64 rate_window_busy_ns;	/* busy time of the closed stretches */
	unsigned long rate_window_sectors;
	unsigned int rate_window_requests;
	unsigned long rate_samples;
	unsigned int auto_max_budget;	/* derived from peak_rate */

	/* Raised queues, and when the first of their raisings ends. */
	struct list_head wr_queues;
	unsigned int wr_nr;
	u64 wr_next_end_ns;
	unsigned long wr_started[EBFQ_NR_WR_KINDS];
	unsigned long wr_ended_heavy;	/* interactive ones that streamed */
	unsigned long wr_ended_early;	/* soft-RT ones back too soon */
	unsigned long wr_handed_over;	/* interactive ones gone soft-RT */
	unsigned long wr_preemptions;
	unsigned long wr_injected;	/* requests sent by ebfq_wr_inject() */
	unsigned long wr_bypassed;	/* ... by ebfq_wr_bypass() */

	/*
	 * Bursts: queues born close together in time (ebfq-wr.c). A burst
	 * large enough is a batch of workers, not an application starting.
	 */
	u64 burst_last_ns;		/* the last queue born */
	pid_t burst_family;		/* ... and its family */
	unsigned int burst_id;		/* the current burst */
	unsigned int burst_size;	/* queues born in it */
	bool burst_large;		/* it reached ebfq_burst_large */
	unsigned long large_bursts;	/* bursts that grew large */

	unsigned int async_depth;	/* tags async I/O may take, per word */
	unsigned int async_depth_wr;	/* ... while some queue is raised */

	/* The bio ->bio_merge() works on, and the queue it belongs to. */
	struct bio *merge_bio;
	struct ebfq_queue *merge_queue;

	struct ebfq_tunables tun;

	/* Counters for debugfs. */
	unsigned long expirations[EBFQ_NR_EXPIRE_REASONS];
	unsigned long idle_restarts;	/* see ebfq_idle_fired_late() */
};

static inline struct ebfq_io_cq *icq_to_bic(struct io_cq *icq)
{
	return container_of(icq, struct ebfq_io_cq, icq);
}

static inline bool ebfq_queue_sync(const struct ebfq_queue *bq)
{
	return test_bit(EBFQ_QF_SYNC, &bq->flags);
}

/* Something with @key was dispatched at @now. */
static inline void ebfq_recent_note(struct ebfq_recent *recent,
				    unsigned long key, u64 now)
{
	if (recent->key != key) {
		recent->other_ns = recent->key_ns;
		recent->key = key;
	}
	recent->key_ns = now;
}

/*
 * Whether something with another key than @key was dispatched after
 * @since: the last dispatch of all, or if that one had @key, the last
 * with another key than the last.
 */
static inline bool ebfq_recent_other(const struct ebfq_recent *recent,
				     unsigned long key, u64 since)
{
	return (recent->key != key ? recent->key_ns : recent->other_ns) > since;
}

/*
 * The key of an entity's class and weight in ebfq_data.served_weight.
 * Weights stay below 2^24: the largest, EBFQ_GROUP_WEIGHT_MAX, times
 * the largest raising coefficient (ebfq-sysfs.c) is 10^6.
 */
static inline unsigned long ebfq_weight_key(const struct ebfq_entity *entity)
{
	return (unsigned long)entity->class_idx << 24 | entity->weight;
}

/*
 * Whether two entities are scheduled side by side at the same weight: the
 * same scheduler (group), so that how the device goes between them does
 * not move their groups' shares, and the same weight, so that it does
 * not move theirs.
 */
static inline bool ebfq_entity_same_share(const struct ebfq_entity *a,
					  const struct ebfq_entity *b)
{
	return a->sd == b->sd && a->weight == b->weight;
}

/* ebfq-queue.c */
int ebfq_queue_cache_create(void);
void ebfq_queue_cache_destroy(void);
void ebfq_queue_setup(struct ebfq_data *ed, struct ebfq_queue *bq,
		      struct ebfq_group *bg, bool sync, int ioprio);
void ebfq_queue_free(struct ebfq_queue *bq);
void ebfq_put_queue(struct ebfq_queue *bq);
void ebfq_put_async_queues(struct ebfq_queue *async[][IOPRIO_NR_LEVELS]);
struct ebfq_queue **ebfq_async_slot(struct ebfq_data *ed,
				    struct ebfq_group *bg, int ioprio);
struct ebfq_queue *ebfq_get_queue(struct ebfq_data *ed, struct ebfq_io_cq *bic,
				  bool sync, int ioprio);
struct ebfq_queue *ebfq_rq_route(struct ebfq_data *ed, struct request *rq,
				 struct ebfq_queue *bq);

/* ebfq-iosched.c */
unsigned long ebfq_max_budget(const struct ebfq_data *ed);
bool ebfq_update_has_work(struct ebfq_data *ed);
struct request *ebfq_choose_request(struct ebfq_data *ed,
				    struct ebfq_queue *bq);
unsigned long ebfq_budget_feedback(unsigned long budget, unsigned long service,
				   enum ebfq_expire_reason reason,
				   unsigned long min_budget,
				   unsigned long max_budget);
extern const char *const ebfq_expire_names[EBFQ_NR_EXPIRE_REASONS];
void ebfq_expire(struct ebfq_data *ed, struct ebfq_queue *bq,
		 enum ebfq_expire_reason reason);

/* ebfq-wr.c: weight raising, charging, device-queue control (dq). */
extern const char *const ebfq_wr_names[EBFQ_NR_WR_KINDS];

static inline bool ebfq_wr_raised(const struct ebfq_queue *bq)
{
	return bq->wr_kind != EBFQ_WR_NONE;
}

u64 ebfq_wr_duration_ns(u64 peak_rate, unsigned int max_time_ms);
u64 ebfq_softrt_next_start(u64 busy_start_ns, unsigned long busy_service,
			   unsigned int max_rate, u64 idle_start_ns,
			   u64 min_idle_ns);
u64 ebfq_softrt_next_kept(u64 next_ns, u64 busy_start_ns,
			  unsigned long busy_service, unsigned int max_rate,
			  u64 slack_ns);
unsigned long ebfq_time_charge(unsigned long service, unsigned long budget,
			       unsigned long max_budget, u64 elapsed_ns,
			       unsigned int timeout_ms, u64 peak_rate,
			       enum ebfq_expire_reason reason);
u64 ebfq_rate_filter(u64 peak_rate, u64 sample);

void ebfq_wr_queue_init(struct ebfq_queue *bq);
pid_t ebfq_task_family(struct task_struct *task);
bool ebfq_burst_join(struct ebfq_data *ed, struct ebfq_queue *bq, u64 now);
bool ebfq_wr_queue_busy(struct ebfq_data *ed, struct ebfq_queue *bq,
			bool write, u64 now);
void ebfq_wr_queue_idle(struct ebfq_data *ed, struct ebfq_queue *bq, u64 now);
void ebfq_wr_dispatched(struct ebfq_data *ed, struct ebfq_queue *bq,
			unsigned long sectors);
void ebfq_wr_check(struct ebfq_data *ed, u64 now);
void ebfq_wr_stop(struct ebfq_data *ed, struct ebfq_queue *bq);
void ebfq_wr_stop_all(struct ebfq_data *ed);
unsigned long ebfq_wr_charge(struct ebfq_data *ed, struct ebfq_queue *bq,
			     enum ebfq_expire_reason reason, u64 now);
bool ebfq_dq_hold(const struct ebfq_data *ed, const struct ebfq_queue *bq,
		  const struct request *rq);
bool ebfq_wr_preempts(struct ebfq_data *ed, struct ebfq_queue *bq);
bool ebfq_wr_rivals(struct ebfq_data *ed, struct ebfq_queue *bq);
struct request *ebfq_wr_inject(struct ebfq_data *ed, struct ebfq_queue *bq);
struct request *ebfq_wr_bypass(struct ebfq_data *ed, struct ebfq_queue *bq);
unsigned long ebfq_write_window(u64 peak_rate, u64 last_rate);

/* ------------------------------------------------------------------ */
/* Groups (ebfq-cgroup.c): the io controller's cgroups as entities.    */

#ifdef CONFIG_IOSCHED_EBFQ_CGROUP
#include "blk-cgroup.h"

/* io.ebfq.weight: the range, and the weight of a cgroup nobody set. */
#define EBFQ_GROUP_WEIGHT_MIN		1
#define EBFQ_GROUP_WEIGHT_MAX		10000
#define EBFQ_GROUP_WEIGHT_DEFAULT	100

/*
 * One cgroup on one device: an entity of its parent's scheduler (the
 * root's for a top-level cgroup) and the scheduler of its own queues and
 * child groups. The root cgroup's group is never scheduled: its queues
 * are the device's root scheduler's, and have group NULL.
 */
struct ebfq_group {
	struct blkg_policy_data pd;	/* must be first: the blkcg core's */
	struct ebfq_entity entity;	/* in its parent's scheduler */
	struct ebfq_sched_data sd;	/* its queues and child groups */
	struct ebfq_data *ed;
	struct ebfq_group *parent;	/* NULL: a child of the root */
	/*
	 * The blkcg core's (until ->pd_free_fn()), one per queue and child
	 * group in it, one while its entity is known to the engine.
	 */
	refcount_t ref;
	bool root;			/* the root cgroup's: never scheduled */
	bool online;			/* false once offline: nothing joins */
	unsigned int dev_weight;	/* io.ebfq.weight here, 0: the default */
	unsigned int weight;		/* the weight in force, not raised */
	unsigned int wr_nr;		/* raised queues in it and below */
	struct ebfq_queue *async[EBFQ_NR_CLASSES][IOPRIO_NR_LEVELS];
	struct list_head node;		/* on ebfq_data.groups while online */
	struct ebfq_group_stats stats;	/* under ebfq_data.lock */
};

static inline struct ebfq_sched_data *
ebfq_group_sched(struct ebfq_data *ed, struct ebfq_group *bg)
{
	return bg ? &bg->sd : &ed->root_sd;
}

static inline struct ebfq_group_stats *
ebfq_group_stats(struct ebfq_data *ed, struct ebfq_group *bg)
{
	return bg ? &bg->stats : &ed->root_stats;
}

int ebfq_cgroup_register(void);
void ebfq_cgroup_unregister(void);
int ebfq_cgroup_init(struct ebfq_data *ed);
void ebfq_cgroup_exit(struct ebfq_data *ed);
struct ebfq_group *ebfq_bio_group(struct ebfq_data *ed, struct bio *bio);
void ebfq_group_get(struct ebfq_group *bg);
void ebfq_group_put(struct ebfq_group *bg);
void ebfq_queue_set_group(struct ebfq_data *ed, struct ebfq_queue *bq,
			  struct ebfq_group *bg);
void ebfq_group_raised(struct ebfq_data *ed, struct ebfq_group *bg, int delta);
void ebfq_groups_reweight(struct ebfq_data *ed);
unsigned long ebfq_group_scale(const struct ebfq_group *bg,
			       unsigned long sectors);
void ebfq_groups_flush_idle(struct ebfq_data *ed);
void ebfq_group_print_stats(struct seq_file *sf, struct ebfq_data *ed,
			    struct ebfq_group *bg);

/* A queue of @bg dispatched at @now (ebfq_other_group_served()). */
static inline void ebfq_group_dispatched(struct ebfq_data *ed,
					 struct ebfq_group *bg, u64 now)
{
	ebfq_recent_note(&ed->served_group, (unsigned long)bg, now);
}

/**
 * ebfq_other_group_served - whether a group besides @bg dispatched lately
 * @ed: the device
 * @bg: a queue's group, NULL for the root
 * @since: how far back "lately" goes (ns, ebfq_now()'s clock)
 *
 * The root's own queues count as a group of their own.
 */
static inline bool ebfq_other_group_served(struct ebfq_data *ed,
					   struct ebfq_group *bg, u64 since)
{
	lockdep_assert_held(&ed->lock);
	return ebfq_recent_other(&ed->served_group, (unsigned long)bg, since);
}
#else
static inline struct ebfq_sched_data *
ebfq_group_sched(struct ebfq_data *ed, struct ebfq_group *bg)
{
	return &ed->root_sd;
}

static inline struct ebfq_group_stats *
ebfq_group_stats(struct ebfq_data *ed, struct ebfq_group *bg)
{
	return &ed->root_stats;
}

static inline int ebfq_cgroup_register(void)
{
	return 0;
}

static inline void ebfq_cgroup_unregister(void)
{
}

static inline int ebfq_cgroup_init(struct ebfq_data *ed)
{
	return 0;
}

static inline void ebfq_cgroup_exit(struct ebfq_data *ed)
{
}

static inline void ebfq_groups_flush_idle(struct ebfq_data *ed)
{
}

static inline void ebfq_group_dispatched(struct ebfq_data *ed,
					 struct ebfq_group *bg, u64 now)
{
}

static inline bool ebfq_other_group_served(struct ebfq_data *ed,
					   struct ebfq_group *bg, u64 since)
{
	return false;
}

static inline struct ebfq_group *ebfq_bio_group(struct ebfq_data *ed,
						struct bio *bio)
{
	return NULL;
}

static inline void ebfq_group_get(struct ebfq_group *bg)
{
}

static inline void ebfq_group_put(struct ebfq_group *bg)
{
}

static inline void ebfq_queue_set_group(struct ebfq_data *ed,
					struct ebfq_queue *bq,
					struct ebfq_group *bg)
{
}

static inline void ebfq_group_raised(struct ebfq_data *ed,
				     struct ebfq_group *bg, int delta)
{
}

static inline void ebfq_groups_reweight(struct ebfq_data *ed)
{
}

static inline unsigned long ebfq_group_scale(const struct ebfq_group *bg,
					     unsigned long sectors)
{
	return sectors;
}
#endif /* CONFIG_IOSCHED_EBFQ_CGROUP */

#ifdef CONFIG_IOSCHED_EBFQ_DEBUG
void ebfq_check(struct ebfq_data *ed);
#else
static inline void ebfq_check(struct ebfq_data *ed)
{
}
#endif

/* ebfq-sysfs.c */
extern struct elv_fs_entry ebfq_attrs[];
void ebfq_tunables_init(struct ebfq_tunables *tun);
#ifdef CONFIG_BLK_DEBUG_FS
#include "blk-mq-debugfs.h"
extern const struct blk_mq_debugfs_attr ebfq_queue_debugfs_attrs[];
#endif

#endif /* _EBFQ_IOSCHED_H */
