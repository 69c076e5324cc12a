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
 */
struct i2c_arb_timing {
	u32 slew_us;
	u32 retry_us;
	u32 free_us;
};

/**
 * struct i2c_arb_bus_ops - what the claim protocol needs from the platform
 * @set_claim: assert (true) or release (false) our claim line; 0 or a
 *	negative errno
 * @others_claim: 1 if any other master asserts its claim line, 0 if none
 *	does, or a negative errno if a line cannot be read
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
 * struct i2c_arb_claim_result - how one claim went, for the counters
 * @waited_us: from the start of the claim until it was won or given up
 * @contended: another master's claim was seen asserted at least once
 * @backoffs: rounds lost to another master and backed off from
 */
struct i2c_arb_claim_result {
	u64 waited_us;
	bool contended;
	unsigned int backoffs;
};

#if IS_ENABLED(CONFIG_KUNIT)
int i2c_arb_claim(const struct i2c_arb_timing *t,
		  const struct i2c_arb_bus_ops *ops, void *ctx,
		  struct i2c_arb_claim_result *res);
int i2c_arb_release(const struct i2c_arb_timing *t,
		    const struct i2c_arb_bus_ops *ops, void *ctx);
#endif

#endif /* _I2C_ARB_GPIO_CHALLENGE_H */
