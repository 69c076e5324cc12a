// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * KUnit tests for I2C bus recovery (i2c-core-recovery.c).
 *
 * Each test registers a real adapter whose recovery callbacks drive a fake
 * bus: two open-drain wires, a master side (what recovery sets) and a slave
 * that holds SDA low until it has seen a given number of SCL falling edges,
 * as a slave cut off in the middle of a byte does. The fake records edges,
 * STOP and START conditions and the time between edges, so the tests check
 * what the slave would see on a real bus, not how the code is written.
 */

#include <kunit/device.h>
#include <kunit/test.h>
#include <kunit/visibility.h>
#include <linux/i2c.h>
#include <linux/ktime.h>

#include "../i2c-core.h"

#define FRAME_CLOCKS	9	/* eight data bits and the acknowledge */
#define HOLDS_FOREVER	-1

struct fake_bus {
	struct i2c_adapter adap;
	struct i2c_bus_recovery_info bri;
	bool master_scl, master_sda;	/* true: released */
	int falls_to_release;		/* slave lets SDA go after this many */
	bool slave_sda_low;
	bool scl_held;
	int scl_held_after_falls;	/* 0: never */
	unsigned int stretch_reads, stretch_left;
	unsigned int busy_answers;	/* get_bus_free() says busy this often */
	unsigned int rises, falls, starts, stops;
	bool stop_after_release;
	u64 t_rise, t_fall, min_tlow, min_thigh, min_tsu_sto;
	u64 min_sample;			/* SDA read this long after SCL rose */
	u64 t_stop, t_sample;		/* last STOP, last read of the bus */
	u64 stop_to_unprepare, sample_to_unprepare;
	unsigned int prepared, unprepared, own_recoveries;
};

static struct fake_bus *to_fake(struct i2c_adapter *adap)
{
	return container_of(adap, struct fake_bus, adap);
}

static bool scl_level(struct fake_bus *bus)
{
	return bus->master_scl && !bus->scl_held;
}

static bool sda_level(struct fake_bus *bus)
{
	return bus->master_sda && !bus->slave_sda_low;
}

static void track_min(u64 *min, u64 from, u64 to)
{
	if (from && (!*min || to - from < *min))
		*min = to - from;
}

static void fake_scl_fell(struct fake_bus *bus, u64 now)
{
	bus->falls++;
	track_min(&bus->min_thigh, bus->t_rise, now);
	bus->t_fall = now;
	if (bus->falls_to_release > 0 && --bus->falls_to_release == 0)
		bus->slave_sda_low = false;
	if (bus->scl_held_after_falls && bus->falls == bus->scl_held_after_falls)
		bus->scl_held = true;
}

static void fake_set_scl(struct i2c_adapter *adap, int val)
{
	struct fake_bus *bus = to_fake(adap);
	bool was = scl_level(bus);
	u64 now = ktime_get_ns();

	bus->master_scl = val;
	if (was && !scl_level(bus)) {
		fake_scl_fell(bus, now);
	} else if (!was && scl_level(bus)) {
		bus->rises++;
		track_min(&bus->min_tlow, bus->t_fall, now);
		bus->t_rise = now;
		bus->stretch_left = bus->stretch_reads;
	}
}

static int fake_get_scl(struct i2c_adapter *adap)
{
	struct fake_bus *bus = to_fake(adap);

	if (bus->stretch_left) {
		bus->stretch_left--;
		return 0;
	}
	return scl_level(bus);
}

static void fake_set_sda(struct i2c_adapter *adap, int val)
{
	struct fake_bus *bus = to_fake(adap);
	bool was = sda_level(bus);

	bus->master_sda = val;
	if (!scl_level(bus) || was == sda_level(bus))
		return;
	if (sda_level(bus)) {
		bus->stops++;
		bus->t_stop = ktime_get_ns();
		track_min(&bus->min_tsu_sto, bus->t_rise, bus->t_stop);
		bus->stop_after_release = !bus->slave_sda_low;
	} else {
		bus->starts++;
	}
}

/* When recovery reads SDA back, SCL has been high for how long? */
static void fake_sampled(struct fake_bus *bus)
{
	bus->t_sample = ktime_get_ns();
	if (scl_level(bus))
		track_min(&bus->min_sample, bus->t_rise, bus->t_sample);
}

static int fake_get_sda(struct i2c_adapter *adap)
{
	struct fake_bus *bus = to_fake(adap);

	fake_sampled(bus);
	return sda_level(bus);
}

