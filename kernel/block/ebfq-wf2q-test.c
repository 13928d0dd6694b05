// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of the ebfq B-WF2Q+ engine: it drives ebfq-wf2q.c with
 * entities of its own, with no device, and checks the engine against the
 * algorithm's definitions and a brute-force reference.
 */
#include <kunit/test.h>
#include <linux/math64.h>
#include <linux/prandom.h>
#include <linux/string.h>

#include "ebfq-iosched.h"

#define NR_TEST_ENTITIES	12

struct test_entity {
	struct ebfq_entity e;
	int holds;
	int forgets;
	unsigned long received;
};

static struct test_entity *to_te(struct ebfq_entity *entity)
{
	return container_of(entity, struct test_entity, e);
}

static void test_hold(struct ebfq_entity *entity)
{
	to_te(entity)->holds++;
}

static void test_forget(struct ebfq_entity *entity)
{
	to_te(entity)->forgets++;
}

static const struct ebfq_entity_ops test_ops = {
	.hold	= test_hold,
	.forget	= test_forget,
};

static void te_init(struct test_entity *te, struct ebfq_sched_data *sd,
		    unsigned int weight, enum ebfq_class class_idx,
		    unsigned long budget)
{
	memset(te, 0, sizeof(*te));
	ebfq_entity_init(&te->e, sd, &test_ops, weight, class_idx);
	te->e.budget = budget;
}

static void sd_set_vtime(struct ebfq_sched_data *sd, u64 vtime)
{
	int i;

	for (i = 0; i < EBFQ_NR_CLASSES; i++)
		sd->tree[i].vtime = vtime;
}

/* Every invariant ebfq-check.c knows holds for @sd and its groups. */
#define EXPECT_SD_SOUND(test, sd) \
	KUNIT_EXPECT_STREQ(test, ebfq_sd_check(sd) ?: "sound", "sound")

/* Select, charge @amount, expire. Returns the entity served. */
static struct test_entity *serve(struct kunit *test, struct ebfq_sched_data *sd,
				 u64 now, unsigned long amount, bool backlogged)
{
	struct ebfq_entity *entity = ebfq_sd_select(sd, now);
	struct test_entity *te;

	KUNIT_ASSERT_NOT_NULL(test, entity);
	te = to_te(entity);
	KUNIT_EXPECT_EQ(test, entity->where, EBFQ_IN_SERVICE);
	ebfq_entity_charge(entity, amount, now);
	te->received += amount;
	ebfq_entity_expire(entity, backlogged);
	return te;
}

/*
 * The brute-force reference: the smallest finish among the entities of
 * @st that are eligible once V has caught up with the smallest start.
 */
static bool reference_choice(struct ebfq_service_tree *st, u64 *finish)
{
	struct rb_node *node;
	u64 vtime = st->vtime, min_start = 0;
	bool any = false, found = false;

	for (node = rb_first(&st->active); node; node = rb_next(node)) {
		struct ebfq_entity *e = rb_entry(node, struct ebfq_entity, node);

		if (!any || ebfq_vt_before(e->start, min_start))
			min_start = e->start;
		any = true;
	}
	if (!any)
		return false;
	vtime = ebfq_vt_max(vtime, min_start);
	for (node = rb_first(&st->active); node; node = rb_next(node)) {
		struct ebfq_entity *e = rb_entry(node, struct ebfq_entity, node);

		if (ebfq_vt_after(e->start, vtime))
			continue;
		if (!found || ebfq_vt_before(e->finish, *finish))
			*finish = e->finish;
		found = true;
	}
	return found;
}

/* Every active node's min_start is the minimum start of its subtree. */
static u64 check_augmented(struct kunit *test, struct rb_node *node)
{
	struct ebfq_entity *e = rb_entry(node, struct ebfq_entity, node);
	u64 min_start = e->start;

	KUNIT_EXPECT_FALSE(test, ebfq_vt_after(e->start, e->finish));
	if (node->rb_left)
		min_start = ebfq_vt_min(min_start,
					check_augmented(test, node->rb_left));
	if (node->rb_right)
		min_start = ebfq_vt_min(min_start,
					check_augmented(test, node->rb_right));
	KUNIT_EXPECT_EQ(test, e->min_start, min_start);
	return min_start;
}

/* Arrivals: each of @te that has no work gets some, one time in @one_in. */
static void random_arrivals(struct test_entity *te, struct rnd_state *rnd,
			    u32 one_in)
{
	int i;

	for (i = 0; i < NR_TEST_ENTITIES; i++) {
		if ((te[i].e.where == EBFQ_NOWHERE ||
		     te[i].e.where == EBFQ_IDLE) &&
		    prandom_u32_state(rnd) % one_in == 0)
			ebfq_entity_activate(&te[i].e, EBFQ_REMEMBER);
	}
}

/*
 * Random weights, budgets, partial service and arrivals: the choice is
 * always the reference's, the chosen entity is eligible, V never goes
 * back and the subtree minima stay right. Run from @vtime0.
 */
static void random_schedule(struct kunit *test, u64 vtime0)
{
	struct ebfq_sched_data sd;
	struct test_entity *te = kunit_kcalloc(test, NR_TEST_ENTITIES,
					       sizeof(*te), GFP_KERNEL);
	struct ebfq_service_tree *st = &sd.tree[EBFQ_CLASS_BE];
	struct rnd_state rnd;
	u64 last_v;
	int i, round;

	KUNIT_ASSERT_NOT_NULL(test, te);
	prandom_seed_state(&rnd, 0xeb1f ^ vtime0);
	ebfq_sd_init(&sd, NULL);
	sd_set_vtime(&sd, vtime0);
	for (i = 0; i < NR_TEST_ENTITIES; i++)
		te_init(&te[i], &sd, 1 + prandom_u32_state(&rnd) % 1000,
			EBFQ_CLASS_BE, 8 + prandom_u32_state(&rnd) % 2048);
	last_v = st->vtime;

	for (round = 0; round < 4000; round++) {
		struct ebfq_entity *chosen;
		unsigned long amount;
		u64 ref_finish = 0;
		bool expect;

		random_arrivals(te, &rnd, 4);
		if (st->active.rb_node)
			check_augmented(test, st->active.rb_node);
		EXPECT_SD_SOUND(test, &sd);

		expect = reference_choice(st, &ref_finish);
		chosen = ebfq_sd_select(&sd, 0);
		KUNIT_ASSERT_EQ(test, expect, !!chosen);
		if (!chosen)
			continue;
		EXPECT_SD_SOUND(test, &sd);

		KUNIT_EXPECT_EQ(test, chosen->finish, ref_finish);
		KUNIT_EXPECT_FALSE(test, ebfq_vt_after(chosen->start, st->vtime));
		KUNIT_EXPECT_FALSE(test, ebfq_vt_before(st->vtime, last_v));
		last_v = st->vtime;

		amount = 1 + prandom_u32_state(&rnd) % chosen->budget;
		ebfq_entity_charge(chosen, amount, 0);
		KUNIT_EXPECT_FALSE(test, ebfq_vt_before(st->vtime, last_v));
		last_v = st->vtime;
		ebfq_entity_expire(chosen, prandom_u32_state(&rnd) % 8 != 0);
		KUNIT_EXPECT_FALSE(test, ebfq_vt_before(st->vtime, last_v));
		EXPECT_SD_SOUND(test, &sd);
	}

	for (i = 0; i < NR_TEST_ENTITIES; i++)
		if (te[i].e.where == EBFQ_ACTIVE)
			ebfq_entity_deactivate(&te[i].e);
	ebfq_sd_flush_idle(&sd);
	for (i = 0; i < NR_TEST_ENTITIES; i++) {
		KUNIT_EXPECT_EQ(test, te[i].e.where, EBFQ_NOWHERE);
		KUNIT_EXPECT_EQ(test, te[i].holds, te[i].forgets);
	}
	KUNIT_EXPECT_EQ(test, st->wsum, 0UL);
}

