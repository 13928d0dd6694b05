// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite of ebfq's responsiveness arithmetic (ebfq-wr.c): how long
 * raising lasts, the soft real-time rule, what a slow turn is charged, the
 * peak-rate filter, the write window, how groups scale what makes a
 * streamer, and which groups were served lately.
 */
#include <kunit/test.h>
#include <linux/prandom.h>

#include "ebfq-iosched.h"

#define MS(x)	((u64)(x) * NSEC_PER_MSEC)

static void ebfq_test_wr_duration(struct kunit *test)
{
	u64 slow, fast;

	/* An explicit wr_max_time wins. */
	KUNIT_EXPECT_EQ(test, ebfq_wr_duration_ns(50000, 1234), MS(1234));

	/* A slower device raises longer, within [2 s, 20 s]. */
	slow = ebfq_wr_duration_ns(20000, 0);
	fast = ebfq_wr_duration_ns(50000, 0);
	KUNIT_EXPECT_GT(test, slow, fast);
	KUNIT_EXPECT_EQ(test, ebfq_wr_duration_ns(1, 0), MS(20000));
	KUNIT_EXPECT_EQ(test, ebfq_wr_duration_ns(1ULL << 40, 0), MS(2000));
	/* 64 MiB at 25 MB/s (48828 sectors/s), three times over: ~8 s. */
	KUNIT_EXPECT_GE(test, ebfq_wr_duration_ns(48828, 0), MS(8000));
	KUNIT_EXPECT_LE(test, ebfq_wr_duration_ns(48828, 0), MS(8100));
	/* Not measured yet: a default, not a division by zero. */
	KUNIT_EXPECT_GT(test, ebfq_wr_duration_ns(0, 0), 0ULL);
}

static void ebfq_test_softrt_rule(struct kunit *test)
{
	u64 t0 = MS(1000);

	/* 512 sectors at 16384 sectors/s: back no earlier than 31.25 ms. */
	KUNIT_EXPECT_EQ(test, ebfq_softrt_next_start(t0, 512, 16384, t0 + MS(11),
						     MS(12)),
			t0 + 31250000ULL);
	/* Tiny bursts: still idle longer than idling waits (8 + 4 ms). */
	KUNIT_EXPECT_EQ(test, ebfq_softrt_next_start(t0, 8, 16384, t0 + MS(1),
						     MS(12)),
			t0 + MS(13));
	/* A streamer's busy period pushes its next start far away. */
	KUNIT_EXPECT_GT(test, ebfq_softrt_next_start(t0, 1 << 20, 16384, t0,
						     MS(12)),
			t0 + MS(60000));
	/* A zero rate cannot divide by zero. */
	KUNIT_EXPECT_GT(test, ebfq_softrt_next_start(t0, 1, 0, t0, MS(12)), t0);
}

/*
 * A soft-RT queue stays one while its average rate holds: a player of 512
 * sectors every 40 ms (12800 sectors/s, under 16384) whose wake-ups and
 * chunks come late keeps it; a faster stream loses it within the slack.
 */
static void ebfq_test_softrt_kept(struct kunit *test)
{
	const u64 period = MS(40), slack = MS(100), t0 = MS(1000);
	const u64 lateness[] = { 0, 25, 0, 60, 0, 0, 90, 3, 0, 0 };
	u64 next = 0, arrival, prev = t0;
	unsigned int i, n;

	/* A new soft-RT queue's clock (0) starts @slack before it came. */
	KUNIT_EXPECT_EQ(test, ebfq_softrt_next_kept(0, t0, 512, 16384, slack),
			t0 - slack + 31250000ULL);
	/* The clock does not go back, and does not underflow. */
	KUNIT_EXPECT_EQ(test, ebfq_softrt_next_kept(t0, MS(1), 0, 16384, slack),
			t0);
	KUNIT_EXPECT_EQ(test, ebfq_softrt_next_kept(0, MS(1), 16384, 16384,
						    slack),
			(u64)NSEC_PER_SEC);

	/*
	 * A late chunk makes the next one start at once (when the late one
	 * is in, at prev + its read time), never before its due time.
	 */
	for (i = 0; i < 40; i++) {
		u64 due = t0 + i * period;

		arrival = max(due + MS(lateness[i % ARRAY_SIZE(lateness)]),
			      prev + MS(12));
		KUNIT_EXPECT_GE_MSG(test, arrival, next, "chunk %u", i);
		next = ebfq_softrt_next_kept(next, arrival, 512, 16384, slack);
		prev = arrival;
	}

	/* 512 sectors every 12 ms (42667 sectors/s) runs out of slack. */
	next = 0;
	for (n = 0, arrival = t0; arrival >= next && n < 100; n++) {
		next = ebfq_softrt_next_kept(next, arrival, 512, 16384, slack);
		arrival += MS(12);
	}
	KUNIT_EXPECT_LE(test, n, 8U);
}