static int fake_get_bus_free(struct i2c_adapter *adap)
{
	struct fake_bus *bus = to_fake(adap);

	fake_sampled(bus);
	if (bus->busy_answers) {
		bus->busy_answers--;
		return 0;
	}
	return sda_level(bus);
}

static void fake_prepare(struct i2c_adapter *adap)
{
	to_fake(adap)->prepared++;
}

/* Unprepare hands the bus back: the controller's START may follow at once. */
static void fake_unprepare(struct i2c_adapter *adap)
{
	struct fake_bus *bus = to_fake(adap);

	u64 now = ktime_get_ns();

	bus->unprepared++;
	if (bus->t_stop)
		bus->stop_to_unprepare = now - bus->t_stop;
	if (bus->t_sample)
		bus->sample_to_unprepare = now - bus->t_sample;
}

static int fake_own_recovery(struct i2c_adapter *adap)
{
	to_fake(adap)->own_recoveries++;
	return -EIO;
}

static int fake_xfer(struct i2c_adapter *adap, struct i2c_msg *msgs, int num)
{
	return -EOPNOTSUPP;
}

static u32 fake_functionality(struct i2c_adapter *adap)
{
	return I2C_FUNC_I2C;
}

static const struct i2c_algorithm fake_algo = {
	.master_xfer = fake_xfer,
	.functionality = fake_functionality,
};

/* A fake bus with every callback; tests remove what they do not want. */
static int fake_bus_init(struct kunit *test)
{
	struct fake_bus *bus = kunit_kzalloc(test, sizeof(*bus), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, bus);
	bus->master_scl = true;
	bus->master_sda = true;
	bus->bri = (struct i2c_bus_recovery_info) {
		.recover_bus = i2c_generic_scl_recovery,
		.get_scl = fake_get_scl,
		.set_scl = fake_set_scl,
		.get_sda = fake_get_sda,
		.set_sda = fake_set_sda,
		.prepare_recovery = fake_prepare,
		.unprepare_recovery = fake_unprepare,
	};
	test->priv = bus;
	return 0;
}

static void fake_bus_del(void *adap)
{
	i2c_del_adapter(adap);
}

/* Register the adapter, as a bus driver does, with the info as it stands. */
static struct fake_bus *fake_bus_register(struct kunit *test)
{
	struct fake_bus *bus = test->priv;
	struct device *parent = kunit_device_register(test, "i2c-recovery-test");

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, parent);
	bus->adap.owner = THIS_MODULE;
	bus->adap.algo = &fake_algo;
	bus->adap.dev.parent = parent;
	bus->adap.bus_recovery_info = &bus->bri;
	strscpy(bus->adap.name, "i2c-recovery-test", sizeof(bus->adap.name));
	KUNIT_ASSERT_EQ(test, i2c_add_adapter(&bus->adap), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, fake_bus_del, &bus->adap), 0);
	return bus;
}

/* The slave needs @clocks more falling edges on SCL before it lets go. */
static void slave_stuck(struct fake_bus *bus, int clocks)
{
	bus->falls_to_release = clocks;
	bus->slave_sda_low = true;
}

static int recover(struct fake_bus *bus)
{
	int ret;

	i2c_lock_bus(&bus->adap, I2C_LOCK_ROOT_ADAPTER);
	ret = i2c_recover_bus(&bus->adap);
	i2c_unlock_bus(&bus->adap, I2C_LOCK_ROOT_ADAPTER);
	return ret;
}

static const int stuck_bits[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8 };

static void stuck_bit_desc(const int *bit, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "cut at bit %d, %d clocks to go",
		 *bit, FRAME_CLOCKS - *bit);
}

KUNIT_ARRAY_PARAM(stuck_bit, stuck_bits, stuck_bit_desc);

/*
 * A slave cut at bit k of its 9-bit frame needs 9 - k clocks: recovery must
 * give exactly those (no more: each extra clock is a bit the slave may act
 * on), report success, and leave SDA high.
 */
static void recovery_frees_a_slave_cut_at_any_bit_with_just_the_clocks_it_needs(struct kunit *test)
{
	struct fake_bus *bus = fake_bus_register(test);
	int bit = *(const int *)test->param_value;

	slave_stuck(bus, FRAME_CLOCKS - bit);
	KUNIT_EXPECT_EQ(test, recover(bus), 0);
	KUNIT_EXPECT_EQ(test, bus->rises, FRAME_CLOCKS - bit);
	KUNIT_EXPECT_TRUE(test, sda_level(bus));
	KUNIT_EXPECT_TRUE(test, scl_level(bus));
}