static void ebfq_test_selection_reference(struct kunit *test)
{
	random_schedule(test, 0);
}

static void ebfq_test_selection_wraparound(struct kunit *test)
{
	/* A few budgets before V wraps: timestamps cross 2^64 mid-run. */
	random_schedule(test, (u64)-(1ULL << (EBFQ_VT_SHIFT + 12)));
}

/*
 * Always-backlogged entities that use their whole budget: each one's
 * service stays within a few budgets of its weighted share.
 */
static void check_shares(struct kunit *test, const unsigned int *weights,
			 int nr, unsigned long budget, u64 vtime0)
{
	struct ebfq_sched_data sd;
	struct test_entity te[8];
	unsigned long total = 0, wsum = 0;
	u64 v0;
	int i, round;

	ebfq_sd_init(&sd, NULL);
	sd_set_vtime(&sd, vtime0);
	v0 = sd.tree[EBFQ_CLASS_BE].vtime;
	for (i = 0; i < nr; i++) {
		te_init(&te[i], &sd, weights[i], EBFQ_CLASS_BE, budget);
		ebfq_entity_activate(&te[i].e, EBFQ_REMEMBER);
		wsum += weights[i];
	}
	for (round = 0; round < 3000; round++) {
		serve(test, &sd, 0, budget, true);
		total += budget;
	}

	for (i = 0; i < nr; i++) {
		u64 ideal = div_u64((u64)total * weights[i], wsum);
		s64 lag = (s64)te[i].received - (s64)ideal;

		KUNIT_EXPECT_LE_MSG(test, abs(lag), 2 * (s64)budget,
				    "entity %d weight %u got %lu of %lu",
				    i, weights[i], te[i].received, total);
	}
	KUNIT_EXPECT_TRUE(test, ebfq_vt_after(sd.tree[EBFQ_CLASS_BE].vtime, v0));
	for (i = 0; i < nr; i++)
		ebfq_entity_deactivate(&te[i].e);
	ebfq_sd_flush_idle(&sd);
}

static void ebfq_test_shares(struct kunit *test)
{
	static const unsigned int w124[] = { 10, 20, 40 };
	static const unsigned int wmix[] = { 1, 7, 30, 80, 100, 333, 1000 };

	check_shares(test, w124, ARRAY_SIZE(w124), 256, 0);
	check_shares(test, wmix, ARRAY_SIZE(wmix), 64, 0);
}

static void ebfq_test_shares_wraparound(struct kunit *test)
{
	static const unsigned int w124[] = { 10, 20, 40 };
	u64 v0 = (u64)-(1ULL << (EBFQ_VT_SHIFT + 14));
	struct ebfq_sched_data sd;
	struct test_entity a;

	check_shares(test, w124, ARRAY_SIZE(w124), 256, v0);

	/* V itself wraps and keeps comparing as later. */
	ebfq_sd_init(&sd, NULL);
	sd_set_vtime(&sd, v0);
	te_init(&a, &sd, 1, EBFQ_CLASS_BE, 1 << 15);
	ebfq_entity_activate(&a.e, EBFQ_REMEMBER);
	serve(test, &sd, 0, 1 << 15, true);
	KUNIT_EXPECT_LT(test, sd.tree[EBFQ_CLASS_BE].vtime, v0);
	KUNIT_EXPECT_TRUE(test, ebfq_vt_after(sd.tree[EBFQ_CLASS_BE].vtime, v0));
	ebfq_entity_deactivate(&a.e);
}

/* Two busy BE entities of weight 10 and budget 1000, a first in line. */
static void two_busy(struct ebfq_sched_data *sd, struct test_entity *a,
		     struct test_entity *b)
{
	ebfq_sd_init(sd, NULL);
	te_init(a, sd, 10, EBFQ_CLASS_BE, 1000);
	te_init(b, sd, 10, EBFQ_CLASS_BE, 1000);
	ebfq_entity_activate(&a->e, EBFQ_REMEMBER);
	ebfq_entity_activate(&b->e, EBFQ_REMEMBER);
}

/*
 * End a two_busy() test whose entity a is in service and b active: every
 * entity the engine held is forgotten again.
 */
static void two_busy_end(struct kunit *test, struct ebfq_sched_data *sd,
			 struct test_entity *a, struct test_entity *b)
{
	ebfq_entity_expire(&a->e, false);
	ebfq_entity_deactivate(&b->e);
	ebfq_sd_flush_idle(sd);
	KUNIT_EXPECT_EQ(test, a->holds, a->forgets);
	KUNIT_EXPECT_EQ(test, b->holds, b->forgets);
}