static void ebfq_test_time_charge(struct kunit *test)
{
	const unsigned long max_budget = 6000;
	const u64 peak = 48000;	/* sectors/s */
	struct rnd_state rnd;
	int i;

	/* Served at the peak rate: charged its sectors. */
	KUNIT_EXPECT_EQ(test, ebfq_time_charge(4800, 6000, max_budget, MS(100),
					       125, peak, EBFQ_EXP_EMPTY), 4800UL);
	/* At a tenth of it: charged its time, max_budget per timeout. */
	KUNIT_EXPECT_EQ(test, ebfq_time_charge(480, 6000, max_budget, MS(100),
					       125, peak, EBFQ_EXP_TOO_IDLE),
			4800UL);
	/* Too short a turn to judge. */
	KUNIT_EXPECT_EQ(test, ebfq_time_charge(8, 6000, max_budget, MS(5),
					       125, peak, EBFQ_EXP_EMPTY), 8UL);
	/* Timed out with more than a third of its budget left. */
	KUNIT_EXPECT_EQ(test, ebfq_time_charge(3000, 6000, max_budget, MS(125),
					       125, 0, EBFQ_EXP_TIMEOUT),
			max_budget);
	/* Timed out having used most of it: its sectors. */
	KUNIT_EXPECT_EQ(test, ebfq_time_charge(5000, 6000, max_budget, MS(125),
					       125, 0, EBFQ_EXP_TIMEOUT), 5000UL);
	/* A turn held far too long is charged at most twice the timeout. */
	KUNIT_EXPECT_EQ(test, ebfq_time_charge(1, 6000, max_budget, MS(10000),
					       125, peak, EBFQ_EXP_TOO_IDLE),
			2 * max_budget);

	/* Never less than the service, whatever the inputs. */
	prandom_seed_state(&rnd, 7);
	for (i = 0; i < 10000; i++) {
		unsigned long service = prandom_u32_state(&rnd) % (1 << 20);
		unsigned long budget = prandom_u32_state(&rnd) % (1 << 20);
		u64 elapsed = prandom_u32_state(&rnd) * 100ULL;
		unsigned int timeout = prandom_u32_state(&rnd) % 1000;
		u64 rate = prandom_u32_state(&rnd) % (1 << 22);
		enum ebfq_expire_reason reason =
			prandom_u32_state(&rnd) % EBFQ_NR_EXPIRE_REASONS;

		KUNIT_EXPECT_GE(test, ebfq_time_charge(service, budget,
						       max_budget, elapsed,
						       timeout, rate, reason),
				service);
	}
}

static void ebfq_test_rate_filter(struct kunit *test)
{
	u64 rate = 0;
	int i;

	/* The first sample is taken as it is. */
	KUNIT_EXPECT_EQ(test, ebfq_rate_filter(0, 40000), 40000ULL);
	/* Up fast, down slowly. */
	KUNIT_EXPECT_EQ(test, ebfq_rate_filter(40000, 80000), 70000ULL);
	KUNIT_EXPECT_EQ(test, ebfq_rate_filter(80000, 0), 70000ULL);

	/* A steady rate is converged on, from above and from below. */
	for (i = 0; i < 100; i++)
		rate = ebfq_rate_filter(rate ?: 1, 50000);
	KUNIT_EXPECT_GE(test, rate, 49900ULL);
	KUNIT_EXPECT_LE(test, rate, 50000ULL);
	for (i = 0, rate = 200000; i < 100; i++)
		rate = ebfq_rate_filter(rate, 50000);
	KUNIT_EXPECT_LE(test, rate, 50100ULL);
}

