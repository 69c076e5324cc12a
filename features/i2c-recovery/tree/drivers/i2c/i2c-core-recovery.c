// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * I2C bus recovery ("bus clear", UM10204 3.1.16)
 *
 * A slave that missed clock edges in the middle of a byte, typically because
 * the master was reset or a transfer was aborted, keeps driving SDA low while
 * it waits for the rest of its byte. No START can be made on such a bus. The
 * specification's answer is to clock SCL until the slave has shifted out what
 * it thinks is left of its frame and lets SDA go: at most nine clocks (eight
 * data bits and an acknowledge).
 *
 * The generic algorithm here does that through the adapter's line accessors
 * (driver callbacks or GPIOs set up at adapter registration), and keeps the
 * observable behaviour bus drivers have relied on since 6.12:
 *
 *   - it always sends at least one clock, and (when SDA can be driven) each
 *     clock carries a STOP, so callers can use recovery as a forced bus reset
 *     and controllers whose busy flag clears only on a STOP see one;
 *   - it stops as soon as the bus reads free after a clock, so a slave that
 *     needs k clocks gets exactly k; a STOP one bit after a byte boundary
 *     does not commit a half-written EEPROM page;
 *   - without any way to read the bus back (an SCL GPIO only) it sends nine
 *     clocks blind and reports success;
 *   - SCL that stays low for the SMBus tTIMEOUT is a hardware fault clocking
 *     cannot fix: -EBUSY. SDA still low after nine clocks means the slave is
 *     not merely out of step: -EBUSY too, with its own message.
 *
 * Timing is standard mode, measured from the lines as read back, so a slow
 * (1 us rise time) bus gets the full margins: the STOP has its set-up time
 * after SCL reads high, SDA is sampled only after its own rise time, and the
 * last clock is followed by the bus-free time before the caller's START.
 *
 * Locking: the generic routine assumes the caller owns the bus, which is the
 * case for bus drivers calling i2c_recover_bus() from their transfer path;
 * the debugfs trigger takes the root adapter lock and resumes the parent
 * device itself. The counters have their own spinlock because bus drivers
 * may recover from any context.
 */

#include <kunit/visibility.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/gpio/consumer.h>
#include <linux/gpio/driver.h>
#include <linux/i2c.h>
#include <linux/ktime.h>
#include <linux/pinctrl/consumer.h>
#include <linux/pinctrl/devinfo.h>
#include <linux/pm_runtime.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include "i2c-core.h"

/*
 * UM10204 table 10, standard mode: tLOW >= 4.7 us, tHIGH >= 4.0 us,
 * tSU;STO >= 4.0 us, tBUF >= 4.7 us, rise time tr <= 1 us. SDA moves in
 * the middle of the low phase, well clear of the falling edge (tHD;DAT).
 * The high phase counts from SCL reading high, so a slow rise eats none of
 * it: tSU;STO, then the STOP, then SDA's own rise before it is sampled.
 * tBUF separates a STOP from the next START, and no START is made while
 * clocking, so it is waited once, after the last clock.
 */
#define RECOVERY_TLOW_HALF_NS	2500
#define RECOVERY_TSU_STO_NS	5000
#define RECOVERY_TBUF_NS	5000
/*
 * tr is measured from 30 % to 70 % of VDD. A released line charges like an
 * RC: it reaches the 70 % input threshold about 1.4 tr after the release,
 * so with standard mode's tr of 1 us SDA is read back 2 us after it is let
 * go, not 1 us, when it may still be read low.
 */
#define RECOVERY_SDA_HIGH_NS	2000
#define RECOVERY_MAX_PULSES	9
/*
 * A slave may stretch the clock; SMBus gives up on SCL held low after
 * tTIMEOUT (25..35 ms), so do we: a device that holds it longer is stuck.
 */
#define RECOVERY_TTIMEOUT_US	30000

/* Accessors used when recovery runs on the adapter's SCL/SDA GPIOs. */
static int recovery_gpio_get_scl(struct i2c_adapter *adap)
{
	return gpiod_get_value_cansleep(adap->bus_recovery_info->scl_gpiod);
}

static void recovery_gpio_set_scl(struct i2c_adapter *adap, int val)
{
	gpiod_set_value_cansleep(adap->bus_recovery_info->scl_gpiod, val);
}

static int recovery_gpio_get_sda(struct i2c_adapter *adap)
{
	return gpiod_get_value_cansleep(adap->bus_recovery_info->sda_gpiod);
}

static void recovery_gpio_set_sda(struct i2c_adapter *adap, int val)
{
	gpiod_set_value_cansleep(adap->bus_recovery_info->sda_gpiod, val);
}

