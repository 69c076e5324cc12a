// SPDX-License-Identifier: GPL-2.0
/*
 * arb-stress - the heavy run, on the non-debug kernel: every master of the
 * two- and three-master overlays does 10,000 transfers (writes and
 * read-backs of its own EEPROM bytes) at once, one thread per master on
 * both CPUs. Nothing may collide on the wires and no byte may come back
 * wrong. Two masters is the seed's behaviour; three is our extension.
 */
#include "../guest/arb-lib.h"

#define TRANSFERS	10000
/*
 * A transfer that lost its claim for wait-free-us is tried again, up to
 * BUSY_TRIES times in all (see struct hammer): with three masters on two
 * CPUs, about one claim in 30,000 was seen to starve that long.
 */
#define BUSY_TRIES	3

static void stress(int masters, const char *name)
{
	struct hammer h[ARB_MAX], sum = { 0 };
	struct arb_topo t;
	int bus[ARB_MAX];
	long long coll = -1;
	bool up;

	up = topo_overlay_up(&t, masters) && topo_children(&t, bus);
	if (up) {
		sim_reset(&t);
		hammer_all_tries(h, masters, bus, TRANSFERS, BUSY_TRIES, &sum);
		coll = sim_monitor(&t, "collisions");
		hammer_diag(h, masters);
		ktap_diag("%d masters: %ld transfers in %.1f s, %lld collisions, %lld starts, %ld claims lost to EBUSY",
			  masters, sum.done, sum.seconds, coll, sim_monitor(&t, "starts"), sum.lost);
	}
	topo_down(&t);
	ktap_result(up && coll == 0 && sum.failed == 0 && sum.corrupted == 0 &&
		    sum.done == (long)masters * TRANSFERS, name);
}

int main(void)
{
	static const char *three = "three masters do 10000 transfers each through their arbitrators without a collision or a corrupted byte";

	ktap_begin("arb-stress", 2);
	if (system("modprobe i2c-wire-sim"))
		ktap_diag("modprobe i2c-wire-sim failed");
	stress(2, "two masters do 10000 transfers each through their arbitrators without a collision or a corrupted byte");
	if (ktap_extension(three))
		stress(3, three);
	return ktap_end();
}
