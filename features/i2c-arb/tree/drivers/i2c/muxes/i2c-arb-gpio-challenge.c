// SPDX-License-Identifier: GPL-2.0-only
/*
 * GPIO challenge-and-response I2C bus arbitration
 *
 * Masters that share one I2C bus, where standard multi-master arbitration
 * cannot be trusted, each drive a "claim" line that all the others read.
 * Before each transfer a master asserts its claim, waits for it to slew to
 * the others, and looks at theirs: the bus is its own only once every other
 * claim is released. While another claim is asserted it keeps watching for
 * up to wait-retry-us; if the holder does not let go it releases its own
 * claim and stays off for a random while, so that two masters that claimed
 * at the same moment cannot hold each other off forever, and tries again
 * until wait-free-us have passed.
 *
 * Fairness, on the same wires. Nothing in the protocol says who wins a
 * freed bus. A master that keeps the bus busy releases it after a transfer
 * and, left alone, claims it again after the slew and a system call; the
 * others usually miss that window: they look only every I2C_ARB_POLL_US,
 * plus however late they are scheduled (hundreds of us under QEMU TCG,
 * as long as a transfer). So:
 *
 *  - after releasing, a master that owes the turn (below) or sees another
 *    claim asserted does not claim again for 2 * slew + one poll, and
 *    then not while any other claim is asserted, up to three
 *    wait-retry-us after the release: waiters whose claims are asserted
 *    get the freed bus. One that owes nobody the turn and sees no other
 *    claim claims at once, as the seed does: a bus with one user pays
 *    nothing for fairness;
 *  - before that, if it saw another master's claim within wait-free-us, it
 *    passes the turn: it does not claim until it sees another claim, or
 *    until wait-retry-us after its release. The rule above makes every
 *    saturating master wait after its own transfer with its claim
 *    released, where nobody can see it; without the pass, the last holder
 *    took the bus again for as long as those waiters missed its short
 *    release, up to three wait-retry-us;
 *  - a round lasts wait-retry-us plus the age of the claim, so that a
 *    master that has waited long is asserted when the holder lets go;
 *  - when a claim is released and others are still asserted, the waiters
 *    of that release see each other: each gives up 2 * slew + two polls +
 *    1/32 of its age later, so that the youngest backs off first when they
 *    look often enough to tell their ages apart.
 *
 * A peer running the seed's protocol sees nothing new: claims that come
 * later, rounds held longer or given up sooner, as any master may.
 *
 * What the pass is for: between two masters of this driver, a waiter that
 * looks at the lines at least every wait-retry-us minus the slew and often
 * enough to see every transfer of the other is passed at most once, first
 * come, first served, as long as every look happens when it is due. Under
 * QEMU TCG looks come late, and the guest still saw a waiter passed twice
 * in a row for 1 of 15,190 checked claims with two masters and 2 of 14,762
 * with three (the seed's rounds: claims passed 7 times or more, 234 of
 * 6,000 with two masters). A master that owes nobody the turn claims again
 * right after its release, so a waiter that polls with its claim released
 * (in its own pass, or deferring to a claim it saw) can miss that short
 * release and be passed over until it asserts its claim, at most three
 * wait-retry-us after its own release; from then on the other master owes
 * it the turn. No bound on the wait follows from the protocol:
 * wait-free-us stays a timeout, not a promise. The tracepoint
 * i2c_arb:i2c_arb_claim reports each claim's start, end, release
 * and longest gap between looks, which is what a test needs to check this.
 *
 * The arbitrator is an i2c-mux "arbitrator": one child bus whose select()
 * claims the parent bus and whose deselect() releases it, with the parent
 * adapter locked across select, transfer and deselect.
 */

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/gpio/consumer.h>
#include <linux/i2c.h>
#include <linux/i2c-mux.h>
#include <linux/minmax.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/property.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <kunit/visibility.h>

#include "i2c-arb-gpio-challenge.h"

#define CREATE_TRACE_POINTS
#include <trace/events/i2c_arb.h>

/* The binding's limit on the number of other masters. */
#define I2C_ARB_MAX_OTHERS	8
/*
 * How long, in wait-retry-us, a master that just released the bus stays
 * off it while others claim: a simulation of 2 and 3 saturating masters
 * (transfers of 1 to 15 ms, the defaults) had no claim time out with 3,
 * some with 1 or 2.
 */
