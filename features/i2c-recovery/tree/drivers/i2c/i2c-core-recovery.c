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
 * (driver callbacks or GPIOs set up at adapter registration):
 *
 *   - it checks first that SCL can go high at all; SCL held low is a hardware
 *     fault that clocking cannot fix, so it gives up with -EBUSY at once;
 *   - it stops as soon as the bus reads free, so a slave that needs k clocks
 *     gets exactly k;
 *   - when SDA can be driven, every clock carries a STOP: SDA is pulled low
 *     while SCL is low and released tSU;STO after SCL went high. As long as the
 *     slave holds SDA this is invisible; in the clock where the slave lets go
 *     it becomes a STOP that resets every slave's state machine. A STOP one bit
 *     after a byte boundary does not commit a half-written EEPROM page;
 *   - SDA still low after nine clocks means the slave is not merely out of
 *     step: -EBUSY.
 *
 * Pulse timing is standard mode with margin, so any I2C device can follow it.
 *
 * Locking: the generic routine assumes the caller owns the bus, which is the
 * case for bus drivers calling i2c_recover_bus() from their transfer path;
 * the debugfs trigger takes the root adapter lock itself. The counters have
 * their own spinlock because bus drivers may recover from any context.
 */

#include <kunit/visibility.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/gpio/consumer.h>
#include <linux/gpio/driver.h>
#include <linux/i2c.h>
#include <linux/pinctrl/consumer.h>
#include <linux/pinctrl/devinfo.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include "i2c-core.h"

/*
 * UM10204 table 10, standard mode: tLOW >= 4.7 us, tHIGH >= 4.0 us,
 * tSU;STO >= 4.0 us. One pulse lasts 10 us (100 kHz): SDA moves in the
 * middle of the low phase (well clear of the falling edge, as tHD;DAT
 * wants) and the STOP edge comes after the full tSU;STO.
 */
#define RECOVERY_TLOW_HALF_NS	2500
#define RECOVERY_TSU_STO_NS	4500
#define RECOVERY_THIGH_REST_NS	500
#define RECOVERY_MAX_PULSES	9
/* A slave may stretch the clock; longer than this is a stuck SCL. */
#define RECOVERY_STRETCH_MAX_US	100

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
 * Release SCL and wait until it reads high. A slave may legitimately stretch
 * the clock for a while; one that keeps it low past the limit has SCL stuck.
 */
