// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the GPIO challenge-and-response I2C arbitrator.
 *
 * i2c_arb_claim runs the claim protocol against scripted other masters and
 * a virtual clock, so its timing is checked exactly. i2c_arb_probe binds
 * the driver to software nodes over a fake GPIO chip and a fake parent
 * adapter, and checks what probe refuses and what the claim lines do
 * around a real transfer.
 */

#include <kunit/test.h>
#include <linux/device.h>
#include <linux/gpio/driver.h>
#include <linux/gpio/machine.h>
#include <linux/gpio/property.h>
#include <linux/i2c.h>
#include <linux/platform_device.h>
#include <linux/property.h>

#include "../i2c-arb-gpio-challenge.h"

#define FAKE_OTHERS	8
#define FOREVER		U64_MAX

/* A bus as the claim protocol sees it, with the other masters scripted. */
struct fake_bus {
	u64 now;
	bool claimed;
	unsigned int asserts;
	unsigned int releases;
	unsigned int looks;
	u64 last_assert;
	u64 last_release;
	u64 first_release;
	u64 shortest_slew;	/* from an assert to the look that follows */
	u64 shortest_backoff;	/* from a release to the next assert */
	u64 longest_backoff;
	u64 longest_round;	/* from an assert to the release that follows */
	u64 stall_after_assert;	/* once: we are not running for this long */
	bool looked_unclaimed;
	int look_error;
	u64 held_from[FAKE_OTHERS];	/* other i claims from this time... */
	u64 held_until[FAKE_OTHERS];	/* ...while now < this */
	struct i2c_arb_history hist;
};

static int fake_set_claim(void *ctx, bool assert)
{
	struct fake_bus *b = ctx;

	if (assert && !b->claimed) {
		if (b->asserts) {
			b->shortest_backoff = min(b->shortest_backoff,
						  b->now - b->last_release);
			b->longest_backoff = max(b->longest_backoff,
						 b->now - b->last_release);
		}
		b->asserts++;
		b->last_assert = b->now;
		b->now += b->stall_after_assert;
		b->stall_after_assert = 0;
	} else if (!assert && b->claimed) {
		b->longest_round = max(b->longest_round, b->now - b->last_assert);
		if (!b->releases)
			b->first_release = b->now;
		b->releases++;
		b->last_release = b->now;
	}
	b->claimed = assert;
	return 0;
}

static int fake_others_claim(void *ctx)
{
	struct fake_bus *b = ctx;
	int i, n = 0;

	b->looks++;
	b->shortest_slew = min(b->shortest_slew, b->now - b->last_assert);
	if (!b->claimed)
		b->looked_unclaimed = true;
	if (b->look_error)
		return b->look_error;
	for (i = 0; i < FAKE_OTHERS; i++)
		n += b->now >= b->held_from[i] && b->now < b->held_until[i];
	return n;
}

static u64 fake_now_us(void *ctx)
{
	return ((struct fake_bus *)ctx)->now;
}

static void fake_wait_us(void *ctx, u32 us)
{
	((struct fake_bus *)ctx)->now += us;
}

static const struct i2c_arb_bus_ops fake_ops = {
	.set_claim = fake_set_claim,
	.others_claim = fake_others_claim,
	.now_us = fake_now_us,
	.wait_us = fake_wait_us,
};

static const struct i2c_arb_timing binding_defaults = {
	.slew_us = 10, .retry_us = 3000, .free_us = 50000,
};

static int claim_init(struct kunit *test)
{
	struct fake_bus *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	/* Start the clock away from zero so no bound holds by accident. */
	b->now = 1000000;
	b->shortest_slew = FOREVER;
	b->shortest_backoff = FOREVER;
	test->priv = b;
	return 0;
}

/* A free bus is won at the first look, right after one slew time. */
static void claim_of_free_bus_wins_after_one_slew(struct kunit *test)
{
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;

	KUNIT_EXPECT_EQ(test, i2c_arb_claim(&binding_defaults, &fake_ops, b, &b->hist, &res), 0);
	KUNIT_EXPECT_TRUE(test, b->claimed);
	KUNIT_EXPECT_EQ(test, b->asserts, 1);
	KUNIT_EXPECT_EQ(test, b->looks, 1);
	KUNIT_EXPECT_EQ(test, res.waited_us, 10);
	KUNIT_EXPECT_FALSE(test, res.contended);
	KUNIT_EXPECT_EQ(test, res.backoffs, 0);
}

/* A holder that lets go within wait-retry is waited for without backing off. */
static void claim_waits_for_holder_released_within_retry(struct kunit *test)
{
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;

	b->held_until[0] = b->now + 1200;
	KUNIT_EXPECT_EQ(test, i2c_arb_claim(&binding_defaults, &fake_ops, b, &b->hist, &res), 0);
	KUNIT_EXPECT_EQ(test, b->asserts, 1);
	KUNIT_EXPECT_EQ(test, res.backoffs, 0);
	KUNIT_EXPECT_TRUE(test, res.contended);
	KUNIT_EXPECT_GE(test, res.waited_us, 1200);
	KUNIT_EXPECT_LE(test, res.waited_us, 1200 + I2C_ARB_POLL_US);
}

