// SPDX-License-Identifier: GPL-2.0
/*
 * arb-two-masters - two masters share one simulated I2C bus, each through
 * its own GPIO challenge-and-response arbitrator (DT overlay
 * features/i2c-arb/i2c-arb-two.dtso). The seed's behaviour, so all but the
 * counters also hold on the upstream 6.12 driver.
 */
#include "arb-lib.h"

/* Per master; the heavy run is guest-nodebug/arb-stress. */
#define TRANSFERS	300
#define CYCLES		100

/* Nothing applied yet: topo_down() of it removes nothing. */
static struct arb_topo topo = { .overlay_id = -1 };

static bool case_binds(void)
{
	int bus[ARB_MAX];
	bool ok = topo_overlay_up(&topo, 2) && topo_children(&topo, bus);

	if (ok)
		ktap_diag("arbitrated buses i2c-%d and i2c-%d", bus[0], bus[1]);
	return ktap_result(ok, "the overlay of two masters binds both arbitrators, each with a child bus");
}

static void case_arbitrated_hammer(void)
{
	struct hammer h[ARB_MAX], sum;
	int bus[ARB_MAX];
	long long coll, stalled;

	wsim_reset(topo.sim_dir);
	if (!topo_children(&topo, bus)) {
		ktap_result(false, "two masters hammering the EEPROM through their arbitrators never collide nor corrupt a byte");
		return;
	}
	stalled = arb_counter_sum(bus, 2, "timeouts_stalled");
	hammer_all(h, 2, bus, TRANSFERS, &sum);
	if (stalled >= 0)
		stalled = arb_counter_sum(bus, 2, "timeouts_stalled") - stalled;
	coll = wsim_read_num(topo.sim_dir, "monitor/collisions");
	hammer_diag(h, 2);
	ktap_diag("monitor: %lld collisions, %lld starts, %lld stops", coll,
		  wsim_read_num(topo.sim_dir, "monitor/starts"),
		  wsim_read_num(topo.sim_dir, "monitor/stops"));
	ktap_result(coll == 0 && hammer_failures_explained(h, 2, &sum, stalled) &&
		    sum.corrupted == 0 && sum.done + sum.failed == 2 * TRANSFERS,
		    "two masters hammering the EEPROM through their arbitrators never collide nor corrupt a byte");
}

/* The negative control: it proves the monitor sees what arbitration prevents. */
static void case_unarbitrated_hammer(void)
{
	struct hammer h[ARB_MAX], sum;
	int bus[ARB_MAX];
	long long coll = -1;
	int round;

	wsim_reset(topo.sim_dir);
	if (topo_parents(&topo, bus)) {
		for (round = 0; round < 5; round++) {
			hammer_all(h, 2, bus, TRANSFERS / 3, &sum);
			coll = wsim_read_num(topo.sim_dir, "monitor/collisions");
			if (coll > 0)
				break;
		}
		hammer_diag(h, 2);
	}
	ktap_diag("monitor: %lld collisions without arbitration", coll);
	wsim_reset(topo.sim_dir);
	ktap_result(coll > 0, "the same two masters without arbitrators collide on the wires");
}

/* One transfer as one of the 2 masters. */
static int one_transfer(int bus)
{
	return arb_one_transfer(bus, 2, bus & 1);
}

static void case_stuck_claim(void)
{
	int bus[ARB_MAX], fd, busy_ret = 0, a_ret = -1, after = -1;
	double t0, busy_s = 0;
	bool ok = false;

	wsim_reset(topo.sim_dir);
	if (topo_children(&topo, bus)) {
		fd = arb_handle_hold(&topo, topo.handle[0]);
		if (fd >= 0) {
			t0 = lab_now();
			busy_ret = one_transfer(bus[1]);
			busy_s = lab_now() - t0;
			/* A's own claim being stuck does not stop A. */
			a_ret = one_transfer(bus[0]);
			arb_handle_release(fd);
			after = one_transfer(bus[1]);
			ok = busy_ret == -EBUSY && busy_s >= ARB_WAIT_FREE_S &&
			     busy_s < ARB_WAIT_FREE_S + ARB_WAIT_LATE_S &&
			     a_ret == 0 && after == 0;
		} else {
			ktap_diag("cannot drive the claim wire of A: %s", strerror(-fd));
		}
	}
	ktap_diag("B while A's claim is stuck: %d after %.3f s (wait-free %.3f s); A: %d; B after release: %d",
		  busy_ret, busy_s, ARB_WAIT_FREE_S, a_ret, after);
	ktap_result(ok, "a stuck claim of one master makes the other fail with EBUSY after wait-free, and work once released");
}