static void ebfq_test_write_window(struct kunit *test)
{
	/* 16 ms of writes, at 20480 sectors/s until a rate is measured. */
	KUNIT_EXPECT_EQ(test, ebfq_write_window(0, 0), 327UL);
	KUNIT_EXPECT_EQ(test, ebfq_write_window(52000, 0), 832UL);
	/*
	 * A flood of writes after a burst: the peak is still 11 times what
	 * the device sustains, and the last window's rate counts.
	 */
	KUNIT_EXPECT_EQ(test, ebfq_write_window(600000, 52000), 832UL);
	/* A burst's window does not widen it past the peak either. */
	KUNIT_EXPECT_EQ(test, ebfq_write_window(52000, 600000), 832UL);
	/* A slow card still takes 128 KiB of writes at a time. */
	KUNIT_EXPECT_EQ(test, ebfq_write_window(4000, 2000), 256UL);
}

#ifdef CONFIG_IOSCHED_EBFQ_CGROUP
static void ebfq_test_group_scale(struct kunit *test)
{
	struct ebfq_group *top, *child;

	top = kunit_kzalloc(test, sizeof(*top), GFP_KERNEL);
	child = kunit_kzalloc(test, sizeof(*child), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, top);
	KUNIT_ASSERT_NOT_NULL(test, child);
	child->parent = top;

	/* The root's queues, and groups of the default weight: unscaled. */
	KUNIT_EXPECT_EQ(test, ebfq_group_scale(NULL, 262144), 262144UL);
	top->weight = EBFQ_GROUP_WEIGHT_DEFAULT;
	child->weight = EBFQ_GROUP_WEIGHT_DEFAULT;
	KUNIT_EXPECT_EQ(test, ebfq_group_scale(child, 262144), 262144UL);

	/* Every level's weight counts: 400 then 50 is twice the default. */
	top->weight = 400;
	KUNIT_EXPECT_EQ(test, ebfq_group_scale(top, 262144), 4 * 262144UL);
	child->weight = 50;
	KUNIT_EXPECT_EQ(test, ebfq_group_scale(child, 262144), 2 * 262144UL);

	/* The extremes neither overflow nor reach zero by accident. */
	top->weight = EBFQ_GROUP_WEIGHT_MAX;
	child->weight = EBFQ_GROUP_WEIGHT_MAX;
	KUNIT_EXPECT_EQ(test, ebfq_group_scale(child, ULONG_MAX),
			(unsigned long)U32_MAX);
	top->weight = EBFQ_GROUP_WEIGHT_MIN;
	child->weight = EBFQ_GROUP_WEIGHT_MIN;
	KUNIT_EXPECT_EQ(test, ebfq_group_scale(child, 262144), 26UL);
}

/*
 * Dispatches of the root's queues and of three groups, in random order:
 * whether a group besides one dispatched lately is what the last
 * dispatch of every group says.
 */
static void ebfq_test_other_group_served(struct kunit *test)
{
	struct ebfq_data *ed = kunit_kzalloc(test, sizeof(*ed), GFP_KERNEL);
	struct ebfq_group *groups = kunit_kcalloc(test, 3, sizeof(*groups),
						  GFP_KERNEL);
	u64 last[4] = {}, now = MS(1000);
	unsigned int seen[2] = {};
	struct ebfq_group *bg;
	struct rnd_state rnd;
	bool served, want;
	int i, g, h;

	KUNIT_ASSERT_NOT_NULL(test, ed);
	KUNIT_ASSERT_NOT_NULL(test, groups);
	spin_lock_init(&ed->lock);
	prandom_seed_state(&rnd, 3);

	for (i = 0; i < 5000; i++) {
		u64 since = now - MS(prandom_u32_state(&rnd) % 50);

		/* Slot 0 is the root's queues, group NULL. */
		g = prandom_u32_state(&rnd) % 4;
		bg = g ? &groups[g - 1] : NULL;
		now += MS(prandom_u32_state(&rnd) % 8);
		ebfq_group_dispatched(ed, bg, now);
		last[g] = now;

		g = prandom_u32_state(&rnd) % 4;
		bg = g ? &groups[g - 1] : NULL;
		spin_lock_irq(&ed->lock);
		served = ebfq_other_group_served(ed, bg, since);
		spin_unlock_irq(&ed->lock);
		for (h = 0, want = false; h < 4; h++)
			want |= h != g && last[h] > since;
		KUNIT_EXPECT_EQ(test, served, want);
		seen[want]++;
	}
	KUNIT_EXPECT_GT(test, seen[false], 0U);
	KUNIT_EXPECT_GT(test, seen[true], 0U);
}
#endif