static bool recovery_scl_released(struct i2c_adapter *adap)
{
	struct i2c_bus_recovery_info *bri = adap->bus_recovery_info;
	unsigned int waited_us = 0;

	bri->set_scl(adap, 1);
	while (!bri->get_scl(adap)) {
		if (waited_us++ >= RECOVERY_STRETCH_MAX_US)
			return false;
		udelay(1);
	}
	return true;
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

/* One clock pulse carrying a STOP (if SDA can be driven). */
static int recovery_pulse(struct i2c_adapter *adap)
{
	struct i2c_bus_recovery_info *bri = adap->bus_recovery_info;
	int ret;

	bri->set_scl(adap, 0);
	ndelay(RECOVERY_TLOW_HALF_NS);
	if (bri->set_sda)
		bri->set_sda(adap, 0);
	ndelay(RECOVERY_TLOW_HALF_NS);

	ret = recovery_scl_released(adap) ? 0 : -EBUSY;
	if (!ret)
		ndelay(RECOVERY_TSU_STO_NS);
	/* Released also when giving up: we must not be the one holding SDA. */
	if (bri->set_sda)
		bri->set_sda(adap, 1);
	ndelay(RECOVERY_THIGH_REST_NS);
	return ret;
}

/* Clock until the bus is free; returns the result, counts the pulses. */
static int recovery_clock_out(struct i2c_adapter *adap, unsigned int *pulses)
{
	int free = recovery_bus_free(adap);

	while (free != 1 && *pulses < RECOVERY_MAX_PULSES) {
		if (recovery_pulse(adap)) {
			dev_err(&adap->dev, "SCL is stuck low after %u pulses, exit recovery\n",
				*pulses);
			return -EBUSY;
		}
		(*pulses)++;
		free = recovery_bus_free(adap);
	}

	if (free == 0) {
		dev_err(&adap->dev, "SDA is still held low after %u pulses, exit recovery\n",
			*pulses);
		return -EBUSY;
	}
	/* Without a way to read the bus back, nine clocks is all we can do. */
	return free < 0 && free != -EOPNOTSUPP ? free : 0;
}

/**
 * i2c_generic_scl_recovery - recover the bus by clocking SCL
 * @adap: the adapter; its bus_recovery_info must provide get_scl() and
 *	set_scl(), and get_sda(), get_bus_free() or set_sda()
 *
 * Clocks SCL up to nine times until the bus reads free, sending a STOP with
 * the pulse in which the slave lets go when SDA can be driven. The caller
 * must own the bus (hold the adapter lock or be in its transfer path).
 *
 * Return: 0 when the bus is free (or after nine clocks when it cannot be
 * read back), -EBUSY when SCL is held low or SDA is still low after nine
 * clocks.
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
		ndelay(RECOVERY_TSU_STO_NS);
		ret = recovery_clock_out(adap, &pulses);
	} else {
		dev_err(&adap->dev, "SCL is stuck low, exit recovery\n");
		ret = -EBUSY;
	}

	recovery_select_pins(bri, false);
	if (bri->unprepare_recovery)
		bri->unprepare_recovery(adap);

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
 * Request an optional recovery GPIO: a missing one is fine, a deferring one
 * defers the adapter, any other error is reported and recovery goes on
 * without that line.
 */
static int recovery_get_gpio(struct i2c_adapter *adap, const char *con_id,
			     enum gpiod_flags flags, struct gpio_desc **out)
{
	struct gpio_desc *gpiod = devm_gpiod_get_optional(&adap->dev, con_id, flags);

	if (IS_ERR(gpiod)) {
		if (PTR_ERR(gpiod) == -EPROBE_DEFER)
			return -EPROBE_DEFER;
		dev_warn(&adap->dev, "not using %s GPIO for recovery: %pe\n",
			 con_id, gpiod);
		gpiod = NULL;
	}
	*out = gpiod;
	return 0;
}

/*
 * Find "scl" and "sda" GPIOs for generic recovery when the driver gave no
 * way to move SCL itself. SDA is requested open drain, so recovery can also
 * drive it and send STOPs.
 */
static int recovery_init_gpios(struct i2c_adapter *adap, bool *sda_drivable)
{
	struct i2c_bus_recovery_info *bri = adap->bus_recovery_info;
	struct gpio_desc *sda;
	int ret;

	if (bri->recover_bus && bri->recover_bus != i2c_generic_scl_recovery)
		return 0;
	if (bri->scl_gpiod || (bri->get_scl && bri->set_scl))
		return 0;

	recovery_select_pins(bri, true);
	ret = recovery_get_gpio(adap, "scl", GPIOD_OUT_HIGH_OPEN_DRAIN,
				&bri->scl_gpiod);
	if (ret || !bri->scl_gpiod)
		goto restore_pins;

	bri->recover_bus = i2c_generic_scl_recovery;
	dev_info(&adap->dev, "using generic GPIOs for recovery\n");
	if (bri->sda_gpiod)
		goto restore_pins;

	/*
	 * Taking SDA over may glitch it; with SCL low a glitch is a data bit
	 * change, never a START or STOP seen by the slaves.
	 */
	gpiod_set_value_cansleep(bri->scl_gpiod, 0);
	usleep_range(10, 20);
	ret = recovery_get_gpio(adap, "sda", GPIOD_OUT_HIGH_OPEN_DRAIN, &sda);
	usleep_range(10, 20);
	gpiod_set_value_cansleep(bri->scl_gpiod, 1);
	bri->sda_gpiod = sda;
	*sda_drivable = !!sda;

restore_pins:
	recovery_select_pins(bri, false);
	return ret;
}

static void recovery_use_gpios(struct i2c_bus_recovery_info *bri,
			       bool sda_drivable)
{
	bri->get_scl = recovery_gpio_get_scl;
	bri->set_scl = recovery_gpio_set_scl;
	if (!bri->sda_gpiod)
		return;
	bri->get_sda = recovery_gpio_get_sda;
	/* A driver-supplied SDA GPIO may only be driven if it is an output. */
	if (sda_drivable ||
	    gpiod_get_direction(bri->sda_gpiod) == GPIO_LINE_DIRECTION_OUT)
		bri->set_sda = recovery_gpio_set_sda;
}

/* NULL if the info can be used, else what is missing. */
static const char *recovery_info_problem(struct i2c_bus_recovery_info *bri)
{
	if (bri->recover_bus != i2c_generic_scl_recovery)
		return NULL;
	if (!bri->get_scl || !bri->set_scl)
		return "generic SCL recovery needs get_scl() and set_scl()";
	if (!bri->get_sda && !bri->set_sda && !bri->get_bus_free)
		return "generic SCL recovery needs get_sda(), set_sda() or get_bus_free()";
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
	bool sda_drivable = false;
	const char *problem;

	if (!bri)
		return 0;

	recovery_init_pinctrl(adap);
	if (recovery_init_gpios(adap, &sda_drivable) == -EPROBE_DEFER)
		return -EPROBE_DEFER;

	if (!bri->recover_bus) {
		/* Drivers may offer recovery only if the board wired GPIOs. */
		dev_dbg(&adap->dev, "Not using recovery: no recover_bus() and no SCL GPIO\n");
		adap->bus_recovery_info = NULL;
		return -EINVAL;
	}
	if (bri->scl_gpiod && bri->recover_bus == i2c_generic_scl_recovery)
		recovery_use_gpios(bri, sda_drivable);

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
	unsigned int val;
	int ret;

	ret = kstrtouint_from_user(buf, count, 0, &val);
	if (ret)
		return ret;
	if (val != 1)
		return -EINVAL;

	i2c_lock_bus(adap, I2C_LOCK_ROOT_ADAPTER);
	ret = i2c_recover_bus(adap);
	i2c_unlock_bus(adap, I2C_LOCK_ROOT_ADAPTER);
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