/*
 * Claim lines between boards are slower than a trace on one: the simulator
 * delays every change of a free wire by prop_ns. The slew the arbitrators
 * wait after asserting their claim (10 us) covers a delay below it, so
 * hammering at PROP_BELOW_NS still never collides; at PROP_ABOVE_NS (two
 * ms, 200 slews) a master looks before the other's claim can show, and the
 * same hammering collides. The second half shows that the delay acts, and
 * that the slew is what the first half relies on.
 */
#define PROP_BELOW_NS	"8000"
#define PROP_ABOVE_NS	"2000000"

/* Collisions while both masters hammer with claim lines @prop ns late. */
static long long collisions_at(const int *bus, const char *prop, int rounds,
			       struct hammer *sum)
{
	struct hammer h[ARB_MAX];
	long long coll = -1;
	int round;

	wsim_reset(topo.sim_dir);
	wsim_write(topo.sim_dir, "monitor/reset", "1");
	if (wsim_write(topo.sim_dir, "prop_ns", prop))
		return -1;
	for (round = 0; round < rounds; round++) {
		hammer_all(h, 2, bus, TRANSFERS, sum);
		coll = wsim_read_num(topo.sim_dir, "monitor/collisions");
		if (coll)
			break;
	}
	wsim_write(topo.sim_dir, "prop_ns", "0");
	return coll;
}

static void case_prop_delay(void)
{
	struct hammer below = { 0 }, above = { 0 };
	long long coll_below = -1, coll_above = -1;
	int bus[ARB_MAX];

	if (topo_children(&topo, bus)) {
		coll_below = collisions_at(bus, PROP_BELOW_NS, 1, &below);
		coll_above = collisions_at(bus, PROP_ABOVE_NS, 5, &above);
	}
	ktap_diag("claim lines %s ns late: %lld collisions, %ld corrupted, %ld of %d transfers done, %ld failed (%ld EBUSY); %s ns late: %lld collisions",
		  PROP_BELOW_NS, coll_below, below.corrupted, below.done, 2 * TRANSFERS,
		  below.failed, below.busy, PROP_ABOVE_NS, coll_above);
	/* A claim that timed out (EBUSY after a stall) is arbitrated-hammer's business. */
	ktap_result(coll_below == 0 && below.corrupted == 0 &&
		    below.done + below.failed == 2 * TRANSFERS && below.failed == below.busy &&
		    coll_above > 0,
		    "claim lines slower than the wires but faster than the slew never let two masters collide");
}

/* Extension: the debugfs counters of our driver. */
static void case_counters(void)
{
	static const char *name = "the arbitrators count claims, contention, back-offs and timeouts in debugfs";
	char before[2][512], after[2][512];
	struct hammer h[ARB_MAX], sum;
	int bus[ARB_MAX], fd, m;
	long long claims, contended, timeouts_a, timeouts_b;
	bool ok;

	if (!ktap_extension(name))
		return;
	ok = topo_children(&topo, bus);
	for (m = 0; ok && m < 2; m++)
		ok = arb_stats(bus[m], before[m], sizeof(before[m])) >= 0;
	if (!ok) {
		ktap_result(false, name);
		return;
	}
	hammer_all(h, 2, bus, TRANSFERS, &sum);
	fd = arb_handle_hold(&topo, topo.handle[0]);
	one_transfer(bus[1]);
	if (fd >= 0)
		arb_handle_release(fd);
	for (m = 0; m < 2; m++)
		arb_stats(bus[m], after[m], sizeof(after[m]));
	ktap_diag("A: %s", after[0]);
	ktap_diag("B: %s", after[1]);
	claims = lab_key_num(after[0], "claims") - lab_key_num(before[0], "claims") +
		 lab_key_num(after[1], "claims") - lab_key_num(before[1], "claims");
	contended = lab_key_num(after[0], "contended") + lab_key_num(after[1], "contended") -
		    lab_key_num(before[0], "contended") - lab_key_num(before[1], "contended");
	/* Each master's EBUSYs, and B's one claim against A's stuck one. */
	timeouts_a = lab_key_num(after[0], "timeouts") - lab_key_num(before[0], "timeouts");
	timeouts_b = lab_key_num(after[1], "timeouts") - lab_key_num(before[1], "timeouts");
	ktap_diag("timeouts: A %lld (EBUSY %ld), B %lld (EBUSY %ld, and 1 against the stuck claim)",
		  timeouts_a, h[0].busy, timeouts_b, h[1].busy);
	ktap_result(claims == sum.done && contended > 0 &&
		    timeouts_a == h[0].busy && timeouts_b == 1 + h[1].busy &&
		    lab_key_num(after[0], "wait_max_us") >= lab_key_num(after[0], "wait_mean_us") &&
		    lab_key_num(after[1], "wait_max_us") >= lab_key_num(after[1], "wait_mean_us"),
		    name);
}

