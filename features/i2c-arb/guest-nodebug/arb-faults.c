// SPDX-License-Identifier: GPL-2.0
/*
 * arb-faults - the tree's i2c-gpio fault injector against the arbitrated
 * bus of two masters (i2c-arb-two.dtso), whose wires now raise edge
 * interrupts (fixtures/i2c-wire-sim). The seed's behaviour: also run on
 * upstream.
 *
 * On the non-debug kernel only: i2c-gpio's lose_arbitration_irq() sets
 * SDA with gpiod_set_value_cansleep() in its hard interrupt handler
 * (drivers/i2c/busses/i2c-gpio.c of 6.12), which DEBUG_ATOMIC_SLEEP
 * reports whatever the GPIO chip ("BUG: sleeping function called from
 * invalid context", seen on the debug kernel). That is the injector's
 * bug, not the bus's; on a chip that does not sleep the call is safe.
 */
#include "../guest/arb-lib.h"

/* Nothing applied yet: topo_down() of it removes nothing. */
static struct arb_topo topo = { .overlay_id = -1 };

/*
 * i2c-gpio's fault injector "lose_arbitration" on B's adapter: it waits,
 * with B's bus locked, for SCL to fall (an interrupt on B's SCL line, which
 * the simulator raises from A's clock), then pulls SDA low for
 * INJECT_US, as a master that does not arbitrate would. i2c-algo-bit does
 * not detect lost arbitration, so what A sends meanwhile may be lost or
 * corrupted; what must hold is that the pulse reached the wires during A's
 * traffic, and that afterwards both arbitrated buses work, every byte read
 * back, with both claims released.
 */
#define INJECT_US	2000
#define INJECT_WAIT_S	10

struct injector {
	char path[96];
	int ret;
	double took;
	volatile bool done;
};

static void *inject_thread(void *arg)
{
	struct injector *inj = arg;
	char us[16];
	double t0 = lab_now();

	snprintf(us, sizeof(us), "%d", INJECT_US);
	inj->ret = lab_write(inj->path, us);
	inj->took = lab_now() - t0;
	inj->done = true;
	return NULL;
}

static void inject_wake(int sig)
{
	(void)sig;
}

/*
 * An injector that saw no clock waits for ever: a signal ends its wait
 * (wait_for_completion_interruptible), and it disarms.
 */
static void inject_stop(struct injector *inj, pthread_t th)
{
	struct sigaction sa = { .sa_handler = inject_wake };
	int tries;

	sigaction(SIGUSR1, &sa, NULL);
	for (tries = 0; !inj->done && tries < 50; tries++) {
		pthread_kill(th, SIGUSR1);
		lab_sleep_ms(100);
	}
}

/* A's transfers while the injector waits; the count of those that failed. */
static long transfers_during(const struct injector *inj, int bus, long *n)
{
	double end = lab_now() + INJECT_WAIT_S;
	long failed = 0;

	for (*n = 0; !inj->done && lab_now() < end; ++*n)
		failed += arb_one_transfer(bus, 2, 0) != 0;
	return failed;
}

/* @rounds write-and-read-backs on each arbitrated bus; the first error or 0. */
static int both_work(const int *bus, int rounds)
{
	int i, m, ret;

	for (i = 0; i < rounds; i++)
		for (m = 0; m < 2; m++)
			if ((ret = arb_one_transfer(bus[m], 2, m)))
				return ret;
	return 0;
}

static void case_lose_arbitration(void)
{
	struct injector inj = { .ret = -1 };
	int bus[ARB_MAX], parent[ARB_MAX] = { -1, -1, -1 }, after = -1, claims = -1;
	long long irqs = -1, coll = -1;
	long n = 0, failed = 0;
	pthread_t th;
	bool ok = false;

	if (topo_overlay_up(&topo, 2) && topo_children(&topo, bus) &&
	    topo_parents(&topo, parent)) {
		wsim_write(topo.sim_dir, "monitor/reset", "1");
		snprintf(inj.path, sizeof(inj.path), "/sys/kernel/debug/i2c/i2c-%d/lose_arbitration",
			 parent[1]);
		irqs = wsim_read_num(topo.sim_dir, "irqs");
		if (!pthread_create(&th, NULL, inject_thread, &inj)) {
			lab_sleep_ms(100);	/* the injector arms its interrupt */
			failed = transfers_during(&inj, bus[0], &n);
			inject_stop(&inj, th);
			pthread_join(th, NULL);
			irqs = wsim_read_num(topo.sim_dir, "irqs") - irqs;
			coll = wsim_read_num(topo.sim_dir, "monitor/collisions");
			after = both_work(bus, 20);
			claims = wsim_wire_level(topo.sim_dir, 2) + wsim_wire_level(topo.sim_dir, 3);
			ok = inj.ret == 0 && inj.done && irqs >= 1 && coll >= 1 && after == 0 &&
			     claims == 2;
		}
	}
	ktap_diag("injector on i2c-%d: %d after %.3f s, %lld interrupts; A: %ld of %ld transfers failed meanwhile; %lld collisions; then both buses: %d; claim wires high: %d of 2",
		  parent[1], inj.ret, inj.took, irqs, failed, n, coll, after, claims);
	ktap_result(ok, "lose_arbitration from i2c-gpio's fault injector disturbs the other master's traffic, and both arbitrated buses work again after it");
}

static const struct ktap_case cases[] = {
	KTAP_CASE("lose-arbitration", case_lose_arbitration),
};

int main(void)
{
	int ret = ktap_run("arb-faults", KTAP_CASES(cases));

	topo_down(&topo);
	return ret;
}