/* An entity that empties keeps its timestamps until V passes them. */
static void ebfq_test_idle_tree(struct kunit *test)
{
	struct ebfq_sched_data sd;
	struct test_entity a, b;
	u64 finish;

	two_busy(&sd, &a, &b);
	KUNIT_EXPECT_EQ(test, a.holds, 1);

	/* a is served a little and runs dry: it waits on the idle tree. */
	KUNIT_ASSERT_PTR_EQ(test, serve(test, &sd, 0, 500, false), &a);
	KUNIT_EXPECT_EQ(test, a.e.where, EBFQ_IDLE);
	KUNIT_EXPECT_EQ(test, a.forgets, 0);
	finish = a.e.finish;
	KUNIT_EXPECT_EQ(test, finish, ebfq_vt_delta(500, 10));

	/* Back soon: it starts where it left, not at V. */
	ebfq_entity_activate(&a.e, EBFQ_REMEMBER);
	KUNIT_EXPECT_EQ(test, a.e.start, finish);
	KUNIT_EXPECT_EQ(test, a.holds, 1);

	/* Gone for long: once V passes its finish it is forgotten. */
	KUNIT_ASSERT_PTR_EQ(test, serve(test, &sd, 0, 1000, true), &b);
	KUNIT_ASSERT_PTR_EQ(test, serve(test, &sd, 0, 1000, false), &a);
	KUNIT_EXPECT_EQ(test, a.e.where, EBFQ_IDLE);
	while (a.e.where == EBFQ_IDLE)
		KUNIT_ASSERT_PTR_EQ(test, serve(test, &sd, 0, 1000, true), &b);
	KUNIT_EXPECT_EQ(test, a.e.where, EBFQ_NOWHERE);
	KUNIT_EXPECT_EQ(test, a.forgets, 1);

	/*
	 * The last busy entity, owed nothing, goes idle: V reaches its
	 * finish, and it is forgotten (ebfq_test_all_idle_keeps_history
	 * shows one that is owed something).
	 */
	KUNIT_ASSERT_PTR_EQ(test, serve(test, &sd, 0, 10, false), &b);
	KUNIT_EXPECT_EQ(test, b.e.where, EBFQ_NOWHERE);
	KUNIT_EXPECT_EQ(test, b.forgets, 1);
	KUNIT_EXPECT_FALSE(test, ebfq_sd_busy(&sd));
}

/*
 * Every entity idle at once (their processes think between requests) is
 * no new busy period: what each received still counts when they return.
 */
static void ebfq_test_all_idle_keeps_history(struct kunit *test)
{
	struct ebfq_sched_data sd;
	struct test_entity a, b;

	two_busy(&sd, &a, &b);
	KUNIT_ASSERT_PTR_EQ(test, serve(test, &sd, 0, 1000, false), &a);
	KUNIT_ASSERT_PTR_EQ(test, serve(test, &sd, 0, 10, false), &b);
	KUNIT_EXPECT_FALSE(test, ebfq_sd_busy(&sd));
	KUNIT_EXPECT_EQ(test, a.e.where, EBFQ_IDLE);
	KUNIT_EXPECT_EQ(test, a.forgets, 0);

	/* Both back: a received 100 times more, b goes first. */
	ebfq_entity_activate(&a.e, EBFQ_REMEMBER);
	ebfq_entity_activate(&b.e, EBFQ_REMEMBER);
	KUNIT_EXPECT_PTR_EQ(test, serve(test, &sd, 0, 10, false), &b);
	KUNIT_EXPECT_NULL(test, ebfq_sd_check(&sd));

	/* A new busy period: the device flushes the history. */
	KUNIT_ASSERT_PTR_EQ(test, serve(test, &sd, 0, 10, false), &a);
	ebfq_sd_flush_idle(&sd);
	KUNIT_EXPECT_EQ(test, a.e.where, EBFQ_NOWHERE);
	KUNIT_EXPECT_EQ(test, b.e.where, EBFQ_NOWHERE);
	KUNIT_EXPECT_FALSE(test, ebfq_sd_busy(&sd));
}

/* A fresh start (a raised queue) ignores the remembered finish. */
static void ebfq_test_fresh_start(struct kunit *test)
{
	struct ebfq_sched_data sd;
	struct test_entity a, b;

	two_busy(&sd, &a, &b);
	KUNIT_ASSERT_PTR_EQ(test, serve(test, &sd, 0, 500, false), &a);
	KUNIT_ASSERT_EQ(test, a.e.where, EBFQ_IDLE);
	KUNIT_ASSERT_TRUE(test, ebfq_vt_after(a.e.finish,
					      sd.tree[EBFQ_CLASS_BE].vtime));

	ebfq_entity_activate(&a.e, EBFQ_FRESH_ALL);
	KUNIT_EXPECT_EQ(test, a.e.start, sd.tree[EBFQ_CLASS_BE].vtime);
	KUNIT_EXPECT_EQ(test, a.e.where, EBFQ_ACTIVE);
	/* Off the idle tree without a new reference, nor a lost one. */
	KUNIT_EXPECT_EQ(test, a.holds, 1);
	KUNIT_EXPECT_EQ(test, a.forgets, 0);
	ebfq_entity_deactivate(&a.e);
	ebfq_entity_deactivate(&b.e);
}

/* A surcharge moves the finish, not V. */
static void ebfq_test_surcharge(struct kunit *test)
{
	struct ebfq_sched_data sd;
	struct ebfq_entity *e;
	struct test_entity a, b;
	u64 vtime;

	two_busy(&sd, &a, &b);
	e = ebfq_sd_select(&sd, 0);
	KUNIT_ASSERT_PTR_EQ(test, e, &a.e);
	ebfq_entity_charge(e, 100, 0);
	vtime = sd.tree[EBFQ_CLASS_BE].vtime;
	ebfq_entity_surcharge(e, 900);
	KUNIT_EXPECT_EQ(test, sd.tree[EBFQ_CLASS_BE].vtime, vtime);
	ebfq_entity_expire(e, true);
	KUNIT_EXPECT_EQ(test, a.e.start, ebfq_vt_delta(1000, 10));
	/* b, charged nothing yet, goes first now. */
	KUNIT_EXPECT_PTR_EQ(test, ebfq_sd_select(&sd, 0), &b.e);
	ebfq_entity_expire(&b.e, false);
	ebfq_entity_deactivate(&a.e);
}

/*
 * Service received out of turn (ebfq_wr_inject()) advances V, counts
 * towards the entity's next turn, and, when the entity runs dry before
 * that turn, stays owed even by a fresh start.
 */