/* The clock in which the slave lets go carries a STOP, and only that one. */
static void recovery_ends_with_a_stop_once_the_slave_lets_go(struct kunit *test)
{
	struct fake_bus *bus = fake_bus_register(test);

	slave_stuck(bus, 4);
	KUNIT_EXPECT_EQ(test, recover(bus), 0);
	KUNIT_EXPECT_EQ(test, bus->stops, 1);
	KUNIT_EXPECT_TRUE(test, bus->stop_after_release);
	KUNIT_EXPECT_EQ(test, bus->starts, 0);
}

/* get_sda() alone still frees the bus; no STOP can be made without set_sda(). */
static void recovery_without_sda_drive_frees_the_bus_without_a_stop(struct kunit *test)
{
	struct fake_bus *bus = test->priv;

	bus->bri.set_sda = NULL;
	fake_bus_register(test);
	slave_stuck(bus, 5);
	KUNIT_EXPECT_EQ(test, recover(bus), 0);
	KUNIT_EXPECT_EQ(test, bus->rises, 5);
	KUNIT_EXPECT_EQ(test, bus->stops, 0);
}

/* Without read-back all nine clocks go out, and recovery assumes success. */
static void recovery_without_sda_readback_sends_nine_clocks_and_succeeds(struct kunit *test)
{
	struct fake_bus *bus = test->priv;

	bus->bri.get_sda = NULL;
	fake_bus_register(test);
	slave_stuck(bus, 2);
	KUNIT_EXPECT_EQ(test, recover(bus), 0);
	KUNIT_EXPECT_EQ(test, bus->rises, FRAME_CLOCKS);
	KUNIT_EXPECT_GE(test, bus->stops, 1);
	KUNIT_EXPECT_TRUE(test, sda_level(bus));
}

/* A slave still holding SDA after nine clocks is not out of step: -EBUSY. */
static void recovery_gives_up_with_ebusy_after_nine_clocks(struct kunit *test)
{
	struct fake_bus *bus = fake_bus_register(test);

	slave_stuck(bus, HOLDS_FOREVER);
	KUNIT_EXPECT_EQ(test, recover(bus), -EBUSY);
	KUNIT_EXPECT_EQ(test, bus->rises, FRAME_CLOCKS);
}

/*
 * SCL held low cannot be clocked: after the SMBus tTIMEOUT (25..35 ms) a
 * slave stretching the clock would have let go, so it is stuck: -EBUSY,
 * without a single pulse.
 */
static void recovery_gives_up_on_scl_held_low_after_smbus_ttimeout(struct kunit *test)
{
	struct fake_bus *bus = fake_bus_register(test);
	ktime_t start;
	s64 waited;
	int ret;

	slave_stuck(bus, 3);
	bus->scl_held = true;
	start = ktime_get();
	ret = recover(bus);
	waited = ktime_ms_delta(ktime_get(), start);
	KUNIT_EXPECT_EQ(test, ret, -EBUSY);
	KUNIT_EXPECT_EQ(test, bus->falls, 0);
	KUNIT_EXPECT_GE(test, waited, 25);
	KUNIT_EXPECT_LE(test, waited, 35);
}

/* SCL that stays low in the middle of the clocks also ends recovery. */
static void recovery_stops_with_ebusy_when_scl_sticks_midway(struct kunit *test)
{
	struct fake_bus *bus = fake_bus_register(test);

	slave_stuck(bus, 7);
	bus->scl_held_after_falls = 3;
	KUNIT_EXPECT_EQ(test, recover(bus), -EBUSY);
	KUNIT_EXPECT_EQ(test, bus->falls, 3);
	KUNIT_EXPECT_EQ(test, bus->rises, 2);
	KUNIT_EXPECT_TRUE(test, bus->master_sda);
}

/* A slave stretching the clock for a few microseconds is waited for. */
static void recovery_waits_for_a_slave_stretching_the_clock(struct kunit *test)
{
	struct fake_bus *bus = fake_bus_register(test);

	slave_stuck(bus, 6);
	bus->stretch_reads = 20;
	KUNIT_EXPECT_EQ(test, recover(bus), 0);
	KUNIT_EXPECT_EQ(test, bus->rises, 6);
}

/*
 * Recovery doubles as a forced bus reset (i2c-fsi), and some controllers
 * clear their busy flag only on a STOP: as in 6.12, a bus that already
 * reads free still gets one clock, and the STOP.
 */
static void recovery_of_a_free_bus_sends_one_clock_and_a_stop(struct kunit *test)
{
	struct fake_bus *bus = fake_bus_register(test);

	KUNIT_EXPECT_EQ(test, recover(bus), 0);
	KUNIT_EXPECT_EQ(test, bus->rises, 1);
	KUNIT_EXPECT_EQ(test, bus->stops, 1);
	KUNIT_EXPECT_EQ(test, bus->starts, 0);
}