/* The counters live as a devres of the adapter device, released with it. */
static void recovery_stats_release(struct device *dev, void *res)
{
}

static struct i2c_recovery_stats *recovery_stats(struct i2c_adapter *adap)
{
	return devres_find(&adap->dev, recovery_stats_release, NULL, NULL);
}

static void recovery_stats_add(struct i2c_adapter *adap)
{
	struct i2c_recovery_stats *stats;

	if (recovery_stats(adap))
		return;
	stats = devres_alloc(recovery_stats_release, sizeof(*stats), GFP_KERNEL);
	if (!stats)
		return;	/* recovery works without its counters */
	spin_lock_init(&stats->lock);
	devres_add(&adap->dev, stats);
}

static void recovery_count_pulses(struct i2c_adapter *adap, unsigned int pulses)
{
	struct i2c_recovery_stats *stats = recovery_stats(adap);
	unsigned long flags;

	if (!stats)
		return;
	spin_lock_irqsave(&stats->lock, flags);
	stats->pulses += pulses;
	stats->last_pulses = pulses;
	spin_unlock_irqrestore(&stats->lock, flags);
}

static void recovery_count_result(struct i2c_adapter *adap, int ret)
{
	struct i2c_recovery_stats *stats = recovery_stats(adap);
	unsigned long flags;

	if (!stats)
		return;
	spin_lock_irqsave(&stats->lock, flags);
	stats->attempts++;
	if (ret)
		stats->failed++;
	else
		stats->recovered++;
	stats->last_result = ret;
	spin_unlock_irqrestore(&stats->lock, flags);
}

/**
 * i2c_recovery_read_stats - copy an adapter's recovery counters
 * @adap: the adapter
 * @out: where to copy them
 *
 * Return: 0, or -ENODEV if the adapter has no recovery (or no counters).
 */
int i2c_recovery_read_stats(struct i2c_adapter *adap,
			    struct i2c_recovery_stats *out)
{
	struct i2c_recovery_stats *stats = recovery_stats(adap);
	unsigned long flags;

