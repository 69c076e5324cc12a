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

/* The binding's limit on the number of other masters. */
#define I2C_ARB_MAX_OTHERS	8

/**
 * struct i2c_arb_stats - what the claims of one arbitrator cost
 * @claims: claims won
 * @contended: claims, won or not, that found another master on the bus
 * @backoffs: rounds lost and backed off from
 * @timeouts: claims given up after wait-free-us
 * @wait_total_us: time spent claiming, over all claims won
 * @wait_max_us: the longest time a won claim took
 */
struct i2c_arb_stats {
	u64 claims;
	u64 contended;
	u64 backoffs;
	u64 timeouts;
	u64 wait_total_us;
	u64 wait_max_us;
};

/**
 * struct i2c_arb - one arbitrator
 * @dev: the platform device
 * @timing: the arbitration parameters
 * @ours: our claim line, asserted while we want or hold the bus
 * @theirs: the claim lines of the other masters
 * @stats_lock: protects @stats, so a debugfs reader sees no half update
 * @stats: the counters shown in debugfs
 */
struct i2c_arb {
	struct device *dev;
	struct i2c_arb_timing timing;
	struct gpio_desc *ours;
	struct gpio_descs *theirs;
	spinlock_t stats_lock;	/* protects @stats */
	struct i2c_arb_stats stats;
};

/**
 * i2c_arb_release() - give a claimed bus back
 * @t: the arbitration parameters
 * @ops: access to the claim lines and the clock
 * @ctx: passed to every @ops callback
 *
 * Waits for the release to slew to the other masters, so that our next
 * claim cannot be mistaken for one we never dropped.
 *
 * Return: 0, or a negative errno if our claim line failed.
 */
VISIBLE_IF_KUNIT int i2c_arb_release(const struct i2c_arb_timing *t,
				     const struct i2c_arb_bus_ops *ops,
				     void *ctx)
{
	int ret = ops->set_claim(ctx, false);

	ops->wait_us(ctx, t->slew_us);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(i2c_arb_release);

/*
 * One round: assert our claim, let it slew, then watch the other claims
 * until they are all released or @until has come. Returns 0 if the bus is
 * ours, 1 if it is still taken at @until, or a negative errno.
 */
static int i2c_arb_round(const struct i2c_arb_timing *t,
			 const struct i2c_arb_bus_ops *ops, void *ctx,
			 u64 until, struct i2c_arb_claim_result *res)
{
	int ret;

	ret = ops->set_claim(ctx, true);
	if (ret)
		return ret;
	ops->wait_us(ctx, t->slew_us);

	for (;;) {
		ret = ops->others_claim(ctx);
		if (ret <= 0)
			return ret;
		res->contended = true;
		if (ops->now_us(ctx) >= until)
			return 1;
		ops->wait_us(ctx, I2C_ARB_POLL_US);
	}
}

/**
 * i2c_arb_claim() - claim a shared bus by the challenge-and-response protocol
 * @t: the arbitration parameters
 * @ops: access to the claim lines and the clock
 * @ctx: passed to every @ops callback
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
				   struct i2c_arb_claim_result *res)
{
	u64 start = ops->now_us(ctx);
	u64 deadline = start + t->free_us;
	u64 now;
	int ret;

	*res = (struct i2c_arb_claim_result){};
	for (;;) {
		ret = i2c_arb_round(t, ops, ctx,
				    min(ops->now_us(ctx) + t->retry_us, deadline),
				    res);
		now = ops->now_us(ctx);
		if (ret <= 0 || now >= deadline)
			break;

		/*
		 * Whoever holds the bus may be waiting for us as well: step
		 * aside for a random while so that one of us wins next time.
		 */
		ops->set_claim(ctx, false);
		res->backoffs++;
		ops->wait_us(ctx, min_t(u64, deadline - now,
					get_random_u32_inclusive(t->retry_us,
								 2 * t->retry_us)));
	}
	res->waited_us = ops->now_us(ctx) - start;
	if (!ret)
		return 0;

	i2c_arb_release(t, ops, ctx);
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
	return !bitmap_empty(asserted, arb->theirs->ndescs);
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
	} else if (!ret) {
		s->claims++;
		s->wait_total_us += res->waited_us;
		s->wait_max_us = max(s->wait_max_us, res->waited_us);
	}
	spin_unlock(&arb->stats_lock);
}