/*
 * A holder that keeps the bus across several rounds makes us back off each
 * time, with our claim released and for between one and two wait-retry.
 */
static void claim_backs_off_across_several_retries(struct kunit *test)
{
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;
	u64 start = b->now;

	b->held_until[0] = start + 20000;
	KUNIT_EXPECT_EQ(test, i2c_arb_claim(&binding_defaults, &fake_ops, b, &b->hist, &res), 0);
	KUNIT_EXPECT_GE(test, b->now, start + 20000);
	/*
	 * A first round of 3 ms, a back-off of 3 to 6 ms, then rounds of 3 ms
	 * plus the claim's age: one or two back-offs.
	 */
	KUNIT_EXPECT_GE(test, res.backoffs, 1);
	KUNIT_EXPECT_LE(test, res.backoffs, 2);
	KUNIT_EXPECT_EQ(test, b->releases, res.backoffs);
	KUNIT_EXPECT_EQ(test, b->asserts, res.backoffs + 1);
	KUNIT_EXPECT_GE(test, b->shortest_backoff, 3000);
	KUNIT_EXPECT_LE(test, b->longest_backoff, 6000);
	KUNIT_EXPECT_FALSE(test, b->looked_unclaimed);
}

/*
 * A bus never released fails with -EBUSY at wait-free, not before; the
 * rounds grow with the claim's age: the second lasts at least wait-retry
 * plus the first round and back-off.
 */
static void claim_of_bus_never_released_fails_at_wait_free(struct kunit *test)
{
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;

	b->held_until[0] = FOREVER;
	KUNIT_EXPECT_EQ(test, i2c_arb_claim(&binding_defaults, &fake_ops, b, &b->hist, &res),
			-EBUSY);
	KUNIT_EXPECT_GE(test, res.waited_us, 50000);
	KUNIT_EXPECT_LE(test, res.waited_us, 50000 + 10 + I2C_ARB_POLL_US);
	KUNIT_EXPECT_FALSE(test, b->claimed);
	KUNIT_EXPECT_TRUE(test, res.contended);
	KUNIT_EXPECT_GE(test, b->longest_round, 3000 + 3000 + 3000);
}

/* An uncontended claim and its release; returns when the claim was dropped. */
static u64 claim_and_release(struct kunit *test)
{
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;

	KUNIT_ASSERT_EQ(test, i2c_arb_claim(&binding_defaults, &fake_ops, b, &b->hist, &res), 0);
	KUNIT_ASSERT_FALSE(test, res.contended);
	KUNIT_ASSERT_EQ(test, i2c_arb_release(&binding_defaults, &fake_ops, b, &b->hist), 0);
	return b->last_release;
}

/*
 * Claiming again right after our release while a waiter's claim is
 * asserted: we stay off the wires as long as it is, so the waiter gets the
 * bus.
 */
static void claim_after_release_yields_to_waiter(struct kunit *test)
{
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;
	u64 released;

	released = claim_and_release(test);
	/* The waiter notices the release, then holds the bus for 1.5 ms. */
	b->held_until[2] = released + 1500;
	b->looks = 0;
	KUNIT_EXPECT_EQ(test, i2c_arb_claim(&binding_defaults, &fake_ops, b, &b->hist, &res), 0);
	KUNIT_EXPECT_GE(test, b->last_assert, released + 1500);
	KUNIT_EXPECT_LE(test, b->last_assert, released + 1500 + I2C_ARB_POLL_US);
	KUNIT_EXPECT_EQ(test, res.backoffs, 0);
	KUNIT_EXPECT_TRUE(test, res.contended);
	KUNIT_EXPECT_GE(test, res.held_off_us, 1500 - 10);
}

/*
 * With nobody else claiming and no turn owed, we claim again right after
 * the release's slew, as the seed does: an uncontended bus pays nothing
 * for the hold-off.
 */
static void claim_after_release_with_nobody_waiting_comes_back_at_once(struct kunit *test)
{
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;
	u64 released;

	released = claim_and_release(test);
	KUNIT_EXPECT_EQ(test, i2c_arb_claim(&binding_defaults, &fake_ops, b, &b->hist, &res), 0);
	KUNIT_EXPECT_EQ(test, b->last_assert, released + 10);
	KUNIT_EXPECT_EQ(test, res.held_off_us, 0);
	KUNIT_EXPECT_FALSE(test, res.contended);
}

/*
 * A claim long after our release looks at once: the idle time between is
 * no gap between looks (it would count a later -EBUSY as stalled).
 */