	if (!stats)
		return -ENODEV;
	spin_lock_irqsave(&stats->lock, flags);
	out->attempts = stats->attempts;
	out->recovered = stats->recovered;
	out->failed = stats->failed;
	out->pulses = stats->pulses;
	out->last_pulses = stats->last_pulses;
	out->last_result = stats->last_result;
	spin_unlock_irqrestore(&stats->lock, flags);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(i2c_recovery_read_stats);

static void recovery_select_pins(struct i2c_bus_recovery_info *bri, bool gpio)
{
	if (bri->pinctrl)
		pinctrl_select_state(bri->pinctrl,
				     gpio ? bri->pins_gpio : bri->pins_default);
}

/*
 * Release SCL and wait until it reads high: a slow rise or a slave
 * stretching the clock is waited for, up to the SMBus tTIMEOUT (wall time).
 * Busy-waits, as the whole routine does: callers may be atomic.
 */
static bool recovery_scl_released(struct i2c_adapter *adap)
{
	struct i2c_bus_recovery_info *bri = adap->bus_recovery_info;
	ktime_t deadline;

	bri->set_scl(adap, 1);
	if (bri->get_scl(adap))
		return true;

	deadline = ktime_add_us(ktime_get(), RECOVERY_TTIMEOUT_US);
	while (ktime_before(ktime_get(), deadline)) {
		udelay(2);
		if (bri->get_scl(adap))
			return true;
	}
	/* One last look: we may have been preempted past the deadline. */
	return bri->get_scl(adap);
}

/* 1: SDA is free, 0: still held, -EOPNOTSUPP: no way to tell. */
static int recovery_bus_free(struct i2c_adapter *adap)
{
	struct i2c_bus_recovery_info *bri = adap->bus_recovery_info;
	int free;

	/* The controller may know better than the bare SDA level. */
	if (bri->get_bus_free)
		free = bri->get_bus_free(adap);
	else if (bri->get_sda)
		free = bri->get_sda(adap);
	else
		return -EOPNOTSUPP;

	return free < 0 ? free : !!free;
}

/*
 * One clock pulse, carrying a STOP if SDA can be driven: SDA low while SCL
 * is low, released tSU;STO after SCL reads high. While a slave holds SDA the
 * STOP is invisible; in the clock where it lets go it resets every slave.
 */
static int recovery_pulse(struct i2c_adapter *adap)
{
	struct i2c_bus_recovery_info *bri = adap->bus_recovery_info;
	bool released;

	bri->set_scl(adap, 0);
	ndelay(RECOVERY_TLOW_HALF_NS);
	if (bri->set_sda)
		bri->set_sda(adap, 0);
	ndelay(RECOVERY_TLOW_HALF_NS);

	released = recovery_scl_released(adap);
	if (released)
		ndelay(RECOVERY_TSU_STO_NS);
	/* Released also when giving up: we must not be the one holding SDA. */
	if (bri->set_sda)
		bri->set_sda(adap, 1);
	/* A slave that let go has SDA rising now: let it reach VIH. */
	ndelay(RECOVERY_SDA_HIGH_NS);
	return released ? 0 : -EBUSY;
}

/*
 * Clock at least once (the STOP of a forced reset), then until the bus
 * reads free; returns the result and counts the pulses.
 */
static int recovery_clock_out(struct i2c_adapter *adap, unsigned int *pulses)
{
	int free;

	do {
		if (recovery_pulse(adap)) {
			dev_err_ratelimited(&adap->dev,
					    "SCL is stuck low, exit recovery\n");
			return -EBUSY;
		}
		(*pulses)++;
		free = recovery_bus_free(adap);
	} while (free != 1 && *pulses < RECOVERY_MAX_PULSES);
	/* What follows may be a START: the last STOP gets its bus-free time. */
	ndelay(RECOVERY_TBUF_NS);

	if (free == 0) {
		dev_err_ratelimited(&adap->dev,
				    "SDA is still held low after %u pulses, exit recovery\n",
				    *pulses);
		return -EBUSY;
	}
	/* Without a way to read the bus back, nine clocks is all we can do. */
	return free < 0 && free != -EOPNOTSUPP ? free : 0;
}

/**
 * i2c_generic_scl_recovery - recover the bus by clocking SCL
 * @adap: the adapter; its bus_recovery_info must provide get_scl() and
 *	set_scl(); get_bus_free() or get_sda() read the bus back, set_sda()
 *	sends STOPs, and with neither nine clocks are sent blind
 *
 * Clocks SCL at least once and up to nine times until the bus reads free,
 * each clock carrying a STOP when SDA can be driven. The caller must own
 * the bus (hold the adapter lock or be in its transfer path).
 *
 * Return: 0 when the bus is free (or after nine clocks when it cannot be
 * read back), -EBUSY when SCL is held low for the SMBus tTIMEOUT or SDA is
 * still low after nine clocks.
 */
int i2c_generic_scl_recovery(struct i2c_adapter *adap)
{
	struct i2c_bus_recovery_info *bri = adap->bus_recovery_info;
	unsigned int pulses = 0;
	int ret;

	if (!bri || !bri->get_scl || !bri->set_scl)
		return -EOPNOTSUPP;

	if (bri->prepare_recovery)
		bri->prepare_recovery(adap);
	recovery_select_pins(bri, true);

	/* Start from a released bus: SDA first, so SCL high finds no START. */
	if (bri->set_sda)
		bri->set_sda(adap, 1);
	if (recovery_scl_released(adap)) {
		ndelay(RECOVERY_TBUF_NS);
		ret = recovery_clock_out(adap, &pulses);
	} else {
		dev_err_ratelimited(&adap->dev, "SCL is stuck low, exit recovery\n");
		ret = -EBUSY;
	}

	/*
	 * As in 6.12: the controller is set up again (designware re-inits,
	 * pxa resets a busy block) while the pins are still GPIOs, and only
	 * then gets them back, so it never drives the bus half-initialised.
	 */
	if (bri->unprepare_recovery)
		bri->unprepare_recovery(adap);
	recovery_select_pins(bri, false);

	recovery_count_pulses(adap, pulses);
	return ret;
}
EXPORT_SYMBOL_GPL(i2c_generic_scl_recovery);

/**
 * i2c_recover_bus - run the adapter's bus recovery
 * @adap: the adapter, owned by the caller (its bus lock held)
 *
 * Return: the result of the adapter's recover_bus() routine, or -EBUSY if
 * the adapter has no recovery.
 */
int i2c_recover_bus(struct i2c_adapter *adap)
{
	int ret;

	if (!adap->bus_recovery_info)
		return -EBUSY;

	dev_dbg(&adap->dev, "Trying i2c bus recovery\n");
	ret = adap->bus_recovery_info->recover_bus(adap);
	recovery_count_result(adap, ret);
	return ret;
}
EXPORT_SYMBOL_GPL(i2c_recover_bus);

static struct pinctrl_state *recovery_pin_state(struct pinctrl *p,
						const char *name)
{
	struct pinctrl_state *s = pinctrl_lookup_state(p, name);

	return IS_ERR(s) ? NULL : s;
}

/*
 * Switching the pins between the I2C function and GPIO needs both states;
 * with only one of them we must not touch pinctrl at all.
 */
static void recovery_init_pinctrl(struct i2c_adapter *adap)
{
	struct i2c_bus_recovery_info *bri = adap->bus_recovery_info;
	struct device *parent = adap->dev.parent;
	struct pinctrl *p = bri->pinctrl;

	if (!p && parent)
		p = dev_pinctrl(parent);
	if (p) {
		if (!bri->pins_default)
			bri->pins_default = recovery_pin_state(p, PINCTRL_STATE_DEFAULT);
		if (!bri->pins_gpio)
			bri->pins_gpio = recovery_pin_state(p, "gpio");
		if (!bri->pins_gpio)
			bri->pins_gpio = recovery_pin_state(p, "recovery");
	}

	if (p && bri->pins_default && bri->pins_gpio) {
		bri->pinctrl = p;
		dev_info(&adap->dev, "using pinctrl states for GPIO recovery");
		return;
	}
	bri->pinctrl = NULL;
	bri->pins_default = NULL;
	bri->pins_gpio = NULL;
}

/*
 * Look up a recovery GPIO the board may have wired: 1 when found, 0 when
 * not (any error but a deferral means "not wired", as it always has).
 */
static int recovery_get_gpio(struct i2c_adapter *adap, const char *con_id,
			     enum gpiod_flags flags, struct gpio_desc **out)
{
	struct gpio_desc *gpiod = devm_gpiod_get(&adap->dev, con_id, flags);

