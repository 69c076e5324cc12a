// SPDX-License-Identifier: GPL-2.0
/*
 * arb-extensions - what our arbitrator does beyond the seed and upstream
 * 6.12: three masters on one bus (two their-claim lines each), and the
 * same topologies described by software nodes (fixtures/i2c-arb-swnode)
 * instead of device tree, with a client described on the arbitrated bus.
 */
#include "arb-lib.h"

#define TRANSFERS	200

static bool hammer_clean(struct arb_topo *t, const char *name)
{
	struct hammer h[ARB_MAX], sum;
	int bus[ARB_MAX];
	long long coll, stalled;

	wsim_reset(t->sim_dir);
	if (!topo_children(t, bus)) {
		ktap_diag("%s: an arbitrator has no child bus", t->what);
		return ktap_result(false, name);
	}
	stalled = arb_counter_sum(bus, t->masters, "timeouts_stalled");
	hammer_all(h, t->masters, bus, TRANSFERS, &sum);
	stalled = arb_counter_sum(bus, t->masters, "timeouts_stalled") - stalled;
	coll = wsim_read_num(t->sim_dir, "monitor/collisions");
	hammer_diag(h, t->masters);
	ktap_diag("%s, %d masters: %lld collisions", t->what, t->masters, coll);
	return ktap_result(coll == 0 && hammer_failures_explained(h, t->masters, &sum, stalled) &&
			   sum.corrupted == 0 &&
			   sum.done + sum.failed == t->masters * TRANSFERS, name);
}

/* One transfer as one of the 3 masters. */
static int one_transfer(int bus)
{
	return arb_one_transfer(bus, 3, 0);
}

/* A stuck claim of A stops B and C, and only until it is released. */
static void stuck_claim_of_three(struct arb_topo *t, const char *name)
{
	int bus[ARB_MAX], fd, b = 1, c = 1, b2 = 1, c2 = 1;

	if (topo_children(t, bus) && (fd = arb_handle_hold(t, t->handle[0])) >= 0) {
		b = one_transfer(bus[1]);
		c = one_transfer(bus[2]);
		arb_handle_release(fd);
		b2 = one_transfer(bus[1]);
		c2 = one_transfer(bus[2]);
	}
	ktap_diag("A stuck: B %d, C %d; released: B %d, C %d", b, c, b2, c2);
	ktap_result(b == -EBUSY && c == -EBUSY && !b2 && !c2, name);
}

static bool swnode_up(struct arb_topo *t, int masters)
{
	topo_swnode(t, masters);
	return !lab_sh(NULL, 0, "modprobe i2c-arb-swnode masters=%d", masters) &&
	       topo_wait_bound(t, 10);
}

static void case_three_overlay(void)
{
	static const char *bind = "three masters from a DT overlay bind, each arbitrator reading two their-claim lines";
	static const char *hammer = "three masters hammering the EEPROM through their arbitrators never collide nor corrupt a byte";
	static const char *stuck = "a stuck claim of one of three masters makes both others fail with EBUSY until released";
	struct arb_topo t;

	if (!ktap_extension(bind)) {
		ktap_extension(hammer);
		ktap_extension(stuck);
		return;
	}
	if (!ktap_result(topo_overlay_up(&t, 3), bind)) {
		ktap_result(false, hammer);
		ktap_result(false, stuck);
		topo_down(&t);
		return;
	}
	hammer_clean(&t, hammer);
	stuck_claim_of_three(&t, stuck);
	topo_down(&t);
}

static void case_swnode(int masters)
{
	char bind[128], hammer[160];
	struct arb_topo t;

	snprintf(bind, sizeof(bind), "%d masters described by software nodes bind, without device tree", masters);
	snprintf(hammer, sizeof(hammer), "%d masters described by software nodes hammer the EEPROM without collision or corruption", masters);
	if (!ktap_extension(bind)) {
		ktap_extension(hammer);
		return;
	}
	if (ktap_result(swnode_up(&t, masters), bind))
		hammer_clean(&t, hammer);
	else
		ktap_result(false, hammer);
	lab_sh(NULL, 0, "rmmod i2c-arb-swnode");
}

static void case_swnode_two(void)
{
	case_swnode(2);
}

static void case_swnode_three(void)
{
	case_swnode(3);
}