#define I2C_ARB_HOLD_OFF_RETRIES	3
/*
 * When a release leaves several claims asserted, each waiter gives up this
 * fraction of its age (plus two slews and two polls) later: ages that
 * differ by a few ms order the waiters beyond the skew of their polls,
 * and with eight masters the losers' turns still add up to little. The
 * simulation had fewest timeouts with 32 (of 4, 16, 32, 64).
 */
#define I2C_ARB_YIELD_AGE_DIV	32
/* Claim waits are counted in power-of-two buckets of microseconds. */
#define I2C_ARB_WAIT_BUCKETS	24

/**
 * struct i2c_arb_stats - what the claims of one arbitrator cost
 * @claims: claims won
 * @contended: claims, won or not, that found another master on the bus
 * @backoffs: rounds lost and backed off from
 * @timeouts: claims given up after wait-free-us
 * @timeouts_stalled: of which saw a gap of more than wait-retry-us between
 *	two looks at the other claims: we were not running when we should
 *	have looked
 * @wait_total_us: time spent claiming, over all claims won
 * @wait_max_us: the longest time a won claim took
 * @hold_max_us: the longest time from a won claim to its release
 * @wait_log2: won claims by wait: bucket i counts waits below 2^i us
 *	(the last one, all longer waits)
 */
struct i2c_arb_stats {
	u64 claims;
	u64 contended;
	u64 backoffs;
	u64 timeouts;
	u64 timeouts_stalled;
	u64 wait_total_us;
	u64 wait_max_us;
	u64 hold_max_us;
	u64 wait_log2[I2C_ARB_WAIT_BUCKETS];
};

/**
 * struct i2c_arb - one arbitrator
 * @dev: the platform device
 * @timing: the arbitration parameters
 * @ours: our claim line, asserted while we want or hold the bus
 * @theirs: the claim lines of the other masters
 * @hist: when we last released the bus; select and deselect run with the
 *	parent adapter locked, so one at a time
 * @won_us: when the current claim was won
 * @claim: how the current claim went, traced when it is released
 * @claim_ret: what the current claim returned
 * @stats_lock: protects @stats, so a debugfs reader sees no half update
 * @stats: the counters shown in debugfs
 */
struct i2c_arb {
	struct device *dev;
	struct i2c_arb_timing timing;
	struct gpio_desc *ours;
	struct gpio_descs *theirs;
	struct i2c_arb_history hist;
	u64 won_us;
	struct i2c_arb_claim_result claim;
	int claim_ret;
	spinlock_t stats_lock;	/* protects @stats */
	struct i2c_arb_stats stats;
};

/**
 * i2c_arb_release() - give a claimed bus back
 * @t: the arbitration parameters
 * @ops: access to the claim lines and the clock
 * @ctx: passed to every @ops callback
 * @h: where the time of the release is kept for our next claim
 *
 * Waits for the release to slew to the other masters, so that our next
 * claim cannot be mistaken for one we never dropped.
 *
 * Return: 0, or a negative errno if our claim line failed.
 */