static void claim_long_after_release_reports_no_look_gap(struct kunit *test)
{
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;

	claim_and_release(test);
	b->now += 1000000;
	KUNIT_EXPECT_EQ(test, i2c_arb_claim(&binding_defaults, &fake_ops, b, &b->hist, &res), 0);
	KUNIT_EXPECT_LT(test, res.look_gap_us, I2C_ARB_POLL_US);
}

/*
 * A claim asserted when we come back, even one let go at once, gets at
 * least 2 * slew + one poll after our release to see it and take the bus.
 */
static void claim_after_release_gives_a_waiter_two_slews_and_a_poll(struct kunit *test)
{
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;
	u64 released;

	released = claim_and_release(test);
	b->held_until[3] = released + 15;
	KUNIT_EXPECT_EQ(test, i2c_arb_claim(&binding_defaults, &fake_ops, b, &b->hist, &res), 0);
	KUNIT_EXPECT_EQ(test, b->last_assert, released + 2 * 10 + I2C_ARB_POLL_US);
	KUNIT_EXPECT_TRUE(test, res.contended);
}

/*
 * A claim that never goes away is yielded to for three wait-retry only:
 * then we claim too (and fail at wait-free, counted from our claim's start).
 */
static void claim_after_release_yields_for_three_wait_retry_only(struct kunit *test)
{
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;
	u64 released, start;

	released = claim_and_release(test);
	b->held_until[0] = FOREVER;
	b->asserts = 0;
	start = b->now;
	KUNIT_EXPECT_EQ(test, i2c_arb_claim(&binding_defaults, &fake_ops, b, &b->hist, &res),
			-EBUSY);
	KUNIT_EXPECT_GT(test, b->asserts, 0);
	KUNIT_EXPECT_GE(test, res.held_off_us, 3 * 3000 - 10);
	KUNIT_EXPECT_LE(test, res.held_off_us, 3 * 3000 + I2C_ARB_POLL_US);
	KUNIT_EXPECT_GE(test, res.waited_us, 50000);
	KUNIT_EXPECT_LE(test, b->now - start, 50000 + 10 + I2C_ARB_POLL_US);
	KUNIT_EXPECT_GE(test, start, released);
}

/*
 * Two others claim; one lets go, the other does not: we are one of the
 * waiters of that release, the young one, and give up after two slews, two
 * polls and 1/32 of our age, not at the end of the round.
 */
static void claim_yields_when_a_release_leaves_others_claiming(struct kunit *test)
{
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;
	u64 start = b->now;

	b->held_until[0] = start + 1000;
	b->held_until[1] = FOREVER;
	KUNIT_EXPECT_EQ(test, i2c_arb_claim(&binding_defaults, &fake_ops, b, &b->hist, &res),
			-EBUSY);
	/* the release is seen within a poll; 20 + 100 + age / 32 after it */
	KUNIT_EXPECT_GE(test, b->first_release, start + 1000 + 120 + 1000 / 32);
	KUNIT_EXPECT_LE(test, b->first_release,
			start + 1000 + I2C_ARB_POLL_US + 120 + (1000 + I2C_ARB_POLL_US) / 32 +
			I2C_ARB_POLL_US);
}

/* A first claim that waits 0.5 ms for another master, then its release. */
static u64 claim_contended_and_release(struct kunit *test)
{
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;

	b->held_until[0] = b->now + 500;
	KUNIT_ASSERT_EQ(test, i2c_arb_claim(&binding_defaults, &fake_ops, b, &b->hist, &res), 0);
	KUNIT_ASSERT_TRUE(test, res.contended);
	KUNIT_ASSERT_EQ(test, i2c_arb_release(&binding_defaults, &fake_ops, b, &b->hist), 0);
	return b->last_release;
}

/*
 * After a release that another master contended for, we pass the turn: no
 * claim on the free bus until another claim is seen (here from 1 ms after
 * the release, for 0.8 ms), then none while it is asserted. Claiming 2 *
 * slew + one poll after the release, as before, took the bus from waiters
 * that hold off with their claims released, which nobody can see.
 */
static void claim_after_contended_release_passes_the_turn(struct kunit *test)
{
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;
	u64 released = claim_contended_and_release(test);
	u64 start = b->now;

	b->held_from[1] = released + 1000;
	b->held_until[1] = released + 1800;
	KUNIT_EXPECT_EQ(test, i2c_arb_claim(&binding_defaults, &fake_ops, b, &b->hist, &res), 0);
	KUNIT_EXPECT_GE(test, b->last_assert, released + 1800);
	KUNIT_EXPECT_LE(test, b->last_assert, released + 1800 + I2C_ARB_POLL_US);
	KUNIT_EXPECT_EQ(test, res.backoffs, 0);
	KUNIT_EXPECT_TRUE(test, res.contended);
	/* we did not look before 2 * slew + one poll after the release */
	KUNIT_EXPECT_GE(test, res.look_gap_us, released + 2 * 10 + I2C_ARB_POLL_US - start);
}