/*
 * Standard mode, which every I2C device follows: tLOW >= 4.7 us,
 * tHIGH >= 4.0 us, the STOP's set-up time tSU;STO >= 4.0 us (we keep
 * 4.7 us), and SDA is read back only after SCL has been high for tHIGH, so
 * a slow rising edge cannot make a free bus look held.
 */
static void recovery_clocks_meet_standard_mode_timing(struct kunit *test)
{
	struct fake_bus *bus = fake_bus_register(test);

	slave_stuck(bus, FRAME_CLOCKS);
	KUNIT_ASSERT_EQ(test, recover(bus), 0);
	KUNIT_ASSERT_EQ(test, bus->stops, 1);
	KUNIT_EXPECT_GE(test, bus->min_tlow, 4700);
	KUNIT_EXPECT_GE(test, bus->min_thigh, 4000);
	KUNIT_EXPECT_GE(test, bus->min_tsu_sto, 4700);
	KUNIT_EXPECT_GE(test, bus->min_sample, 4000);
}

/*
 * The bus-free time (tBUF >= 4.7 us) separates the STOP that freed the bus
 * from the next START, which the controller may make as soon as recovery
 * hands the bus back. Measured from the read that found the bus free,
 * which comes after that STOP: the wait must be recovery's own, not the
 * time a slow (emulated, instrumented) machine takes to get there.
 */
static void recovery_waits_tbuf_after_the_last_stop(struct kunit *test)
{
	struct fake_bus *bus = fake_bus_register(test);

	slave_stuck(bus, 3);
	KUNIT_ASSERT_EQ(test, recover(bus), 0);
	KUNIT_ASSERT_TRUE(test, bus->stop_after_release);
	KUNIT_EXPECT_GE(test, bus->stop_to_unprepare, 4700);
	KUNIT_EXPECT_GE(test, bus->sample_to_unprepare, 4700);
}

/* The platform hooks bracket every recovery, also a failing one. */
static void recovery_calls_prepare_and_unprepare_once_each(struct kunit *test)
{
	struct fake_bus *bus = fake_bus_register(test);

	bus->scl_held = true;
	KUNIT_EXPECT_EQ(test, recover(bus), -EBUSY);
	KUNIT_EXPECT_EQ(test, bus->prepared, 1);
	KUNIT_EXPECT_EQ(test, bus->unprepared, 1);
}

/* The controller's view of the bus wins over the bare SDA level. */
static void recovery_trusts_get_bus_free_over_sda(struct kunit *test)
{
	struct fake_bus *bus = test->priv;

	bus->bri.get_bus_free = fake_get_bus_free;
	fake_bus_register(test);
	bus->busy_answers = 3;	/* read after clocks 1, 2 and 3 */
	KUNIT_EXPECT_EQ(test, recover(bus), 0);
	KUNIT_EXPECT_EQ(test, bus->rises, 4);
}

/* A driver's own routine is what i2c_recover_bus() runs and returns. */
static void recover_bus_runs_the_drivers_own_routine(struct kunit *test)
{
	struct fake_bus *bus = test->priv;

	bus->bri.recover_bus = fake_own_recovery;
	fake_bus_register(test);
	KUNIT_EXPECT_EQ(test, recover(bus), -EIO);
	KUNIT_EXPECT_EQ(test, bus->own_recoveries, 1);
	KUNIT_EXPECT_EQ(test, bus->falls, 0);
}

/* The counters say what happened: attempts, outcomes and pulses. */
static void recovery_counts_attempts_outcomes_and_pulses(struct kunit *test)
{
	struct fake_bus *bus = fake_bus_register(test);
	struct i2c_recovery_stats st;

	slave_stuck(bus, 6);
	KUNIT_ASSERT_EQ(test, recover(bus), 0);
	slave_stuck(bus, HOLDS_FOREVER);
	KUNIT_ASSERT_EQ(test, recover(bus), -EBUSY);

	KUNIT_ASSERT_EQ(test, i2c_recovery_read_stats(&bus->adap, &st), 0);
	KUNIT_EXPECT_EQ(test, st.attempts, 2);
	KUNIT_EXPECT_EQ(test, st.recovered, 1);
	KUNIT_EXPECT_EQ(test, st.failed, 1);
	KUNIT_EXPECT_EQ(test, st.pulses, 6 + FRAME_CLOCKS);
	KUNIT_EXPECT_EQ(test, st.last_pulses, FRAME_CLOCKS);
	KUNIT_EXPECT_EQ(test, st.last_result, -EBUSY);
}