VISIBLE_IF_KUNIT int i2c_arb_release(const struct i2c_arb_timing *t,
				     const struct i2c_arb_bus_ops *ops,
				     void *ctx, struct i2c_arb_history *h)
{
	int ret = ops->set_claim(ctx, false);

	h->released_us = ops->now_us(ctx);
	h->released = true;
	ops->wait_us(ctx, t->slew_us);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(i2c_arb_release);

/*
 * Look at the other claims. @last is when we last looked, and becomes now:
 * a long gap between two looks means we were not running, and a release
 * may have come and gone unseen.
 */
static int i2c_arb_look(const struct i2c_arb_bus_ops *ops, void *ctx,
			u64 *last, struct i2c_arb_claim_result *res)
{
	u64 now = ops->now_us(ctx);
	int ret;

	res->look_gap_us = max(res->look_gap_us, now - *last);
	*last = now;
	ret = ops->others_claim(ctx);
	if (ret > 0) {
		res->contended = true;
		res->seen_us = now;
	}
	return ret;
}

/* Another master claimed the bus within wait-free-us: we owe it the turn. */
static bool i2c_arb_turn_owed(const struct i2c_arb_timing *t,
			      const struct i2c_arb_history *h, u64 now)
{
	return h->seen && now - h->seen_us < t->free_us;
}

/*
 * Pass the turn, after a release, when another master claimed the bus
 * within wait-free-us: do not claim until another claim is seen, or until
 * wait-retry-us after the release. A saturating master waits for its turn
 * holding off after its own transfer, with its claim released: it cannot
 * be seen, and it sees the bus free only between two transfers. Without
 * the pass, the master that released claimed again 2 * slew + one poll
 * later, before such a waiter looked (under QEMU TCG a look comes every
 * few hundred us, as long as a transfer), and took the bus again and
 * again. With it, a waiter that looks at least every wait-retry-us minus
 * the slew claims before the releaser does. @last is when we last looked.
 * Returns 0, or a negative errno.
 */
static int i2c_arb_pass_turn(const struct i2c_arb_timing *t,
			     const struct i2c_arb_bus_ops *ops, void *ctx,
			     const struct i2c_arb_history *h, u64 deadline,
			     u64 *last, struct i2c_arb_claim_result *res)
{
	u64 now = ops->now_us(ctx);
	u64 end = min(h->released_us + t->retry_us, deadline);
	int ret;

	if (!i2c_arb_turn_owed(t, h, now))
		return 0;
	while (now < end) {
		ret = i2c_arb_look(ops, ctx, last, res);
		if (ret)
			return min(ret, 0);
		ops->wait_us(ctx, I2C_ARB_POLL_US);
		now = ops->now_us(ctx);
	}
	return 0;
}

/*
 * Stay off the bus while another claim is asserted, up to @most: the
 * waiters of our release settle which of them goes first. @last is when we
 * last looked. Returns 0, or a negative errno.
 */
static int i2c_arb_defer(const struct i2c_arb_bus_ops *ops, void *ctx,
			 u64 most, u64 *last, struct i2c_arb_claim_result *res)
{
	u64 now = ops->now_us(ctx);
	int ret;

	while (now < most) {
		ret = i2c_arb_look(ops, ctx, last, res);
		if (ret <= 0)
			return ret;
		ops->wait_us(ctx, I2C_ARB_POLL_US);
		now = ops->now_us(ctx);
	}
	return 0;
}

/*
 * Before claiming again soon after our own release, stay off the bus while
 * others claim it: they have been waiting for our release, and poll for it
 * only every I2C_ARB_POLL_US or later. With no other claim asserted and no
 * turn owed, not at all: a master that asserts from now on meets our claim
 * in our round, as in the seed's protocol. Otherwise at least 2 * slew +
 * one poll after the release, then the pass (i2c_arb_pass_turn()), then as
 * long as any other claim is asserted, up to I2C_ARB_HOLD_OFF_RETRIES *
 * wait-retry-us after the release or @deadline. Only looks at the lines: a
 * peer sees a master that wants the bus a little later. @last is when we
 * last looked. Returns 0, or a negative errno.
 */
static int i2c_arb_hold_off(const struct i2c_arb_timing *t,
			    const struct i2c_arb_bus_ops *ops, void *ctx,
			    const struct i2c_arb_history *h, u64 deadline,
			    u64 *last, struct i2c_arb_claim_result *res)
{
	u64 now = ops->now_us(ctx), from = now, least, most;
	int ret;

	if (!h->released || t->seed_rounds)
		return 0;
	/*
	 * Idle between our release and this claim, we had no reason to look:
	 * gaps count from the claim's start.
	 */
	if (!i2c_arb_turn_owed(t, h, now)) {
		ret = i2c_arb_look(ops, ctx, last, res);
		if (ret <= 0)
			return ret;
	}
	least = h->released_us + 2ULL * t->slew_us + I2C_ARB_POLL_US;
	most = max_t(u64, I2C_ARB_HOLD_OFF_RETRIES * (u64)t->retry_us,
		     least - h->released_us);
	if (now < least)
		ops->wait_us(ctx, least - now);
	ret = i2c_arb_pass_turn(t, ops, ctx, h, deadline, last, res);
	if (!ret)
		ret = i2c_arb_defer(ops, ctx, min(h->released_us + most, deadline),
				    last, res);
	res->held_off_us = ops->now_us(ctx) - from;
	return ret;
}

/*
 * The end of a round that starts now: wait-retry-us, plus the age of the
 * claim, so that a master that has waited long keeps its claim asserted
 * through most of a long transfer of the holder's and is there when the
 * bus is released.
 */
static u64 i2c_arb_round_end(const struct i2c_arb_timing *t, u64 start,
			     u64 now, u64 deadline)
{
	u64 age = t->seed_rounds ? 0 : now - start;

	return min(now + t->retry_us + age, deadline);
}

/*
 * A claim was released but others are still asserted: the waiters of a
 * release see each other. Every one of them saw that release within a poll
 * or two, and gives up after two slews and two polls plus a fraction of
 * its age: the youngest first, each release of a loser starting the next
 * count, until the oldest is alone and wins.
 */
static u64 i2c_arb_yield_end(const struct i2c_arb_timing *t, u64 start,
			     u64 now, u64 deadline)
{
	u64 base = 2ULL * t->slew_us + 2 * I2C_ARB_POLL_US;

	return min(now + base + (now - start) / I2C_ARB_YIELD_AGE_DIV, deadline);
}

/*
 * One round of a claim that started at @start: assert our claim, let it
 * slew, then watch the other claims until they are all released or the
 * round ends. @last is when we last looked: a round that starts late (we
 * were not running after our last look, or right after asserting) shows
 * as a gap. Returns 0 if the bus is ours, 1 if it is still taken at the
 * end, or a negative errno.
 */
static int i2c_arb_round(const struct i2c_arb_timing *t,
			 const struct i2c_arb_bus_ops *ops, void *ctx,
			 u64 start, u64 deadline, u64 *last,
			 struct i2c_arb_claim_result *res)
{
	int ret, seen = 0;
	u64 until;

	ret = ops->set_claim(ctx, true);
	if (ret)
		return ret;
	ops->wait_us(ctx, t->slew_us);

	until = i2c_arb_round_end(t, start, ops->now_us(ctx), deadline);
	for (;;) {
		ret = i2c_arb_look(ops, ctx, last, res);
		if (ret <= 0)
			return ret;
		if (seen && ret < seen && !t->seed_rounds)
			until = min(until,
				    i2c_arb_yield_end(t, start, *last, deadline));
		seen = ret;
		if (*last >= until)
			return 1;
		ops->wait_us(ctx, I2C_ARB_POLL_US);
	}
}

/* A random back-off of one to two wait-retry-us, never a spin. */
static u64 i2c_arb_backoff_us(const struct i2c_arb_timing *t)
{
	u64 us = t->retry_us + (u64)get_random_u32_inclusive(0, t->retry_us);

	return max_t(u64, us, I2C_ARB_POLL_US);
}

/*
 * Rounds until the bus is ours (0), the deadline passed (1) or a line
 * failed (a negative errno). @last is when we last looked.
 */
static int i2c_arb_rounds(const struct i2c_arb_timing *t,
			  const struct i2c_arb_bus_ops *ops, void *ctx,
			  u64 start, u64 deadline, u64 *last,
			  struct i2c_arb_claim_result *res)
{
	u64 now, nap;
	int ret;

	for (;;) {
		ret = i2c_arb_round(t, ops, ctx, start, deadline, last, res);
		now = ops->now_us(ctx);
		if (ret <= 0 || now >= deadline)
			return ret;

		/*
		 * Whoever holds the bus may be waiting for us as well: step
		 * aside for a random while so that one of us wins next time.
		 * Not looking then is the plan, not a stall: only oversleep
		 * counts as a gap.
		 */
		ops->set_claim(ctx, false);
		res->backoffs++;
		nap = min(deadline - now, i2c_arb_backoff_us(t));
		ops->wait_us(ctx, nap);
		*last = now + nap;
	}
}

/**
 * i2c_arb_claim() - claim a shared bus by the challenge-and-response protocol
 * @t: the arbitration parameters
 * @ops: access to the claim lines and the clock
 * @ctx: passed to every @ops callback
 * @h: our earlier claims (i2c_arb_release() notes the release)
 * @res: filled in with how the claim went, whatever it returns
 *
 * Rounds are cut short at the wait-free deadline, and the last look at the
 * other claims happens at that deadline, so a claim gives up no earlier than
 * @t->free_us after it started and not much later.
 *
 * Return: 0 with our claim asserted; -EBUSY if another master held the bus
 * for @t->free_us, or another negative errno if a line failed, both with our
 * claim released.
 */
VISIBLE_IF_KUNIT int i2c_arb_claim(const struct i2c_arb_timing *t,
				   const struct i2c_arb_bus_ops *ops, void *ctx,
				   struct i2c_arb_history *h,
				   struct i2c_arb_claim_result *res)
{
	u64 start = ops->now_us(ctx);
	u64 deadline = start + t->free_us;
	u64 last = start;
	int ret;

	*res = (struct i2c_arb_claim_result){ .start_us = start };
	ret = i2c_arb_hold_off(t, ops, ctx, h, deadline, &last, res);
	if (!ret)
		ret = i2c_arb_rounds(t, ops, ctx, start, deadline, &last, res);
	res->waited_us = ops->now_us(ctx) - start;
	if (res->contended) {
		h->seen_us = res->seen_us;
		h->seen = true;
	}
	if (!ret)
		return 0;

	i2c_arb_release(t, ops, ctx, h);
	return ret < 0 ? ret : -EBUSY;
}
EXPORT_SYMBOL_IF_KUNIT(i2c_arb_claim);

/*
 * The claim lines may sit on a GPIO expander that sleeps: select() and
 * deselect() run in process context, with the parent adapter locked.
 */
static int i2c_arb_gpio_set_claim(void *ctx, bool assert)
{
	struct i2c_arb *arb = ctx;

	return gpiod_set_value_cansleep(arb->ours, assert);
}

static int i2c_arb_gpio_others_claim(void *ctx)
{
	struct i2c_arb *arb = ctx;
	DECLARE_BITMAP(asserted, I2C_ARB_MAX_OTHERS);
	int ret;

	ret = gpiod_get_array_value_cansleep(arb->theirs->ndescs,
					     arb->theirs->desc,
					     arb->theirs->info, asserted);
	if (ret)
		return ret;
	return bitmap_weight(asserted, arb->theirs->ndescs);
}

static u64 i2c_arb_clock_now_us(void *ctx)
{
	return ktime_to_us(ktime_get());
}

static void i2c_arb_clock_wait_us(void *ctx, u32 us)
{
	/* A sleep would overshoot short waits by more than they last. */
	if (us <= 20)
		udelay(us);
	else
		usleep_range(us, us + us / 8);
}

static const struct i2c_arb_bus_ops i2c_arb_gpio_ops = {
	.set_claim = i2c_arb_gpio_set_claim,
	.others_claim = i2c_arb_gpio_others_claim,
	.now_us = i2c_arb_clock_now_us,
	.wait_us = i2c_arb_clock_wait_us,
};

static void i2c_arb_account(struct i2c_arb *arb,
			    const struct i2c_arb_claim_result *res, int ret)
{
	struct i2c_arb_stats *s = &arb->stats;

	spin_lock(&arb->stats_lock);
	s->contended += res->contended;
	s->backoffs += res->backoffs;
	if (ret == -EBUSY) {
		s->timeouts++;
		s->timeouts_stalled += res->look_gap_us > arb->timing.retry_us;
	} else if (!ret) {
		s->claims++;
		s->wait_total_us += res->waited_us;
		s->wait_max_us = max(s->wait_max_us, res->waited_us);
		s->wait_log2[min(fls64(res->waited_us),
				 I2C_ARB_WAIT_BUCKETS - 1)]++;
	}
	spin_unlock(&arb->stats_lock);
}

static int i2c_arb_select(struct i2c_mux_core *muxc, u32 chan)
{
	struct i2c_arb *arb = i2c_mux_priv(muxc);
	struct i2c_arb_claim_result res;
	int ret;

	ret = i2c_arb_claim(&arb->timing, &i2c_arb_gpio_ops, arb, &arb->hist,
			    &res);
	i2c_arb_account(arb, &res, ret);
	arb->won_us = i2c_arb_clock_now_us(arb);
	arb->claim = res;
	arb->claim_ret = ret;
	if (ret == -EBUSY)
		dev_err_ratelimited(arb->dev,
				    "could not claim the bus within wait-free-us (%u us): another master holds it (longest gap between looks %llu us)\n",
				    arb->timing.free_us, res.look_gap_us);
	else if (ret)
		dev_err_ratelimited(arb->dev, "claim lines failed: %pe\n",
				    ERR_PTR(ret));
	return ret;
}

/*
 * The mux core calls this after every transfer, even if select() failed.
 * The claim is traced once released, so that one event tells when it
 * started, when it was won or given up, and when the bus was free again.
 */
static int i2c_arb_deselect(struct i2c_mux_core *muxc, u32 chan)
{
	struct i2c_arb *arb = i2c_mux_priv(muxc);
	const struct i2c_arb_claim_result *c = &arb->claim;
	u64 held = i2c_arb_clock_now_us(arb) - arb->won_us;
	int ret;

	spin_lock(&arb->stats_lock);
	arb->stats.hold_max_us = max(arb->stats.hold_max_us, held);
	spin_unlock(&arb->stats_lock);
	ret = i2c_arb_release(&arb->timing, &i2c_arb_gpio_ops, arb, &arb->hist);
	trace_i2c_arb_claim(muxc->adapter[0]->nr, c->start_us,
			    c->start_us + c->waited_us, arb->hist.released_us,
			    c->look_gap_us, c->backoffs, arb->claim_ret);
	return ret;
}

static int i2c_arb_stats_show(struct seq_file *m, void *unused)
{
	struct i2c_arb *arb = m->private;
	struct i2c_arb_stats s;
	int i;

	spin_lock(&arb->stats_lock);
	s = arb->stats;
	spin_unlock(&arb->stats_lock);

	seq_printf(m, "claims %llu\n", s.claims);
	seq_printf(m, "contended %llu\n", s.contended);
	seq_printf(m, "retries %llu\n", s.backoffs);
	seq_printf(m, "timeouts %llu\n", s.timeouts);
	seq_printf(m, "timeouts_stalled %llu\n", s.timeouts_stalled);
	seq_printf(m, "wait_max_us %llu\n", s.wait_max_us);
	seq_printf(m, "wait_mean_us %llu\n",
		   s.claims ? div64_u64(s.wait_total_us, s.claims) : 0);
	seq_printf(m, "hold_max_us %llu\n", s.hold_max_us);
	seq_puts(m, "wait_log2_us");
	for (i = 0; i < I2C_ARB_WAIT_BUCKETS; i++)
		seq_printf(m, " %llu", s.wait_log2[i]);
	seq_putc(m, '\n');
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(i2c_arb_stats);

/*
 * Read one of the timing properties; absent means the binding's default.
 * 6.12 accepted any u32, so do we: a zero is only warned about (no slew
 * lets us look at the others before they can see us; no retry or free time
 * leaves one look per claim).
 */
static void i2c_arb_read_us(struct device *dev, const char *prop, u32 def,
			    u32 *val)
{
	int ret;

	*val = def;
	if (!device_property_present(dev, prop))
		return;
	/* 6.12 ignored a value it could not read: so do we, but say so. */
	ret = device_property_read_u32(dev, prop, val);
	if (ret) {
		dev_warn(dev, "%s: not a u32 value (%pe), using %u\n", prop,
			 ERR_PTR(ret), def);
		*val = def;
	} else if (!*val) {
		dev_warn(dev, "%s of 0: arbitration cannot work as intended\n",
			 prop);
	}
}

static void i2c_arb_read_timing(struct device *dev, struct i2c_arb_timing *t)
{
	i2c_arb_read_us(dev, "slew-delay-us", 10, &t->slew_us);
	i2c_arb_read_us(dev, "wait-retry-us", 3000, &t->retry_us);
	i2c_arb_read_us(dev, "wait-free-us", 50000, &t->free_us);
	if (t->free_us < t->retry_us)
		dev_warn(dev, "wait-free-us (%u) is below wait-retry-us (%u): a claim gives up within its first round\n",
			 t->free_us, t->retry_us);
}

static int i2c_arb_get_lines(struct device *dev, struct i2c_arb *arb)
{
	int n;

	/* Requested released: probing must not take the bus from anyone. */
	arb->ours = devm_gpiod_get(dev, "our-claim", GPIOD_OUT_LOW);
	if (IS_ERR(arb->ours))
		return dev_err_probe(dev, PTR_ERR(arb->ours),
				     "our-claim-gpios: cannot get the line\n");

	n = gpiod_count(dev, "their-claim");
	if (n < 0)
		return dev_err_probe(dev, n,
				     "their-claim-gpios: missing, the claim line of at least one other master is needed\n");
	if (n > I2C_ARB_MAX_OTHERS)
		return dev_err_probe(dev, -EINVAL,
				     "their-claim-gpios: %d lines, at most %d other masters are supported\n",
				     n, I2C_ARB_MAX_OTHERS);

	arb->theirs = devm_gpiod_get_array(dev, "their-claim", GPIOD_IN);
	if (IS_ERR(arb->theirs))
		return dev_err_probe(dev, PTR_ERR(arb->theirs),
				     "their-claim-gpios: cannot get the lines\n");
	return 0;
}

/* The parent bus is any I2C adapter, described by DT or a software node. */
static struct i2c_adapter *i2c_arb_get_parent(struct device *dev)
{
	struct fwnode_handle *node;
	struct i2c_adapter *parent;

	node = fwnode_find_reference(dev_fwnode(dev), "i2c-parent", 0);
	if (IS_ERR(node))
		return dev_err_ptr_probe(dev, -EINVAL,
					 "i2c-parent: missing or not a reference (%pe)\n",
					 node);

	parent = i2c_get_adapter_by_fwnode(node);
	if (!parent)
		parent = dev_err_ptr_probe(dev, -EPROBE_DEFER,
					   "i2c-parent: %pfwP is not a registered I2C adapter yet\n",
					   node);
	fwnode_handle_put(node);
	return parent;
}

static int i2c_arb_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct i2c_mux_core *muxc;
	struct i2c_arb *arb;
	int ret;

	if (dev_get_platdata(dev))
		return dev_err_probe(dev, -EINVAL,
				     "platform data is not supported: describe the arbitrator with firmware properties\n");
	if (!dev_fwnode(dev))
		return dev_err_probe(dev, -ENODEV,
				     "no firmware node (DT or software node) describes the arbitrator\n");

	muxc = i2c_mux_alloc(NULL, dev, 1, sizeof(*arb), I2C_MUX_ARBITRATOR,
			     i2c_arb_select, i2c_arb_deselect);
	if (!muxc)
		return -ENOMEM;
	arb = i2c_mux_priv(muxc);
	arb->dev = dev;
	spin_lock_init(&arb->stats_lock);

	i2c_arb_read_timing(dev, &arb->timing);
	ret = i2c_arb_get_lines(dev, arb);
	if (ret)
		return ret;

	muxc->parent = i2c_arb_get_parent(dev);
	if (IS_ERR(muxc->parent))
		return PTR_ERR(muxc->parent);

	ret = i2c_mux_add_adapter(muxc, 0, 0);
	if (ret)
		goto err_put_parent;

	/* The counters go away with the child adapter's debugfs folder. */
	debugfs_create_file("arbitration", 0444, muxc->adapter[0]->debugfs,
			    arb, &i2c_arb_stats_fops);
	debugfs_create_bool("seed_rounds", 0600, muxc->adapter[0]->debugfs,
			    &arb->timing.seed_rounds);
	platform_set_drvdata(pdev, muxc);
	return 0;

err_put_parent:
	i2c_put_adapter(muxc->parent);
	return ret;
}

static void i2c_arb_remove(struct platform_device *pdev)
{
	struct i2c_mux_core *muxc = platform_get_drvdata(pdev);

	i2c_mux_del_adapters(muxc);
	i2c_put_adapter(muxc->parent);
}

static const struct of_device_id i2c_arb_of_match[] = {
	{ .compatible = "i2c-arb-gpio-challenge" },
	{ }
};
MODULE_DEVICE_TABLE(of, i2c_arb_of_match);

static struct platform_driver i2c_arb_driver = {
	.probe = i2c_arb_probe,
	.remove = i2c_arb_remove,
	.driver = {
		.name = "i2c-arb-gpio-challenge",
		.of_match_table = i2c_arb_of_match,
	},
};
module_platform_driver(i2c_arb_driver);

MODULE_DESCRIPTION("GPIO challenge-and-response I2C bus arbitration");
MODULE_LICENSE("GPL");
MODULE_ALIAS("platform:i2c-arb-gpio-challenge");
