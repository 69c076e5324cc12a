/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The claim protocol of the GPIO challenge-and-response I2C arbitrator.
 *
 * It sees the claim lines and the clock only through struct i2c_arb_bus_ops,
 * so that the driver runs it on GPIOs and its KUnit test on scripted lines
 * and a virtual clock.
 */
#ifndef _I2C_ARB_GPIO_CHALLENGE_H
#define _I2C_ARB_GPIO_CHALLENGE_H

#include <linux/types.h>

/* How long a round sleeps between two looks at a busy bus. */
#define I2C_ARB_POLL_US		50

/**
 * struct i2c_arb_timing - the arbitration parameters, in microseconds
 * @slew_us: time our claim line needs to reach the other masters
 *	(slew-delay-us)
 * @retry_us: how long one round waits for the holder to let go before
 *	backing off (wait-retry-us)
 * @free_us: how long a whole claim may take before it fails with -EBUSY
 *	(wait-free-us)
 * @seed_rounds: claim as the seed and 6.12 do: no hold-off after a
 *	release, rounds of wait-retry-us, no yield to older claims. Set from
 *	debugfs only, so that a test can show the starvation it causes.
 */
struct i2c_arb_timing {
	u32 slew_us;
	u32 retry_us;
	u32 free_us;
	bool seed_rounds;
};

/**
 * struct i2c_arb_bus_ops - what the claim protocol needs from the platform
 * @set_claim: assert (true) or release (false) our claim line; 0 or a
 *	negative errno
 * @others_claim: how many other masters assert their claim lines (0: the
 *	bus is free), or a negative errno if a line cannot be read
 * @now_us: a monotonic clock in microseconds
 * @wait_us: let @us microseconds pass; may sleep
 */
struct i2c_arb_bus_ops {
	int (*set_claim)(void *ctx, bool assert);
	int (*others_claim)(void *ctx);
	u64 (*now_us)(void *ctx);
	void (*wait_us)(void *ctx, u32 us);
};

/**
 * struct i2c_arb_history - what a claim needs to know of the earlier ones
 * @released_us: when we last released our claim, on the now_us() clock
 * @seen_us: when a look last saw another master's claim asserted
 * @released: @released_us is valid
 * @seen: @seen_us is valid
 */
struct i2c_arb_history {
	u64 released_us;
	u64 seen_us;
	bool released;
	bool seen;
};

/**
 * struct i2c_arb_claim_result - how one claim went, for the counters
 * @start_us: when the claim started, on the now_us() clock
 * @waited_us: from the start of the claim until it was won or given up
 * @held_off_us: of which spent yielding to others after our last release
 * @look_gap_us: the longest time between two looks at the other claims,
 *	from the start of the claim to its first look, and between any two
 *	looks after, a back-off counting only by how much it overslept, the
 *	idle time before the claim not at all (a poll is
 *	I2C_ARB_POLL_US: more means we were not running, and may have missed
 *	another master's whole transfer)
 * @seen_us: when a look last saw another claim (if @contended)
 * @contended: another master's claim was seen asserted at least once
 * @backoffs: rounds lost to another master and backed off from
 */
struct i2c_arb_claim_result {
	u64 start_us;
	u64 waited_us;
	u64 held_off_us;
	u64 look_gap_us;
	u64 seen_us;
	bool contended;
	unsigned int backoffs;
};

#if IS_ENABLED(CONFIG_KUNIT)
int i2c_arb_claim(const struct i2c_arb_timing *t,
		  const struct i2c_arb_bus_ops *ops, void *ctx,
		  struct i2c_arb_history *h, struct i2c_arb_claim_result *res);
int i2c_arb_release(const struct i2c_arb_timing *t,
		    const struct i2c_arb_bus_ops *ops, void *ctx,
		    struct i2c_arb_history *h);
#endif

#endif /* _I2C_ARB_GPIO_CHALLENGE_H */