/*
 * Idle for 10 ms after a contended release, we still owe the turn, but had
 * no reason to look: that is no gap between looks, or a later -EBUSY of a
 * master that transfers every few ms would count as stalled.
 */
static void claim_owing_the_turn_reports_no_look_gap_for_the_idle_time(struct kunit *test)
{
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;

	claim_contended_and_release(test);
	b->now += 10000;
	KUNIT_EXPECT_EQ(test, i2c_arb_claim(&binding_defaults, &fake_ops, b, &b->hist, &res), 0);
	KUNIT_EXPECT_LT(test, res.look_gap_us, I2C_ARB_POLL_US);
}

/*
 * Nobody takes the turn we pass: we claim wait-retry-us after the release,
 * not before (a waiter that looks at least that often is not passed over)
 * and not a poll later.
 */
static void claim_after_contended_release_passes_for_wait_retry_only(struct kunit *test)
{
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;
	u64 released = claim_contended_and_release(test);

	KUNIT_EXPECT_EQ(test, i2c_arb_claim(&binding_defaults, &fake_ops, b, &b->hist, &res), 0);
	KUNIT_EXPECT_GE(test, b->last_assert, released + 3000);
	KUNIT_EXPECT_LE(test, b->last_assert, released + 3000 + I2C_ARB_POLL_US);
	KUNIT_EXPECT_FALSE(test, res.contended);
}

/*
 * The pass is for masters that others contended with within wait-free-us:
 * one left alone longer claims again right after its release's slew.
 */
static void claim_long_after_contention_does_not_pass(struct kunit *test)
{
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;
	u64 released;

	claim_contended_and_release(test);
	b->now += 50000;
	released = claim_and_release(test);
	KUNIT_EXPECT_EQ(test, i2c_arb_claim(&binding_defaults, &fake_ops, b, &b->hist, &res), 0);
	KUNIT_EXPECT_EQ(test, b->last_assert, released + 10);
}

/* Claiming as the seed does (a test switch): again right after the release. */
static void claim_with_seed_rounds_comes_back_at_once(struct kunit *test)
{
	struct i2c_arb_timing seed = binding_defaults;
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;
	u64 released;

	seed.seed_rounds = true;
	KUNIT_ASSERT_EQ(test, i2c_arb_claim(&seed, &fake_ops, b, &b->hist, &res), 0);
	KUNIT_ASSERT_EQ(test, i2c_arb_release(&seed, &fake_ops, b, &b->hist), 0);
	released = b->last_release;
	b->held_until[0] = FOREVER;
	KUNIT_EXPECT_EQ(test, i2c_arb_claim(&seed, &fake_ops, b, &b->hist, &res), -EBUSY);
	KUNIT_EXPECT_EQ(test, b->asserts > 1 ? b->shortest_backoff : 0, 10);
	KUNIT_EXPECT_EQ(test, res.held_off_us, 0);
	KUNIT_EXPECT_LE(test, b->longest_round, 3000 + 10 + I2C_ARB_POLL_US);
	KUNIT_EXPECT_GE(test, b->last_release, released);
}

/* Every look at the others follows our assert by at least the slew time. */
static void claim_honours_slew_before_every_look(struct kunit *test)
{
	static const struct i2c_arb_timing slow_slew = {
		.slew_us = 250, .retry_us = 1000, .free_us = 20000,
	};
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;

	b->held_until[0] = b->now + 7000;
	KUNIT_EXPECT_EQ(test, i2c_arb_claim(&slow_slew, &fake_ops, b, &b->hist, &res), 0);
	KUNIT_EXPECT_GT(test, b->asserts, 1);
	KUNIT_EXPECT_GE(test, b->shortest_slew, 250);
}

/* Releasing waits the slew time, so that a next claim is seen as new. */
static void release_waits_slew_after_dropping_claim(struct kunit *test)
{
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;
	u64 released;

	KUNIT_ASSERT_EQ(test, i2c_arb_claim(&binding_defaults, &fake_ops, b, &b->hist, &res), 0);
	KUNIT_EXPECT_EQ(test, i2c_arb_release(&binding_defaults, &fake_ops, b, &b->hist), 0);
	released = b->last_release;
	KUNIT_EXPECT_FALSE(test, b->claimed);
	KUNIT_EXPECT_EQ(test, b->now - released, 10);
}

/* With eight other masters the bus is ours only once the one holding it lets go. */
static void claim_waits_for_the_one_of_eight_masters_holding(struct kunit *test)
{
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;
	u64 start = b->now;

	b->held_until[5] = start + 8000;
	KUNIT_EXPECT_EQ(test, i2c_arb_claim(&binding_defaults, &fake_ops, b, &b->hist, &res), 0);
	KUNIT_EXPECT_GE(test, b->now, start + 8000);
	KUNIT_EXPECT_GT(test, res.backoffs, 0);
}