static void ebfq_test_out_of_turn(struct kunit *test)
{
	struct ebfq_sched_data sd;
	struct ebfq_service_tree *st = &sd.tree[EBFQ_CLASS_BE];
	struct ebfq_entity *e;
	struct test_entity a, b;
	u64 vtime, start;

	two_busy(&sd, &a, &b);
	e = ebfq_sd_select(&sd, 0);
	KUNIT_ASSERT_PTR_EQ(test, e, &a.e);

	/* b receives 200 in a's turn: V moves, b waits with it counted. */
	vtime = st->vtime;
	start = b.e.start;
	ebfq_entity_charge(&b.e, 200, 0);
	KUNIT_EXPECT_EQ(test, st->vtime, vtime + ebfq_vt_delta(200, 20));
	KUNIT_EXPECT_EQ(test, b.e.where, EBFQ_ACTIVE);
	KUNIT_EXPECT_EQ(test, b.e.service, 200UL);
	KUNIT_EXPECT_EQ(test, a.e.service, 0UL);
	EXPECT_SD_SOUND(test, &sd);

	/* Its turn starts from there and its finish counts all it got. */
	ebfq_entity_charge(e, 100, 0);
	ebfq_entity_expire(e, true);
	KUNIT_EXPECT_EQ(test, a.e.service, 0UL);
	e = ebfq_sd_select(&sd, 0);
	KUNIT_ASSERT_PTR_EQ(test, e, &b.e);
	KUNIT_EXPECT_EQ(test, b.e.service, 200UL);
	ebfq_entity_charge(e, 300, 0);
	ebfq_entity_expire(e, true);
	KUNIT_EXPECT_EQ(test, b.e.start, start + ebfq_vt_delta(500, 10));
	KUNIT_EXPECT_EQ(test, b.e.service, 0UL);
	EXPECT_SD_SOUND(test, &sd);

	/* b runs dry before its next turn: what it got stays in its finish. */
	e = ebfq_sd_select(&sd, 0);
	KUNIT_ASSERT_PTR_EQ(test, e, &a.e);
	start = b.e.start;
	ebfq_entity_charge(&b.e, 200, 0);
	ebfq_entity_deactivate(&b.e);
	KUNIT_EXPECT_EQ(test, b.e.where, EBFQ_IDLE);
	KUNIT_EXPECT_EQ(test, b.e.finish, start + ebfq_vt_delta(200, 10));
	EXPECT_SD_SOUND(test, &sd);

	/* Even a fresh start begins there: b had no turn since. */
	vtime = st->vtime;
	KUNIT_ASSERT_TRUE(test, ebfq_vt_after(start, vtime));
	ebfq_entity_activate(&b.e, EBFQ_FRESH_ALL);
	KUNIT_EXPECT_EQ(test, b.e.start, start + ebfq_vt_delta(200, 10));
	KUNIT_EXPECT_EQ(test, b.e.service, 0UL);
	EXPECT_SD_SOUND(test, &sd);

	two_busy_end(test, &sd, &a, &b);
}

/*
 * A root scheduler with two groups of weight 100 in it, g1 and g2; their
 * schedulers are root + 1 and root + 2.
 */
static struct ebfq_sched_data *two_groups(struct kunit *test,
					  struct test_entity *g1,
					  struct test_entity *g2)
{
	/* Three schedulers are too large for the stack. */
	struct ebfq_sched_data *root = kunit_kcalloc(test, 3, sizeof(*root),
						     GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, root);
	ebfq_sd_init(root, NULL);
	te_init(g1, root, 100, EBFQ_CLASS_BE, 1000);
	te_init(g2, root, 100, EBFQ_CLASS_BE, 1000);
	ebfq_sd_init(root + 1, &g1->e);
	ebfq_sd_init(root + 2, &g2->e);
	return root;
}

/* Forget what two_groups()' schedulers remember: no reference is left. */
static void two_groups_end(struct kunit *test, struct ebfq_sched_data *root,
			   struct test_entity *const *te, unsigned int nr)
{
	unsigned int i;

	ebfq_sd_flush_idle(root + 1);
	ebfq_sd_flush_idle(root + 2);
	ebfq_sd_flush_idle(root);
	for (i = 0; i < nr; i++)
		KUNIT_EXPECT_EQ(test, te[i]->holds, te[i]->forgets);
}

/*
 * Out of turn in another group: the group waiting for its turn is charged
 * as its queue is, the root's V moves, and the group in service is
 * charged as in a turn.
 */
static void ebfq_test_out_of_turn_groups(struct kunit *test)
{
	struct test_entity g1, g2, q1, q2, q3;
	struct ebfq_sched_data *root = two_groups(test, &g1, &g2);
	struct ebfq_sched_data *gsd1 = root + 1, *gsd2 = root + 2;
	struct ebfq_entity *e;
	u64 vtime;

	te_init(&q1, gsd1, 100, EBFQ_CLASS_BE, 1000);
	te_init(&q3, gsd1, 100, EBFQ_CLASS_BE, 1000);
	te_init(&q2, gsd2, 100, EBFQ_CLASS_BE, 1000);
	ebfq_entity_activate(&q1.e, EBFQ_REMEMBER);
	ebfq_entity_activate(&q3.e, EBFQ_REMEMBER);
	ebfq_entity_activate(&q2.e, EBFQ_REMEMBER);

	e = ebfq_sd_select(root, 0);
	KUNIT_ASSERT_PTR_EQ(test, e, &q1.e);

	vtime = root->tree[EBFQ_CLASS_BE].vtime;
	ebfq_entity_charge(&q2.e, 100, 0);
	KUNIT_EXPECT_EQ(test, q2.e.service, 100UL);
	KUNIT_EXPECT_EQ(test, g2.e.service, 100UL);
	KUNIT_EXPECT_EQ(test, g1.e.service, 0UL);
	KUNIT_EXPECT_EQ(test, root->tree[EBFQ_CLASS_BE].vtime,
			vtime + ebfq_vt_delta(100, 200));

	/* q3 shares g1 with q1: g1 is charged as in its turn. */
	ebfq_entity_charge(&q3.e, 50, 0);
	KUNIT_EXPECT_EQ(test, q3.e.service, 50UL);
	KUNIT_EXPECT_EQ(test, g1.e.service, 50UL);
	KUNIT_EXPECT_EQ(test, q1.e.service, 0UL);
	EXPECT_SD_SOUND(test, root);

	/* g2 runs dry with its queue: both keep what they owe. */
	ebfq_entity_deactivate(&q2.e);
	KUNIT_EXPECT_EQ(test, g2.e.where, EBFQ_IDLE);
	KUNIT_EXPECT_EQ(test, g2.e.finish - g2.e.start, ebfq_vt_delta(100, 100));
	EXPECT_SD_SOUND(test, root);

	ebfq_entity_expire(e, false);
	ebfq_entity_deactivate(&q3.e);
	two_groups_end(test, root,
		       (struct test_entity *[]){ &g1, &g2, &q2, &q3 }, 4);
}

/*
 * A queue in a group that had its turn, ran dry and comes back: a soft
 * real-time queue (EBFQ_FRESH_QUEUE) starts at its group's V, and the
 * group at its remembered finish, past the other group's; a start-up
 * (EBFQ_FRESH_ALL) starts the group at V too.
 */
