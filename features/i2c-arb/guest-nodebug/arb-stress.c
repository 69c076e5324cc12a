// SPDX-License-Identifier: GPL-2.0
/*
 * arb-stress - the heavy run, on the non-debug kernel, at the binding's
 * defaults (wait-free-us 50 ms): every master of the two- and three-master
 * overlays does 10,000 transfers (writes and read-backs of its own EEPROM
 * bytes) at once, one thread per master on both CPUs, and no transfer is
 * tried again. Nothing may collide on the wires, no byte may come back
 * wrong, no transfer may fail but with -EBUSY, and a claim may time out
 * only when a stall explains it (hammer_failures_explained() in arb-lib.h:
 * the claiming arbitrator was not running for more than wait-retry-us, or
 * a vCPU stalled for ARB_STALL_EXPLAINS_MS in the wait-free window before).
 * Per master: the claim wait (p50, p99, max, from the arbitrator's
 * histogram) and the longest hold, and for every -EBUSY the longest stall
 * the detector saw before it.
 *
 * Then, as numbers only, the control: the same runs (3000 transfers per
 * master) with our arbitrators claiming as the seed does (debugfs
 * seed_rounds), which shows what the hold-off and the yield to older
 * claims change.
 */
#include "../guest/arb-lib.h"

#define TRANSFERS	10000
#define CONTROL_TRANSFERS	3000
/* Claim wait percentile from the arbitrator's power-of-two histogram. */
static long long wait_pct(const char *stats, double pct)
{
	const char *p = strstr(stats, "wait_log2_us ");
	long long b[32], total = 0, run = 0;
	int n = 0, i;

	if (!p)
		return -1;
	p += strlen("wait_log2_us ");
	while (n < 32 && sscanf(p, "%lld", &b[n]) == 1) {
		total += b[n++];
		p = strchr(p, ' ');
		if (!p)
			break;
		p++;
	}
	for (i = 0; i < n; i++) {
		run += b[i];
		if (run * 100.0 >= pct * total)
			return 1LL << i;	/* waits below this */
	}
	return -1;
}

static void report_master(int m, int child, const struct hammer *h,
			  long long *timeouts, long long *stalled)
{
	char s[1024];
	int i;

	if (arb_stats(child, s, sizeof(s))) {
		*timeouts = *stalled = -1;
		return;
	}
	*timeouts = stat_of(s, "timeouts");
	*stalled = stat_of(s, "timeouts_stalled");
	ktap_diag("master %c: claim wait p50 < %lld us, p99 < %lld us, max %lld us; hold max %lld us; %lld contended, %lld back-offs, %lld timeouts (%lld stalled)",
		  'A' + m, wait_pct(s, 50), wait_pct(s, 99), stat_of(s, "wait_max_us"),
		  stat_of(s, "hold_max_us"), stat_of(s, "contended"), stat_of(s, "retries"),
		  *timeouts, *stalled);
	for (i = 0; i < h->busy && i < 16; i++)
		ktap_diag("master %c: EBUSY at %.3f s, longest stall of a CPU in the 50 ms before: %.1f ms",
			  'A' + m, h->busy_at[i], stall_before(h->busy_at[i]));
}

/* The seed's rounds on every arbitrator of @bus (the control), or ours. */
static bool seed_rounds(const int *bus, int masters, bool on)
{
	char path[96];
	int m;

	for (m = 0; m < masters; m++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/i2c/i2c-%d/seed_rounds", bus[m]);
		if (write_text(path, on ? "1" : "0"))
			return false;
	}
	return true;
}

/*
 * The control: the same masters claiming as the seed and 6.12 do (no
 * hold-off after a release, rounds of wait-retry-us, no yield), reported
 * beside ours as numbers: the mechanism of the starvation, measured.
 */
static void control(int masters)
{
	struct hammer h[ARB_MAX], sum = { 0 };
	long long to, st, stalled = 0;
	struct arb_topo t;
	int bus[ARB_MAX], m;

	if (!topo_overlay_up(&t, masters) || !topo_children(&t, bus) ||
	    !seed_rounds(bus, masters, true)) {
		ktap_diag("control: no overlay or no seed_rounds switch");
		topo_down(&t);
		return;
	}
	sim_reset(&t);
	hammer_all(h, masters, bus, CONTROL_TRANSFERS, &sum);
	ktap_diag("control, %d masters with the seed's rounds: %ld transfers in %.1f s, %lld collisions, %ld EBUSY",
		  masters, sum.done, sum.seconds, sim_monitor(&t, "collisions"), sum.busy);
	for (m = 0; m < masters; m++) {
		report_master(m, bus[m], &h[m], &to, &st);
		stalled += st;
	}
	/* as numbers only: the seed's rounds starve without any stall */
	hammer_failures_explained(h, masters, &sum, stalled);
	topo_down(&t);
}

static void stress(int masters, const char *name)
{
	struct hammer h[ARB_MAX], sum = { 0 };
	long long coll = -1, to, st, timeouts = 0, stalled = 0;
	struct arb_topo t;
	int bus[ARB_MAX], m;
	bool up;

	up = topo_overlay_up(&t, masters) && topo_children(&t, bus);
	if (up) {
		sim_reset(&t);
		hammer_all(h, masters, bus, TRANSFERS, &sum);
		coll = sim_monitor(&t, "collisions");
		hammer_diag(h, masters);
		for (m = 0; m < masters; m++) {
			report_master(m, bus[m], &h[m], &to, &st);
			timeouts += to;
			stalled += st;
		}
		ktap_diag("%d masters: %ld transfers in %.1f s, %lld collisions, %lld starts, %ld EBUSY (%lld timeouts, %lld of claims not running); vCPU stalls over %d ms: %d, longest %.1f ms",
			  masters, sum.done, sum.seconds, coll, sim_monitor(&t, "starts"),
			  sum.busy, timeouts, stalled, ARB_STALL_MS, arb_nstalls, arb_stall_max_ms);
	}
	topo_down(&t);
	ktap_result(up && coll == 0 && sum.corrupted == 0 && timeouts == sum.busy &&
		    hammer_failures_explained(h, masters, &sum, stalled) &&
		    sum.done + sum.failed == (long)masters * TRANSFERS, name);
}

int main(void)
{
	static const char *three = "three masters do 10000 transfers each at the binding's defaults: no collision, no corrupted byte, no EBUSY but from a stalled claim";

	ktap_begin("arb-stress", 2);
	if (system("modprobe i2c-wire-sim"))
		ktap_diag("modprobe i2c-wire-sim failed");
	stress(2, "two masters do 10000 transfers each at the binding's defaults: no collision, no corrupted byte, no EBUSY but from a stalled claim");
	if (ktap_extension(three))
		stress(3, three);
	if (!strcmp(getenv("LAB_VARIANT") ?: "", "ours")) {
		control(2);
		control(3);
	}
	return ktap_end();
}