/*
 * A back-off is time we chose not to look: it is no gap between looks, or
 * every claim that backed off and then timed out would count as stalled.
 */
static void claim_that_backs_off_reports_no_look_gap_for_it(struct kunit *test)
{
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;

	b->held_until[0] = b->now + 20000;
	KUNIT_EXPECT_EQ(test, i2c_arb_claim(&binding_defaults, &fake_ops, b, &b->hist, &res), 0);
	KUNIT_ASSERT_GE(test, res.backoffs, 1);
	KUNIT_EXPECT_LE(test, res.look_gap_us, I2C_ARB_POLL_US + 10);
}

/*
 * Not running between asserting our claim and looking is a gap like any
 * other: a claim that then times out did so while we were not running.
 */
static void claim_counts_a_stall_after_asserting_as_a_look_gap(struct kunit *test)
{
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;

	b->held_until[0] = b->now + 500;
	b->stall_after_assert = 5000;
	KUNIT_EXPECT_EQ(test, i2c_arb_claim(&binding_defaults, &fake_ops, b, &b->hist, &res), 0);
	KUNIT_EXPECT_GE(test, res.look_gap_us, 5000 + 10);
}

/* A claim line that cannot be read fails the claim, with ours released. */
static void claim_fails_with_line_error_and_releases(struct kunit *test)
{
	struct fake_bus *b = test->priv;
	struct i2c_arb_claim_result res;

	b->look_error = -EIO;
	KUNIT_EXPECT_EQ(test, i2c_arb_claim(&binding_defaults, &fake_ops, b, &b->hist, &res),
			-EIO);
	KUNIT_EXPECT_FALSE(test, b->claimed);
	KUNIT_EXPECT_EQ(test, b->looks, 1);
}

static struct kunit_case claim_cases[] = {
	KUNIT_CASE(claim_of_free_bus_wins_after_one_slew),
	KUNIT_CASE(claim_waits_for_holder_released_within_retry),
	KUNIT_CASE(claim_backs_off_across_several_retries),
	KUNIT_CASE(claim_of_bus_never_released_fails_at_wait_free),
	KUNIT_CASE(claim_yields_when_a_release_leaves_others_claiming),
	KUNIT_CASE(claim_after_release_yields_to_waiter),
	KUNIT_CASE(claim_with_seed_rounds_comes_back_at_once),
	KUNIT_CASE(claim_after_release_with_nobody_waiting_comes_back_at_once),
	KUNIT_CASE(claim_after_release_gives_a_waiter_two_slews_and_a_poll),
	KUNIT_CASE(claim_long_after_release_reports_no_look_gap),
	KUNIT_CASE(claim_after_release_yields_for_three_wait_retry_only),
	KUNIT_CASE(claim_after_contended_release_passes_the_turn),
	KUNIT_CASE(claim_after_contended_release_passes_for_wait_retry_only),
	KUNIT_CASE(claim_owing_the_turn_reports_no_look_gap_for_the_idle_time),
	KUNIT_CASE(claim_long_after_contention_does_not_pass),
	KUNIT_CASE(claim_honours_slew_before_every_look),
	KUNIT_CASE(release_waits_slew_after_dropping_claim),
	KUNIT_CASE(claim_waits_for_the_one_of_eight_masters_holding),
	KUNIT_CASE(claim_that_backs_off_reports_no_look_gap_for_it),
	KUNIT_CASE(claim_counts_a_stall_after_asserting_as_a_look_gap),
	KUNIT_CASE(claim_fails_with_line_error_and_releases),
	{}
};

static struct kunit_suite claim_suite = {
	.name = "i2c_arb_claim",
	.init = claim_init,
	.test_cases = claim_cases,
};

/*
 * Probing. A fake GPIO chip carries the claim lines: line 0 is ours, lines
 * 1..9 are the other masters'. It sleeps, as an I2C GPIO expander would.
 */
#define CHIP_LABEL	"i2c-arb-kunit-gpio"
#define CHIP_LINES	10

struct fake_world {
	struct gpio_chip chip;
	int level[CHIP_LINES];		/* raw levels */
	struct i2c_adapter parent;
	int level_during_xfer;		/* raw level of line 0 in the transfer */
	unsigned int xfers;
	bool parent_added;
	struct device_driver *drv;
	struct fwnode_handle *arb_node;
	struct platform_device *pdev;
};

static const struct software_node chip_node = { .name = CHIP_LABEL };
static const struct software_node parent_node = { .name = "i2c-arb-kunit-parent" };

static int fake_gpio_get(struct gpio_chip *gc, unsigned int offset)
{
	struct fake_world *w = gpiochip_get_data(gc);

	return w->level[offset];
}

static void fake_gpio_set(struct gpio_chip *gc, unsigned int offset, int value)
{
	struct fake_world *w = gpiochip_get_data(gc);

	w->level[offset] = value;
}