static void ebfq_test_fresh_groups(struct kunit *test)
{
	struct test_entity g1, g2, q1, q2;
	struct ebfq_sched_data *root = two_groups(test, &g1, &g2);
	struct ebfq_sched_data *gsd1 = root + 1;
	struct ebfq_service_tree *st = &root->tree[EBFQ_CLASS_BE];
	u64 finish;

	te_init(&q1, gsd1, 100, EBFQ_CLASS_BE, 1000);
	te_init(&q2, root + 2, 100, EBFQ_CLASS_BE, 1000);
	ebfq_entity_activate(&q1.e, EBFQ_REMEMBER);
	ebfq_entity_activate(&q2.e, EBFQ_REMEMBER);

	/* Ties go to the first activated: q1 has a whole turn, runs dry. */
	KUNIT_ASSERT_PTR_EQ(test, serve(test, root, 0, 1000, false), &q1);
	KUNIT_ASSERT_EQ(test, g1.e.where, EBFQ_IDLE);
	KUNIT_ASSERT_TRUE(test, ebfq_vt_after(g1.e.finish, st->vtime));
	finish = g1.e.finish;

	ebfq_entity_activate(&q1.e, EBFQ_FRESH_QUEUE);
	KUNIT_EXPECT_EQ(test, q1.e.start, gsd1->tree[EBFQ_CLASS_BE].vtime);
	KUNIT_EXPECT_EQ(test, g1.e.start, finish);
	KUNIT_EXPECT_FALSE(test, ebfq_entity_path_eligible(&q1.e));
	EXPECT_SD_SOUND(test, root);

	/* Gone again before its turn: the group remembers the same finish. */
	ebfq_entity_deactivate(&q1.e);
	KUNIT_ASSERT_EQ(test, g1.e.where, EBFQ_IDLE);
	KUNIT_EXPECT_EQ(test, g1.e.finish, finish);

	ebfq_entity_activate(&q1.e, EBFQ_FRESH_ALL);
	KUNIT_EXPECT_EQ(test, g1.e.start, st->vtime);
	KUNIT_EXPECT_TRUE(test, ebfq_entity_path_eligible(&q1.e));
	EXPECT_SD_SOUND(test, root);

	ebfq_entity_deactivate(&q1.e);
	ebfq_entity_deactivate(&q2.e);
	two_groups_end(test, root,
		       (struct test_entity *[]){ &g1, &g2, &q1, &q2 }, 4);
}

/* After its turn a busy entity waits until the others had their share. */
static void ebfq_test_eligible(struct kunit *test)
{
	struct ebfq_sched_data sd;
	struct test_entity a, b;
	struct ebfq_entity *e;

	two_busy(&sd, &a, &b);
	KUNIT_EXPECT_TRUE(test, ebfq_entity_eligible(&b.e));
	/* In service is not waiting. */
	KUNIT_ASSERT_PTR_EQ(test, ebfq_sd_select(&sd, 0), &a.e);
	KUNIT_EXPECT_FALSE(test, ebfq_entity_eligible(&a.e));
	ebfq_entity_charge(&a.e, 1000, 0);
	ebfq_entity_expire(&a.e, true);
	KUNIT_EXPECT_FALSE(test, ebfq_entity_eligible(&a.e));

	/* b catches up, a little at a time: a is eligible once V is at S. */
	e = ebfq_sd_select(&sd, 0);
	KUNIT_ASSERT_PTR_EQ(test, e, &b.e);
	while (!ebfq_entity_eligible(&a.e)) {
		KUNIT_ASSERT_LT(test, b.e.service, 1000UL);
		ebfq_entity_charge(e, 100, 0);
	}
	/* Equal weights: b got as much as a had before a could go again. */
	KUNIT_EXPECT_EQ(test, b.e.service, 1000UL);
	ebfq_entity_expire(e, false);
	ebfq_entity_deactivate(&a.e);
}

/*
 * RT before BE before IDLE; the idle class waits until the others have
 * been quiet for a grace period, and is not starved forever.
 */
static void ebfq_test_classes(struct kunit *test)
{
	struct ebfq_sched_data sd;
	struct test_entity rt, be, idle;
	u64 now = 1000;
	int i;

	ebfq_sd_init(&sd, NULL);
	te_init(&rt, &sd, 10, EBFQ_CLASS_RT, 100);
	te_init(&be, &sd, 80, EBFQ_CLASS_BE, 100);
	te_init(&idle, &sd, 80, EBFQ_CLASS_IDLE, 100);
	ebfq_entity_activate(&idle.e, EBFQ_REMEMBER);
	ebfq_entity_activate(&be.e, EBFQ_REMEMBER);
	ebfq_entity_activate(&rt.e, EBFQ_REMEMBER);

	for (i = 0; i < 20; i++)
		KUNIT_EXPECT_PTR_EQ(test, serve(test, &sd, now, 100, true), &rt);
	KUNIT_EXPECT_PTR_EQ(test, serve(test, &sd, now, 100, false), &rt);
	for (i = 0; i < 20; i++) {
		now += NSEC_PER_MSEC;
		KUNIT_EXPECT_PTR_EQ(test, serve(test, &sd, now, 100, true), &be);
	}
	/* Waiting longer than EBFQ_IDLE_CLASS_WAIT_NS: one turn. */
	now += EBFQ_IDLE_CLASS_WAIT_NS + 1;
	KUNIT_EXPECT_PTR_EQ(test, serve(test, &sd, now, 100, true), &idle);
	KUNIT_EXPECT_PTR_EQ(test, serve(test, &sd, now, 100, false), &be);

	/* BE just went quiet: the idle class waits out the grace period. */
	now += NSEC_PER_MSEC;
	KUNIT_EXPECT_NULL(test, ebfq_sd_select(&sd, now));
	KUNIT_EXPECT_EQ(test, ebfq_sd_idle_class_delay(&sd, now),
			EBFQ_IDLE_CLASS_GRACE_NS - NSEC_PER_MSEC);
	now += EBFQ_IDLE_CLASS_GRACE_NS;
	KUNIT_EXPECT_EQ(test, ebfq_sd_idle_class_delay(&sd, now), 0ULL);
	KUNIT_EXPECT_PTR_EQ(test, serve(test, &sd, now, 100, true), &idle);
	KUNIT_EXPECT_EQ(test, idle.received, 200UL);
	ebfq_entity_deactivate(&idle.e);
	ebfq_sd_flush_idle(&sd);
}