static void expect_recovery_disabled(struct kunit *test, struct fake_bus *bus)
{
	KUNIT_EXPECT_NULL(test, bus->adap.bus_recovery_info);
	KUNIT_EXPECT_EQ(test, recover(bus), -EBUSY);
	KUNIT_EXPECT_EQ(test, bus->falls, 0);
}

/* Info without any way to recover leaves the adapter without recovery. */
static void registration_without_recover_bus_disables_recovery(struct kunit *test)
{
	struct fake_bus *bus = test->priv;

	bus->bri.recover_bus = NULL;
	fake_bus_register(test);
	expect_recovery_disabled(test, bus);
}

/* Generic recovery cannot clock a line it cannot read. */
static void registration_without_get_scl_disables_recovery(struct kunit *test)
{
	struct fake_bus *bus = test->priv;

	bus->bri.get_scl = NULL;
	fake_bus_register(test);
	expect_recovery_disabled(test, bus);
}

/* Nor can it do anything useful with no SDA callback at all. */
static void registration_without_any_sda_callback_disables_recovery(struct kunit *test)
{
	struct fake_bus *bus = test->priv;

	bus->bri.get_sda = NULL;
	bus->bri.set_sda = NULL;
	fake_bus_register(test);
	expect_recovery_disabled(test, bus);
}

/* As in 6.12, get_bus_free() alone is not enough for generic recovery. */
static void registration_with_only_get_bus_free_disables_recovery(struct kunit *test)
{
	struct fake_bus *bus = test->priv;

	bus->bri.get_bus_free = fake_get_bus_free;
	bus->bri.get_sda = NULL;
	bus->bri.set_sda = NULL;
	fake_bus_register(test);
	expect_recovery_disabled(test, bus);
}

/* 6.12 documents -EBUSY for an adapter that never had recovery. */
static void recover_bus_without_recovery_info_returns_ebusy(struct kunit *test)
{
	struct fake_bus *bus = test->priv;

	fake_bus_register(test);
	bus->adap.bus_recovery_info = NULL;
	slave_stuck(bus, 1);
	KUNIT_EXPECT_EQ(test, recover(bus), -EBUSY);
	KUNIT_EXPECT_EQ(test, bus->falls, 0);
}

static struct kunit_case i2c_recovery_cases[] = {
	KUNIT_CASE_PARAM(recovery_frees_a_slave_cut_at_any_bit_with_just_the_clocks_it_needs,
			 stuck_bit_gen_params),
	KUNIT_CASE(recovery_ends_with_a_stop_once_the_slave_lets_go),
	KUNIT_CASE(recovery_without_sda_drive_frees_the_bus_without_a_stop),
	KUNIT_CASE(recovery_without_sda_readback_sends_nine_clocks_and_succeeds),
	KUNIT_CASE(recovery_gives_up_with_ebusy_after_nine_clocks),
	KUNIT_CASE(recovery_gives_up_on_scl_held_low_after_smbus_ttimeout),
	KUNIT_CASE(recovery_stops_with_ebusy_when_scl_sticks_midway),
	KUNIT_CASE(recovery_waits_for_a_slave_stretching_the_clock),
	KUNIT_CASE(recovery_of_a_free_bus_sends_one_clock_and_a_stop),
	KUNIT_CASE(recovery_clocks_meet_standard_mode_timing),
	KUNIT_CASE(recovery_waits_tbuf_after_the_last_stop),
	KUNIT_CASE(recovery_calls_prepare_and_unprepare_once_each),
	KUNIT_CASE(recovery_trusts_get_bus_free_over_sda),
	KUNIT_CASE(recover_bus_runs_the_drivers_own_routine),
	KUNIT_CASE(recovery_counts_attempts_outcomes_and_pulses),
	KUNIT_CASE(registration_without_recover_bus_disables_recovery),
	KUNIT_CASE(registration_without_get_scl_disables_recovery),
	KUNIT_CASE(registration_without_any_sda_callback_disables_recovery),
	KUNIT_CASE(registration_with_only_get_bus_free_disables_recovery),
	KUNIT_CASE(recover_bus_without_recovery_info_returns_ebusy),
	{}
};

static struct kunit_suite i2c_recovery_suite = {
	.name = "i2c_core_recovery",
	.init = fake_bus_init,
	.test_cases = i2c_recovery_cases,
};

kunit_test_suite(i2c_recovery_suite);

MODULE_DESCRIPTION("KUnit tests for I2C bus recovery");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