static int fake_gpio_dir_out(struct gpio_chip *gc, unsigned int offset, int value)
{
	fake_gpio_set(gc, offset, value);
	return 0;
}

static int fake_gpio_dir_in(struct gpio_chip *gc, unsigned int offset)
{
	return 0;
}

static int fake_parent_xfer(struct i2c_adapter *adap, struct i2c_msg *msgs, int num)
{
	struct fake_world *w = i2c_get_adapdata(adap);

	w->xfers++;
	w->level_during_xfer = w->level[0];
	return num;
}

static u32 fake_parent_func(struct i2c_adapter *adap)
{
	return I2C_FUNC_I2C;
}

static const struct i2c_algorithm fake_parent_algo = {
	.master_xfer = fake_parent_xfer,
	.functionality = fake_parent_func,
};

static int fake_parent_add(struct fake_world *w)
{
	struct i2c_adapter *adap = &w->parent;

	adap->owner = THIS_MODULE;
	adap->algo = &fake_parent_algo;
	strscpy(adap->name, "i2c-arb-kunit-parent", sizeof(adap->name));
	adap->dev.fwnode = software_node_fwnode(&parent_node);
	i2c_set_adapdata(adap, w);
	if (i2c_add_adapter(adap))
		return -ENODEV;
	w->parent_added = true;
	return 0;
}

static int probe_init(struct kunit *test)
{
	const struct software_node *nodes[] = { &chip_node, &parent_node, NULL };
	struct fake_world *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_EQ(test, software_node_register_node_group(nodes), 0);
	for (i = 0; i < CHIP_LINES; i++)
		w->level[i] = 1;
	w->chip.label = CHIP_LABEL;
	w->chip.ngpio = CHIP_LINES;
	w->chip.base = -1;
	w->chip.can_sleep = true;
	w->chip.owner = THIS_MODULE;
	w->chip.get = fake_gpio_get;
	w->chip.set = fake_gpio_set;
	w->chip.direction_output = fake_gpio_dir_out;
	w->chip.direction_input = fake_gpio_dir_in;
	test->priv = w;
	if (gpiochip_add_data(&w->chip, w)) {
		software_node_unregister_node_group(nodes);
		return -ENODEV;
	}
	return 0;
}

static void probe_exit(struct kunit *test)
{
	const struct software_node *nodes[] = { &chip_node, &parent_node, NULL };
	struct fake_world *w = test->priv;

	if (w->pdev)
		platform_device_unregister(w->pdev);
	if (!IS_ERR_OR_NULL(w->arb_node))
		fwnode_remove_software_node(w->arb_node);
	if (w->parent_added)
		i2c_del_adapter(&w->parent);
	gpiochip_remove(&w->chip);
	software_node_unregister_node_group(nodes);
}

/*
 * Register an arbitrator described by @props under a name no driver
 * matches, so that nothing probes it behind the test's back.
 */
static void arb_register(struct kunit *test, const struct property_entry *props)
{
	struct fake_world *w = test->priv;
	struct platform_device_info info = {
		.name = "i2c-arb-kunit", .id = PLATFORM_DEVID_AUTO,
	};

	w->drv = driver_find("i2c-arb-gpio-challenge", &platform_bus_type);
	KUNIT_ASSERT_NOT_NULL(test, w->drv);
	w->arb_node = fwnode_create_software_node(props, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(w->arb_node));
	info.fwnode = w->arb_node;
	w->pdev = platform_device_register_full(&info);
	KUNIT_ASSERT_FALSE(test, IS_ERR(w->pdev));
}

/* Bind the driver by hand to an arbitrator described by @props. */
static int arb_attach(struct kunit *test, const struct property_entry *props)
{
	struct fake_world *w = test->priv;

	arb_register(test, props);
	return device_driver_attach(w->drv, &w->pdev->dev);
}

#define OUR_LOW		PROPERTY_ENTRY_GPIO("our-claim-gpios", &chip_node, 0, GPIO_ACTIVE_LOW)
#define THEIR_LOW	PROPERTY_ENTRY_GPIO("their-claim-gpios", &chip_node, 1, GPIO_ACTIVE_LOW)
#define PARENT		PROPERTY_ENTRY_REF("i2c-parent", &parent_node)

static const struct software_node_ref_args nine_lines[] = {
	SOFTWARE_NODE_REFERENCE(&chip_node, 1, GPIO_ACTIVE_LOW),
	SOFTWARE_NODE_REFERENCE(&chip_node, 2, GPIO_ACTIVE_LOW),
	SOFTWARE_NODE_REFERENCE(&chip_node, 3, GPIO_ACTIVE_LOW),
	SOFTWARE_NODE_REFERENCE(&chip_node, 4, GPIO_ACTIVE_LOW),
	SOFTWARE_NODE_REFERENCE(&chip_node, 5, GPIO_ACTIVE_LOW),
	SOFTWARE_NODE_REFERENCE(&chip_node, 6, GPIO_ACTIVE_LOW),
	SOFTWARE_NODE_REFERENCE(&chip_node, 7, GPIO_ACTIVE_LOW),
	SOFTWARE_NODE_REFERENCE(&chip_node, 8, GPIO_ACTIVE_LOW),
	SOFTWARE_NODE_REFERENCE(&chip_node, 9, GPIO_ACTIVE_LOW),
};