/* A weight change applies from the entity's next turn. */
static void ebfq_test_weight_change(struct kunit *test)
{
	static const unsigned int equal[] = { 10, 10 };
	struct ebfq_sched_data sd;
	struct test_entity te[2];
	int i;

	ebfq_sd_init(&sd, NULL);
	for (i = 0; i < 2; i++) {
		te_init(&te[i], &sd, equal[i], EBFQ_CLASS_BE, 100);
		ebfq_entity_activate(&te[i].e, EBFQ_REMEMBER);
	}
	te[1].e.new_weight = 30;
	for (i = 0; i < 4002; i++)
		serve(test, &sd, 0, 100, true);
	KUNIT_EXPECT_EQ(test, te[1].e.weight, 30U);
	KUNIT_EXPECT_EQ(test, sd.tree[EBFQ_CLASS_BE].wsum, 40UL);
	/* 1:3, within a few budgets. */
	KUNIT_EXPECT_LE(test, abs((long)te[1].received - 3 * (long)te[0].received),
			1000L);
	for (i = 0; i < 2; i++)
		ebfq_entity_deactivate(&te[i].e);
	ebfq_sd_flush_idle(&sd);
}

/* A group is scheduled by its parent exactly as a queue is. */
static void ebfq_test_hierarchy(struct kunit *test)
{
	struct ebfq_sched_data root, gsd;
	struct test_entity q, group, q1, q2;
	unsigned long total;
	int i;

	ebfq_sd_init(&root, NULL);
	te_init(&q, &root, 100, EBFQ_CLASS_BE, 128);
	te_init(&group, &root, 100, EBFQ_CLASS_BE, 128);
	ebfq_sd_init(&gsd, &group.e);
	te_init(&q1, &gsd, 100, EBFQ_CLASS_BE, 128);
	te_init(&q2, &gsd, 300, EBFQ_CLASS_BE, 128);

	ebfq_entity_activate(&q.e, EBFQ_REMEMBER);
	ebfq_entity_activate(&q1.e, EBFQ_REMEMBER);
	KUNIT_EXPECT_EQ(test, group.e.where, EBFQ_ACTIVE);
	ebfq_entity_activate(&q2.e, EBFQ_REMEMBER);

	for (i = 0; i < 8000; i++) {
		serve(test, &root, 0, 128, true);
		if (i % 100 == 0)
			EXPECT_SD_SOUND(test, &root);
	}
	total = q.received + q1.received + q2.received;
	KUNIT_EXPECT_LE(test, abs((long)q.received - (long)total / 2), 512L);
	KUNIT_EXPECT_LE(test, abs((long)q2.received - 3 * (long)q1.received),
			1024L);

	/* The group goes idle with its last child. */
	ebfq_entity_deactivate(&q1.e);
	while (q2.e.where != EBFQ_NOWHERE && q2.e.where != EBFQ_IDLE) {
		struct ebfq_entity *e = ebfq_sd_select(&root, 0);

		ebfq_entity_charge(e, 1, 0);
		ebfq_entity_expire(e, e != &q2.e);
	}
	KUNIT_EXPECT_NE(test, group.e.where, EBFQ_ACTIVE);
	KUNIT_EXPECT_NE(test, group.e.where, EBFQ_IN_SERVICE);
	ebfq_entity_deactivate(&q.e);
	ebfq_sd_flush_idle(&gsd);
	ebfq_sd_flush_idle(&root);
	KUNIT_EXPECT_EQ(test, group.holds, group.forgets);
	KUNIT_EXPECT_EQ(test, q2.holds, q2.forgets);
}

/*
 * Entities move between groups (a process changed cgroup, a group went
 * offline): work and budget go along, the group left behind goes idle,
 * an idle entity forgets its history, and every hold has its forget.
 */
static void ebfq_test_move(struct kunit *test)
{
	struct ebfq_sched_data root, asd, bsd;
	struct test_entity ga, gb, q1, q2;
	int i;

	ebfq_sd_init(&root, NULL);
	te_init(&ga, &root, 100, EBFQ_CLASS_BE, 256);
	te_init(&gb, &root, 100, EBFQ_CLASS_BE, 256);
	ebfq_sd_init(&asd, &ga.e);
	ebfq_sd_init(&bsd, &gb.e);
	te_init(&q1, &asd, 40, EBFQ_CLASS_BE, 64);
	te_init(&q2, &asd, 40, EBFQ_CLASS_BE, 64);

	ebfq_entity_activate(&q1.e, EBFQ_REMEMBER);
	ebfq_entity_activate(&q2.e, EBFQ_REMEMBER);
	serve(test, &root, 0, 64, true);
	EXPECT_SD_SOUND(test, &root);

	/* An active queue moves to B: B becomes busy, A keeps q2. */
	ebfq_entity_move(&q1.e, &bsd);
	KUNIT_EXPECT_PTR_EQ(test, q1.e.sd, &bsd);
	KUNIT_EXPECT_EQ(test, q1.e.where, EBFQ_ACTIVE);
	KUNIT_EXPECT_EQ(test, q1.e.budget, 64UL);
	KUNIT_EXPECT_EQ(test, gb.e.where, EBFQ_ACTIVE);
	KUNIT_EXPECT_EQ(test, ga.e.where, EBFQ_ACTIVE);
	EXPECT_SD_SOUND(test, &root);

	/* The last one leaves A: A is no longer active. */
	ebfq_entity_move(&q2.e, &bsd);
	KUNIT_EXPECT_NE(test, ga.e.where, EBFQ_ACTIVE);
	EXPECT_SD_SOUND(test, &root);
	for (i = 0; i < 100; i++)
		KUNIT_EXPECT_PTR_EQ(test, serve(test, &root, 0, 64, true)->e.sd,
				    &bsd);
	EXPECT_SD_SOUND(test, &root);

	/*
	 * An idle queue forgets, an unknown one only changes scheduler. q2
	 * goes idle owed far more than its lag: its finish stays ahead of V.
	 */
	for (;;) {
		struct ebfq_entity *e = ebfq_sd_select(&root, 0);

		KUNIT_ASSERT_NOT_NULL(test, e);
		ebfq_entity_charge(e, e == &q2.e ? 6400 : 64, 0);
		ebfq_entity_expire(e, e != &q2.e);
		if (e == &q2.e)
			break;
	}
	KUNIT_EXPECT_EQ(test, q2.e.where, EBFQ_IDLE);
	ebfq_entity_move(&q2.e, &asd);
	KUNIT_EXPECT_EQ(test, q2.e.where, EBFQ_NOWHERE);
	ebfq_entity_move(&q2.e, &bsd);
	KUNIT_EXPECT_PTR_EQ(test, q2.e.sd, &bsd);
	EXPECT_SD_SOUND(test, &root);
	ebfq_entity_deactivate(&q1.e);

	for (i = 0; i < EBFQ_NR_CLASSES; i++)
		KUNIT_EXPECT_EQ(test, asd.tree[i].wsum + bsd.tree[i].wsum, 0UL);
	ebfq_sd_flush_idle(&asd);
	ebfq_sd_flush_idle(&bsd);
	ebfq_sd_flush_idle(&root);
	KUNIT_EXPECT_EQ(test, q1.holds, q1.forgets);
	KUNIT_EXPECT_EQ(test, q2.holds, q2.forgets);
	KUNIT_EXPECT_EQ(test, ga.holds, ga.forgets);
	KUNIT_EXPECT_EQ(test, gb.holds, gb.forgets);
}

