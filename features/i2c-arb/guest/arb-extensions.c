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

	sim_reset(t);
	if (!topo_children(t, bus)) {
		ktap_diag("%s: an arbitrator has no child bus", t->what);
		return ktap_result(false, name);
	}
	stalled = arb_counter_sum(bus, t->masters, "timeouts_stalled");
	hammer_all(h, t->masters, bus, TRANSFERS, &sum);
	stalled = arb_counter_sum(bus, t->masters, "timeouts_stalled") - stalled;
	coll = sim_monitor(t, "collisions");
	hammer_diag(h, t->masters);
	ktap_diag("%s, %d masters: %lld collisions", t->what, t->masters, coll);
	return ktap_result(coll == 0 && hammer_failures_explained(&sum, stalled) &&
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
	char cmd[96];

	topo_swnode(t, masters);
	snprintf(cmd, sizeof(cmd), "modprobe i2c-arb-swnode masters=%d", masters);
	return !system(cmd) && topo_wait_bound(t, 10);
}

static void swnode_down(void)
{
	if (system("rmmod i2c-arb-swnode"))
		ktap_diag("rmmod i2c-arb-swnode failed");
}

/* Master A's arbitrated bus node and the client node on it (the fixture). */
#define SWNODE_BUS	"/sys/kernel/software_nodes/i2c-arb-swnode-arb-a/i2c-arb"
#define SWNODE_CLIENT	SWNODE_BUS "/eeprom@50"

/* The name of the device a software node's sysfs folder links to, or "". */
static void swnode_device(const char *node_dir, char *name, size_t len)
{
	DIR *d = opendir(node_dir);
	struct dirent *e;

	name[0] = 0;
	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_type == DT_LNK) {
			snprintf(name, len, "%s", e->d_name);
			break;
		}
	closedir(d);
}

/*
 * The i2c-mux core gives the arbitrated bus of a software-node arbitrator
 * its "i2c-arb" child node; the fixture instantiates a client described by
 * a node below it on the adapter it finds by that node. The client's device
 * (named by the node's sysfs link, not guessed) sits on A's arbitrated bus,
 * is bound to its driver, sees its own node's property, and reads the
 * simulator's EEPROM through the arbitrator.
 */
static void swnode_client(const struct arb_topo *t, const char *name)
{
	char adap[256], dev[256], path[PATH_MAX], link[PATH_MAX];
	char label[128] = "", byte0[16] = "";
	char want_adap[32], want_byte[16], ee[1] = { 0 };
	int child = child_bus(t->arb_dev[0]), fd;
	ssize_t n;
	bool ok;

	snprintf(want_adap, sizeof(want_adap), "i2c-%d", child);
	swnode_device(SWNODE_BUS, adap, sizeof(adap));
	swnode_device(SWNODE_CLIENT, dev, sizeof(dev));
	ktap_diag("node i2c-arb: adapter %s (A's arbitrated bus: %s); node eeprom@50: client %s",
		  adap[0] ? adap : "none", want_adap, dev[0] ? dev : "none");

	snprintf(path, sizeof(path), "/sys/bus/i2c/devices/%s/driver", dev);
	n = readlink(path, link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = 0;
	ok = adap[0] && !strcmp(adap, want_adap) && dev[0] &&
	     n > 0 && !strcmp(strrchr(link, '/') + 1, "i2c-arb-swnode-client");
	ktap_diag("driver of %s: %s", dev, link);

	snprintf(path, sizeof(path), "/sys/bus/i2c/devices/%s", dev);
	n = readlink(path, link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = 0;
	snprintf(path, sizeof(path), "/%s/", want_adap);
	ok = ok && strstr(link, path);

	snprintf(path, sizeof(path), "/sys/bus/i2c/devices/%s/label", dev);
	ok = !read_text(path, label, sizeof(label)) && ok &&
	     !strcmp(label, "eeprom on the arbitrated bus\n");
	snprintf(path, sizeof(path), "/sys/bus/i2c/devices/%s/byte0", dev);
	ok = !read_text(path, byte0, sizeof(byte0)) && ok;
	snprintf(path, sizeof(path), "%.200s/eeprom", t->sim_dir);
	fd = open(path, O_RDONLY);
	if (fd < 0 || read(fd, ee, 1) != 1)
		ok = false;
	if (fd >= 0)
		close(fd);
	snprintf(want_byte, sizeof(want_byte), "%d\n", (uint8_t)ee[0]);
	ktap_diag("client label: %.60s; EEPROM byte 0 through the arbitrator: %.8s, in the simulator: %d",
		  label, byte0, (uint8_t)ee[0]);
	ktap_result(ok && !strcmp(byte0, want_byte), name);
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
	static const char *client = "a client described by a software node on a software-node arbitrator's bus probes and reads through it";
	char bind[128], hammer[160];
	struct arb_topo t;

	snprintf(bind, sizeof(bind), "%d masters described by software nodes bind, without device tree", masters);
	snprintf(hammer, sizeof(hammer), "%d masters described by software nodes hammer the EEPROM without collision or corruption", masters);
	if (!ktap_extension(bind)) {
		ktap_extension(hammer);
		if (masters == 2)
			ktap_extension(client);
		return;
	}
	if (ktap_result(swnode_up(&t, masters), bind)) {
		hammer_clean(&t, hammer);
		if (masters == 2)
			swnode_client(&t, client);
	} else {
		ktap_result(false, hammer);
		if (masters == 2)
			ktap_result(false, client);
	}
	swnode_down();
}

int main(void)
{
	ktap_begin("arb-extensions", 8);
	if (system("modprobe i2c-wire-sim"))
		ktap_diag("modprobe i2c-wire-sim failed");
	case_three_overlay();
	case_swnode(2);
	case_swnode(3);
	return ktap_end();
}
