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

#define CLIENT_DRIVER	"i2c-arb-swnode-client"

/* The last component of the target of the link @path, or "" (in @out). */
static void link_target(const char *path, char *out, size_t len, int tail)
{
	char t[PATH_MAX];
	ssize_t n = readlink(path, t, sizeof(t) - 1);
	const char *p = t;
	int i;

	out[0] = 0;
	if (n <= 0)
		return;
	t[n] = 0;
	/* keep the last @tail components */
	for (i = 0, p = t + n; p > t && i < tail; i += *--p == '/')
		;
	snprintf(out, len, "%s", *p == '/' ? p + 1 : p);
}

/* The device below i2c-@bus whose "name" is @name (its real sysfs name). */
static void client_on(int bus, const char *name, char *dev, size_t len)
{
	char dir[64], path[PATH_MAX], text[64];
	struct dirent *e;
	DIR *d;

	dev[0] = 0;
	snprintf(dir, sizeof(dir), "/sys/bus/i2c/devices/i2c-%d", bus);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%.200s/name", dir, e->d_name);
		if (!read_text(path, text, sizeof(text)) && !strncmp(text, name, strlen(name)) &&
		    text[strlen(name)] == '\n') {
			snprintf(dev, len, "%.200s", e->d_name);
			break;
		}
	}
	closedir(d);
}

/*
 * The i2c-mux core gives the arbitrated bus of a software-node arbitrator
 * its "i2c-arb" child node; the fixture instantiates a client described by
 * a node below it, on the adapter it finds by that node. A's arbitrated
 * bus links to the node; the client (found by its name under that bus,
 * not guessed) links to its own node below it, is bound to its driver,
 * sees its node's property, and reads the simulator's EEPROM through the
 * arbitrator.
 */
static void swnode_client(const struct arb_topo *t, const char *name)
{
	char node[256], cnode[256], dev[256], drv[256], path[PATH_MAX];
	char label[128] = "", byte0[16] = "", want[16];
	int child = child_bus(t->arb_dev[0]), fd;
	unsigned char ee = 0;
	bool ok;

	snprintf(path, sizeof(path), "/sys/bus/i2c/devices/i2c-%d/software_node", child);
	link_target(path, node, sizeof(node), 2);
	client_on(child, CLIENT_DRIVER, dev, sizeof(dev));
	snprintf(path, sizeof(path), "/sys/bus/i2c/devices/%s/software_node", dev);
	link_target(path, cnode, sizeof(cnode), 3);
	snprintf(path, sizeof(path), "/sys/bus/i2c/devices/%s/driver", dev);
	link_target(path, drv, sizeof(drv), 1);
	ktap_diag("A's arbitrated bus i2c-%d: node %s; client %s on it: node %s, driver %s",
		  child, node[0] ? node : "none", dev[0] ? dev : "none",
		  cnode[0] ? cnode : "none", drv[0] ? drv : "none");
	ok = !strcmp(node, "i2c-arb-swnode-arb-a/i2c-arb") && dev[0] &&
	     !strcmp(cnode, "i2c-arb-swnode-arb-a/i2c-arb/eeprom@50") &&
	     !strcmp(drv, CLIENT_DRIVER);

	snprintf(path, sizeof(path), "/sys/bus/i2c/devices/%s/label", dev);
	ok = !read_text(path, label, sizeof(label)) && ok &&
	     !strcmp(label, "eeprom on the arbitrated bus\n");
	snprintf(path, sizeof(path), "/sys/bus/i2c/devices/%s/byte0", dev);
	ok = !read_text(path, byte0, sizeof(byte0)) && ok;
	snprintf(path, sizeof(path), "%.200s/eeprom", t->sim_dir);
	fd = open(path, O_RDONLY);
	if (fd < 0 || read(fd, &ee, 1) != 1)
		ok = false;
	if (fd >= 0)
		close(fd);
	snprintf(want, sizeof(want), "%d\n", ee);
	ktap_diag("client label: %.60s; EEPROM byte 0 through the arbitrator: %.8s, in the simulator: %d",
		  label, byte0, ee);
	ktap_result(ok && !strcmp(byte0, want), name);
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