/*
 * A group with only idle-class work that must still wait is not left in
 * service: it goes back among its peers, and the wait is reported.
 */
static void ebfq_test_group_idle_class(struct kunit *test)
{
	struct ebfq_sched_data root, gsd;
	struct test_entity group, idle;
	u64 now = 10 * EBFQ_IDLE_CLASS_GRACE_NS;

	ebfq_sd_init(&root, NULL);
	te_init(&group, &root, 100, EBFQ_CLASS_BE, 64);
	ebfq_sd_init(&gsd, &group.e);
	te_init(&idle, &gsd, 10, EBFQ_CLASS_IDLE, 64);
	gsd.busy_class_served_ns = now;
	gsd.idle_class_served_ns = now;

	ebfq_entity_activate(&idle.e, EBFQ_REMEMBER);
	KUNIT_EXPECT_NULL(test, ebfq_sd_select(&root, now));
	KUNIT_EXPECT_EQ(test, root.idle_class_wait_ns,
			(u64)EBFQ_IDLE_CLASS_GRACE_NS);
	KUNIT_EXPECT_NULL(test, root.in_service);
	KUNIT_EXPECT_EQ(test, group.e.where, EBFQ_ACTIVE);
	EXPECT_SD_SOUND(test, &root);

	now += EBFQ_IDLE_CLASS_GRACE_NS;
	KUNIT_EXPECT_PTR_EQ(test, ebfq_sd_select(&root, now), &idle.e);
	ebfq_entity_charge(&idle.e, 64, now);
	ebfq_entity_expire(&idle.e, false);
	ebfq_sd_flush_idle(&gsd);
	ebfq_sd_flush_idle(&root);
	KUNIT_EXPECT_EQ(test, group.holds, group.forgets);
}

/*
 * The reference for ebfq_entity_asymmetric(): a walk of every idle tree
 * from @entity's level up, entity by entity.
 */
static bool reference_asymmetric(const struct ebfq_entity *entity)
{
	for (; entity; entity = entity->sd->owner) {
		unsigned int i;

		for (i = 0; i < EBFQ_NR_CLASSES; i++) {
			struct rb_node *node;

			for (node = rb_first_cached(&entity->sd->tree[i].idle);
			     node; node = rb_next(node)) {
				const struct ebfq_entity *other =
					rb_entry(node, struct ebfq_entity, node);

				if (i != entity->class_idx ||
				    other->weight != entity->weight ||
				    other->child_sd || entity->child_sd)
					return true;
			}
		}
	}
	return false;
}

/*
 * Queues of two weights and two classes, in the root and in a group, come
 * and go at random: whether the one in service is unlike anyone served
 * lately is always what a walk of the idle trees says, and both answers
 * occur.
 */
static void ebfq_test_asymmetric_reference(struct kunit *test)
{
	struct ebfq_sched_data root, gsd;
	struct test_entity *te = kunit_kcalloc(test, NR_TEST_ENTITIES,
					       sizeof(*te), GFP_KERNEL);
	struct test_entity group;
	unsigned int seen[2] = {};
	struct rnd_state rnd;
	int i, round;

	KUNIT_ASSERT_NOT_NULL(test, te);
	prandom_seed_state(&rnd, 0xa5);
	ebfq_sd_init(&root, NULL);
	te_init(&group, &root, 100, EBFQ_CLASS_BE, 256);
	ebfq_sd_init(&gsd, &group.e);
	for (i = 0; i < NR_TEST_ENTITIES; i++) {
		u32 r = prandom_u32_state(&rnd);

		te_init(&te[i], i < NR_TEST_ENTITIES / 3 ? &gsd : &root,
			r % 2 ? 100 : 200,
			r % 7 ? EBFQ_CLASS_BE : EBFQ_CLASS_RT,
			8 + (r >> 8) % 256);
	}

	for (round = 0; round < 4000; round++) {
		struct ebfq_entity *chosen;
		bool want;

		/* Arrivals are rare: idle trees fill up and drain. */
		random_arrivals(te, &rnd, 16);
		chosen = ebfq_sd_select(&root, 0);
		if (!chosen)
			continue;
		want = reference_asymmetric(chosen);
		KUNIT_EXPECT_EQ(test, ebfq_entity_asymmetric(chosen), want);
		seen[want]++;
		ebfq_entity_charge(chosen, 1 + prandom_u32_state(&rnd) % 64, 0);
		ebfq_entity_expire(chosen, prandom_u32_state(&rnd) % 3 == 0);
		if (round % 64 == 0)
			EXPECT_SD_SOUND(test, &root);
	}
	KUNIT_EXPECT_GT(test, seen[false], 0U);
	KUNIT_EXPECT_GT(test, seen[true], 0U);

	for (i = 0; i < NR_TEST_ENTITIES; i++)
		if (te[i].e.where == EBFQ_ACTIVE)
			ebfq_entity_deactivate(&te[i].e);
	ebfq_sd_flush_idle(&gsd);
	ebfq_sd_flush_idle(&root);
	EXPECT_SD_SOUND(test, &root);
	for (i = 0; i < EBFQ_NR_CLASSES; i++) {
		KUNIT_EXPECT_EQ(test, root.tree[i].nr_idle, 0U);
		KUNIT_EXPECT_EQ(test, root.tree[i].idle_wsq, 0ULL);
	}
	KUNIT_EXPECT_EQ(test, group.holds, group.forgets);
}