static int i2c_arb_select(struct i2c_mux_core *muxc, u32 chan)
{
	struct i2c_arb *arb = i2c_mux_priv(muxc);
	struct i2c_arb_claim_result res;
	int ret;

	ret = i2c_arb_claim(&arb->timing, &i2c_arb_gpio_ops, arb, &res);
	i2c_arb_account(arb, &res, ret);
	if (ret == -EBUSY)
		dev_err_ratelimited(arb->dev,
				    "could not claim the bus within wait-free-us (%u us): another master holds it\n",
				    arb->timing.free_us);
	else if (ret)
		dev_err_ratelimited(arb->dev, "claim lines failed: %pe\n",
				    ERR_PTR(ret));
	return ret;
}

/* The mux core calls this after every transfer, even if select() failed. */
static int i2c_arb_deselect(struct i2c_mux_core *muxc, u32 chan)
{
	struct i2c_arb *arb = i2c_mux_priv(muxc);

	return i2c_arb_release(&arb->timing, &i2c_arb_gpio_ops, arb);
}

static int i2c_arb_stats_show(struct seq_file *m, void *unused)
{
	struct i2c_arb *arb = m->private;
	struct i2c_arb_stats s;

	spin_lock(&arb->stats_lock);
	s = arb->stats;
	spin_unlock(&arb->stats_lock);

	seq_printf(m, "claims %llu\n", s.claims);
	seq_printf(m, "contended %llu\n", s.contended);
	seq_printf(m, "retries %llu\n", s.backoffs);
	seq_printf(m, "timeouts %llu\n", s.timeouts);
	seq_printf(m, "wait_max_us %llu\n", s.wait_max_us);
	seq_printf(m, "wait_mean_us %llu\n",
		   s.claims ? div64_u64(s.wait_total_us, s.claims) : 0);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(i2c_arb_stats);

/*
 * Read one of the timing properties; absent means the binding's default.
 * Zero is refused: no slew lets us look at the others before they can see
 * us, and no retry or free time turns a busy bus into a spin.
 */
static int i2c_arb_read_us(struct device *dev, const char *prop, u32 def,
			   u32 max, u32 *val)
{
	int ret;

	*val = def;
	if (!device_property_present(dev, prop))
		return 0;
	ret = device_property_read_u32(dev, prop, val);
	if (ret)
		return dev_err_probe(dev, ret, "%s: not a u32 value\n", prop);
	if (!*val || *val > max)
		return dev_err_probe(dev, -EINVAL,
				     "%s: %u is out of range 1..%u\n",
				     prop, *val, max);
	return 0;
}

static int i2c_arb_read_timing(struct device *dev, struct i2c_arb_timing *t)
{
	int ret;

	/* The slew time is spun, with the parent bus locked: keep it short. */
	ret = i2c_arb_read_us(dev, "slew-delay-us", 10, 1000, &t->slew_us);
	if (!ret)
		ret = i2c_arb_read_us(dev, "wait-retry-us", 3000,
				      USEC_PER_SEC, &t->retry_us);
	if (!ret)
		ret = i2c_arb_read_us(dev, "wait-free-us", 50000,
				      10 * USEC_PER_SEC, &t->free_us);
	if (ret)
		return ret;

	if (t->free_us < t->retry_us)
		return dev_err_probe(dev, -EINVAL,
				     "wait-free-us (%u) is below wait-retry-us (%u): a claim would give up within its first round\n",
				     t->free_us, t->retry_us);
	return 0;
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

	ret = i2c_arb_read_timing(dev, &arb->timing);
	if (ret)
		return ret;
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