static int unbind_bind(const char *dev)
{
	const char *drv = "/sys/bus/platform/drivers/i2c-arb-gpio-challenge";
	char path[128];
	int ret;

	snprintf(path, sizeof(path), "%s/unbind", drv);
	ret = lab_write(path, dev);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/bind", drv);
	return lab_write(path, dev);
}

static void case_rebind(void)
{
	int i, m, bus[ARB_MAX], err = 0;

	for (i = 0; i < CYCLES && !err; i++)
		for (m = 0; m < 2 && !err; m++)
			err = unbind_bind(topo.arb_dev[m]);
	ktap_diag("%d unbind/bind cycles, last error %d", i, err);
	ktap_result(!err && topo_children(&topo, bus) && !one_transfer(bus[0]) &&
		    !one_transfer(bus[1]),
		    "unbinding and binding both arbitrators 100 times leaves working buses");
}

static void case_overlay_cycles(void)
{
	static const char *const needles[] = {
		"i2c_arb", "i2c_mux", "i2c_arbitrator", NULL
	};
	int i, bus[ARB_MAX], leaks;
	bool ok = true;

	topo_down(&topo);
	for (i = 0; i < CYCLES && ok; i++) {
		ok = topo_overlay_up(&topo, 2);
		topo_down(&topo);
	}
	ok = ok && topo_overlay_up(&topo, 2) && topo_children(&topo, bus) &&
	     !one_transfer(bus[0]) && !one_transfer(bus[1]);
	topo_down(&topo);
	leaks = kmemleak_suspects(needles);
	ktap_diag("%d apply/remove cycles, kmemleak suspects in the arbitrator: %d", i, leaks);
	ktap_result(ok && leaks <= 0,
		    "applying and removing the two-master overlay 100 times leaves working buses and no leak");
}

/*
 * The cases after "binds" run on the overlay it applies; one run alone
 * (LAB_CASE) applies it itself. 0: not tried yet, 1: both child buses
 * there, -1: not there (the runner fails each case under its id).
 */
static int topo_bound;

static void topo_set(bool bound)
{
	topo_bound = bound ? 1 : -1;
	if (!bound)
		ktap_diag("no arbitrated buses: the remaining cases cannot run");
}

static bool topo_ready(void)
{
	int bus[ARB_MAX];

	if (!topo_bound)
		topo_set(topo_overlay_up(&topo, 2) && topo_children(&topo, bus));
	return topo_bound > 0;
}

static void case_binds_first(void)
{
	topo_set(case_binds());
}

/* The table's case @fn, on the two-master overlay. */
#define ON_TOPO(fn)							\
static void fn##_on_topo(void)						\
{									\
	if (topo_ready())						\
		fn();							\
}

ON_TOPO(case_arbitrated_hammer)
ON_TOPO(case_stuck_claim)
ON_TOPO(case_prop_delay)
ON_TOPO(case_counters)
ON_TOPO(case_unarbitrated_hammer)
ON_TOPO(case_rebind)
ON_TOPO(case_overlay_cycles)

static const struct ktap_case cases[] = {
	KTAP_CASE("binds", case_binds_first),
	KTAP_CASE("arbitrated-hammer", case_arbitrated_hammer_on_topo),
	KTAP_CASE("stuck-claim", case_stuck_claim_on_topo),
	KTAP_CASE("prop-delay", case_prop_delay_on_topo),
	KTAP_CASE("counters", case_counters_on_topo),
	KTAP_CASE("unarbitrated-hammer", case_unarbitrated_hammer_on_topo),
	KTAP_CASE("rebind", case_rebind_on_topo),
	KTAP_CASE("overlay-cycles", case_overlay_cycles_on_topo),
};

int main(void)
{
	int ret = ktap_run("arb-two-masters", KTAP_CASES(cases));

	/* overlay-cycles ends with the overlay removed; without it (LAB_CASE), here. */
	topo_down(&topo);
	return ret;
}