/* The name of the software node behind a device, from its sysfs link. */
static bool swnode_is(const char *dev, const char *want)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/software_node", dev);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = 0;
	base = strrchr(target, '/');
	return base && !strcmp(base + 1, want);
}

/* The driver bound to @dev, waiting up to @seconds for a deferred probe. */
static bool bound_to(const char *dev, const char *driver, double seconds)
{
	char path[PATH_MAX], target[PATH_MAX];
	double end = lab_now() + seconds;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/driver", dev);
	while ((n = readlink(path, target, sizeof(target) - 1)) < 0 && lab_now() < end)
		lab_sleep_ms(50);
	if (n < 0)
		return false;
	target[n] = 0;
	return !strcmp(strrchr(target, '/') + 1, driver);
}

/*
 * A 24c02 described by the software node "eeprom@50" below master A's
 * "i2c-arb" node (size 128, where the chip alone would give 256): bytes
 * written through at24 reach the EEPROM on the shared wires.
 */
static bool eeprom_through_client(const struct arb_topo *t, const char *dev)
{
	static const uint8_t data[4] = { 0x5a, 0xa5, 0x3c, 0xc3 };
	uint8_t back[4] = { 0 }, cell[4] = { 0 };
	char path[PATH_MAX];
	struct stat st;
	int fd, w = -1, r = -1;

	snprintf(path, sizeof(path), "%s/eeprom", dev);
	fd = open(path, O_RDWR);
	if (fd >= 0) {
		w = pwrite(fd, data, sizeof(data), 0x40);
		r = pread(fd, back, sizeof(back), 0x40);
		if (fstat(fd, &st))
			st.st_size = -1;
		close(fd);
	}
	wsim_eeprom_peek(t->sim_dir, 0x40, cell, sizeof(cell));
	ktap_diag("%s: size %lld, wrote %d, read %d, back %02x.., EEPROM %02x..", path,
		  fd >= 0 ? (long long)st.st_size : -1LL, w, r, back[0], cell[0]);
	return fd >= 0 && st.st_size == 128 && w == 4 && r == 4 &&
	       !memcmp(back, data, 4) && !memcmp(cell, data, 4);
}

static void case_swnode_client(void)
{
	static const char *name = "[extension] a client described by a software node on a software-node arbitrator's bus probes and reads and writes through it";
	char bus[128], dev[128];
	bool up, node, probed = false, io = false;
	struct arb_topo t;
	int child;

	if (!ktap_extension(name))
		return;
	topo_swnode(&t, 2);
	/* No udev in the guest: the client's driver is loaded by hand. */
	up = !lab_sh(NULL, 0, "modprobe at24 && modprobe i2c-arb-swnode masters=2 client=1") &&
	     topo_wait_bound(&t, 10);
	child = up ? child_bus(t.arb_dev[0]) : -1;
	snprintf(bus, sizeof(bus), "/sys/bus/i2c/devices/i2c-%d", child);
	snprintf(dev, sizeof(dev), "/sys/bus/i2c/devices/%d-0050", child);
	node = child >= 0 && swnode_is(bus, "i2c-arb");
	if (node)
		probed = bound_to(dev, "at24", 10) && swnode_is(dev, "eeprom@50");
	if (probed)
		io = eeprom_through_client(&t, dev);
	ktap_diag("bound %d, child i2c-%d: node i2c-arb %d, at24 on eeprom@50 %d, I/O %d",
		  up, child, node, probed, io);
	ktap_result(up && node && probed && io, name);
	lab_sh(NULL, 0, "rmmod i2c-arb-swnode");
}

/* Each case brings its topology up and down itself, and reports on all of it. */
static const struct ktap_case cases[] = {
	KTAP_CASE_N("three-masters-overlay", case_three_overlay, 3),
	KTAP_CASE_N("two-masters-swnode", case_swnode_two, 2),
	KTAP_CASE_N("three-masters-swnode", case_swnode_three, 2),
	KTAP_CASE("client-on-swnode-bus", case_swnode_client),
};

int main(void)
{
	ktap_begin("arb-extensions", ktap_plan(KTAP_CASES(cases)));
	lab_sh(NULL, 0, "modprobe i2c-wire-sim");
	return ktap_run_cases(KTAP_CASES(cases));
}