struct probe_case {
	const char *name;
	struct property_entry props[6];
	int err;
};

static const struct probe_case probe_cases[] = {
	{ "without our-claim-gpios is refused with -ENOENT",
	  { THEIR_LOW, PARENT }, -ENOENT },
	{ "without their-claim-gpios is refused with -ENOENT",
	  { OUR_LOW, PARENT }, -ENOENT },
	{ "with nine their-claim-gpios is refused with -EINVAL",
	  { OUR_LOW, PARENT,
	    PROPERTY_ENTRY_REF_ARRAY_LEN("their-claim-gpios", nine_lines, 9) },
	  -EINVAL },
	{ "with eight their-claim-gpios succeeds",
	  { OUR_LOW, PARENT,
	    PROPERTY_ENTRY_REF_ARRAY_LEN("their-claim-gpios", nine_lines, 8) },
	  0 },
	{ "without i2c-parent is refused with -EINVAL",
	  { OUR_LOW, THEIR_LOW }, -EINVAL },
	{ "with an i2c-parent that is a number is refused with -EINVAL",
	  { OUR_LOW, THEIR_LOW, PROPERTY_ENTRY_U32("i2c-parent", 7) }, -EINVAL },
	/* 6.12 accepted these: they still probe, with a warning. */
	{ "with wait-free-us below wait-retry-us probes, as on 6.12",
	  { OUR_LOW, THEIR_LOW, PARENT, PROPERTY_ENTRY_U32("wait-retry-us", 5000),
	    PROPERTY_ENTRY_U32("wait-free-us", 4000) }, 0 },
	{ "with slew-delay-us of zero probes, as on 6.12",
	  { OUR_LOW, THEIR_LOW, PARENT, PROPERTY_ENTRY_U32("slew-delay-us", 0) },
	  0 },
	{ "with wait-retry-us and wait-free-us of zero probes, as on 6.12",
	  { OUR_LOW, THEIR_LOW, PARENT, PROPERTY_ENTRY_U32("wait-retry-us", 0),
	    PROPERTY_ENTRY_U32("wait-free-us", 0) }, 0 },
	{ "with wait-free-us of an hour probes, as on 6.12",
	  { OUR_LOW, THEIR_LOW, PARENT,
	    PROPERTY_ENTRY_U32("wait-free-us", 3600U * 1000 * 1000) }, 0 },
	{ "with wait-retry-us of one byte probes with the default, as on 6.12",
	  { OUR_LOW, THEIR_LOW, PARENT, PROPERTY_ENTRY_U8("wait-retry-us", 30) },
	  0 },
};