/*
 * Births, each @gap ms after the one before, of a queue of family
 * @family: whether each joins a large burst.
 */
struct ebfq_test_birth {
	unsigned int gap_ms;
	pid_t family;
	bool large;
};

static void ebfq_test_bursts(struct kunit *test)
{
	static const struct ebfq_test_birth births[] = {
		/* A batch forked at once: the 8th makes it large. */
		{ 0, 10 }, { 5, 10 }, { 5, 10 }, { 5, 10 },
		{ 5, 10 }, { 5, 10 }, { 5, 10 }, { 5, 10, true },
		/* A worker forked late, on a slow CPU, still belongs. */
		{ 600, 10, true },
		/*
		 * A stranger that late starts a burst of its own. Kin of the
		 * queue before join it half a second on; a stranger does not
		 * 300 ms on, nor does kin 1.1 s on.
		 */
		{ 2000, 20 }, { 5, 30 }, { 5, 30 }, { 500, 30 },
		{ 300, 40 }, { 1100, 40 },
		/* Strangers close together are a burst, kin or not... */
		{ 2000, 50 }, { 100, 60 }, { 100, 70 }, { 100, 80 },
		{ 100, 90 }, { 100, 100 }, { 100, 110 }, { 100, 120, true },
		/* ... and whoever follows closely joins it. */
		{ 150, 130, true },
	};
	struct ebfq_data *ed = kunit_kzalloc(test, sizeof(*ed), GFP_KERNEL);
	struct ebfq_queue *bq = kunit_kcalloc(test, ARRAY_SIZE(births),
					      sizeof(*bq), GFP_KERNEL);
	u64 now = MS(1000);
	unsigned int i, j;
	bool large;

	KUNIT_ASSERT_NOT_NULL(test, ed);
	KUNIT_ASSERT_NOT_NULL(test, bq);
	spin_lock_init(&ed->lock);
	INIT_LIST_HEAD(&ed->all_queues);
	INIT_LIST_HEAD(&ed->wr_queues);

	for (i = 0; i < ARRAY_SIZE(births); i++) {
		now += MS(births[i].gap_ms);
		bq[i].family = births[i].family;
		INIT_LIST_HEAD(&bq[i].wr_node);
		list_add_tail(&bq[i].all_node, &ed->all_queues);
		spin_lock_irq(&ed->lock);
		large = ebfq_burst_join(ed, &bq[i], now);
		spin_unlock_irq(&ed->lock);
		KUNIT_EXPECT_EQ_MSG(test, large, births[i].large, "birth %u", i);
	}
	/* A burst that grows large takes its first members along. */
	for (i = 0; i < ARRAY_SIZE(births); i++) {
		large = false;
		for (j = 0; j < ARRAY_SIZE(births); j++)
			large |= births[j].large &&
				 bq[j].burst_id == bq[i].burst_id;
		KUNIT_EXPECT_EQ_MSG(test,
				    test_bit(EBFQ_QF_LARGE_BURST, &bq[i].flags),
				    large, "queue %u", i);
	}
	KUNIT_EXPECT_EQ(test, ed->large_bursts, 2UL);
}

static struct kunit_case ebfq_wr_cases[] = {
	KUNIT_CASE(ebfq_test_wr_duration),
	KUNIT_CASE(ebfq_test_softrt_rule),
	KUNIT_CASE(ebfq_test_softrt_kept),
	KUNIT_CASE(ebfq_test_time_charge),
	KUNIT_CASE(ebfq_test_rate_filter),
	KUNIT_CASE(ebfq_test_write_window),
	KUNIT_CASE(ebfq_test_bursts),
#ifdef CONFIG_IOSCHED_EBFQ_CGROUP
	KUNIT_CASE(ebfq_test_group_scale),
	KUNIT_CASE(ebfq_test_other_group_served),
#endif
	{}
};

static struct kunit_suite ebfq_wr_suite = {
	.name = "ebfq-wr",
	.test_cases = ebfq_wr_cases,
};

kunit_test_suite(ebfq_wr_suite);