	if (IS_ERR(gpiod)) {
		if (PTR_ERR(gpiod) == -EPROBE_DEFER)
			return -EPROBE_DEFER;
		dev_dbg(&adap->dev, "no %s GPIO for recovery: %pe\n", con_id, gpiod);
		return 0;
	}
	*out = gpiod;
	return 1;
}

/*
 * SDA is only read back, so it is requested as an input: the core never
 * drives an SDA line it found itself. Taking it over may glitch it; with
 * SCL held low a glitch is a data bit change, never a START or a STOP.
 */
static int recovery_get_sda_gpio(struct i2c_adapter *adap)
{
	struct i2c_bus_recovery_info *bri = adap->bus_recovery_info;
	int ret;

	if (bri->scl_gpiod)
		gpiod_direction_output(bri->scl_gpiod, 0);
	usleep_range(10, 20);
	ret = recovery_get_gpio(adap, "sda", GPIOD_IN, &bri->sda_gpiod);
	usleep_range(10, 20);
	if (bri->scl_gpiod)
		gpiod_direction_output(bri->scl_gpiod, 1);
	return ret;
}

/*
 * Generic recovery (or none yet): the board's "scl" GPIO, when wired, is
 * what recovery clocks, also over a driver's own get/set_scl; "sda" is
 * optional. Only a deferral is an error.
 */
static int recovery_init_gpios(struct i2c_adapter *adap)
{
	struct i2c_bus_recovery_info *bri = adap->bus_recovery_info;
	int ret = 0;

	if (bri->recover_bus && bri->recover_bus != i2c_generic_scl_recovery)
		return 0;

	recovery_select_pins(bri, true);
	if (!bri->scl_gpiod) {
		ret = recovery_get_gpio(adap, "scl", GPIOD_OUT_HIGH_OPEN_DRAIN,
					&bri->scl_gpiod);
		if (ret < 0)
			goto restore_pins;
		if (ret) {
			bri->recover_bus = i2c_generic_scl_recovery;
			dev_info(&adap->dev, "using generic GPIOs for recovery\n");
		}
	}
	if (!bri->sda_gpiod)
		ret = recovery_get_sda_gpio(adap);

restore_pins:
	recovery_select_pins(bri, false);
	return ret < 0 ? ret : 0;
}

/*
 * Recovery on GPIOs: SCL is clocked, SDA (if any) read back, and driven
 * only if it was handed over as an output by the driver.
 */
static void recovery_use_gpios(struct i2c_bus_recovery_info *bri)
{
	bri->get_scl = recovery_gpio_get_scl;
	bri->set_scl = recovery_gpio_set_scl;
	if (!bri->sda_gpiod)
		return;
	bri->get_sda = recovery_gpio_get_sda;
	if (gpiod_get_direction(bri->sda_gpiod) == GPIO_LINE_DIRECTION_OUT)
		bri->set_sda = recovery_gpio_set_sda;
}

/* NULL if driver-supplied callbacks can be used, else what is missing. */
static const char *recovery_info_problem(struct i2c_bus_recovery_info *bri)
{
	if (bri->recover_bus != i2c_generic_scl_recovery)
		return NULL;
	if (!bri->get_scl || !bri->set_scl)
		return "no {get|set}_scl() found";
	if (!bri->get_sda && !bri->set_sda)
		return "either get_sda() or set_sda() needed";
	return NULL;
}

/**
 * i2c_init_recovery - validate and complete an adapter's recovery info
 * @adap: the adapter being registered
 *
 * Called from i2c_register_adapter(). Looks up pinctrl states and SCL/SDA
 * GPIOs where the driver left them to the core. Incomplete info is reported
 * and recovery disabled for the adapter (bus_recovery_info set to NULL).
 *
 * Return: 0, -EPROBE_DEFER if a recovery GPIO is not there yet, -EINVAL if
 * the info was unusable (the adapter still registers, without recovery).
 */
int i2c_init_recovery(struct i2c_adapter *adap)
{
	struct i2c_bus_recovery_info *bri = adap->bus_recovery_info;
	const char *problem = NULL;

	if (!bri)
		return 0;

	recovery_init_pinctrl(adap);
	if (recovery_init_gpios(adap) == -EPROBE_DEFER)
		return -EPROBE_DEFER;

	if (!bri->recover_bus) {
		/* Drivers may offer recovery only if the board wired GPIOs. */
		dev_dbg(&adap->dev, "Not using recovery: no suitable method provided\n");
		adap->bus_recovery_info = NULL;
		return -EINVAL;
	}
	if (bri->scl_gpiod && bri->recover_bus == i2c_generic_scl_recovery)
		recovery_use_gpios(bri);
	else
		problem = recovery_info_problem(bri);
	if (problem) {
		dev_err(&adap->dev, "Not using recovery: %s\n", problem);
		adap->bus_recovery_info = NULL;
		return -EINVAL;
	}

	recovery_stats_add(adap);
	return 0;
}

static int recovery_stats_show(struct seq_file *s, void *unused)
{
	struct i2c_recovery_stats st;
	int ret = i2c_recovery_read_stats(s->private, &st);

	if (ret)
		return ret;
	seq_printf(s, "attempts: %llu\nrecovered: %llu\nfailed: %llu\n",
		   st.attempts, st.recovered, st.failed);
	seq_printf(s, "pulses: %llu\nlast_pulses: %u\nlast_result: %d\n",
		   st.pulses, st.last_pulses, st.last_result);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(recovery_stats);

/* Writing "1" runs a recovery now, as a bus driver would. */
static ssize_t recovery_trigger_write(struct file *file, const char __user *buf,
				      size_t count, loff_t *ppos)
{
	struct i2c_adapter *adap = file->private_data;
	struct device *parent = adap->dev.parent;
	unsigned int val;
	int ret;

	ret = kstrtouint_from_user(buf, count, 0, &val);
	if (ret)
		return ret;
	if (val != 1)
		return -EINVAL;

	/*
	 * As in a transfer: the bus is ours and the controller powered. A
	 * parent without runtime PM (-EACCES) is as its driver left it.
	 */
	ret = parent ? pm_runtime_get_sync(parent) : 0;
	if (ret < 0 && ret != -EACCES) {
		pm_runtime_put_noidle(parent);
		return ret;
	}
	i2c_lock_bus(adap, I2C_LOCK_ROOT_ADAPTER);
	ret = i2c_recover_bus(adap);
	i2c_unlock_bus(adap, I2C_LOCK_ROOT_ADAPTER);
	if (parent)
		pm_runtime_put(parent);
	return ret ?: count;
}

static const struct file_operations recovery_trigger_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = recovery_trigger_write,
	.llseek = noop_llseek,
};

/**
 * i2c_recovery_debugfs_init - add recovery files to the adapter's debugfs
 * @adap: a registered adapter whose recovery info passed i2c_init_recovery()
 *
 * recovery_stats reads the counters; writing 1 to recover_bus runs recovery.
 * Both go with the adapter's debugfs directory.
 */
void i2c_recovery_debugfs_init(struct i2c_adapter *adap)
{
	if (!adap->bus_recovery_info || !recovery_stats(adap))
		return;
	debugfs_create_file("recovery_stats", 0444, adap->debugfs, adap,
			    &recovery_stats_fops);
	debugfs_create_file("recover_bus", 0200, adap->debugfs, adap,
			    &recovery_trigger_fops);
}