/* The checks themselves: each kind of damage is named. */
static void ebfq_test_check_detects(struct kunit *test)
{
	struct ebfq_sched_data sd;
	struct test_entity te[3];
	struct ebfq_service_tree *st = &sd.tree[EBFQ_CLASS_BE];
	struct ebfq_entity *e;
	int i;

	ebfq_sd_init(&sd, NULL);
	for (i = 0; i < 3; i++) {
		te_init(&te[i], &sd, 10 * (i + 1), EBFQ_CLASS_BE, 64);
		ebfq_entity_activate(&te[i].e, EBFQ_REMEMBER);
	}
	EXPECT_SD_SOUND(test, &sd);

	st->wsum++;
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, strstr(ebfq_sd_check(&sd) ?: "", "wsum"));
	st->wsum--;
	st->nr_active++;
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, strstr(ebfq_sd_check(&sd) ?: "", "nr_active"));
	st->nr_active--;
	e = rb_entry(st->active.rb_node, struct ebfq_entity, node);
	e->min_start++;
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, strstr(ebfq_sd_check(&sd) ?: "", "minimum"));
	e->min_start--;
	st->idle_wsq++;
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, strstr(ebfq_sd_check(&sd) ?: "", "idle tree's sums"));
	st->idle_wsq--;
	e->where = EBFQ_IDLE;
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, strstr(ebfq_sd_check(&sd) ?: "", "not active"));
	e->where = EBFQ_ACTIVE;
	EXPECT_SD_SOUND(test, &sd);

	e = ebfq_sd_select(&sd, 0);
	KUNIT_ASSERT_NOT_NULL(test, e);
	e->where = EBFQ_ACTIVE;
	KUNIT_EXPECT_NOT_ERR_OR_NULL(test, strstr(ebfq_sd_check(&sd) ?: "", "in service"));
	e->where = EBFQ_IN_SERVICE;
	ebfq_entity_charge(e, 64, 0);
	ebfq_entity_expire(e, false);
	EXPECT_SD_SOUND(test, &sd);

	for (i = 0; i < 3; i++)
		if (te[i].e.where == EBFQ_ACTIVE)
			ebfq_entity_deactivate(&te[i].e);
	ebfq_sd_flush_idle(&sd);
	EXPECT_SD_SOUND(test, &sd);
}

static void ebfq_test_budget_feedback(struct kunit *test)
{
	const unsigned long min = 64, max = 4096;
	struct rnd_state rnd;
	int i, reason;

	KUNIT_EXPECT_EQ(test, ebfq_budget_feedback(512, 512, EBFQ_EXP_BUDGET,
						   min, max), 1024UL);
	KUNIT_EXPECT_EQ(test, ebfq_budget_feedback(4000, 4000, EBFQ_EXP_BUDGET,
						   min, max), max);
	KUNIT_EXPECT_EQ(test, ebfq_budget_feedback(2048, 100, EBFQ_EXP_EMPTY,
						   min, max), 100UL);
	KUNIT_EXPECT_EQ(test, ebfq_budget_feedback(2048, 8, EBFQ_EXP_TOO_IDLE,
						   min, max), min);
	KUNIT_EXPECT_EQ(test, ebfq_budget_feedback(2048, 10, EBFQ_EXP_TIMEOUT,
						   min, max), 2048UL);

	prandom_seed_state(&rnd, 42);
	for (i = 0; i < 10000; i++) {
		unsigned long budget = prandom_u32_state(&rnd);
		unsigned long service = prandom_u32_state(&rnd);
		unsigned long next;

		reason = prandom_u32_state(&rnd) % EBFQ_NR_EXPIRE_REASONS;
		next = ebfq_budget_feedback(budget, service, reason, min, max);
		KUNIT_EXPECT_GE(test, next, min);
		KUNIT_EXPECT_LE(test, next, max);
	}
}

static void ebfq_test_vt_compare(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, ebfq_vt_before(U64_MAX, 0));
	KUNIT_EXPECT_TRUE(test, ebfq_vt_after(1, U64_MAX - 1));
	KUNIT_EXPECT_EQ(test, ebfq_vt_max(U64_MAX, 5), 5ULL);
	KUNIT_EXPECT_EQ(test, ebfq_vt_min(U64_MAX, 5), U64_MAX);
	KUNIT_EXPECT_EQ(test, ebfq_vt_delta(8, 1), 8ULL << EBFQ_VT_SHIFT);
	KUNIT_EXPECT_EQ(test, ebfq_vt_delta(8, 8), 1ULL << EBFQ_VT_SHIFT);
}

/* However it divides, ebfq_vt_delta() is the exact quotient. */
static void ebfq_test_vt_delta(struct kunit *test)
{
	static const unsigned int weights[] = {
		1, 3, 100, 4095, 4096, 4097, 30000, 65535, 1U << 20, U32_MAX,
	};
	struct rnd_state rnd;
	int i, j;

	prandom_seed_state(&rnd, 7);
	for (i = 0; i < 20000; i++) {
		unsigned long sectors = prandom_u32_state(&rnd) >> (i % 32);
		/* At least 1, as every weight is. */
		unsigned int weight = i < 10000 ? weights[i % ARRAY_SIZE(weights)] :
				      (prandom_u32_state(&rnd) >> (i % 32)) ?: 1;

		KUNIT_EXPECT_EQ(test, ebfq_vt_delta(sectors, weight),
				div64_u64((u64)sectors << EBFQ_VT_SHIFT, weight));
	}
	for (j = 0; j < ARRAY_SIZE(weights); j++) {
		KUNIT_EXPECT_EQ(test, ebfq_vt_delta(ULONG_MAX, weights[j]),
				div64_u64((u64)ULONG_MAX << EBFQ_VT_SHIFT,
					  weights[j]));
		KUNIT_EXPECT_EQ(test, ebfq_vt_delta(weights[j] - 1, weights[j]),
				div64_u64((u64)(weights[j] - 1) << EBFQ_VT_SHIFT,
					  weights[j]));
	}
}

static struct kunit_case ebfq_wf2q_cases[] = {
	KUNIT_CASE(ebfq_test_vt_compare),
	KUNIT_CASE(ebfq_test_vt_delta),
	KUNIT_CASE(ebfq_test_selection_reference),
	KUNIT_CASE(ebfq_test_selection_wraparound),
	KUNIT_CASE(ebfq_test_shares),
	KUNIT_CASE(ebfq_test_shares_wraparound),
	KUNIT_CASE(ebfq_test_idle_tree),
	KUNIT_CASE(ebfq_test_all_idle_keeps_history),
	KUNIT_CASE(ebfq_test_fresh_start),
	KUNIT_CASE(ebfq_test_surcharge),
	KUNIT_CASE(ebfq_test_out_of_turn),
	KUNIT_CASE(ebfq_test_out_of_turn_groups),
	KUNIT_CASE(ebfq_test_fresh_groups),
	KUNIT_CASE(ebfq_test_eligible),
	KUNIT_CASE(ebfq_test_classes),
	KUNIT_CASE(ebfq_test_weight_change),
	KUNIT_CASE(ebfq_test_hierarchy),
	KUNIT_CASE(ebfq_test_move),
	KUNIT_CASE(ebfq_test_group_idle_class),
	KUNIT_CASE(ebfq_test_asymmetric_reference),
	KUNIT_CASE(ebfq_test_budget_feedback),
	KUNIT_CASE(ebfq_test_check_detects),
	{}
};

static struct kunit_suite ebfq_wf2q_suite = {
	.name = "ebfq-wf2q",
	.test_cases = ebfq_wf2q_cases,
};

kunit_test_suite(ebfq_wf2q_suite);