static void probe_case_desc(const struct probe_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(probe, probe_cases, probe_case_desc);

/* Probe checks every property and names the errno of the first bad one. */
static void probe_checks_properties(struct kunit *test)
{
	const struct probe_case *c = test->param_value;
	struct fake_world *w = test->priv;

	KUNIT_ASSERT_EQ(test, fake_parent_add(w), 0);
	KUNIT_EXPECT_EQ(test, arb_attach(test, c->props), c->err);
	/* A refused probe must have given back every line it took. */
	KUNIT_EXPECT_EQ(test, w->level[0], 1);
}

/*
 * Probe defers while the parent adapter is missing and succeeds once it
 * appears. device_driver_attach() hands back a probe's -EPROBE_DEFER as
 * -EAGAIN (drivers/base/dd.c, the errno a sysfs bind gives); the driver has
 * no -EAGAIN of its own, so that is the deferral. It bypasses the
 * deferred-probe list, though, and only the list frees the deferral reason
 * dev_err_probe() records, so the device is then matched the driver
 * core's own way (driver_override names our driver), as a firmware device
 * would be: device_attach() defers it again (0, nothing bound) and lists
 * it. The deferred-probe work may retry it at any time, so the last attach
 * only asks that it ends up bound.
 */
static void probe_defers_until_parent_registered(struct kunit *test)
{
	const struct property_entry props[] = { OUR_LOW, THEIR_LOW, PARENT, {} };
	struct fake_world *w = test->priv;
	struct device *dev;

	arb_register(test, props);
	dev = &w->pdev->dev;
	KUNIT_ASSERT_EQ(test, device_set_driver_override(dev, w->drv->name), 0);
	KUNIT_EXPECT_EQ(test, device_driver_attach(w->drv, dev), -EAGAIN);
	KUNIT_EXPECT_EQ(test, device_attach(dev), 0);
	KUNIT_EXPECT_NULL(test, dev->driver);
	/* A deferred probe must have given back the lines it took. */
	KUNIT_EXPECT_EQ(test, w->level[0], 1);
	KUNIT_ASSERT_EQ(test, fake_parent_add(w), 0);
	KUNIT_EXPECT_EQ(test, device_attach(dev), 1);
	KUNIT_EXPECT_PTR_EQ(test, dev->driver, w->drv);
}

static int is_adapter(struct device *dev, void *unused)
{
	return !!i2c_verify_adapter(dev);
}

/* The child bus of a bound arbitrator: the only adapter below the parent. */
static struct i2c_adapter *arb_child(struct kunit *test)
{
	struct fake_world *w = test->priv;
	struct device *dev;

	dev = device_find_child(&w->parent.dev, NULL, is_adapter);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	return i2c_verify_adapter(dev);
}

static int child_xfer(struct kunit *test)
{
	struct i2c_adapter *child = arb_child(test);
	u8 byte = 0;
	struct i2c_msg msg = { .addr = 0x50, .flags = I2C_M_RD, .len = 1, .buf = &byte };
	int ret = i2c_transfer(child, &msg, 1);

	put_device(&child->dev);
	return ret;
}

/* An active-low claim drives its line low for the transfer and high after. */
static void active_low_claim_is_low_during_transfer(struct kunit *test)
{
	const struct property_entry props[] = { OUR_LOW, THEIR_LOW, PARENT, {} };
	struct fake_world *w = test->priv;

	KUNIT_ASSERT_EQ(test, fake_parent_add(w), 0);
	KUNIT_ASSERT_EQ(test, arb_attach(test, props), 0);
	KUNIT_EXPECT_EQ(test, w->level[0], 1);
	KUNIT_EXPECT_EQ(test, child_xfer(test), 1);
	KUNIT_EXPECT_EQ(test, w->xfers, 1);
	KUNIT_EXPECT_EQ(test, w->level_during_xfer, 0);
	KUNIT_EXPECT_EQ(test, w->level[0], 1);
}

/* An active-high claim drives its line high for the transfer and low after. */
static void active_high_claim_is_high_during_transfer(struct kunit *test)
{
	const struct property_entry props[] = {
		PROPERTY_ENTRY_GPIO("our-claim-gpios", &chip_node, 0, GPIO_ACTIVE_HIGH),
		PROPERTY_ENTRY_GPIO("their-claim-gpios", &chip_node, 1, GPIO_ACTIVE_HIGH),
		PARENT, {}
	};
	struct fake_world *w = test->priv;

	w->level[1] = 0;	/* the other master is not claiming */
	KUNIT_ASSERT_EQ(test, fake_parent_add(w), 0);
	KUNIT_ASSERT_EQ(test, arb_attach(test, props), 0);
	KUNIT_EXPECT_EQ(test, w->level[0], 0);
	KUNIT_EXPECT_EQ(test, child_xfer(test), 1);
	KUNIT_EXPECT_EQ(test, w->level_during_xfer, 1);
	KUNIT_EXPECT_EQ(test, w->level[0], 0);
}

/* While another master holds its active-low claim low, transfers fail with -EBUSY. */
static void transfer_fails_busy_while_other_claims(struct kunit *test)
{
	const struct property_entry props[] = {
		OUR_LOW, THEIR_LOW, PARENT,
		PROPERTY_ENTRY_U32("wait-retry-us", 200),
		PROPERTY_ENTRY_U32("wait-free-us", 2000), {}
	};
	struct fake_world *w = test->priv;

	KUNIT_ASSERT_EQ(test, fake_parent_add(w), 0);
	KUNIT_ASSERT_EQ(test, arb_attach(test, props), 0);
	w->level[1] = 0;
	KUNIT_EXPECT_EQ(test, child_xfer(test), -EBUSY);
	KUNIT_EXPECT_EQ(test, w->xfers, 0);
	KUNIT_EXPECT_EQ(test, w->level[0], 1);
	w->level[1] = 1;
	KUNIT_EXPECT_EQ(test, child_xfer(test), 1);
}

static struct kunit_case probe_test_cases[] = {
	KUNIT_CASE_PARAM(probe_checks_properties, probe_gen_params),
	KUNIT_CASE(probe_defers_until_parent_registered),
	KUNIT_CASE(active_low_claim_is_low_during_transfer),
	KUNIT_CASE(active_high_claim_is_high_during_transfer),
	KUNIT_CASE(transfer_fails_busy_while_other_claims),
	{}
};

static struct kunit_suite probe_suite = {
	.name = "i2c_arb_probe",
	.init = probe_init,
	.exit = probe_exit,
	.test_cases = probe_test_cases,
};

kunit_test_suites(&claim_suite, &probe_suite);

MODULE_DESCRIPTION("KUnit tests of the GPIO-based I2C arbitrator");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
